/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The engine's own fields and the functions its two files share:
 * cbfengine.c (parameters, tables, mask, regions, guide, what it holds on
 * the device, the frame's run) and cbfenginetemporal.c (the temporal
 * filter's state, the motion search and scene cuts, the noise measured).
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
  cudaEvent_t uploaded;         /* the last upload from host_tables */
  CbfGridScratch grid;          /* method=grid's buffers, else empty */
} Tables;

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
