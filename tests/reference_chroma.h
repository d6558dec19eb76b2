/* gst-cudabilateral: plain C reference of chroma guided by luma
 * (chroma-guide=luma), the oracle of test_chroma. Like reference.h it
 * shares no code with the element and includes nothing from kernels/ or
 * gst/: the guide and the joint bilateral filter are computed here from
 * their definitions (the element's documentation, and OpenCV's
 * ximgproc::jointBilateralFilter, whose golden files it matches), with the
 * radius, weights and border rules of reference.h. */

#ifndef CBF_TEST_REFERENCE_CHROMA_H
#define CBF_TEST_REFERENCE_CHROMA_H

#include <stddef.h>
#include <stdint.h>

#include "reference.h"

/* The guide of a chroma plane subsampled by @sub_x x @sub_y (1 or 2
 * each) from the @width x @height luma plane @luma: luma filtered down to
 * where each chroma sample sits, as the caps' chroma-site says. Along a
 * direction subsampled by 2, guide sample x weighs luma
 *   2x, 2x + 1 by [1 1] (centred: chroma-site jpeg, or none), or
 *   2x - 1, 2x, 2x + 1 by [1 2 1] (cosited: @h_cosited, GStreamer's
 *   GST_VIDEO_CHROMA_SITE_H_COSITED, of mpeg2, cosited and dv;
 *   @v_cosited, V_COSITED, of cosited and dv),
 * along one not subsampled luma x alone (its cosited flag ignored); the
 * weight of a luma sample the product of its column's and its row's.
 * Positions past the picture read its edge (-1 reads 0, width reads
 * width - 1). One rounding, half up: (sum + total / 2) / total, total the
 * sum of the weights (1, 2, 4, 8 or 16). So centred 4:2:0 is the mean
 * (a + b + c + d + 2) >> 2 of the 2 x 2 luma samples a chroma sample
 * stands for, centred 4:2:2 (a + b + 1) >> 1, 4:4:4 luma itself. @guide
 * is ceil (@width / @sub_x) x ceil (@height / @sub_y). Samples of
 * @sample_bytes bytes (1: uint8_t, 2: uint16_t holding the sample's value,
 * not shifted); strides in samples. */
void cbf_reference_chroma_guide (const void *luma, size_t luma_stride,
    void *guide, size_t guide_stride, int sample_bytes, int width,
    int height, int sub_x, int sub_y, int h_cosited, int v_cosited);

/* The joint bilateral filter of the @width x @height plane @src guided by
 * @guide (the same size and samples) before rounding, into @values
 * (width x height doubles): out (p) = sum_q ws (q - p) wr (|G (p) - G (q)|)
 * C (q) / sum_q ws wr over the circular window of
 * cbf_reference_radius (@diameter, @sigma_space), ws and wr
 * cbf_reference_space_weight and cbf_reference_range_weight (@sigma_color
 * in 8-bit levels, scaled to @bits), both planes read past their edges
 * by @border (the constant @border_sample in both). Either sigma at most
 * 1e-6 gives @src, which the element then copies. Samples as in
 * cbf_reference_chroma_guide, values of @bits bits (8 to 16). */
void cbf_reference_chroma_guided_values (const void *guide,
    size_t guide_stride, const void *src, size_t src_stride,
    int sample_bytes, int bits, int width, int height, int diameter,
    double sigma_color, double sigma_space, CbfReferenceBorder border,
    int border_sample, double *values);

/* The same rounded to the nearest, half to even, into @dst (laid out as
 * @src), with reflect-101 borders: what the element's chroma must be
 * within its tolerance (+-1 at 8 bits, where OpenCV's float sums give the
 * same within 1, and at 10 and 12; 16 levels at 16 bits). */
void cbf_reference_chroma_guided (const void *guide, size_t guide_stride,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int sample_bytes, int bits, int width, int height, int diameter,
    double sigma_color, double sigma_space);

/* The same with the border rule @border (and @border_sample). */
void cbf_reference_chroma_guided_border (const void *guide,
    size_t guide_stride, const void *src, size_t src_stride, void *dst,
    size_t dst_stride, int sample_bytes, int bits, int width, int height,
    int diameter, double sigma_color, double sigma_space,
    CbfReferenceBorder border, int border_sample);

#endif
