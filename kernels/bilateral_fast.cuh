/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The specialised bilateral kernel (radius <= CBF_FAST_MAX_RADIUS, a
 * template per radius, for one channel and for colour): each thread
 * computes K rows of C adjacent output pixels, so every neighbour it loads
 * from the shared tile serves several outputs from a register; the
 * window's taps are unrolled at compile time (no tap outside the disc is
 * visited, no index arithmetic), and the spatial weight comes with the
 * range weight from a table per distance class. Per tap that leaves one
 * SIMD sum of absolute byte differences, one table load (colour: and a
 * half-to-float conversion), and the multiply-adds of the sums (one
 * channel: 16-bit integer weights and integer sums; its tile of source
 * bytes read four at a time, and the taps between a thread's own outputs
 * summed once for both). */

#ifndef CBF_BILATERAL_FAST_CUH
#define CBF_BILATERAL_FAST_CUH

#include "layouts.cuh"

namespace {

/* ------------------------------------------------------------------ */
/* The specialised kernel */

/* The one-channel kernel's tile width in bytes, at least @min_width: a
 * warp's four rows of threads read eight consecutive words each, from tile
 * rows @rows apart, and those rows' words fall in distinct banks when that
 * stride, in words, is 8 or 24 modulo 32. */
__host__ __device__ constexpr int int_tile_width (int min_width, int rows)
{
  for (int words = (min_width + 3) / 4; words < (min_width + 3) / 4 + 32;
       words++)
    if ((rows * words) % 32 == 8 || (rows * words) % 32 == 24)
      return 4 * words;
  return (min_width + 3) / 4 * 4;
}

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

/* The shape of layout T (one channel or colour) at radius R. */
template <class T, int R> struct FastShape
{
  static constexpr FastShapeOf kOf
      = T::kClassWeights ? gray_shape (R, T::kPlanes) : colour_shape (R);
  static constexpr int kRows = kOf.rows;
  static constexpr int kCols = kOf.cols;
  static constexpr int kBlockY = kOf.block_rows;
  static constexpr int kThreads = kFastBlockX * kBlockY;
  static constexpr int kMinBlocks = fast_min_blocks (kOf.min_blocks, kThreads);
  /* Colour reads a tap's weight whole from its distance class's table of
   * half floats (bilateral.h). Rounding a weight to half moves it by at most
   * 2^-11 of itself, and so the result by at most 2^-11 x 255 = 0.13
   * levels, which with the biased sums' 0.58 at radius 7 and 0.77 at
   * radius 8 (Colour) stays below one. */
  static constexpr bool kHalfClasses = !T::kClassWeights;
  static constexpr int kClasses = cbf_distance_class (R, R *R + 1);
  /* One channel: each weight a 16-bit integer, w x 2^15 rounded, from a
   * table per distance class (made on the host, bilateral.h), and the sums
   * in 32-bit integers: an integer multiply-add and an add a tap (ptxas
   * adds two taps' weights in one IADD3), where float weights need a
   * conversion or the SFU. The tile holds the source bytes as they are,
   * and a thread's four columns start on a word, so that one 32-bit load
   * brings four entries: the tile's loads take a quarter of the
   * shared-memory wavefronts of 32-bit entries (that pipe bounds this
   * kernel). An entry is taken as its level v in bytes 0 and 1, 257 v
   * (one byte permute, FastWindow::byte_entry): the SIMD sum of absolute
   * byte differences of two such is 2 x their difference, directly the
   * byte offset of a 16-bit weight (a warp's 32 loads then conflict only
   * where distances 64 apart meet). The sums are Σ w 257 v modulo 2^32
   * and Σ w; Σ w v, at most 197 x 2^15 x 255 < 2^32 (radius 8), is the
   * first times the inverse of 257 modulo 2^32, exactly (int_level). The
   * weights' rounding (at most 2^-16 each) moves the result by at most
   * 197 x 2^-16 x 255 = 0.77 levels. */
  static constexpr bool kIntSums = T::kClassWeights;
  static_assert (!kIntSums || kCols == 4, "the byte tile's word a thread");
  /* FastShapeOf's batched_fill and word_copy. One channel fills its tile
   * from words (load_tile_bytes), batched; load_tile only reflects its
   * edge blocks, and is faster there a row at a time. Its integer weights
   * are always copied in words. */
  static constexpr bool kBatchedFill = !T::kClassWeights && kOf.batched_fill;
  typedef
      typename std::conditional<kIntSums, uint8_t, uint32_t>::type TileEntry;
  /* The per-class weights. */
  __host__ __device__ static constexpr int lut_len ()
  {
    return kIntSums ? kClasses * CBF_INT_CLASS_FLOATS
                    : kClasses * CBF_COLOUR_CLASS_FLOATS;
  }
  __host__ __device__ static constexpr int lut_offset_in_tables ()
  {
    return kIntSums ? cbf_tables_int_weights_offset (R)
                    : cbf_tables_colour_class_weights_offset (R);
  }
  static constexpr bool kWordCopy = kIntSums || kOf.word_copy;
  /* The block's tile: its outputs and the window's halo, an entry a source
   * pixel; a row a multiple of kCols entries, so that a thread's kCols
   * entries start an aligned load; rows padded where the warps take 8 x 4
   * positions, so that their loads do not conflict (int_tile_width). */
  static constexpr bool kIntWarpShape = kIntSums && R >= kIntWarpMinRadius;
  static constexpr int kMinTileW
      = (kFastBlockX * kCols + 2 * R + kCols - 1) / kCols * kCols;
  static constexpr int kTileW
      = kIntWarpShape ? int_tile_width (kMinTileW, kRows) : kMinTileW;
  static constexpr int kTileH = kBlockY * kRows + 2 * R;
  /* Shared memory a block takes, tile (padded to 16 bytes, where the
   * weights follow it) and weights; dynamic above kStaticSmemBytes. */
  static constexpr int kTileBytes
      = (kTileW * kTileH * (int)sizeof (TileEntry) + 15) / 16 * 16;
  static constexpr int kSmemBytes = kTileBytes + lut_len () * 4;
  static constexpr bool kDynamicSmem = kSmemBytes > kStaticSmemBytes;
};

/* Copies the source pixels (x0 - R, y0 - R) to (x0 - R + kTileW - 1,
 * y0 - R + kTileH - 1) into @tile (see tile_put), reflect-101 applied where
 * the tile reaches past the picture (blocks inside it, most of them, skip
 * the border rule). The block's kBlockX x kBlockY threads walk the tile in
 * its own shape: a thread's row and column come from its index without a
 * division, and a row's address is formed once for its columns. */
template <class T, int kTileW, int kTileH, int R, int kBlockX, int kBlockY,
    bool kInside, class Entry>
__device__ __forceinline__ void load_tile_rows (
    Entry *tile, const Io &io, int x0, int y0)
{
  for (int ty = threadIdx.y; ty < kTileH; ty += kBlockY) {
    const int sy = kInside ? y0 + ty - R : reflect101 (y0 + ty - R, io.height);
#pragma unroll
    for (int tx0 = 0; tx0 < kTileW; tx0 += kBlockX) {
      const int tx = tx0 + threadIdx.x;
      if (tx0 + kBlockX <= kTileW || tx < kTileW) {
        const int sx
            = kInside ? x0 + tx - R : reflect101 (x0 + tx - R, io.width);
        tile_put<T> (tile[ty * kTileW + tx], T::load (io, sy, sx));
      }
    }
  }
}

/* The same, a thread's loads all issued before its first store, so that
 * they wait for memory together rather than a row at a time (kBatchedFill;
 * it takes a register a pixel). */
template <class T, int kTileW, int kTileH, int R, int kBlockX, int kBlockY,
    bool kInside, class Entry>
__device__ __forceinline__ void load_tile_batched (
    Entry *tile, const Io &io, int x0, int y0)
{
  constexpr int kRowIters = (kTileH + kBlockY - 1) / kBlockY;
  constexpr int kColIters = (kTileW + kBlockX - 1) / kBlockX;
  uint32_t loaded[kRowIters][kColIters];
#pragma unroll
  for (int r = 0; r < kRowIters; r++) {
    const int ty = threadIdx.y + r * kBlockY;
    if (kTileH % kBlockY == 0 || ty < kTileH) {
      const int sy
          = kInside ? y0 + ty - R : reflect101 (y0 + ty - R, io.height);
#pragma unroll
      for (int c = 0; c < kColIters; c++) {
        const int tx = c * kBlockX + threadIdx.x;
        if (kTileW % kBlockX == 0 || tx < kTileW)
          loaded[r][c] = T::load (io, sy,
              kInside ? x0 + tx - R : reflect101 (x0 + tx - R, io.width));
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

/* The one-channel kernel's byte tile (kIntSums) from aligned 32-bit
 * loads, where load_tile takes a byte load, a 64-bit address and a store
 * for each pixel: fewer instructions, and faster. Tile word j of a row
 * holds source pixels x0 - R + 4 j .. + 3 (x0 is a multiple of 128), which
 * straddle two aligned source words unless R is a multiple of 4: a funnel
 * shift joins them. A thread issues all its loads before its first store,
 * so that they wait for memory once, not once each (the weights' copy is
 * batched the same way, bilateral_fast). Rows above or below the picture
 * are reflected a row at a time, which was faster than load_tile for the
 * first and last rows of blocks (design.md, "Specialised kernel steps").
 * Returns false, and leaves the tile to load_tile, for pixels of more than
 * one byte, a plane or pitch not 4-byte aligned, and blocks whose words
 * reach past the picture's left or right edge (which reflect within a
 * row). */
template <class T, int kTileW, int kTileH, int R, int kThreads>
__device__ __forceinline__ bool load_tile_bytes (
    uint8_t *tile, const Io &io, int x0, int y0, int tid)
{
  static_assert (kTileW % 4 == 0, "whole words");
  /* bytes from an aligned source word to the tile's first pixel, and the
   * source words a tile word reads: one, or two when shifted */
  constexpr int kShift = (4 - R % 4) % 4;
  constexpr int kWords = kTileW / 4;
  constexpr int kSpan = kShift ? 2 : 1;
  const uint8_t *plane = Io::pick (io.src, T::channel ());
  const size_t pitch = Io::pick (io.src_pitch, T::channel ());
  const int x_first = x0 - R - kShift;
  if (io.pixel_bytes != 1 || x_first < 0
      || x_first + 4 * (kWords + kSpan - 1) > io.width
      || (((uintptr_t)plane | pitch) & 3))
    return false;
  const bool rows_inside = y0 >= R && y0 + kTileH - R <= io.height;
  constexpr int kCount = kTileH * kWords;
  constexpr int kIters = (kCount + kThreads - 1) / kThreads;
  uint32_t loaded[kIters][kSpan];
#pragma unroll
  for (int k = 0; k < kIters; k++) {
    const int i = tid + k * kThreads;
    const int row = i / kWords, j = i - row * kWords;
    if (kCount % kThreads == 0 || i < kCount) {
      const int sy
          = rows_inside ? y0 - R + row : reflect101 (y0 - R + row, io.height);
      const uint32_t *at = reinterpret_cast<const uint32_t *> (
          plane + (size_t)sy * pitch + x_first + 4 * j);
#pragma unroll
      for (int h = 0; h < kSpan; h++)
        loaded[k][h] = at[h];
    }
  }
#pragma unroll
  for (int k = 0; k < kIters; k++) {
    const int i = tid + k * kThreads;
    if (!(kCount % kThreads == 0 || i < kCount))
      break;
    reinterpret_cast<uint32_t *> (tile)[i] = kShift
        ? __funnelshift_r (loaded[k][0], loaded[k][kSpan - 1], 8 * kShift)
        : loaded[k][0];
  }
  return true;
}

/* A one-channel layout whose tile entries are the level itself, one byte
 * (kIntSums), for load_tile. */
template <class T> struct LevelTile : T
{
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    return T::load (io, y, x) >> 2;
  }
};

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

/* The window's taps are expanded from template parameters (not left to the
 * loop unroller, which gives up on the larger windows): every condition
 * below is a compile-time constant, every tile offset and spatial weight an
 * immediate. */
template <class T, int R, int K, int C> struct FastWindow
{
  typedef FastShape<T, R> Shape;
  static constexpr int kTileW = Shape::kTileW;
  /* tile, column dx = 0 of source row 0 */
  const typename Shape::TileEntry *col;
  const float *range_lut;
  /* Output (k, c), row k and column c of the thread's, at [k * C + c]. */
  uint32_t centre[K * C];
  typename T::Sum sum[K * C];
  /* kIntSums: Σ w v and Σ w of output (k, c), integers. */
  uint32_t int_v[Shape::kIntSums ? K * C : 1];
  uint32_t int_w[Shape::kIntSums ? K * C : 1];

  /* Colour: tap (DX - c, S - R - k) of output (k, c), if it is in that
   * output's disc, weighed from its distance class's table of half floats
   * (FastShape::kHalfClasses). */
  template <int S, int DX, int k, int c>
  __device__ __forceinline__ void tap_output (
      uint32_t p, const typename T::Value &value)
  {
    constexpr int dx = DX - c;
    constexpr int dy = S - R - k;
    constexpr int o = k * C + c;
    if constexpr (in_disc<R> (dx, dy)) {
      constexpr int kClass = cbf_distance_class (R, dx * dx + dy * dy);
      const float w = __half2float (
          __ushort_as_half (reinterpret_cast<const unsigned short *> (
              range_lut)[kClass * CBF_RANGE_LUT_LEN
              + T::distance (p, centre[o])]));
      T::add (sum[o], value, w);
    }
  }

  template <int S, int DX, int... o>
  __device__ __forceinline__ void tap_outputs (uint32_t p,
      const typename T::Value &value, std::integer_sequence<int, o...>)
  {
    (tap_output<S, DX, o / C, o % C> (p, value), ...);
  }

  /* Whether source pixel (DX, S) is in the window of any output. */
  static constexpr bool used (int s, int dx)
  {
    for (int c = 0; c < C; c++)
      if (tap_used<R, K> (s, dx - c))
        return true;
    return false;
  }

  /* Source pixel (DX, S), loaded: converted once, used by every output
   * whose window holds it. */
  template <int S, int DX> __device__ __forceinline__ void taps (uint32_t p)
  {
    if constexpr (used (S, DX) && FastShape<T, R>::kIntSums)
      int_tap_outputs<S, DX> (p, std::make_integer_sequence<int, K * C> ());
    else if constexpr (used (S, DX))
      tap_outputs<S, DX> (p, T::template unpack<true> (p),
          std::make_integer_sequence<int, K * C> ());
  }

  /* kIntSums: the weight of tap (dx, dy) whose entry (byte_entry) is @p,
   * for the output whose own entry is @c: the SIMD sum of their absolute
   * byte differences, 2 x the level difference, is the byte offset of the
   * 16-bit weight in its class's table. */
  template <int dx, int dy>
  __device__ __forceinline__ uint32_t int_weight (uint32_t p, uint32_t c) const
  {
    constexpr int kClass = cbf_distance_class (R, dx * dx + dy * dy);
    return *reinterpret_cast<const unsigned short *> (
        reinterpret_cast<const char *> (range_lut)
        + CBF_INT_CLASS_FLOATS * sizeof (float) * kClass + __vsadu4 (p, c));
  }

  /* Whether tap (dx, dy) of output (k, c) is one of the thread's outputs
   * (itself included): those taps are summed by int_start. */
  static constexpr bool own_output (int k, int c, int dx, int dy)
  {
    return k + dy >= 0 && k + dy < K && c + dx >= 0 && c + dx < C;
  }

  /* kIntSums: tap (DX - c, S - R - k) of output (k, c); @p is the tile
   * entry as byte_entry takes it, 257 x the level. */
  template <int S, int DX, int k, int c>
  __device__ __forceinline__ void int_tap_output (uint32_t p)
  {
    constexpr int dx = DX - c;
    constexpr int dy = S - R - k;
    constexpr int o = k * C + c;
    if constexpr (in_disc<R> (dx, dy) && !own_output (k, c, dx, dy)) {
      const uint32_t w = int_weight<dx, dy> (p, centre[o]);
      int_v[o] += w * p;
      int_w[o] += w;
    }
  }

  /* The pair of outputs a < b (pair index a K C + b), if each is in the
   * other's disc: one weight, the same both ways (the same distance class
   * and level difference), serves both sums. */
  template <int P> __device__ __forceinline__ void int_pair ()
  {
    constexpr int a = P / (K * C), b = P % (K * C);
    constexpr int dx = b % C - a % C, dy = b / C - a / C;
    if constexpr (a < b && in_disc<R> (dx, dy)) {
      const uint32_t w = int_weight<dx, dy> (centre[b], centre[a]);
      int_v[a] += w * centre[b];
      int_w[a] += w;
      int_v[b] += w * centre[a];
      int_w[b] += w;
    }
  }

  template <int... P>
  __device__ __forceinline__ void int_pairs (std::integer_sequence<int, P...>)
  {
    (int_pair<P> (), ...);
  }

  /* kIntSums: the sums start with the taps that are the thread's own
   * outputs, whose entries are already loaded (centre): each output's own
   * tap, weight exactly 1 (space and range at 0), and the pairs'. */
  __device__ __forceinline__ void int_start ()
  {
#pragma unroll
    for (int o = 0; o < K * C; o++) {
      int_v[o] = CBF_INT_WEIGHT_ONE * centre[o];
      int_w[o] = CBF_INT_WEIGHT_ONE;
    }
    int_pairs (std::make_integer_sequence<int, K * C * K * C> ());
  }

  template <int S, int DX, int... o>
  __device__ __forceinline__ void int_tap_outputs (
      uint32_t p, std::integer_sequence<int, o...>)
  {
    (int_tap_output<S, DX, o / C, o % C> (p), ...);
  }

  /* One column: a 32-bit load. Two: the pair (DX, DX + 1) in one 64-bit
   * load, as a warp's threads read the tile two words apart (single loads
   * would conflict two ways); DX - R is even and so is each row's start, so
   * the pair is aligned. The byte tile: four entries a 32-bit load
   * (load_bytes). */
  template <int S, int DX> __device__ __forceinline__ void load ()
  {
    if constexpr (Shape::kIntSums) {
      if constexpr (used_entries (S, DX))
        load_bytes<S, DX> ();
    } else if constexpr (C == 1) {
      if constexpr (used (S, DX))
        taps<S, DX> (col[S * kTileW + DX]);
    } else if constexpr (used_entries (S, DX)) {
      const uint2 pair
          = *reinterpret_cast<const uint2 *> (col + S * kTileW + DX);
      taps<S, DX> (pair.x);
      taps<S, DX + 1> (pair.y);
    }
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

  /* kIntSums: byte @k of a tile word as the entry the sums take, the
   * level in bytes 0 and 1 (257 x the level): one byte permute. */
  static __device__ __forceinline__ uint32_t byte_entry (uint32_t word, int k)
  {
    return __byte_perm (word, 0, 0x4400 | 0x11 * k);
  }

  /* kIntSums: the four entries (DX .. DX + 3) in one 32-bit load, aligned
   * (a thread's first column, and each row's start, a multiple of 4); a
   * warp's threads read consecutive words. */
  template <int S, int DX> __device__ __forceinline__ void load_bytes ()
  {
    const uint32_t four
        = *reinterpret_cast<const uint32_t *> (col + S * kTileW + DX);
    taps<S, DX> (byte_entry (four, 0));
    taps<S, DX + 1> (byte_entry (four, 1));
    taps<S, DX + 2> (byte_entry (four, 2));
    taps<S, DX + 3> (byte_entry (four, 3));
  }

  template <int S, int... I>
  __device__ __forceinline__ void row (std::integer_sequence<int, I...>)
  {
    (load<S, C * I - R> (), ...);
  }

  template <int... S>
  __device__ __forceinline__ void rows (std::integer_sequence<int, S...>)
  {
    (row<S> (std::make_integer_sequence<int, (2 * R + C + C - 1) / C> ()), ...);
  }

  __device__ __forceinline__ void run ()
  {
    rows (std::make_integer_sequence<int, K + 2 * R> ());
  }
};

/* kIntSums' level, Σ w v / Σ w rounded half to even, in the low byte of
 * the result. @weighted_sum is Σ w 257 v modulo 2^32 (FastShape): 257 is
 * odd, and 0xff00ff01 its inverse modulo 2^32, so that the product is
 * Σ w v exactly (below 2^32). The fused multiply-add adds the quotient to
 * 1.5 x 2^23, whose unit in the last place is 1, rounding it to an
 * integer that the float's mantissa then ends in, where a conversion
 * would take the XU pipe. The reciprocal is off by at most 1 ulp, the sum
 * converted to float by 2^-24 of itself, so the quotient by about
 * 2^-22 x 255 levels. This and a row's pixels in one store
 * (int_store_rows) replaced __fdividef, __float2int_rn and a store a
 * pixel, which were slower, and keep the output within +-1 of OpenCV
 * (design.md, "Specialised kernel steps"). */
__device__ __forceinline__ uint32_t int_level (
    uint32_t weighted_sum, uint32_t weight_sum)
{
  float reciprocal;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(reciprocal) : "f"((float)weight_sum));
  return __float_as_uint (
      __fmaf_rn ((float)(weighted_sum * 0xff00ff01u), reciprocal, 12582912.f));
}

/* Writes kIntSums' K x 4 outputs, rows from @y and columns from @x (a
 * multiple of 4): a row's address formed once, and its four pixels in one
 * 32-bit store where they are bytes and the plane's alignment allows,
 * else one at a time. */
template <class T, int K>
__device__ __forceinline__ void int_store_rows (const Io &io, int x, int y,
    int row_end, const uint32_t (&weighted_sums)[K * 4],
    const uint32_t (&weight_sums)[K * 4])
{
  const int plane = T::channel ();
  const size_t pitch = Io::pick (io.dst_pitch, plane);
  const int step = io.template step<T::kPixelBytes> ();
  uint8_t *row = io.template out<T::kPixelBytes> (plane, y, x);
  const bool words = step == 1 && (((uintptr_t)row | pitch) & 3) == 0;
#pragma unroll
  for (int k = 0; k < K; k++, row += pitch) {
    if (y + k >= row_end)
      continue;
    uint32_t level[4];
#pragma unroll
    for (int c = 0; c < 4; c++)
      level[c] = int_level (weighted_sums[k * 4 + c], weight_sums[k * 4 + c]);
    if (words && x + 3 < io.width) {
      *reinterpret_cast<uint32_t *> (row)
          = __byte_perm (__byte_perm (level[0], level[1], 0x0040),
              __byte_perm (level[2], level[3], 0x0040), 0x5410);
    } else {
#pragma unroll
      for (int c = 0; c < 4; c++)
        if (x + c < io.width)
          row[c * step] = (uint8_t)level[c];
    }
  }
}

template <class T, int R>
__global__ void __launch_bounds__ (FastShape<T, R>::kThreads,
    FastShape<T, R>::kMinBlocks) bilateral_fast (Io io, int row_begin,
    int row_end, const float *__restrict__ tables)
{
  typedef FastShape<T, R> Shape;
  constexpr int K = Shape::kRows;
  constexpr int C = Shape::kCols;
  typedef FastWindow<T, R, K, C> Window;
  constexpr int kTileW = Shape::kTileW;
  constexpr int kTileH = Shape::kTileH;
  constexpr int kLutLen = Shape::lut_len ();
  typedef typename Shape::TileEntry Entry;
  float *range_lut;
  Entry *tile;
  if constexpr (Shape::kDynamicSmem) {
    extern __shared__ __align__ (16) uint32_t fast_smem[];
    tile = reinterpret_cast<Entry *> (fast_smem);
    range_lut = reinterpret_cast<float *> (
        reinterpret_cast<char *> (fast_smem) + Shape::kTileBytes);
  } else {
    __shared__ __align__ (16) float static_lut[kLutLen];
    __shared__ __align__ (16) Entry static_tile[kTileH * kTileW];
    range_lut = static_lut;
    tile = static_tile;
  }

  const int tid = threadIdx.y * kFastBlockX + threadIdx.x;
  const int x0 = blockIdx.x * kFastBlockX * C;
  const int y0 = row_begin + blockIdx.y * Shape::kBlockY * K;

  /* The weights as made on the host, where they are whole 16-byte words
   * (one channel's 16-bit integers, colour's half floats), copied in those
   * words, their loads issued before the tile's and stored after it, so
   * that both wait for memory together. */
  constexpr bool kWordCopy = Shape::kWordCopy;
  static_assert (!kWordCopy
          || (kLutLen % 4 == 0 && Shape::lut_offset_in_tables () % 4 == 0),
      "16-byte words");
  constexpr int kCopies = kWordCopy ? kLutLen / 4 : 1;
  constexpr int kCopyIters = (kCopies + Shape::kThreads - 1) / Shape::kThreads;
  const uint4 *copy_from = reinterpret_cast<const uint4 *> (
      tables + Shape::lut_offset_in_tables ());
  uint4 copied[kCopyIters];
  if constexpr (kWordCopy) {
#pragma unroll
    for (int k = 0; k < kCopyIters; k++) {
      const int i = tid + k * Shape::kThreads;
      if (kCopies % Shape::kThreads == 0 || i < kCopies)
        copied[k] = copy_from[i];
    }
  } else {
    for (int i = tid; i < kLutLen; i += Shape::kThreads)
      range_lut[i] = tables[Shape::lut_offset_in_tables () + i];
  }

  if constexpr (Shape::kIntSums) {
    if (!load_tile_bytes<T, kTileW, kTileH, R, Shape::kThreads> (
            tile, io, x0, y0, tid))
      load_tile<LevelTile<T>, kTileW, kTileH, R, kFastBlockX, Shape::kBlockY,
          false> (tile, io, x0, y0);
  } else {
    load_tile<T, kTileW, kTileH, R, kFastBlockX, Shape::kBlockY,
        Shape::kBatchedFill> (tile, io, x0, y0);
  }

  if constexpr (kWordCopy) {
#pragma unroll
    for (int k = 0; k < kCopyIters; k++) {
      const int i = tid + k * Shape::kThreads;
      if (kCopies % Shape::kThreads == 0 || i < kCopies)
        reinterpret_cast<uint4 *> (range_lut)[i] = copied[k];
    }
  }
  __syncthreads ();

  /* The thread's position among the block's kFastBlockX x kBlockY; one
   * channel's warps take 8 x 4 of them from radius 7 (kIntWarpCols). */
  int tx = threadIdx.x, ty = threadIdx.y;
  if constexpr (Shape::kIntWarpShape) {
    static_assert (Shape::kBlockY % kIntWarpRows == 0, "whole warps");
    constexpr int kWarpsAcross = kFastBlockX / kIntWarpCols;
    const int warp = tid / 32, lane = tid % 32;
    tx = warp % kWarpsAcross * kIntWarpCols + lane % kIntWarpCols;
    ty = warp / kWarpsAcross * kIntWarpRows + lane / kIntWarpCols;
  }

  Window window;
  window.col = tile + ty * K * kTileW + C * tx + R;
  window.range_lut = range_lut;
  if constexpr (Shape::kIntSums) {
    /* A row's four outputs from the aligned words around them, as
     * byte_entry takes them: two loads a row where four byte loads were
     * (design.md, "Specialised kernel steps"). */
#pragma unroll
    for (int k = 0; k < K; k++) {
      const uint32_t *words = reinterpret_cast<const uint32_t *> (
          window.col + (k + R) * kTileW - R % 4);
      const uint32_t four = R % 4
          ? __funnelshift_r (words[0], words[1], 8 * (R % 4))
          : words[0];
#pragma unroll
      for (int c = 0; c < C; c++)
        window.centre[k * C + c] = Window::byte_entry (four, c);
    }
  } else {
#pragma unroll
    for (int o = 0; o < K * C; o++)
      window.centre[o] = window.col[(o / C + R) * kTileW + o % C];
  }
  if constexpr (Shape::kIntSums)
    window.int_start ();
  window.run ();

  if constexpr (Shape::kIntSums) {
    int_store_rows<T, K> (
        io, x0 + C * tx, y0 + ty * K, row_end, window.int_v, window.int_w);
  } else {
#pragma unroll
    for (int o = 0; o < K * C; o++) {
      const int x = x0 + C * tx + o % C;
      const int y = y0 + ty * K + o / C;
      if (x < io.width && y < row_end)
        T::template store<true> (io, y, x, window.sum[o]);
    }
  }
}

/* Allows bilateral_fast < T, R > its dynamic shared memory on the current
 * device, once a device rather than at every launch. The runtime keeps the
 * attribute with the function for every context it loads it into: on the
 * GPU machine (CUDA 13), a context made by cuCtxCreate after the attribute
 * was set in the primary one launched with it, as a pipeline's context
 * made by GStreamer would. */
template <class T, int R> cudaError_t fast_allow_smem ()
{
  typedef FastShape<T, R> Shape;
  static std::atomic<uint64_t> allowed (0);
  int device = 0;
  cudaError_t err = cudaGetDevice (&device);
  if (err != cudaSuccess)
    return err;
  const uint64_t bit = device < 64 ? (uint64_t)1 << device : 0;
  if (allowed.load (std::memory_order_relaxed) & bit)
    return cudaSuccess;
  err = cudaFuncSetAttribute (bilateral_fast<T, R>,
      cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::kSmemBytes);
  if (err == cudaSuccess)
    allowed.fetch_or (bit, std::memory_order_relaxed);
  return err;
}

template <class T, int R>
cudaError_t launch_fast_radius (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream)
{
  typedef FastShape<T, R> Shape;
  constexpr int rows_per_block = Shape::kBlockY * Shape::kRows;
  constexpr int columns_per_block = kFastBlockX * Shape::kCols;
  constexpr int dynamic_smem = Shape::kDynamicSmem ? Shape::kSmemBytes : 0;
  if (dynamic_smem) {
    const cudaError_t err = fast_allow_smem<T, R> ();
    if (err != cudaSuccess)
      return err;
  }
  dim3 block (kFastBlockX, Shape::kBlockY);
  dim3 grid ((io.width + columns_per_block - 1) / columns_per_block,
      (row_end - row_begin + rows_per_block - 1) / rows_per_block,
      T::kGridLayers);
  bilateral_fast<T, R><<<grid, block, dynamic_smem, stream>>> (
      io, row_begin, row_end, w->tables_dev);
  return cudaSuccess;
}

} /* namespace */

#endif /* CBF_BILATERAL_FAST_CUH */
