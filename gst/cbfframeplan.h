/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The kernel launches that filter one frame of a given format: chosen once
 * per caps from GstVideoInfo (plane, offset, pixel stride and subsampled
 * size of every channel, nothing assumed), run per band. The engine
 * (cbfengine.h) runs it with its weights and mask. */

#ifndef __CBF_FRAME_PLAN_H__
#define __CBF_FRAME_PLAN_H__

#include <gst/video/video.h>

#include "cbfframeshape.h"
#include "bilateral.h"
#include "gaussian.h"
#include "mask.h"
#include "grid.h"
#include "regions.h"
#include "guide.h"
#include "motion.h"

G_BEGIN_DECLS

/* Which kernels a pass launches: the bilateral filter's, OpenCV's
 * GaussianBlur's (range weight off) or the bilateral grid's (grid.h).
 * Indexes a pass's kernel entries; the engine (cbfengine.h) picks it from
 * its parameters' mode and method. */
typedef enum
{
  CBF_KERNEL_BILATERAL,
  CBF_KERNEL_GAUSSIAN,
  CBF_KERNEL_GRID,
  CBF_N_KERNELS
} CbfKernel;

/* One launch. Its views are channels of the frame's planes that share one
 * size: one channel (GRAY8, luma), two filtered each on its own (U and V),
 * or the three colour channels of RGB-like formats or Y444, together. */
typedef struct
{
  CbfFilterFunc process[CBF_N_KERNELS];      /* the entry of each kind */
  guint n_views;
  guint plane[3];               /* of each view */
  gsize offset[3];              /* of each view's first byte in a pixel */
  gint pixel_bytes;
  gint blend_bytes;             /* bytes of a pixel a mask blends */
  CbfSamples blend_samples;     /* what those bytes hold */
  gint channels;                /* 3: colour filtered together; 1 */
  gint sample_shift;            /* of the deep samples in their containers
                                 * (CbfPlane) */
  gint sample_bits;             /* the samples' depth (CbfPlane) */
  gint width;
  gint height;
  gint sub_x, sub_y;            /* luma pixels a pixel stands for */
  gboolean chroma;              /* filtered with the chroma weights */
  /* For chroma's pair of channels: the bilateral entry guided by luma
   * (bilateral.h), or NULL; and where the caps' chroma-site puts chroma
   * (CbfChromaSite flags), which the guide follows. */
  CbfFilterFunc guided;
  gint guide_site;
  /* Where a colour pass's three samples sit in its pixel: the first's
   * byte and the bytes from one to the next (packed), and how they are
   * held (motion.h); planar passes have one a view. */
  gint color_offset;
  gint color_step;
  CbfMotionSamples samples;
} CbfPass;

#define CBF_MAX_PASSES 3

typedef struct
{
  CbfPass passes[CBF_MAX_PASSES];
  guint n_passes;
  guint n_planes;
  gsize row_bytes[GST_VIDEO_MAX_PLANES];        /* see cbf_plane_row_bytes */
  gint width, height;           /* the frame's, in luma (or RGB) pixels */
  /* Of each plane: luma pixels a pixel stands for, and bytes a pixel. */
  gint plane_sub_x[GST_VIDEO_MAX_PLANES], plane_sub_y[GST_VIDEO_MAX_PLANES];
  gint plane_pixel_bytes[GST_VIDEO_MAX_PLANES];
  guint planes_with_luma;       /* a bit per plane: of the passes that take
                                 * the luma (or colour) weights */
  guint planes_with_chroma;     /* and of those that take chroma's */
  gint chroma_factor;           /* subsampling of chroma's width, or 1 */
  /* Bits of the samples the filter sees: 8, or 10, 12 or 16 for the deep
   * entries, whose tables cbf_deep_tables_fill makes for these bits and
   * the passes' channels (MSB-aligned samples such as P010_10LE's are
   * filtered at their own depth, shifted down and back up by the
   * kernels). */
  gint bits;
} CbfFramePlan;

/* FALSE for a format not in cbfformats.h. YUV 4:4:4 formats
 * (Y444, Y444_10LE, Y444_16LE) are filtered as colour, their three
 * channels together, unless @by_plane: then plane by plane as the other
 * YUV formats are, luma on its own and chroma with chroma's weights. */
gboolean cbf_frame_plan_init (CbfFramePlan * plan, const GstVideoInfo * info,
    gboolean by_plane);

/* Whether @info is a YUV 4:4:4 format that cbf_frame_plan_init can plan
 * either way. */
gboolean cbf_frame_plan_can_split (const GstVideoInfo * info);

/* What a frame's passes of one kind (luma or colour; chroma) run: the
 * entries of @kernel with @params (see gaussian.h for CBF_KERNEL_GAUSSIAN,
 * grid.h for CBF_KERNEL_GRID), or, @params NULL, a copy of their planes;
 * then, @mask not NULL (of the passes' size), a blend of each output with
 * its input by the strength mask (cbf_mask_blend). With regions, @weights
 * is where their weights (combined with @mask) are made for that blend:
 * an 8-bit device plane of the passes' size. */
typedef struct
{
  CbfKernel kernel;
  const CbfFilterParams *params;
  const CbfPlane *mask;
  const CbfPlane *weights;
  /* Chroma guided by luma: where the guide (guide.h) is made, a device
   * plane of the chroma passes' size and samples; NULL: unguided. Only
   * the bilateral filter's entries read it. */
  const CbfPlane *guide;
} CbfGroupRun;

/* A frame's regions (regions.h). @whole: every pixel is filtered, then
 * blended by the regions' weights (what regions outside the boxes, the
 * temporal filter, whose state is the whole frame's, and the grid, whose
 * cells are, need). Else only the pixels the boxes weigh are filtered and
 * blended, in windows around the boxes with a halo of the filter's radius,
 * where the filter reads; their weights are made and the rest of the
 * frame is copied on @side meanwhile (forked from the frame's stream by
 * the event @fork, the weights awaited by @weighed, the copy joined back
 * by @join). */
typedef struct
{
  const CbfRegionSet *set;
  gboolean whole;
  cudaStream_t side;
  cudaEvent_t fork, weighed, join;
  /* region-size-scale (the set's size_scale above 0, windows only): the
   * parameters of each window diameter its boxes ask for
   * (cbf_region_diameter), luma's (or colour's) at [d][0], chroma's at
   * [d][1]; NULL (or an entry NULL): the groups' own. */
  const CbfFilterParams *const (*sized)[2];
} CbfRegionRun;

/* The window diameters region-size-scale gives a box. */
#define CBF_REGION_MIN_DIAMETER 3
#define CBF_REGION_MAX_DIAMETER 61

/* The diameter of the window filtered around @box (a region's, in luma
 * pixels) by region-size-scale @scale: @scale times the box's shorter
 * side, rounded, made odd (an even one taken as the next odd number) and
 * clamped to [CBF_REGION_MIN_DIAMETER, CBF_REGION_MAX_DIAMETER]. */
gint cbf_region_diameter (const CbfRegionBox * box, gdouble scale);

/* The temporal filter's state of a frame: for each pass of the plan, the
 * state (temporal.h) of each view, or of view 0 alone for colour. */
typedef CbfPlane CbfFrameState[CBF_MAX_PASSES][3];

/* temporal-motion=compensated (motion.h): the blend after each filtered
 * pass whose group has a state, from the state the spatial kernels leave
 * (the spatial result) and the previous output @prev (NULL: none for
 * luma's or chroma's group, as @luma_prev and @chroma_prev say) into
 * @next and the output, with the field and cut count of @scratch. */
typedef struct
{
  const CbfFrameState *prev, *next;
  gboolean luma_prev, chroma_prev;
  float luma_gain, chroma_gain, gate;
  const CbfMotionScratch *scratch;
} CbfMotionRun;

/* View @v of @pass on the device planes @planes, as the filters read and
 * write it (without temporal state). */
CbfPlane cbf_pass_view (const CbfPlane * planes, const CbfPass * pass,
    guint v);

/* View @v of @pass on the device planes @planes as the motion kernels
 * read and write it (all three samples of a colour pass from view 0,
 * planar ones from its three views). */
void cbf_pass_motion_view (const CbfPass * pass, const CbfPlane * planes,
    guint v, CbfMotionView * view);

/* The temporal state @state of a view of @pass, for @bits-bit samples
 * (temporal.h's state words), as the motion kernels read and write it. */
void cbf_state_motion_view (const CbfPass * pass, gint bits,
    const CbfPlane * state, CbfMotionView * view);

/* Enqueues on @stream the filter of the band [@row_begin, @row_end) of
 * plane 0 of the device planes @in into @out: the same rows of every
 * channel for one-plane formats; frames of several planes must be one band
 * (rows 0 to plane 0's height), their other planes are then done whole.
 * Luma (or colour) runs @luma, chroma @chroma. With @state (NULL: none)
 * every filtered pass runs the temporal filter on its views' states, with
 * the gain and gate of its parameters; with @motion too, the spatial
 * kernels leave their result in @state and the motion-compensated blend
 * follows (CbfMotionRun), their rows a band reaching one row below it,
 * which the blend's 3 x 3 mean reads. With @regions (NULL: none) the
 * filter reaches the output where they weigh it. */
cudaError_t cbf_frame_plan_run (const CbfFramePlan * plan,
    const CbfGroupRun * luma, const CbfGroupRun * chroma,
    const CbfFrameState * state, const CbfMotionRun * motion,
    const CbfRegionRun * regions, const CbfPlane * in, const CbfPlane * out,
    gint row_begin, gint row_end, cudaStream_t stream);

G_END_DECLS

#endif /* __CBF_FRAME_PLAN_H__ */
