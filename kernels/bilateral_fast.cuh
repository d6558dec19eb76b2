/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the two specialised bilateral kernels (radius <=
 * CBF_FAST_MAX_RADIUS, a template per radius) share: the block's geometry
 * and shared memory, the tile's fill, the copy of the weight tables, the
 * walk over the window's taps and the launch. Each thread computes K rows
 * of C adjacent output pixels, so that every neighbour it loads from the
 * shared tile serves several outputs from a register; the window's taps
 * are unrolled at compile time (no tap outside the disc is visited, no
 * index arithmetic), and the spatial weight comes with the range weight
 * from a table per distance class. The kernels themselves are
 * bilateral_fast_channel (bilateral_fast_channel.cuh) and
 * bilateral_fast_color (bilateral_fast_color.cuh). */

#ifndef CBF_BILATERAL_FAST_CUH
#define CBF_BILATERAL_FAST_CUH

#include "layouts.cuh"

namespace {

/* GPUs before Ampere hold at most 1024 threads an SM (sm_75): a larger
 * minimum of blocks would be ignored, with a warning. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kFastMaxThreadsPerSm = 1024;
#else
constexpr int kFastMaxThreadsPerSm = 2048;
#endif
__host__ __device__ constexpr int fast_min_blocks (int blocks, int threads)
{
  return blocks < kFastMaxThreadsPerSm / threads
      ? blocks
      : kFastMaxThreadsPerSm / threads;
}

/* Shared memory every supported GPU gives a block without asking; beyond
 * it a kernel takes dynamic shared memory, allowed by cudaFuncSetAttribute
 * (fast_allow_smem). */
constexpr int kStaticSmemBytes = 48 * 1024;

/* The block geometry at radius R of colour's shapes or of one channel's
 * with @kPlanes planes a launch (tunables.cuh). A kernel's shape adds its
 * tile entry, tile width and weights (ChannelShape, ColorShape). */
template <int R, bool kColor, int kPlanes> struct FastGeometry
{
  static constexpr FastShapeOf kOf
      = kColor ? color_shape (R, kPlanes > 1) : gray_shape (R, kPlanes);
  static constexpr int kRows = kOf.rows;
  static constexpr int kCols = kOf.cols;
  static constexpr int kBlockY = kOf.block_rows;
  static constexpr int kThreads = kFastBlockX * kBlockY;
  static constexpr int kMinBlocks = fast_min_blocks (kOf.min_blocks, kThreads);
  static constexpr int kClasses = cbf_distance_class (R, R *R + 1);
  /* The block's tile: its outputs and the window's halo, an entry a source
   * pixel; a row a multiple of kCols entries, so that a thread's kCols
   * entries start an aligned load. */
  static constexpr int kMinTileW
      = (kFastBlockX * kCols + 2 * R + kCols - 1) / kCols * kCols;
  static constexpr int kTileH = kBlockY * kRows + 2 * R;
};

/* Shared memory a block of @Shape takes, tile (padded to 16 bytes, where
 * the weights follow it) and weights; dynamic above kStaticSmemBytes. */
template <class Shape> struct FastSmem
{
  static constexpr int kTileBytes
      = (Shape::kTileW * Shape::kTileH * (int)sizeof (typename Shape::TileEntry)
            + 15)
      / 16 * 16;
  static constexpr int kBytes = kTileBytes + Shape::kLutLen * 4;
  static constexpr bool kDynamic = kBytes > kStaticSmemBytes;
};

/* Copies the weights of @Shape (kLutLen floats from kLutOffset of the
 * tables) into shared memory. Where they are whole 16-byte words on the
 * host (one channel's 16-bit integers, colour's half floats), and
 * Shape::kWordCopy, they are copied in those words, loaded by issue ()
 * before the tile's loads and stored by finish () after them, so that both
 * wait for memory together. */
template <class Shape> struct FastWeightCopy
{
  static constexpr bool kWords = Shape::kWordCopy;
  static_assert (
      !kWords || (Shape::kLutLen % 4 == 0 && Shape::kLutOffset % 4 == 0),
      "16-byte words");
  static constexpr int kCopies = kWords ? Shape::kLutLen / 4 : 1;
  static constexpr int kIters
      = (kCopies + Shape::kThreads - 1) / Shape::kThreads;
  uint4 copied[kIters];

  __device__ __forceinline__ void issue (
      const float *tables, float *range_lut, int tid)
  {
    if constexpr (kWords) {
      const uint4 *from
          = reinterpret_cast<const uint4 *> (tables + Shape::kLutOffset);
#pragma unroll
      for (int k = 0; k < kIters; k++) {
        const int i = tid + k * Shape::kThreads;
        if (kCopies % Shape::kThreads == 0 || i < kCopies)
          copied[k] = from[i];
      }
    } else {
      for (int i = tid; i < Shape::kLutLen; i += Shape::kThreads)
        range_lut[i] = tables[Shape::kLutOffset + i];
    }
  }

  __device__ __forceinline__ void finish (float *range_lut, int tid)
  {
    if constexpr (kWords) {
#pragma unroll
      for (int k = 0; k < kIters; k++) {
        const int i = tid + k * Shape::kThreads;
        if (kCopies % Shape::kThreads == 0 || i < kCopies)
          reinterpret_cast<uint4 *> (range_lut)[i] = copied[k];
      }
    }
  }
};

/* A block of @Shape: its tile and weights in shared memory (static where
 * they fit), its first output column and row, and the thread's index. */
template <class Shape> struct FastBlock
{
  typedef typename Shape::TileEntry Entry;
  Entry *tile;
  float *range_lut;
  int tid, x0, y0;

  __device__ __forceinline__ explicit FastBlock (int row_begin)
  {
    typedef FastSmem<Shape> Smem;
    if constexpr (Smem::kDynamic) {
      extern __shared__ __align__ (16) uint32_t fast_smem[];
      tile = reinterpret_cast<Entry *> (fast_smem);
      range_lut = reinterpret_cast<float *> (
          reinterpret_cast<char *> (fast_smem) + Smem::kTileBytes);
    } else if constexpr (Shape::kLutLen > 0) {
      __shared__ __align__ (16) float static_lut[Shape::kLutLen];
      __shared__ __align__ (16)
          Entry static_tile[Shape::kTileH * Shape::kTileW];
      range_lut = static_lut;
      tile = static_tile;
    } else {
      /* a kernel that computes its weights: no table */
      __shared__ __align__ (16)
          Entry static_tile[Shape::kTileH * Shape::kTileW];
      range_lut = nullptr;
      tile = static_tile;
    }
    tid = threadIdx.y * kFastBlockX + threadIdx.x;
    x0 = blockIdx.x * kFastBlockX * Shape::kCols;
    y0 = row_begin + blockIdx.y * Shape::kBlockY * Shape::kRows;
  }

  /* The weights copied and the tile filled by @fill (), the weights' loads
   * issued first (FastWeightCopy); then the whole block waits for both. */
  template <class Fill>
  __device__ __forceinline__ void load (const float *tables, Fill fill)
  {
    FastWeightCopy<Shape> weights;
    weights.issue (tables, range_lut, tid);
    fill ();
    weights.finish (range_lut, tid);
    __syncthreads ();
  }
};

/* Copies the source pixels (x0 - R, y0 - R) to (x0 - R + kTileW - 1,
 * y0 - R + kTileH - 1) into @tile (see tile_put), the border rule applied
 * where the tile reaches past the picture (blocks inside it, most of them,
 * skip it). The block's kBlockX x kBlockY threads walk the tile in
 * its own shape: a thread's row and column come from its index without a
 * division, and a row's address is formed once for its columns. Where the
 * rule applies, a thread's columns are found before any load and a row
 * before its loads: the rule's out-of-line call between two loads would
 * have the second wait for the first. */
template <class T, int kTileW, int kTileH, int R, int kBlockX, int kBlockY,
    bool kInside, class Entry>
__device__ __forceinline__ void load_tile_rows (
    Entry *tile, const Io &io, int x0, int y0)
{
  constexpr int kColIters = (kTileW + kBlockX - 1) / kBlockX;
  int sx[kColIters];
#pragma unroll
  for (int c = 0; c < kColIters; c++) {
    const int x = x0 + c * kBlockX + threadIdx.x - R;
    sx[c] = kInside ? x : io.col (x);
  }
  for (int ty = threadIdx.y; ty < kTileH; ty += kBlockY) {
    const int sy = kInside ? y0 + ty - R : io.row (y0 + ty - R);
#pragma unroll
    for (int c = 0; c < kColIters; c++) {
      const int tx = c * kBlockX + threadIdx.x;
      if ((c + 1) * kBlockX <= kTileW || tx < kTileW)
        tile_put<T> (
            tile[ty * kTileW + tx], T::template load<!kInside> (io, sy, sx[c]));
    }
  }
}

/* The same, a thread's loads all issued before its first store, so that
 * they wait for memory together rather than a row at a time (colour's
 * batched_fill; it takes a register a pixel). */
template <class T, int kTileW, int kTileH, int R, int kBlockX, int kBlockY,
    bool kInside, class Entry>
__device__ __forceinline__ void load_tile_batched (
    Entry *tile, const Io &io, int x0, int y0)
{
  constexpr int kRowIters = (kTileH + kBlockY - 1) / kBlockY;
  constexpr int kColIters = (kTileW + kBlockX - 1) / kBlockX;
  int sy[kRowIters], sx[kColIters];
#pragma unroll
  for (int r = 0; r < kRowIters; r++) {
    const int y = y0 + threadIdx.y + r * kBlockY - R;
    sy[r] = kInside ? y : io.row (y);
  }
#pragma unroll
  for (int c = 0; c < kColIters; c++) {
    const int x = x0 + c * kBlockX + threadIdx.x - R;
    sx[c] = kInside ? x : io.col (x);
  }
  typename T::Word loaded[kRowIters][kColIters];
#pragma unroll
  for (int r = 0; r < kRowIters; r++) {
    const int ty = threadIdx.y + r * kBlockY;
    if (kTileH % kBlockY == 0 || ty < kTileH) {
#pragma unroll
      for (int c = 0; c < kColIters; c++) {
        const int tx = c * kBlockX + threadIdx.x;
        if (kTileW % kBlockX == 0 || tx < kTileW)
          loaded[r][c] = T::template load<!kInside> (io, sy[r], sx[c]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRowIters; r++) {
    const int ty = threadIdx.y + r * kBlockY;
#pragma unroll
    for (int c = 0; c < kColIters; c++) {
      const int tx = c * kBlockX + threadIdx.x;
      if ((kTileH % kBlockY == 0 || ty < kTileH)
          && (kTileW % kBlockX == 0 || tx < kTileW))
        tile_put<T> (tile[ty * kTileW + tx], loaded[r][c]);
    }
  }
}

template <class T, int kTileW, int kTileH, int R, int kBlockX, int kBlockY,
    bool kBatched, class Entry>
__device__ __forceinline__ void load_tile (
    Entry *tile, const Io &io, int x0, int y0)
{
  const bool inside = x0 >= R && y0 >= R && x0 + kTileW - R <= io.width
      && y0 + kTileH - R <= io.height;
  if (kBatched && inside)
    load_tile_batched<T, kTileW, kTileH, R, kBlockX, kBlockY, true> (
        tile, io, x0, y0);
  else if (kBatched)
    load_tile_batched<T, kTileW, kTileH, R, kBlockX, kBlockY, false> (
        tile, io, x0, y0);
  else if (inside)
    load_tile_rows<T, kTileW, kTileH, R, kBlockX, kBlockY, true> (
        tile, io, x0, y0);
  else
    load_tile_rows<T, kTileW, kTileH, R, kBlockX, kBlockY, false> (
        tile, io, x0, y0);
}

/* Whether source row @s (0 = R rows above the thread's first output) at
 * column offset @dx is inside the window of any of the thread's outputs. */
template <int R, int K>
__host__ __device__ constexpr bool tap_used (int s, int dx)
{
  for (int k = 0; k < K; k++)
    if (in_disc<R> (dx, s - R - k))
      return true;
  return false;
}

/* The walk over a thread's window, K rows of C outputs: every source row
 * S (0 to K + 2R - 1) and every C-th column DX from -R, each handed to
 * Window::load<S, DX> (), which reads C tile entries at once and weighs
 * them. The taps are expanded from template parameters (not left to the
 * loop unroller, which gives up on the larger windows): every condition
 * in the kernels' windows is a compile-time constant, every tile offset
 * and spatial weight an immediate. */
template <class Window, int R, int K, int C> struct FastWalk
{
  /* Whether source pixel (DX, S) is in the window of any output. */
  static constexpr bool used (int s, int dx)
  {
    for (int c = 0; c < C; c++)
      if (tap_used<R, K> (s, dx - c))
        return true;
    return false;
  }

  /* Whether any of source pixels (DX .. DX + C - 1, S), which a thread
   * loads at once, is in the window of any output. */
  static constexpr bool used_entries (int s, int dx)
  {
    for (int c = 0; c < C; c++)
      if (used (s, dx + c))
        return true;
    return false;
  }

  template <int S, int... I>
  __device__ __forceinline__ void row (std::integer_sequence<int, I...>)
  {
    (static_cast<Window *> (this)->template load<S, C * I - R> (), ...);
  }

  /* Called after each source row S; a window may hide it. */
  template <int S> __device__ __forceinline__ void after_row ()
  {}

  template <int... S>
  __device__ __forceinline__ void rows (std::integer_sequence<int, S...>)
  {
    ((row<S> (std::make_integer_sequence<int, (2 * R + C + C - 1) / C> ()),
         static_cast<Window *> (this)->template after_row<S> ()),
        ...);
  }

  __device__ __forceinline__ void run ()
  {
    rows (std::make_integer_sequence<int, K + 2 * R> ());
  }
};

/* Allows @kernel, of @Shape, its dynamic shared memory on the current
 * device, once a device rather than at every launch. The runtime keeps the
 * attribute with the function for every context it loads it into: on the
 * GPU machine (CUDA 13), a context made by cuCtxCreate after the attribute
 * was set in the primary one launched with it, as a pipeline's context
 * made by GStreamer would. */
template <class Shape, class Kernel> cudaError_t fast_allow_smem (Kernel kernel)
{
  static std::atomic<uint64_t> allowed (0);
  int device = 0;
  cudaError_t err = cudaGetDevice (&device);
  if (err != cudaSuccess)
    return err;
  const uint64_t bit = device < 64 ? (uint64_t)1 << device : 0;
  if (allowed.load (std::memory_order_relaxed) & bit)
    return cudaSuccess;
  err = cudaFuncSetAttribute (kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, FastSmem<Shape>::kBytes);
  if (err == cudaSuccess)
    allowed.fetch_or (bit, std::memory_order_relaxed);
  return err;
}

/* Launches @kernel, of @Shape for layout T, over output rows [@row_begin,
 * @row_end), @extra its arguments after the tables. */
template <class T, class Shape, class Kernel, class... Extra>
cudaError_t launch_fast (Kernel kernel, const Io &io, int row_begin,
    int row_end, const CbfFilterParams *w, cudaStream_t stream,
    const Extra &...extra)
{
  constexpr int rows_per_block = Shape::kBlockY * Shape::kRows;
  constexpr int columns_per_block = kFastBlockX * Shape::kCols;
  constexpr int dynamic_smem
      = FastSmem<Shape>::kDynamic ? FastSmem<Shape>::kBytes : 0;
  if (dynamic_smem) {
    const cudaError_t err = fast_allow_smem<Shape> (kernel);
    if (err != cudaSuccess)
      return err;
  }
  dim3 block (kFastBlockX, Shape::kBlockY);
  dim3 grid ((io.width + columns_per_block - 1) / columns_per_block,
      (row_end - row_begin + rows_per_block - 1) / rows_per_block,
      T::kGridLayers);
  kernel<<<grid, block, dynamic_smem, stream>>> (
      io, row_begin, row_end, w->bilateral.tables_dev, extra...);
  return cudaSuccess;
}

} /* namespace */

#endif /* CBF_BILATERAL_FAST_CUH */
