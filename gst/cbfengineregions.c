/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The engine's regions (cbfengineprivate.h): their weights' planes and
 * side stream, a segmentation mask's cells on the device, and
 * region-size-scale's tables, a set a window diameter. */

#include "cbfengineprivate.h"

#include <string.h>

/* The regions' segmentation cells to the device, through their staging
 * (once the last upload from it is done), and their index made there. */
static cudaError_t
upload_cells (CbfEngine * engine, cudaStream_t stream)
{
  CbfRegionCells *g = &engine->regions.cells;
  const gsize n = (gsize) g->cols * g->rows;
  cudaError_t err = cudaSuccess;

  if (!engine->cells_host || !engine->cells_dev || !engine->cells_index
      || n > engine->cells_room) {
    /* Freeing pinned memory waits for the device, so the staging is free
     * to go. */
    cudaFreeHost (engine->cells_host);
    cudaFree (engine->cells_dev);
    cudaFree (engine->cells_index);
    engine->cells_host = engine->cells_dev = NULL;
    engine->cells_index = NULL;
    err = cudaHostAlloc ((void **) &engine->cells_host, n,
        cudaHostAllocDefault);
    if (err == cudaSuccess)
      err = cudaMalloc ((void **) &engine->cells_dev, n);
    if (err == cudaSuccess)
      err = cudaMalloc ((void **) &engine->cells_index,
          2 * n * sizeof (gint32));
    if (err != cudaSuccess)
      goto failed;
    engine->cells_room = n;
  }
  if (!engine->sync.cells_uploaded)
    err = cudaEventCreateWithFlags (&engine->sync.cells_uploaded,
        cudaEventDisableTiming);
  else
    err = cudaEventSynchronize (engine->sync.cells_uploaded);
  if (err != cudaSuccess)
    goto failed;
  memcpy (engine->cells_host, g->cells, n);
  err = cudaMemcpyAsync (engine->cells_dev, engine->cells_host, n,
      cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess)
    err = cudaEventRecord (engine->sync.cells_uploaded, stream);
  if (err == cudaSuccess)
    err = cbf_region_cells_index (engine->cells_dev, g->cols, g->rows,
        engine->cells_index, engine->cells_index + n, stream);
  if (err != cudaSuccess)
    goto failed;
  g->cells = engine->cells_dev;
  g->left = engine->cells_index;
  g->right = engine->cells_index + n;
  return cudaSuccess;

failed:
  /* No mask rather than one half made. */
  memset (g, 0, sizeof (*g));
  return err;
}

void
cbf_engine_free_sized (CbfEngine * engine)
{
  guint d, k;

  for (d = 0; d < G_N_ELEMENTS (engine->sized); d++) {
    SizedTables *slot = engine->sized[d];

    if (!slot)
      continue;
    for (k = 0; k < 2; k++) {
      Tables *t = k ? &slot->chroma : &slot->luma;

      cudaFree (t->dev_tables);
      cudaFreeHost (t->host_tables);
      if (t->uploaded)
        cudaEventDestroy (t->uploaded);
    }
    g_free (slot);
    engine->sized[d] = NULL;
  }
  memset (engine->sized_params, 0, sizeof (engine->sized_params));
}

/* The window of diameter @d's parameters by region-size-scale: sigma-space
 * in proportion to the diameter against the engine's own window (2 radius
 * + 1); chroma's derived from them as apply_params derives its own, or,
 * where chroma-diameter or chroma-sigma-space is set, those scaled the
 * same way, within CBF_REGION_MAX_DIAMETER. */
static void
sized_params (const CbfEngine * engine, gint d, gdouble * sigma_space,
    gint * chroma_diameter, gdouble * chroma_sigma_space)
{
  const CbfParams *p = &engine->params;
  /* the window's radius before cbf_bilateral_walk_radius: the one the
   * property names */
  gint own = engine->kernel == CBF_KERNEL_GAUSSIAN ?
      engine->luma.weights.radius :
      cbf_bilateral_radius (p->diameter, p->sigma_space);
  gdouble k = (gdouble) d / (2 * own + 1);

  *sigma_space = p->sigma_space * k;
  cbf_bilateral_chroma_params (d, *sigma_space, engine->plan.chroma_factor,
      chroma_diameter, chroma_sigma_space);
  if (p->chroma_diameter > 0)
    *chroma_diameter = MIN ((gint) (p->chroma_diameter * k + 0.5),
        CBF_REGION_MAX_DIAMETER);
  if (p->chroma_sigma_space >= 0)
    *chroma_sigma_space = p->chroma_sigma_space * k;
  if (cbf_bilateral_radius (*chroma_diameter, *chroma_sigma_space) >
      CBF_REGION_MAX_DIAMETER / 2)
    *chroma_diameter = CBF_REGION_MAX_DIAMETER;
}

/* Makes (once a parameter change) the tables of window diameter @d and
 * enqueues their upload on @stream. */
static cudaError_t
update_sized (CbfEngine * engine, gint d, cudaStream_t stream)
{
  const CbfParams *p = &engine->params;
  SizedTables *slot = engine->sized[d];
  gint chroma_diameter;
  gdouble sigma_space, chroma_sigma_space;
  cudaError_t err;

  if (!slot) {
    /* Sized for any diameter's tables (their length takes a walk of the
     * window: once a slot). */
    const gint r = CBF_REGION_MAX_DIAMETER / 2;
    const gsize bilateral = cbf_bilateral_tables_len (r);
    const gsize deep = cbf_deep_tables_len (r);
    const gsize floats = MAX (MAX (bilateral, deep),
        (gsize) CBF_GAUSSIAN_MAX_KSIZE);

    slot = engine->sized[d] = g_new0 (SizedTables, 1);
    err = cbf_engine_alloc_tables (&slot->luma, floats);
    if (err == cudaSuccess)
      err = cbf_engine_alloc_tables (&slot->chroma, floats);
    if (err != cudaSuccess)
      return err;
    slot->generation = engine->generation - 1;
  }
  if (slot->generation == engine->generation)
    return cudaSuccess;
  sized_params (engine, d, &sigma_space, &chroma_diameter, &chroma_sigma_space);
  err = cbf_engine_update_tables (&slot->luma, &engine->plan, engine->kernel, d,
      p->sigma_color, sigma_space, p, stream);
  if (err == cudaSuccess)
    err =
        cbf_engine_update_tables (&slot->chroma, &engine->plan, engine->kernel,
        chroma_diameter,
        p->chroma_sigma_color >= 0 ? p->chroma_sigma_color : p->sigma_color,
        chroma_sigma_space, p, stream);
  if (err == cudaSuccess)
    slot->generation = engine->generation;
  return err;
}

gboolean
cbf_engine_regions_whole (const CbfEngine * engine)
{
  return engine->temporal_on || engine->kernel == CBF_KERNEL_GRID
      || engine->regions.outside || engine->params.border == CBF_BORDER_WRAP;
}

/* region-size-scale: the tables of the diameters the frame's boxes and
 * mask ask for, and the frame plan's view of them (sized_on). */
static cudaError_t
prepare_sized (CbfEngine * engine, cudaStream_t stream)
{
  const CbfRegionSet *set = &engine->regions;
  cudaError_t err = cudaSuccess;
  gint i;

  engine->sized_on = set->size_scale > 0.f
      && !cbf_engine_regions_whole (engine);
  engine->sized_reach = 0;
  if (!engine->sized_on)
    return cudaSuccess;
  for (i = 0; i <= set->n && err == cudaSuccess; i++) {
    const CbfRegionBox *b = i < set->n ? &set->boxes[i] : &set->cell_bounds;
    gint d;

    if (b->x1 <= b->x0 || b->y1 <= b->y0)
      continue;
    d = cbf_region_diameter (b, set->size_scale);
    err = update_sized (engine, d, stream);
    if (err == cudaSuccess) {
      engine->sized_params[d][0] = engine->luma_filtered ?
          &engine->sized[d]->luma.weights : NULL;
      engine->sized_params[d][1] = engine->chroma_filtered ?
          &engine->sized[d]->chroma.weights : NULL;
      engine->sized_reach = MAX (engine->sized_reach,
          MAX (engine->sized[d]->luma.weights.radius,
              engine->sized[d]->chroma.weights.radius));
    }
  }
  if (err != cudaSuccess)
    engine->sized_on = FALSE;
  return err;
}

gboolean
cbf_engine_regions_sized (const CbfEngine * engine)
{
  return engine->regions_on && engine->sized_on;
}

void
cbf_engine_set_regions (CbfEngine * engine, const CbfRegionSet * set)
{
  engine->regions_on = set != NULL;
  if (set)
    engine->regions = *set;
}

cudaError_t
cbf_engine_prepare_regions (CbfEngine * engine, cudaStream_t stream,
    const gchar ** what)
{
  const CbfPass *last = &engine->plan.passes[engine->plan.n_passes - 1];
  cudaError_t err;

  *what = "allocating the regions' weights";
  err = cbf_engine_ensure_plane (&engine->region_luma,
      engine->plan.passes[0].width, engine->plan.passes[0].height);
  if (err == cudaSuccess && last->chroma)
    err = cbf_engine_ensure_plane (&engine->region_chroma, last->width,
        last->height);
  if (err == cudaSuccess && !engine->sync.region_side)
    err = cudaStreamCreateWithFlags (&engine->sync.region_side,
        cudaStreamNonBlocking);
  if (err == cudaSuccess && !engine->sync.region_fork)
    err = cudaEventCreateWithFlags (&engine->sync.region_fork,
        cudaEventDisableTiming);
  if (err == cudaSuccess && !engine->sync.region_weighed)
    err = cudaEventCreateWithFlags (&engine->sync.region_weighed,
        cudaEventDisableTiming);
  if (err == cudaSuccess && !engine->sync.region_join)
    err = cudaEventCreateWithFlags (&engine->sync.region_join,
        cudaEventDisableTiming);
  if (err == cudaSuccess && engine->regions.cells.cells) {
    *what = "uploading the segmentation mask";
    err = upload_cells (engine, stream);
  }
  if (err == cudaSuccess) {
    *what = "uploading the regions' window tables";
    err = prepare_sized (engine, stream);
  }
  return err;
}
