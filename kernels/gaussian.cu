/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Gaussian mode: a separable blur, horizontal then vertical, one launch per
 * pass of the frame plan, in two kernels that share the bilateral kernels'
 * pixel layouts (their loads and stores).
 *
 * Radius 1 to 8 (kernel size up to 17), gaussian_columns: a block of 32 x 8
 * threads makes 32 columns x 32 or 64 rows of output and first copies its
 * source pixels (with the halo) into shared memory, read from the frame once
 * and converted to float once. Each thread then owns a column of 4 or 8
 * outputs (column_rows): it filters their source rows horizontally, one at
 * a time, and adds each result at once to the outputs whose vertical window
 * holds it, so the intermediate never leaves registers and there is one
 * barrier. The radius is a template parameter: every loop is unrolled,
 * every coefficient a register. The horizontal pass is done
 * (rows + 2r) / rows times per output row; versions and their times are in
 * docs/performance-notes.md.
 *
 * Any radius, gaussian_chunked: the block's source rows go 16 at a time
 * through shared memory, filtered horizontally by all threads (loads through
 * L1), then added to the outputs vertically, so nothing larger than a chunk
 * is held for any kernel size and no intermediate frame is written. */

#include "bilateral_kernels.cuh"
#include "gaussian.h"

namespace {

constexpr int kGaussBlockX = 32;
constexpr int kGaussBlockY = 8;
constexpr int kOutputRows = 8;
constexpr int kBlockRows = kGaussBlockY * kOutputRows;
constexpr int kChunkRows = 2 * kGaussBlockY;

template < class T >
__global__ void __launch_bounds__ (kGaussBlockX * kGaussBlockY)
gaussian_chunked (Io io, int row_begin, int row_end, int radius,
    const float *__restrict__ coeffs_dev)
{
  extern __shared__ float coeffs[];     /* 2 radius + 1 */
  __shared__ typename T::Value rows[kChunkRows][kGaussBlockX];

  const int tid = threadIdx.y * kGaussBlockX + threadIdx.x;
  for (int i = tid; i <= 2 * radius; i += kGaussBlockX * kGaussBlockY)
    coeffs[i] = coeffs_dev[i];

  const int x0 = blockIdx.x * kGaussBlockX;
  const int x = x0 + threadIdx.x;
  /* Threads right of the picture filter its last column, unused, so that
   * every thread reaches the barriers. */
  const int xs = min (x, io.width - 1);
  const bool inside_x = x0 >= radius &&
      x0 + kGaussBlockX - 1 + radius < io.width;
  const int y0 = row_begin + blockIdx.y * kBlockRows;
  const int first_output = y0 + threadIdx.y * kOutputRows;
  const int src_begin = y0 - radius;
  const int src_end = min (y0 + kBlockRows, row_end) + radius;
  typename T::Sum sum[kOutputRows];
  __syncthreads ();

  for (int c0 = src_begin; c0 < src_end; c0 += kChunkRows) {
    const int chunk_end = min (c0 + kChunkRows, src_end);
    /* Horizontal: source rows c0 + threadIdx.y and 8 below it. */
#pragma unroll
    for (int j = 0; j < kChunkRows / kGaussBlockY; j++) {
      const int r = c0 + threadIdx.y + kGaussBlockY * j;
      if (r >= chunk_end)
        break;
      const int sy = reflect101 (r, io.height);
      typename T::Sum h;
      if (inside_x)
        for (int dx = -radius; dx <= radius; dx++)
          T::add (h, T::template unpack < false > (T::load (io, sy, xs + dx)),
              coeffs[dx + radius]);
      else
        for (int dx = -radius; dx <= radius; dx++)
          T::add (h, T::template unpack < false > (T::load (io, sy,
                      reflect101 (xs + dx, io.width))), coeffs[dx + radius]);
      rows[r - c0][threadIdx.x] = T::value (h);
    }
    __syncthreads ();
    /* Vertical: the chunk's rows in each output's window. */
#pragma unroll
    for (int k = 0; k < kOutputRows; k++) {
      const int y = first_output + k;
      const int lo = max (c0, y - radius);
      const int hi = min (chunk_end - 1, y + radius);
      for (int r = lo; r <= hi; r++)
        T::add (sum[k], rows[r - c0][threadIdx.x], coeffs[r - y + radius]);
    }
    __syncthreads ();
  }

  if (x >= io.width)
    return;
#pragma unroll
  for (int k = 0; k < kOutputRows; k++) {
    const int y = first_output + k;
    /* The vertical weights' sum divides (it is 1 up to rounding), as the
     * bilateral's weight sum does. */
    if (y < row_end)
      T::template store < false > (io, y, x, sum[k]);
  }
}

/* Output rows per thread, and blocks per SM (a register cap), by radius:
 * the horizontal pass is done (rows + 2r) / rows times per output row, so
 * larger radii want more rows; small ones gain more from occupancy (4K
 * RGBA on an H100: d = 5 0.072 -> 0.067 ms with 4 rows and 5 blocks, d = 15
 * 0.168 -> 0.231 ms, so 8 rows and 3 blocks from radius 3 on). */
template < int R > __host__ __device__ constexpr int column_rows ()
{
  return R <= 2 ? 4 : 8;
}

template < int R > __host__ __device__ constexpr int column_min_blocks ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  /* GPUs before Ampere hold at most 1024 threads an SM (sm_75). */
  return R <= 2 ? 4 : 3;
#else
  return R <= 2 ? 5 : 3;
#endif
}

template < class T, int R >
__global__ void __launch_bounds__ (kGaussBlockX * kGaussBlockY,
    column_min_blocks < R > ())
gaussian_columns (Io io, int row_begin, int row_end,
    const float *__restrict__ coeffs_dev)
{
  constexpr int kColumnRows = column_rows < R > ();
  constexpr int kColumnBlockRows = kGaussBlockY * kColumnRows;
  constexpr int kTileW = kGaussBlockX + 2 * R;
  constexpr int kTileH = kColumnBlockRows + 2 * R;
  /* Channels as floats: each pixel is read 2r + 1 times, converted once. */
  __shared__ typename T::Value tile[kTileW * kTileH];
  __shared__ float coeffs_shared[2 * R + 1];

  const int tid = threadIdx.y * kGaussBlockX + threadIdx.x;
  const int x0 = blockIdx.x * kGaussBlockX;
  const int y0 = row_begin + blockIdx.y * kColumnBlockRows;
  if (tid <= 2 * R)
    coeffs_shared[tid] = coeffs_dev[tid];
  load_tile < T, kTileW, kTileH, R, kGaussBlockX * kGaussBlockY > (tile, io,
      x0, y0, tid);
  __syncthreads ();

  float coeffs[2 * R + 1];
#pragma unroll
  for (int i = 0; i <= 2 * R; i++)
    coeffs[i] = coeffs_shared[i];
  /* Source row s of the thread (0 = r rows above its first output), column
   * dx = 0. */
  const typename T::Value *col = tile + threadIdx.y * kColumnRows * kTileW +
      threadIdx.x + R;
  typename T::Sum sum[kColumnRows];
#pragma unroll
  for (int s = 0; s < kColumnRows + 2 * R; s++) {
    typename T::Sum h;
#pragma unroll
    for (int dx = -R; dx <= R; dx++)
      T::add (h, col[s * kTileW + dx], coeffs[dx + R]);
    const typename T::Value v = T::value (h);
    /* Output k's window is source rows k .. k + 2r. */
#pragma unroll
    for (int k = 0; k < kColumnRows; k++)
      if (s - k >= 0 && s - k <= 2 * R)
        T::add (sum[k], v, coeffs[s - k]);
  }

  const int x = x0 + threadIdx.x;
  if (x >= io.width)
    return;
#pragma unroll
  for (int k = 0; k < kColumnRows; k++) {
    const int y = y0 + threadIdx.y * kColumnRows + k;
    if (y < row_end)
      T::template store < false > (io, y, x, sum[k]);
  }
}

template < class T >
cudaError_t launch_gaussian (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w,
    cudaStream_t stream)
{
  Io io;
  cudaError_t err = make_io < T > (src, dst, row_begin, row_end, &io);
  if (err != cudaSuccess)
    return err;
  if (w->radius < 0 || w->radius > CBF_GAUSSIAN_MAX_KSIZE / 2)
    return cudaErrorInvalidValue;

  const dim3 block (kGaussBlockX, kGaussBlockY);
  const unsigned grid_x = (io.width + kGaussBlockX - 1) / kGaussBlockX;
  const int rows = row_end - row_begin;
  switch (w->radius) {
#define CBF_GAUSSIAN_CASE(R) \
    case R: \
      gaussian_columns < T, R > <<<dim3 (grid_x, (rows + \
                  kGaussBlockY * column_rows < R > () - 1) / \
              (kGaussBlockY * column_rows < R > ()), T::kGridLayers), \
          block, 0, stream >>> (io, row_begin, row_end, w->tables_dev); \
      break;
      CBF_GAUSSIAN_CASE (1) CBF_GAUSSIAN_CASE (2) CBF_GAUSSIAN_CASE (3)
      CBF_GAUSSIAN_CASE (4) CBF_GAUSSIAN_CASE (5) CBF_GAUSSIAN_CASE (6)
      CBF_GAUSSIAN_CASE (7) CBF_GAUSSIAN_CASE (8)
#undef CBF_GAUSSIAN_CASE
    default:
      gaussian_chunked < T > <<<dim3 (grid_x,
              (rows + kBlockRows - 1) / kBlockRows, T::kGridLayers), block,
          (2 * w->radius + 1) * sizeof (float), stream >>> (io, row_begin,
          row_end, w->radius, w->tables_dev);
  }
  return cudaGetLastError ();
}

}                               /* namespace */

CBF_ENTRY (cbf_gaussian_channel, launch_gaussian, Channels < 1 >)
CBF_ENTRY (cbf_gaussian_channel_pair, launch_gaussian, Channels < 2 >)
CBF_ENTRY (cbf_gaussian_colour_first, launch_gaussian, Colour32 < 0 >)
CBF_ENTRY (cbf_gaussian_colour_last, launch_gaussian, Colour32 < 1 >)
CBF_ENTRY (cbf_gaussian_colour_packed24, launch_gaussian, Colour24)
CBF_ENTRY (cbf_gaussian_colour_planar, launch_gaussian, ColourPlanar)
