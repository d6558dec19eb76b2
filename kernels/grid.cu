/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The bilateral grid (method=grid), for every pixel layout of the exact
 * kernels: splat, blur, slice (grid.h). A grid is of one channel, a cell
 * holding the sum of its levels and a count (kFloatsPerCell); a view has
 * T::kGuides grids (three for colour), and the views of one launch (U and
 * V) follow one another: grid (layer) view * kGuides + channel. */

#include "layouts.cuh"
#include "grid.h"

#include <math.h>

namespace {

constexpr int kFloatsPerCell = 2;

/* Blocks of kBlockW x kBlockH pixels, as the generic kernel's
 * (tunables.cuh). */
struct Grid
{
  CbfGridDims dims;
  float inv_cell_space;
  float inv_cell_range;
  float range_pad;
  float range_max;

  __device__ __forceinline__ size_t cell (int layer, int x, int y, int z) const
  {
    return ((((size_t)layer * dims.d + z) * dims.h + y) * dims.w + x)
        * kFloatsPerCell;
  }
  __host__ __device__ __forceinline__ size_t layer_floats () const
  {
    return (size_t)dims.w * dims.h * dims.d * kFloatsPerCell;
  }
};

__device__ __forceinline__ void grid_position (
    const Grid &g, int x, int y, float level, float *gx, float *gy, float *gz)
{
  *gx = x * g.inv_cell_space + CBF_GRID_PAD;
  *gy = y * g.inv_cell_space + CBF_GRID_PAD;
  /* The range axis holds levels up to range_max: a layout that let a
   * larger one through would otherwise index past the grid. */
  *gz = fminf (level, g.range_max) * g.inv_cell_range + g.range_pad;
}

/* One pixel's level and count into a cell: one 64-bit atomic where the
 * GPU has them for floats (compute capability 9.0 and later; two scalar
 * ones cost half as much again: what-was-tried.md, "Grid"), else two. */
__device__ __forceinline__ void add_to_cell (float *cell, float level)
{
#if __CUDA_ARCH__ >= 900
  atomicAdd (reinterpret_cast<float2 *> (cell), make_float2 (level, 1.f));
#else
  atomicAdd (cell, level);
  atomicAdd (cell + 1, 1.f);
#endif
}

/* The pixels of a warp that fall into one cell add to it once, so that
 * atomics on one address do not queue: match.any finds the lanes of each
 * cell, redux sums their levels (whole numbers, so the sum is exact and
 * the grid the same as with an atomic per pixel), and the lowest of them
 * adds the sum and the count. It pays where cells are large and costs
 * where they are small, so from kAggregateCellSpace pixels on
 * (tunables.cuh). */

__device__ __forceinline__ void add_to_cell_once (float *cell, float level)
{
#if __CUDA_ARCH__ >= 900
  const unsigned peers
      = __match_any_sync (__activemask (), (unsigned long long)cell);
  const unsigned sum = __reduce_add_sync (peers, (unsigned)level);
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (lane == (unsigned)__ffs (peers) - 1)
    atomicAdd (reinterpret_cast<float2 *> (cell),
        make_float2 ((float)sum, (float)__popc (peers)));
#else
  add_to_cell (cell, level);
#endif
}

/* Each pixel adds, in each of its view's grids, its level and a count of 1
 * to the cell nearest to it. */
template <class T, bool kAggregate>
__global__ void grid_splat (Io io, Grid g, float *cells)
{
  const int x = blockIdx.x * kBlockW + threadIdx.x;
  const int y = blockIdx.y * kBlockH + threadIdx.y;
  if (x >= io.width || y >= io.height)
    return;
  const typename T::Value p = T::template unpack<false> (T::load (io, y, x));
#pragma unroll
  for (int c = 0; c < T::kGuides; c++) {
    const float level = T::level (p, c);
    float gx, gy, gz;
    grid_position (g, x, y, level, &gx, &gy, &gz);
    float *cell = cells
        + g.cell (blockIdx.z * T::kGuides + c, (int)(gx + 0.5f),
            (int)(gy + 0.5f), (int)(gz + 0.5f));
    if (kAggregate)
      add_to_cell_once (cell, level);
    else
      add_to_cell (cell, level);
  }
}

/* One axis of the blur, [1 4 6 4 1] / 16 (a Gaussian of one cell); the
 * padding keeps every tap inside the grid for cells that hold anything.
 * A thread per cell (both floats), the launch shaped as the grid (x across
 * blocks of kBlurThreads, y, then z and the layer) so that no thread
 * divides to find its cell. */

__global__ void grid_blur (const float *in, float *out, Grid g, int axis)
{
  const int x = blockIdx.x * kBlurThreads + threadIdx.x;
  const int y = blockIdx.y;
  const int z = blockIdx.z % g.dims.d;
  const int layer = blockIdx.z / g.dims.d;
  if (x >= g.dims.w)
    return;
  const int pos = axis == 0 ? x : axis == 1 ? y : z;
  const int len = axis == 0 ? g.dims.w : axis == 1 ? g.dims.h : g.dims.d;
  const ptrdiff_t stride = axis == 0 ? 1
      : axis == 1                    ? g.dims.w
                                     : (ptrdiff_t)g.dims.w * g.dims.h;
  const float2 *src
      = reinterpret_cast<const float2 *> (in + g.cell (layer, x, y, z));
  const float w[5] = { 1.f / 16, 4.f / 16, 6.f / 16, 4.f / 16, 1.f / 16 };
  float2 sum = make_float2 (0.f, 0.f);
#pragma unroll
  for (int k = -2; k <= 2; k++)
    if (pos + k >= 0 && pos + k < len) {
      const float2 c = src[k * stride];
      sum.x += w[k + 2] * c.x;
      sum.y += w[k + 2] * c.y;
    }
  *reinterpret_cast<float2 *> (out + g.cell (layer, x, y, z)) = sum;
}

/* Each output pixel, each channel: the blurred grid at its position,
 * trilinear, as the ratio of the level sum to the count. */
template <class T>
__global__ void grid_slice (
    Io io, int row_begin, int row_end, Grid g, const float *cells)
{
  const int x = blockIdx.x * kBlockW + threadIdx.x;
  const int y = row_begin + blockIdx.y * kBlockH + threadIdx.y;
  if (x >= io.width || y >= row_end)
    return;
  const typename T::Value p = T::template unpack<false> (T::load (io, y, x));
  float levels[T::kGuides];
#pragma unroll
  for (int c = 0; c < T::kGuides; c++) {
    float gx, gy, gz, sum = 0.f, count = 0.f;
    grid_position (g, x, y, T::level (p, c), &gx, &gy, &gz);
    const int x0 = (int)gx, y0 = (int)gy, z0 = (int)gz;
    const float fx = gx - x0, fy = gy - y0, fz = gz - z0;
#pragma unroll
    for (int corner = 0; corner < 8; corner++) {
      const int dx = corner & 1, dy = (corner >> 1) & 1, dz = corner >> 2;
      const float w
          = (dx ? fx : 1.f - fx) * (dy ? fy : 1.f - fy) * (dz ? fz : 1.f - fz);
      const float2 cell = *reinterpret_cast<const float2 *> (cells
          + g.cell (blockIdx.z * T::kGuides + c, x0 + dx, y0 + dy, z0 + dz));
      sum += w * cell.x;
      count += w * cell.y;
    }
    /* Every pixel's own cell holds at least its own count, and a corner of
     * the read is next to it, so count > 0. */
    levels[c] = sum / count;
  }
  T::template store<false> (io, y, x, T::from_levels (levels));
}

template <class T>
cudaError_t launch_grid (const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, const CbfFilterParams *w, cudaStream_t stream)
{
  const CbfGridScratch *scratch = w->grid.scratch;
  Io io;
  cudaError_t err = make_io<T> (src, dst, row_begin, row_end, w, &io);
  if (err != cudaSuccess)
    return err;
  if (!scratch || !scratch->cells[0] || !scratch->cells[1]
      || scratch->range_passes < 1
      || scratch->range_passes > CBF_GRID_MAX_RANGE_PASSES)
    return cudaErrorInvalidValue;

  Grid g;
  g.dims = cbf_grid_dims (io.width, io.height, scratch);
  g.inv_cell_space = 1.f / scratch->cell_space;
  g.inv_cell_range = 1.f / scratch->cell_range;
  g.range_pad = (float)cbf_grid_range_pad (scratch);
  g.range_max = scratch->range_max;
  const int layers = T::kGridLayers * T::kGuides;
  const size_t floats = g.layer_floats () * layers;
  /* The blur's launch has a block row per cell row (grid_blur). */
  if (floats > scratch->capacity || g.dims.h > 65535
      || g.dims.d * layers > 65535)
    return cudaErrorInvalidValue;

  const dim3 block (kBlockW, kBlockH);
  if (row_begin == 0) {
    /* The grid of the whole picture, once per frame (the first band). */
    const dim3 pixels ((io.width + kBlockW - 1) / kBlockW,
        (io.height + kBlockH - 1) / kBlockH, T::kGridLayers);
    const dim3 blur_grid ((g.dims.w + kBlurThreads - 1) / kBlurThreads,
        g.dims.h, g.dims.d * layers);
    err = cudaMemsetAsync (
        scratch->cells[0], 0, floats * sizeof (float), stream);
    if (err != cudaSuccess)
      return err;
    if (scratch->cell_space >= kAggregateCellSpace)
      grid_splat<T, true>
          <<<pixels, block, 0, stream>>> (io, g, scratch->cells[0]);
    else
      grid_splat<T, false>
          <<<pixels, block, 0, stream>>> (io, g, scratch->cells[0]);
    /* Ping-pong: x and y, then the range passes; the last one writes
     * cells[range_passes % 2]. */
    grid_blur<<<blur_grid, kBlurThreads, 0, stream>>> (
        scratch->cells[0], scratch->cells[1], g, 0);
    grid_blur<<<blur_grid, kBlurThreads, 0, stream>>> (
        scratch->cells[1], scratch->cells[0], g, 1);
    for (int pass = 0; pass < scratch->range_passes; pass++)
      grid_blur<<<blur_grid, kBlurThreads, 0, stream>>> (
          scratch->cells[pass % 2], scratch->cells[(pass + 1) % 2], g, 2);
  }
  const dim3 rows ((io.width + kBlockW - 1) / kBlockW,
      (row_end - row_begin + kBlockH - 1) / kBlockH, T::kGridLayers);
  grid_slice<T><<<rows, block, 0, stream>>> (
      io, row_begin, row_end, g, scratch->cells[scratch->range_passes % 2]);
  return cudaGetLastError ();
}

} /* namespace */

extern "C" void cbf_grid_cells (double sigma_space, double sigma_color,
    int channels, int bits, CbfGridScratch *grid)
{
  /* See grid.h: splat (1/12 cell^2), each blur pass (1 cell^2) and the
   * trilinear read (1/6) add up to the grid's spread. */
  const double splat_and_read = 0.25;
  const double min_cell_range = 255.0 / CBF_GRID_MAX_RANGE_CELLS;
  double range_sigma, cells;
  int passes, max_passes;

  if (sigma_space <= 0)
    sigma_space = 1;
  if (sigma_color <= 0)
    sigma_color = 1;
  range_sigma
      = channels == 1 ? sigma_color : CBF_GRID_COLOR_RANGE * sigma_color;
  max_passes = channels == 1 ? CBF_GRID_MAX_RANGE_PASSES : 1;

  grid->cell_space = (float)fmax (
      sigma_space / sqrt (1 + splat_and_read), CBF_GRID_MIN_CELL_SPACE);
  grid->cell_range = (float)fmax (
      range_sigma / sqrt (max_passes + splat_and_read), min_cell_range);
  /* As many passes as make the spread sigma: max_passes, or fewer where
   * the cells are held at their minimum (small sigma-color). */
  cells = range_sigma / grid->cell_range;
  passes = (int)lround (cells * cells - splat_and_read);
  grid->range_passes = passes < 1 ? 1
      : passes > max_passes       ? max_passes
                                  : passes;
  grid->range_max = (float)((1 << bits) - 1);
  grid->cell_range = (float)(grid->cell_range * (grid->range_max / 255.0));
}

extern "C" size_t cbf_grid_floats (int width, int height, int channels,
    int n_views, const CbfGridScratch *grid)
{
  CbfGridDims d = cbf_grid_dims (width, height, grid);

  /* A grid per channel of each view. */
  return (size_t)d.w * d.h * d.d * kFloatsPerCell * channels * n_views;
}

/* The entries, one per layout of bilateral.h's tables. */
#define CBF_GRID_ENTRY(filter, layout, Layout)                                 \
  CBF_ENTRY (cbf_##filter##_##layout, launch_grid, Layout)
CBF_LAYOUTS_8BIT (CBF_GRID_ENTRY, grid)
CBF_LAYOUTS_DEEP (CBF_GRID_ENTRY, grid)
#undef CBF_GRID_ENTRY
