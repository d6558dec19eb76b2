/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The specialised kernel for samples deeper than 8 bits (layouts.cuh's
 * deep layouts), radius <= CBF_FAST_MAX_RADIUS (one channel of 16-bit
 * samples: CBF_FAST_EXTENDED_MAX_RADIUS, deep_fast_max_radius): the 8-bit
 * specialised kernels' walk (bilateral_fast.cuh) — K x C outputs a thread, the
 * window's taps unrolled at compile time, none outside the disc — with
 * float sums. Per-class tables of space x range, as the 8-bit kernels
 * read, would take thousands of entries a class, and a range table in
 * shared memory is read at distances that spread a warp's loads over
 * many banks, so that they conflict. Each weight is computed instead:
 * 2^(log2 (space) - y^2), y the tap's distance from its output in units
 * of the scaled sigma-color (the layout's range_y), log2 (space) a launch
 * parameter at an index known at compile time (an operand from the
 * constant bank), the power of two one instruction of the
 * special-function unit. The weights are exact but for that unit's
 * error (about 2^-22); no distance is bucketed.
 *
 * That unit then bounds one channel, a power of two a tap. For samples of
 * at most 12 bits (the layout's kTableTaps), whose every distance has an
 * entry of the range table, a share of the taps (deep_table_tap, chosen
 * at compile time) reads the range weight from the table in shared
 * memory instead and multiplies it by the spatial weight, another launch
 * parameter: the shared loads, conflicts and all, and the special-function
 * unit then work side by side (at the radii of deep_table). */

#ifndef CBF_BILATERAL_FAST_DEEP_CUH
#define CBF_BILATERAL_FAST_DEEP_CUH

#include "bilateral_fast.cuh"

namespace {

/* The largest radius of deep layout T's specialised kernel. One channel of
 * 16-bit samples takes it to CBF_FAST_EXTENDED_MAX_RADIUS, where it is
 * faster than the wide kernel. There samples of at most 12 bits, whose
 * wide kernel shares its taps' work with the range table, gain nothing,
 * and colour too little for its machine code under the plugin's size
 * budget (what-was-tried.md, "Deep samples"): their code is left out. */
template <class T> constexpr int deep_fast_max_radius ()
{
  return T::kClassWeights && !T::kTableTaps ? CBF_FAST_EXTENDED_MAX_RADIUS
                                            : CBF_FAST_MAX_RADIUS;
}

/* The shape of deep layout T at radius R (tunables.cuh, deep_shape), as
 * FastBlock and launch_fast take it. */
template <class T, int R> struct DeepShape
{
  /* whether some taps read the range table */
  static constexpr bool kTable = T::kTableTaps && deep_table (R);
  static constexpr FastShapeOf kOf = deep_shape (!T::kClassWeights, R, kTable,
      deep_fast_max_radius<T> () > CBF_FAST_MAX_RADIUS);
  static constexpr int kRows = kOf.rows;
  static constexpr int kCols = kOf.cols;
  static constexpr int kBlockY = kOf.block_rows;
  static constexpr int kThreads = kFastBlockX * kBlockY;
  static constexpr int kMinBlocks = fast_min_blocks (kOf.min_blocks, kThreads);
  typedef typename T::Word TileEntry;
  static constexpr int kTileW
      = (kFastBlockX * kCols + 2 * R + kCols - 1) / kCols * kCols;
  static constexpr int kTileH = kBlockY * kRows + 2 * R;
  /* the range table where some taps read it, else none */
  static constexpr int kLutLen = kTable ? T::kTableLen : 0;
  static constexpr int kLutOffset = 0;
  static constexpr bool kWordCopy = kLutLen > 0;
};

/* The launch parameter of a deep kernel's weights: log2 of each tap's
 * spatial weight and the weight itself (for the taps that read the range
 * table), at [(dy + r) * (2r + 1) + dx + r], and the range scale
 * (CbfBilateralParams). */
struct DeepTaps
{
  float log2_w[CBF_FAST_EXTENDED_MAX_TAPS];
  float w[CBF_FAST_MAX_TAPS];
  float range_scale;
};

static inline DeepTaps deep_taps (const CbfFilterParams *w)
{
  DeepTaps taps;
  for (int i = 0; i < CBF_FAST_EXTENDED_MAX_TAPS; i++)
    taps.log2_w[i] = w->bilateral.space_log2_taps[i];
  for (int i = 0; i < CBF_FAST_MAX_TAPS; i++)
    taps.w[i] = w->bilateral.space_taps[i];
  taps.range_scale = w->bilateral.range_scale;
  return taps;
}

/* A thread's K x C outputs and their float sums. */
template <class T, int R, int K, int C>
struct DeepWindow : FastWalk<DeepWindow<T, R, K, C>, R, K, C>
{
  typedef FastWalk<DeepWindow, R, K, C> Walk;
  typedef typename T::Word Word;
  static constexpr int kTileW = DeepShape<T, R>::kTileW;
  /* tile, column dx = 0 of source row 0; the range table in shared
   * memory, where the layout's kTableTaps */
  const Word *col;
  const float *lut;
  const DeepTaps *weights;
  /* the range scale in the layout's value units, and -2^23 times it
   * (range_y) */
  float scale, bias;
  /* Output (k, c) at [k * C + c]: its range key, its tile word (for the
   * table's taps) and its sums. */
  typedef typename T::RangeKey Key;
  Key centre[K * C];
  Word centre_word[K * C];
  typename T::Sum sum[K * C];

  /* The weight of tap (dx, dy) of output o, whose source's tile word is
   * @p and range key @key. */
  template <int dx, int dy, int o>
  __device__ __forceinline__ float weight (Word p, const Key &key) const
  {
    constexpr int tap = (dy + R) * (2 * R + 1) + dx + R;
    static_assert (tap < CBF_FAST_EXTENDED_MAX_TAPS, "a tap of DeepTaps");
    static_assert (!DeepShape<T, R>::kTable || R <= CBF_FAST_MAX_RADIUS,
        "table taps' spatial weights (DeepTaps::w) stop at radius 8");
    if constexpr (DeepShape<T, R>::kTable && deep_table_tap (dx, dy, o))
      return T::table_weight (lut, p, centre_word[o]) * weights->w[tap];
    else {
      const float y = T::range_y (key, centre[o], scale, bias);
      return exp2_approx (fmaf (-y, y, weights->log2_w[tap]));
    }
  }

  /* Whether source pixel (DX, S) is one of the thread's own outputs, whose
   * taps among each other start () sums. */
  static constexpr bool own (int s, int dx)
  {
    return s >= R && s < R + K && dx >= 0 && dx < C;
  }

  /* Outputs a and b, a < b, in each other's disc: one weight for both taps
   * (the same distance both ways). */
  template <int a, int b> __device__ __forceinline__ void own_pair ()
  {
    constexpr int dx = b % C - a % C, dy = b / C - a / C;
    if constexpr (a < b && in_disc<R> (dx, dy)) {
      const float w = weight<dx, dy, a> (centre_word[b], centre[b]);
      T::add (sum[a], T::template unpack<false> (centre_word[b]), w);
      T::add (sum[b], T::template unpack<false> (centre_word[a]), w);
    }
  }

  template <int... i>
  __device__ __forceinline__ void own_pairs (std::integer_sequence<int, i...>)
  {
    (own_pair<i / (K * C), i % (K * C)> (), ...);
  }

  /* The taps among the thread's own outputs, before the walk, which skips
   * them: an output's own tap weighs exactly 1, and a pair of outputs in
   * each other's disc shares its weight. */
  __device__ __forceinline__ void start ()
  {
#pragma unroll
    for (int o = 0; o < K * C; o++)
      T::add (sum[o], T::template unpack<false> (centre_word[o]), 1.f);
    own_pairs (std::make_integer_sequence<int, K * C * K * C> ());
  }

  /* Tap (DX - c, S - R - k) of output (k, c), if it is in that output's
   * disc and not one of the own outputs' (start). */
  template <int S, int DX, int k, int c>
  __device__ __forceinline__ void tap_output (
      Word p, const Key &key, const typename T::Value &value)
  {
    constexpr int dx = DX - c;
    constexpr int dy = S - R - k;
    if constexpr (in_disc<R> (dx, dy) && !own (S, DX))
      T::add (sum[k * C + c], value, weight<dx, dy, k * C + c> (p, key));
  }

  template <int S, int DX, int... o>
  __device__ __forceinline__ void tap_outputs (Word p, const Key &key,
      const typename T::Value &value, std::integer_sequence<int, o...>)
  {
    (tap_output<S, DX, o / C, o % C> (p, key, value), ...);
  }

  /* Source pixel (DX, S), loaded: converted once, used by every output
   * whose window holds it. */
  template <int S, int DX> __device__ __forceinline__ void taps (Word p)
  {
    if constexpr (Walk::used (S, DX)) {
      const typename T::Value value = T::template unpack<false> (p);
      tap_outputs<S, DX> (p, T::range_key (p, value, scale), value,
          std::make_integer_sequence<int, K * C> ());
    }
  }

  template <int S, int DX, int... n>
  __device__ __forceinline__ void taps_of (
      const Word (&entries)[C], std::integer_sequence<int, n...>)
  {
    (taps<S, DX + n> (entries[n]), ...);
  }

  /* C adjacent entries in one load: DX - R is a multiple of C, and so is
   * each row's start. */
  template <int S, int DX> __device__ __forceinline__ void load ()
  {
    if constexpr (Walk::used_entries (S, DX)) {
      Word entries[C];
      wide_load<C> (col + S * kTileW + DX, entries);
      taps_of<S, DX> (entries, std::make_integer_sequence<int, C> ());
    }
  }
};

template <class T, int R>
__global__ void __launch_bounds__ (DeepShape<T, R>::kThreads,
    DeepShape<T, R>::kMinBlocks) bilateral_fast_deep (Io io, int row_begin,
    int row_end, const float *__restrict__ tables,
    const __grid_constant__ DeepTaps weights)
{
  typedef DeepShape<T, R> Shape;
  constexpr int K = Shape::kRows;
  constexpr int C = Shape::kCols;
  constexpr int kTileW = Shape::kTileW;
  FastBlock<Shape> block (row_begin);
  const int x0 = block.x0, y0 = block.y0;
  block.load (tables, [&] {
    load_tile<T, kTileW, Shape::kTileH, R, kFastBlockX, Shape::kBlockY, false> (
        block.tile, io, x0, y0);
  });

  const int tx = threadIdx.x, ty = threadIdx.y;
  DeepWindow<T, R, K, C> window;
  window.col = block.tile + ty * K * kTileW + C * tx + R;
  window.lut = block.range_lut;
  window.weights = &weights;
  window.scale = weights.range_scale * (1.f / T::kRangeUnit);
  window.bias = -8388608.f * window.scale;
#pragma unroll
  for (int o = 0; o < K * C; o++) {
    const typename T::Word p = window.col[(o / C + R) * kTileW + o % C];
    window.centre_word[o] = p;
    window.centre[o]
        = T::range_key (p, T::template unpack<false> (p), window.scale);
  }
  window.start ();
  window.run ();

#pragma unroll
  for (int o = 0; o < K * C; o++) {
    const int x = x0 + C * tx + o % C;
    const int y = y0 + ty * K + o / C;
    if (x < io.width && y < row_end)
      T::template store<false> (io, y, x, window.sum[o]);
  }
}

template <class T, int R>
cudaError_t launch_fast_deep (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream)
{
  static_assert (R <= deep_fast_max_radius<T> (), "a radius of its kernel");
  /* a kernel's parameters: at most 4 KiB on every supported toolkit */
  static_assert (sizeof (DeepTaps) + sizeof (Io) + 64 <= 4096,
      "DeepTaps fits the launch parameters");
  return launch_fast<T, DeepShape<T, R>> (bilateral_fast_deep<T, R>, io,
      row_begin, row_end, w, stream, deep_taps (w));
}

} /* namespace */

#endif /* CBF_BILATERAL_FAST_DEEP_CUH */
