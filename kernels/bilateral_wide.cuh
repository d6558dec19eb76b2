/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The wide bilateral kernel: radii above CBF_FAST_MAX_RADIUS up to
 * CBF_WIDE_MAX_RADIUS, every layout (8-bit and deep: the tile word and
 * the range table's length are the layout's; one 8-bit channel has a
 * kernel of its own, bilateral_wide_channel.cuh, where its tables fit).
 * The radius is known only at run time: one kernel a layout serves all
 * these radii, where a template per radius would multiply the
 * fatbinary. A tap's weight is its spatial weight times its range weight,
 * the generic kernel's arithmetic (the specialised kernels' per-class
 * tables of both would not fit in shared memory at these radii); values
 * are exact and sums are floats.
 *
 * The 8-bit layouts have a folded form too, which saves that multiply a
 * tap: Gaussian spatial weights are separable, the weight of (dx, dy)
 * that of (dx, 0) times that of (0, dy), so a range table a column offset
 * |dx| holds the first times the range weight (bilateral.h's folded
 * tables), and the sums carry the second: the window's rows are walked
 * from the outside in (-r, r, 1 - r, r - 1, ..., 0) and, before the rows
 * |dy| = k - 1, the sums are scaled by the row weight of k over that of
 * k - 1. A tap then weighs its true weight over the current row's, never
 * more than 1, so that no sigma takes the sums out of the float range,
 * and after row 0 (whose row weight is 1) its true weight. 8-bit colour
 * computes some pairs' weights instead of reading them
 * (wide_fold_computes). Its tables fill most of a block's shared memory,
 * so it has blocks of its own shape (kWideFoldShape; 8-bit colour's are
 * taller where only one block fits an SM, kWideFoldTallShape), taken where the
 * grid is large enough (kWideFoldMinWaves).
 *
 * Each thread computes K rows of C adjacent outputs. The window is walked
 * by its rows dy, which the K outputs share: the same half width hw, the
 * same spatial weights, from a row of a table each block builds in shared
 * memory, zero outside the disc, that every thread of a warp reads whole
 * (one broadcast load of C weights a step; folded, the byte offsets of
 * their columns' tables, the zero table's outside the disc). A window row's taps for C
 * adjacent outputs span 2 hw + C columns, walked C a step: each pixel
 * loaded and unpacked once for the C outputs, output c's spatial weight at
 * pixel n the table's at column n - c, carried in registers from the step
 * before. The first and last steps leave out, at compile time, the
 * output-tap pairs outside the disc (in the first, those of outputs right
 * of the pixel's; in the last, left); the first starts early by the
 * columns that make the span whole steps, an even number below C, each
 * its own copy of that step. So no zero-weight tap is summed but a few a
 * row in the second step. */

#ifndef CBF_BILATERAL_WIDE_CUH
#define CBF_BILATERAL_WIDE_CUH

#include "layouts.cuh"

namespace {

__host__ __device__ constexpr int wide_round4 (int n)
{
  return (n + 3) / 4 * 4;
}

/* The first column of the walk of a window row of half width @hw,
 * relative to a thread's first output: -hw, or further left by the even
 * number of columns below C that makes the span, 2 hw + C columns from
 * -hw, whole steps of C. */
template <int C> __host__ __device__ constexpr int wide_first_column (int hw)
{
  return -hw - ((-2 * hw) & (C - 1));
}

/* Whether a step sums the pair of its pixel n and output c: in the walk's
 * first step, which starts kPad columns left of -hw (kPad >= 0), pixels
 * left of the output's window are left out; in its last (kLast), pixels
 * right of it. */
template <int kPad, bool kLast> constexpr bool wide_pair (int n, int c)
{
  return (kPad < 0 || n >= c + kPad) && (!kLast || n <= c);
}

/* Whether layout T's wide kernel computes some of its range weights,
 * 2^(log2 (space) - y^2) on the special-function unit, as the deep
 * specialised kernel does: the deep layouts (but the guided ones, whose
 * weights are the guide's), whose range table's loads, spread over many
 * banks, would bound the kernel alone. deep_table_tap picks the pairs
 * that read the table. */
template <class T> __host__ __device__ constexpr bool wide_computes ()
{
  return T::kDeep && !T::kGuided;
}

/* Whether layout T's wide kernel can fold each column offset's spatial
 * weight into a range table of its own (8-bit layouts, whose range
 * weights come from one table). */
template <class T> __host__ __device__ constexpr bool wide_folds ()
{
  return !T::kDeep && !LayoutExactRange<T>::value;
}

/* Whether layout T's folded wide kernel computes the range weights of
 * some of its pairs on the special-function unit, 2^(log2 (space) - y^2)
 * with y the colour distance times the range scale, beside the folded
 * tables' loads: 8-bit colour, whose table loads meet in a bank wherever
 * two lanes' distances differ by a multiple of 32, so that they bound the
 * kernel alone. Which pairs: kWideFoldComputed (tunables.cuh). */
template <class T> __host__ __device__ constexpr bool wide_fold_computes ()
{
  return std::is_base_of<Color, T>::value && !T::kDeep && !T::kGuided;
}

/* Whether layout T's folded kernel computes the weights of its step's
 * column @i (pixel n of output c: i = n - c modulo C). */
template <class T> constexpr bool wide_fold_computed (int i)
{
  return wide_fold_computes<T> () && (kWideFoldComputed >> i) & 1;
}

/* The shape of layout T's wide kernel (tunables.cuh, kWideShape and
 * kWideDeepColorShape; folded, kWideFoldShape, or kWideFoldTallShape where
 * it computes some pairs' weights, which binds its loop by its issue
 * slots): K rows of C outputs a thread; a warp's lanes kWarpCols threads
 * across, its warps kWarpsAcross across; kWarps warps a block at most (the
 * tall shape's blocks have kWideFoldShape's warps where two such blocks
 * fit an SM, chosen at launch). */
template <class T, bool kFold = false> struct WideShape
{
  static constexpr WideShapeOf kOf = kFold
      ? (wide_fold_computes<T> () ? kWideFoldTallShape : kWideFoldShape)
      : T::kDeep && !T::kClassWeights ? kWideDeepColorShape
                                      : kWideShape;
  static constexpr int K = kOf.rows;
  static constexpr int C = kOf.cols;
  static constexpr int kWarpCols = kOf.warp_cols;
  static constexpr int kWarpRows = 32 / kWarpCols;
  static constexpr int kWarpsAcross = kOf.warps_across;
  static constexpr int kWarps = kOf.warps;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kMinBlocks = kOf.min_blocks;
  static constexpr int kBlockCols = kWarpsAcross * kWarpCols * C;
  /* the output rows of a block of @warps warps */
  __host__ __device__ static constexpr int block_rows (int warps)
  {
    return warps / kWarpsAcross * kWarpRows * K;
  }
  static_assert (C == 2 || C == 4 || C == 8, "a power of two, >= 2");
};

/* Multiplies each of the float sums of @s by @f. */
template <class Sum>
__device__ __forceinline__ void wide_scale (Sum &s, float f)
{
  static_assert (sizeof (Sum) % sizeof (float) == 0, "float sums");
  float v[sizeof (Sum) / sizeof (float)];
  memcpy (v, &s, sizeof s);
#pragma unroll
  for (unsigned i = 0; i < sizeof (Sum) / sizeof (float); i++)
    v[i] *= f;
  memcpy (&s, v, sizeof s);
}

/* Fills a block's rows of the walk, `stride` entries a window row dy, the
 * entry at column wide_first_column (hw) + i by @entry (i, dx, dy,
 * whether (dx, dy) is in the disc), and each row's half width into
 * @half, @threads threads from @tid. */
template <int C, class Entry>
__device__ __forceinline__ void wide_rows (int radius, int stride,
    const float *half_widths, int *half, int tid, int threads, Entry entry)
{
  for (int i = tid; i < (2 * radius + 1) * stride; i += threads) {
    const int row = i / stride, column = i - row * stride;
    const int dy = row - radius;
    const int hw = (int)half_widths[dy < 0 ? -dy : dy];
    const int dx = wide_first_column<C> (hw) + column;
    entry (i, dx, dy, dx >= -hw && dx <= hw);
    if (column == 0)
      half[row] = hw;
  }
}

/* Calls @step with the walk's first pad (an even number below C) as a
 * compile-time constant: each pad has its own copy of the first step. */
template <int C, class Step>
__device__ __forceinline__ void wide_first_step (int pad, Step step)
{
  if (C == 2 || pad == 0)
    step (std::integral_constant<int, 0> ());
  else if (C == 4 || pad == 2)
    step (std::integral_constant<int, 2> ());
  else if (pad == 4)
    step (std::integral_constant<int, 4> ());
  else
    step (std::integral_constant<int, 6> ());
}

/* A block's output rows (@warps warps a block) and its shared memory at
 * run-time radius @r, in 32-bit words: the range table (folded: the folded tables and the row factors), the
 * half widths, the spatial table and the tile, each a multiple of four
 * words so that the next starts 16-byte aligned. The spatial table has a
 * row of `stride` weights a window row dy, entry i the weight of column
 * wide_first_column (hw) + i (folded: the byte offset of its table). The tile's column t is
 * picture column x0 - left + t (left: the furthest a walk starts), its
 * width odd in words, so that a warp's rows of threads, each reading
 * words C apart, meet in distinct banks. */
template <class T, bool kFold = false> struct WideGeometry
{
  typedef WideShape<T, kFold> Shape;
  static constexpr int C = Shape::C;
  /* a folded table's words */
  static constexpr int kFoldWords = wide_round4 (T::kRangeLen);
  int radius, block_rows, left, stride, tile_w, tile_h;

  __host__ __device__ WideGeometry (int r, int warps)
      : radius (r), block_rows (Shape::block_rows (warps)), left (r + C - 2),
        stride (wide_round4 (2 * r + 2 * C)),
        tile_w ((Shape::kBlockCols + left + r) | 1), tile_h (block_rows + 2 * r)
  {}
  /* folded: a table a column offset |dx| 0 .. radius, one of zeros and
   * the row factors (bilateral.h) */
  __host__ __device__ int half_offset () const
  {
    return kFold ? cbf_tables_wide_fold_len (radius) : T::kRangeLen;
  }
  __host__ __device__ int factor_offset () const
  {
    return (radius + 2) * kFoldWords;
  }
  __host__ __device__ int space_offset () const
  {
    return half_offset () + wide_round4 (2 * radius + 1);
  }
  /* the log2 of the spatial weights, as many rows, where some range
   * weights are computed (wide_computes) */
  __host__ __device__ int space_log2_offset () const
  {
    return space_offset () + (2 * radius + 1) * stride;
  }
  __host__ __device__ int tile_offset () const
  {
    return space_log2_offset ()
        + (wide_computes<T> () ? (2 * radius + 1) * stride : 0);
  }
  __host__ __device__ int smem_bytes () const
  {
    return tile_offset () * 4
        + tile_w * tile_h * (int)sizeof (typename T::Word);
  }
};

/* Layout T's range key where its wide kernel computes weights. */
template <class T, bool kComputes> struct WideKey
{
  typedef char type;
};
template <class T> struct WideKey<T, true>
{
  typedef typename T::RangeKey type;
};

/* A thread's K x C outputs: their tile words and sums. */
template <class T, bool kFold> struct WideSums
{
  typedef WideShape<T, kFold> Shape;
  static constexpr int K = Shape::K;
  static constexpr int C = Shape::C;
  /* whether some pairs' weights are computed from a folded table's log2 */
  static constexpr bool kFoldComputes = kFold && wide_fold_computes<T> ();
  static_assert (!kFoldComputes || kWideFoldComputed >> C == 0, "C columns");
  typedef typename T::Word Word;
  /* the layout's range key and its scale where weights are computed */
  typedef typename WideKey<T, wide_computes<T> ()>::type Key;
  Word centre[K][C];
  Key centre_key[K][C];
  typename T::Sum sum[K][C];
  float scale, bias;

  /* The spatial weights of C columns of a window row, and their log2
   * where weights are computed; folded, the byte offsets of their
   * columns' tables, and for 8-bit colour the log2 spatial weights of the
   * columns whose pairs it computes. */
  typedef std::conditional_t<kFold, int, float> Entry;
  struct Weights
  {
    Entry w[C];
    float log2_w[wide_computes<T> () || kFoldComputes ? C : 1];

    __device__ __forceinline__ void load (const Entry *row,
        const float *log2_row, int column, const float *range_lut)
    {
      wide_load<C> (row + column, w);
      if constexpr (wide_computes<T> ())
        wide_load<C> (log2_row + column, log2_w);
      if constexpr (kFoldComputes) {
        /* the log2 of the column's spatial weight: its folded table's
         * last entry (bilateral.h) */
#pragma unroll
        for (int i = 0; i < C; i++)
          if (wide_fold_computed<T> (i))
            log2_w[i] = range_at (
                range_lut, (uint32_t)w[i] + 4 * (CBF_RANGE_LUT_LEN - 1));
      }
    }
  };

  /* Multiplies every sum by @f. */
  __device__ __forceinline__ void scale_all (float f)
  {
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
      for (int c = 0; c < C; c++)
        wide_scale (sum[k][c], f);
  }

  /* The outputs' words from @own, rows @stride words apart, their keys,
   * and the range scale in the layout's value units (range_y; folded, from
   * the tables at @range_lut). */
  __device__ __forceinline__ void start (
      const Io &io, const Word *own, int stride, const float *range_lut)
  {
    if constexpr (wide_computes<T> ()) {
      scale = io.range_scale * (1.f / T::kRangeUnit);
      bias = -8388608.f * scale;
    }
    if constexpr (kFoldComputes) {
      /* the range scale: the first folded table's second-last entry */
      scale = range_at (range_lut, 4 * (CBF_RANGE_LUT_LEN - 2));
      bias = -8388608.f * scale;
    }
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
      for (int c = 0; c < C; c++) {
        centre[k][c] = own[k * stride + c];
        if constexpr (wide_computes<T> ())
          centre_key[k][c] = T::range_key (
              centre[k][c], T::template unpack<false> (centre[k][c]), scale);
        sum[k][c] = typename T::Sum ();
      }
  }

  /* One step: @pixels, C pixels of each of the K rows; @now, the spatial
   * weights of the step's columns j .. j + C - 1; @before, of j - C ..
   * j - 1. Pixel n is tap j + n - c of output c. */
  template <int kPad, bool kLast>
  __device__ __forceinline__ void step (const Io &io, const float *range_lut,
      const Word (&pixels)[K][C], const Weights &now, const Weights &before)
  {
#pragma unroll
    for (int n = 0; n < C; n++)
#pragma unroll
      for (int k = 0; k < K; k++) {
        const Word p = pixels[k][n];
        const typename T::Value value = T::template unpack<false> (p);
        Key key{};
        if constexpr (wide_computes<T> ())
          key = T::range_key (p, value, scale);
#pragma unroll
        for (int c = 0; c < C; c++) {
          if (!wide_pair<kPad, kLast> (n, c))
            continue;
          const Weights &at = n >= c ? now : before;
          const int i = n >= c ? n - c : C + n - c;
          bool computed = false;
          if constexpr (wide_computes<T> ()) {
            if (!deep_table_tap (n, c, 0)) {
              const float y = T::range_y (key, centre_key[k][c], scale, bias);
              T::add (
                  sum[k][c], value, exp2_approx (fmaf (-y, y, at.log2_w[i])));
              computed = true;
            }
          }
          if constexpr (kFold) {
            if (wide_fold_computed<T> (i)) {
              /* the distance placed into the float 2^23 by the SIMD
               * instruction's add, times the scale, plus -2^23 x the scale
               * (exact, a power of two): y in one rounding */
              uint32_t d;
              asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;"
                  : "=r"(d)
                  : "r"(p), "r"(centre[k][c]), "r"(0x4b000000u));
              const float y = fmaf (__uint_as_float (d), scale, bias);
              T::add (
                  sum[k][c], value, exp2_approx (fmaf (-y, y, at.log2_w[i])));
            } else
              T::add (sum[k][c], value,
                  range_at (
                      range_lut, at.w[i] + T::lut_offset (p, centre[k][c])));
          } else if (!computed)
            T::add (sum[k][c], value,
                at.w[i] * range_weight<T> (io, range_lut, p, centre[k][c]));
        }
      }
  }
};

/* C pixels of each of the K rows at step @s of @rows. */
template <class T, int K, int C>
__device__ __forceinline__ void wide_pixels (
    const typename T::Word *const (&rows)[K], int s,
    typename T::Word (&pixels)[K][C])
{
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int n = 0; n < C; n++)
      pixels[k][n] = rows[k][C * s + n];
}

template <class T, bool kFold>
__global__ void __launch_bounds__ (WideShape<T, kFold>::kThreads,
    WideShape<T, kFold>::kMinBlocks) bilateral_wide (Io io, int row_begin,
    int row_end, int radius, const float *__restrict__ tables)
{
  typedef WideShape<T, kFold> Shape;
  typedef WideSums<T, kFold> Sums;
  typedef typename Sums::Entry Entry;
  constexpr int K = Shape::K;
  constexpr int C = Shape::C;
  typedef typename T::Word Word;
  extern __shared__ __align__ (16) float smem[];
  /* the block's warps are the launch's: the folded colour kernel picks its
   * blocks' height at run time */
  const int threads = blockDim.x;
  const WideGeometry<T, kFold> g (radius, threads / 32);
  float *range_lut = smem;
  int *half = reinterpret_cast<int *> (smem + g.half_offset ());
  float *factor = smem + g.factor_offset ();
  Entry *space = reinterpret_cast<Entry *> (smem + g.space_offset ());
  float *space_log2 = smem + g.space_log2_offset ();
  Word *tile = reinterpret_cast<Word *> (smem + g.tile_offset ());
  const int tid = threadIdx.x;

  /* the tables' layout (bilateral.h); the layouts that compute their
   * range weights read no table */
  const float *space_lut = tables + T::kRangeLen;
  const float *half_widths = space_lut + radius * radius + 1;
  if constexpr (kFold) {
    /* the folded tables and the row factors (bilateral.h), as they are */
    static_assert (T::kRangeLen == CBF_RANGE_LUT_LEN, "one table's length");
    const uint4 *from = reinterpret_cast<const uint4 *> (
        tables + cbf_tables_wide_fold_offset (radius));
    for (int i = tid; i < cbf_tables_wide_fold_len (radius) / 4; i += threads)
      reinterpret_cast<uint4 *> (range_lut)[i] = from[i];
  } else if constexpr (!LayoutExactRange<T>::value) {
    for (int i = tid; i < T::kRangeLen; i += threads)
      range_lut[i] = tables[i];
  }
  wide_rows<C> (radius, g.stride, half_widths, half, tid, threads,
      [&] (int i, int dx, int dy, bool in_disc) {
        if constexpr (kFold)
          space[i] = 4 * WideGeometry<T, kFold>::kFoldWords
              * (in_disc ? (dx < 0 ? -dx : dx) : radius + 1);
        else
          space[i] = in_disc ? space_lut[dx * dx + dy * dy] : 0.f;
        if constexpr (wide_computes<T> ())
          space_log2[i]
              = in_disc ? log2f (space_lut[dx * dx + dy * dy]) : -INFINITY;
      });
  /* the tile, by the border rule where it reaches past the picture */
  const int x0 = blockIdx.x * Shape::kBlockCols;
  const int y0 = row_begin + blockIdx.y * g.block_rows;
  const bool inside = x0 >= g.left && x0 - g.left + g.tile_w <= io.width
      && y0 >= radius && y0 - radius + g.tile_h <= io.height;
  for (int i = tid; i < g.tile_w * g.tile_h; i += threads) {
    const int ty = i / g.tile_w;
    const int y = y0 + ty - radius, x = x0 - g.left + i - ty * g.tile_w;
    tile[i] = inside ? T::template load<false> (io, y, x)
                     : T::template load<true> (io, io.row (y), io.col (x));
  }
  __syncthreads ();

  /* the thread's position: its warp's lanes kWarpCols across */
  const int warp = tid / 32, lane = tid % 32;
  const int tx
      = warp % Shape::kWarpsAcross * Shape::kWarpCols + lane % Shape::kWarpCols;
  const int ty
      = warp / Shape::kWarpsAcross * Shape::kWarpRows + lane / Shape::kWarpCols;
  /* the thread's first output's column of tile row 0 */
  const Word *own = tile + ty * K * g.tile_w + C * tx + g.left;
  Sums sums;
  sums.start (io, own + radius * g.tile_w, g.tile_w, range_lut);

  for (int r = 0; r <= 2 * radius; r++) {
    /* folded: from the outer rows in, the sums scaled between |dy| = k
     * and k - 1 (above) */
    int dy = r - radius;
    if constexpr (kFold) {
      const int k = radius - r / 2;
      dy = r & 1 ? k : -k;
      if (r > 0 && !(r & 1))
        sums.scale_all (factor[k + 1]);
    }
    const int hw = half[dy + radius];
    const int first = wide_first_column<C> (hw);
    const int steps = (hw + C - first) / C;
    const Entry *weights = space + (dy + radius) * g.stride;
    const float *log2_weights = space_log2 + (dy + radius) * g.stride;
    const Word *rows[K];
#pragma unroll
    for (int k = 0; k < K; k++)
      rows[k] = own + (k + radius + dy) * g.tile_w + first;
    Word pixels[K][C];
    typename Sums::Weights now, before;
    now.load (weights, log2_weights, 0, range_lut);
    wide_pixels<T> (rows, 0, pixels);
    wide_first_step<C> (-hw - first, [&] (auto pad) {
      sums.template step<decltype (pad)::value, false> (
          io, range_lut, pixels, now, now);
    });
    /* two steps an iteration: the weights carried from one step to the
     * next then need no moves */
#pragma unroll 2
    for (int s = 1; s < steps - 1; s++) {
      before = now;
      now.load (weights, log2_weights, C * s, range_lut);
      wide_pixels<T> (rows, s, pixels);
      sums.template step<-1, false> (io, range_lut, pixels, now, before);
    }
    if (steps > 1) {
      before = now;
      now.load (weights, log2_weights, C * (steps - 1), range_lut);
      wide_pixels<T> (rows, steps - 1, pixels);
      sums.template step<-1, true> (io, range_lut, pixels, now, before);
    }
  }

#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int c = 0; c < C; c++) {
      const int x = x0 + C * tx + c;
      const int y = y0 + ty * K + k;
      if (x < io.width && y < row_end)
        T::template store<false> (io, y, x, sums.sum[k][c]);
    }
}

/* Launches layout T's wide kernel, folded or not, in blocks of @warps
 * warps where its shared memory at this radius fits the current device
 * (allow_device_smem), and says so in @launched. */
template <class T, bool kFold>
cudaError_t launch_wide_kernel (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, int warps, cudaStream_t stream, bool *launched)
{
  typedef WideShape<T, kFold> Shape;
  static std::atomic<int> allowed[64];
  const WideGeometry<T, kFold> g (w->radius, warps);
  int limit = 0;
  *launched = false;
  const cudaError_t err
      = allow_device_smem (bilateral_wide<T, kFold>, allowed, &limit);
  if (err != cudaSuccess || g.smem_bytes () > limit)
    return err;
  dim3 grid ((io.width + Shape::kBlockCols - 1) / Shape::kBlockCols,
      (row_end - row_begin + g.block_rows - 1) / g.block_rows, T::kGridLayers);
  bilateral_wide<T, kFold><<<grid, 32 * warps, g.smem_bytes (), stream>>> (
      io, row_begin, row_end, w->radius, w->bilateral.tables_dev);
  *launched = true;
  return cudaSuccess;
}

/* Launches layout T's wide kernel over output rows [@row_begin, @row_end)
 * where its shared memory at this radius fits the current device
 * (allow_device_smem), and says so in @launched (the caller takes the
 * generic kernel otherwise): folded where the layout allows it, the
 * parameters have its tables and its grid is large enough
 * (kWideFoldMinWaves), or wherever it fits where the parameters ask for
 * it (wide_fold). Folded 8-bit colour takes tall blocks (its shape's warps)
 * where two of kWideFoldShape's do not fit an SM; kWideFoldShape's blocks
 * otherwise, or where the tall ones do not fit the device or make too
 * small a grid. */
template <class T>
cudaError_t launch_wide (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream, bool *launched)
{
  if constexpr (wide_folds<T> ()) {
    typedef WideShape<T, true> Shape;
    CbfDeviceFigures f;
    cudaError_t err = cbf_device_figures (&f);
    if (err != cudaSuccess)
      return err;
    /* blocks of @warps warps an SM holds by its shared memory, counted at
     * most as many as the launch bounds' registers promise */
    auto held = [&] (int warps) {
      const WideGeometry<T, true> g (w->radius, warps);
      const int fit
          = f.smem_per_sm / (g.smem_bytes () + f.smem_reserved_per_block);
      const int promised = Shape::kWarps / warps * Shape::kMinBlocks;
      return fit < promised ? fit : promised;
    };
    /* kWideFoldShape's blocks are whole rows of the shape's warps */
    static_assert (Shape::kOf.rows == kWideFoldShape.rows
            && Shape::kOf.cols == kWideFoldShape.cols
            && Shape::kOf.warp_cols == kWideFoldShape.warp_cols
            && Shape::kOf.warps_across == kWideFoldShape.warps_across
            && kWideFoldShape.warps <= Shape::kWarps
            && kWideFoldShape.warps % Shape::kWarpsAcross == 0
            && Shape::kWarps % Shape::kWarpsAcross == 0,
        "one kernel runs both heights");
    const int warps[] = { Shape::kWarps, kWideFoldShape.warps };
    const bool pairs = Shape::kWarps == kWideFoldShape.warps
        || held (kWideFoldShape.warps) >= 2;
    for (int i = pairs; i < 2; i++) {
      const int rows = Shape::block_rows (warps[i]);
      const long long blocks
          = (long long)((io.width + Shape::kBlockCols - 1) / Shape::kBlockCols)
          * ((row_end - row_begin + rows - 1) / rows) * T::kGridLayers;
      const long long per_sm = held (warps[i]);
      const bool large
          = per_sm > 0 && blocks >= kWideFoldMinWaves * per_sm * f.sms;
      if (w->radius > CBF_FAST_EXTENDED_MAX_RADIUS && w->wide_fold >= 0
          && (large || w->wide_fold > 0)) {
        err = launch_wide_kernel<T, true> (
            io, row_begin, row_end, w, warps[i], stream, launched);
        if (err != cudaSuccess || *launched)
          return err;
      }
    }
  }
  return launch_wide_kernel<T, false> (
      io, row_begin, row_end, w, WideShape<T, false>::kWarps, stream, launched);
}

} /* namespace */

#endif /* CBF_BILATERAL_WIDE_CUH */
