/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the chroma tests share (chroma_support.c): a Setup of the element's
 * YUV plane properties, pictures whose chroma edges are luma's, and the
 * planes the C reference expects of a frame filtered as a Setup asks. */

#ifndef CBF_TEST_CHROMA_SUPPORT_H
#define CBF_TEST_CHROMA_SUPPORT_H

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gpu_support.h"
#include "packed_image.h"

/* What a frame is filtered with: the element's diameter, sigma-color and
 * sigma-space (luma's), its chroma-* properties (-1: derived from
 * luma's), chroma-guide, filter-luma and filter-chroma, its border and
 * border-value (NULL: the default, reflect-101); and the chroma-site of
 * the caps (NULL: none, which the guide takes as centred). */
typedef struct
{
  Params p;
  gint chroma_diameter;
  gdouble chroma_sigma_color;
  gdouble chroma_sigma_space;
  gboolean guide;
  gboolean luma_off;
  gboolean chroma_off;
  const ImageBorder *border;
  const gchar *chroma_site;
} Setup;

#define DERIVED (-1)

/* A Setup of luma's @diameter, @sigma_color and @sigma_space, chroma's
 * derived from them, chroma-guide=luma where @guide, both planes filtered,
 * the default border and caps without a chroma-site. */
Setup setup_make (gint diameter, gdouble sigma_color, gdouble sigma_space,
    gboolean guide);

/* The video info of a frame of @format filtered as @s asks: caps_for's,
 * with @s's chroma-site where it has one (and a colorimetry, so that
 * GStreamer 1.22 keeps that chroma-site). */
GstVideoInfo setup_info (const gchar * format, gint width, gint height,
    const Setup * s);

/* Sets @filter up as the Setup @s says (a FilterSetup). */
void setup_filter (GstElement * filter, gconstpointer s);

/* A harness around cudabilateral set up as @s, with @s's caps
 * (filter_harness_full). */
GstHarness *chroma_harness_new (const gchar * format, gint width,
    gint height, const Setup * s);

/* A picture of @format whose chroma edges are luma's: luma a gradient with
 * shapes raised or lowered and light noise, U and V a level a shape under
 * strong noise, the noise drawn from @seed (the shapes are the same
 * whatever the seed: a still picture), deeper samples scaled to their
 * bits. Returns the number of components, 3. */
guint picture_channels (const gchar * format, gint width, gint height,
    guint32 seed, Channel * ch);

/* Chroma's parameters in a frame of @info filtered as @s asks. */
Params chroma_params (const GstVideoInfo * info, const Setup * s);

/* The guide of a frame of @info whose luma is @luma, at chroma's size,
 * sited as @info's chroma-site says. */
Channel guide_for (const GstVideoInfo * info, const Channel * luma);

/* The expected Y, U and V of a frame of @info holding @in filtered plane
 * by plane as @s asks. */
void expected_by_plane (const GstVideoInfo * info, const Channel * in,
    const Setup * s, Channel * expected);

/* The tolerance of component @c of @info's output set up as @s. */
gint plane_tolerance (const GstVideoInfo * info, const Setup * s, guint c);

/* A frame of @format, @width x @height, of picture_channels (@seed)
 * through the element set up as @s, against expected_by_plane; its
 * output into @out where given. */
void check_setup (const gchar * format, gint width, gint height,
    const Setup * s, guint32 seed, Channel * out);

/* How many values of @a and @b differ by more than @by. */
guint count_differing (const Channel * a, const Channel * b, gint by);

#endif
