/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Regions: boxes (from analytics metadata) that say where the filter
 * applies, with a soft edge. A pixel's weight m is 1 inside a box, falls
 * linearly to 0 at the feather's width outside it (the distance from the
 * pixel's centre to the box), and is the largest over the boxes; the
 * output is then blended as the strength mask blends (mask.h), with m
 * in 8-bit levels. Float arithmetic written out step by step (IEEE square
 * root and division), so that the host and the device agree to the bit. */

#ifndef CBF_REGIONS_H
#define CBF_REGIONS_H

#include <math.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "plane.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most boxes a frame takes; more are ignored. */
#define CBF_MAX_REGIONS 64

/* A box in luma (or RGB) pixels: columns [x0, x1), rows [y0, y1), inside
 * the frame and not empty. */
typedef struct
{
  int32_t x0, y0, x1, y1;
} CbfRegionBox;

/* What the box of columns [@x0, @x1) and rows [@y0, @y1) weighs at the
 * point (@cx, @cy): 1 inside, max (0, 1 - d / @feather) at distance d
 * outside (0 for no feather), before rounding. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline float
cbf_region_box_reach (int x0, int y0, int x1, int y1, float feather,
    float cx, float cy)
{
  const float left = (float) x0 - cx;
  const float right = cx - (float) x1;
  const float top = (float) y0 - cy;
  const float bottom = cy - (float) y1;
  const float dx = left > 0.f ? left : right > 0.f ? right : 0.f;
  const float dy = top > 0.f ? top : bottom > 0.f ? bottom : 0.f;

  if (dx == 0.f && dy == 0.f)
    return 1.f;
  if (feather > 0.f)
    return 1.f - sqrtf (dx * dx + dy * dy) / feather;
  return 0.f;
}

/* The weight, 0 to 255, of pixel (@x, @y) of a plane whose pixels stand
 * for @fx x @fy luma pixels (1, or 2 along a subsampled chroma axis): its
 * centre ((x + 0.5) fx, (y + 0.5) fy) in luma pixels, d its distance to
 * the nearest of the @n @boxes, m = 1 at d = 0, else max (0, 1 - d /
 * @feather) (0 for no feather), round (255 m) half up; 255 - that for
 * @outside. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_weight (const CbfRegionBox * boxes, int n, float feather,
    int outside, int fx, int fy, int x, int y)
{
  const float cx = ((float) x + 0.5f) * (float) fx;
  const float cy = ((float) y + 0.5f) * (float) fy;
  float best = 0.f;
  int i, m;

  for (i = 0; i < n; i++) {
    const float w = cbf_region_box_reach (boxes[i].x0, boxes[i].y0,
        boxes[i].x1, boxes[i].y1, feather, cx, cy);

    if (w > best)
      best = w;
  }
  m = (int) (255.f * best + 0.5f);
  return outside ? 255 - m : m;
}

/* A segmentation mask as regions: a grid of @cols x @rows cells laid over
 * the frame's rectangle of columns [@x, @x + @w) and rows [@y, @y + @h),
 * in luma pixels; cell (i, j) covers columns [x + i w / cols, x + (i + 1)
 * w / cols) and rows likewise (integer division: each frame pixel in one
 * cell, as nearest-neighbour scaling puts it), and is part of the region
 * where @cells[j * cols + i] is nonzero (a pixel of a selected class). */
typedef struct
{
  const uint8_t *cells;
  int32_t cols, rows;
  int32_t x, y, w, h;
} CbfRegionCells;

/* Column (or row) @i's first frame pixel of a grid of @n cells over
 * [@origin, @origin + @size). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_cell_edge (int origin, int size, int n, int i)
{
  return origin + (int) ((int64_t) i * size / n);
}

/* The first cell of a grid of @n over [@origin, @origin + @size) whose far
 * edge lies past @p, clamped to [0, n - 1] (p before the grid: 0). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_cell_after (int origin, int size, int n, float p)
{
  int lo = 0, hi = n - 1;

  while (lo < hi) {
    const int mid = (lo + hi) / 2;

    if ((float) cbf_region_cell_edge (origin, size, n, mid + 1) > p)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* The weight of pixel (@x, @y), as cbf_region_weight gives it, with every
 * selected cell of @cells a box grown by @padding pixels on each side: 1
 * inside one, falling linearly to 0 at @feather pixels from the nearest.
 * Only the cells that reach within padding + feather of the pixel are
 * looked at. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_cells_weight (const CbfRegionCells * g, int padding,
    float feather, int outside, int fx, int fy, int x, int y)
{
  const float cx = ((float) x + 0.5f) * (float) fx;
  const float cy = ((float) y + 0.5f) * (float) fy;
  const float reach = (float) padding + (feather > 0.f ? feather : 0.f);
  const int i0 = cbf_region_cell_after (g->x, g->w, g->cols, cx - reach);
  const int i1 = cbf_region_cell_after (g->x, g->w, g->cols, cx + reach);
  const int j0 = cbf_region_cell_after (g->y, g->h, g->rows, cy - reach);
  const int j1 = cbf_region_cell_after (g->y, g->h, g->rows, cy + reach);
  float best = 0.f;
  int i, j, m;

  for (j = j0; j <= j1; j++)
    for (i = i0; i <= i1; i++) {
      float w;

      if (!g->cells[j * g->cols + i])
        continue;
      w = cbf_region_box_reach (cbf_region_cell_edge (g->x, g->w, g->cols,
              i) - padding, cbf_region_cell_edge (g->y, g->h, g->rows,
              j) - padding, cbf_region_cell_edge (g->x, g->w, g->cols,
              i + 1) + padding, cbf_region_cell_edge (g->y, g->h, g->rows,
              j + 1) + padding, feather, cx, cy);
      if (w > best)
        best = w;
    }
  m = (int) (255.f * best + 0.5f);
  return outside ? 255 - m : m;
}

/* A region weight @m combined with the strength mask's value @mask there
 * by multiplying: round (m mask / 255) half up. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_mask_combine (int m, int mask)
{
  return (m * mask + 127) / 255;
}

/* A frame's regions as the kernel takes them (by value: no upload). */
typedef struct
{
  CbfRegionBox boxes[CBF_MAX_REGIONS];
  int32_t n;
  float feather;
  int32_t outside;
} CbfRegionSet;

/* Writes into the 8-bit plane @weights, over its columns [@x0, @x0 + @w)
 * and rows [@y0, @y0 + @h), the weight of each pixel of a plane whose
 * pixels stand for @fx x @fy luma pixels (cbf_region_weight), combined
 * with the strength mask @mask (the same size; NULL: none) by
 * cbf_region_mask_combine, for cbf_mask_blend to blend by. */
cudaError_t cbf_region_weights (const CbfRegionSet * set, int fx, int fy,
    const CbfPlane * mask, const CbfPlane * weights, int x0, int y0, int w,
    int h, cudaStream_t stream);

/* Byte rectangles of a plane: bytes [x0, x1) of rows [y0, y1) each. */
typedef struct
{
  CbfRegionBox rects[CBF_MAX_REGIONS];
  int32_t n;
} CbfByteRects;

/* Copies rows [@row_begin, @row_end) of the plane @in into @out, the first
 * @row_bytes bytes of each, except the bytes inside @skip's rectangles
 * (which something else writes meanwhile): their x0 must be a multiple of
 * 16, their x1 too or @row_bytes. */
cudaError_t cbf_copy_except (const CbfPlane * in, const CbfPlane * out,
    size_t row_bytes, int row_begin, int row_end, const CbfByteRects * skip,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CBF_REGIONS_H */
