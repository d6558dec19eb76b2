/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The specialised kernel for samples deeper than 8 bits (layouts.cuh's
 * deep layouts), radius <= CBF_FAST_MAX_RADIUS: the 8-bit specialised
 * kernels' walk (bilateral_fast.cuh) — K x C outputs a thread, the
 * window's taps unrolled at compile time, none outside the disc — with
 * the wide kernel's weights: spatial times range. Per-class tables of
 * both, as the 8-bit kernels read, would take the deep range table's
 * 8192 entries a class; instead each tap's spatial weight is a launch
 * parameter at an index known at compile time, an operand of the
 * multiply read from the constant bank, and the range weight one load
 * from the range table in shared memory. */

#ifndef CBF_BILATERAL_FAST_DEEP_CUH
#define CBF_BILATERAL_FAST_DEEP_CUH

#include "bilateral_fast.cuh"
#include "bilateral_stream.cuh"

namespace {

/* The shape of deep layout T at radius R (tunables.cuh, deep_shape), as
 * FastBlock and launch_fast take it. */
template <class T, int R> struct DeepShape
{
  static constexpr FastShapeOf kOf = deep_shape (!T::kClassWeights);
  static constexpr int kRows = kOf.rows;
  static constexpr int kCols = kOf.cols;
  static constexpr int kBlockY = kOf.block_rows;
  static constexpr int kThreads = kFastBlockX * kBlockY;
  static constexpr int kMinBlocks = fast_min_blocks (kOf.min_blocks, kThreads);
  typedef typename T::Word TileEntry;
  static constexpr int kTileW
      = (kFastBlockX * kCols + 2 * R + kCols - 1) / kCols * kCols;
  static constexpr int kTileH = kBlockY * kRows + 2 * R;
  /* the range table, first in the deep tables (bilateral.h) */
  static constexpr int kLutLen = CBF_DEEP_RANGE_LUT_LEN;
  static constexpr int kLutOffset = 0;
  static constexpr bool kWordCopy = false;
};

/* A thread's K x C outputs and their float sums. */
template <class T, int R, int K, int C>
struct DeepWindow : FastWalk<DeepWindow<T, R, K, C>, R, K, C>
{
  typedef FastWalk<DeepWindow, R, K, C> Walk;
  typedef typename T::Word Word;
  static constexpr int kTileW = DeepShape<T, R>::kTileW;
  /* tile, column dx = 0 of source row 0 */
  const Word *col;
  const float *range_lut;
  const SpaceTaps *space;
  /* Output (k, c) at [k * C + c]: its pixel and its sums. */
  Word centre[K * C];
  typename T::Sum sum[K * C];

  /* Tap (DX - c, S - R - k) of output (k, c), if it is in that output's
   * disc. */
  template <int S, int DX, int k, int c>
  __device__ __forceinline__ void tap_output (
      Word p, const typename T::Value &value)
  {
    constexpr int dx = DX - c;
    constexpr int dy = S - R - k;
    constexpr int o = k * C + c;
    if constexpr (in_disc<R> (dx, dy)) {
      const float w = space->w[(dy + R) * (2 * R + 1) + dx + R]
          * range_at (range_lut, T::lut_offset (p, centre[o]));
      T::add (sum[o], value, w);
    }
  }

  template <int S, int DX, int... o>
  __device__ __forceinline__ void tap_outputs (
      Word p, const typename T::Value &value, std::integer_sequence<int, o...>)
  {
    (tap_output<S, DX, o / C, o % C> (p, value), ...);
  }

  /* Source pixel (DX, S), loaded: converted once, used by every output
   * whose window holds it. */
  template <int S, int DX> __device__ __forceinline__ void taps (Word p)
  {
    if constexpr (Walk::used (S, DX))
      tap_outputs<S, DX> (p, T::template unpack<false> (p),
          std::make_integer_sequence<int, K * C> ());
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
    const __grid_constant__ SpaceTaps space)
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
  window.range_lut = block.range_lut;
  window.space = &space;
#pragma unroll
  for (int o = 0; o < K * C; o++)
    window.centre[o] = window.col[(o / C + R) * kTileW + o % C];
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
  return launch_fast<T, DeepShape<T, R>> (bilateral_fast_deep<T, R>, io,
      row_begin, row_end, w, stream, space_taps (w));
}

} /* namespace */

#endif /* CBF_BILATERAL_FAST_DEEP_CUH */
