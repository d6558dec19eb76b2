/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Gaussian mode: a separable blur, horizontal then vertical, in one kernel
 * per layout (the layouts of the bilateral kernels, whose loads and stores
 * it shares).
 *
 * A block of 32 x 8 threads makes 32 columns x 64 rows of output; each
 * thread a column of kOutputRows outputs. The source rows the block needs
 * (its 64 and the radius above and below) are taken kChunkRows at a time:
 * every thread filters two of them horizontally into shared memory, then
 * every thread adds to each of its outputs the rows of the chunk that its
 * vertical window holds. So nothing larger than a chunk is held for any
 * radius, and no intermediate frame is written: the frame is read about
 * once (L1 serves the horizontal neighbours) and written once. The cost
 * per pixel is (64 + 2r) / 64 horizontal passes of 2r + 1 taps plus one
 * vertical pass of 2r + 1 taps: linear in the kernel size while 2r is
 * small against 64. */

#include "bilateral_kernels.cuh"
#include "gaussian.h"

namespace {

constexpr int kGaussBlockX = 32;
constexpr int kGaussBlockY = 8;
constexpr int kOutputRows = 8;
constexpr int kBlockRows = kGaussBlockY * kOutputRows;
constexpr int kChunkRows = 2 * kGaussBlockY;

/* kRadius: the radius at compile time (1 to CBF_FAST_MAX_RADIUS), or 0 for
 * any (@radius_arg). With a compile-time radius all the block's source
 * rows are one chunk and every loop is unrolled, so a thread's loads are
 * independent and in flight together; with a run-time one the tap loops
 * wait on each load in turn. */
template < class T, int kRadius >
__global__ void __launch_bounds__ (kGaussBlockX * kGaussBlockY)
gaussian_separable (Io io, int row_begin, int row_end, int radius_arg,
    const float *__restrict__ coeffs_dev)
{
  constexpr int kRows = kRadius ? kBlockRows + 2 * kRadius : kChunkRows;
  extern __shared__ float coeffs[];     /* 2 radius + 1 */
  __shared__ typename T::Value rows[kRows][kGaussBlockX];
  const int radius = kRadius ? kRadius : radius_arg;

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

  for (int c0 = src_begin; c0 < src_end; c0 += kRows) {
    const int chunk_end = kRadius ? c0 + kRows : min (c0 + kRows, src_end);
    /* Horizontal: source rows c0 + threadIdx.y and 8 below it. */
#pragma unroll
    for (int j = 0; j < (kRows + kGaussBlockY - 1) / kGaussBlockY; j++) {
      const int r = c0 + threadIdx.y + kGaussBlockY * j;
      if (r >= chunk_end)
        break;
      const int sy = reflect101 (r, io.height);
      typename T::Sum h;
      if (inside_x)
#pragma unroll
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
    if (kRadius) {
      /* One chunk: output k's window is rows k .. k + 2r of the thread's. */
#pragma unroll
      for (int k = 0; k < kOutputRows; k++)
#pragma unroll
        for (int i = 0; i <= 2 * kRadius; i++)
          T::add (sum[k], rows[threadIdx.y * kOutputRows + k + i]
              [threadIdx.x], coeffs[i]);
    } else {
#pragma unroll
      for (int k = 0; k < kOutputRows; k++) {
        const int y = first_output + k;
        const int lo = max (c0, y - radius);
        const int hi = min (chunk_end - 1, y + radius);
        for (int r = lo; r <= hi; r++)
          T::add (sum[k], rows[r - c0][threadIdx.x], coeffs[r - y + radius]);
      }
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

  dim3 block (kGaussBlockX, kGaussBlockY);
  dim3 grid ((io.width + kGaussBlockX - 1) / kGaussBlockX,
      (row_end - row_begin + kBlockRows - 1) / kBlockRows, T::kGridLayers);
  const size_t coeffs_bytes = (2 * w->radius + 1) * sizeof (float);
  switch (w->radius) {
#define CBF_GAUSSIAN_CASE(R) \
    case R: \
      gaussian_separable < T, R > <<<grid, block, coeffs_bytes, stream >>> \
          (io, row_begin, row_end, R, w->tables_dev); \
      break;
      CBF_GAUSSIAN_CASE (1) CBF_GAUSSIAN_CASE (2) CBF_GAUSSIAN_CASE (3)
      CBF_GAUSSIAN_CASE (4) CBF_GAUSSIAN_CASE (5) CBF_GAUSSIAN_CASE (6)
      CBF_GAUSSIAN_CASE (7) CBF_GAUSSIAN_CASE (8)
#undef CBF_GAUSSIAN_CASE
    default:
      gaussian_separable < T, 0 > <<<grid, block, coeffs_bytes, stream >>>
          (io, row_begin, row_end, w->radius, w->tables_dev);
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
