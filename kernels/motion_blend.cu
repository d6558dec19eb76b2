/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The motion-compensated temporal filter's blend (motion.h's
 * cbf_motion_blend): the previous output warped along the field that
 * motion_estimate.cu found, gated and blended into the spatial result;
 * what both use in motion_common.cuh. */

#include "motion.h"
#include "motion_common.cuh"
#include "samples.cuh"
#include "tunables.cuh"

#include <cuda_runtime.h>

namespace {

/* ------------------------------------------------------------------ */
/* Samples of a CbfMotionView. The views are kernel parameters: their
 * arrays are read at constant indices only, so that no view is copied to
 * local memory. */

/* Writes the rounded @s[0 .. C) into pixel (@x, @y), keeping the bits of
 * the pixel that are not the samples' (alpha, padding). */
template <int C>
__device__ __forceinline__ void store_at (
    const CbfMotionView &v, int x, int y, const int (&s)[C])
{
  if constexpr (C == 3) {
    if (v.samples == CBF_MOTION_SAMPLES_10A2) {
      uint32_t *p = reinterpret_cast<uint32_t *> (
          v.data[0] + (size_t)y * v.pitch[0] + (size_t)x * v.pixel_bytes);
      *p = (*p & 0xc0000000u) | (uint32_t)s[0] | (uint32_t)s[1] << 10
          | (uint32_t)s[2] << 20;
      return;
    }
  }
#pragma unroll
  for (int c = 0; c < C; c++) {
    uint8_t *p = v.data[c] + (size_t)y * v.pitch[c] + (size_t)x * v.pixel_bytes;
    if (v.samples == CBF_MOTION_SAMPLES_8)
      *p = (uint8_t)s[c];
    else
      *reinterpret_cast<uint16_t *> (p) = (uint16_t)(s[c] << v.shift);
  }
}

/* ------------------------------------------------------------------ */
/* The blend: a tile of (B - P) with a one-pixel apron, each pixel warped
 * by its own vector; then each output's gate from its 3 x 3 mean. Luma
 * leaves its D per pixel for chroma (motion.h), whose own contrast can be
 * too faint, or its strip too narrow, to reject where an object moved
 * off. */

template <int C, bool kDeep> struct BlendArgs
{
  State<C, kDeep> spatial, prev, next;
  CbfMotionView out;
  int sub_x, sub_y;
  float gain, gate;
  const float2 *field;
  int nbx, nby;
  CbfMotionRole role;
  float *luma_d;
  int luma_w, luma_h;
  const unsigned int *cut_count;
  unsigned int cut_limit;
  int row_begin, row_end;
};

template <int C, bool kDeep> __global__ void blend (BlendArgs<C, kDeep> a)
{
  __shared__ float diff[C][kMotionTileH + 2][kMotionTileW + 2];
  const int w = a.out.width, h = a.out.height;
  const bool have_prev = a.prev.p != nullptr;
  const float gain = have_prev && *a.cut_count <= a.cut_limit ? a.gain : 0.f;
  const int x0 = blockIdx.x * kMotionTileW - 1;
  const int y0 = a.row_begin + blockIdx.y * kMotionTileH - 1;
  const float inv_x = 1.f / a.sub_x, inv_y = 1.f / a.sub_y;
  if (gain > 0.f) {
    for (int i = threadIdx.y * kMotionTileW + threadIdx.x;
         i < (kMotionTileW + 2) * (kMotionTileH + 2);
         i += kMotionTileW * kMotionTileH) {
      const int x = clampi (x0 + i % (kMotionTileW + 2), 0, w - 1);
      const int y = clampi (y0 + i / (kMotionTileW + 2), 0, h - 1);
      const float2 v = motion_at (a.field, a.nbx, a.nby,
          (x + 0.5f) * a.sub_x - 0.5f, (y + 0.5f) * a.sub_y - 0.5f);
      const float px = clampf (x + v.x * inv_x, 0.f, (float)(w - 1));
      const float py = clampf (y + v.y * inv_y, 0.f, (float)(h - 1));
      const int ix = (int)px, iy = (int)py;
      const int ix1 = min (ix + 1, w - 1), iy1 = min (iy + 1, h - 1);
      const float ax = px - (float)ix, ay = py - (float)iy;
      float p00[C], p01[C], p10[C], p11[C], b[C];
      a.prev.load (ix, iy, p00);
      a.prev.load (ix1, iy, p01);
      a.prev.load (ix, iy1, p10);
      a.prev.load (ix1, iy1, p11);
      a.spatial.load (x, y, b);
#pragma unroll
      for (int c = 0; c < C; c++) {
        const float t = p00[c] + ax * (p01[c] - p00[c]);
        const float u = p10[c] + ax * (p11[c] - p10[c]);
        diff[c][i / (kMotionTileW + 2)][i % (kMotionTileW + 2)]
            = b[c] - (t + ay * (u - t));
      }
    }
    __syncthreads ();
  }
  const int x = x0 + 1 + threadIdx.x, y = y0 + 1 + threadIdx.y;
  if (x >= w || y >= a.row_end)
    return;
  float d = 0.f;
  if (gain > 0.f) {
#pragma unroll
    for (int c = 0; c < C; c++) {
      float s = 0.f;
#pragma unroll
      for (int j = 0; j < 3; j++)
#pragma unroll
        for (int i = 0; i < 3; i++)
          s += diff[c][threadIdx.y + j][threadIdx.x + i];
      d += fabsf (s) * (1.f / 9);
    }
    if (a.role == CBF_MOTION_ROLE_LUMA) {
      a.luma_d[(size_t)y * a.luma_w + x] = d;
    } else if (a.role == CBF_MOTION_ROLE_CHROMA) {
      /* A subsampled plane's strip uncovered is a pixel or two wide: the
       * 2 x 2 means inside the 3 x 3 one see it undiluted. */
      for (int q = 0; q < 4; q++) {
        const int qx = threadIdx.x + (q & 1), qy = threadIdx.y + (q >> 1);
        const float s = diff[0][qy][qx] + diff[0][qy][qx + 1]
            + diff[0][qy + 1][qx] + diff[0][qy + 1][qx + 1];
        d = fmaxf (d, fabsf (s) * 0.25f);
      }
      for (int j = -1; j <= a.sub_y; j++)
        for (int i = -1; i <= a.sub_x; i++) {
          const int lx = clampi (x * a.sub_x + i, 0, a.luma_w - 1);
          const int ly = clampi (y * a.sub_y + j, 0, a.luma_h - 1);
          d = fmaxf (d, a.luma_d[(size_t)ly * a.luma_w + lx]);
        }
    }
  }
  const float g = gain > 0.f ? gain * exp2f (-a.gate * d * d) : 0.f;
  float b[C];
  a.spatial.load (x, y, b);
  int r[C];
#pragma unroll
  for (int c = 0; c < C; c++) {
    /* B - P of the output itself is the tile's centre. */
    const float bp
        = gain > 0.f ? diff[c][threadIdx.y + 1][threadIdx.x + 1] : 0.f;
    r[c] = min (max (__float2int_rn (b[c] - g * bp), 0), (int)a.out.mask);
  }
  store_at<C> (a.out, x, y, r);
  a.next.store (x, y, r);
}

template <int C, bool kDeep>
static cudaError_t launch_blend (const CbfMotionView *spatial,
    const CbfMotionView *prev, const CbfMotionView *next,
    const CbfMotionView *out, int sub_x, int sub_y, CbfMotionRole role,
    float gain, float gate, const CbfMotionScratch *s, int row_begin,
    int row_end, cudaStream_t stream)
{
  BlendArgs<C, kDeep> a;
  a.spatial = state_of<C, kDeep> (spatial);
  a.prev = state_of<C, kDeep> (prev);
  a.next = state_of<C, kDeep> (next);
  a.out = *out;
  a.sub_x = sub_x;
  a.sub_y = sub_y;
  a.gain = gain;
  a.gate = gate;
  a.field = s->field;
  a.nbx = s->blocks_x;
  a.nby = s->blocks_y;
  a.role = role;
  a.luma_d = s->luma_d;
  a.luma_w = s->width;
  a.luma_h = s->height;
  a.cut_count = s->cut_count;
  a.cut_limit = cbf_motion_cut_limit (s->width, s->height);
  a.row_begin = row_begin;
  a.row_end = row_end;
  const dim3 grid ((out->width + kMotionTileW - 1) / kMotionTileW,
      (row_end - row_begin + kMotionTileH - 1) / kMotionTileH);
  blend<C, kDeep><<<grid, dim3 (kMotionTileW, kMotionTileH), 0, stream>>> (a);
  return cudaGetLastError ();
}

} /* namespace */

extern "C" {

cudaError_t cbf_motion_blend (const CbfMotionView *spatial,
    const CbfMotionView *prev, const CbfMotionView *next,
    const CbfMotionView *out, int sub_x, int sub_y, CbfMotionRole role,
    float gain, float gate, const CbfMotionScratch *s, int row_begin,
    int row_end, cudaStream_t stream)
{
  const bool deep = spatial->samples != CBF_MOTION_SAMPLES_8;
  if (row_end <= row_begin)
    return cudaSuccess;
  if (out->channels == 3)
    return (deep ? launch_blend<3, true> : launch_blend<3, false>)(spatial,
        prev, next, out, sub_x, sub_y, role, gain, gate, s, row_begin, row_end,
        stream);
  return (deep ? launch_blend<1, true> : launch_blend<1, false>)(spatial, prev,
      next, out, sub_x, sub_y, role, gain, gate, s, row_begin, row_end, stream);
}

} /* extern "C" */
