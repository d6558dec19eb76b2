/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The generic bilateral kernel, any radius: one thread per output pixel,
 * tile and tables in shared memory (or the source read through L1 for
 * very large radii), taps walked at run time. */

#ifndef CBF_BILATERAL_GENERIC_CUH
#define CBF_BILATERAL_GENERIC_CUH

#include "layouts.cuh"

namespace {

/* ------------------------------------------------------------------ */
/* The generic kernel: the same layouts, one output pixel per thread, taps
 * walked at run time. */

template <class T, bool kTiled>
__global__ void __launch_bounds__ (kBlockW *kBlockH,
    sizeof (typename T::Word) > 4 ? kGenericWideWordMinBlocks
                                  : kGenericMinBlocks) bilateral_generic (Io io,
    int row_begin, int row_end, int radius, const float *__restrict__ tables)
{
  extern __shared__ float smem[];

  const int tid = threadIdx.y * kBlockW + threadIdx.x;
  const int n_threads = kBlockW * kBlockH;
  /* The tiled path keeps all tables in shared memory; the large-radius path
   * only the range table (its space table can be 360 KiB). */
  const int n_shared_tables
      = kTiled ? generic_tables_len<T> (radius) : T::kRangeLen;
  for (int i = tid; i < n_shared_tables; i += n_threads)
    smem[i] = tables[i];
  const float *range_lut = smem;
  const float *space_lut = (kTiled ? smem : tables) + T::kRangeLen;
  const float *half_width = space_lut + radius * radius + 1;

  const int x0 = blockIdx.x * kBlockW;
  const int y0 = row_begin + blockIdx.y * kBlockH;
  const int tile_w = kBlockW + 2 * radius;
  typedef typename T::Word Word;
  Word *tile = reinterpret_cast<Word *> (smem + n_shared_tables);
  if (kTiled) {
    const int tile_h = kBlockH + 2 * radius;
    for (int i = tid; i < tile_w * tile_h; i += n_threads) {
      int ty = i / tile_w, tx = i - ty * tile_w;
      tile[i] = T::template load<true> (
          io, io.row (y0 + ty - radius), io.col (x0 + tx - radius));
    }
  }
  __syncthreads ();

  const int x = x0 + threadIdx.x;
  const int y = y0 + threadIdx.y;
  if (x >= io.width || y >= row_end)
    return;

  const Word centre = T::load (io, y, x);
  typename T::Sum sum;
  for (int dy = -radius; dy <= radius; dy++) {
    const int hw = (int)half_width[dy < 0 ? -dy : dy];
    const Word *tile_row
        = tile + (threadIdx.y + radius + dy) * tile_w + threadIdx.x + radius;
    const int sy = io.row (y + dy);
    for (int dx = -hw; dx <= hw; dx++) {
      const Word p = kTiled ? tile_row[dx]
                            : T::template load<true> (io, sy, io.col (x + dx));
      const float w = space_lut[dy * dy + dx * dx]
          * range_weight<T> (io, range_lut, p, centre);
      T::add (sum, T::template unpack<false> (p), w);
    }
  }
  T::template store<false> (io, y, x, sum);
}

/* The Io of a bilateral launch, after checking its planes and radius. */
template <class T>
cudaError_t bilateral_io (const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, const CbfFilterParams *w, Io *io)
{
  cudaError_t err = make_io<T> (src, dst, row_begin, row_end, w, io);
  if (err == cudaSuccess && (w->radius < 1 || w->radius > CBF_MAX_RADIUS))
    err = cudaErrorInvalidValue;
  io->range_scale = w->bilateral.range_scale;
  return err;
}

template <class T>
cudaError_t launch_generic (const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, const CbfFilterParams *w, cudaStream_t stream)
{
  const int radius = w->radius;
  Io io;
  cudaError_t err = bilateral_io<T> (src, dst, row_begin, row_end, w, &io);
  if (err != cudaSuccess)
    return err;

  dim3 block (kBlockW, kBlockH);
  dim3 grid ((io.width + kBlockW - 1) / kBlockW,
      (row_end - row_begin + kBlockH - 1) / kBlockH, T::kGridLayers);
  /* Deep layouts' tables and tiles exceed the shared memory the tiled
   * kernel may have without opt-in (tunables.cuh). */
  if constexpr (!T::kDeep) {
    if (radius <= kMaxTiledRadius) {
      size_t tile_bytes = (size_t)(kBlockW + 2 * radius)
          * (kBlockH + 2 * radius) * sizeof (uint32_t);
      size_t smem
          = generic_tables_len<T> (radius) * sizeof (float) + tile_bytes;
      bilateral_generic<T, true><<<grid, block, smem, stream>>> (
          io, row_begin, row_end, radius, w->bilateral.tables_dev);
      return cudaGetLastError ();
    }
  }
  bilateral_generic<T, false>
      <<<grid, block, T::kRangeLen * sizeof (float), stream>>> (
          io, row_begin, row_end, radius, w->bilateral.tables_dev);
  return cudaGetLastError ();
}

} /* namespace */

#endif /* CBF_BILATERAL_GENERIC_CUH */
