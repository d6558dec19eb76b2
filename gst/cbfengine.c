/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfengineprivate.h"

#include <math.h>
#include <string.h>

G_STATIC_ASSERT (CBF_PARAMS_TEMPORAL_STRENGTH_MAX == CBF_TEMPORAL_MAX_GAIN);


/* Everything the engine holds on the device, page-locked for it or made
 * for it (events, a stream), in one list: cbf_engine_free frees it from
 * here, cbf_engine_device_holdings counts it and cbf_engine_on_device
 * answers from it, so that none of them can miss what another sees. Each
 * is made where it is first needed (prepare, the mask) and freed with its
 * group. */
typedef enum
{
  HELD_MEMORY,                  /* cudaMalloc's */
  HELD_PINNED,                  /* cudaHostAlloc's */
  HELD_EVENT,
  HELD_STREAM,
  HELD_PLANE,                   /* a CbfPlane's data */
  HELD_FRAME_STATE,             /* a CbfFrameState's planes */
  HELD_GRID,                    /* a CbfGridScratch's cells */
  /* The estimators' buffers, made all at once or not at all
   * (cbf_motion_scratch_alloc, cbf_noise_scratch_alloc): the first
   * tells. */
  HELD_MOTION,
  HELD_NOISE,
} HeldKind;

typedef enum
{
  GROUP_TABLES = 1 << 0,        /* the weights, by the first prepare */
  GROUP_MASK = 1 << 1,          /* the strength mask */
  GROUP_TEMPORAL = 1 << 2,      /* the temporal filter's state, the motion
                                 * search's and the noise measure's */
  GROUP_REGIONS = 1 << 3,       /* the regions' weights and side stream */
  GROUP_GUIDE = 1 << 4,         /* chroma's guide */
  GROUP_ALL = (1 << 5) - 1
} HeldGroup;

typedef struct
{
  HeldKind kind;
  HeldGroup group;
  gsize offset;                 /* in CbfEngine */
} Holding;

#define HOLDING(kind, group, member) \
  { kind, group, G_STRUCT_OFFSET (CbfEngine, member) }

static const Holding holdings[] = {
  HOLDING (HELD_MEMORY, GROUP_TABLES, luma.dev_tables),
  HOLDING (HELD_PINNED, GROUP_TABLES, luma.host_tables),
  HOLDING (HELD_EVENT, GROUP_TABLES, luma.uploaded),
  HOLDING (HELD_GRID, GROUP_TABLES, luma.grid),
  HOLDING (HELD_MEMORY, GROUP_TABLES, chroma.dev_tables),
  HOLDING (HELD_PINNED, GROUP_TABLES, chroma.host_tables),
  HOLDING (HELD_EVENT, GROUP_TABLES, chroma.uploaded),
  HOLDING (HELD_GRID, GROUP_TABLES, chroma.grid),
  HOLDING (HELD_PLANE, GROUP_MASK, mask_raw),
  HOLDING (HELD_PLANE, GROUP_MASK, mask_luma),
  HOLDING (HELD_PLANE, GROUP_MASK, mask_chroma),
  HOLDING (HELD_MEMORY, GROUP_TEMPORAL, identity_dev),
  HOLDING (HELD_FRAME_STATE, GROUP_TEMPORAL, state),
  HOLDING (HELD_FRAME_STATE, GROUP_TEMPORAL, history[0]),
  HOLDING (HELD_FRAME_STATE, GROUP_TEMPORAL, history[1]),
  HOLDING (HELD_MOTION, GROUP_TEMPORAL, motion),
  HOLDING (HELD_PINNED, GROUP_TEMPORAL, cut_host),
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, sync.cut_copied[0]),
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, sync.cut_copied[1]),
  HOLDING (HELD_NOISE, GROUP_TEMPORAL, noise),
  HOLDING (HELD_PINNED, GROUP_TEMPORAL, noise_host),
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, sync.noise_copied[0]),
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, sync.noise_copied[1]),
  HOLDING (HELD_PLANE, GROUP_REGIONS, region_luma),
  HOLDING (HELD_PLANE, GROUP_REGIONS, region_chroma),
  HOLDING (HELD_STREAM, GROUP_REGIONS, sync.region_side),
  HOLDING (HELD_EVENT, GROUP_REGIONS, sync.region_fork),
  HOLDING (HELD_EVENT, GROUP_REGIONS, sync.region_weighed),
  HOLDING (HELD_EVENT, GROUP_REGIONS, sync.region_join),
  HOLDING (HELD_PINNED, GROUP_REGIONS, cells_host),
  HOLDING (HELD_MEMORY, GROUP_REGIONS, cells_dev),
  HOLDING (HELD_MEMORY, GROUP_REGIONS, cells_index),
  HOLDING (HELD_EVENT, GROUP_REGIONS, sync.cells_uploaded),
  HOLDING (HELD_PLANE, GROUP_GUIDE, guide),
};

static void free_grid (CbfGridScratch * grid);
static void free_frame_state (CbfFrameState * state);
static void free_device_plane (CbfPlane * plane);

static gboolean
held (const CbfEngine * engine, const Holding * h)
{
  gconstpointer at = G_STRUCT_MEMBER_P (engine, h->offset);
  guint i, v;

  switch (h->kind) {
    case HELD_PLANE:
      return ((const CbfPlane *) at)->data != NULL;
    case HELD_FRAME_STATE:
      for (i = 0; i < CBF_MAX_PASSES; i++)
        for (v = 0; v < 3; v++)
          if ((*(const CbfFrameState *) at)[i][v].data)
            return TRUE;
      return FALSE;
    case HELD_GRID:
      return ((const CbfGridScratch *) at)->cells[0] != NULL;
    case HELD_MOTION:
      return ((const CbfMotionScratch *) at)->cur0 != NULL;
    case HELD_NOISE:
      return ((const CbfNoiseScratch *) at)->counts != NULL;
    default:
      return *(const gpointer *) at != NULL;
  }
}

static void
release (CbfEngine * engine, const Holding * h)
{
  gpointer at = G_STRUCT_MEMBER_P (engine, h->offset);

  if (!held (engine, h))
    return;
  switch (h->kind) {
    case HELD_MEMORY:
      cudaFree (*(gpointer *) at);
      break;
    case HELD_PINNED:
      cudaFreeHost (*(gpointer *) at);
      break;
    case HELD_EVENT:
      cudaEventDestroy (*(cudaEvent_t *) at);
      break;
    case HELD_STREAM:
      cudaStreamDestroy (*(cudaStream_t *) at);
      break;
    case HELD_PLANE:
      free_device_plane (at);
      return;
    case HELD_FRAME_STATE:
      free_frame_state (at);
      return;
    case HELD_GRID:
      free_grid (at);
      return;
    case HELD_MOTION:
      cbf_motion_scratch_free (at);
      return;
    case HELD_NOISE:
      cbf_noise_scratch_free (at);
      return;
  }
  *(gpointer *) at = NULL;
}

/* Frees what @groups (HeldGroup) hold. */
static void
release_groups (CbfEngine * engine, guint groups)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (holdings); i++)
    if (holdings[i].group & groups)
      release (engine, &holdings[i]);
  if (groups & GROUP_TABLES)
    cbf_engine_free_sized (engine);
}

/* Whether @p asks anything of YUV's planes one by one, which YUV 4:4:4
 * then follows (cbf_frame_plan_init). */
static gboolean
wants_by_plane (const CbfParams * p)
{
  return p->chroma_guide != CBF_CHROMA_GUIDE_NONE || p->luma_unfiltered
      || !p->filter_chroma || p->chroma_diameter >= 0
      || p->chroma_sigma_color >= 0 || p->chroma_sigma_space >= 0;
}

/* The estimator's luma of the frames (CbfMotionLuma): luma itself, or
 * (R + 2 G + B) / 4 of RGB, whose green is the middle colour sample of a
 * packed pixel and the first plane of GBR. */
static void
set_motion_luma (CbfEngine * engine)
{
  const GstVideoInfo *info = &engine->info;
  CbfMotionLuma *l = &engine->motion_luma;

  l->weights[0] = 1.f;
  l->weights[1] = l->weights[2] = 0.f;
  if (engine->plan.passes[0].channels == 3 && GST_VIDEO_INFO_IS_RGB (info)) {
    gboolean green_first = GST_VIDEO_INFO_N_PLANES (info) == 3
        && GST_VIDEO_INFO_COMP_PLANE (info, GST_VIDEO_COMP_G) == 0;

    l->weights[0] = green_first ? 0.5f : 0.25f;
    l->weights[1] = green_first ? 0.25f : 0.5f;
    l->weights[2] = 0.25f;
  }
  l->to_8bit = 255.f / (float) ((1u << engine->plan.bits) - 1);
}

CbfEngine *
cbf_engine_new (const GstVideoInfo * info, GError ** error)
{
  CbfEngine *engine = g_new0 (CbfEngine, 1);

  engine->noise_estimate = engine->noise_in_use = -1;
  if (!cbf_engine_set_info (engine, info, error)) {
    g_free (engine);
    return NULL;
  }
  return engine;
}

gboolean
cbf_engine_set_info (CbfEngine * engine, const GstVideoInfo * info,
    GError ** error)
{
  CbfFramePlan plan;

  if (!cbf_frame_plan_init (&plan, info, engine->by_plane)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "Unsupported format %s.", GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }
  engine->info = *info;
  engine->plan = plan;
  set_motion_luma (engine);
  /* The chroma parameters depend on the format's subsampling, the scaled
   * mask on the size. */
  engine->dirty = TRUE;
  engine->mask_on = FALSE;
  cbf_engine_reset (engine);
  return TRUE;
}

void
cbf_engine_reset (CbfEngine * engine)
{
  engine->luma_state_valid = engine->chroma_state_valid = FALSE;
}

const CbfFramePlan *
cbf_engine_get_plan (const CbfEngine * engine)
{
  return &engine->plan;
}

/* The parameters in use from the user's and the noise level. */
void
cbf_engine_derive_params (CbfEngine * engine)
{
  const CbfParams *u = &engine->user;
  gdouble s = u->noise == CBF_NOISE_GIVEN ? MAX (u->noise_sigma, 0) :
      u->noise == CBF_NOISE_MEASURED ? engine->noise_in_use : -1;

  engine->params = *u;
  /* The motion search expects the noise where it is known, else takes
   * temporal-sigma for it (the user guide's advice: about the noise). */
  engine->motion_luma.noise = (float) (s >= 0 ? s : u->temporal_sigma);
  if (s >= 0) {
    engine->params.sigma_color = CBF_NOISE_COLOR * s;
    engine->params.temporal_sigma = MAX (CBF_NOISE_TEMPORAL * s -
        CBF_NOISE_TEMPORAL_OFFSET, CBF_NOISE_TEMPORAL_MIN);
  }
}

void
cbf_engine_set_params (CbfEngine * engine, const CbfParams * params)
{
  gboolean by_plane = wants_by_plane (params);

  engine->user = *params;
  cbf_engine_derive_params (engine);
  /* YUV 4:4:4 changes plans: its passes, their state and chroma's mask. */
  if (by_plane != engine->by_plane && cbf_frame_plan_can_split (&engine->info)) {
    cbf_frame_plan_init (&engine->plan, &engine->info, by_plane);
    set_motion_luma (engine);
    cbf_engine_reset (engine);
  }
  engine->by_plane = by_plane;
  engine->dirty = TRUE;
}

static void
free_grid (CbfGridScratch * grid)
{
  /* The cell sizes and range passes stay: update_grid sets them before it
   * allocates. */
  cudaFree (grid->cells[0]);
  cudaFree (grid->cells[1]);
  grid->cells[0] = grid->cells[1] = NULL;
  grid->capacity = 0;
}

/* Sizes the grid of @tables for the passes of @plan that use them (the
 * chroma ones or the others), with cells for @sigma_space and @sigma_color,
 * and points the weights at it. Allocates only when the grid grows: at a
 * parameter or caps change, never per frame. */
static cudaError_t
update_grid (Tables * tables, const CbfFramePlan * plan, gboolean chroma,
    gdouble sigma_space, gdouble sigma_color)
{
  size_t floats = 0;
  guint i;

  for (i = 0; i < plan->n_passes; i++) {
    const CbfPass *pass = &plan->passes[i];

    if (pass->chroma != chroma)
      continue;
    /* One plan has one kind of pass per set of tables. */
    cbf_grid_cells (sigma_space, sigma_color, pass->channels, plan->bits,
        &tables->grid);
    floats = MAX (floats, cbf_grid_floats (pass->width, pass->height,
            pass->channels, pass->channels == 3 ? 1 : pass->n_views,
            &tables->grid));
  }
  cbf_grid_weights_init (&tables->weights, &tables->grid);
  if (floats <= tables->grid.capacity)
    return cudaSuccess;
  {
    cudaError_t err;

    free_grid (&tables->grid);
    err = cudaMalloc ((void **) &tables->grid.cells[0],
        floats * sizeof (float));
    if (err == cudaSuccess)
      err = cudaMalloc ((void **) &tables->grid.cells[1],
          floats * sizeof (float));
    if (err != cudaSuccess) {
      free_grid (&tables->grid);
      return err;
    }
    tables->grid.capacity = floats;
  }
  return cudaSuccess;
}

/* The constant border's pixel of @plan's samples (CbfFilterParams):
 * @value (8-bit levels) scaled to their bits, in each sample, repeated. */
static void
fill_border_pixel (guint8 * pixel, const CbfFramePlan * plan, guint value)
{
  const CbfPass *pass = &plan->passes[0];
  guint sample = (guint) (value * ((1u << plan->bits) - 1) / 255. + 0.5);
  gsize i;

  if (plan->bits == 8) {
    memset (pixel, value, CBF_BORDER_PIXEL_BYTES);
  } else if (pass->blend_samples == CBF_SAMPLES_10A2) {
    guint32 word = sample | sample << 10 | sample << 20;

    for (i = 0; i < CBF_BORDER_PIXEL_BYTES; i += sizeof (word))
      memcpy (pixel + i, &word, sizeof (word));
  } else {
    guint16 word = sample << pass->sample_shift;

    for (i = 0; i < CBF_BORDER_PIXEL_BYTES; i += sizeof (word))
      memcpy (pixel + i, &word, sizeof (word));
  }
}

cudaError_t
cbf_engine_alloc_tables (Tables * tables, gsize floats)
{
  gsize bytes;
  cudaError_t err;

  tables->border_offset = GST_ROUND_UP_16 (floats * sizeof (float));
  bytes = tables->border_offset + CBF_BORDER_PIXEL_BYTES;

  err = cudaMalloc ((void **) &tables->dev_tables, bytes);
  if (err == cudaSuccess)
    err = cudaHostAlloc ((void **) &tables->host_tables, bytes,
        cudaHostAllocPortable);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&tables->uploaded, cudaEventDisableTiming);
  return err;
}

gsize
cbf_engine_fill_weights (CbfFilterParams * weights, float *host_tables,
    float *dev_tables, CbfKernel kernel, gint bits, gint channels,
    gint diameter, gdouble sigma_color, gdouble sigma_space)
{
  const gchar *env;
  gint radius;

  if (kernel == CBF_KERNEL_GAUSSIAN) {
    gint ksize;
    gdouble sigma;

    cbf_gaussian_params (diameter, sigma_space, &ksize, &sigma);
    cbf_gaussian_kernel_fill (host_tables, ksize, sigma);
    cbf_gaussian_weights_init (weights, ksize, dev_tables);
    return ksize;
  }
  radius = cbf_bilateral_walk_radius (cbf_bilateral_radius (diameter,
          sigma_space), sigma_space, (1 << bits) - 1);
  if (bits > 8) {
    cbf_deep_tables_fill (host_tables, radius, bits, channels, sigma_color,
        sigma_space);
    cbf_deep_weights_init (weights, radius, bits, sigma_color, host_tables,
        dev_tables);
    return cbf_deep_tables_len (radius);
  }
  cbf_bilateral_tables_fill (host_tables, radius, sigma_color, sigma_space);
  cbf_bilateral_weights_init (weights, radius, host_tables, dev_tables);
  /* GST_CBF_WIDE_KERNEL picks the wide kernel's form (bilateral.h) */
  env = g_getenv ("GST_CBF_WIDE_KERNEL");
  weights->wide_fold = !g_strcmp0 (env, "folded") ? 1 :
      !g_strcmp0 (env, "unfolded") ? -1 : 0;
  return cbf_bilateral_tables_len (radius);
}

cudaError_t
cbf_engine_update_tables (Tables * tables, const CbfFramePlan * plan,
    CbfKernel kernel, gint diameter, gdouble sigma_color, gdouble sigma_space,
    const CbfParams * p, cudaStream_t stream)
{
  gsize n_floats;
  cudaError_t err = cudaEventSynchronize (tables->uploaded);

  if (err != cudaSuccess)
    return err;

  /* One kind of pass a plan: the first one's channels are all's. */
  n_floats = cbf_engine_fill_weights (&tables->weights, tables->host_tables,
      tables->dev_tables, kernel, plan->bits, plan->passes[0].channels,
      diameter, sigma_color, sigma_space);
  err = cudaMemcpyAsync (tables->dev_tables, tables->host_tables,
      n_floats * sizeof (float), cudaMemcpyHostToDevice, stream);
  tables->weights.border = p->border;
  tables->weights.border_pixel = NULL;
  if (err == cudaSuccess && p->border == CBF_BORDER_CONSTANT) {
    guint8 *host = (guint8 *) tables->host_tables + tables->border_offset;
    guint8 *dev = (guint8 *) tables->dev_tables + tables->border_offset;

    fill_border_pixel (host, plan, p->border_value);
    err = cudaMemcpyAsync (dev, host, CBF_BORDER_PIXEL_BYTES,
        cudaMemcpyHostToDevice, stream);
    tables->weights.border_pixel = dev;
  }
  if (err == cudaSuccess)
    err = cudaEventRecord (tables->uploaded, stream);
  return err;
}

static gboolean
bilateral_passes_through (CbfKernel kernel, gdouble sigma_color,
    gdouble sigma_space)
{
  return kernel != CBF_KERNEL_GAUSSIAN
      && (sigma_color <= CBF_BILATERAL_MIN_SIGMA
      || sigma_space <= CBF_BILATERAL_MIN_SIGMA);
}

/* Makes the tables (and the grid) for the engine's parameters and enqueues
 * their upload on @stream, so that all bands of the next frame use one set
 * of parameters. */
static cudaError_t
apply_params (CbfEngine * engine, cudaStream_t stream, const gchar ** what)
{
  const CbfParams *p = &engine->params;
  const CbfFramePlan *plan = &engine->plan;
  gint chroma_diameter;
  gdouble chroma_sigma_space, chroma_sigma_color;
  /* The grid approximates the bilateral filter only. */
  CbfKernel kernel = p->mode == CBF_MODE_GAUSSIAN ? CBF_KERNEL_GAUSSIAN :
      p->method == CBF_METHOD_GRID ? CBF_KERNEL_GRID : CBF_KERNEL_BILATERAL;
  cudaError_t err = cudaSuccess;

  /* A plane whose sigmas pass the bilateral filter through (its grid
   * approximation too) is copied, as OpenCV's bilateralFilter returns it:
   * luma and chroma each by their own sigma-space. */
  cbf_bilateral_chroma_params (p->diameter, p->sigma_space,
      plan->chroma_factor, &chroma_diameter, &chroma_sigma_space);
  if (p->chroma_diameter >= 0)
    chroma_diameter = p->chroma_diameter;
  if (p->chroma_sigma_space >= 0)
    chroma_sigma_space = p->chroma_sigma_space;
  chroma_sigma_color = p->chroma_sigma_color >= 0 ? p->chroma_sigma_color :
      p->sigma_color;
  /* filter-luma is YUV's: GRAY and RGB formats ignore it. */
  engine->luma_copied = p->luma_unfiltered
      && GST_VIDEO_INFO_IS_YUV (&engine->info);
  engine->luma_filtered = !engine->luma_copied
      && !bilateral_passes_through (kernel, p->sigma_color, p->sigma_space);
  engine->chroma_filtered = p->filter_chroma
      && !bilateral_passes_through (kernel, chroma_sigma_color,
      chroma_sigma_space);

  if (!engine->luma.dev_tables) {
    *what = "allocating the weight tables";
    err =
        cbf_engine_alloc_tables (&engine->luma,
        cbf_bilateral_tables_max_len ());
    if (err == cudaSuccess)
      err =
          cbf_engine_alloc_tables (&engine->chroma,
          cbf_bilateral_tables_max_len ());
    if (err != cudaSuccess) {
      release_groups (engine, GROUP_TABLES);
      return err;
    }
  }
  *what = "uploading the weight tables";
  err = cbf_engine_update_tables (&engine->luma, plan, kernel, p->diameter,
      p->sigma_color, p->sigma_space, p, stream);
  if (err == cudaSuccess)
    err =
        cbf_engine_update_tables (&engine->chroma, plan, kernel,
        chroma_diameter, chroma_sigma_color, chroma_sigma_space, p, stream);
  if (err == cudaSuccess && kernel == CBF_KERNEL_GRID) {
    *what = "allocating the bilateral grid";
    err = update_grid (&engine->luma, plan, FALSE, p->sigma_space,
        p->sigma_color);
    if (err == cudaSuccess)
      err = update_grid (&engine->chroma, plan, TRUE, chroma_sigma_space,
          chroma_sigma_color);
  }
  if (err != cudaSuccess)
    return err;
  engine->kernel = kernel;
  /* region-size-scale's tables are made again as each is next needed. */
  engine->generation++;
  return cudaSuccess;
}

static void
free_frame_state (CbfFrameState * state)
{
  guint i, v;

  for (i = 0; i < CBF_MAX_PASSES; i++)
    for (v = 0; v < 3; v++) {
      cudaFree ((*state)[i][v].data);
      memset (&(*state)[i][v], 0, sizeof (CbfPlane));
    }
}

static void
free_device_plane (CbfPlane * plane)
{
  cudaFree (plane->data);
  memset (plane, 0, sizeof (*plane));
}

/* Makes @plane a packed @width x @height device buffer of @bytes a pixel,
 * keeping the one it has when the size is the same. */
static cudaError_t
ensure_plane_of (CbfPlane * plane, gint width, gint height, gint bytes)
{
  if (plane->data && plane->width == width && plane->height == height
      && plane->pixel_bytes == bytes)
    return cudaSuccess;
  free_device_plane (plane);
  plane->width = width;
  plane->height = height;
  plane->pitch_bytes = (gsize) width *bytes;
  plane->pixel_bytes = bytes;
  return cudaMalloc ((void **) &plane->data, (size_t) width * bytes * height);
}

cudaError_t
cbf_engine_ensure_plane (CbfPlane * plane, gint width, gint height)
{
  return ensure_plane_of (plane, width, height, 1);
}

/* The guide of chroma guided by luma, where the frames have it: the
 * bilateral filter's chroma, filtered, in a pair the plan can guide. */
static cudaError_t
prepare_guide (CbfEngine * engine)
{
  const CbfFramePlan *plan = &engine->plan;
  const CbfPass *last = &plan->passes[plan->n_passes - 1];

  engine->guide_on = engine->params.chroma_guide == CBF_CHROMA_GUIDE_LUMA
      && engine->kernel == CBF_KERNEL_BILATERAL && engine->chroma_filtered
      && last->chroma && last->guided;
  if (!engine->guide_on)
    return cudaSuccess;
  return ensure_plane_of (&engine->guide, last->width, last->height,
      plan->bits > 8 ? 2 : 1);
}

cudaError_t
cbf_engine_prepare (CbfEngine * engine, cudaStream_t stream,
    gint * halo_rows, const gchar ** what)
{
  cudaError_t err;

  *what = "allocating the noise estimator";
  err = cbf_engine_prepare_noise (engine, stream);
  if (err != cudaSuccess)
    return err;

  if (engine->dirty) {
    err = apply_params (engine, stream, what);
    if (err != cudaSuccess)
      return err;
    engine->dirty = FALSE;
  }
  err = cbf_engine_prepare_temporal (engine, stream, what);
  if (err != cudaSuccess)
    return err;
  *what = "allocating the chroma guide";
  err = prepare_guide (engine);
  if (err != cudaSuccess) {
    engine->guide_on = FALSE;
    return err;
  }
  if (engine->regions_on) {
    err = cbf_engine_prepare_regions (engine, stream, what);
    if (err != cudaSuccess)
      return err;
  }
  /* The grid is made from the whole picture before the first band is
   * read back, and the wrapping border's first rows read its last: that
   * band waits for every row. */
  if (engine->kernel == CBF_KERNEL_GRID
      || engine->params.border == CBF_BORDER_WRAP || engine->motion_on)
    *halo_rows = engine->plan.passes[0].height;
  /* Bands cut one-plane formats only, whose chroma rows are luma's; the
   * regions' windows read as far as their own diameters reach. */
  else
    *halo_rows = MAX (MAX (engine->luma.weights.radius,
            engine->chroma.weights.radius), engine->sized_on ?
        engine->sized_reach : 0);
  return cudaSuccess;
}

cudaError_t
cbf_engine_set_mask (CbfEngine * engine, const guint8 * pixels, gint width,
    gint height, cudaStream_t stream, const gchar ** what)
{
  const GstVideoInfo *info = &engine->info;
  cudaError_t err;

  *what = "uploading the strength mask";
  engine->mask_on = pixels != NULL;
  if (!engine->mask_on)
    return cudaSuccess;
  /* On @stream too, so the scaling kernels see it whole. */
  err = cbf_engine_ensure_plane (&engine->mask_raw, width, height);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (engine->mask_raw.data, pixels,
        (size_t) width * height, cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess)
    err = cbf_engine_ensure_plane (&engine->mask_luma,
        engine->plan.passes[0].width, engine->plan.passes[0].height);
  if (err == cudaSuccess)
    err = cbf_mask_scale (&engine->mask_raw, &engine->mask_luma, stream);
  /* Chroma's scaled mask wherever the format has chroma, for plans that
   * filter it on its own (cbf_engine_set_params may change the plan). */
  if (err == cudaSuccess && GST_VIDEO_INFO_IS_YUV (info)
      && GST_VIDEO_INFO_N_COMPONENTS (info) >= 3) {
    err = cbf_engine_ensure_plane (&engine->mask_chroma,
        GST_VIDEO_INFO_COMP_WIDTH (info, GST_VIDEO_COMP_U),
        GST_VIDEO_INFO_COMP_HEIGHT (info, GST_VIDEO_COMP_U));
    if (err == cudaSuccess)
      err = cbf_mask_scale (&engine->mask_raw, &engine->mask_chroma, stream);
  }
  if (err != cudaSuccess)
    engine->mask_on = FALSE;
  return err;
}

cudaError_t
cbf_engine_run (CbfEngine * engine, const CbfPlane * in, const CbfPlane * out,
    gint row_begin, gint row_end, cudaStream_t stream)
{
  CbfGroupRun luma = { engine->kernel, &engine->luma.weights,
    engine->mask_on ? &engine->mask_luma : NULL, NULL, NULL
  };
  CbfGroupRun chroma = { engine->kernel, &engine->chroma.weights,
    engine->mask_on ? &engine->mask_chroma : NULL, NULL, NULL
  };
  cudaError_t err;

  /* A plane whose sigmas pass the bilateral filter through is copied, or
   * given unchanged to the temporal filter; a plane left unfiltered by
   * filter-luma=false or filter-chroma=false is copied whatever the
   * temporal filter does. */
  if (!engine->luma_filtered) {
    luma.kernel = CBF_KERNEL_GAUSSIAN;
    luma.params = engine->luma_writes_state ? &engine->identity_luma : NULL;
  }
  if (!engine->chroma_filtered) {
    chroma.kernel = CBF_KERNEL_GAUSSIAN;
    chroma.params = engine->chroma_writes_state ?
        &engine->identity_chroma : NULL;
  }
  CbfRegionRun regions = { &engine->regions, cbf_engine_regions_whole (engine),
    engine->sync.region_side, engine->sync.region_fork,
    engine->sync.region_weighed, engine->sync.region_join,
    engine->sized_on ? (const CbfFilterParams * const (*)[2])
    engine->sized_params : NULL
  };

  luma.weights = &engine->region_luma;
  chroma.weights = &engine->region_chroma;
  chroma.guide = engine->guide_on ? &engine->guide : NULL;
  /* The field is the whole frame's: its band waits for every row
   * (cbf_engine_prepare's halo). */
  err = engine->motion_on && row_begin == 0 ?
      cbf_engine_estimate_motion (engine, in, stream) : cudaSuccess;
  if (err == cudaSuccess)
    err = cbf_frame_plan_run (&engine->plan, &luma, &chroma,
        engine->temporal_on ? &engine->state : NULL,
        engine->motion_on ? &engine->motion_run : NULL,
        engine->regions_on ? &regions : NULL, in, out, row_begin, row_end,
        stream);
  if (err == cudaSuccess && row_end >= in[0].height
      && engine->user.noise == CBF_NOISE_MEASURED && engine->noise.counts)
    err = cbf_engine_measure_noise (engine, in, stream);
  /* The state holds this frame's output once all its bands are enqueued
   * (bands come in order, the last ending at the frame's last row). */
  if (err == cudaSuccess && row_end >= in[0].height) {
    engine->luma_state_valid = engine->luma_writes_state;
    engine->chroma_state_valid = engine->chroma_writes_state;
    if (engine->motion_on)
      engine->history_slot ^= 1;
  }
  return err;
}

void
cbf_engine_release_temporal (CbfEngine * engine)
{
  release_groups (engine, GROUP_TEMPORAL);
}

guint
cbf_engine_device_holdings (const CbfEngine * engine)
{
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (holdings); i++)
    n += held (engine, &holdings[i]);
  for (i = 0; i < G_N_ELEMENTS (engine->sized); i++)
    n += engine->sized[i] != NULL;
  return n;
}

gboolean
cbf_engine_on_device (const CbfEngine * engine)
{
  return cbf_engine_device_holdings (engine) > 0;
}

void
cbf_engine_free (CbfEngine * engine)
{
  if (!engine)
    return;
  /* No CUDA call without device memory: it would start the runtime. */
  if (cbf_engine_on_device (engine))
    release_groups (engine, GROUP_ALL);
  g_free (engine);
}
