/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The strength mask's kernels: scaling (once per mask or size change) and
 * the blend after each filter pass. The arithmetic is in mask.h, shared
 * with the tests. */

#include "mask.h"
#include "tunables.cuh"

namespace {

__global__ void mask_scale (const uint8_t *src, size_t src_pitch, int src_w,
    int src_h, uint8_t *dst, size_t dst_pitch, int dst_w, int dst_h)
{
  const int x = blockIdx.x * kMaskBlockW + threadIdx.x;
  const int y = blockIdx.y * kMaskBlockH + threadIdx.y;
  if (x < dst_w && y < dst_h)
    dst[(size_t)y * dst_pitch + x]
        = cbf_mask_sample (src, src_pitch, src_w, src_h, dst_w, dst_h, x, y);
}

/* Up to three views (planar colour); blockIdx.z picks one. */
struct Views
{
  const uint8_t *in[3];
  uint8_t *out[3];
  size_t in_pitch[3], out_pitch[3];
};

__global__ void mask_blend (Views v, int pixel_bytes, int bytes_per_pixel,
    CbfSamples samples, int sample_shift, uint32_t sample_mask, int width,
    int row_begin, int row_end, const uint8_t *mask, size_t mask_pitch)
{
  const int x = blockIdx.x * kMaskBlockW + threadIdx.x;
  const int y = row_begin + blockIdx.y * kMaskBlockH + threadIdx.y;
  const int view = blockIdx.z;
  if (x >= width || y >= row_end)
    return;
  const uint8_t m = mask[(size_t)y * mask_pitch + x];
  if (m == 255)
    return; /* the filtered value stays */
  const uint8_t *in = (view == 0          ? v.in[0]
                              : view == 1 ? v.in[1]
                                          : v.in[2])
      + (size_t)y
          * (view == 0        ? v.in_pitch[0]
                  : view == 1 ? v.in_pitch[1]
                              : v.in_pitch[2])
      + (size_t)x * pixel_bytes;
  uint8_t *out = (view == 0          ? v.out[0]
                         : view == 1 ? v.out[1]
                                     : v.out[2])
      + (size_t)y
          * (view == 0        ? v.out_pitch[0]
                  : view == 1 ? v.out_pitch[1]
                              : v.out_pitch[2])
      + (size_t)x * pixel_bytes;
  if (samples == CBF_SAMPLES_8) {
    for (int b = 0; b < bytes_per_pixel; b++)
      out[b] = cbf_mask_blend_value (in[b], out[b], m);
  } else if (samples == CBF_SAMPLES_16) {
    const uint16_t *in16 = reinterpret_cast<const uint16_t *> (in);
    uint16_t *out16 = reinterpret_cast<uint16_t *> (out);
    /* m = 0 leaves the input as it came, its bits below and above the
     * sample too; else the input is read as the filter reads it */
    for (int s = 0; s < bytes_per_pixel / 2; s++)
      out16[s] = m == 0
          ? in16[s]
          : (uint16_t)(cbf_mask_blend_sample (
                           (in16[s] >> sample_shift) & sample_mask,
                           out16[s] >> sample_shift, m)
              << sample_shift);
  } else {
    const uint32_t a = *reinterpret_cast<const uint32_t *> (in);
    uint32_t *o = reinterpret_cast<uint32_t *> (out);
    uint32_t b = *o, blended = b & 0xc0000000u;
    for (int shift = 0; shift < 30; shift += 10)
      blended |= (uint32_t)cbf_mask_blend_sample (
                     (a >> shift) & 0x3ff, (b >> shift) & 0x3ff, m)
          << shift;
    *o = blended;
  }
}

} /* namespace */

extern "C" cudaError_t cbf_mask_scale (
    const CbfPlane *src, const CbfPlane *dst, cudaStream_t stream)
{
  if (src->width < 1 || src->height < 1 || dst->width < 1 || dst->height < 1)
    return cudaErrorInvalidValue;
  cudaGetLastError ();
  dim3 block (kMaskBlockW, kMaskBlockH);
  dim3 grid ((dst->width + kMaskBlockW - 1) / kMaskBlockW,
      (dst->height + kMaskBlockH - 1) / kMaskBlockH);
  mask_scale<<<grid, block, 0, stream>>> (src->data, src->pitch_bytes,
      src->width, src->height, dst->data, dst->pitch_bytes, dst->width,
      dst->height);
  return cudaGetLastError ();
}

extern "C" cudaError_t cbf_mask_blend (const CbfPlane *in, const CbfPlane *out,
    int n_views, int bytes_per_pixel, CbfSamples samples, const CbfPlane *mask,
    int row_begin, int row_end, cudaStream_t stream)
{
  Views v = {};
  if (n_views < 1 || n_views > 3 || bytes_per_pixel < 1
      || bytes_per_pixel > in->pixel_bytes
      || (samples == CBF_SAMPLES_16 && bytes_per_pixel % 2)
      || (samples == CBF_SAMPLES_10A2 && bytes_per_pixel != 4) || row_begin < 0
      || row_end > in->height || row_begin >= row_end
      || mask->width != in->width || mask->height != in->height
      || in->sample_shift < 0 || in->sample_shift > 15
      || out->sample_shift != in->sample_shift
      || (samples != CBF_SAMPLES_16 && in->sample_shift) || in->sample_bits < 0
      || in->sample_bits > 16)
    return cudaErrorInvalidValue;
  for (int i = 0; i < n_views; i++) {
    v.in[i] = in[i].data;
    v.out[i] = out[i].data;
    v.in_pitch[i] = in[i].pitch_bytes;
    v.out_pitch[i] = out[i].pitch_bytes;
  }
  cudaGetLastError ();
  dim3 block (kMaskBlockW, kMaskBlockH);
  dim3 grid ((in->width + kMaskBlockW - 1) / kMaskBlockW,
      (row_end - row_begin + kMaskBlockH - 1) / kMaskBlockH, n_views);
  mask_blend<<<grid, block, 0, stream>>> (v, in->pixel_bytes, bytes_per_pixel,
      samples, in->sample_shift,
      in->sample_bits ? (1u << in->sample_bits) - 1 : 0xffffu, in->width,
      row_begin, row_end, mask->data, mask->pitch_bytes);
  return cudaGetLastError ();
}
