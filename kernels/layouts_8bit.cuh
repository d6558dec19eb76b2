/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The 8-bit pixel layouts (layouts.cuh): channels filtered each on its
 * own, and three colour channels filtered together, packed or planar. */

#ifndef CBF_LAYOUTS_8BIT_CUH
#define CBF_LAYOUTS_8BIT_CUH

#include "layouts_io.cuh"

namespace {

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
struct Color
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
   * uses it for guided chroma (radius <= 8) and at radii 9 and 10 (where
   * its sums are made unbiased halfway), the streaming one at radius 1; the
   * specialised kernel's other layouts to radius 8 take the bytes as
   * integers (bilateral_fast_color.cuh); the generic one and the
   * Gaussian, whose windows are unbounded, take b exactly: the byte placed
   * into the float 2^23 (whose unit in the last place is 1) and 2^23
   * subtracted, again without a conversion. */
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
  /* Takes @bias off each channel's biased sum (the specialised kernel's
   * halves, ColorWindow). */
  static __device__ __forceinline__ void take_bias (Sum &s, float bias)
  {
    s.c0 -= bias;
    s.c1 -= bias;
    s.c2 -= bias;
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
template <int kFirst> struct Color32 : Color
{
  static constexpr int kPixelBytes = 4;
  static constexpr int kPlanes = 1;
  static constexpr int kShift = 8 * kFirst;
  static constexpr uint32_t kColorMask = 0xffffffu << kShift;

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
        = word (io.template in<4> (0, y, x)) & ~kColorMask;
    *reinterpret_cast<uint32_t *> (io.template out<4> (0, y, x))
        = (result<kBiased> (io, y, x, s) << kShift) | passthrough;
  }
};

/* 24-bit pixels (RGB, BGR): three byte accesses, as rows of them are not
 * 32-bit aligned. */
struct Color24 : Color
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
struct ColorPlanar : Color
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

/* Any of the four layouts above, the one Io::color_layout names (its index
 * in ColorLayoutIndex): the specialised kernel's instantiation for it
 * serves all four with one copy of the window's taps, which are the same
 * for each (Colour's), and calls the layout's own loads and stores
 * (with_color_layout). Above CBF_FAST_MAX_RADIUS the fully unrolled taps
 * are a quarter of a megabyte of machine code a radius; a copy per layout
 * would cost four. */
struct ColorAny : Color
{
  static constexpr int kPixelBytes = 0;
  static constexpr int kPlanes = 0;
};

/* Layout T's index for ColorAny, or -1 for the other layouts. */
template <class T> struct ColorLayoutIndex
{
  static constexpr int value = -1;
};
template <int F> struct ColorLayoutIndex<Color32<F>>
{
  static constexpr int value = F;
};
template <> struct ColorLayoutIndex<Color24>
{
  static constexpr int value = 2;
};
template <> struct ColorLayoutIndex<ColorPlanar>
{
  static constexpr int value = 3;
};

/* Calls @f with a value of layout T, or where T is ColorAny with one of the
 * layout Io::color_layout names: a branch the whole launch takes alike. */
template <class T, class F>
__device__ __forceinline__ void with_color_layout (const Io &io, F f)
{
  if constexpr (std::is_same<T, ColorAny>::value) {
    switch (io.color_layout) {
    case ColorLayoutIndex<Color32<0>>::value:
      f (Color32<0> ());
      break;
    case ColorLayoutIndex<Color32<1>>::value:
      f (Color32<1> ());
      break;
    case ColorLayoutIndex<Color24>::value:
      f (Color24 ());
      break;
    default:
      f (ColorPlanar ());
      break;
    }
  } else {
    f (T ());
  }
}

} /* namespace */

/* Launches the specialised colour kernel at radius @radius
 * (CBF_FAST_MAX_RADIUS < radius <= CBF_FAST_EXTENDED_MAX_RADIUS) for
 * layout @layout (ColorLayoutIndex) where it fits the current device
 * (fast_color_fits), saying so in @launched: ColorAny's one instantiation,
 * in bilateral_color32.cu, for the four layouts' files. */
cudaError_t cbf_bilateral_color_extended (int layout, const CbfPlane *src,
    const CbfPlane *dst, int row_begin, int row_end, const CbfFilterParams *w,
    cudaStream_t stream, bool *launched);

#endif /* CBF_LAYOUTS_8BIT_CUH */
