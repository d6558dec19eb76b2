/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The strength mask: an 8-bit image whose value per pixel sets how much of
 * the filter reaches the output, 0 none, 255 all. */

#ifndef CBF_MASK_H
#define CBF_MASK_H

#include <cuda_runtime_api.h>

#include "plane.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed point of the bilinear weights (as OpenCV's INTER_LINEAR). */
#define CBF_MASK_COEF_BITS 11

/* Largest mask, in pixels, the element accepts (a mask file is untrusted
 * input: a picture file can claim any size). 8192 x 8192 is 64 MiB. */
#define CBF_MASK_MAX_PIXELS ((int64_t) 1 << 26)

/* Source position of destination column (or row) @x when @src_len samples
 * are scaled to @dst_len, pixel centres aligned as cv::resize does:
 * (x + 0.5) * src_len / dst_len - 0.5, in units of 2^-CBF_MASK_COEF_BITS,
 * clamped to [0, (src_len - 1) << CBF_MASK_COEF_BITS]. Integer arithmetic
 * only, so that the host (tests) and the device agree to the bit; 64-bit,
 * since a mask may be up to CBF_MASK_MAX_PIXELS wide and a position carries
 * CBF_MASK_COEF_BITS more. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int64_t
cbf_mask_source_position (int x, int src_len, int dst_len)
{
  /* (2x + 1) src_len 2^(bits - 1) / dst_len, split so that no product
   * exceeds 64 bits whatever the frame's width. */
  int64_t q = (2 * (int64_t) x + 1) * src_len;
  int64_t pos = (q / dst_len << (CBF_MASK_COEF_BITS - 1)) +
      ((q % dst_len) << (CBF_MASK_COEF_BITS - 1)) / dst_len -
      (1 << (CBF_MASK_COEF_BITS - 1));
  int64_t last = (int64_t) (src_len - 1) << CBF_MASK_COEF_BITS;

  return pos < 0 ? 0 : pos > last ? last : pos;
}

/* The mask value at destination pixel (@x, @y) of a @dst_w x @dst_h
 * scaling of the @src_w x @src_h mask @src (rows @src_pitch bytes apart):
 * bilinear, rounded. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline uint8_t
cbf_mask_sample (const uint8_t * src, size_t src_pitch, int src_w, int src_h,
    int dst_w, int dst_h, int x, int y)
{
  const int one = 1 << CBF_MASK_COEF_BITS;
  int64_t sx = cbf_mask_source_position (x, src_w, dst_w);
  int64_t sy = cbf_mask_source_position (y, src_h, dst_h);
  int x0 = (int) (sx >> CBF_MASK_COEF_BITS);
  int y0 = (int) (sy >> CBF_MASK_COEF_BITS);
  int a = (int) (sx & (one - 1)), b = (int) (sy & (one - 1));
  int x1 = x0 + 1 < src_w ? x0 + 1 : x0, y1 = y0 + 1 < src_h ? y0 + 1 : y0;
  const uint8_t *r0 = src + (size_t) y0 * src_pitch;
  const uint8_t *r1 = src + (size_t) y1 * src_pitch;
  long long v = (long long) (one - a) * (one - b) * r0[x0] +
      (long long) a * (one - b) * r0[x1] + (long long) (one - a) * b * r1[x0] +
      (long long) a * b * r1[x1];

  return (uint8_t) ((v + (1LL << (2 * CBF_MASK_COEF_BITS - 1))) >>
      (2 * CBF_MASK_COEF_BITS));
}

/* out = in + (filtered - in) * m / 255, rounded to nearest (255 is odd:
 * no ties): m = 255 gives @filtered, m = 0 gives @in. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_mask_blend_sample (int in, int filtered, uint8_t m)
{
  int t = (filtered - in) * m;

  return in + (t >= 0 ? (t + 127) / 255 : -((-t + 127) / 255));
}

/* cbf_mask_blend_sample on bytes. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline uint8_t
cbf_mask_blend_value (uint8_t in, uint8_t filtered, uint8_t m)
{
  return (uint8_t) cbf_mask_blend_sample (in, filtered, m);
}

/* What the samples a mask blends are: bytes, 16-bit samples (little-endian,
 * two bytes each), or the three 10-bit fields of a 32-bit word whose two
 * high bits (alpha) stay. */
typedef enum
{
  CBF_SAMPLES_8,
  CBF_SAMPLES_16,
  CBF_SAMPLES_10A2
} CbfSamples;

/* Scales the mask @src to @dst's size (cbf_mask_sample), on @stream. */
cudaError_t cbf_mask_scale (const CbfPlane * src, const CbfPlane * dst,
    cudaStream_t stream);

/* Blends rows [@row_begin, @row_end) of the @n_views views @out (already
 * filtered) with @in: cbf_mask_blend_sample on the @samples in the first
 * @bytes_per_pixel bytes of each pixel (4 for CBF_SAMPLES_10A2; 16-bit
 * samples shifted down by @in's sample_shift and back, the bits below
 * zero, the input's bits above its sample_bits read as zero, except where
 * the mask is 0 and the input stays as it came), the mask (@mask, the
 * views' size) at the pixel. */
cudaError_t cbf_mask_blend (const CbfPlane * in, const CbfPlane * out,
    int n_views, int bytes_per_pixel, CbfSamples samples,
    const CbfPlane * mask, int row_begin, int row_end, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CBF_MASK_H */
