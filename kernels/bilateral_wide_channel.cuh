/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The wide bilateral kernel for one 8-bit channel: radii above
 * CBF_FAST_EXTENDED_MAX_RADIUS up to CBF_WIDE_MAX_RADIUS, known at run
 * time, near the specialised one-channel kernel's cost a tap. It keeps
 * that kernel's addressing (bilateral_fast_channel.cuh): a byte tile read
 * four pixels a load, each pixel taken as 257 x its level, whose SIMD sum
 * of absolute byte differences with an output's is the byte offset of a
 * 16-bit weight, space x range, in its distance class's table. The
 * weights are half floats and the sums floats, not that kernel's integers:
 * an integer scale shared by thousands of taps would round each small
 * weight to a whole step, and where most of a window weighs little (a
 * dark pixel in a flat field, at a large sigma-space) the lost weights
 * move the result by several levels; a half's relative rounding moves it
 * by at most 2^-11 x 255 levels. Where that kernel names a tap's class at
 * compile time, here each tap's class table comes from a shared-memory
 * table of the window's offsets, one row a window row, which a warp reads
 * whole (every thread walks the same taps), and the SIMD instruction adds
 * it to the distance for free. The classes' tables (512 bytes each) fill
 * shared memory at large radii, so classes whose weights all round to 0
 * share one table of zeros.
 *
 * Each thread computes K rows of C adjacent outputs (C a multiple of 4,
 * tunables.cuh). The window is walked by its rows dy as the other wide
 * kernel walks it (bilateral_wide.cuh: wide_first_column, wide_pair),
 * which the K outputs share: the same half width, the same offsets. A
 * step reads C / 4 funnel-shifted words of four pixels a row k, as the
 * walk's start need not fall on a word; its first and last steps leave
 * out, at compile time, the output-tap pairs outside the disc. */

#ifndef CBF_BILATERAL_WIDE_CHANNEL_CUH
#define CBF_BILATERAL_WIDE_CHANNEL_CUH

#include "bilateral_fast_channel.cuh"
#include "bilateral_wide.cuh"

namespace {

constexpr int kWideChannelThreads = 32 * kWideChannelBlockRows;
/* tile words a step: four pixels a word */
constexpr int kWideChannelWords = kWideChannelCols / 4;
static_assert (kWideChannelCols == 4 || kWideChannelCols == 8, "whole words");

/* A class table: 256 16-bit weights. */
constexpr int kWideClassBytes = 512;

/* A block's shared memory at run-time radius @radius with @tables class
 * tables, in bytes from 0: the tables, each window row's half width, the
 * offsets (a row of `stride` ints a window row, entry i the byte offset of
 * the class table of column j0 + i, j0 = -hw - pad (wide_first_column))
 * and the byte tile. The tile's column 0 is picture column x0 - left;
 * left, the furthest a walk starts (radius + C - 2) rounded up to 4, keeps
 * the tile's words aligned with the picture's; its width reaches the last
 * word a thread's funnel shift reads. */
struct WideChannelGeometry
{
  int radius, stride, left, tile_w, tile_h;
  int half_offset, offsets_offset, tile_offset;

  __host__ __device__ WideChannelGeometry (int r, int tables)
      : radius (r), stride ((2 * r + 2 * kWideChannelCols + 1) / 4 * 4),
        left ((r + kWideChannelCols + 1) / 4 * 4),
        tile_w (int_tile_width (
            32 * kWideChannelCols + left + r + 8, kWideChannelRows)),
        tile_h (kWideChannelBlockRows * kWideChannelRows + 2 * r),
        half_offset (tables * kWideClassBytes),
        offsets_offset (half_offset + (2 * r + 1 + 3) / 4 * 16),
        tile_offset (offsets_offset + (2 * r + 1) * stride * 4)
  {}
  __host__ __device__ int smem_bytes () const
  {
    return tile_offset + tile_w * tile_h;
  }
};

template <int K, int C> struct WideChannelSums
{
  static constexpr int W = C / 4;
  uint32_t centre[K * C];
  float sum_v[K * C];
  float sum_w[K * C];

  /* One step: @pixels, C pixels of each of the K rows, four a word; @now,
   * the offsets of the step's columns j .. j + C - 1; @before, of j - C ..
   * j - 1. Pixel n is tap j + n - c of output c. */
  template <int kPad, bool kLast>
  __device__ __forceinline__ void step (const uint32_t (&pixels)[K][W],
      const int (&now)[C], const int (&before)[C], const char *smem)
  {
#pragma unroll
    for (int n = 0; n < C; n++)
#pragma unroll
      for (int k = 0; k < K; k++) {
        const uint32_t p = level_entry (pixels[k][n / 4], n % 4);
        /* the level as a float: its byte in 2^23's mantissa, less 2^23 */
        const float v = __uint_as_float (__byte_perm (
                            pixels[k][n / 4], 0x4b000000u, 0x7440 | (n % 4)))
            - 8388608.f;
#pragma unroll
        for (int c = 0; c < C; c++) {
          if (!wide_pair<kPad, kLast> (n, c))
            continue;
          const int o = k * C + c;
          uint32_t at;
          asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;"
              : "=r"(at)
              : "r"(p), "r"(centre[o]),
              "r"(n >= c ? now[n - c] : before[C + n - c]));
          const float w
              = __half2float (*reinterpret_cast<const __half *> (smem + at));
          sum_v[o] = fmaf (w, v, sum_v[o]);
          sum_w[o] += w;
        }
      }
  }
};

/* The W words of pixels of each of the K rows at step @s of @rows: each
 * word and the next, shifted by @shift bits (0 where aligned); @lo
 * carries the last word from step to step. */
template <int K, int W>
__device__ __forceinline__ void wide_pixels (const uint32_t *const (&rows)[K],
    int s, int shift, uint32_t (&lo)[K], uint32_t (&pixels)[K][W])
{
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int w = 0; w < W; w++) {
      const uint32_t hi = rows[k][W * s + w + 1];
      pixels[k][w] = __funnelshift_r (lo[k], hi, shift);
      lo[k] = hi;
    }
}

template <class T>
__global__ void __launch_bounds__ (kWideChannelThreads, kWideChannelMinBlocks)
    bilateral_wide_channel (Io io, int row_begin, int row_end, int radius,
        int n_tables, const float *__restrict__ tables)
{
  constexpr int K = kWideChannelRows;
  constexpr int C = kWideChannelCols;
  constexpr int W = kWideChannelWords;
  extern __shared__ __align__ (16) uint32_t wide_channel_smem[];
  char *smem = reinterpret_cast<char *> (wide_channel_smem);
  const WideChannelGeometry g (radius, n_tables);
  const int tid = threadIdx.y * 32 + threadIdx.x;

  /* the class tables, as they are */
  const uint4 *from = reinterpret_cast<const uint4 *> (
      tables + cbf_tables_wide_channel_tables_offset (radius));
  for (int i = tid; i < n_tables * (kWideClassBytes / 16);
       i += kWideChannelThreads)
    reinterpret_cast<uint4 *> (smem)[i] = from[i];

  /* the half widths and the offsets, from the tables' half widths and
   * table index of each dx^2 + dy^2 */
  const float *half_widths = tables + CBF_RANGE_LUT_LEN + radius * radius + 1;
  const int *table_of = reinterpret_cast<const int *> (
                            tables + cbf_tables_wide_channel_offset (radius))
      + 4;
  int *half = reinterpret_cast<int *> (smem + g.half_offset);
  int *offsets = reinterpret_cast<int *> (smem + g.offsets_offset);
  wide_rows<C> (radius, g.stride, half_widths, half, tid, kWideChannelThreads,
      [&] (int i, int dx, int dy, bool in_disc) {
        offsets[i]
            = in_disc ? kWideClassBytes * table_of[dx * dx + dy * dy] : 0;
      });

  /* the tile, a word of four pixels at a time: one load where the word is
   * inside the picture and the plane allows it, else its pixels one by
   * one by the border rule */
  const int x0 = blockIdx.x * 32 * C;
  const int y0 = row_begin + blockIdx.y * kWideChannelBlockRows * K;
  const int words = g.tile_w / 4;
  uint32_t *tile = reinterpret_cast<uint32_t *> (smem + g.tile_offset);
  {
    const uint8_t *plane = Io::pick (io.src, T::channel ());
    const size_t pitch = Io::pick (io.src_pitch, T::channel ());
    const bool whole = io.pixel_bytes == 1 && !(((uintptr_t)plane | pitch) & 3);
    for (int i = tid; i < words * g.tile_h; i += kWideChannelThreads) {
      const int ty = i / words, x = x0 - g.left + 4 * (i - ty * words);
      const int y = y0 + ty - radius;
      uint32_t word = 0;
      if (whole && y >= 0 && y < io.height && x >= 0 && x + 3 < io.width) {
        word = *reinterpret_cast<const uint32_t *> (
            plane + (size_t)y * pitch + x);
      } else {
        const int sy = io.row (y);
        for (int b = 0; b < 4; b++)
          word |= LevelTile<T>::template load<true> (io, sy, io.col (x + b))
              << (8 * b);
      }
      tile[i] = word;
    }
  }
  __syncthreads ();

  /* the thread's position among the block's 32 x kWideChannelBlockRows:
   * its warp takes 8 x 4 of them */
  constexpr int kWarpsAcross = 32 / kIntWarpCols;
  const int warp = tid / 32, lane = tid % 32;
  const int tx = warp % kWarpsAcross * kIntWarpCols + lane % kIntWarpCols;
  const int ty = warp / kWarpsAcross * kIntWarpRows + lane / kIntWarpCols;
  /* the thread's first word of tile row 0 (dy = -radius for output row 0) */
  const uint32_t *own = tile + ty * K * words + W * tx;

  WideChannelSums<K, C> sums;
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int c = 0; c < C; c++) {
      sums.centre[k * C + c]
          = level_entry (own[(k + radius) * words + g.left / 4 + c / 4], c % 4);
      sums.sum_v[k * C + c] = 0.f;
      sums.sum_w[k * C + c] = 0.f;
    }
  const int x = x0 + C * tx, y = y0 + ty * K;
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int c = 0; c < C; c += 4)
      if (x + c < io.width && y + k < row_end)
        temporal_prefetch<uint8_t> (io, T::channel (), y + k, x + c);

  for (int dy = -radius; dy <= radius; dy++) {
    const int hw = half[dy + radius];
    const int first = wide_first_column<C> (hw);
    const int steps = (hw + C - first) / C;
    const int *row_offsets = offsets + (dy + radius) * g.stride;
    const int column = g.left + first;
    const int shift = 8 * (column & 3);
    const uint32_t *rows[K];
    uint32_t lo[K], pixels[K][W];
#pragma unroll
    for (int k = 0; k < K; k++) {
      rows[k] = own + (k + radius + dy) * words + (column >> 2);
      lo[k] = rows[k][0];
    }
    int now[C], before[C];
    wide_load<C> (row_offsets, now);
    wide_pixels<K, W> (rows, 0, shift, lo, pixels);
    wide_first_step<C> (-hw - first, [&] (auto pad) {
      sums.template step<decltype (pad)::value, false> (pixels, now, now, smem);
    });
    /* two steps an iteration: the offsets carried from one step to the
     * next then need no moves */
#pragma unroll 2
    for (int s = 1; s < steps - 1; s++) {
#pragma unroll
      for (int c = 0; c < C; c++)
        before[c] = now[c];
      wide_load<C> (row_offsets + C * s, now);
      wide_pixels<K, W> (rows, s, shift, lo, pixels);
      sums.template step<-1, false> (pixels, now, before, smem);
    }
    if (steps > 1) {
#pragma unroll
      for (int c = 0; c < C; c++)
        before[c] = now[c];
      wide_load<C> (row_offsets + C * (steps - 1), now);
      wide_pixels<K, W> (rows, steps - 1, shift, lo, pixels);
      sums.template step<-1, true> (pixels, now, before, smem);
    }
  }

  /* four columns at a time, as the specialised kernel stores them */
#pragma unroll
  for (int c = 0; c < C; c += 4) {
    const float *v = sums.sum_v, *wsum = sums.sum_w;
    const auto at = [c] (int o) { return o / 4 * C + c + o % 4; };
    store_rows<T, K> (
        io, x + c, y, row_end, [&] (int o) { return v[at (o)] / wsum[at (o)]; },
        [&] (int o) { return rounded_level (v[at (o)], wsum[at (o)]); });
  }
}

/* Launches layout T's wide one-channel kernel over output rows
 * [@row_begin, @row_end) where the parameters have its tables and its
 * shared memory fits the current device, and says so in @launched. */
template <class T>
cudaError_t launch_wide_channel (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream, bool *launched)
{
  static std::atomic<int> allowed[64];
  const int n_tables = w->bilateral.wide_channel_tables;
  int limit = 0;
  *launched = false;
  if (n_tables <= 0)
    return cudaSuccess;
  const WideChannelGeometry g (w->radius, n_tables);
  cudaError_t err
      = allow_device_smem (bilateral_wide_channel<T>, allowed, &limit);
  if (err != cudaSuccess || g.smem_bytes () > limit)
    return err;
  constexpr int rows_per_block = kWideChannelBlockRows * kWideChannelRows;
  dim3 block (32, kWideChannelBlockRows);
  constexpr int columns_per_block = 32 * kWideChannelCols;
  dim3 grid ((io.width + columns_per_block - 1) / columns_per_block,
      (row_end - row_begin + rows_per_block - 1) / rows_per_block,
      T::kGridLayers);
  bilateral_wide_channel<T><<<grid, block, g.smem_bytes (), stream>>> (
      io, row_begin, row_end, w->radius, n_tables, w->bilateral.tables_dev);
  *launched = true;
  return cudaSuccess;
}

} /* namespace */

#endif /* CBF_BILATERAL_WIDE_CHANNEL_CUH */
