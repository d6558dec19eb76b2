/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The regions filtered in windows (cbf_frame_plan_run with a CbfRegionRun
 * not whole): a window around each box, with the halo its filter reads,
 * filtered, weighed and blended, the rest of the frame copied beside. */

#include "cbfframeplanprivate.h"

#include <math.h>

/* A rectangle of a pass's pixels: columns [x0, x1), rows [y0, y1). */
typedef struct
{
  gint x0, y0, x1, y1;
} Rect;

/* View @v cut to the rectangle @r. */
static CbfPlane
cut_view (CbfPlane view, const Rect * r)
{
  view.data += (gsize) r->y0 * view.pitch_bytes + (gsize) r->x0 *
      view.pixel_bytes;
  view.width = r->x1 - r->x0;
  view.height = r->y1 - r->y0;
  return view;
}

/* Windows are cut at multiples of these luma pixels, so that every plane
 * cuts them at whole pixels (chroma's halve) and the copy beside them at
 * its 16-byte chunks (cbf_copy_except); and their columns start where the
 * kernels' loads are aligned as on the whole plane. */
#define WINDOW_ALIGN_X 32
#define WINDOW_ALIGN_Y 2

static gint
align_down (gint v, gint a)
{
  return v - v % a;
}

static gint
align_up (gint v, gint a, gint max)
{
  return MIN (max, (v + a - 1) / a * a);
}

gint
cbf_region_diameter (const CbfRegionBox * box, gdouble scale)
{
  gint side = MIN (box->x1 - box->x0, box->y1 - box->y0);
  gint d = (gint) MIN (floor (scale * side + 0.5), CBF_REGION_MAX_DIAMETER);

  return CLAMP (d | 1, CBF_REGION_MIN_DIAMETER, CBF_REGION_MAX_DIAMETER);
}

/* A window: @area, in luma pixels, is filtered with the parameters of
 * @diameter (0: the groups' own), to weigh and blend the pixels within the
 * feather of its boxes, @core. */
typedef struct
{
  Rect area, core;
  gint diameter;
} Window;

/* The parameters @pass takes in a window of @diameter. */
static const CbfFilterParams *
window_params (const CbfRegionRun * regions, const CbfPass * pass,
    const CbfGroupRun * run, gint diameter)
{
  const CbfFilterParams *p = regions->sized && diameter > 0 ?
      regions->sized[diameter][pass->chroma ? 1 : 0] : NULL;

  return p ? p : run->params;
}

/* @w's area: its core with the halo of the widest reach of its passes'
 * windows, in luma pixels, aligned and clipped to the frame. */
static void
window_area (const CbfFramePlan * plan, const CbfGroupRun * luma,
    const CbfGroupRun * chroma, const CbfRegionRun * regions, Window * w)
{
  gint radius_x = 0, radius_y = 0;
  guint i;

  for (i = 0; i < plan->n_passes; i++) {
    const CbfPass *pass = &plan->passes[i];
    const CbfGroupRun *run = pass->chroma ? chroma : luma;
    const CbfFilterParams *p;

    if (!run->params)
      continue;
    p = window_params (regions, pass, run, w->diameter);
    radius_x = MAX (radius_x, p->radius * pass->sub_x);
    radius_y = MAX (radius_y, p->radius * pass->sub_y);
  }
  w->area.x0 = align_down (MAX (0, w->core.x0 - radius_x), WINDOW_ALIGN_X);
  w->area.y0 = align_down (MAX (0, w->core.y0 - radius_y), WINDOW_ALIGN_Y);
  w->area.x1 = align_up (w->core.x1 + radius_x, WINDOW_ALIGN_X, plan->width);
  w->area.y1 = align_up (w->core.y1 + radius_y, WINDOW_ALIGN_Y, plan->height);
}

/* The windows that the regions need filtered: every pixel their boxes
 * (and a segmentation mask's cells) weigh above 0 (its centre less than
 * the feather from a box; a pixel of margin kept), each box's with the
 * diameter region-size-scale gives it, merged where they overlap, so that
 * each pixel is written once: a merged window takes the largest diameter
 * and the halo of that around all its boxes. At most
 * CBF_MAX_REGION_WINDOWS. */
static guint
region_windows (const CbfFramePlan * plan, const CbfGroupRun * luma,
    const CbfGroupRun * chroma, const CbfRegionRun * regions, Window * windows)
{
  const CbfRegionSet *set = regions->set;
  gint reach = (gint) ceilf (set->feather) + 1;
  guint n = 0, i, j;
  gboolean merged;

  for (i = 0; i <= (guint) set->n; i++) {
    const CbfRegionBox *b = i < (guint) set->n ? &set->boxes[i] :
        &set->cell_bounds;
    Window *w;

    if (b->x1 <= b->x0 || b->y1 <= b->y0)
      continue;
    w = &windows[n++];
    w->core.x0 = b->x0 - reach;
    w->core.y0 = b->y0 - reach;
    w->core.x1 = b->x1 + reach;
    w->core.y1 = b->y1 + reach;
    w->diameter = set->size_scale > 0.f ?
        cbf_region_diameter (b, set->size_scale) : 0;
    window_area (plan, luma, chroma, regions, w);
  }
  do {
    merged = FALSE;
    for (i = 0; i < n; i++)
      for (j = i + 1; j < n; j++) {
        Window *a = &windows[i], *b = &windows[j];

        if (a->area.x0 >= b->area.x1 || b->area.x0 >= a->area.x1
            || a->area.y0 >= b->area.y1 || b->area.y0 >= a->area.y1)
          continue;
        a->core.x0 = MIN (a->core.x0, b->core.x0);
        a->core.y0 = MIN (a->core.y0, b->core.y0);
        a->core.x1 = MAX (a->core.x1, b->core.x1);
        a->core.y1 = MAX (a->core.y1, b->core.y1);
        a->diameter = MAX (a->diameter, b->diameter);
        window_area (plan, luma, chroma, regions, a);
        windows[j--] = windows[--n];
        merged = TRUE;
      }
  } while (merged);
  return n;
}

/* Luma column (or row) @v of a frame @full wide (or high) in a plane
 * whose pixels stand for @sub luma pixels and which is @len wide: windows'
 * edges are multiples of @sub, or the frame's edge. */
static gint
scale_edge (gint v, gint full, gint sub, gint len)
{
  return v >= full ? len : v / sub;
}

/* The window @w (luma pixels) of @pass, in its pixels. */
static Rect
pass_window (const CbfFramePlan * plan, const CbfPass * pass, const Rect * w)
{
  Rect r;

  r.x0 = w->x0 / pass->sub_x;
  r.y0 = w->y0 / pass->sub_y;
  r.x1 = scale_edge (w->x1, plan->width, pass->sub_x, pass->width);
  r.y1 = scale_edge (w->y1, plan->height, pass->sub_y, pass->height);
  return r;
}

/* The window @w (luma pixels) of plane @p, in bytes and rows. */
static CbfRegionBox
plane_window (const CbfFramePlan * plan, guint p, const Rect * w,
    gint plane_height)
{
  CbfRegionBox r;

  r.x0 = w->x0 / plan->plane_sub_x[p] * plan->plane_pixel_bytes[p];
  r.x1 = w->x1 >= plan->width ? (gint) plan->row_bytes[p] :
      w->x1 / plan->plane_sub_x[p] * plan->plane_pixel_bytes[p];
  r.y0 = w->y0 / plan->plane_sub_y[p];
  r.y1 = scale_edge (w->y1, plan->height, plan->plane_sub_y[p], plane_height);
  return r;
}

/* What a step of run_windows does to a pass's part of a window. */
typedef enum
{
  WINDOW_WEIGHTS,
  WINDOW_FILTER,
  WINDOW_BLEND
} WindowStep;

/* Step @step for every filtered pass of the window @w (luma pixels), over
 * the band's rows. A window's edge inside the plane reflects the window's
 * pixels, not the plane's: the halo (region_windows) keeps that away from
 * every pixel weighed above 0, whose output the blend leaves as its input
 * where the weight is 0. */
static cudaError_t
window_step (const CbfFramePlan * plan, WindowStep step,
    const CbfGroupRun * luma, const CbfGroupRun * chroma,
    const CbfRegionRun * regions, const CbfPlane * in, const CbfPlane * out,
    const Window * w, gint row_begin, gint row_end, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  guint i, v;

  for (i = 0; i < plan->n_passes && err == cudaSuccess; i++) {
    const CbfPass *pass = &plan->passes[i];
    const CbfGroupRun *run = pass->chroma ? chroma : luma;
    Rect r = pass_window (plan, pass, &w->area);
    CbfPlane src[3], dst[3], weights;
    CbfFilterParams params;
    gint begin, end;

    if (!run->params)
      continue;
    cbf_plan_band_rows (pass->height, in, row_begin, row_end, &begin, &end);
    begin = MAX (begin, r.y0) - r.y0;
    end = MIN (end, r.y1) - r.y0;
    if (begin >= end)
      continue;
    for (v = 0; v < pass->n_views; v++) {
      src[v] = cut_view (cbf_pass_view (in, pass, v), &r);
      dst[v] = cut_view (cbf_pass_view (out, pass, v), &r);
    }
    switch (step) {
      case WINDOW_WEIGHTS:
        err = cbf_region_weights (regions->set, pass->sub_x, pass->sub_y,
            run->mask, run->weights, r.x0, r.y0 + begin, r.x1 - r.x0,
            end - begin, stream);
        break;
      case WINDOW_FILTER:
        /* A window smaller than the frame: its kernels spread over the GPU
         * (CbfFilterParams). */
        params = *window_params (regions, pass, run, w->diameter);
        params.small_launch = r.x1 - r.x0 < pass->width
            || r.y1 - r.y0 < pass->height;
        if (cbf_plan_pass_guided (pass, run)) {
          src[pass->n_views] = cut_view (*run->guide, &r);
          err = pass->guided (src, dst, begin, end, &params, stream);
        } else {
          err = pass->process[run->kernel] (src, dst, begin, end, &params,
              stream);
        }
        break;
      case WINDOW_BLEND:
        weights = cut_view (*run->weights, &r);
        err = cbf_mask_blend (src, dst, pass->n_views, pass->blend_bytes,
            pass->blend_samples, &weights, begin, end, stream);
        break;
    }
  }
  return err;
}

/* On the side stream, the windows' weights, then the rest of the frame
 * copied; on @stream meanwhile, the windows' planes that no filtered pass
 * writes whole (left unfiltered, or packed YUV, whose bytes two passes
 * share) copied, each window filtered and, once its weights are made,
 * blended. */
cudaError_t
cbf_plan_run_windows (const CbfFramePlan * plan, const CbfGroupRun * luma,
    const CbfGroupRun * chroma, const CbfRegionRun * regions,
    const CbfPlane * in, const CbfPlane * out, gint row_begin, gint row_end,
    cudaStream_t stream)
{
  Window windows[CBF_MAX_REGION_WINDOWS];
  guint copied = (luma->params ? 0 : plan->planes_with_luma) |
      (chroma->params ? 0 : plan->planes_with_chroma) |
      (plan->planes_with_luma & plan->planes_with_chroma);
  cudaError_t err, join;
  guint i, k, p, n;

  n = region_windows (plan, luma, chroma, regions, windows);
  /* The guide of the whole band, which the windows cut, as far as the
   * widest of them reads. */
  for (i = 0; i < plan->n_passes; i++) {
    const CbfPass *pass = &plan->passes[i];
    const CbfGroupRun *run = pass->chroma ? chroma : luma;
    gint begin, end, radius = 0;

    if (!run->params || !cbf_plan_pass_guided (pass, run))
      continue;
    for (k = 0; k < n; k++)
      radius = MAX (radius, window_params (regions, pass, run,
              windows[k].diameter)->radius);
    cbf_plan_band_rows (pass->height, in, row_begin, row_end, &begin, &end);
    err = cbf_plan_make_guide (plan, pass, run, radius, in, begin, end, stream);
    if (err != cudaSuccess)
      return err;
  }

  /* The windows' filter first, so that its blocks reach the SMs before
   * the copy's. */
  err = cudaEventRecord (regions->fork, stream);
  for (k = 0; k < n && err == cudaSuccess; k++) {
    for (p = 0; p < plan->n_planes && err == cudaSuccess; p++) {
      CbfRegionBox r = plane_window (plan, p, &windows[k].area, in[p].height);
      gint begin, end;

      if (!(copied & (1u << p)))
        continue;
      cbf_plan_band_rows (in[p].height, in, row_begin, row_end, &begin, &end);
      begin = MAX (begin, r.y0);
      end = MIN (end, r.y1);
      if (begin < end)
        err = cudaMemcpy2DAsync (out[p].data + begin * out[p].pitch_bytes +
            r.x0, out[p].pitch_bytes, in[p].data + begin * in[p].pitch_bytes +
            r.x0, in[p].pitch_bytes, r.x1 - r.x0, end - begin,
            cudaMemcpyDeviceToDevice, stream);
    }
    if (err == cudaSuccess)
      err = window_step (plan, WINDOW_FILTER, luma, chroma, regions, in,
          out, &windows[k], row_begin, row_end, stream);
  }

  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (regions->side, regions->fork, 0);
  for (k = 0; k < n && err == cudaSuccess; k++)
    err = window_step (plan, WINDOW_WEIGHTS, luma, chroma, regions, in,
        out, &windows[k], row_begin, row_end, regions->side);
  if (err == cudaSuccess)
    err = cudaEventRecord (regions->weighed, regions->side);
  for (p = 0; p < plan->n_planes && err == cudaSuccess; p++) {
    CbfByteRects skip;
    gint begin, end;

    cbf_plan_band_rows (in[p].height, in, row_begin, row_end, &begin, &end);
    skip.n = n;
    for (k = 0; k < n; k++)
      skip.rects[k] = plane_window (plan, p, &windows[k].area, in[p].height);
    err = cbf_copy_except (&in[p], &out[p], plan->row_bytes[p], begin, end,
        &skip, regions->side);
  }
  if (err == cudaSuccess)
    err = cudaEventRecord (regions->join, regions->side);

  /* The blends once the weights are made, beside the copy's end. */
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (stream, regions->weighed, 0);
  for (k = 0; k < n && err == cudaSuccess; k++)
    err = window_step (plan, WINDOW_BLEND, luma, chroma, regions, in,
        out, &windows[k], row_begin, row_end, stream);
  /* Joined even after a failure, so that the side stream's work is never
   * left behind the frame's. */
  join = cudaStreamWaitEvent (stream, regions->join, 0);
  return err != cudaSuccess ? err : join;
}
