/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The engine: everything the filter needs on the GPU for frames of one
 * video info. It owns the frame plan (cbfframeplan.h), the weight tables
 * of luma (or colour) and of chroma with their host staging, the bilateral
 * grid's scratch, the strength mask on the device, scaled to the planes,
 * and what a stream of frames carries from one frame to the next: the
 * temporal filter's previous output. A plain C object, no GStreamer
 * element: the element (gstcudabilateral.c) keeps the properties and feeds
 * them in, the benchmark (tools/bench) drives it directly, so that both
 * run the same code.
 *
 * Per frame: cbf_engine_prepare, then cbf_engine_run once per band, all on
 * one stream. Parameters and the mask may change between frames; what they
 * need on the device is made by the next prepare (or set_mask), never per
 * frame otherwise. Calls that touch the device need the context the engine
 * was first prepared in current; the engine is not thread-safe. */

#ifndef __CBF_ENGINE_H__
#define __CBF_ENGINE_H__

#include <gst/video/video.h>

#include "cbfframeplan.h"

G_BEGIN_DECLS

/* What the filter computes: the bilateral filter (OpenCV's
 * bilateralFilter), or with the range weight off OpenCV's GaussianBlur
 * (kernel size diameter, sigma sigma-space). */
typedef enum
{
  CBF_MODE_BILATERAL,
  CBF_MODE_GAUSSIAN,
} CbfMode;

/* How mode=bilateral is computed: exactly (within +-1 of OpenCV), or
 * approximated by the bilateral grid (grid.h). mode=gaussian ignores it. */
typedef enum
{
  CBF_METHOD_EXACT,
  CBF_METHOD_GRID,
} CbfMethod;

/* Where chroma's range weights come from: its own samples, or luma's
 * (a joint bilateral filter; guide.h). */
typedef enum
{
  CBF_CHROMA_GUIDE_NONE,
  CBF_CHROMA_GUIDE_LUMA,
} CbfChromaGuide;

/* What the temporal filter follows: the pixel where it is
 * (temporal-motion=none), or the motion found from the current frame to
 * the previous output (compensated: motion.h). */
typedef enum
{
  CBF_TEMPORAL_MOTION_NONE,
  CBF_TEMPORAL_MOTION_COMPENSATED,
} CbfTemporalMotion;

/* Where the noise level comes from (noise-sigma): nowhere (the default of
 * a zeroed CbfParams), the user, the frames. */
typedef enum
{
  CBF_NOISE_UNSET,
  CBF_NOISE_GIVEN,
  CBF_NOISE_MEASURED,
} CbfNoise;

/* The largest temporal_strength the kernels take (temporal.h's largest
 * gain), which temporal-strength's range ends at. */
#define CBF_PARAMS_TEMPORAL_STRENGTH_MAX 0.95

/* The filter's parameters, as the element's properties of the same names
 * (gstcudabilateral.c and cbfplaneprops.c document them). */
typedef struct
{
  gint diameter;
  gdouble sigma_color;
  gdouble sigma_space;
  gboolean filter_chroma;
  /* Chroma's own parameters; below 0 (CBF_PARAMS_DERIVED), derived from
   * luma's as cbf_bilateral_chroma_params does (sigma-color as luma's). */
  gint chroma_diameter;
  gdouble chroma_sigma_color;
  gdouble chroma_sigma_space;
  /* filter-luma=false: luma passes unchanged. */
  gboolean luma_unfiltered;
  CbfChromaGuide chroma_guide;
  /* The border rule, and the constant border's value in 8-bit levels
   * (scaled to deeper samples as sigma-color is). */
  CbfBorder border;
  guint border_value;
  CbfMode mode;
  CbfMethod method;
  /* The temporal filter (temporal.h): the gain (0: off, at most
   * CBF_PARAMS_TEMPORAL_STRENGTH_MAX) and the gate's sigma in 8-bit
   * levels, as temporal-strength and temporal-sigma. */
  gdouble temporal_strength;
  gdouble temporal_sigma;
  CbfTemporalMotion temporal_motion;
  /* noise-sigma: not used (sigma-color and temporal-sigma as set), the
   * noise_sigma given (8-bit levels), or measured from the frames; a
   * noise level then sets sigma-color and temporal-sigma (CBF_NOISE_*). */
  CbfNoise noise;
  gdouble noise_sigma;
} CbfParams;

#define CBF_PARAMS_DERIVED (-1)

/* The settings a noise level s sets: sigma-color = CBF_NOISE_COLOR x s,
 * temporal-sigma = CBF_NOISE_TEMPORAL x s - CBF_NOISE_TEMPORAL_OFFSET (at
 * least CBF_NOISE_TEMPORAL_MIN): the fit, on a CPU model of the filter
 * over the evaluation clips at s = 4 to 30, of the best settings of a
 * sweep (docs/what-was-tried.md). */
#define CBF_NOISE_COLOR 2.5
#define CBF_NOISE_TEMPORAL 1.38
#define CBF_NOISE_TEMPORAL_OFFSET 1.5
#define CBF_NOISE_TEMPORAL_MIN 0.5

typedef struct _CbfEngine CbfEngine;

/* An engine for frames of @info, with no parameters yet (set them before
 * the first prepare) and no mask. Makes nothing on the device. NULL and
 * @error (GST_STREAM_ERROR_FORMAT, "Unsupported format X.") for a format
 * the kernels cannot filter. */
CbfEngine *cbf_engine_new (const GstVideoInfo * info, GError ** error);

/* Follows a change of caps: plans for @info (the chroma parameters depend
 * on its subsampling), drops the mask, which was scaled for the old size
 * (set it again), and forgets the previous frame (cbf_engine_reset).
 * Keeps what it has on the device: the next prepare remakes the tables in
 * the buffers it has. FALSE and @error as cbf_engine_new, the engine then
 * unchanged. */
gboolean cbf_engine_set_info (CbfEngine * engine, const GstVideoInfo * info,
    GError ** error);

/* The launches of a frame, for the engine's video info. */
const CbfFramePlan *cbf_engine_get_plan (const CbfEngine * engine);

/* New parameters, from the next prepare on (host only: copied). */
void cbf_engine_set_params (CbfEngine * engine, const CbfParams * params);

/* The next frame has no previous one (a new stream, a flush, a
 * discontinuity): the temporal filter starts again from it. The engine
 * also starts again by itself after new caps, a change of plan, a frame
 * that failed before its last band, and, plane by plane, after frames
 * that copied a plane (filter-luma or filter-chroma false). */
void cbf_engine_reset (CbfEngine * engine);

/* Once per frame, before its first band, on @stream: after a change of
 * the parameters or of the video info, fills the tables and enqueues their
 * upload (the host copy is rewritten only once its last upload is done:
 * frames in CUDA memory may leave with their work pending), and sizes the
 * grid (allocated only when it grows). The tables' buffers are made by the
 * first prepare, sized for any parameters; the temporal filter's state
 * (a frame's worth, cbf_temporal_state_bytes a pixel of each pass) by the
 * first prepare with it on, or after a change of size. Sets @halo_rows to
 * the rows above and below a band that the filter reads (for the grid and
 * the wrapping border, the whole picture's). On failure returns the error
 * and sets @what to what failed ("allocating the weight tables",
 * "uploading the weight tables", "allocating the bilateral grid",
 * "allocating the temporal filter's state", "allocating the regions'
 * weights", "allocating the chroma guide"); the next prepare tries
 * again. */
cudaError_t cbf_engine_prepare (CbfEngine * engine, cudaStream_t stream,
    gint * halo_rows, const gchar ** what);

/* Puts the strength mask @pixels (GRAY8, @width x @height, packed; NULL:
 * none) in place from the next run: uploads it on @stream (from pageable
 * memory the call returns once the pixels are staged: the caller may then
 * free or change them) and scales it there to the luma (or RGB) plane and
 * to the chroma planes (cbf_mask_scale). The device buffers are made when
 * first needed or when their size changes. On failure returns the error,
 * sets @what ("uploading the strength mask") and leaves no mask in
 * place. */
cudaError_t cbf_engine_set_mask (CbfEngine * engine, const guint8 * pixels,
    gint width, gint height, cudaStream_t stream, const gchar ** what);

/* The regions of the frames from the next prepare on (regions.h; host
 * only: copied), or NULL: none, the filter reaches the whole frame. Their
 * weights are made on the device by each run: inside the boxes only the
 * pixels they weigh are filtered, except with the temporal filter or the
 * grid, which filter the whole frame and blend it by the weights, as
 * regions outside the boxes do. */
void cbf_engine_set_regions (CbfEngine * engine, const CbfRegionSet * set);

/* Enqueues on @stream the filter of rows [@row_begin, @row_end) of plane 0
 * of the device planes @in into @out (cbf_frame_plan_run: frames of
 * several planes are one band), with the weights of the last prepare, the
 * planes whose sigmas pass the bilateral filter through copied (or, with
 * the temporal filter on, given to it unchanged), the temporal filter and
 * the blend by the mask and the regions. Bands come in order; the band
 * that ends at the frame's last row, once enqueued, makes the temporal
 * state the previous frame of the next. Returns the first launch
 * error. */
cudaError_t cbf_engine_run (CbfEngine * engine, const CbfPlane * in,
    const CbfPlane * out, gint row_begin, gint row_end, cudaStream_t stream);

/* temporal-motion=compensated: the scene cuts found so far, each counted
 * once its frame's work is done (by the next prepare at the latest). */
guint64 cbf_engine_get_scene_cuts (CbfEngine * engine);

/* noise-sigma=-1: the noise measured so far (each frame's estimate
 * averaged over frames, alpha 0.1), in 8-bit levels, each frame's counted
 * once its work is done; -1 before the first. */
gdouble cbf_engine_get_noise (CbfEngine * engine);

/* The motion field of the last frame enqueued (motion.h), copied to the
 * host once its work is done: @blocks_x x @blocks_y vectors (x, y) of
 * CBF_MOTION_BLOCK luma pixels each, a new array for g_free. FALSE (and
 * nothing set) where that frame had none: compensated off, or no previous
 * output. */
gboolean cbf_engine_get_motion (CbfEngine * engine, gfloat ** field,
    gint * blocks_x, gint * blocks_y);

/* The kernels' weights (@kernel's: the Gaussian's or the bilateral
 * filter's, for @bits-bit samples of @channels filtered together) of a
 * window of @diameter (0: derived from @sigma_space) into @host_tables and
 * @weights, pointing at @dev_tables: as the engine makes them, for the
 * caller to upload the floats returned from @host_tables to @dev_tables
 * (both cbf_bilateral_tables_max_len () floats). */
gsize cbf_engine_fill_weights (CbfFilterParams * weights, float *host_tables,
    float *dev_tables, CbfKernel kernel, gint bits, gint channels,
    gint diameter, gdouble sigma_color, gdouble sigma_space);

/* How many things @engine holds on the device, page-locked for it or
 * made for it (buffers, events, a stream: one list, cbfengine.c's
 * holdings); 0 before its first prepare. */
guint cbf_engine_device_holdings (const CbfEngine * engine);

/* Whether the last prepare gave the regions' windows diameters of their
 * own (region-size-scale): not where the whole frame is filtered for them
 * (regions=outside, the temporal filter, method=grid, border=wrap). */
gboolean cbf_engine_regions_sized (const CbfEngine * engine);

/* Whether @engine holds anything on the device: free it with that
 * memory's context current then. */
gboolean cbf_engine_on_device (const CbfEngine * engine);

/* Frees @engine and what it made on the device (see
 * cbf_engine_on_device); NULL is ignored. */
void cbf_engine_free (CbfEngine * engine);

G_END_DECLS

#endif /* __CBF_ENGINE_H__ */
