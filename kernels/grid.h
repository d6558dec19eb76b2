/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* method=grid: the bilateral grid (Chen, Paris & Durand 2007), an
 * approximation of the bilateral filter whose cost per pixel does not grow
 * with the window. Each pixel is added to the cell of a 3-D grid (x / s,
 * y / s, level / r) nearest to it, the grid is blurred with a 5-tap
 * binomial kernel (a Gaussian of one cell) along each axis, and each pixel
 * reads the blurred grid back by trilinear interpolation: the ratio of the
 * blurred value sums to the blurred counts. Splatting to the nearest cell
 * (a box of one cell, variance 1/12), the blur (variance 1) and the
 * trilinear read (a tent, variance 1/6) together weigh like a Gaussian of
 * sqrt (1.25) cells, so a cell is sigma / sqrt (1.25) = 0.894 sigma: in
 * pixels for sigma-space (at least 4 pixels), in levels for sigma-color (at
 * least 1/96 of the range axis).
 *
 * Each grid is of one channel: a cell holds the sum of that channel's
 * levels and a count, and the range axis is the level. Colour has a grid
 * per channel, each channel placed and averaged by its own level, because
 * one range axis for three channels mixes colours that it cannot tell
 * apart: the sum of the channels (the first version) puts a red and a
 * green pixel of the same sum into one cell, and was further from the
 * exact filter than a grid per channel. The exact filter weighs the L1
 * distance of the three channels, between a channel's own difference (a
 * change in one channel) and three times it (the same change in all
 * three); a channel's grid takes 0.4 sigma-color as its range sigma
 * (CBF_GRID_COLOR_RANGE), the closest to the exact filter of the values
 * tried (what-was-tried.md, "Grid").
 *
 * A one-channel grid (GRAY8, YUV) has range cells of sigma / sqrt (4.25)
 * and its range axis blurred four times (variance 4 cells, with the
 * splat's 1/12 and the read's 1/6: 4.25 = sigma^2 in cells): coarse range
 * cells were what held it back, and finer ones brought it closer to the
 * exact filter, as the model of the spread predicted (what-was-tried.md,
 * "Grid").
 * Colour gains nothing from it (its error is the distance, not the cells)
 * and keeps one pass. Where the range cell would be below its minimum
 * (small sigma-color), fewer passes keep the spread near sigma. */

#ifndef CBF_GRID_H
#define CBF_GRID_H

#include "bilateral.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cells of padding on each side of the spatial axes: the blur's radius;
 * the range axis has that for each of its blur passes. */
#define CBF_GRID_PAD 2
/* At most this many cells on the range axis (and at least 4 pixels a cell
 * in space) bound the grid's memory. */
#define CBF_GRID_MAX_RANGE_CELLS 96
#define CBF_GRID_MIN_CELL_SPACE 4.0
/* Colour: a channel's range sigma, as a fraction of sigma-color. */
#define CBF_GRID_COLOR_RANGE 0.4
/* One channel: at most this many blur passes along the range axis. */
#define CBF_GRID_MAX_RANGE_PASSES 4

/* Cells along each axis, padding included, of one channel's grid for a
 * @width x @height view. */
typedef struct
{
  int w, h, d;
} CbfGridDims;

#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_grid_range_pad (const CbfGridScratch * grid)
{
  return CBF_GRID_PAD * grid->range_passes;
}

#ifdef __CUDACC__
__host__ __device__
#endif
static inline CbfGridDims
cbf_grid_dims (int width, int height, const CbfGridScratch * grid)
{
  CbfGridDims dims;

  dims.w = (int) ((width - 1) / grid->cell_space + 0.5f) + 1 +
      2 * CBF_GRID_PAD;
  dims.h = (int) ((height - 1) / grid->cell_space + 0.5f) + 1 +
      2 * CBF_GRID_PAD;
  dims.d = (int) (grid->range_max / grid->cell_range + 0.5f) + 1 +
      2 * cbf_grid_range_pad (grid);
  return dims;
}

/* Sets @grid's cell sizes, range passes and range for the parameters, for
 * @channels 1 or 3 of samples of @bits bits: sigma-color is in 8-bit
 * levels, the range cells scaled to the samples' range, so that the grid
 * has the same cells at every depth. */
void cbf_grid_cells (double sigma_space, double sigma_color, int channels,
    int bits, CbfGridScratch * grid);

/* Floats one buffer of @grid (cells set) needs for @n_views views of
 * @width x @height. */
size_t cbf_grid_floats (int width, int height, int channels, int n_views,
    const CbfGridScratch * grid);

/* Sets @weights for the grid entries: @scratch, whose buffers must hold
 * cbf_grid_floats for the views filtered; no window, so radius 0. */
static inline void
cbf_grid_weights_init (CbfFilterParams * weights,
    const CbfGridScratch * scratch)
{
  weights->radius = 0;
  weights->grid.scratch = scratch;
}

/* The layout entries (bilateral.h), their weights set by
 * cbf_grid_weights_init. The grid is built from the
 * whole picture when @row_begin is 0 (so the first band must come first and
 * see every row), then rows [@row_begin, @row_end) are read from it. */
CBF_DECLARE_LAYOUT_ENTRIES (grid);
CBF_DECLARE_DEEP_ENTRIES (grid);

#ifdef __cplusplus
}
#endif
#endif /* CBF_GRID_H */
