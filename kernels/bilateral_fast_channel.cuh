/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The specialised bilateral kernel for one 8-bit channel (radius <=
 * CBF_FAST_EXTENDED_MAX_RADIUS), on bilateral_fast.cuh's block, tile and
 * walk. Each thread computes K rows of four adjacent outputs. Each weight
 * is a 16-bit integer, w x 2^15 rounded (above CBF_FAST_MAX_RADIUS, w x
 * cbf_extended_int_scale), from a table per distance class (made on the
 * host, bilateral.h), and the sums are 32-bit integers: an integer
 * multiply-add and an add a tap (ptxas adds two taps' weights in one
 * IADD3), where float weights need a conversion or the SFU. The tile holds
 * the source bytes as they are, and a thread's four columns start on a
 * word, so that one 32-bit load brings four entries: the tile's loads take
 * a quarter of the shared-memory wavefronts of 32-bit entries (that pipe
 * bounds this kernel). An entry is taken as its level v in bytes 0 and 1,
 * 257 v (one byte permute, level_entry): the SIMD sum of
 * absolute byte differences of two such is 2 x their difference, directly
 * the byte offset of a 16-bit weight (a warp's 32 loads then conflict only
 * where distances 64 apart meet). The sums are Σ w 257 v modulo 2^32 and
 * Σ w; Σ w v, at most 197 x 2^15 x 255 < 2^32 (radius 8; beyond, the
 * scale keeps it so), is the first times the inverse of 257 modulo 2^32,
 * exactly (int_level). The weights' rounding (at most half a step each)
 * moves the result by at most 197 x 2^-16 x 255 = 0.77 levels at radius 8,
 * 317 x 255 / (2 x 65535) = 0.62 at radius 10 where the scale is 65535
 * (sigma-space small enough that the space weights sum below 257). The
 * taps between a thread's own outputs are summed once for both
 * (ChannelWindow::int_start). */

#ifndef CBF_BILATERAL_FAST_CHANNEL_CUH
#define CBF_BILATERAL_FAST_CHANNEL_CUH

#include "bilateral_fast.cuh"

namespace {

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

/* The shape of one-channel layout T at radius R. */
template <class T, int R>
struct ChannelShape : FastGeometry<R, false, T::kPlanes>
{
  typedef FastGeometry<R, false, T::kPlanes> Geometry;
  static_assert (Geometry::kCols == 4, "the byte tile's word a thread");
  typedef uint8_t TileEntry;
  /* the per-class integer weights, always copied in words */
  static constexpr int kLutLen = Geometry::kClasses * CBF_INT_CLASS_FLOATS;
  static constexpr int kLutOffset = cbf_tables_int_weights_offset (R);
  static constexpr bool kWordCopy = true;
  /* Rows padded where the warps take 8 x 4 positions, so that their loads
   * do not conflict (int_tile_width). */
  static constexpr bool kWarpShape = R >= kIntWarpMinRadius;
  static constexpr int kTileW = kWarpShape
      ? int_tile_width (Geometry::kMinTileW, Geometry::kRows)
      : Geometry::kMinTileW;
};

/* The byte tile from aligned 32-bit loads, where load_tile takes a byte
 * load, a 64-bit address and a store for each pixel: fewer instructions,
 * and faster. Tile word j of a row holds source pixels x0 - R + 4 j .. + 3
 * (x0 is a multiple of 128), which straddle two aligned source words
 * unless R is a multiple of 4: a funnel shift joins them. A thread issues
 * all its loads before its first store, so that they wait for memory once,
 * not once each (the weights' copy is batched the same way,
 * FastWeightCopy). Rows above or below the picture are found by the border
 * rule a row at a time, which was faster than load_tile for the first and
 * last rows of blocks (what-was-tried.md, "Specialised kernel steps"). Returns false, and
 * leaves the tile to load_tile, for pixels of more than one byte, a plane
 * or pitch not 4-byte aligned, blocks whose words reach past the picture's
 * left or right edge (which the border rule maps within a row), and rows
 * past its top or bottom under the constant border (which reads no row). */
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
  if (!rows_inside && io.border == CBF_BORDER_CONSTANT)
    return false;
  constexpr int kCount = kTileH * kWords;
  constexpr int kIters = (kCount + kThreads - 1) / kThreads;
  uint32_t loaded[kIters][kSpan];
  /* The border rule in a copy of the loop of its own, so that the blocks
   * whose rows are all inside, most of them, never evaluate it. */
  const auto issue = [&] (auto edge_rows) {
    /* the rows first, so that no call of the rule comes between loads */
    int sy[kIters];
#pragma unroll
    for (int k = 0; k < kIters; k++) {
      const int row = (tid + k * kThreads) / kWords;
      sy[k] = edge_rows ? io.row (y0 - R + row) : y0 - R + row;
    }
#pragma unroll
    for (int k = 0; k < kIters; k++) {
      const int i = tid + k * kThreads;
      const int j = i - i / kWords * kWords;
      if (kCount % kThreads == 0 || i < kCount) {
        const uint32_t *at = reinterpret_cast<const uint32_t *> (
            plane + (size_t)sy[k] * pitch + x_first + 4 * j);
#pragma unroll
        for (int h = 0; h < kSpan; h++)
          loaded[k][h] = at[h];
      }
    }
  };
  if (rows_inside)
    issue (std::false_type{});
  else
    issue (std::true_type{});
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

/* Byte @k of a tile word as the entry the integer sums take, the level in
 * bytes 0 and 1 (257 x the level): one byte permute. */
__device__ __forceinline__ uint32_t level_entry (uint32_t word, int k)
{
  return __byte_perm (word, 0, 0x4400 | 0x11 * k);
}

/* A one-channel layout whose tile entries are the level itself, one byte,
 * for load_tile. */
template <class T> struct LevelTile : T
{
  template <bool kEdge = false>
  static __device__ __forceinline__ uint32_t load (const Io &io, int y, int x)
  {
    return T::template load<kEdge> (io, y, x) >> 2;
  }
};

/* A thread's K x C outputs and their integer sums. */
template <class T, int R, int K, int C>
struct ChannelWindow : FastWalk<ChannelWindow<T, R, K, C>, R, K, C>
{
  typedef FastWalk<ChannelWindow, R, K, C> Walk;
  static constexpr int kTileW = ChannelShape<T, R>::kTileW;
  /* tile, column dx = 0 of source row 0 */
  const uint8_t *col;
  const float *range_lut;
  /* Output (k, c), row k and column c of the thread's, at [k * C + c]:
   * its entry (level_entry), Σ w v and Σ w. */
  uint32_t centre[K * C];
  uint32_t int_v[K * C];
  uint32_t int_w[K * C];

  /* The weight of tap (dx, dy) whose entry (level_entry) is @p, for the
   * output whose own entry is @c: the SIMD sum of their absolute byte
   * differences, 2 x the level difference, is the byte offset of the
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

  /* Tap (DX - c, S - R - k) of output (k, c); @p is the tile entry as
   * level_entry takes it, 257 x the level. */
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

  template <int S, int DX, int... o>
  __device__ __forceinline__ void int_tap_outputs (
      uint32_t p, std::integer_sequence<int, o...>)
  {
    (int_tap_output<S, DX, o / C, o % C> (p), ...);
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

  /* The sums start with the taps that are the thread's own outputs, whose
   * entries are already loaded (centre): each output's own tap, weight
   * exactly 1 (space and range at 0: the scale, CBF_INT_WEIGHT_ONE to
   * radius CBF_FAST_MAX_RADIUS, beyond it the first entry of class 0's
   * table), and the pairs'. */
  __device__ __forceinline__ void int_start ()
  {
    uint32_t one = CBF_INT_WEIGHT_ONE;
    if constexpr (R > CBF_FAST_MAX_RADIUS)
      one = *reinterpret_cast<const unsigned short *> (range_lut);
#pragma unroll
    for (int o = 0; o < K * C; o++) {
      int_v[o] = one * centre[o];
      int_w[o] = one;
    }
    int_pairs (std::make_integer_sequence<int, K * C * K * C> ());
  }

  /* Source pixel (DX, S), loaded: used by every output whose window holds
   * it. */
  template <int S, int DX> __device__ __forceinline__ void taps (uint32_t p)
  {
    if constexpr (Walk::used (S, DX))
      int_tap_outputs<S, DX> (p, std::make_integer_sequence<int, K * C> ());
  }

  /* The four entries (DX .. DX + 3) in one 32-bit load, aligned (a
   * thread's first column, and each row's start, a multiple of 4); a
   * warp's threads read consecutive words. */
  template <int S, int DX> __device__ __forceinline__ void load ()
  {
    if constexpr (Walk::used_entries (S, DX)) {
      const uint32_t four
          = *reinterpret_cast<const uint32_t *> (col + S * kTileW + DX);
      taps<S, DX> (level_entry (four, 0));
      taps<S, DX + 1> (level_entry (four, 1));
      taps<S, DX + 2> (level_entry (four, 2));
      taps<S, DX + 3> (level_entry (four, 3));
    }
  }
};

/* The level, @weighted_sum / @weight_sum (Σ w v / Σ w) rounded half to
 * even, in the low byte of the result. The fused multiply-add adds the
 * quotient to 1.5 x 2^23, whose unit in the last place is 1, rounding it
 * to an integer that the float's mantissa then ends in, where a conversion
 * would take the XU pipe. The reciprocal is off by at most 1 ulp, so the
 * quotient by about 2^-23 x 255 levels beside the sums' own error. This
 * and a row's pixels in one store (int_store_rows) replaced __fdividef,
 * __float2int_rn and a store a pixel, which were slower, and keep the
 * output within +-1 of OpenCV (what-was-tried.md, "Specialised kernel
 * steps"). */
__device__ __forceinline__ uint32_t rounded_level (
    float weighted_sum, float weight_sum)
{
  float reciprocal;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(reciprocal) : "f"(weight_sum));
  return __float_as_uint (__fmaf_rn (weighted_sum, reciprocal, 12582912.f));
}

/* rounded_level from integer sums: @weighted_sum is Σ w 257 v modulo 2^32;
 * 257 is odd, and 0xff00ff01 its inverse modulo 2^32, so that the product
 * is Σ w v exactly, below 2^32. Each sum converted to float is off by at
 * most 2^-24 of itself, so the quotient by about 2^-22 x 255 levels in
 * all. */
__device__ __forceinline__ uint32_t int_level (
    uint32_t weighted_sum, uint32_t weight_sum)
{
  return rounded_level ((float)(weighted_sum * 0xff00ff01u), (float)weight_sum);
}

/* Writes a thread's K x 4 outputs, rows from @y and columns from @x (a
 * multiple of 4), output o (row o / 4, column o % 4) the quotient
 * @quotient (o) where the temporal filter takes it, else the level
 * @level (o): a row's address formed once, and its four pixels in one
 * 32-bit store where they are bytes and the plane's alignment allows,
 * else one at a time. */
template <class T, int K, class Quotient, class Level>
__device__ __forceinline__ void store_rows (
    const Io &io, int x, int y, int row_end, Quotient quotient, Level level_of)
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
    if (io.state[0]) {
      /* The temporal filter takes the quotient before rounding. */
#pragma unroll
      for (int c = 0; c < 4; c++)
        if (x + c < io.width)
          level[c] = finish_channel<uint8_t> (
              io, plane, y + k, x + c, quotient (k * 4 + c));
    } else {
#pragma unroll
      for (int c = 0; c < 4; c++)
        level[c] = level_of (k * 4 + c);
    }
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

/* store_rows for the integer sums: Σ w 257 v modulo 2^32 and Σ w. */
template <class T, int K>
__device__ __forceinline__ void int_store_rows (const Io &io, int x, int y,
    int row_end, const uint32_t (&weighted_sums)[K * 4],
    const uint32_t (&weight_sums)[K * 4])
{
  store_rows<T, K> (
      io, x, y, row_end,
      [&] (int o) {
        return (float)(weighted_sums[o] * 0xff00ff01u) / (float)weight_sums[o];
      },
      [&] (int o) { return int_level (weighted_sums[o], weight_sums[o]); });
}

template <class T, int R>
__global__ void __launch_bounds__ (ChannelShape<T, R>::kThreads,
    ChannelShape<T, R>::kMinBlocks) bilateral_fast_channel (Io io,
    int row_begin, int row_end, const float *__restrict__ tables)
{
  typedef ChannelShape<T, R> Shape;
  constexpr int K = Shape::kRows;
  constexpr int C = Shape::kCols;
  typedef ChannelWindow<T, R, K, C> Window;
  constexpr int kTileW = Shape::kTileW;
  constexpr int kTileH = Shape::kTileH;
  FastBlock<Shape> block (row_begin);
  const int tid = block.tid, x0 = block.x0, y0 = block.y0;
  block.load (tables, [&] {
    if (!load_tile_bytes<T, kTileW, kTileH, R, Shape::kThreads> (
            block.tile, io, x0, y0, tid))
      load_tile<LevelTile<T>, kTileW, kTileH, R, kFastBlockX, Shape::kBlockY,
          false> (block.tile, io, x0, y0);
  });

  /* The thread's position among the block's kFastBlockX x kBlockY; its
   * warp takes 8 x 4 of them from radius 7 (kIntWarpCols). */
  int tx = threadIdx.x, ty = threadIdx.y;
  if constexpr (Shape::kWarpShape) {
    static_assert (Shape::kBlockY % kIntWarpRows == 0, "whole warps");
    constexpr int kWarpsAcross = kFastBlockX / kIntWarpCols;
    const int warp = tid / 32, lane = tid % 32;
    tx = warp % kWarpsAcross * kIntWarpCols + lane % kIntWarpCols;
    ty = warp / kWarpsAcross * kIntWarpRows + lane / kIntWarpCols;
  }

  Window window;
  window.col = block.tile + ty * K * kTileW + C * tx + R;
  window.range_lut = block.range_lut;
  /* A row's four outputs from the aligned words around them, as level_entry
   * takes them: two loads a row where four byte loads were
   * (what-was-tried.md, "Specialised kernel steps"). */
#pragma unroll
  for (int k = 0; k < K; k++) {
    const uint32_t *words = reinterpret_cast<const uint32_t *> (
        window.col + (k + R) * kTileW - R % 4);
    const uint32_t four
        = R % 4 ? __funnelshift_r (words[0], words[1], 8 * (R % 4)) : words[0];
#pragma unroll
    for (int c = 0; c < C; c++)
      window.centre[k * C + c] = level_entry (four, c);
  }
#pragma unroll
  for (int k = 0; k < K; k++)
    if (x0 + C * tx < io.width && y0 + ty * K + k < row_end)
      temporal_prefetch<uint8_t> (
          io, T::channel (), y0 + ty * K + k, x0 + C * tx);
  window.int_start ();
  window.run ();

  int_store_rows<T, K> (
      io, x0 + C * tx, y0 + ty * K, row_end, window.int_v, window.int_w);
}

template <class T, int R>
cudaError_t launch_fast_channel (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream)
{
  return launch_fast<T, ChannelShape<T, R>> (
      bilateral_fast_channel<T, R>, io, row_begin, row_end, w, stream);
}

} /* namespace */

#endif /* CBF_BILATERAL_FAST_CHANNEL_CUH */
