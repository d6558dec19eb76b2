/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the tests of the motion-compensated temporal filter share
 * (motion_support.c): frames of a known motion, and the engine run as the
 * element runs it. */

#ifndef CBF_TEST_MOTION_SUPPORT_H
#define CBF_TEST_MOTION_SUPPORT_H

#include <gst/video/video.h>

#include <cuda_runtime_api.h>

#include "cbfengine.h"
#include "gpu_support.h"

/* temporal-strength and temporal-sigma of the tests' compensated filter. */
#define STRENGTH 0.9
#define SIGMA 12.0

/* Where frame content comes from: frame pixel (x, y), in luma pixels,
 * shows texture (mx (x, y), my (x, y)). */
typedef struct
{
  double a, b, c, d, tx, ty;    /* [x'; y'] = [a b; c d] [x; y] + [tx; ty] */
} Motion;


/* A shift by (@sx, @sy) pixels: frame pixel (x, y) shows the texture at
 * (x - sx, y - sy). */
Motion shift_by (double sx, double sy);

/* Components of @format at @width x @height showing the texture through
 * @m, with noise of standard deviation @noise 8-bit levels from @seed,
 * scaled to the format's bits; alpha a ramp. @flat: a constant picture
 * instead. Returns the number of components. */
guint make_frame (const gchar * format, gint width, gint height,
    const Motion * m, double noise, guint32 seed, gboolean flat,
    Channel * ch);

/* An engine with its device frames. */
typedef struct
{
  GstVideoInfo info;
  CbfEngine *engine;
  gboolean restart;             /* every frame without a previous one */
  cudaStream_t stream;
  CbfPlane in[GST_VIDEO_MAX_PLANES], out[GST_VIDEO_MAX_PLANES];
} Rig;

/* The engine's parameters of @p: the bilateral filter, chroma's derived,
 * temporal-motion=compensated at STRENGTH and temporal-sigma @sigma. */
CbfParams engine_params (const Params * p, gdouble sigma);

/* An engine for frames of @format, @width x @height, with @p at
 * temporal-sigma @sigma, and its device frames; @restart: every frame
 * without a previous one (the spatial result as the blend takes it). */
void rig_init (Rig * r, const gchar * format, gint width, gint height,
    const Params * p, gdouble sigma, gboolean restart);

void rig_clear (Rig * r);

/* Filters @in (channels) with the engine, as the element does a frame of
 * CUDA memory: prepare, then the whole frame; the output into @out. */
void rig_filter (Rig * r, const Channel * in, Channel * out);

#endif
