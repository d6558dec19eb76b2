/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The streaming bilateral kernel (32-bit colour at radius 1): stream.cuh's
 * walk down a strip, with the specialised kernel's sums. */

#ifndef CBF_BILATERAL_STREAM_CUH
#define CBF_BILATERAL_STREAM_CUH

#include "stream.cuh"

namespace {

/* The spatial weight of each tap of the window, for the streaming kernels
 * (a launch parameter: it travels with the launch). */
struct SpaceTaps
{
  float w[CBF_FAST_MAX_TAPS];
};

/* The specialised kernel's sums (biased bytes, the same range table and
 * spatial taps), with the words of the window's 2r + 1 rows in a ring of
 * registers: output row y is filtered when source row y + r arrives. The
 * ring's slots are fixed at compile time by unrolling the row loop by the
 * window, so every tap's word is a register. Words are kept with their
 * fourth byte cleared, for the range distance. */
template <int kFirst, int R>
__global__ void __launch_bounds__ (kBilateralStreamThreads,
    kBilateralStreamMinBlocks) bilateral_stream (Io io, int row_begin,
    int row_end, const float *__restrict__ tables, SpaceTaps space)
{
  constexpr int kWindow = 2 * R + 1;
  constexpr int kWords = kStreamPixels + 2 * R;
  constexpr uint32_t kColorMask = Color32<kFirst>::kColorMask;
  __shared__ float range_lut[CBF_RANGE_LUT_LEN];
  const int tid = threadIdx.x;
  for (int i = tid; i < CBF_RANGE_LUT_LEN; i += kBilateralStreamThreads)
    range_lut[i] = tables[i];
  __syncthreads ();

  const int x
      = (blockIdx.x * kBilateralStreamThreads + threadIdx.x) * kStreamPixels;
  if (x >= io.width)
    return;
  const int y_begin = row_begin + blockIdx.y * kBilateralStreamRows;
  const int y_end = min (y_begin + kBilateralStreamRows, row_end);
  const bool inside = stream_inside (io, x);

  uint32_t ring[kWindow][kWords];
  /* Each row's fourth bytes of the thread's own pixels, copied through. */
  uint32_t kept[kWindow][kStreamPixels];
  int s = y_begin - R;
  const int s_end = y_end + R;
  StreamWords<R> next = stream_load<R> (io, s, x, inside);
  while (s < s_end) {
#pragma unroll
    for (int j = 0; j < kWindow; j++, s++) {
      if (s >= s_end)
        break;
#pragma unroll
      for (int k = 0; k < kWords; k++)
        ring[j][k] = next.w[k] & kColorMask;
#pragma unroll
      for (int p = 0; p < kStreamPixels; p++)
        kept[j][p] = next.w[R + p] & ~kColorMask;
      if (s + 1 < s_end)
        next = stream_load<R> (io, s + 1, x, inside);

      const int y = s - R;
      if (y < y_begin)
        continue;
      /* Row y + dy is in slot (j + 1 + r + dy) mod window. */
      uint32_t out[kStreamPixels];
#pragma unroll
      for (int p = 0; p < kStreamPixels; p++) {
        const uint32_t centre = ring[(j + 1 + R) % kWindow][p + R];
        Color::Sum sum;
#pragma unroll
        for (int dy = -R; dy <= R; dy++)
#pragma unroll
          for (int dx = -R; dx <= R; dx++)
            if (in_disc<R> (dx, dy)) {
              const uint32_t word
                  = ring[(j + 1 + R + dy) % kWindow][p + R + dx];
              const float w
                  = range_at (range_lut, Color::lut_offset (word, centre))
                  * space.w[(dy + R) * (2 * R + 1) + dx + R];
              /* Colour::unpack's selectors, moved to byte kFirst. */
              constexpr uint32_t kByte = 0x10 * kFirst;
              const Color::Value value{ Color::biased (word, 0x7604 + kByte),
                Color::biased (word, 0x7614 + kByte),
                Color::biased (word, 0x7624 + kByte) };
              Color::add (sum, value, w);
            }
        out[p] = (Color::result<true> (io, y, x + p, sum) << (8 * kFirst))
            | kept[(j + 1 + R) % kWindow][p];
      }
      stream_store (io, y, x, inside, out);
    }
  }
}

/* The launch parameter of the spatial weights, from @w. */
static inline SpaceTaps space_taps (const CbfFilterParams *w)
{
  SpaceTaps space;
  for (int i = 0; i < CBF_FAST_MAX_TAPS; i++)
    space.w[i] = w->bilateral.space_taps[i];
  return space;
}

template <class T>
void launch_bilateral_stream (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream)
{
  constexpr int pixels_a_block = kBilateralStreamThreads * kStreamPixels;
  const dim3 grid ((io.width + pixels_a_block - 1) / pixels_a_block,
      (row_end - row_begin + kBilateralStreamRows - 1) / kBilateralStreamRows);
  const SpaceTaps space = space_taps (w);
  bilateral_stream<StreamLayout<T>::kFirst, 1>
      <<<grid, kBilateralStreamThreads, 0, stream>>> (
          io, row_begin, row_end, w->bilateral.tables_dev, space);
}

} /* namespace */

#endif /* CBF_BILATERAL_STREAM_CUH */
