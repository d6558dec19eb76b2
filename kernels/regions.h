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

/* The largest of cbf_region_box_reach over the @n @boxes at (@cx, @cy):
 * 0 where none reaches. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline float
cbf_region_boxes_reach (const CbfRegionBox * boxes, int n, float feather,
    float cx, float cy)
{
  float best = 0.f;
  int i;

  for (i = 0; i < n; i++) {
    const float w = cbf_region_box_reach (boxes[i].x0, boxes[i].y0,
        boxes[i].x1, boxes[i].y1, feather, cx, cy);

    if (w > best)
      best = w;
  }
  return best;
}

/* A reach @best (0 to 1) as an 8-bit weight, round (255 best) half up;
 * 255 - that for @outside. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_level (float best, int outside)
{
  const int m = (int) (255.f * best + 0.5f);

  return outside ? 255 - m : m;
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

  return cbf_region_level (cbf_region_boxes_reach (boxes, n, feather, cx,
          cy), outside);
}

/* A segmentation mask as regions: a grid of @cols x @rows cells laid over
 * the frame's rectangle of columns [@x, @x + @w) and rows [@y, @y + @h),
 * in luma pixels; cell (i, j) covers columns [x + i w / cols, x + (i + 1)
 * w / cols) and rows likewise (integer division: each frame pixel in one
 * cell, as nearest-neighbour scaling puts it), and is part of the region
 * where @cells[j * cols + i] is nonzero (a pixel of a selected class).
 * The weights read, for each cell, the nearest selected cell of its row at
 * or left of it in @left (-1: none) and at or right of it in @right (cols:
 * none), as cbf_region_cells_nearest makes them: cells of one row share
 * their rows, so that the nearest of them to a point are those two. */
typedef struct
{
  const uint8_t *cells;
  const int32_t *left, *right;
  int32_t cols, rows;
  int32_t x, y, w, h;
} CbfRegionCells;

/* @left and @right of one row of @cols @cells (CbfRegionCells). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline void
cbf_region_cells_nearest (const uint8_t * cells, int cols, int32_t * left,
    int32_t * right)
{
  int i, last = -1;

  for (i = 0; i < cols; i++) {
    if (cells[i])
      last = i;
    left[i] = last;
  }
  last = cols;
  for (i = cols - 1; i >= 0; i--) {
    if (cells[i])
      last = i;
    right[i] = last;
  }
}

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
 * edge lies past @p (@at: at or past it), clamped to [0, n - 1] (p before
 * the grid: 0). Without @at, the last cell whose near edge is at or before
 * p: the last a box of it (closed, as cbf_region_box_reach takes it) can
 * hold p in; with @at, the first. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_cell_after (int origin, int size, int n, float p, int at)
{
  int lo = 0, hi = n - 1;

  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    const float edge = (float) cbf_region_cell_edge (origin, size, n, mid + 1);

    if (edge > p || (at && edge == p))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* The largest reach at (@cx, @cy) of the selected cells of @g, each a box
 * grown by @padding pixels on each side (cbf_region_box_reach): in each
 * row of cells within padding + feather of the point, that of the nearest
 * selected cell left of the point's column and right of it (every other
 * cell of the row lies further: the cells' edges grow with their index). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline float
cbf_region_cells_reach (const CbfRegionCells * g, int padding, float feather,
    float cx, float cy)
{
  const float reach = (float) padding + (feather > 0.f ? feather : 0.f);
  const int i = cbf_region_cell_after (g->x, g->w, g->cols, cx, 0);
  const int j0 = cbf_region_cell_after (g->y, g->h, g->rows, cy - reach, 1);
  const int j1 = cbf_region_cell_after (g->y, g->h, g->rows, cy + reach, 0);
  float best = 0.f;
  int j, k;

  for (j = j0; j <= j1; j++) {
    const int y0 = cbf_region_cell_edge (g->y, g->h, g->rows, j) - padding;
    const int y1 = cbf_region_cell_edge (g->y, g->h, g->rows, j + 1) +
        padding;
    const int near[2] = { g->left[j * g->cols + i], g->right[j * g->cols + i] };

    for (k = 0; k < 2; k++) {
      float w;

      if (near[k] < 0 || near[k] >= g->cols || (k == 1 && near[1] == near[0]))
        continue;
      w = cbf_region_box_reach (cbf_region_cell_edge (g->x, g->w, g->cols,
              near[k]) - padding, y0, cbf_region_cell_edge (g->x, g->w,
              g->cols, near[k] + 1) + padding, y1, feather, cx, cy);
      if (w > best)
        best = w;
    }
  }
  return best;
}

/* The weight of pixel (@x, @y), as cbf_region_weight gives it, with every
 * selected cell of @cells a box grown by @padding pixels on each side: 1
 * inside one, falling linearly to 0 at @feather pixels from the nearest. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_cells_weight (const CbfRegionCells * g, int padding,
    float feather, int outside, int fx, int fy, int x, int y)
{
  const float cx = ((float) x + 0.5f) * (float) fx;
  const float cy = ((float) y + 0.5f) * (float) fy;

  return cbf_region_level (cbf_region_cells_reach (g, padding, feather, cx,
          cy), outside);
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

/* A frame's regions as the kernel takes them (by value: no upload but a
 * segmentation mask's). @cells.left NULL: no mask; else its selected
 * cells, each grown by @cell_padding, weigh beside the boxes, and
 * @cell_bounds holds them so grown (clipped to the frame), for the windows
 * filtered around the regions. */
typedef struct
{
  CbfRegionBox boxes[CBF_MAX_REGIONS];
  int32_t n;
  float feather;
  int32_t outside;
  CbfRegionCells cells;
  int32_t cell_padding;
  CbfRegionBox cell_bounds;
  /* region-size-scale: the host's, for the windows (0: off) */
  float size_scale;
} CbfRegionSet;

/* The most windows a frame's regions are filtered in: a box's each, and
 * the mask's. */
#define CBF_MAX_REGION_WINDOWS (CBF_MAX_REGIONS + 1)

/* The weight of pixel (@x, @y) of a plane whose pixels stand for @fx x
 * @fy luma pixels by the boxes and cells of @set: the largest reach of
 * either (cbf_region_weight, cbf_region_cells_weight). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
cbf_region_set_weight (const CbfRegionSet * set, int fx, int fy, int x, int y)
{
  const float cx = ((float) x + 0.5f) * (float) fx;
  const float cy = ((float) y + 0.5f) * (float) fy;
  float best = cbf_region_boxes_reach (set->boxes, set->n, set->feather, cx,
      cy);

  if (set->cells.left && best < 1.f) {
    const float w = cbf_region_cells_reach (&set->cells, set->cell_padding,
        set->feather, cx, cy);

    if (w > best)
      best = w;
  }
  return cbf_region_level (best, set->outside);
}

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
  CbfRegionBox rects[CBF_MAX_REGION_WINDOWS];
  int32_t n;
} CbfByteRects;

/* Fills @left and @right of the @cols x @rows @cells (CbfRegionCells),
 * all three on the device, by cbf_region_cells_nearest, a thread a row. */
cudaError_t cbf_region_cells_index (const uint8_t * cells, int cols,
    int rows, int32_t * left, int32_t * right, cudaStream_t stream);

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
