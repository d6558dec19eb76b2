/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The layouts of chroma guided by luma (layouts.cuh): a joint bilateral
 * filter, 8-bit and deep. */

#ifndef CBF_LAYOUTS_GUIDED_CUH
#define CBF_LAYOUTS_GUIDED_CUH

#include "layouts_deep.cuh"

namespace {

/* Chroma guided by luma (a joint bilateral filter): the two chroma
 * channels (Io planes 0 and 1) each filtered on its own, as Channels, but
 * every range weight taken from the distance of the guide's samples (Io
 * plane 2: a plane at the channels' resolution, one byte a pixel) instead
 * of the channel's own. Both channels share a tap's weight, so one thread
 * and one tile word take both (the guide in byte 0, the channels in bytes
 * 1 and 2): the weight is found once for two outputs, by the colour
 * kernels' distance, table of weights and biased unpacking (Colour). */
struct GuidedPair : Color
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
  static __device__ __forceinline__ void take_bias (Sum &s, float bias)
  {
    s.u -= bias;
    s.v -= bias;
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

} /* namespace */

#endif /* CBF_LAYOUTS_GUIDED_CUH */
