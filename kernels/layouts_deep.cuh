/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The deep pixel layouts (layouts.cuh): 10 to 16 bits, one channel or
 * three filtered together, with the deep range table. */

#ifndef CBF_LAYOUTS_DEEP_CUH
#define CBF_LAYOUTS_DEEP_CUH

#include "layouts_8bit.cuh"

namespace {

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
template <int kRangeShift> struct DeepColor : Color
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
template <int kRangeShift> struct DeepPlanar : DeepColor<kRangeShift>
{
  typedef DeepColor<kRangeShift> Base;
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
struct DeepColor64 : DeepColor<5>
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
struct DeepColor10A2 : DeepColor<0>
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

} /* namespace */

#endif /* CBF_LAYOUTS_DEEP_CUH */
