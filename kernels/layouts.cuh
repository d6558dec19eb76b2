/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What every kernel of the library shares: the border rule, where a
 * launch reads and writes (Io), the pixel layouts that turn a source pixel
 * into a 32-bit tile word and back, the checks of a launch's planes
 * (make_io), and CBF_ENTRY, which makes a layout's C entry point. */

#ifndef CBF_LAYOUTS_CUH
#define CBF_LAYOUTS_CUH

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

/* ------------------------------------------------------------------ */
/* Pixel layouts. Each turns a source pixel into one 32-bit word of the
 * shared tile, made so that the range-table offset of two words is cheap,
 * and writes a result back in its own layout:
 *   load (io, y, x) -> tile word;  lut_offset (a, b) -> byte offset into
 *   the range table;  unpack (word) -> Value;  add (Sum, Value, weight);
 *   store (io, y, x, Sum).
 * unpack and store take kBiased: whether values may be held in the biased
 * form of Colour (below), which only the specialised kernel uses.
 * kPixelBytes is the pixel size the layout requires (0: any). */

/* Channels filtered each on its own: the tile word is 4 x the value, so
 * that |a - b| is directly the table's byte offset. kChannels channels of
 * one size (I420's or NV12's U and V) go in one launch, a grid layer
 * (blockIdx.z) each: one launch instead of two, and twice the blocks to
 * fill the GPU with, for planes that are small. */
template <int kChannels> struct Channels
{
  static constexpr int kPixelBytes = 0;
  static constexpr int kPlanes = kChannels;
  static constexpr int kGridLayers = kChannels;
  /* Whether the range weights come from a guide plane (GuidedPair), and
   * the outputs with a temporal state: one a grid layer. */
  static constexpr bool kGuided = false;
  static constexpr int kStates = kChannels;
  /* The specialised kernel reads a tap's weight whole from the per-class
   * table (space x range, see bilateral.h): no multiply. */
  static constexpr bool kClassWeights = true;
  /* The tile word, the range table's entries, and whether the samples are
   * deeper than 8 bits (the deep layouts below: no specialised kernel). */
  typedef uint32_t Word;
  static constexpr int kRangeLen = CBF_RANGE_LUT_LEN;
  static constexpr bool kDeep = false;

  static __device__ __forceinline__ int channel ()
  {
    return kChannels > 1 ? (int)blockIdx.z : 0;
  }
  template <bool kEdge = false>
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    return (uint32_t)*io.template in<kPixelBytes, kEdge> (channel (), y, x)
        << 2;
  }
  static __device__ __forceinline__ uint32_t lut_offset (uint32_t a, uint32_t b)
  {
    return __usad (a, b, 0);
  }
  struct Value
  {
    float v;
  };
  template <bool kBiased>
  static __device__ __forceinline__ Value unpack (uint32_t p)
  {
    return Value{ (float)p };
  }
  struct Sum
  {
    float v = 0.f, w = 0.f;
  };
  /* The weighted sum without its weight (a separable pass's result). */
  static __device__ __forceinline__ Value value (const Sum &s)
  {
    return Value{ s.v };
  }
  /* For the bilateral grid: kGuides grids a view, one a channel, each
   * placing a pixel by its channel's level (0 to 255) and summing that
   * level; from_levels makes the Sum store () writes for the levels a
   * pixel reads back. */
  static constexpr int kGuides = 1;
  static __device__ __forceinline__ float level (const Value &p, int)
  {
    return p.v * 0.25f;
  }
  static __device__ __forceinline__ Sum from_levels (const float *levels)
  {
    Sum s;
    s.v = levels[0] * 4.f;
    s.w = 1.f;
    return s;
  }
  static __device__ __forceinline__ void add (Sum &s, const Value &p, float w)
  {
    s.v += w * p.v;
    s.w += w;
  }
  /* The sum of w * 4p is exactly 4 x the sum of w * p (a power of two), so
   * the quotient is exactly OpenCV's before the final scaling. */
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const Sum &s)
  {
    *io.template out<kPixelBytes> (channel (), y, x)
        = (uint8_t)finish_channel<uint8_t> (
            io, channel (), y, x, (s.v / s.w) * 0.25f);
  }
};

/* Three colour channels filtered together: the tile word holds them in
 * bytes 0..2 and 0 in byte 3, so one SIMD sum of absolute byte differences
 * is the L1 colour distance. The layouts below differ only in where the
 * three bytes live. */
struct Colour
{
  static constexpr bool kClassWeights = false;
  static constexpr int kGridLayers = 1;
  static constexpr bool kGuided = false;
  static constexpr int kStates = 1;
  typedef uint32_t Word;
  static constexpr int kRangeLen = CBF_RANGE_LUT_LEN;
  static constexpr bool kDeep = false;

  /* The L1 colour distance, 0 to 765: an index into a table of weights. */
  static __device__ __forceinline__ uint32_t distance (uint32_t a, uint32_t b)
  {
    return __vsadu4 (a, b);
  }
  static __device__ __forceinline__ uint32_t lut_offset (uint32_t a, uint32_t b)
  {
    return distance (a, b) << 2;
  }
  struct Value
  {
    float c0, c1, c2;
  };
  /* kBiased: a channel's byte b is placed (PRMT) into the mantissa of
   * 1.0f, giving the float 1 + b / 2^15 with one full-rate instruction,
   * where the exact (float) b takes an integer-to-float conversion, which
   * runs at a quarter of the FMA rate (what-was-tried.md, "Specialised
   * kernel steps"). The sums are then
   * S = sum w (1 + b / 2^15) and result () takes (S - W) 2^15 / W.
   * Its error is bounded: with n taps each float sum is off by at most
   * n 2^-24 of itself (recursive summation) and S / W <= 1 + 255 / 2^15,
   * so the value is off by at most 2^15 x 1.008 x 2 n 2^-24 levels: 0.58 at
   * the 149 taps of radius 7, 0.77 at radius 8's 197; below one level, so
   * the rounded output stays within +-1 of OpenCV's. The specialised kernel
   * (radius <= 8) uses it; the generic one and the Gaussian, whose windows
   * are unbounded, take b exactly: the byte placed into the float 2^23
   * (whose unit in the last place is 1) and 2^23 subtracted, again without
   * a conversion. */
  template <bool kBiased>
  static __device__ __forceinline__ Value unpack (uint32_t p)
  {
    if (kBiased)
      /* Result bytes, low to high: 0x00, byte k of p, 0x80, 0x3f. */
      return Value{ biased (p, 0x7604), biased (p, 0x7614),
        biased (p, 0x7624) };
    return Value{ exact (p, 0x7440), exact (p, 0x7441), exact (p, 0x7442) };
  }
  static __device__ __forceinline__ float biased (uint32_t p, uint32_t selector)
  {
    return __uint_as_float (__byte_perm (p, 0x3f800000u, selector));
  }
  /* Result bytes: byte k of p, 0x00, 0x00, 0x4b: the float 2^23 + b. */
  static __device__ __forceinline__ float exact (uint32_t p, uint32_t selector)
  {
    return __uint_as_float (__byte_perm (p, 0x4b000000u, selector)) - 8388608.f;
  }
  struct Sum
  {
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, w = 0.f;
  };
  static __device__ __forceinline__ Value value (const Sum &s)
  {
    return Value{ s.c0, s.c1, s.c2 };
  }
  /* The grid (grid.h): a grid per channel, placed by that channel. */
  static constexpr int kGuides = 3;
  static __device__ __forceinline__ float level (const Value &p, int c)
  {
    return c == 0 ? p.c0 : c == 1 ? p.c1 : p.c2;
  }
  static __device__ __forceinline__ Sum from_levels (const float *levels)
  {
    Sum s;
    s.c0 = levels[0];
    s.c1 = levels[1];
    s.c2 = levels[2];
    s.w = 1.f;
    return s;
  }
  static __device__ __forceinline__ void add (Sum &s, const Value &p, float w)
  {
    s.c0 += w * p.c0;
    s.c1 += w * p.c1;
    s.c2 += w * p.c2;
    s.w += w;
  }
  /* The three results of output (@x, @y) (levels, before rounding)
   * through the temporal filter where the launch has one (its state the
   * rounded results packed), rounded, packed as the tile word is. */
  static __device__ __forceinline__ uint32_t finish (
      const Io &io, int y, int x, float c0, float c1, float c2)
  {
    uint32_t *state = nullptr;
    /* (The streaming kernels finish pixels right of the picture too, which
     * they do not store.) */
    if (io.state[0] && x < io.width) {
      state = state_at<uint32_t> (io, 0, y, x);
      if (io.temporal_gain > 0.f) {
        const uint32_t p = *state;
        const float p0 = exact (p, 0x7440), p1 = exact (p, 0x7441),
                    p2 = exact (p, 0x7442);
        const float d = fabsf (c0 - p0) + fabsf (c1 - p1) + fabsf (c2 - p2);
        c0 = temporal_step (io, c0, p0, d);
        c1 = temporal_step (io, c1, p1, d);
        c2 = temporal_step (io, c2, p2, d);
      }
    }
    const uint32_t r = (uint32_t)__float2int_rn (c0)
        | ((uint32_t)__float2int_rn (c1) << 8)
        | ((uint32_t)__float2int_rn (c2) << 16);
    if (state)
      *state = r;
    return r;
  }
  /* Asks output (@x, @y)'s temporal state into L2 (temporal_prefetch). */
  static __device__ __forceinline__ void prefetch_state (
      const Io &io, int y, int x)
  {
    temporal_prefetch<uint32_t> (io, 0, y, x);
  }
  template <bool kBiased>
  static __device__ __forceinline__ uint32_t result (
      const Io &io, int y, int x, const Sum &s)
  {
    if (kBiased) {
      const float inv = 32768.f / s.w;
      return finish (
          io, y, x, (s.c0 - s.w) * inv, (s.c1 - s.w) * inv, (s.c2 - s.w) * inv);
    }
    const float inv = 1.f / s.w;
    return finish (io, y, x, s.c0 * inv, s.c1 * inv, s.c2 * inv);
  }
};

/* 32-bit pixels, colour in bytes kFirst..kFirst + 2 (little-endian), the
 * fourth byte (alpha or padding) copied through. */
template <int kFirst> struct Colour32 : Colour
{
  static constexpr int kPixelBytes = 4;
  static constexpr int kPlanes = 1;
  static constexpr int kShift = 8 * kFirst;
  static constexpr uint32_t kColourMask = 0xffffffu << kShift;

  static __device__ __forceinline__ uint32_t word (const uint8_t *p)
  {
    return *reinterpret_cast<const uint32_t *> (p);
  }
  template <bool kEdge = false>
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    return (word (io.template in<4, kEdge> (0, y, x)) >> kShift) & 0xffffffu;
  }
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const Sum &s)
  {
    const uint32_t passthrough
        = word (io.template in<4> (0, y, x)) & ~kColourMask;
    *reinterpret_cast<uint32_t *> (io.template out<4> (0, y, x))
        = (result<kBiased> (io, y, x, s) << kShift) | passthrough;
  }
};

/* 24-bit pixels (RGB, BGR): three byte accesses, as rows of them are not
 * 32-bit aligned. */
struct Colour24 : Colour
{
  static constexpr int kPixelBytes = 3;
  static constexpr int kPlanes = 1;

  template <bool kEdge = false>
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    const uint8_t *p = io.template in<3, kEdge> (0, y, x);
    return p[0] | (p[1] << 8) | (p[2] << 16);
  }
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const Sum &s)
  {
    const uint32_t c = result<kBiased> (io, y, x, s);
    uint8_t *p = io.template out<3> (0, y, x);
    p[0] = (uint8_t)c;
    p[1] = (uint8_t)(c >> 8);
    p[2] = (uint8_t)(c >> 16);
  }
};

/* One channel per plane (Y444). */
struct ColourPlanar : Colour
{
  static constexpr int kPixelBytes = 1;
  static constexpr int kPlanes = 3;

  template <bool kEdge = false>
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    return *io.template in<1, kEdge> (0, y, x)
        | (*io.template in<1, kEdge> (1, y, x) << 8)
        | (*io.template in<1, kEdge> (2, y, x) << 16);
  }
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const Sum &s)
  {
    const uint32_t c = result<kBiased> (io, y, x, s);
    *io.template out<1> (0, y, x) = (uint8_t)c;
    *io.template out<1> (1, y, x) = (uint8_t)(c >> 8);
    *io.template out<1> (2, y, x) = (uint8_t)(c >> 16);
  }
};

/* ------------------------------------------------------------------ */
/* Deep samples: 10 to 16 bits, each in a 16-bit little-endian container
 * (or a 10-bit field of a 32-bit word). The same interfaces, with the deep
 * range table (CBF_DEEP_RANGE_LUT_LEN entries, the L1 distance looked up
 * as distance >> kRangeShift: cbf_deep_range_shift of the samples' bits
 * and channels) and values kept in the samples' own units, whose range the
 * host scales sigma-color and the grid's cells to. The wide and the
 * generic kernels read the table; the deep specialised kernel
 * (bilateral_fast_deep.cuh) computes each range weight instead, from
 * range_y: the distance of a tap's range key (range_key) from its
 * output's, in units where the weight is 2^(-y^2). kRangeUnit is a
 * value's units per sample. */

/* 16-bit channels filtered each on its own: the tile word is 4 x the
 * sample, as Channels', so that |a - b| >> kRangeShift, its low two bits
 * cleared, is the table's byte offset. MSB-aligned samples (P010_10LE's)
 * are shifted down by the Io's sample_shift as they are loaded, and the
 * results back up as they are stored, the bits below zero. */
template <int kChannels, int kRangeShift>
struct DeepChannels : Channels<kChannels>
{
  typedef Channels<kChannels> Base;
  /* the layout of one of the channels */
  typedef DeepChannels<1, kRangeShift> Single;
  static constexpr int kRangeLen = CBF_DEEP_RANGE_LUT_LEN;
  static constexpr bool kDeep = true;
  /* The most bits a sample may use: samples of at most 12 bits (range
   * shift 0) keep no more than 12 whatever their plane says, so that every
   * distance stays inside the range table; a plane of fewer bits cuts them
   * to its depth (Io::sample_mask). */
  static constexpr uint32_t kSampleMask = kRangeShift ? 0xffffu : 0xfffu;
  /* Samples of at most 12 bits: every distance has its own entry of the
   * range table, which the specialised kernel copies to shared memory and
   * reads for some of its taps (table_weight). */
  static constexpr bool kTableTaps = kRangeShift == 0;
  static constexpr int kTableLen = kTableTaps ? (int)kSampleMask + 1 : 0;

  template <bool kEdge = false>
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    return word_of (io,
        *reinterpret_cast<const uint16_t *> (
            io.template in<0, kEdge> (Base::channel (), y, x)));
  }
  /* The tile word of a 16-bit container @raw. */
  static __device__ __forceinline__ uint32_t word_of (
      const Io &io, uint32_t raw)
  {
    /* (raw >> shift & mask) << 2, the shift as a funnel shift: written
     * plainly, it made ptxas spill a register in the chunked Gaussian for
     * sm_80 to sm_89. A 16-bit container's samples need no run-time mask;
     * shallower ones are masked in place before the shift (the form that
     * spilled nowhere). */
    if constexpr (kRangeShift == 0)
      return __funnelshift_r (raw & io.sample_mask, 0u, io.sample_shift) << 2;
    else
      return (__funnelshift_r (raw, 0u, io.sample_shift) << 2)
          & (kSampleMask << 2);
  }
  /* 4 x the distance, its bucket's byte offset after the shift (the low
   * two bits cleared). */
  static __device__ __forceinline__ uint32_t lut_offset (uint32_t a, uint32_t b)
  {
    if constexpr (kRangeShift == 0)
      return __usad (a, b, 0);
    else
      return (__usad (a, b, 0) >> kRangeShift) & ~3u;
  }
  /* The tile word (at most 2^18) placed into the float 2^23 and 2^23
   * subtracted: exact, where a conversion runs on the special-function
   * unit that the range weights keep busy. */
  typedef typename Base::Value Value;
  template <bool kBiased>
  static __device__ __forceinline__ Value unpack (uint32_t p)
  {
    return Value{ __uint_as_float (p | 0x4b000000u) - 8388608.f };
  }
  /* The range key: the value already scaled, so that a tap's y is one
   * subtraction. */
  static constexpr float kRangeUnit = 4.f;
  typedef float RangeKey;
  static __device__ __forceinline__ RangeKey range_key (
      uint32_t, const Value &v, float scale)
  {
    return v.v * scale;
  }
  /* The range weight of tile words @a and @b, from the table @lut. */
  static __device__ __forceinline__ float table_weight (
      const float *lut, uint32_t a, uint32_t b)
  {
    return *reinterpret_cast<const float *> (
        reinterpret_cast<const char *> (lut) + lut_offset (a, b));
  }
  static __device__ __forceinline__ float range_y (
      RangeKey a, RangeKey b, float, float)
  {
    return a - b;
  }
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const typename Base::Sum &s)
  {
    const int c = Base::channel ();
    *reinterpret_cast<uint16_t *> (io.template out<0> (c, y, x))
        = (uint16_t)(finish_channel<uint16_t> (io, c, y, x, (s.v / s.w) * 0.25f)
            << io.sample_shift);
  }
};

/* Three deep colour channels filtered together: the tile word is 64 bits,
 * channels 0 and 1 in the halves of its first 32-bit word and channel 2 in
 * the low half of its second. The L1 distance is three absolute
 * differences, each accumulated into the next (one instruction each; the
 * halfword SIMD form, __vsadu2, is emulated with several); a pixel's
 * halves are taken apart once for all the outputs that read it. Values are
 * exact: a half placed into the float 2^23 (whose unit in the last place
 * is 1), 2^23 subtracted. */
template <int kRangeShift> struct DeepColour : Colour
{
  typedef uint2 Word;
  static constexpr int kRangeLen = CBF_DEEP_RANGE_LUT_LEN;
  static constexpr bool kDeep = true;
  static constexpr bool kTableTaps = false;
  static constexpr int kTableLen = 0;

  /* The L1 distance plus @plus. */
  static __device__ __forceinline__ uint32_t distance (
      uint2 a, uint2 b, uint32_t plus)
  {
    return __usad (a.x & 0xffffu, b.x & 0xffffu,
        __usad (a.x >> 16, b.x >> 16, __usad (a.y, b.y, plus)));
  }
  static __device__ __forceinline__ uint32_t lut_offset (uint2 a, uint2 b)
  {
    return (distance (a, b, 0) >> kRangeShift) << 2;
  }
  /* The range key is the tile word; y is the distance (at most 196605)
   * placed into the float 2^23 by the sum's last add, times @scale, plus
   * @bias = -2^23 @scale, in one fused multiply-add: exact but for its one
   * rounding. */
  static constexpr float kRangeUnit = 1.f;
  typedef uint2 RangeKey;
  static __device__ __forceinline__ RangeKey range_key (
      uint2 p, const Value &, float)
  {
    return p;
  }
  static __device__ __forceinline__ float range_y (
      RangeKey a, RangeKey b, float scale, float bias)
  {
    return fmaf (__uint_as_float (distance (a, b, 0x4b000000u)), scale, bias);
  }
  template <bool kBiased>
  static __device__ __forceinline__ Value unpack (uint2 p)
  {
    return Value{ half (p.x, 0x7610), half (p.x, 0x7632), half (p.y, 0x7610) };
  }
  /* Result bytes: the half's two bytes, 0x00, 0x4b: the float 2^23 + v. */
  static __device__ __forceinline__ float half (uint32_t p, uint32_t selector)
  {
    return __uint_as_float (__byte_perm (p, 0x4b000000u, selector)) - 8388608.f;
  }
  /* The three results of output (@x, @y), through the temporal filter
   * where the launch has one (as Colour::finish), rounded, packed as the
   * tile word is. */
  static __device__ __forceinline__ uint2 result (
      const Io &io, int y, int x, const Sum &s)
  {
    const float inv = 1.f / s.w;
    float c0 = s.c0 * inv, c1 = s.c1 * inv, c2 = s.c2 * inv;
    uint2 *state = nullptr;
    if (io.state[0]) {
      state = state_at<uint2> (io, 0, y, x);
      if (io.temporal_gain > 0.f) {
        const uint2 p = *state;
        const float p0 = half (p.x, 0x7610), p1 = half (p.x, 0x7632),
                    p2 = half (p.y, 0x7610);
        const float d = fabsf (c0 - p0) + fabsf (c1 - p1) + fabsf (c2 - p2);
        c0 = temporal_step (io, c0, p0, d);
        c1 = temporal_step (io, c1, p1, d);
        c2 = temporal_step (io, c2, p2, d);
      }
    }
    const uint2 r = make_uint2 (
        (uint32_t)__float2int_rn (c0) | ((uint32_t)__float2int_rn (c1) << 16),
        (uint32_t)__float2int_rn (c2));
    if (state)
      *state = r;
    return r;
  }
  static __device__ __forceinline__ uint2 pack (
      uint32_t c0, uint32_t c1, uint32_t c2)
  {
    return make_uint2 (c0 | (c1 << 16), c2);
  }
};

/* One 16-bit channel per plane (Y444_16LE; Y444_10LE and GBR_10LE). */
template <int kRangeShift> struct DeepPlanar : DeepColour<kRangeShift>
{
  typedef DeepColour<kRangeShift> Base;
  static constexpr int kPixelBytes = 2;
  static constexpr int kPlanes = 3;
  /* 10-bit samples (range shift 0) are cut to 10 bits, so that a value
   * past its depth stays inside the range table. */
  static constexpr uint32_t kSampleMask = kRangeShift ? 0xffffu : 0x3ffu;

  template <int kPlane, bool kEdge = false>
  static __device__ __forceinline__ uint32_t sample (const Io &io, int y, int x)
  {
    return *reinterpret_cast<const uint16_t *> (
               io.template in<2, kEdge> (kPlane, y, x))
        & kSampleMask;
  }
  template <bool kEdge = false>
  static __device__ __forceinline__ uint2 load (const Io &io, int y, int x)
  {
    return Base::pack (sample<0, kEdge> (io, y, x), sample<1, kEdge> (io, y, x),
        sample<2, kEdge> (io, y, x));
  }
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const typename Base::Sum &s)
  {
    const uint2 c = Base::result (io, y, x, s);
    *reinterpret_cast<uint16_t *> (io.template out<2> (0, y, x))
        = (uint16_t)c.x;
    *reinterpret_cast<uint16_t *> (io.template out<2> (1, y, x))
        = (uint16_t)(c.x >> 16);
    *reinterpret_cast<uint16_t *> (io.template out<2> (2, y, x))
        = (uint16_t)c.y;
  }
};

/* 64-bit pixels of four 16-bit samples, colour in samples 0..2, the
 * fourth (alpha) copied through (RGBA64_LE, BGRA64_LE). Read as two 32-bit
 * words: rows need only the 4-byte alignment of 32-bit pixels. */
struct DeepColour64 : DeepColour<5>
{
  static constexpr int kPixelBytes = 8;
  static constexpr int kPlanes = 1;

  static __device__ __forceinline__ uint2 word (const uint8_t *p)
  {
    const uint32_t *w = reinterpret_cast<const uint32_t *> (p);
    return make_uint2 (w[0], w[1]);
  }
  template <bool kEdge = false>
  static __device__ __forceinline__ uint2 load (const Io &io, int y, int x)
  {
    const uint2 w = word (io.template in<8, kEdge> (0, y, x));
    return make_uint2 (w.x, w.y & 0xffffu);
  }
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const Sum &s)
  {
    const uint32_t alpha = word (io.template in<8> (0, y, x)).y & 0xffff0000u;
    const uint2 c = result (io, y, x, s);
    uint32_t *out = reinterpret_cast<uint32_t *> (io.template out<8> (0, y, x));
    out[0] = c.x;
    out[1] = c.y | alpha;
  }
};

/* 32-bit pixels of three 10-bit channels in bits 0..29 and a 2-bit alpha
 * copied through (BGR10A2_LE, RGB10A2_LE). */
struct DeepColour10A2 : DeepColour<0>
{
  static constexpr int kPixelBytes = 4;
  static constexpr int kPlanes = 1;
  static constexpr uint32_t kAlphaMask = 0xc0000000u;

  static __device__ __forceinline__ uint32_t word (const uint8_t *p)
  {
    return *reinterpret_cast<const uint32_t *> (p);
  }
  template <bool kEdge = false>
  static __device__ __forceinline__ uint2 load (const Io &io, int y, int x)
  {
    const uint32_t w = word (io.template in<4, kEdge> (0, y, x));
    return pack (w & 0x3ffu, (w >> 10) & 0x3ffu, (w >> 20) & 0x3ffu);
  }
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const Sum &s)
  {
    const uint32_t alpha = word (io.template in<4> (0, y, x)) & kAlphaMask;
    const uint2 c = result (io, y, x, s);
    *reinterpret_cast<uint32_t *> (io.template out<4> (0, y, x))
        = (c.x & 0x3ffu) | ((c.x >> 16) << 10) | (c.y << 20) | alpha;
  }
};

/* The deep layouts the entries take (bilateral.h, CBF_DECLARE_DEEP_ENTRIES),
 * each range shift the one cbf_deep_range_shift gives its samples: one
 * channel of 16 bits (3) or of at most 12 (0), three of 16 (5) or 10 (0). */
typedef DeepChannels<1, 3> DeepChannel16;
typedef DeepChannels<2, 3> DeepChannelPair16;
typedef DeepChannels<1, 0> DeepChannel12;
typedef DeepChannels<2, 0> DeepChannelPair12;

/* Chroma guided by luma (a joint bilateral filter): the two chroma
 * channels (Io planes 0 and 1) each filtered on its own, as Channels, but
 * every range weight taken from the distance of the guide's samples (Io
 * plane 2: a plane at the channels' resolution, one byte a pixel) instead
 * of the channel's own. Both channels share a tap's weight, so one thread
 * and one tile word take both (the guide in byte 0, the channels in bytes
 * 1 and 2): the weight is found once for two outputs, by the colour
 * kernels' distance, table of weights and biased unpacking (Colour). */
struct GuidedPair : Colour
{
  static constexpr int kPixelBytes = 0;
  static constexpr int kPlanes = 2;
  static constexpr int kStates = 2;
  static constexpr bool kGuided = true;

  template <bool kEdge = false>
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    return *io.template in<1, kEdge> (2, y, x)
        | ((uint32_t)*io.template in<0, kEdge> (0, y, x) << 8)
        | ((uint32_t)*io.template in<0, kEdge> (1, y, x) << 16);
  }
  static __device__ __forceinline__ uint32_t distance (uint32_t a, uint32_t b)
  {
    return __usad (a & 0xffu, b & 0xffu, 0);
  }
  static __device__ __forceinline__ uint32_t lut_offset (uint32_t a, uint32_t b)
  {
    return distance (a, b) << 2;
  }
  struct Value
  {
    float u, v;
  };
  template <bool kBiased>
  static __device__ __forceinline__ Value unpack (uint32_t p)
  {
    if (kBiased)
      return Value{ biased (p, 0x7614), biased (p, 0x7624) };
    return Value{ exact (p, 0x7441), exact (p, 0x7442) };
  }
  struct Sum
  {
    float u = 0.f, v = 0.f, w = 0.f;
  };
  static __device__ __forceinline__ Value value (const Sum &s)
  {
    return Value{ s.u, s.v };
  }
  static __device__ __forceinline__ void add (Sum &s, const Value &p, float w)
  {
    s.u += w * p.u;
    s.v += w * p.v;
    s.w += w;
  }
  static __device__ __forceinline__ void prefetch_state (
      const Io &io, int y, int x)
  {
    temporal_prefetch<uint8_t> (io, 0, y, x);
    temporal_prefetch<uint8_t> (io, 1, y, x);
  }
  /* kBiased: the sums of w (1 + b / 2^15), as Colour's. */
  template <bool kBiased>
  static __device__ __forceinline__ void store (
      const Io &io, int y, int x, const Sum &s)
  {
    const float scale = kBiased ? 32768.f / s.w : 1.f / s.w;
    const float u = (kBiased ? s.u - s.w : s.u) * scale;
    const float v = (kBiased ? s.v - s.w : s.v) * scale;
    *io.template out<0> (0, y, x)
        = (uint8_t)finish_channel<uint8_t> (io, 0, y, x, u);
    *io.template out<0> (1, y, x)
        = (uint8_t)finish_channel<uint8_t> (io, 1, y, x, v);
  }
};

/* Deep chroma guided by luma: each channel in its grid layer, as
 * DeepChannels (whose wide and generic kernels take 64-bit words), the
 * tile word the channel's word and the guide's (a plane of 16-bit
 * containers holding samples as the channels do), the range table's
 * offset the guide's. */
template <int kChannels, int kRangeShift>
struct DeepGuided : DeepChannels<kChannels, kRangeShift>
{
  typedef DeepChannels<kChannels, kRangeShift> Base;
  typedef DeepGuided<1, kRangeShift> Single;
  typedef uint2 Word;
  static constexpr bool kGuided = true;

  template <bool kEdge = false>
  static __device__ __forceinline__ uint2 load (const Io &io, int y, int x)
  {
    return make_uint2 (Base::template load<kEdge> (io, y, x),
        Base::word_of (io,
            *reinterpret_cast<const uint16_t *> (
                io.template in<2, kEdge> (2, y, x))));
  }
  static __device__ __forceinline__ uint32_t lut_offset (uint2 a, uint2 b)
  {
    return Base::lut_offset (a.y, b.y);
  }
  template <bool kBiased>
  static __device__ __forceinline__ typename Base::Value unpack (uint2 p)
  {
    return Base::template unpack<kBiased> (p.x);
  }
  /* 16-bit guides: the range weight computed from the guides' distance
   * rather than read from the table, whose buckets of 8 levels would put
   * the output up to 16 levels from jointBilateralFilter's. */
  static constexpr bool kExactRange = kRangeShift != 0;
  static __device__ __forceinline__ float exact_range (
      const Io &io, uint2 a, uint2 b)
  {
    /* both guides placed into the float 2^23: their difference is exact */
    const float y = (__uint_as_float (a.y | 0x4b000000u)
                        - __uint_as_float (b.y | 0x4b000000u))
        * (io.range_scale * (1.f / Base::kRangeUnit));
    return exp2_approx (-y * y);
  }
};

/* Whether layout T computes its range weights (T::kExactRange). */
template <class T, class = void> struct LayoutExactRange
{
  static constexpr bool value = false;
};
template <class T>
struct LayoutExactRange<T, std::void_t<decltype (T::kExactRange)>>
{
  static constexpr bool value = T::kExactRange;
};

/* The range weight of tap word @p for the output whose word is @c, as the
 * wide and generic kernels take it: the range table's entry for their
 * distance, or the layout's computed weight. */
template <class T>
__device__ __forceinline__ float range_weight (const Io &io,
    const float *range_lut, const typename T::Word &p,
    const typename T::Word &c)
{
  if constexpr (LayoutExactRange<T>::value)
    return T::exact_range (io, p, c);
  else
    return range_at (range_lut, T::lut_offset (p, c));
}

typedef DeepGuided<2, 3> DeepGuidedPair16;
typedef DeepGuided<2, 0> DeepGuidedPair12;
typedef DeepPlanar<5> DeepPlanar16;
typedef DeepPlanar<0> DeepPlanar10;

/* Whether tap (dx, dy) is inside the disc of radius R. */
template <int R> __host__ __device__ constexpr bool in_disc (int dx, int dy)
{
  return dy >= -R && dy <= R && dx * dx + dy * dy <= R * R;
}

/* ------------------------------------------------------------------ */
/* Shared tiles */

/* A tile entry from a source pixel's word: the word itself, or its
 * channels as floats (converted once, for kernels that read each pixel
 * many times). */
template <class T>
__device__ __forceinline__ void tile_put (uint32_t &entry, uint32_t word)
{
  entry = word;
}
template <class T>
__device__ __forceinline__ void tile_put (uint2 &entry, uint2 word)
{
  entry = word;
}
template <class T>
__device__ __forceinline__ void tile_put (uint8_t &entry, uint32_t word)
{
  entry = (uint8_t)word;
}
template <class T>
__device__ __forceinline__ void tile_put (
    typename T::Value &entry, typename T::Word word)
{
  entry = T::template unpack<false> (word);
}

/* C consecutive words (32 or 64 bits) from an address aligned to their
 * size, in 16-byte loads where they fill them. */
template <int C, class W>
__device__ __forceinline__ void wide_load (const W *at, W (&to)[C])
{
  constexpr int kBytes = C * (int)sizeof (W);
  static_assert (sizeof (W) == 4 || sizeof (W) == 8, "32- or 64-bit words");
  if constexpr (kBytes % 16 == 0) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; i++) {
      const uint4 v = reinterpret_cast<const uint4 *> (at)[i];
      memcpy (reinterpret_cast<char *> (to) + 16 * i, &v, 16);
    }
  } else if constexpr (kBytes == 8) {
    const uint2 v = *reinterpret_cast<const uint2 *> (at);
    memcpy (to, &v, 8);
  } else {
    to[0] = at[0];
  }
}

/* A block's tile of source pixels (x0 - R, y0 - R) .. (x0 - R + kTileW - 1,
 * y0 - R + kTileH - 1), read by the border rule past its edges, walked as one
 * array by the block's kThreads threads: what the Gaussian's column kernel
 * uses, whose tile holds float triples (walked row by row, as the
 * bilateral kernels' tiles are, it was slower: what-was-tried.md,
 * "Gaussian"). */
template <class T, int kTileW, int kTileH, int R, int kThreads, class Entry>
__device__ __forceinline__ void load_tile_flat (
    Entry *tile, const Io &io, int x0, int y0, int tid)
{
  if (x0 >= R && y0 >= R && x0 + kTileW - R <= io.width
      && y0 + kTileH - R <= io.height) {
    for (int i = tid; i < kTileW * kTileH; i += kThreads) {
      int ty = i / kTileW, tx = i - ty * kTileW;
      tile_put<T> (tile[i], T::load (io, y0 + ty - R, x0 + tx - R));
    }
  } else {
    for (int i = tid; i < kTileW * kTileH; i += kThreads) {
      int ty = i / kTileW, tx = i - ty * kTileW;
      tile_put<T> (tile[i],
          T::template load<true> (
              io, io.row (y0 + ty - R), io.col (x0 + tx - R)));
    }
  }
}

/* CASE (R) for each radius that has compile-time kernels (the cases of a
 * launcher's switch over the radius). */
#define CBF_EACH_FAST_RADIUS(CASE)                                             \
  CASE (1) CASE (2) CASE (3) CASE (4) CASE (5) CASE (6) CASE (7) CASE (8)
static_assert (CBF_FAST_MAX_RADIUS == 8,
    "CBF_EACH_FAST_RADIUS names each specialised radius");

/* The most a sample of layout T keeps: its kSampleMask, where it has one
 * (the deep layouts), else every bit of a 16-bit container. */
template <class T, class = void> struct LayoutSampleMask
{
  static constexpr uint32_t value = 0xffffu;
};
template <class T>
struct LayoutSampleMask<T, std::void_t<decltype (T::kSampleMask)>>
{
  static constexpr uint32_t value = T::kSampleMask;
};

/* The Io of a launch, after checking the planes against the layout and
 * taking the temporal filter's part of @w. */
template <class T>
cudaError_t make_io (const CbfPlane *src, const CbfPlane *dst, int row_begin,
    int row_end, const CbfFilterParams *w, Io *io)
{
  *io = Io{};
  /* The temporal filter's state: one a channel filtered on its own, or
   * one for three filtered together (T::kStates), every one or none. */
  for (int l = 0; dst[0].state && l < T::kStates; l++) {
    if (!dst[l].state || w->temporal_gain < 0.f || w->temporal_gate <= 0.f)
      return cudaErrorInvalidValue;
    io->state[l] = dst[l].state;
    io->state_pitch[l] = dst[l].state_pitch;
  }
  io->temporal_gain = w->temporal_gain;
  io->temporal_gate = w->temporal_gate;
  if (w->border < CBF_BORDER_REFLECT_101 || w->border > CBF_BORDER_CONSTANT
      || (w->border == CBF_BORDER_CONSTANT && !w->border_pixel))
    return cudaErrorInvalidValue;
  io->border = w->border;
  io->border_pixel = w->border == CBF_BORDER_CONSTANT
      ? static_cast<const uint8_t *> (w->border_pixel) + CBF_BORDER_PIXEL_MARGIN
      : nullptr;
  for (int p = 0; p < T::kPlanes; p++) {
    if (src[p].width != src[0].width || src[p].height != src[0].height
        || dst[p].width != src[0].width || dst[p].height != src[0].height
        || src[p].pixel_bytes != src[0].pixel_bytes
        || dst[p].pixel_bytes != src[0].pixel_bytes)
      return cudaErrorInvalidValue;
    io->src[p] = src[p].data;
    io->dst[p] = dst[p].data;
    io->src_pitch[p] = src[p].pitch_bytes;
    io->dst_pitch[p] = dst[p].pitch_bytes;
  }
  /* The guide: the plane after the channels' (GuidedPair). */
  if constexpr (T::kGuided) {
    const CbfPlane &g = src[T::kPlanes];
    if (!g.data || g.width != src[0].width || g.height != src[0].height)
      return cudaErrorInvalidValue;
    io->src[2] = g.data;
    io->src_pitch[2] = g.pitch_bytes;
  }
  if (src->width <= 0 || src->height <= 0 || src->pixel_bytes < 1
      || (T::kPixelBytes && src->pixel_bytes != T::kPixelBytes) || row_begin < 0
      || row_end > src->height || row_begin >= row_end || src->sample_shift < 0
      || src->sample_shift > 15 || dst->sample_shift != src->sample_shift
      || src->sample_bits < 0 || src->sample_bits > 16
      || dst->sample_bits != src->sample_bits)
    return cudaErrorInvalidValue;
  io->pixel_bytes = src->pixel_bytes;
  io->sample_shift = src->sample_shift;
  io->sample_mask = ((src->sample_bits ? (1u << src->sample_bits) - 1 : 0xffffu)
                        & LayoutSampleMask<T>::value)
      << src->sample_shift;
  io->width = src->width;
  io->height = src->height;
  /* Drop an error left by an earlier, unrelated runtime call on this thread
   * (a failed allocation, say), so that only this launch's is returned. */
  cudaGetLastError ();
  return cudaSuccess;
}

} /* Allows @kernel, whose shared memory depends on run-time parameters, all
 * the dynamic shared memory the current device has, once a device (the
 * first time it is asked for, recorded in @allowed), and gives that
 * amount in @limit. */
template <class Kernel>
cudaError_t allow_device_smem (
    Kernel kernel, std::atomic<int> (&allowed)[64], int *limit)
{
  int device = 0;
  cudaError_t err = cudaGetDevice (&device);
  if (err != cudaSuccess)
    return err;
  *limit = device < 64 ? allowed[device].load (std::memory_order_relaxed) : 0;
  if (*limit)
    return cudaSuccess;
  err = cudaDeviceGetAttribute (
      limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute (
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, *limit);
  if (err != cudaSuccess)
    return err;
  if (device < 64)
    allowed[device].store (*limit, std::memory_order_relaxed);
  return cudaSuccess;
}

/* namespace */

#define CBF_ENTRY(name, launcher, Layout)                                      \
  extern "C" cudaError_t name (const CbfPlane *src, const CbfPlane *dst,       \
      int row_begin, int row_end, const CbfFilterParams *w,                    \
      cudaStream_t stream)                                                     \
  {                                                                            \
    return launcher<Layout> (src, dst, row_begin, row_end, w, stream);         \
  }

/* The deep entries of a filter whose launcher is @launcher: one channel,
 * three colour channels, or all. */
#define CBF_DEEP_CHANNEL_ENTRIES(filter, launcher)                             \
  CBF_ENTRY (cbf_##filter##_deep_channel, launcher, DeepChannel16)             \
  CBF_ENTRY (cbf_##filter##_deep_channel_pair, launcher, DeepChannelPair16)    \
  CBF_ENTRY (cbf_##filter##_deep12_channel, launcher, DeepChannel12)           \
  CBF_ENTRY (cbf_##filter##_deep12_channel_pair, launcher, DeepChannelPair12)
#define CBF_DEEP_COLOUR_ENTRIES(filter, launcher)                              \
  CBF_ENTRY (cbf_##filter##_deep_colour_planar, launcher, DeepPlanar16)        \
  CBF_ENTRY (cbf_##filter##_deep10_colour_planar, launcher, DeepPlanar10)      \
  CBF_ENTRY (cbf_##filter##_deep_colour64, launcher, DeepColour64)             \
  CBF_ENTRY (cbf_##filter##_deep_colour10a2, launcher, DeepColour10A2)
#define CBF_DEEP_ENTRIES(filter, launcher)                                     \
  CBF_DEEP_CHANNEL_ENTRIES (filter, launcher)                                  \
  CBF_DEEP_COLOUR_ENTRIES (filter, launcher)

#endif /* CBF_LAYOUTS_CUH */
