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
 * the range table's length are the layout's). It keeps the specialised kernels'
 * register reuse — each thread computes K rows of C adjacent outputs, so
 * that every tile pixel it loads serves K x C outputs — with the radius
 * known only at run time: one kernel a layout serves all these radii,
 * where a template per radius would multiply the fatbinary.
 *
 * The window is walked source row by source row; a row's columns span the
 * widest of the K output rows' half widths (the square's corners are
 * skipped), C columns a step, each step one vector load of C tile pixels.
 * A tap's weight is its spatial weight times its range weight, the
 * generic kernel's arithmetic (the specialised kernels' per-class tables
 * of both would not fit in shared memory at these radii). The spatial
 * weights come from a table each block builds in shared memory, indexed
 * by the tap's row and column relative to the thread and zero outside the
 * disc, so that outputs whose windows miss a loaded pixel weigh it by zero
 * without a test. Every thread of a warp reads the same weights (one
 * broadcast load of C for each of the K output rows a step); output
 * column c's weight at source column j is output column 0's at column
 * j - c, carried in registers from the step before. Values are exact and
 * sums are floats, as in the generic kernel. */

#ifndef CBF_BILATERAL_WIDE_CUH
#define CBF_BILATERAL_WIDE_CUH

#include "layouts.cuh"

namespace {

/* The shape of layout T's wide kernel (tunables.cuh). */
template <class T> struct WideShape
{
  static constexpr WideShapeOf kOf = wide_shape (!T::kClassWeights);
  static constexpr int kRows = kOf.rows;
  static constexpr int kCols = kOf.cols;
  static constexpr int kBlockY = kOf.block_rows;
  static constexpr int kThreads = 32 * kBlockY;
  static constexpr int kMinBlocks = kOf.min_blocks;
  static_assert (kCols == 1 || kCols == 2 || kCols == 4, "one vector load");
};

__host__ __device__ constexpr int wide_round4 (int n)
{
  return (n + 3) / 4 * 4;
}

/* A block's shared memory at run-time radius @radius, in 32-bit words:
 * the range table, the half widths, the padded spatial table and the
 * tile, each a multiple of four words so that the next starts 16-byte
 * aligned. The tile's column t is picture column x0 - half_span + t, and
 * half_span, the radius rounded up to four, keeps a thread's first column
 * aligned for its vector loads. The spatial table's entry (u, v) is the
 * weight of the tap C columns and K - 1 rows padded around the disc:
 * dy = u - (K - 1) - radius, dx = v - C - half_span. */
template <class T> struct WideGeometry
{
  typedef WideShape<T> Shape;
  static constexpr int K = Shape::kRows;
  static constexpr int C = Shape::kCols;
  int radius, half_span, space_w, space_h, tile_w, tile_h;

  __host__ __device__ explicit WideGeometry (int r)
      : radius (r), half_span (wide_round4 (r)),
        /* widest column read: the last step's last, C - 1 past the
         * rightmost output's half width */
        space_w (wide_round4 (half_span + r + 3 * C)),
        space_h (2 * r + 2 * K - 1),
        tile_w (wide_round4 (32 * C + 2 * half_span + C)),
        tile_h (Shape::kBlockY * K + 2 * r)
  {}
  __host__ __device__ int half_widths_offset () const
  {
    return T::kRangeLen;
  }
  __host__ __device__ int space_offset () const
  {
    return half_widths_offset () + wide_round4 (radius + 1);
  }
  __host__ __device__ int tile_offset () const
  {
    return space_offset () + wide_round4 (space_w * space_h);
  }
  __host__ __device__ int smem_bytes () const
  {
    return tile_offset () * 4
        + tile_w * tile_h * (int)sizeof (typename T::Word);
  }
};

template <class T>
__global__ void __launch_bounds__ (
    WideShape<T>::kThreads, WideShape<T>::kMinBlocks) bilateral_wide (Io io,
    int row_begin, int row_end, int radius, const float *__restrict__ tables)
{
  typedef WideShape<T> Shape;
  constexpr int K = Shape::kRows;
  constexpr int C = Shape::kCols;
  extern __shared__ __align__ (16) float smem[];
  const WideGeometry<T> g (radius);
  const int half_span = g.half_span, space_w = g.space_w, tile_w = g.tile_w;
  float *range_lut = smem;
  int *half_width = reinterpret_cast<int *> (smem + g.half_widths_offset ());
  float *space = smem + g.space_offset ();
  typedef typename T::Word Word;
  Word *tile = reinterpret_cast<Word *> (smem + g.tile_offset ());

  const int tid = threadIdx.y * 32 + threadIdx.x;
  /* the tables' layout (bilateral.h) */
  const float *space_lut = tables + T::kRangeLen;
  const float *half_widths = space_lut + radius * radius + 1;
  for (int i = tid; i < T::kRangeLen; i += Shape::kThreads)
    range_lut[i] = tables[i];
  for (int i = tid; i <= radius; i += Shape::kThreads)
    half_width[i] = (int)half_widths[i];
  for (int i = tid; i < space_w * g.space_h; i += Shape::kThreads) {
    const int dy = i / space_w - (K - 1) - radius;
    const int dx = i % space_w - C - half_span;
    const int d2 = dx * dx + dy * dy;
    space[i] = d2 <= radius * radius ? space_lut[d2] : 0.f;
  }
  const int x0 = blockIdx.x * 32 * C;
  const int y0 = row_begin + blockIdx.y * Shape::kBlockY * K;
  for (int ty = threadIdx.y; ty < g.tile_h; ty += Shape::kBlockY) {
    const int sy = io.row (y0 + ty - radius);
    for (int tx = threadIdx.x; tx < tile_w; tx += 32)
      tile[ty * tile_w + tx]
          = T::template load<true> (io, sy, io.col (x0 + tx - half_span));
  }
  __syncthreads ();

  /* the thread's tile column 0 (half_span left of its first output) of
   * source row 0 (radius rows above it) */
  const Word *col = tile + threadIdx.y * K * tile_w + C * threadIdx.x;
  Word centre[K][C];
  typename T::Sum sum[K][C];
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int c = 0; c < C; c++)
      centre[k][c] = col[(k + radius) * tile_w + half_span + c];

  for (int s = 0; s < 2 * radius + K; s++) {
    /* the output row nearest to source row s sets its half width */
    const int dy_top = s - radius - (K - 1), dy_bottom = s - radius;
    const int nearest = dy_bottom < 0 ? -dy_bottom : dy_top > 0 ? dy_top : 0;
    const int hw = half_width[nearest];
    const int first = (half_span - hw) & -C;
    const int last = half_span + hw + C - 1;
    const Word *row = col + s * tile_w;
    /* output row k's spatial weights at column 0 of the table's row for
     * dy = s - radius - k */
    const float *weights = space + (s + K - 1) * space_w + C;
    float before[K][C], now[K][C];
#pragma unroll
    for (int k = 0; k < K; k++)
      wide_load<C> (weights - k * space_w + first - C, before[k]);
      /* two steps an iteration: the loop's count and the carried weights'
     * moves serve twice the taps */
#pragma unroll 2
    for (int j = first; j <= last; j += C) {
      Word pixels[C];
      wide_load<C> (row + j, pixels);
#pragma unroll
      for (int k = 0; k < K; k++)
        wide_load<C> (weights - k * space_w + j, now[k]);
#pragma unroll
      for (int n = 0; n < C; n++) {
        const Word p = pixels[n];
        const typename T::Value value = T::template unpack<false> (p);
#pragma unroll
        for (int k = 0; k < K; k++)
#pragma unroll
          for (int c = 0; c < C; c++) {
            const float spatial = n >= c ? now[k][n - c] : before[k][C + n - c];
            T::add (sum[k][c], value,
                spatial * range_weight<T> (io, range_lut, p, centre[k][c]));
          }
      }
#pragma unroll
      for (int k = 0; k < K; k++)
#pragma unroll
        for (int c = 0; c < C; c++)
          before[k][c] = now[k][c];
    }
  }

#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int c = 0; c < C; c++) {
      const int x = x0 + C * threadIdx.x + c;
      const int y = y0 + threadIdx.y * K + k;
      if (x < io.width && y < row_end)
        T::template store<false> (io, y, x, sum[k][c]);
    }
}

/* Launches layout T's wide kernel over output rows [@row_begin, @row_end)
 * where its shared memory at this radius fits the current device
 * (allow_device_smem), and says so in @launched (the caller takes the
 * generic kernel otherwise). */
template <class T>
cudaError_t launch_wide (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream, bool *launched)
{
  typedef WideShape<T> Shape;
  static std::atomic<int> allowed[64];
  const WideGeometry<T> g (w->radius);
  int limit = 0;
  *launched = false;
  const cudaError_t err
      = allow_device_smem (bilateral_wide<T>, allowed, &limit);
  if (err != cudaSuccess || g.smem_bytes () > limit)
    return err;
  constexpr int rows_per_block = Shape::kBlockY * Shape::kRows;
  constexpr int columns_per_block = 32 * Shape::kCols;
  dim3 block (32, Shape::kBlockY);
  dim3 grid ((io.width + columns_per_block - 1) / columns_per_block,
      (row_end - row_begin + rows_per_block - 1) / rows_per_block,
      T::kGridLayers);
  bilateral_wide<T><<<grid, block, g.smem_bytes (), stream>>> (
      io, row_begin, row_end, w->radius, w->bilateral.tables_dev);
  *launched = true;
  return cudaSuccess;
}

} /* namespace */

#endif /* CBF_BILATERAL_WIDE_CUH */
