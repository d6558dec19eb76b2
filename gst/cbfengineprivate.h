/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The engine's own fields and the functions its two files share:
 * cbfengine.c (parameters, tables, mask, guide, what it holds on the
 * device, the frame's run), cbfengineregions.c (the regions' weights,
 * segmentation mask and window tables) and cbfenginetemporal.c (the
 * temporal filter's state, the motion search and scene cuts, the noise
 * measured).
 * Not for any other file. */

#ifndef __CBF_ENGINE_PRIVATE_H__
#define __CBF_ENGINE_PRIVATE_H__

#include "cbfengine.h"
#include "motion.h"
#include "noise.h"
#include "temporal.h"

G_BEGIN_DECLS

/* The filter's weights for one set of parameters: host and device copies
 * of the tables, each sized for any radius. */
typedef struct
{
  CbfFilterParams weights;
  float *host_tables;           /* pinned staging of the tables */
  float *dev_tables;
  gsize border_offset;          /* bytes: where the border's pixel lies */
  cudaEvent_t uploaded;         /* the last upload from host_tables */
  CbfGridScratch grid;          /* method=grid's buffers, else empty */
} Tables;

/* region-size-scale: a window diameter's tables, luma's (or colour's) and
 * chroma's, sized for that diameter, made for the parameters of
 * @generation. */
typedef struct
{
  Tables luma, chroma;
  guint generation;
} SizedTables;

/* The engine's own stream and the events by which its work on it and its
 * copies to the host are ordered and waited for: the GPU state it keeps
 * besides the frame's stream, which is the caller's (each table's upload
 * event stays with its table). */
typedef struct
{
  /* Where the regions' weights are made and the frame copied beside their
   * windows, and the events that fork it from the frame's stream, say the
   * weights are made and join it back. */
  cudaStream_t region_side;
  cudaEvent_t region_fork, region_weighed, region_join;
  /* The last upload of a segmentation mask's cells from their staging. */
  cudaEvent_t cells_uploaded;
  /* The scene-cut counts' and the noise estimates' copies to the host, two
   * frames' each. */
  cudaEvent_t cut_copied[2];
  cudaEvent_t noise_copied[2];
} CbfEngineSync;

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
  gboolean noise_pending[2];
  guint noise_slot;
  gdouble noise_estimate, noise_in_use;

  /* The regions of the next frames, and their weights on the device for
   * the luma (or RGB) plane and for the chroma planes. */
  gboolean regions_on;
  CbfRegionSet regions;
  CbfPlane region_luma, region_chroma;
  /* region-size-scale: the tables of each window diameter the regions
   * have asked for (made when first needed after the parameters last
   * changed: @generation counts the changes), and the frame plan's view of
   * them (CbfRegionRun). */
  SizedTables *sized[CBF_REGION_MAX_DIAMETER + 1];
  const CbfFilterParams *sized_params[CBF_REGION_MAX_DIAMETER + 1][2];
  gboolean sized_on;
  gint sized_reach;             /* the largest radius of the frame's */
  guint generation;
  /* A segmentation mask's cells: their pinned staging, their copy on the
   * device and its index (CbfRegionCells' left, then right), each for
   * @cells_room cells, grown as masks need. */
  guint8 *cells_host;
  guint8 *cells_dev;
  gint32 *cells_index;
  gsize cells_room;

  CbfEngineSync sync;

  /* Chroma guided by luma: on for the next frames, and the guide. */
  gboolean guide_on;
  CbfPlane guide;
};

/* cbfengine.c: sigma-color and temporal-sigma from the noise level in use
 * where noise-sigma gives one; frees what the temporal filter holds on the
 * device. */
void cbf_engine_derive_params (CbfEngine * engine);
void cbf_engine_release_temporal (CbfEngine * engine);

/* cbfengine.c: a Tables' buffers for tables of @floats floats at most (the
 * engine's own: the largest radius), so that a parameter change never
 * allocates; @tables filled for the parameters and their upload enqueued
 * on @stream (the bilateral tables, or the Gaussian kernel), the host copy
 * rewritten only once its last upload is done, as frames in CUDA memory
 * may leave with their work pending; @plane made a packed 8-bit device
 * buffer of @width x @height (kept where the size is the same). */
cudaError_t cbf_engine_alloc_tables (Tables * tables, gsize floats);
cudaError_t cbf_engine_update_tables (Tables * tables,
    const CbfFramePlan * plan, CbfKernel kernel, gint diameter,
    gdouble sigma_color, gdouble sigma_space, const CbfParams * p,
    cudaStream_t stream);
cudaError_t cbf_engine_ensure_plane (CbfPlane * plane, gint width,
    gint height);

/* cbfengineregions.c: the regions' part of prepare (their weights' planes
 * and side stream, the segmentation mask's cells uploaded, the tables of
 * the windows' diameters made; @what saying what failed); whether the
 * regions are weighed over the whole frame filtered whole (CbfRegionRun's
 * @whole: the temporal filter's state, the grid's cells and the wrapping
 * border's far edges are the whole frame's, and outside the boxes has no
 * windows); region-size-scale's tables freed. */
cudaError_t cbf_engine_prepare_regions (CbfEngine * engine,
    cudaStream_t stream, const gchar ** what);
gboolean cbf_engine_regions_whole (const CbfEngine * engine);
void cbf_engine_free_sized (CbfEngine * engine);

/* cbfenginetemporal.c: the temporal filter's part of prepare (its state
 * made, the blend's gains and gate set, @what saying what failed), the
 * field before the frame's first band, noise-sigma=-1's buffers and the
 * frame @in's noise measured once it is whole on the device. */
cudaError_t cbf_engine_prepare_temporal (CbfEngine * engine,
    cudaStream_t stream, const gchar ** what);
cudaError_t cbf_engine_estimate_motion (CbfEngine * engine,
    const CbfPlane * in, cudaStream_t stream);
cudaError_t cbf_engine_prepare_noise (CbfEngine * engine, cudaStream_t stream);
cudaError_t cbf_engine_measure_noise (CbfEngine * engine, const CbfPlane * in,
    cudaStream_t stream);

G_END_DECLS

#endif /* __CBF_ENGINE_PRIVATE_H__ */
