/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The specialised bilateral kernel for three colour channels filtered
 * together (radius <= CBF_FAST_MAX_RADIUS), on bilateral_fast.cuh's block,
 * tile and walk: each thread computes K rows of one or two adjacent
 * outputs. The tile holds a 32-bit word a pixel; a tap's weight, space and
 * range together, is read whole from its distance class's table of half
 * floats (bilateral.h), indexed by the L1 distance of the two pixels'
 * colours (one SIMD sum of absolute byte differences). Rounding a weight
 * to half moves it by at most 2^-11 of itself, and so the result by at
 * most 2^-11 x 255 = 0.13 levels.
 *
 * Up to CBF_FAST_MAX_RADIUS (but guided chroma) the weights are 16-bit
 * integers, 65535 x the weight rounded (tables of their own, made on the
 * host), and the sums are 32-bit integers: per tap the difference, a
 * table load and the integer multiply-adds of the bytes as they are, with
 * no conversion of the weight or of the pixel to float. A weight is then
 * off by at most half a unit, 2^-17 of the centre's, so the result by at
 * most taps x 2^-17 x 255 levels (0.29 at radius 7's 149 taps, 0.38 at
 * radius 8's 197), and the sums are exact.
 * Above, the sums are floats, the bytes in the biased form (Colour), whose
 * error would pass a level (1.25 at radius 10's 317 taps): they are made
 * unbiased halfway down the window (ColorWindow::after_row), so that each
 * half's error is bounded by its own taps (at most 169: 0.67 levels). */

#ifndef CBF_BILATERAL_FAST_COLOR_CUH
#define CBF_BILATERAL_FAST_COLOR_CUH

#include "bilateral_fast.cuh"

namespace {

/* The shape of colour layout T at radius R. */
template <class T, int R>
struct ColorShape : FastGeometry<R, true, T::kGuided ? 2 : 1>
{
  typedef FastGeometry<R, true, T::kGuided ? 2 : 1> Geometry;
  typedef uint32_t TileEntry;
  static constexpr int kTileW = Geometry::kMinTileW;
  /* integer weights and sums, exact, where their error stays below a
   * level (above) */
  static constexpr bool kInt = !T::kGuided && R <= CBF_FAST_MAX_RADIUS;
  /* the per-class weights, as 16-bit integers or half floats */
  static constexpr int kLutLen = Geometry::kClasses * CBF_COLOR_CLASS_FLOATS;
  static constexpr int kLutOffset = kInt
      ? cbf_tables_color_int_weights_offset (R)
      : cbf_tables_color_class_weights_offset (R);
  static constexpr bool kWordCopy = Geometry::kOf.word_copy;
  static constexpr bool kBatchedFill = Geometry::kOf.batched_fill;
};

/* The taps of the disc of radius R. */
template <int R> __host__ __device__ constexpr int disc_taps ()
{
  int n = 0;
  for (int dy = -R; dy <= R; dy++)
    for (int dx = -R; dx <= R; dx++)
      n += in_disc<R> (dx, dy);
  return n;
}

/* A thread's K x C outputs and their sums. */
template <class T, int R, int K, int C>
struct ColorWindow : FastWalk<ColorWindow<T, R, K, C>, R, K, C>
{
  typedef FastWalk<ColorWindow, R, K, C> Walk;
  static constexpr int kTileW = ColorShape<T, R>::kTileW;
  /* tile, column dx = 0 of source row 0 */
  const uint32_t *col;
  const float *range_lut;
  /* Output (k, c), row k and column c of the thread's, at [k * C + c]:
   * its pixel and its sums. */
  uint32_t centre[K * C];
  static constexpr bool kInt = ColorShape<T, R>::kInt;
  static constexpr unsigned kIntOne = CBF_COLOR_INT_WEIGHT_ONE;
  static_assert (!kInt
          || (unsigned long long)disc_taps<R> () * kIntOne * 255 < (1ull << 32),
      "a window's integer sums fit 32 bits");
  typename T::Sum sum[kInt ? 1 : K * C];
  /* each channel's sum and the weights' */
  uint32_t int_sum[kInt ? K * C : 1][4];
  /* a pixel's three bytes */
  struct Bytes
  {
    uint32_t b0, b1, b2;
  };
  /* Over CBF_FAST_MAX_RADIUS, each output's weights summed before the
   * source row kHalfRow (the rows above that of output K / 2). */
  static constexpr bool kHalves = R > CBF_FAST_MAX_RADIUS && !kInt;
  static constexpr int kHalfRow = R + K / 2;
  float first_half_w[kHalves ? K * C : 1];

  /* After source row kHalfRow - 1: each channel's sum, biased by W (the
   * weights' sum, Colour::unpack), less W, exactly (the two are within a
   * factor of 2), and W restarts from 0, its value kept. */
  template <int S> __device__ __forceinline__ void after_row ()
  {
    if constexpr (kHalves && S == kHalfRow - 1) {
#pragma unroll
      for (int o = 0; o < K * C; o++) {
        T::take_bias (sum[o], sum[o].w);
        first_half_w[o] = sum[o].w;
        sum[o].w = 0.f;
      }
    }
  }

  /* The sums as Colour::result takes them, biased by the whole window's
   * weights: the second half's bias taken off as the first's was, the
   * whole sum of weights added back (off by a rounding of the sum, 2^-9
   * levels). */
  __device__ __forceinline__ void join_halves ()
  {
    if constexpr (kHalves) {
#pragma unroll
      for (int o = 0; o < K * C; o++) {
        const float w = first_half_w[o] + sum[o].w;
        T::take_bias (sum[o], sum[o].w);
        T::take_bias (sum[o], -w);
        sum[o].w = w;
      }
    }
  }

  /* Tap (DX - c, S - R - k) of output (k, c), if it is in that output's
   * disc, weighed from its distance class's table (integers or half
   * floats); @value its bytes, or its values. */
  template <int S, int DX, int k, int c, class V>
  __device__ __forceinline__ void tap_output (uint32_t p, const V &value)
  {
    constexpr int dx = DX - c;
    constexpr int dy = S - R - k;
    constexpr int o = k * C + c;
    if constexpr (in_disc<R> (dx, dy) && kInt) {
      constexpr int kClass = cbf_distance_class (R, dx * dx + dy * dy);
      const uint32_t w = reinterpret_cast<const unsigned short *> (
          range_lut)[kClass * CBF_RANGE_LUT_LEN + T::distance (p, centre[o])];
      int_sum[o][0] += w * value.b0;
      int_sum[o][1] += w * value.b1;
      int_sum[o][2] += w * value.b2;
      int_sum[o][3] += w;
    } else if constexpr (in_disc<R> (dx, dy)) {
      constexpr int kClass = cbf_distance_class (R, dx * dx + dy * dy);
      const float w = __half2float (
          __ushort_as_half (reinterpret_cast<const unsigned short *> (
              range_lut)[kClass * CBF_RANGE_LUT_LEN
              + T::distance (p, centre[o])]));
      T::add (sum[o], value, w);
    }
  }

  template <int S, int DX, class V, int... o>
  __device__ __forceinline__ void tap_outputs (
      uint32_t p, const V &value, std::integer_sequence<int, o...>)
  {
    (tap_output<S, DX, o / C, o % C> (p, value), ...);
  }

  /* Source pixel (DX, S), loaded: unpacked once, used by every output
   * whose window holds it. */
  template <int S, int DX> __device__ __forceinline__ void taps (uint32_t p)
  {
    if constexpr (Walk::used (S, DX) && kInt)
      tap_outputs<S, DX> (p,
          Bytes{ __byte_perm (p, 0, 0x4440), __byte_perm (p, 0, 0x4441),
              __byte_perm (p, 0, 0x4442) },
          std::make_integer_sequence<int, K * C> ());
    else if constexpr (Walk::used (S, DX))
      tap_outputs<S, DX> (p, T::template unpack<true> (p),
          std::make_integer_sequence<int, K * C> ());
  }

  /* One column: a 32-bit load. Two: the pair (DX, DX + 1) in one 64-bit
   * load, as a warp's threads read the tile two words apart (single loads
   * would conflict two ways); DX - R is even and so is each row's start, so
   * the pair is aligned. */
  template <int S, int DX> __device__ __forceinline__ void load ()
  {
    if constexpr (C == 1) {
      if constexpr (Walk::used (S, DX))
        taps<S, DX> (col[S * kTileW + DX]);
    } else if constexpr (Walk::used_entries (S, DX)) {
      const uint2 pair
          = *reinterpret_cast<const uint2 *> (col + S * kTileW + DX);
      taps<S, DX> (pair.x);
      taps<S, DX + 1> (pair.y);
    }
  }
};

template <class T, int R>
__global__ void __launch_bounds__ (ColorShape<T, R>::kThreads,
    ColorShape<T, R>::kMinBlocks) bilateral_fast_color (Io io, int row_begin,
    int row_end, const float *__restrict__ tables)
{
  /* not built where its shared memory does not fit (fast_color_fits) */
  if constexpr (R > CBF_FAST_MAX_RADIUS && !kFastExtendedColor)
    return;
  else {
    typedef ColorShape<T, R> Shape;
    constexpr int K = Shape::kRows;
    constexpr int C = Shape::kCols;
    typedef ColorWindow<T, R, K, C> Window;
    constexpr int kTileW = Shape::kTileW;
    constexpr int kTileH = Shape::kTileH;
    FastBlock<Shape> block (row_begin);
    const int x0 = block.x0, y0 = block.y0;
    block.load (tables, [&] {
      with_color_layout<T> (io, [&] (auto layout) {
        load_tile<decltype (layout), kTileW, kTileH, R, kFastBlockX,
            Shape::kBlockY, Shape::kBatchedFill> (block.tile, io, x0, y0);
      });
    });

    const int tx = threadIdx.x, ty = threadIdx.y;
    Window window;
    window.col = block.tile + ty * K * kTileW + C * tx + R;
    window.range_lut = block.range_lut;
#pragma unroll
    for (int o = 0; o < K * C; o++) {
      window.centre[o] = window.col[(o / C + R) * kTileW + o % C];
      if constexpr (Window::kInt)
        for (int i = 0; i < 4; i++)
          window.int_sum[o][i] = 0;
    }
#pragma unroll
    for (int k = 0; k < K; k++)
      if (x0 + C * tx < io.width && y0 + ty * K + k < row_end)
        T::prefetch_state (io, y0 + ty * K + k, x0 + C * tx);
    window.run ();
    window.join_halves ();

    with_color_layout<T> (io, [&] (auto layout) {
#pragma unroll
      for (int o = 0; o < K * C; o++) {
        const int x = x0 + C * tx + o % C;
        const int y = y0 + ty * K + o / C;
        if constexpr (Window::kInt) {
          /* the sums' quotients are the weighted means */
          typename T::Sum s;
          s.c0 = (float)window.int_sum[o][0];
          s.c1 = (float)window.int_sum[o][1];
          s.c2 = (float)window.int_sum[o][2];
          s.w = (float)window.int_sum[o][3];
          if (x < io.width && y < row_end)
            decltype (layout)::template store<false> (io, y, x, s);
        } else if (x < io.width && y < row_end)
          decltype (layout)::template store<true> (io, y, x, window.sum[o]);
      }
    });
  }
}

/* Whether colour layout T's specialised kernel at radius R fits the
 * current device: up to radius 8 every device; at radii 9 and 10 (71 and
 * 83 KiB a block) a device of compute capability 8.0 or from 9.0 (the
 * code built with it, kFastExtendedColor) where two blocks fit an SM, as
 * its shape asks (sm_86 and sm_89 would hold one, sm_75 none), else the
 * wide kernel runs. */
template <class T, int R> cudaError_t fast_color_fits (bool *fits)
{
  constexpr int kBytes = FastSmem<ColorShape<T, R>>::kBytes;
  CbfDeviceFigures f;
  *fits = R <= CBF_FAST_MAX_RADIUS;
  if (*fits)
    return cudaSuccess;
  const cudaError_t err = cbf_device_figures (&f);
  if (err != cudaSuccess)
    return err;
  *fits = (f.major >= 9 || (f.major == 8 && f.minor == 0))
      && kBytes <= f.smem_per_block_optin
      && 2 * (kBytes + f.smem_reserved_per_block) <= f.smem_per_sm;
  return cudaSuccess;
}

template <class T, int R>
cudaError_t launch_fast_color (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream)
{
  return launch_fast<T, ColorShape<T, R>> (
      bilateral_fast_color<T, R>, io, row_begin, row_end, w, stream);
}

} /* namespace */

#endif /* CBF_BILATERAL_FAST_COLOR_CUH */
