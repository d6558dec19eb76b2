/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The regions' kernels. Their weights: one thread a pixel of the rectangle
 * asked for, each trying every box (a frame has few), the boxes a kernel
 * parameter so that a frame's regions need no upload; the arithmetic is in
 * regions.h, shared with the host. And the copy of the frame outside the
 * windows the filter writes, run beside them. */

#include "device.h"
#include "regions.h"
#include "tunables.cuh"

namespace {

__global__ void region_weights (CbfRegionSet set, int fx, int fy,
    const uint8_t *mask, size_t mask_pitch, uint8_t *weights,
    size_t weights_pitch, int x0, int y0, int w, int h)
{
  const int x = x0 + blockIdx.x * kMaskBlockW + threadIdx.x;
  const int y = y0 + blockIdx.y * kMaskBlockH + threadIdx.y;
  if (x >= x0 + w || y >= y0 + h)
    return;
  int m = cbf_region_set_weight (&set, fx, fy, x, y);
  if (mask)
    m = cbf_region_mask_combine (m, mask[(size_t)y * mask_pitch + x]);
  weights[(size_t)y * weights_pitch + x] = (uint8_t)m;
}

/* A row of a segmentation mask's cells a thread: masks have few rows, and
 * this runs once a frame. */
__global__ void region_cells_index (
    const uint8_t *cells, int cols, int rows, int32_t *left, int32_t *right)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= rows)
    return;
  const size_t at = (size_t)j * cols;
  cbf_region_cells_nearest (cells + at, cols, left + at, right + at);
}

/* Chunks of C bytes (16 where both planes' rows allow it), a thread a
 * chunk at a time: the frame's copy is bound by memory, and 16-byte
 * accesses reach its bandwidth where smaller ones do not. Few blocks, each
 * striding over the rows: the copy runs beside the windows' filter, whose
 * blocks must still find room on every SM. */
template <int C>
__global__ void copy_except (const uint8_t *in, size_t in_pitch, uint8_t *out,
    size_t out_pitch, size_t row_bytes, int row_begin, int row_end,
    CbfByteRects skip)
{
  const size_t chunks = (row_bytes + C - 1) / C;
  const size_t total = chunks * (size_t)(row_end - row_begin);
  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < total;
       k += (size_t)gridDim.x * blockDim.x) {
    const int y = row_begin + (int)(k / chunks);
    const size_t x = k % chunks * C;
    bool inside = false;
    for (int i = 0; i < skip.n && !inside; i++)
      inside = y >= skip.rects[i].y0 && y < skip.rects[i].y1
          && x >= (size_t)skip.rects[i].x0 && x < (size_t)skip.rects[i].x1;
    if (inside)
      continue;
    const uint8_t *src = in + (size_t)y * in_pitch + x;
    uint8_t *dst = out + (size_t)y * out_pitch + x;
    if (x + C <= row_bytes) {
      if constexpr (C == 16)
        *(uint4 *)dst = *(const uint4 *)src;
      else if constexpr (C == 4)
        *(uint32_t *)dst = *(const uint32_t *)src;
      else
        *dst = *src;
    } else {
      for (size_t b = 0; x + b < row_bytes; b++)
        dst[b] = src[b];
    }
  }
}

template <int C>
cudaError_t launch_copy_except (const CbfPlane *in, const CbfPlane *out,
    size_t row_bytes, int row_begin, int row_end, const CbfByteRects *skip,
    cudaStream_t stream)
{
  CbfDeviceFigures f;
  const cudaError_t err = cbf_device_figures (&f);
  if (err != cudaSuccess)
    return err;
  const size_t threads = (row_bytes + C - 1) / C * (row_end - row_begin);
  const size_t blocks = (threads + kCopyBlock - 1) / kCopyBlock;
  const size_t most = (size_t)f.sms * kCopyBlocksPerSm;
  copy_except<C>
      <<<(unsigned)(blocks < most ? blocks : most), kCopyBlock, 0, stream>>> (
          in->data, in->pitch_bytes, out->data, out->pitch_bytes, row_bytes,
          row_begin, row_end, *skip);
  return cudaGetLastError ();
}

} // namespace

extern "C" cudaError_t cbf_copy_except (const CbfPlane *in, const CbfPlane *out,
    size_t row_bytes, int row_begin, int row_end, const CbfByteRects *skip,
    cudaStream_t stream)
{
  if (row_end <= row_begin || row_bytes == 0)
    return cudaSuccess;
  if (skip->n < 0 || skip->n > CBF_MAX_REGION_WINDOWS)
    return cudaErrorInvalidValue;
  const uintptr_t bits = (uintptr_t)in->data | (uintptr_t)out->data
      | in->pitch_bytes | out->pitch_bytes;
  if (bits % 16 == 0)
    return launch_copy_except<16> (
        in, out, row_bytes, row_begin, row_end, skip, stream);
  if (bits % 4 == 0)
    return launch_copy_except<4> (
        in, out, row_bytes, row_begin, row_end, skip, stream);
  return launch_copy_except<1> (
      in, out, row_bytes, row_begin, row_end, skip, stream);
}

extern "C" cudaError_t cbf_region_weights (const CbfRegionSet *set, int fx,
    int fy, const CbfPlane *mask, const CbfPlane *weights, int x0, int y0,
    int w, int h, cudaStream_t stream)
{
  if (w <= 0 || h <= 0)
    return cudaSuccess;
  if (x0 < 0 || y0 < 0 || x0 + w > weights->width || y0 + h > weights->height
      || set->n < 0 || set->n > CBF_MAX_REGIONS || fx < 1 || fy < 1)
    return cudaErrorInvalidValue;
  const dim3 block (kMaskBlockW, kMaskBlockH);
  const dim3 grid (
      (w + kMaskBlockW - 1) / kMaskBlockW, (h + kMaskBlockH - 1) / kMaskBlockH);
  region_weights<<<grid, block, 0, stream>>> (*set, fx, fy,
      mask ? mask->data : nullptr, mask ? mask->pitch_bytes : 0, weights->data,
      weights->pitch_bytes, x0, y0, w, h);
  return cudaGetLastError ();
}

extern "C" cudaError_t cbf_region_cells_index (const uint8_t *cells, int cols,
    int rows, int32_t *left, int32_t *right, cudaStream_t stream)
{
  if (cols <= 0 || rows <= 0)
    return cudaErrorInvalidValue;
  region_cells_index<<<(rows + kCellIndexBlock - 1) / kCellIndexBlock,
      kCellIndexBlock, 0, stream>>> (cells, cols, rows, left, right);
  return cudaGetLastError ();
}
