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

/* The same pixels blurred as cv::GaussianBlur does (kernel size and sigma
 * from cbf_gaussian_params (@diameter, @sigma_space), BORDER_DEFAULT),
 * within +-1: separable, float sums, horizontal then vertical. */
void cbf_reference_gaussian (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_space);

#endif
