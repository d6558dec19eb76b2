/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The chroma guide (guide.h): a pass that reads luma once and writes a
 * plane a quarter of its size (4:2:0): memory-bound, and small beside the
 * filter that follows. */

#include "guide.h"
#include "tunables.cuh"

#include <cstdint>

namespace {

/* Sample (@x, @y) of @p, its own bits (deep samples shifted down). */
template <class S>
__device__ __forceinline__ uint32_t sample_at (
    const CbfPlane &p, uint32_t mask, int x, int y)
{
  const S raw = *reinterpret_cast<const S *> (
      p.data + (size_t)y * p.pitch_bytes + (size_t)x * p.pixel_bytes);
  return ((uint32_t)raw >> p.sample_shift) & mask;
}

/* One direction's filter (guide.h): the weights of the luma samples
 * before, at and after the one a chroma sample sits at or after (2x, or x
 * where not subsampled), and log2 of their sum. */
struct Taps
{
  int before, at, after, shift;
};

Taps taps_of (int sub, bool cosited)
{
  if (sub == 1)
    return Taps{ 0, 1, 0, 0 };
  return cosited ? Taps{ 1, 2, 1, 2 } : Taps{ 0, 1, 1, 1 };
}

/* Every format and siting: one guide sample a thread, guide.h's
 * definition as written, up to 3 x 3 taps; a tap of weight 0 is not
 * loaded (the weights are the launch's, the same in every thread: no
 * warp diverges on them). The luma sample at 2x (or x) is always inside
 * the picture; its neighbours are clamped to the picture's edges. */
template <class S>
__global__ void chroma_guide (CbfPlane luma, CbfPlane guide, uint32_t mask,
    Taps tx, Taps ty, int sub_x, int sub_y, int x_begin, int row_begin,
    int row_end)
{
  const int x = x_begin + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = row_begin + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= guide.width || y >= row_end)
    return;
  const int x0 = x * sub_x, y0 = y * sub_y;
  const int cols[3] = { max (x0 - 1, 0), x0, min (x0 + 1, luma.width - 1) };
  const int rows[3] = { max (y0 - 1, 0), y0, min (y0 + 1, luma.height - 1) };
  const int wx[3] = { tx.before, tx.at, tx.after };
  const int wy[3] = { ty.before, ty.at, ty.after };
  uint32_t sum = 0;
#pragma unroll
  for (int j = 0; j < 3; j++) {
    if (!wy[j])
      continue;
    uint32_t row = 0;
#pragma unroll
    for (int i = 0; i < 3; i++)
      if (wx[i])
        row += wx[i] * sample_at<S> (luma, mask, cols[i], rows[j]);
    sum += wy[j] * row;
  }
  /* one rounding, half up: the total is a power of two (1 to 16) */
  const int shift = tx.shift + ty.shift;
  const uint32_t mean = (sum + ((1u << shift) >> 1)) >> shift;
  *reinterpret_cast<S *> (
      guide.data + (size_t)y * guide.pitch_bytes + (size_t)x * sizeof (S))
      = (S)(mean << luma.sample_shift);
}

/* Byte @i (0 to 7) of an 8-byte word. */
__device__ __forceinline__ uint32_t byte_at (uint2 w, int i)
{
  return ((i < 4 ? w.x : w.y) >> (8 * (i & 3))) & 0xffu;
}

/* One luma row's part of guide sample @k (0 to 3) of the eight luma bytes
 * @w: [1 1] over bytes 2k, 2k + 1 (centred), or [1 2 1] over 2k - 1 (for
 * k = 0 @left, the byte before the eight), 2k, 2k + 1 (cosited). */
template <bool kCosited>
__device__ __forceinline__ uint32_t row_part (uint2 w, uint32_t left, int k)
{
  const uint32_t at = byte_at (w, 2 * k), after = byte_at (w, 2 * k + 1);
  if (!kCosited)
    return at + after;
  return (k ? byte_at (w, 2 * k - 1) : left) + 2 * at + after;
}

/* The common case, 8-bit 4:2:0 or 4:2:2 luma with one byte a sample
 * (I420, NV12), chroma centred or cosited horizontally only (jpeg, and
 * mpeg2, the default siting of HD video and its decoders): four guide
 * samples a thread, from one 8-byte load of each of its luma rows (and,
 * kCositedX, the byte before them, column 8j - 1, or column 0 clamped for
 * j = 0: one more load), stored as one word; the plain kernel was bound by
 * its byte loads. 4:2:2 reads its one row twice, which doubles the sum and
 * the total alike: the same mean. Vertical cositing (the cosited and dv
 * sitings, rare), and the columns past the last whole eight bytes, where
 * the taps are clamped, are left to the plain kernel. */
template <bool kCositedX>
__global__ void chroma_guide_x4 (CbfPlane luma, CbfPlane guide, int sub_y,
    int row_begin, int row_end, int words)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = row_begin + blockIdx.y * blockDim.y + threadIdx.y;
  if (j >= words || y >= row_end)
    return;
  const int y0 = y * sub_y;
  const int y1 = min (y0 + sub_y - 1, luma.height - 1);
  const uint8_t *row_a = luma.data + (size_t)y0 * luma.pitch_bytes + 8 * j;
  const uint8_t *row_b = luma.data + (size_t)y1 * luma.pitch_bytes + 8 * j;
  const uint2 a = *reinterpret_cast<const uint2 *> (row_a);
  const uint2 b = *reinterpret_cast<const uint2 *> (row_b);
  uint32_t left_a = 0, left_b = 0;
  if (kCositedX) {
    left_a = j ? row_a[-1] : a.x & 0xffu;
    left_b = j ? row_b[-1] : b.x & 0xffu;
  }
  /* totals 4 (centred: 2 x 2) and 8 (cosited: [1 2 1] x 2) */
  constexpr int kShift = kCositedX ? 3 : 2;
  uint32_t out = 0;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const uint32_t sum = row_part<kCositedX> (a, left_a, k)
        + row_part<kCositedX> (b, left_b, k);
    out |= ((sum + (1u << (kShift - 1))) >> kShift) << (8 * k);
  }
  *reinterpret_cast<uint32_t *> (
      guide.data + (size_t)y * guide.pitch_bytes + 4 * (size_t)j)
      = out;
}

} /* namespace */

extern "C" cudaError_t cbf_chroma_guide (const CbfPlane *luma,
    const CbfPlane *guide, int sub_x, int sub_y, int site, int row_begin,
    int row_end, cudaStream_t stream)
{
  const int bytes = guide->pixel_bytes;
  if ((sub_x != 1 && sub_x != 2) || (sub_y != 1 && sub_y != 2)
      || (site & ~(CBF_CHROMA_SITE_H_COSITED | CBF_CHROMA_SITE_V_COSITED))
      || (bytes != 1 && bytes != 2) || luma->width <= 0 || luma->height <= 0
      || guide->width != (luma->width + sub_x - 1) / sub_x
      || guide->height != (luma->height + sub_y - 1) / sub_y || row_begin < 0
      || row_end > guide->height || row_begin >= row_end
      || (bytes == 1 && luma->sample_shift != 0))
    return cudaErrorInvalidValue;
  const uint32_t mask = bytes == 1 ? 0xffu
      : luma->sample_bits          ? (1u << luma->sample_bits) - 1
                                   : 0xffffu;
  /* a flag of a direction not subsampled is ignored */
  const bool cosited_x = sub_x == 2 && (site & CBF_CHROMA_SITE_H_COSITED);
  const bool cosited_y = sub_y == 2 && (site & CBF_CHROMA_SITE_V_COSITED);
  const dim3 block (kGuideBlockX, kGuideBlockY);
  const int rows = (row_end - row_begin + block.y - 1) / block.y;
  cudaGetLastError ();
  /* Whole words of four guide samples whose luma lies in the picture;
   * the rest (the columns past the last whole word, where the taps are
   * clamped) and vertical cositing by the plain kernel. */
  const int words = bytes == 1 && luma->pixel_bytes == 1 && sub_x == 2
          && !cosited_y
          && ((uintptr_t)luma->data | luma->pitch_bytes | (uintptr_t)guide->data
                 | guide->pitch_bytes)
                  % 8
              == 0
      ? luma->width / 8
      : 0;
  const dim3 grid_x4 ((words + block.x - 1) / block.x, rows);
  if (words && cosited_x)
    chroma_guide_x4<true><<<grid_x4, block, 0, stream>>> (
        *luma, *guide, sub_y, row_begin, row_end, words);
  else if (words)
    chroma_guide_x4<false><<<grid_x4, block, 0, stream>>> (
        *luma, *guide, sub_y, row_begin, row_end, words);
  const int x_begin = 4 * words;
  if (x_begin == guide->width)
    return cudaGetLastError ();
  const Taps tx = taps_of (sub_x, cosited_x), ty = taps_of (sub_y, cosited_y);
  const dim3 grid ((guide->width - x_begin + block.x - 1) / block.x, rows);
  if (bytes == 1)
    chroma_guide<uint8_t><<<grid, block, 0, stream>>> (
        *luma, *guide, mask, tx, ty, sub_x, sub_y, x_begin, row_begin, row_end);
  else
    chroma_guide<uint16_t><<<grid, block, 0, stream>>> (
        *luma, *guide, mask, tx, ty, sub_x, sub_y, x_begin, row_begin, row_end);
  return cudaGetLastError ();
}
