/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the streaming kernels (bilateral_stream.cuh, and gaussian.cu's)
 * share: four pixels a thread in one 16-byte word, rows walked down a
 * strip with the window's rows in registers. */

#ifndef CBF_STREAM_CUH
#define CBF_STREAM_CUH

#include "layouts.cuh"

namespace {

/* ------------------------------------------------------------------ */
/* Streaming kernels (32-bit colour layouts, small radii): each thread
 * owns four adjacent pixels, one 16-byte word, and walks down a strip of
 * rows, keeping what the window needs of the rows above in registers. No
 * shared tile and its barrier: at these small windows the tiled kernels
 * spend more time filling and reading the tile than filtering. What they
 * share (the shapes are in tunables.cuh): */

/* A row's source pixels, x - r .. x + 3 + r, as words. */
template <int R> struct StreamWords
{
  uint32_t w[kStreamPixels + 2 * R];
};

/* The colour bytes kFirst .. kFirst + 2 of a word, exactly, as floats. */
template <int kFirst>
__device__ __forceinline__ Color::Value stream_color (uint32_t word)
{
  return Color::Value{ Color::exact (word, 0x7440 + kFirst),
    Color::exact (word, 0x7441 + kFirst),
    Color::exact (word, 0x7442 + kFirst) };
}

/* Row @y's words x - R .. x + 3 + R, by the border rule past the edges;
 * @inside from stream_inside. */
template <int R>
__device__ __forceinline__ StreamWords<R> stream_load (
    const Io &io, int y, int x, bool inside)
{
  StreamWords<R> s;
  const int sy = io.row (y);
  if (inside) {
    const uint8_t *p = io.in<4> (0, sy, x);
    const uint2 left = *reinterpret_cast<const uint2 *> (p - 8);
    const uint4 mid = *reinterpret_cast<const uint4 *> (p);
    const uint2 right = *reinterpret_cast<const uint2 *> (p + 16);
    const uint32_t all[kStreamPixels + 4]
        = { left.x, left.y, mid.x, mid.y, mid.z, mid.w, right.x, right.y };
#pragma unroll
    for (int k = 0; k < kStreamPixels + 2 * R; k++)
      s.w[k] = all[k + 2 - R];
  } else {
    /* the columns first, so that no call of the rule comes between
     * loads */
    int sx[kStreamPixels + 2 * R];
#pragma unroll
    for (int k = 0; k < kStreamPixels + 2 * R; k++)
      /* Pixels right of the picture (the last thread's) are not stored:
       * any source will do, one border step keeps it inside. */
      sx[k] = io.col (min (x - R + k, io.width - 1 + R));
#pragma unroll
    for (int k = 0; k < kStreamPixels + 2 * R; k++)
      s.w[k] = *reinterpret_cast<const uint32_t *> (io.in<4> (0, sy, sx[k]));
  }
  return s;
}

/* Writes output row @y's four words at @x: one 16-byte store where the
 * thread's pixels lie in the row (@inside), else each pixel in the
 * picture. */
__device__ __forceinline__ void stream_store (const Io &io, int y, int x,
    bool inside, const uint32_t (&out)[kStreamPixels])
{
  if (inside) {
    *reinterpret_cast<uint4 *> (io.out<4> (0, y, x))
        = make_uint4 (out[0], out[1], out[2], out[3]);
    return;
  }
#pragma unroll
  for (int p = 0; p < kStreamPixels; p++)
    if (x + p < io.width)
      *reinterpret_cast<uint32_t *> (io.out<4> (0, y, x + p)) = out[p];
}

/* Asks the line holding @p into L2, taking no register for the result. */
__device__ __forceinline__ void prefetch_l2 (const void *p)
{
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/* The strip height for a streaming launch: the longest of @max_rows,
 * halved down to 8, that still gives every SM @warps_per_sm warps, so that
 * a small frame or a band is not left to a few SMs. @warps_a_strip: warps
 * across the picture. */
inline int stream_strip_rows (
    int warps_a_strip, int rows, int max_rows, int warps_per_sm)
{
  CbfDeviceFigures f;
  const int sms = cbf_device_figures (&f) == cudaSuccess ? f.sms : 0;
  int strip = max_rows;
  while (strip > 8
      && (long)warps_a_strip * ((rows + strip - 1) / strip)
          < (long)sms * warps_per_sm)
    strip /= 2;
  return strip;
}

/* Whether the 16-byte word at @x and the 8-byte words each side of it lie
 * in the row (for radius <= 2 the fast loads, with no border rule). */
__device__ __forceinline__ bool stream_inside (const Io &io, int x)
{
  return x >= 2 && x + kStreamPixels + 2 <= io.width;
}

/* The layouts the streaming kernels serve: the 32-bit colour ones. */
template <class T> struct StreamLayout
{
  static constexpr bool kServed = false;
  static constexpr int kFirst = 0;
};
template <int F> struct StreamLayout<Color32<F>>
{
  static constexpr bool kServed = true;
  static constexpr int kFirst = F;
};

/* Whether a streaming kernel can take a launch: its layout, rows whose
 * 16-byte words are aligned, and a border that maps every row into the
 * picture (not the constant one, whose test in each row's load made the
 * Gaussian's ring spill). */
template <class T>
bool stream_serves (const CbfPlane *src, const CbfPlane *dst, int border)
{
  return StreamLayout<T>::kServed && border != CBF_BORDER_CONSTANT
      && ((uintptr_t)src->data | src->pitch_bytes | (uintptr_t)dst->data
             | dst->pitch_bytes)
          % 16
      == 0;
}

} /* namespace */

#endif /* CBF_STREAM_CUH */
