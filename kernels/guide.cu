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

template <class S>
__global__ void chroma_guide (CbfPlane luma, CbfPlane guide, uint32_t mask,
    int sub_x, int sub_y, int x_begin, int row_begin, int row_end)
{
  const int x = x_begin + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = row_begin + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= guide.width || y >= row_end)
    return;
  /* the block's luma samples, the last column's or row's repeated */
  const int x0 = x * sub_x, y0 = y * sub_y;
  const int x1 = min (x0 + sub_x - 1, luma.width - 1);
  const int y1 = min (y0 + sub_y - 1, luma.height - 1);
  const uint32_t sum = sample_at<S> (luma, mask, x0, y0)
      + sample_at<S> (luma, mask, x1, y0) + sample_at<S> (luma, mask, x0, y1)
      + sample_at<S> (luma, mask, x1, y1);
  /* four samples whatever the subsampling (a repeated one counted twice
   * or four times), so the mean rounded half up is one shift */
  const uint32_t mean = (sum + 2) >> 2;
  *reinterpret_cast<S *> (
      guide.data + (size_t)y * guide.pitch_bytes + (size_t)x * sizeof (S))
      = (S)(mean << luma.sample_shift);
}

/* The common case, 8-bit 4:2:0 or 4:2:2 luma with one byte a sample
 * (I420, NV12): four guide samples a thread, from one 8-byte load of
 * each of its luma rows, stored as one word; the plain kernel was bound by
 * its byte loads. Rows and columns past the picture's edge are left to
 * that kernel. */
__global__ void chroma_guide_x4 (CbfPlane luma, CbfPlane guide, int sub_y,
    int row_begin, int row_end, int words)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = row_begin + blockIdx.y * blockDim.y + threadIdx.y;
  if (j >= words || y >= row_end)
    return;
  const int y0 = y * sub_y;
  const int y1 = min (y0 + sub_y - 1, luma.height - 1);
  const uint2 a = *reinterpret_cast<const uint2 *> (
      luma.data + (size_t)y0 * luma.pitch_bytes + 8 * (size_t)j);
  const uint2 b = *reinterpret_cast<const uint2 *> (
      luma.data + (size_t)y1 * luma.pitch_bytes + 8 * (size_t)j);
  uint32_t out = 0;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const uint32_t wa = k < 2 ? a.x : a.y, wb = k < 2 ? b.x : b.y;
    const int shift = 16 * (k & 1);
    const uint32_t sum = ((wa >> shift) & 0xffu) + ((wa >> (shift + 8)) & 0xffu)
        + ((wb >> shift) & 0xffu) + ((wb >> (shift + 8)) & 0xffu);
    out |= ((sum + 2) >> 2) << (8 * k);
  }
  *reinterpret_cast<uint32_t *> (
      guide.data + (size_t)y * guide.pitch_bytes + 4 * (size_t)j)
      = out;
}

} /* namespace */

extern "C" cudaError_t cbf_chroma_guide (const CbfPlane *luma,
    const CbfPlane *guide, int sub_x, int sub_y, int row_begin, int row_end,
    cudaStream_t stream)
{
  const int bytes = guide->pixel_bytes;
  if ((sub_x != 1 && sub_x != 2) || (sub_y != 1 && sub_y != 2)
      || (bytes != 1 && bytes != 2) || luma->width <= 0 || luma->height <= 0
      || guide->width != (luma->width + sub_x - 1) / sub_x
      || guide->height != (luma->height + sub_y - 1) / sub_y || row_begin < 0
      || row_end > guide->height || row_begin >= row_end
      || (bytes == 1 && luma->sample_shift != 0))
    return cudaErrorInvalidValue;
  const uint32_t mask = bytes == 1 ? 0xffu
      : luma->sample_bits          ? (1u << luma->sample_bits) - 1
                                   : 0xffffu;
  const dim3 block (kGuideBlockX, kGuideBlockY);
  const int rows = (row_end - row_begin + block.y - 1) / block.y;
  cudaGetLastError ();
  /* Whole words of four guide samples whose luma lies in the picture;
   * the rest (an odd width's last sample) by the plain kernel. */
  const int words = bytes == 1 && luma->pixel_bytes == 1 && sub_x == 2
          && ((uintptr_t)luma->data | luma->pitch_bytes | (uintptr_t)guide->data
                 | guide->pitch_bytes)
                  % 8
              == 0
      ? luma->width / 8
      : 0;
  if (words)
    chroma_guide_x4<<<dim3 ((words + block.x - 1) / block.x, rows), block, 0,
        stream>>> (*luma, *guide, sub_y, row_begin, row_end, words);
  const int x_begin = 4 * words;
  if (x_begin == guide->width)
    return cudaGetLastError ();
  const dim3 grid ((guide->width - x_begin + block.x - 1) / block.x, rows);
  if (bytes == 1)
    chroma_guide<uint8_t><<<grid, block, 0, stream>>> (
        *luma, *guide, mask, sub_x, sub_y, x_begin, row_begin, row_end);
  else
    chroma_guide<uint16_t><<<grid, block, 0, stream>>> (
        *luma, *guide, mask, sub_x, sub_y, x_begin, row_begin, row_end);
  return cudaGetLastError ();
}
