/* gst-cudabilateral: plain C reference of the filter's semantics, the
 * oracle the GPU output is compared with where no golden file exists. It is
 * itself checked against OpenCV's golden files (test_reference). */

#ifndef CBF_TEST_REFERENCE_H
#define CBF_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "gaussian.h"

/* Filters @channels (1 or 3) colour bytes starting at byte @colour_offset of
 * each @pixel_bytes-byte pixel, as cv::bilateralFilter with BORDER_DEFAULT
 * does; the pixel's other bytes are copied from @src. */
void cbf_reference_bilateral (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_color, double sigma_space);

/* The filter on samples of @bits bits (9 to 16, each in a uint16_t, values
 * 0 to 2^bits - 1), in double precision: the circular window of
 * cbf_bilateral_radius (@diameter, @sigma_space), reflect-101 borders, the
 * L1 distance of the @channels samples from @colour_offset of each
 * @pixel_samples-sample pixel, weights exp (-r^2 / (2 sigma_space^2)) x
 * exp (-d^2 / (2 s^2)) where s is @sigma_color, given in 8-bit levels,
 * times (2^bits - 1) / 255 (a sigma <= 0 taken as 1 first, as OpenCV
 * does), and the result rounded to the nearest, half to even. Strides are
 * in samples; the pixel's other samples are copied from @src. */
void cbf_reference_bilateral_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int colour_offset, int channels, int bits,
    int diameter, double sigma_color, double sigma_space);

/* The deep-sample filter in the arithmetic planned for its kernels: float
 * spatial weights (bilateral.h's tables), the range weight from
 * cbf_deep_range_fill's table at distance >> cbf_deep_range_shift, float
 * sums, the quotient rounded to the nearest. Checked against
 * cbf_reference_bilateral_deep, it bounds what those kernels can reach. */
void cbf_reference_bilateral_deep_table (const uint16_t * src,
    size_t src_stride, uint16_t * dst, size_t dst_stride, int width,
    int height, int pixel_samples, int colour_offset, int channels, int bits,
    int diameter, double sigma_color, double sigma_space);

/* The same pixels blurred as cv::GaussianBlur does (kernel size and sigma
 * from cbf_gaussian_params (@diameter, @sigma_space), BORDER_DEFAULT),
 * within +-1: separable, float sums, horizontal then vertical. */
void cbf_reference_gaussian (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_space);

/* The same blur on samples of up to 16 bits (each in a uint16_t; strides
 * and pixels in samples): the coefficients of cbf_gaussian_kernel_fill,
 * the two passes summed in double with no rounding between them, the
 * result rounded to the nearest. What the deep formats' mode=gaussian
 * must give within their tolerance. */
void cbf_reference_gaussian_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int colour_offset, int channels, int diameter,
    double sigma_space);

#endif
