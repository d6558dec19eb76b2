/* gst-cudabilateral: plain C reference of the filter's semantics, the
 * oracle the GPU output is compared with where no golden file exists. It is
 * itself checked against OpenCV's golden files (test_reference). */

#ifndef CBF_TEST_REFERENCE_H
#define CBF_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* Filters @channels (1 or 3) colour bytes starting at byte @colour_offset of
 * each @pixel_bytes-byte pixel, as cv::bilateralFilter with BORDER_DEFAULT
 * does; the pixel's other bytes are copied from @src. */
void cbf_reference_bilateral (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_color, double sigma_space);

/* Gaussian mode (range weight off; issue 6, not yet in the element), as
 * OpenCV's GaussianBlur for 8-bit images: the kernel size and sigma for the element's @diameter and
 * @sigma_space. diameter > 0: that size, the next odd number from an even
 * one, and sigma_space as given (<= 0: OpenCV derives it from the size).
 * diameter <= 0: cvRound (6 sigma + 1) | 1, OpenCV's rule for 8-bit images,
 * where a sigma_space <= 0 acts as 1 (OpenCV would refuse both <= 0). The
 * size is at most CBF_GAUSSIAN_MAX_KSIZE. */
#define CBF_GAUSSIAN_MAX_KSIZE 1201
void cbf_gaussian_params (int diameter, double sigma_space, int *ksize,
    double *sigma);

/* Fills @coeffs (@ksize floats) with OpenCV's getGaussianKernel (ksize,
 * sigma): its fixed kernels for ksize <= 7 and sigma <= 0, otherwise
 * exp (-x^2 / (2 sigma^2)) normalised in double, sigma <= 0 derived from
 * the size as 0.3 ((ksize - 1) / 2 - 1) + 0.8. */
void cbf_gaussian_kernel_fill (float *coeffs, int ksize, double sigma);

/* The same pixels blurred as cv::GaussianBlur does (kernel size and sigma
 * from cbf_gaussian_params (@diameter, @sigma_space), BORDER_DEFAULT),
 * within +-1: separable, float sums, horizontal then vertical. */
void cbf_reference_gaussian (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_space);

#endif
