/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfengine.h"
#include "motion.h"
#include "noise.h"
#include "temporal.h"

#include <math.h>
#include <string.h>

/* The filter's weights for one set of parameters: host and device copies
 * of the tables, each sized for any radius. */
typedef struct
{
  CbfFilterParams weights;
  float *host_tables;           /* pinned staging of the tables */
  float *dev_tables;
  cudaEvent_t uploaded;         /* the last upload from host_tables */
  CbfGridScratch grid;          /* method=grid's buffers, else empty */
} Tables;

G_STATIC_ASSERT (CBF_PARAMS_TEMPORAL_STRENGTH_MAX == CBF_TEMPORAL_MAX_GAIN);

struct _CbfEngine
{
  GstVideoInfo info;
  CbfFramePlan plan;            /* for info */
  CbfParams user;               /* as set */
  CbfParams params;             /* in use: user's, sigma-color and
                                 * temporal-sigma set by the noise level
                                 * where noise-sigma gives one */
  gboolean by_plane;            /* YUV 4:4:4 planned plane by plane */
  gboolean dirty;               /* params or info changed since the tables
                                 * were made */

  /* Made by prepare from params, for the frames that follow. */
  CbfKernel kernel;             /* the kind the tables were made for */
  gboolean luma_copied;         /* filter-luma=false on YUV */
  gboolean luma_filtered;       /* luma (or colour) filtered */
  gboolean chroma_filtered;     /* chroma filtered */
  Tables luma;                  /* also the tables of RGB and Y444 */
  Tables chroma;

  /* The strength mask on the device: as given, and scaled to the luma (or
   * RGB) plane and to the chroma planes. */
  gboolean mask_on;
  CbfPlane mask_raw, mask_luma, mask_chroma;

  /* The temporal filter: the state of each pass's views (made when the
   * filter is first on); whether the state of luma's (or colour's) passes
   * and of chroma's holds the previous output, each apart, as a plane may
   * stop being written while the other goes on; which of them the frame
   * being enqueued writes (valid once its last band is enqueued); and the
   * parameters that give a plane whose sigmas pass the bilateral filter
   * through to it unchanged (the Gaussian of radius 0), one a group, as
   * each carries its own gain. */
  CbfFrameState state;
  gboolean temporal_on;
  gboolean luma_state_valid, chroma_state_valid;
  gboolean luma_writes_state, chroma_writes_state;
  CbfFilterParams identity_luma, identity_chroma;
  float *identity_dev;

  /* temporal-motion=compensated: the spatial kernels leave their result
   * in the state above, and the blend (motion.h) reads the previous
   * output from one history and leaves this frame's in the other, which
   * swap once a frame's last band is enqueued; the validity flags above
   * then speak of the history at history_slot. The blend of the frame
   * being enqueued (made by prepare), the estimator's buffers and what it
   * reads luma as; the cut counts' copies to the host, two frames'
   * (a frame's count is read once its copy is done, without waiting for
   * it where it is not), which of them are still to be counted and which
   * the next frame takes, and the cuts counted. */
  gboolean motion_on;
  CbfFrameState history[2];
  guint history_slot;
  CbfMotionRun motion_run;
  CbfMotionScratch motion;
  CbfMotionLuma motion_luma;
  gboolean field_made;
  guint *cut_host;
  cudaEvent_t cut_copied[2];
  gboolean cut_pending[2];
  guint cut_slot;
  guint cut_limit;
  guint64 scene_cuts;

  /* noise-sigma=-1: the estimator's buffers, each frame's estimate on its
   * way to the host (two frames', as the cut counts), the estimate
   * averaged over frames (-1: none yet) and the level the settings in use
   * were made from. */
  CbfNoiseScratch noise;
  gfloat *noise_host;
  cudaEvent_t noise_copied[2];
  gboolean noise_pending[2];
  guint noise_slot;
  gdouble noise_estimate, noise_in_use;

  /* The regions of the next frames, and their weights on the device for
   * the luma (or RGB) plane and for the chroma planes. */
  gboolean regions_on;
  CbfRegionSet regions;
  CbfPlane region_luma, region_chroma;
  /* Where the regions' weights are made and the frame copied beside their
   * windows, and the events that fork it from the frame's stream, say the
   * weights are made and join it back. */
  cudaStream_t region_side;
  cudaEvent_t region_fork, region_weighed, region_join;

  /* Chroma guided by luma: on for the next frames, and the guide. */
  gboolean guide_on;
  CbfPlane guide;
};

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
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, cut_copied[0]),
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, cut_copied[1]),
  HOLDING (HELD_NOISE, GROUP_TEMPORAL, noise),
  HOLDING (HELD_PINNED, GROUP_TEMPORAL, noise_host),
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, noise_copied[0]),
  HOLDING (HELD_EVENT, GROUP_TEMPORAL, noise_copied[1]),
  HOLDING (HELD_PLANE, GROUP_REGIONS, region_luma),
  HOLDING (HELD_PLANE, GROUP_REGIONS, region_chroma),
  HOLDING (HELD_STREAM, GROUP_REGIONS, region_side),
  HOLDING (HELD_EVENT, GROUP_REGIONS, region_fork),
  HOLDING (HELD_EVENT, GROUP_REGIONS, region_weighed),
  HOLDING (HELD_EVENT, GROUP_REGIONS, region_join),
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
static void
derive_params (CbfEngine * engine)
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
  derive_params (engine);
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

/* Where the constant border's pixel lies in a Tables' buffers: after the
 * largest tables. */
static gsize
border_pixel_offset (void)
{
  return GST_ROUND_UP_16 (cbf_bilateral_tables_max_len () * sizeof (float));
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

/* Sized once for the largest radius, so a parameter change never
 * allocates. */
static cudaError_t
alloc_tables (Tables * tables)
{
  gsize bytes = border_pixel_offset () + CBF_BORDER_PIXEL_BYTES;
  cudaError_t err;

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
  gint radius;

  if (kernel == CBF_KERNEL_GAUSSIAN) {
    gint ksize;
    gdouble sigma;

    cbf_gaussian_params (diameter, sigma_space, &ksize, &sigma);
    cbf_gaussian_kernel_fill (host_tables, ksize, sigma);
    cbf_gaussian_weights_init (weights, ksize, dev_tables);
    return ksize;
  }
  radius = cbf_bilateral_radius (diameter, sigma_space);
  if (bits > 8) {
    cbf_deep_tables_fill (host_tables, radius, bits, channels, sigma_color,
        sigma_space);
    cbf_deep_weights_init (weights, radius, bits, sigma_color, host_tables,
        dev_tables);
    return cbf_deep_tables_len (radius);
  }
  cbf_bilateral_tables_fill (host_tables, radius, sigma_color, sigma_space);
  cbf_bilateral_weights_init (weights, radius, host_tables, dev_tables);
  return cbf_bilateral_tables_len (radius);
}

/* Fills @tables for the parameters and enqueues their upload on @stream:
 * the bilateral tables, or the Gaussian kernel (CBF_GAUSSIAN_MAX_KSIZE
 * floats at most, far less than the bilateral tables' maximum that the
 * buffers are sized for). The host copy is rewritten only once its last
 * upload is done: frames in CUDA memory may leave with their work
 * pending. */
static cudaError_t
update_tables (Tables * tables, const CbfFramePlan * plan, CbfKernel kernel,
    gint diameter, gdouble sigma_color, gdouble sigma_space,
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
    guint8 *host = (guint8 *) tables->host_tables + border_pixel_offset ();
    guint8 *dev = (guint8 *) tables->dev_tables + border_pixel_offset ();

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
    err = alloc_tables (&engine->luma);
    if (err == cudaSuccess)
      err = alloc_tables (&engine->chroma);
    if (err != cudaSuccess) {
      release_groups (engine, GROUP_TABLES);
      return err;
    }
  }
  *what = "uploading the weight tables";
  err = update_tables (&engine->luma, plan, kernel, p->diameter,
      p->sigma_color, p->sigma_space, p, stream);
  if (err == cudaSuccess)
    err = update_tables (&engine->chroma, plan, kernel, chroma_diameter,
        chroma_sigma_color, chroma_sigma_space, p, stream);
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
free_state (CbfEngine * engine)
{
  guint i;

  release_groups (engine, GROUP_TEMPORAL);
  for (i = 0; i < 2; i++)
    engine->noise_pending[i] = engine->cut_pending[i] = FALSE;
  cbf_engine_reset (engine);
}

/* Makes @state for every view of the plan's passes (one of colour's),
 * keeping what it has where the sizes are the same. */
static cudaError_t
ensure_frame_state (const CbfFramePlan * plan, CbfFrameState * state_of)
{
  cudaError_t err = cudaSuccess;
  guint i, v;

  for (i = 0; i < plan->n_passes && err == cudaSuccess; i++) {
    const CbfPass *pass = &plan->passes[i];
    guint views = pass->channels == 3 ? 1 : pass->n_views;
    gint bytes = cbf_temporal_state_bytes (pass->channels, plan->bits);

    for (v = 0; v < views && err == cudaSuccess; v++) {
      CbfPlane *state = &(*state_of)[i][v];

      if (state->data && state->width == pass->width
          && state->height == pass->height && state->pixel_bytes == bytes)
        continue;
      cudaFree (state->data);
      memset (state, 0, sizeof (*state));
      err = cudaMallocPitch ((void **) &state->data, &state->pitch_bytes,
          (size_t) pass->width * bytes, pass->height);
      if (err == cudaSuccess) {
        state->width = pass->width;
        state->height = pass->height;
        state->pixel_bytes = bytes;
      }
    }
  }
  return err;
}

/* Makes the state of every view of the plan's passes, with
 * temporal-motion=compensated the histories and the estimator's buffers
 * too, and the identity's coefficient. */
static cudaError_t
ensure_state (CbfEngine * engine, cudaStream_t stream)
{
  const CbfFramePlan *plan = &engine->plan;
  cudaError_t err = cudaSuccess;

  if (!engine->identity_dev) {
    const float one = 1.f;

    err = cudaMalloc ((void **) &engine->identity_dev, sizeof (float));
    /* On the frames' stream: a copy from pageable memory on the legacy
     * stream may return before it has landed, and that stream need not
     * wait for it. */
    if (err == cudaSuccess)
      err = cudaMemcpyAsync (engine->identity_dev, &one, sizeof (float),
          cudaMemcpyHostToDevice, stream);
    if (err != cudaSuccess)
      return err;
    engine->identity_luma.radius = 0;
    engine->identity_luma.gaussian.coeffs_dev = engine->identity_dev;
    engine->identity_chroma = engine->identity_luma;
  }
  err = ensure_frame_state (plan, &engine->state);
  if (err == cudaSuccess && engine->motion_on) {
    err = ensure_frame_state (plan, &engine->history[0]);
    if (err == cudaSuccess)
      err = ensure_frame_state (plan, &engine->history[1]);
    if (err == cudaSuccess)
      err = cbf_motion_scratch_alloc (&engine->motion,
          plan->passes[0].width, plan->passes[0].height);
    if (err == cudaSuccess && !engine->cut_host)
      err = cudaHostAlloc ((void **) &engine->cut_host, 2 * sizeof (guint),
          cudaHostAllocPortable);
    if (err == cudaSuccess && !engine->cut_copied[0])
      err = cudaEventCreateWithFlags (&engine->cut_copied[0],
          cudaEventDisableTiming);
    if (err == cudaSuccess && !engine->cut_copied[1])
      err = cudaEventCreateWithFlags (&engine->cut_copied[1],
          cudaEventDisableTiming);
  }
  if (err != cudaSuccess)
    free_state (engine);
  return err;
}

/* Counts the scene cut of the frame whose count slot @k holds, once its
 * copy is done; @wait: waits for it. */
static void
collect_cut (CbfEngine * engine, guint k, gboolean wait)
{
  cudaError_t err;

  if (!engine->cut_pending[k])
    return;
  err = wait ? cudaEventSynchronize (engine->cut_copied[k]) :
      cudaEventQuery (engine->cut_copied[k]);
  if (err == cudaErrorNotReady) {
    cudaGetLastError ();        /* not an error: not done yet */
    return;
  }
  engine->cut_pending[k] = FALSE;
  if (err == cudaSuccess && engine->cut_host[k] > engine->cut_limit)
    engine->scene_cuts++;
}

/* The cuts of the frames whose counts have arrived, oldest first. */
static void
collect_cuts (CbfEngine * engine, gboolean wait)
{
  collect_cut (engine, engine->cut_slot, wait);
  collect_cut (engine, engine->cut_slot ^ 1, wait);
}

/* The temporal filter's part of this frame's weights: on, each group's
 * gain (0 where its state does not hold the previous output) and the
 * gate; off, nothing to read or write. The frame about to be enqueued
 * overwrites the state, which holds the previous output again only once
 * its last band is enqueued (cbf_engine_run): a frame that fails on the
 * way leaves the next one without a previous frame. A plane the frame
 * copies (filter-luma=false, filter-chroma=false) writes no state, so
 * its state is stale from then on until the plane is filtered again. */
static cudaError_t
prepare_temporal (CbfEngine * engine, cudaStream_t stream, const gchar ** what)
{
  const CbfParams *p = &engine->params;
  float luma_gain = 0.f, chroma_gain = 0.f, gate = 1.f;
  gboolean motion_on;

  collect_cuts (engine, FALSE);
  engine->field_made = FALSE;
  engine->temporal_on = p->temporal_strength > 0;
  /* The two modes keep their previous outputs in different places. */
  motion_on = engine->temporal_on
      && p->temporal_motion == CBF_TEMPORAL_MOTION_COMPENSATED;
  if (motion_on != engine->motion_on)
    cbf_engine_reset (engine);
  engine->motion_on = motion_on;
  if (engine->temporal_on) {
    cudaError_t err;

    *what = "allocating the temporal filter's state";
    err = ensure_state (engine, stream);
    if (err != cudaSuccess) {
      engine->temporal_on = engine->motion_on = FALSE;
      cbf_engine_reset (engine);
      return err;
    }
    if (engine->luma_state_valid)
      luma_gain = (float) p->temporal_strength;
    if (engine->chroma_state_valid)
      chroma_gain = (float) p->temporal_strength;
    gate = cbf_temporal_gate (p->temporal_sigma, engine->plan.bits);
  }
  if (engine->motion_on) {
    CbfMotionRun *m = &engine->motion_run;

    /* The spatial kernels only leave their result in the state. */
    m->prev = &engine->history[engine->history_slot];
    m->next = &engine->history[engine->history_slot ^ 1];
    /* Chroma follows luma's motion: without a previous luma (luma copied
     * by filter-luma=false, or starting again) there is no field, and
     * chroma starts again too rather than blend where things moved. */
    if (luma_gain <= 0.f)
      chroma_gain = 0.f;
    m->luma_prev = luma_gain > 0.f;
    m->chroma_prev = chroma_gain > 0.f;
    m->luma_gain = luma_gain;
    m->chroma_gain = chroma_gain;
    m->gate = gate;
    m->scratch = &engine->motion;
    engine->cut_limit = cbf_motion_cut_limit (engine->plan.passes[0].width,
        engine->plan.passes[0].height);
    luma_gain = chroma_gain = 0.f;
  }
  engine->luma_writes_state = engine->temporal_on && !engine->luma_copied;
  engine->chroma_writes_state = engine->temporal_on && p->filter_chroma;
  cbf_engine_reset (engine);
  engine->luma.weights.temporal_gain = luma_gain;
  engine->identity_luma.temporal_gain = luma_gain;
  engine->chroma.weights.temporal_gain = chroma_gain;
  engine->identity_chroma.temporal_gain = chroma_gain;
  engine->luma.weights.temporal_gate = gate;
  engine->identity_luma.temporal_gate = gate;
  engine->chroma.weights.temporal_gate = gate;
  engine->identity_chroma.temporal_gate = gate;
  return cudaSuccess;
}

/* temporal-motion=compensated, before the frame's first band: the field
 * from the current frame @in to the previous output, or none (zero, and no
 * cut) where luma has no previous output; the cut count on its way to the
 * host. */
static cudaError_t
estimate_motion (CbfEngine * engine, const CbfPlane * in, cudaStream_t stream)
{
  const CbfPass *pass = &engine->plan.passes[0];
  CbfMotionView cur, prev;
  cudaError_t err;

  cbf_pass_motion_view (pass, in, 0, &cur);
  cbf_state_motion_view (pass, engine->plan.bits,
      &(*engine->motion_run.prev)[0][0], &prev);
  err = cbf_motion_estimate (&cur, engine->motion_run.luma_prev ? &prev :
      NULL, &engine->motion_luma, (float) engine->params.temporal_sigma,
      &engine->motion, stream);
  if (err == cudaSuccess && engine->motion_run.luma_prev) {
    guint k = engine->cut_slot;

    /* The count of two frames ago, long done, read before its slot is
     * written again. */
    collect_cut (engine, k, TRUE);
    err = cudaMemcpyAsync (&engine->cut_host[k], engine->motion.cut_count,
        sizeof (guint), cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess)
      err = cudaEventRecord (engine->cut_copied[k], stream);
    engine->cut_pending[k] = err == cudaSuccess;
    engine->field_made = err == cudaSuccess;
    engine->cut_slot ^= 1;
  }
  return err;
}

guint64
cbf_engine_get_scene_cuts (CbfEngine * engine)
{
  collect_cuts (engine, FALSE);
  return engine->scene_cuts;
}

gboolean
cbf_engine_get_motion (CbfEngine * engine, gfloat ** field, gint * blocks_x,
    gint * blocks_y)
{
  gsize n;
  gfloat *host;

  if (!engine->field_made
      || cudaEventSynchronize (engine->cut_copied[engine->cut_slot ^ 1]) !=
      cudaSuccess)
    return FALSE;
  n = (gsize) engine->motion.blocks_x * engine->motion.blocks_y * 2;
  host = g_new (gfloat, n);
  if (cudaMemcpy (host, engine->motion.field, n * sizeof (gfloat),
          cudaMemcpyDeviceToHost) != cudaSuccess) {
    g_free (host);
    return FALSE;
  }
  *field = host;
  *blocks_x = engine->motion.blocks_x;
  *blocks_y = engine->motion.blocks_y;
  return TRUE;
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

static cudaError_t
ensure_device_plane (CbfPlane * plane, gint width, gint height)
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

/* Takes the estimate in noise slot @k once its copy is done (@wait:
 * waits for it) into the average over frames. */
static void
collect_noise (CbfEngine * engine, guint k, gboolean wait)
{
  cudaError_t err;

  if (!engine->noise_pending[k])
    return;
  err = wait ? cudaEventSynchronize (engine->noise_copied[k]) :
      cudaEventQuery (engine->noise_copied[k]);
  if (err == cudaErrorNotReady) {
    cudaGetLastError ();        /* not an error: not done yet */
    return;
  }
  engine->noise_pending[k] = FALSE;
  if (err != cudaSuccess || engine->noise_host[k] < 0)
    return;
  engine->noise_estimate = engine->noise_estimate < 0 ?
      engine->noise_host[k] :
      0.9 * engine->noise_estimate + 0.1 * engine->noise_host[k];
}

/* noise-sigma=-1: the estimates that have arrived, and new settings once
 * the average has moved by more than 2 % (and a twentieth of a level)
 * from the one in use, so that the tables are not made again every
 * frame; the estimator's buffers. */
static cudaError_t
prepare_noise (CbfEngine * engine, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  gdouble e;

  if (engine->user.noise != CBF_NOISE_MEASURED)
    return cudaSuccess;
  collect_noise (engine, engine->noise_slot, FALSE);
  collect_noise (engine, engine->noise_slot ^ 1, FALSE);
  e = engine->noise_estimate;
  if (e >= 0 && (engine->noise_in_use < 0
          || fabs (e - engine->noise_in_use) >
          0.02 * engine->noise_in_use + 0.05)) {
    engine->noise_in_use = e;
    derive_params (engine);
    engine->dirty = TRUE;
  }
  if (!engine->noise.counts)
    err = cbf_noise_scratch_alloc (&engine->noise, stream);
  if (err == cudaSuccess && !engine->noise_host)
    err = cudaHostAlloc ((void **) &engine->noise_host, 2 * sizeof (gfloat),
        cudaHostAllocPortable);
  if (err == cudaSuccess && !engine->noise_copied[0])
    err = cudaEventCreateWithFlags (&engine->noise_copied[0],
        cudaEventDisableTiming);
  if (err == cudaSuccess && !engine->noise_copied[1])
    err = cudaEventCreateWithFlags (&engine->noise_copied[1],
        cudaEventDisableTiming);
  return err;
}

/* noise-sigma=-1, once the frame @in is whole on the device: its noise,
 * on its way to the host. */
static cudaError_t
measure_noise (CbfEngine * engine, const CbfPlane * in, cudaStream_t stream)
{
  guint k = engine->noise_slot;
  CbfMotionView luma;
  cudaError_t err;

  cbf_pass_motion_view (&engine->plan.passes[0], in, 0, &luma);
  /* The estimate of two frames ago, long done, read before its slot is
   * written again. */
  collect_noise (engine, k, TRUE);
  err = cbf_noise_measure (&luma, &engine->motion_luma, &engine->noise, stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (&engine->noise_host[k], engine->noise.sigma,
        sizeof (gfloat), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaEventRecord (engine->noise_copied[k], stream);
  engine->noise_pending[k] = err == cudaSuccess;
  engine->noise_slot ^= 1;
  return err;
}

gdouble
cbf_engine_get_noise (CbfEngine * engine)
{
  if (engine->noise_host) {
    collect_noise (engine, engine->noise_slot, FALSE);
    collect_noise (engine, engine->noise_slot ^ 1, FALSE);
  }
  return engine->noise_estimate;
}

cudaError_t
cbf_engine_prepare (CbfEngine * engine, cudaStream_t stream,
    gint * halo_rows, const gchar ** what)
{
  cudaError_t err;

  *what = "allocating the noise estimator";
  err = prepare_noise (engine, stream);
  if (err != cudaSuccess)
    return err;

  if (engine->dirty) {
    err = apply_params (engine, stream, what);
    if (err != cudaSuccess)
      return err;
    engine->dirty = FALSE;
  }
  err = prepare_temporal (engine, stream, what);
  if (err != cudaSuccess)
    return err;
  *what = "allocating the chroma guide";
  err = prepare_guide (engine);
  if (err != cudaSuccess) {
    engine->guide_on = FALSE;
    return err;
  }
  if (engine->regions_on) {
    const CbfPass *last = &engine->plan.passes[engine->plan.n_passes - 1];

    *what = "allocating the regions' weights";
    err = ensure_device_plane (&engine->region_luma,
        engine->plan.passes[0].width, engine->plan.passes[0].height);
    if (err == cudaSuccess && last->chroma)
      err = ensure_device_plane (&engine->region_chroma, last->width,
          last->height);
    if (err == cudaSuccess && !engine->region_side)
      err = cudaStreamCreateWithFlags (&engine->region_side,
          cudaStreamNonBlocking);
    if (err == cudaSuccess && !engine->region_fork)
      err = cudaEventCreateWithFlags (&engine->region_fork,
          cudaEventDisableTiming);
    if (err == cudaSuccess && !engine->region_weighed)
      err = cudaEventCreateWithFlags (&engine->region_weighed,
          cudaEventDisableTiming);
    if (err == cudaSuccess && !engine->region_join)
      err = cudaEventCreateWithFlags (&engine->region_join,
          cudaEventDisableTiming);
    if (err != cudaSuccess)
      return err;
  }
  /* The grid is made from the whole picture before the first band is
   * read back, and the wrapping border's first rows read its last: that
   * band waits for every row. */
  if (engine->kernel == CBF_KERNEL_GRID
      || engine->params.border == CBF_BORDER_WRAP || engine->motion_on)
    *halo_rows = engine->plan.passes[0].height;
  /* Bands cut one-plane formats only, whose chroma rows are luma's. */
  else
    *halo_rows = MAX (engine->luma.weights.radius,
        engine->chroma.weights.radius);
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
  err = ensure_device_plane (&engine->mask_raw, width, height);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (engine->mask_raw.data, pixels,
        (size_t) width * height, cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess)
    err = ensure_device_plane (&engine->mask_luma,
        engine->plan.passes[0].width, engine->plan.passes[0].height);
  if (err == cudaSuccess)
    err = cbf_mask_scale (&engine->mask_raw, &engine->mask_luma, stream);
  /* Chroma's scaled mask wherever the format has chroma, for plans that
   * filter it on its own (cbf_engine_set_params may change the plan). */
  if (err == cudaSuccess && GST_VIDEO_INFO_IS_YUV (info)
      && GST_VIDEO_INFO_N_COMPONENTS (info) >= 3) {
    err = ensure_device_plane (&engine->mask_chroma,
        GST_VIDEO_INFO_COMP_WIDTH (info, GST_VIDEO_COMP_U),
        GST_VIDEO_INFO_COMP_HEIGHT (info, GST_VIDEO_COMP_U));
    if (err == cudaSuccess)
      err = cbf_mask_scale (&engine->mask_raw, &engine->mask_chroma, stream);
  }
  if (err != cudaSuccess)
    engine->mask_on = FALSE;
  return err;
}

void
cbf_engine_set_regions (CbfEngine * engine, const CbfRegionSet * set)
{
  engine->regions_on = set != NULL;
  if (set)
    engine->regions = *set;
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
  /* A window at the frame's edge holds what the other borders read there,
   * not the far edge the wrapping border reads. */
  CbfRegionRun regions = { &engine->regions, engine->temporal_on
        || engine->kernel == CBF_KERNEL_GRID || engine->regions.outside
        || engine->params.border == CBF_BORDER_WRAP,
    engine->region_side, engine->region_fork, engine->region_weighed,
    engine->region_join
  };

  luma.weights = &engine->region_luma;
  chroma.weights = &engine->region_chroma;
  chroma.guide = engine->guide_on ? &engine->guide : NULL;
  /* The field is the whole frame's: its band waits for every row
   * (cbf_engine_prepare's halo). */
  err = engine->motion_on && row_begin == 0 ?
      estimate_motion (engine, in, stream) : cudaSuccess;
  if (err == cudaSuccess)
    err = cbf_frame_plan_run (&engine->plan, &luma, &chroma,
        engine->temporal_on ? &engine->state : NULL,
        engine->motion_on ? &engine->motion_run : NULL,
        engine->regions_on ? &regions : NULL, in, out, row_begin, row_end,
        stream);
  if (err == cudaSuccess && row_end >= in[0].height
      && engine->user.noise == CBF_NOISE_MEASURED && engine->noise.counts)
    err = measure_noise (engine, in, stream);
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

guint
cbf_engine_device_holdings (const CbfEngine * engine)
{
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (holdings); i++)
    n += held (engine, &holdings[i]);
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
