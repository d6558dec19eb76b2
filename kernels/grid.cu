/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The bilateral grid (method=grid), for every pixel layout of the exact
 * kernels: splat, blur, slice (grid.h). A cell holds T::kValues sums of
 * channel values and a count; views of one launch (U and V) have a grid
 * each, one after the other in the buffers. */

#include "bilateral_kernels.cuh"
#include "grid.h"

#include <math.h>

namespace {

/* Blocks of kBlockW x kBlockH pixels (bilateral_kernels.cuh). */
struct Grid
{
  CbfGridDims dims;
  float inv_cell_space;
  float inv_cell_range;
  int floats_per_cell;

  __device__ __forceinline__ size_t cell (int layer, int x, int y, int z) const
  {
    return ((((size_t) layer * dims.d + z) * dims.h + y) * dims.w + x) *
        floats_per_cell;
  }
  __host__ __device__ __forceinline__ size_t layer_floats () const
  {
    return (size_t) dims.w * dims.h * dims.d * floats_per_cell;
  }
};

__device__ __forceinline__ void grid_position (const Grid & g, int x, int y,
    float guide, float *gx, float *gy, float *gz)
{
  *gx = x * g.inv_cell_space + CBF_GRID_PAD;
  *gy = y * g.inv_cell_space + CBF_GRID_PAD;
  *gz = guide * g.inv_cell_range + CBF_GRID_PAD;
}

/* Each pixel adds its values and a count of 1 to its nearest cell. */
template < class T >
__global__ void
grid_splat (Io io, Grid g, float *cells)
{
  const int x = blockIdx.x * kBlockW + threadIdx.x;
  const int y = blockIdx.y * kBlockH + threadIdx.y;
  if (x >= io.width || y >= io.height)
    return;
  const typename T::Value p = T::template unpack < false > (T::load (io, y,
          x));
  float gx, gy, gz, v[T::kValues];
  grid_position (g, x, y, T::guide (p), &gx, &gy, &gz);
  float *c = cells + g.cell (blockIdx.z, (int) (gx + 0.5f), (int) (gy + 0.5f),
      (int) (gz + 0.5f));
  T::to_floats (p, v);
#pragma unroll
  for (int i = 0; i < T::kValues; i++)
    atomicAdd (c + i, v[i]);
  atomicAdd (c + T::kValues, 1.f);
}

/* One axis of the blur, [1 4 6 4 1] / 16 (a Gaussian of one cell); the
 * padding keeps every tap inside the grid for cells that hold anything. */
__global__ void
grid_blur (const float *in, float *out, Grid g, int axis)
{
  /* blockIdx.y is the layer (channel), x the float within it. */
  const size_t in_layer = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (in_layer >= g.layer_floats ())
    return;
  const size_t i = in_layer + (size_t) blockIdx.y * g.layer_floats ();
  const size_t cell = (i / g.floats_per_cell) % ((size_t) g.dims.w *
      g.dims.h * g.dims.d);
  const int x = cell % g.dims.w;
  const int y = (cell / g.dims.w) % g.dims.h;
  const int z = cell / ((size_t) g.dims.w * g.dims.h);
  const int pos = axis == 0 ? x : axis == 1 ? y : z;
  const int len = axis == 0 ? g.dims.w : axis == 1 ? g.dims.h : g.dims.d;
  const size_t stride = (size_t) g.floats_per_cell * (axis == 0 ? 1 :
      axis == 1 ? g.dims.w : (size_t) g.dims.w * g.dims.h);
  const float w[5] = { 1.f / 16, 4.f / 16, 6.f / 16, 4.f / 16, 1.f / 16 };
  float sum = 0.f;
#pragma unroll
  for (int k = -2; k <= 2; k++)
    if (pos + k >= 0 && pos + k < len)
      sum += w[k + 2] * in[i + k * (ptrdiff_t) stride];
  out[i] = sum;
}

/* Each output pixel: the blurred grid at its position, trilinear. */
template < class T >
__global__ void
grid_slice (Io io, int row_begin, int row_end, Grid g, const float *cells)
{
  const int x = blockIdx.x * kBlockW + threadIdx.x;
  const int y = row_begin + blockIdx.y * kBlockH + threadIdx.y;
  if (x >= io.width || y >= row_end)
    return;
  const typename T::Value p = T::template unpack < false > (T::load (io, y,
          x));
  float gx, gy, gz, acc[T::kValues + 1] = { };
  grid_position (g, x, y, T::guide (p), &gx, &gy, &gz);
  const int x0 = (int) gx, y0 = (int) gy, z0 = (int) gz;
  const float fx = gx - x0, fy = gy - y0, fz = gz - z0;
#pragma unroll
  for (int corner = 0; corner < 8; corner++) {
    const int dx = corner & 1, dy = (corner >> 1) & 1, dz = corner >> 2;
    const float w = (dx ? fx : 1.f - fx) * (dy ? fy : 1.f - fy) *
        (dz ? fz : 1.f - fz);
    const float *c = cells + g.cell (blockIdx.z, x0 + dx, y0 + dy, z0 + dz);
#pragma unroll
    for (int i = 0; i <= T::kValues; i++)
      acc[i] += w * c[i];
  }
  T::template store < false > (io, y, x, T::from_floats (acc));
}

template < class T >
cudaError_t launch_grid (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w,
    cudaStream_t stream)
{
  const CbfGridScratch *scratch = w->grid;
  Io io;
  cudaError_t err = make_io < T > (src, dst, row_begin, row_end, &io);
  if (err != cudaSuccess)
    return err;
  if (!scratch || !scratch->cells[0] || !scratch->cells[1])
    return cudaErrorInvalidValue;

  Grid g;
  g.dims = cbf_grid_dims (io.width, io.height, T::kValues,
      scratch->cell_space, scratch->cell_range);
  g.inv_cell_space = 1.f / scratch->cell_space;
  g.inv_cell_range = 1.f / scratch->cell_range;
  g.floats_per_cell = T::kValues + 1;
  const size_t floats = g.layer_floats () * T::kGridLayers;
  if (floats > scratch->capacity)
    return cudaErrorInvalidValue;

  const dim3 block (kBlockW, kBlockH);
  if (row_begin == 0) {
    /* The grid of the whole picture, once per frame (the first band). */
    const dim3 pixels ((io.width + kBlockW - 1) / kBlockW,
        (io.height + kBlockH - 1) / kBlockH, T::kGridLayers);
    const dim3 blur_grid ((unsigned) ((g.layer_floats () + 255) / 256),
        T::kGridLayers);
    err = cudaMemsetAsync (scratch->cells[0], 0, floats * sizeof (float),
        stream);
    if (err != cudaSuccess)
      return err;
    grid_splat < T > <<<pixels, block, 0, stream >>> (io, g,
        scratch->cells[0]);
    grid_blur <<<blur_grid, 256, 0, stream >>> (scratch->cells[0],
        scratch->cells[1], g, 0);
    grid_blur <<<blur_grid, 256, 0, stream >>> (scratch->cells[1],
        scratch->cells[0], g, 1);
    grid_blur <<<blur_grid, 256, 0, stream >>> (scratch->cells[0],
        scratch->cells[1], g, 2);
  }
  const dim3 rows ((io.width + kBlockW - 1) / kBlockW,
      (row_end - row_begin + kBlockH - 1) / kBlockH, T::kGridLayers);
  grid_slice < T > <<<rows, block, 0, stream >>> (io, row_begin, row_end, g,
      scratch->cells[1]);
  return cudaGetLastError ();
}

}                               /* namespace */

extern "C" void
cbf_grid_cells (double sigma_space, double sigma_color, int channels,
    float *cell_space, float *cell_range)
{
  const double range_max = channels == 1 ? 255.0 : 765.0;

  if (sigma_space <= 0)
    sigma_space = 1;
  if (sigma_color <= 0)
    sigma_color = 1;
  /* See grid.h: the grid's own spread is sqrt (1.25) cells. */
  const double cells_per_sigma = sqrt (1.25);

  *cell_space = (float) fmax (sigma_space / cells_per_sigma,
      CBF_GRID_MIN_CELL_SPACE);
  *cell_range = (float) fmax (sigma_color / cells_per_sigma,
      range_max / CBF_GRID_MAX_RANGE_CELLS);
}

extern "C" size_t
cbf_grid_floats (int width, int height, int channels, int n_views,
    float cell_space, float cell_range)
{
  CbfGridDims d = cbf_grid_dims (width, height, channels, cell_space,
      cell_range);

  return (size_t) d.w * d.h * d.d * (channels + 1) * n_views;
}

CBF_ENTRY (cbf_grid_channel, launch_grid, Channels < 1 >)
CBF_ENTRY (cbf_grid_channel_pair, launch_grid, Channels < 2 >)
CBF_ENTRY (cbf_grid_colour_first, launch_grid, Colour32 < 0 >)
CBF_ENTRY (cbf_grid_colour_last, launch_grid, Colour32 < 1 >)
CBF_ENTRY (cbf_grid_colour_packed24, launch_grid, Colour24)
CBF_ENTRY (cbf_grid_colour_planar, launch_grid, ColourPlanar)
