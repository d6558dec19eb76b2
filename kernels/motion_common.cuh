/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the motion-compensated temporal filter's two kernel files share:
 * the field's block size, the temporal states the estimator reads the
 * previous output from and the blend reads and writes, and the field's
 * vector at a position, which the scene cut's count (motion_estimate.cu)
 * and the blend (motion_blend.cu) both warp by. In an anonymous namespace,
 * as when both were one file: each kernel file has its own copy, inlined,
 * and its kernels' machine code is what it was. */

#ifndef CBF_MOTION_COMMON_CUH
#define CBF_MOTION_COMMON_CUH

#include "motion.h"

#include <cuda_runtime.h>

namespace {

constexpr int kB = CBF_MOTION_BLOCK;

__device__ __forceinline__ float clampf (float v, float lo, float hi)
{
  return fminf (fmaxf (v, lo), hi);
}

/* A temporal state of @C channels (temporal.h's words: one sample, or
 * c0 | c1 << 8 | c2 << 16, or deep c0 | c1 << 16 and c2), read and
 * written a word at a time. */
template <int C, bool kDeep> struct State
{
  uint8_t *p;
  size_t pitch;

  __device__ __forceinline__ void load (int x, int y, float (&s)[C]) const
  {
    const uint8_t *row = p + (size_t)y * pitch;
    if constexpr (C == 1 && !kDeep) {
      s[0] = (float)row[x];
    } else if constexpr (C == 1) {
      s[0] = (float)reinterpret_cast<const uint16_t *> (row)[x];
    } else if constexpr (!kDeep) {
      const uint32_t w = reinterpret_cast<const uint32_t *> (row)[x];
      s[0] = (float)(w & 0xffu);
      s[C - 2] = (float)((w >> 8) & 0xffu);
      s[C - 1] = (float)((w >> 16) & 0xffu);
    } else {
      const uint2 w = reinterpret_cast<const uint2 *> (row)[x];
      s[0] = (float)(w.x & 0xffffu);
      s[C - 2] = (float)(w.x >> 16);
      s[C - 1] = (float)(w.y & 0xffffu);
    }
  }
  __device__ __forceinline__ void store (int x, int y, const int (&s)[C]) const
  {
    uint8_t *row = p + (size_t)y * pitch;
    if constexpr (C == 1 && !kDeep)
      row[x] = (uint8_t)s[0];
    else if constexpr (C == 1)
      reinterpret_cast<uint16_t *> (row)[x] = (uint16_t)s[0];
    else if constexpr (!kDeep)
      reinterpret_cast<uint32_t *> (row)[x]
          = (uint32_t)s[0] | (uint32_t)s[C - 2] << 8 | (uint32_t)s[C - 1] << 16;
    else
      reinterpret_cast<uint2 *> (row)[x] = make_uint2 (
          (uint32_t)s[0] | (uint32_t)s[C - 2] << 16, (uint32_t)s[C - 1]);
  }
};

template <int C, bool kDeep>
static State<C, kDeep> state_of (const CbfMotionView *v)
{
  return State<C, kDeep>{ v ? v->data[0] : nullptr, v ? v->pitch[0] : 0 };
}

/* The field's vector at luma position (@x, @y) (motion.h). */
__device__ __forceinline__ float2 motion_at (
    const float2 *field, int nbx, int nby, float x, float y)
{
  const float half = (kB - 1) * 0.5f;
  const float fx = clampf ((x - half) * (1.f / kB), 0.f, (float)(nbx - 1));
  const float fy = clampf ((y - half) * (1.f / kB), 0.f, (float)(nby - 1));
  const int x0 = (int)fx, y0 = (int)fy;
  const int x1 = min (x0 + 1, nbx - 1), y1 = min (y0 + 1, nby - 1);
  const float ax = fx - (float)x0, ay = fy - (float)y0;
  const float2 a = field[y0 * nbx + x0], b = field[y0 * nbx + x1];
  const float2 c = field[y1 * nbx + x0], d = field[y1 * nbx + x1];
  return make_float2 ((1.f - ay) * ((1.f - ax) * a.x + ax * b.x)
          + ay * ((1.f - ax) * c.x + ax * d.x),
      (1.f - ay) * ((1.f - ax) * a.y + ax * b.y)
          + ay * ((1.f - ax) * c.y + ax * d.y));
}

} /* namespace */

#endif
