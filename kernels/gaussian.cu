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
 * what-was-tried.md ("Gaussian", "Streaming kernels").
 *
 * RGBA-like frames at radius 1 and 2, gaussian_stream: no shared memory,
 * each thread walks four adjacent pixels down a strip of rows with the
 * window's horizontal results in registers (described at the kernel).
 *
 * Any radius, gaussian_chunked: the block's source rows go 16 at a time
 * through shared memory, filtered horizontally by all threads (loads through
 * L1), then added to the outputs vertically, so nothing larger than a chunk
 * is held for any kernel size and no intermediate frame is written. */

#include "stream.cuh"
#include "gaussian.h"

namespace {

/* Deep layouts ask for two blocks an SM: left to itself, ptxas held the
 * deep one-channel pair (whose load masks the sample to its depth) to 40
 * or 48 registers and spilled one. */
template <class T>
__global__ void __launch_bounds__ (kGaussBlockX *kGaussBlockY, T::kDeep ? 2 : 1)
    gaussian_chunked (Io io, int row_begin, int row_end, int radius,
        const float *__restrict__ coeffs_dev)
{
  extern __shared__ float coeffs[]; /* 2 radius + 1 */
  __shared__ typename T::Value rows[kGaussChunkRows][kGaussBlockX];

  const int tid = threadIdx.y * kGaussBlockX + threadIdx.x;
  for (int i = tid; i <= 2 * radius; i += kGaussBlockX * kGaussBlockY)
    coeffs[i] = coeffs_dev[i];

  const int x0 = blockIdx.x * kGaussBlockX;
  const int x = x0 + threadIdx.x;
  /* Threads right of the picture filter its last column, unused, so that
   * every thread reaches the barriers. */
  const int xs = min (x, io.width - 1);
  const bool inside_x
      = x0 >= radius && x0 + kGaussBlockX - 1 + radius < io.width;
  const int y0 = row_begin + blockIdx.y * kGaussBlockRows;
  const int first_output = y0 + threadIdx.y * kGaussOutputRows;
  const int src_begin = y0 - radius;
  const int src_end = min (y0 + kGaussBlockRows, row_end) + radius;
  typename T::Sum sum[kGaussOutputRows];
  __syncthreads ();

  for (int c0 = src_begin; c0 < src_end; c0 += kGaussChunkRows) {
    const int chunk_end = min (c0 + kGaussChunkRows, src_end);
    /* Horizontal: source rows c0 + threadIdx.y and 8 below it. */
#pragma unroll
    for (int j = 0; j < kGaussChunkRows / kGaussBlockY; j++) {
      const int r = c0 + threadIdx.y + kGaussBlockY * j;
      if (r >= chunk_end)
        break;
      const int sy = io.row (r);
      typename T::Sum h;
      if (inside_x && sy >= 0)
        for (int dx = -radius; dx <= radius; dx++)
          T::add (h, T::template unpack<false> (T::load (io, sy, xs + dx)),
              coeffs[dx + radius]);
      else
        for (int dx = -radius; dx <= radius; dx++)
          T::add (h,
              T::template unpack<false> (
                  T::template load<true> (io, sy, io.col (xs + dx))),
              coeffs[dx + radius]);
      rows[r - c0][threadIdx.x] = T::value (h);
    }
    __syncthreads ();
    /* Vertical: the chunk's rows in each output's window. */
#pragma unroll
    for (int k = 0; k < kGaussOutputRows; k++) {
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
  for (int k = 0; k < kGaussOutputRows; k++) {
    const int y = first_output + k;
    /* The vertical weights' sum divides (it is 1 up to rounding), as the
     * bilateral's weight sum does. */
    if (y < row_end)
      T::template store<false> (io, y, x, sum[k]);
  }
}

/* Output rows per thread, and blocks per SM (a register cap), by radius:
 * the horizontal pass is done (rows + 2r) / rows times per output row, so
 * larger radii want more rows; small ones gain more from occupancy: 4
 * rows and 5 blocks were faster at radius 2 and slower at radius 7, so 8
 * rows and 3 blocks from radius 3 on (what-was-tried.md, "Gaussian"). */
template <int R> __host__ __device__ constexpr int column_rows ()
{
  return R <= 2 ? 4 : 8;
}

template <int R> __host__ __device__ constexpr int column_min_blocks ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  /* GPUs before Ampere hold at most 1024 threads an SM (sm_75). */
  return R <= 2 ? 4 : 3;
#else
  return R <= 2 ? 5 : 3;
#endif
}

template <class T, int R>
__global__ void __launch_bounds__ (kGaussBlockX *kGaussBlockY,
    column_min_blocks<R> ()) gaussian_columns (Io io, int row_begin,
    int row_end, const float *__restrict__ coeffs_dev)
{
  constexpr int kColumnRows = column_rows<R> ();
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
  load_tile_flat<T, kTileW, kTileH, R, kGaussBlockX * kGaussBlockY> (
      tile, io, x0, y0, tid);
  __syncthreads ();

  float coeffs[2 * R + 1];
#pragma unroll
  for (int i = 0; i <= 2 * R; i++)
    coeffs[i] = coeffs_shared[i];
  /* Source row s of the thread (0 = r rows above its first output), column
   * dx = 0. */
  const typename T::Value *col
      = tile + threadIdx.y * kColumnRows * kTileW + threadIdx.x + R;
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
      T::template store<false> (io, y, x, sum[k]);
  }
}

/* RGBA-like frames (32-bit pixels), radius 1 and 2 (kernel sizes 3 and 5):
 * gaussian_stream. At these sizes the tiled kernel above spends most of its
 * time in the shared-memory pipe (each tap of the horizontal pass is three
 * shared loads, for one FMA each) rather than on memory. Here nothing goes
 * through shared memory and there is no barrier: each thread owns four
 * adjacent pixels (one 16-byte word) and walks down a strip of rows. A
 * source row is read once (the 16-byte word, and the two pixels each side
 * as 8-byte words, which its neighbours read too, so they come from L1),
 * converted once, filtered horizontally into a ring of the last 2r + 1
 * rows held in registers, and each output row is the ring's weighted sum.
 * The ring's slots are fixed at compile time by unrolling the row loop by
 * the window; each row is loaded two rows before it is filtered (and asked
 * into L2 four rows before), to overlap memory latency with arithmetic.
 * The arithmetic and rounding are those of gaussian_columns: the horizontal
 * sums unnormalised, the result divided by the vertical coefficients' sum.
 * The strip height adapts to the launch (stream_strip_rows); the shapes
 * are in tunables.cuh. */

template <int kFirst, int R>
__global__ void __launch_bounds__ (kGaussStreamThreads, kGaussStreamMinBlocks)
    gaussian_stream (Io io, int row_begin, int row_end, int strip_rows,
        const float *__restrict__ coeffs_dev)
{
  using Value = Color::Value;
  constexpr int kWindow = 2 * R + 1;
  constexpr uint32_t kColorMask = Color32<kFirst>::kColorMask;

  const int x
      = (blockIdx.x * kGaussStreamThreads + threadIdx.x) * kStreamPixels;
  if (x >= io.width)
    return;
  const int y_begin = row_begin + blockIdx.y * strip_rows;
  const int y_end = min (y_begin + strip_rows, row_end);
  const bool inside = stream_inside (io, x);

  float c[kWindow];
  float weight_sum = 0.f;
#pragma unroll
  for (int i = 0; i < kWindow; i++) {
    c[i] = __ldg (coeffs_dev + i);
    weight_sum += c[i];
  }
  const float inv = 1.f / weight_sum;

  Value ring[kWindow][kStreamPixels];
  int s = y_begin - R;
  const int s_end = y_end + R;
  /* Source rows in slots of the window's length, row s + a in slot
   * (j + a) mod window: rows are loaded kAhead steps before their use into
   * slots fixed at compile time, so no register holding a load in flight is
   * ever copied (a copy would wait for the load). */
  constexpr int kAhead
      = kGaussStreamAhead < kWindow ? kGaussStreamAhead : kWindow - 1;
  StreamWords<R> raw[kWindow];
#pragma unroll
  for (int a = 0; a < kAhead; a++)
    if (s + a < s_end)
      raw[a] = stream_load<R> (io, s + a, x, inside);
  while (s < s_end) {
#pragma unroll
    for (int j = 0; j < kWindow; j++, s++) {
      if (s >= s_end)
        break;
      /* Output row s - r's own words, for the byte each pixel copies
       * through: taken before this step's load may reuse their slot. */
      uint32_t src[kStreamPixels];
#pragma unroll
      for (int p = 0; p < kStreamPixels; p++)
        src[p] = raw[(j + kWindow - R) % kWindow].w[R + p];
      if (s + kAhead < s_end)
        raw[(j + kAhead) % kWindow]
            = stream_load<R> (io, s + kAhead, x, inside);
      const StreamWords<R> &row = raw[j];
      if (kGaussStreamPrefetch > 0 && s + kGaussStreamPrefetch < s_end)
        prefetch_l2 (io.in<4> (0, io.row (s + kGaussStreamPrefetch), x));

      Value v[kStreamPixels + 2 * R];
#pragma unroll
      for (int k = 0; k < kStreamPixels + 2 * R; k++)
        v[k] = stream_color<kFirst> (row.w[k]);
#pragma unroll
      for (int p = 0; p < kStreamPixels; p++) {
        Value h{ 0.f, 0.f, 0.f };
#pragma unroll
        for (int d = 0; d < kWindow; d++) {
          h.c0 += c[d] * v[p + d].c0;
          h.c1 += c[d] * v[p + d].c1;
          h.c2 += c[d] * v[p + d].c2;
        }
        ring[j][p] = h;
      }

      const int y = s - R;
      if (y < y_begin)
        continue;
      /* Rows y - r .. y + r are in slots j + 1 .. j + 2r + 1 (mod window). */
      uint32_t out[kStreamPixels];
#pragma unroll
      for (int p = 0; p < kStreamPixels; p++) {
        Value o{ 0.f, 0.f, 0.f };
#pragma unroll
        for (int d = 0; d < kWindow; d++) {
          const Value &r = ring[(j + 1 + d) % kWindow][p];
          o.c0 += c[d] * r.c0;
          o.c1 += c[d] * r.c1;
          o.c2 += c[d] * r.c2;
        }
        const uint32_t color = (uint32_t)__float2int_rn (o.c0 * inv)
            | ((uint32_t)__float2int_rn (o.c1 * inv) << 8)
            | ((uint32_t)__float2int_rn (o.c2 * inv) << 16);
        out[p] = (color << (8 * kFirst)) | (src[p] & ~kColorMask);
      }
      stream_store (io, y, x, inside, out);
    }
  }
}

/* Launches gaussian_stream where it serves: a 32-bit colour layout, radius
 * 1 or 2, and rows whose 16-byte words are aligned. */
template <class T>
bool launch_stream (const Io &io, const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, int radius, const float *coeffs_dev,
    cudaStream_t stream)
{
  /* Not with the temporal filter: its state's read and blend in the
   * strip's loop made ptxas spill at radius 2 (sm_75 to sm_89); the
   * column kernel applies it. */
  if (!stream_serves<T> (src, dst, io.border) || radius < 1
      || radius > kGaussStreamMaxRadius || io.state[0])
    return false;
  const int pixels_a_block = kGaussStreamThreads * kStreamPixels;
  const int blocks_x = (io.width + pixels_a_block - 1) / pixels_a_block;
  const int rows = row_end - row_begin;
  const int strip_rows
      = stream_strip_rows (blocks_x * (kGaussStreamThreads / 32), rows,
          kGaussStreamRows, kGaussStreamMinBlocks * kGaussStreamThreads / 32);
  const dim3 grid (blocks_x, (rows + strip_rows - 1) / strip_rows);
  constexpr int kFirst = StreamLayout<T>::kFirst;
  if (radius == 1)
    gaussian_stream<kFirst, 1><<<grid, kGaussStreamThreads, 0, stream>>> (
        io, row_begin, row_end, strip_rows, coeffs_dev);
  else
    gaussian_stream<kFirst, 2><<<grid, kGaussStreamThreads, 0, stream>>> (
        io, row_begin, row_end, strip_rows, coeffs_dev);
  return true;
}

template <class T>
cudaError_t launch_gaussian (const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, const CbfFilterParams *w, cudaStream_t stream)
{
  Io io;
  cudaError_t err = make_io<T> (src, dst, row_begin, row_end, w, &io);
  if (err != cudaSuccess)
    return err;
  if (w->radius < 0 || w->radius > CBF_GAUSSIAN_MAX_KSIZE / 2)
    return cudaErrorInvalidValue;

  if (launch_stream<T> (io, src, dst, row_begin, row_end, w->radius,
          w->gaussian.coeffs_dev, stream))
    return cudaGetLastError ();

  const dim3 block (kGaussBlockX, kGaussBlockY);
  const unsigned grid_x = (io.width + kGaussBlockX - 1) / kGaussBlockX;
  const int rows = row_end - row_begin;
  /* Radius 0 (kernel size 1, the input itself: what the temporal filter
   * takes where the bilateral filter passes a plane through), every
   * layout: the column kernel, whose radius is a constant. */
  if (w->radius == 0) {
    gaussian_columns<T, 0><<<dim3 (grid_x,
                                 (rows + kGaussBlockY * column_rows<0> () - 1)
                                     / (kGaussBlockY * column_rows<0> ()),
                                 T::kGridLayers),
        block, 0, stream>>> (io, row_begin, row_end, w->gaussian.coeffs_dev);
    return cudaGetLastError ();
  }
  /* Deep layouts take the chunked kernel at every other radius: a kernel
   * a radius for each of them would add more machine code than their
   * speed is worth (no target asks for it). */
  if constexpr (!T::kDeep) {
    switch (w->radius) {
#define CBF_GAUSSIAN_CASE(R)                                                   \
  case R:                                                                      \
    gaussian_columns<T, R><<<dim3 (grid_x,                                     \
                                 (rows + kGaussBlockY * column_rows<R> () - 1) \
                                     / (kGaussBlockY * column_rows<R> ()),     \
                                 T::kGridLayers),                              \
        block, 0, stream>>> (io, row_begin, row_end, w->gaussian.coeffs_dev);  \
    return cudaGetLastError ();
      CBF_EACH_FAST_RADIUS (CBF_GAUSSIAN_CASE)
#undef CBF_GAUSSIAN_CASE
    default:
      break;
    }
  }
  gaussian_chunked<T>
      <<<dim3 (grid_x, (rows + kGaussBlockRows - 1) / kGaussBlockRows,
             T::kGridLayers),
          block, (2 * w->radius + 1) * sizeof (float), stream>>> (
          io, row_begin, row_end, w->radius, w->gaussian.coeffs_dev);
  return cudaGetLastError ();
}

} /* namespace */

/* The entries, one per layout of bilateral.h's tables. */
#define CBF_GAUSSIAN_ENTRY(filter, layout, Layout)                             \
  CBF_ENTRY (cbf_##filter##_##layout, launch_gaussian, Layout)
CBF_LAYOUTS_8BIT (CBF_GAUSSIAN_ENTRY, gaussian)
CBF_LAYOUTS_DEEP (CBF_GAUSSIAN_ENTRY, gaussian)
#undef CBF_GAUSSIAN_ENTRY
