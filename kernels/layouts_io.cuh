/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What every layout shares (layouts.cuh): the border rule, where a
 * launch reads and writes (Io) and the temporal filter at an output. */

#ifndef CBF_LAYOUTS_IO_CUH
#define CBF_LAYOUTS_IO_CUH

#include "bilateral.h"
#include "tunables.cuh"

#include <cuda_fp16.h>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace {

/* ------------------------------------------------------------------ */
/* Shared pieces */

/* OpenCV's borderInterpolate for @border (CbfBorder) of a tap at @p
 * outside a line of @len samples: where it reads, repeated for windows
 * larger than the picture as copyMakeBorder's padding does; -1 for the
 * constant border, whose taps read Io::border_pixel instead. Out of line:
 * only the edge blocks' taps outside the picture call it, and a copy
 * inlined at every load of the kernels' edge paths grew each specialised
 * kernel by hundreds of instructions. */
__device__ __noinline__ int border_outside (int p, int len, int border)
{
  switch (border) {
  case CBF_BORDER_REPLICATE:
    return p < 0 ? 0 : len - 1;
  case CBF_BORDER_WRAP:
    p %= len;
    return p < 0 ? p + len : p;
  case CBF_BORDER_CONSTANT:
    return -1;
  default: {
    if (len == 1)
      return 0;
    /* REFLECT repeats the edge sample, REFLECT_101 does not. */
    const int skip = border == CBF_BORDER_REFLECT ? 0 : 1;
    while ((unsigned)p >= (unsigned)len)
      p = p < 0 ? -p - 1 + skip : 2 * len - 1 - p - skip;
    return p;
  }
  }
}

/* Where a window's tap at @p of a line of @len samples reads. */
__device__ __forceinline__ int border_index (int p, int len, int border)
{
  return (unsigned)p < (unsigned)len ? p : border_outside (p, len, border);
}

/* What the generic kernel reads of layout T's tables: the range table,
 * the space table and the half widths (bilateral.h). */
template <class T>
__host__ __device__ constexpr int generic_tables_len (int radius)
{
  return T::kRangeLen + radius * radius + 1 + radius + 1;
}

/* The range weight at a byte offset into the table (4 x the distance). */
__device__ __forceinline__ float range_at (
    const float *range_lut, uint32_t byte_offset)
{
  return *reinterpret_cast<const float *> (
      reinterpret_cast<const char *> (range_lut) + byte_offset);
}

/* 2^x on the special-function unit, one instruction: relative error
 * about 2^-22, and 0 below 2^-126, where exp2f would scale subnormals. */
__device__ __forceinline__ float exp2_approx (float x)
{
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

/* ------------------------------------------------------------------ */
/* Where a launch reads and writes, for every layout: one plane, or three
 * for planar colour. Passed by value to the kernels. */

struct Io
{
  const uint8_t *src[3];
  uint8_t *dst[3];
  size_t src_pitch[3];
  size_t dst_pitch[3];
  int pixel_bytes;
  int width;
  int height;
  /* Bits the deep one-channel layouts' samples sit above the low end of
   * their 16-bit containers (CbfPlane), and the bits of the container they
   * keep: the sample's, its depth at most the layout's. */
  int sample_shift;
  uint32_t sample_mask;
  /* The temporal filter (temporal.h): the previous output of each plane's
   * outputs, one state word a pixel (NULL: off), and the blend's gain (0
   * on a frame with no previous one: the state is only written) and gate
   * (log2 (e) / (2 sigma^2), sigma in sample units). */
  uint8_t *state[3];
  size_t state_pitch[3];
  float temporal_gain;
  float temporal_gate;
  /* The border rule (CbfBorder), and for the constant border the pixel
   * its taps read, repeated CBF_BORDER_PIXEL_MARGIN bytes each side so that
   * a kernel's wide loads around it stay in it (bilateral.h). */
  int border;
  const uint8_t *border_pixel;
  /* The deep range scale (CbfBilateralParams), for the layouts that
   * compute their range weights (range_weight). */
  float range_scale;
  /* For ColorAny, the 8-bit colour layout it stands for (layouts_8bit.cuh). */
  int color_layout;

  /* Where row @y and column @x of a window read by the border rule. */
  __device__ __forceinline__ int row (int y) const
  {
    return border_index (y, height, border);
  }
  __device__ __forceinline__ int col (int x) const
  {
    return border_index (x, width, border);
  }

  /* kStep: the layout's pixel size where it has one (a constant is
   * cheaper), 0 for the run-time pixel_bytes. @plane is chosen by
   * selection, not by indexing: a run-time index into a kernel parameter's
   * array would copy the whole Io to local memory. kEdge: (@x, @y) may be
   * out of the picture, as row () and col () give it for the constant
   * border, which reads the border's pixel there (a test only the loads at
   * the picture's edges pay). */
  template <int kStep, bool kEdge = false>
  __device__ __forceinline__ const uint8_t *in (int plane, int y, int x) const
  {
    if (kEdge && (y | x) < 0)
      return border_pixel;
    return pick (src, plane) + (size_t)y * pick (src_pitch, plane)
        + (size_t)x * step<kStep> ();
  }
  template <int kStep>
  __device__ __forceinline__ uint8_t *out (int plane, int y, int x) const
  {
    return pick (dst, plane) + (size_t)y * pick (dst_pitch, plane)
        + (size_t)x * step<kStep> ();
  }
  template <class V>
  static __device__ __forceinline__ V pick (const V (&v)[3], int plane)
  {
    return plane == 0 ? v[0] : plane == 1 ? v[1] : v[2];
  }
  template <int kStep> __device__ __forceinline__ int step () const
  {
    return kStep ? kStep : pixel_bytes;
  }
};

/* The temporal filter at one output (temporal.h): @v, the spatial result
 * in sample units before rounding, moved towards the previous output @p
 * by gain x 2^(-gate (v - p)^2) (the gate's distance @d, the channels'
 * summed for colour). */
__device__ __forceinline__ float temporal_step (
    const Io &io, float v, float p, float d)
{
  return fmaf (
      io.temporal_gain * exp2_approx (-io.temporal_gate * d * d), p - v, v);
}

/* A state word of @plane's output at (@x, @y). */
template <class S>
__device__ __forceinline__ S *state_at (const Io &io, int plane, int y, int x)
{
  return reinterpret_cast<S *> (Io::pick (io.state, plane)
             + (size_t)y * Io::pick (io.state_pitch, plane))
      + x;
}

/* Asks the state word of output (@x, @y) of @plane into L2 when the
 * temporal filter will read it, so that the read at the store, after the
 * window's work, finds it there rather than in memory. */
template <class S>
__device__ __forceinline__ void temporal_prefetch (
    const Io &io, int plane, int y, int x)
{
  if (io.state[0] && io.temporal_gain > 0.f)
    asm volatile(
        "prefetch.global.L2 [%0];" ::"l"(state_at<S> (io, plane, y, x)));
}

/* One channel's output: @v through the temporal filter where the launch
 * has one (its state the rounded output, in sample units), rounded. */
template <class S>
__device__ __forceinline__ int finish_channel (
    const Io &io, int plane, int y, int x, float v)
{
  if (!io.state[0])
    return __float2int_rn (v);
  S *state = state_at<S> (io, plane, y, x);
  if (io.temporal_gain > 0.f) {
    const float p = (float)*state;
    v = temporal_step (io, v, p, v - p);
  }
  const int r = __float2int_rn (v);
  *state = (S)r;
  return r;
}

} /* namespace */

#endif /* CBF_LAYOUTS_IO_CUH */
