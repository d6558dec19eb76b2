/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the chroma tests (test_chroma, test_chroma_siting and
 * test_chroma_features) share: a Setup (the luma and chroma-* properties,
 * the guide, filter-luma, filter-chroma, the border and the caps'
 * chroma-site) and the harness it makes; pictures whose chroma edges are
 * luma's; the planes a frame filtered as a Setup asks should come out as,
 * by the C reference (reference.h, and reference_chroma.h for the guide
 * and the guided filter); one frame checked against them. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <string.h>

#include "chroma_support.h"
#include "reference.h"
#include "reference_chroma.h"

Setup
setup_make (gint diameter, gdouble sigma_color, gdouble sigma_space,
    gboolean guide)
{
  Setup s = { {diameter, sigma_color, sigma_space, FALSE}, DERIVED, DERIVED,
  DERIVED, guide, FALSE, FALSE, NULL, NULL
  };

  return s;
}

static void
setup_apply (GstElement * element, const Setup * s)
{
  params_apply (element, &s->p);
  g_object_set (element, "chroma-diameter", s->chroma_diameter,
      "chroma-sigma-color", s->chroma_sigma_color, "chroma-sigma-space",
      s->chroma_sigma_space, "filter-luma", !s->luma_off, "filter-chroma",
      !s->chroma_off, NULL);
  gst_util_set_object_arg (G_OBJECT (element), "chroma-guide",
      s->guide ? "luma" : "none");
  if (s->border)
    image_border_apply (element, s->border);
}

static gchar *
setup_describe (const Setup * s)
{
  gchar *border = s->border ? g_strdup_printf (" border=%s border-value=%u",
      s->border->border ? s->border->border : "reflect-101",
      s->border->value) : g_strdup ("");
  gchar *desc = g_strdup_printf ("d=%d sc=%g ss=%g chroma-diameter=%d "
      "chroma-sigma-color=%g chroma-sigma-space=%g chroma-guide=%s%s%s%s, "
      "caps chroma-site=%s",
      s->p.diameter, s->p.sigma_color, s->p.sigma_space, s->chroma_diameter,
      s->chroma_sigma_color, s->chroma_sigma_space, s->guide ? "luma" : "none",
      s->luma_off ? " filter-luma=false" : "",
      s->chroma_off ? " filter-chroma=false" : "", border,
      s->chroma_site ? s->chroma_site : "(none)");

  g_free (border);
  return desc;
}

/* The caps of a frame of @format filtered as @s asks: caps_for's, with
 * @s's chroma-site where it has one, and then a colorimetry too (the
 * default one, which caps_for's caps get): GStreamer 1.22's
 * gst_video_info_from_caps replaces the chroma-site of caps without a
 * colorimetry by the default for their height (jpeg up to 576 rows). */
static GstCaps *
setup_caps (const gchar * format, gint width, gint height, const Setup * s)
{
  GstCaps *caps = caps_for (format, width, height);

  if (s->chroma_site) {
    GstVideoInfo info;
    gchar *colorimetry;

    fail_unless (gst_video_info_from_caps (&info, caps));
    colorimetry = gst_video_colorimetry_to_string (&info.colorimetry);
    gst_caps_set_simple (caps, "chroma-site", G_TYPE_STRING, s->chroma_site,
        "colorimetry", G_TYPE_STRING, colorimetry, NULL);
    g_free (colorimetry);
  }
  return caps;
}

/* The video info of those caps. */
GstVideoInfo
setup_info (const gchar * format, gint width, gint height, const Setup * s)
{
  GstVideoInfo info;
  GstCaps *caps = setup_caps (format, width, height, s);

  fail_unless (gst_video_info_from_caps (&info, caps), "bad caps %"
      GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  if (s->chroma_site)
    fail_unless (info.chroma_site == gst_video_chroma_site_from_string
        (s->chroma_site), "caps chroma-site=%s read as 0x%x", s->chroma_site,
        info.chroma_site);
  return info;
}

void
setup_filter (GstElement * filter, gconstpointer s)
{
  setup_apply (filter, s);
}

/* A harness around cudabilateral set up as @s, with @s's caps
 * (filter_harness_full). */
GstHarness *
chroma_harness_new (const gchar * format, gint width, gint height,
    const Setup * s)
{
  return filter_harness_full (format, width, height, NULL, setup_filter, s,
      setup_caps (format, width, height, s));
}

/* ------------------------------------------------------------------ */
/* The pictures */

/* Which shape luma pixel (@x, @y) of a @width x @height picture lies in:
 * 1 a disc, 2 a vertical bar, 3 a box in the corner, 0 the background. */
static gint
shape_at (gint x, gint y, gint width, gint height)
{
  gdouble cx = 0.45 * width, cy = 0.5 * height, r = 0.3 * MIN (width, height);

  if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r)
    return 1;
  if (x > 0.75 * width && x < 0.9 * width)
    return 2;
  if (x < 0.3 * width && y < 0.35 * height)
    return 3;
  return 0;
}

/* A picture of @format whose chroma edges are luma's: luma a gradient with
 * the shapes raised or lowered and light noise (+-6 levels), U and V a
 * level a shape under strong noise (+-40), the noise drawn from @seed (the
 * shapes are the same whatever the seed: a still picture). Deeper samples
 * scaled to their bits with noise in the bits below. Returns the number
 * of components, 3. */
guint
picture_channels (const gchar * format, gint width, gint height,
    guint32 seed, Channel * ch)
{
  static const gint luma_step[] = { 0, 110, 70, -30 };
  static const gint chroma_base[] = { 128, 120 };
  static const gint chroma_step[2][4] = { {0, -70, 60, 50}, {0, 65, -55, 45} };
  GstVideoInfo info = info_for (format, width, height);
  gint bits = format_bits (GST_VIDEO_INFO_FORMAT (&info));
  gint top = (1 << bits) - 1, fine = MAX (top / 255, 1);
  GRand *rand = g_rand_new_with_seed (seed);
  guint c;

  fail_unless_equals_int (GST_VIDEO_INFO_N_COMPONENTS (&info), 3);
  for (c = 0; c < 3; c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
    gint fx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
    gint fy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
    gint x, y;

    ch[c] = channel_new (w, h, bits);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        gint s = shape_at (x * fx, y * fy, width, height), v;

        v = c == 0 ? 40 + 60 * x * fx / MAX (width - 1, 1) + luma_step[s] +
            g_rand_int_range (rand, -6, 7) : chroma_base[c - 1] +
            chroma_step[c - 1][s] + g_rand_int_range (rand, -40, 41);
        v = CLAMP (v, 0, 255);
        if (bits > 8)
          v = MIN (v * top / 255 + g_rand_int_range (rand, 0, fine), top);
        ch[c].data[(gsize) y * w + x] = (guint16) v;
      }
  }
  g_rand_free (rand);
  return 3;
}

static Channel
channel_copy (const Channel * in)
{
  Channel out = channel_new (in->width, in->height, in->bits);

  memcpy (out.data, in->data, (gsize) in->width * in->height *
      sizeof (guint16));
  return out;
}

/* ------------------------------------------------------------------ */
/* The expected output */

/* Chroma's parameters in a frame of @info filtered as @s asks: luma's
 * diameter and sigma-space divided by the horizontal chroma subsampling
 * (1 for 4:4:4), sigma-color as luma's, each replaced by its chroma-*
 * property where that is set. */
Params
chroma_params (const GstVideoInfo * info, const Setup * s)
{
  Params q = { 0, 0, 0, FALSE };

  cbf_reference_chroma_params (s->p.diameter, s->p.sigma_space,
      1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, GST_VIDEO_COMP_U),
      &q.diameter, &q.sigma_space);
  if (s->chroma_diameter >= 0)
    q.diameter = s->chroma_diameter;
  if (s->chroma_sigma_space >= 0)
    q.sigma_space = s->chroma_sigma_space;
  q.sigma_color = s->chroma_sigma_color >= 0 ? s->chroma_sigma_color :
      s->p.sigma_color;
  return q;
}

/* The guide of a frame of @info whose luma is @luma, at chroma's size,
 * sited as @info's chroma-site says (its two COSITED flags; none, UNKNOWN,
 * is centred). */
Channel
guide_for (const GstVideoInfo * info, const Channel * luma)
{
  GstVideoChromaSite site = GST_VIDEO_INFO_CHROMA_SITE (info);
  gint sx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, GST_VIDEO_COMP_U);
  gint sy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, GST_VIDEO_COMP_U);
  Channel g = channel_new ((luma->width + sx - 1) / sx,
      (luma->height + sy - 1) / sy, luma->bits);

  fail_unless (g.width == GST_VIDEO_INFO_COMP_WIDTH (info, GST_VIDEO_COMP_U)
      && g.height == GST_VIDEO_INFO_COMP_HEIGHT (info, GST_VIDEO_COMP_U),
      "%s: the guide is %dx%d, chroma %dx%d", GST_VIDEO_INFO_NAME (info),
      g.width, g.height, GST_VIDEO_INFO_COMP_WIDTH (info, GST_VIDEO_COMP_U),
      GST_VIDEO_INFO_COMP_HEIGHT (info, GST_VIDEO_COMP_U));
  cbf_reference_chroma_guide (luma->data, luma->width, g.data, g.width, 2,
      luma->width, luma->height, sx, sy,
      (site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0,
      (site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0);
  return g;
}

/* Chroma channel @c (1 or 2) of @in guided by @in's luma with @q, both
 * read past their edges by @border (NULL: reflect-101). */
static Channel
guided_channel (const GstVideoInfo * info, const Channel * in, guint c,
    const Params * q, const ImageBorder * border)
{
  Channel g = guide_for (info, &in[0]);
  Channel out = channel_new (in[c].width, in[c].height, in[c].bits);
  gint rule = border && border->border ?
      cbf_reference_border_from_nick (border->border) :
      CBF_REFERENCE_BORDER_REFLECT_101;

  fail_unless (rule >= 0, "no border rule %s", border->border);
  cbf_reference_chroma_guided_border (g.data, g.width, in[c].data,
      in[c].width, out.data, out.width, 2, in[c].bits, in[c].width,
      in[c].height, q->diameter, q->sigma_color, q->sigma_space,
      (CbfReferenceBorder) rule, border ?
      cbf_reference_border_sample ((gint) border->value, in[c].bits) : 0);
  channels_free (&g, 1);
  return out;
}

/* The expected Y, U and V of a frame of @info holding @in filtered plane
 * by plane as @s asks (what YUV 4:4:4 gets too once @s differs from the
 * defaults): luma the one-channel filter with @s's parameters, or a copy;
 * chroma guided by luma, or the one-channel filter, with chroma's
 * parameters, or a copy. With a border (@s->border) only luma filtered
 * and chroma guided (the cases that set one). */
void
expected_by_plane (const GstVideoInfo * info, const Channel * in,
    const Setup * s, Channel * expected)
{
  Params q = chroma_params (info, s);
  guint c;

  if (s->border) {
    Channel all[3];

    fail_unless (s->guide && !s->luma_off && !s->chroma_off,
        "a border case must filter luma and guide chroma");
    /* luma by the border reference (test_border's own) */
    channels_reference_border_for_format (info, in, &s->p,
        s->border->border ? s->border->border : "reflect-101",
        s->border->value, all);
    expected[0] = all[0];
    channels_free (all + 1, 2);
  } else {
    expected[0] = s->luma_off ? channel_copy (&in[0]) :
        channel_reference (&in[0], &s->p, FALSE);
  }
  for (c = 1; c < 3; c++)
    expected[c] = s->chroma_off ? channel_copy (&in[c]) : s->guide ?
        guided_channel (info, in, c, &q, s->border) :
        channel_reference (&in[c], &q, FALSE);
}

/* The tolerance of component @c of @info's output set up as @s: chroma
 * guided by luma has exact weights at every depth (+-1), every other
 * plane its format's. */
gint
plane_tolerance (const GstVideoInfo * info, const Setup * s, guint c)
{
  return c > 0
      && s->guide ? 1 : format_tolerance (GST_VIDEO_INFO_FORMAT (info));
}

/* Fails unless @out is @expected within its plane's tolerance, exactly
 * where @s copies the plane. */
static void
assert_by_plane (const GstVideoInfo * info, const Setup * s,
    const Channel * out, const Channel * expected, const gchar * what)
{
  guint c;

  for (c = 0; c < 3; c++) {
    gboolean copied = c == 0 ? s->luma_off : s->chroma_off;

    assert_channel_matches (&out[c], &expected[c], copied ? 0 :
        plane_tolerance (info, s, c), what, GST_VIDEO_INFO_NAME (info), c);
  }
}

/* A frame of @format, @width x @height, of picture_channels (@seed)
 * through the element set up as @s, against expected_by_plane; its
 * output into @out where given. */
void
check_setup (const gchar * format, gint width, gint height, const Setup * s,
    guint32 seed, Channel * out)
{
  GstVideoInfo info = setup_info (format, width, height, s);
  GstHarness *h = chroma_harness_new (format, width, height, s);
  Channel in[3], got[3], expected[3];
  gchar *desc = setup_describe (s);
  gchar *what = g_strdup_printf ("%dx%d %s", width, height, desc);

  picture_channels (format, width, height, seed, in);
  filter_frame (h, format, width, height,
      frame_from_channels (format, width, height, in, seed % 2, seed), got);
  expected_by_plane (&info, in, s, expected);
  assert_by_plane (&info, s, got, expected, what);
  if (out)
    memcpy (out, got, sizeof (got));
  else
    channels_free (got, 3);
  channels_free (in, 3);
  channels_free (expected, 3);
  filter_harness_free (h);
  g_free (what);
  g_free (desc);
}

/* How many values of @a and @b differ by more than @by. */
guint
count_differing (const Channel * a, const Channel * b, gint by)
{
  guint n = 0;
  gsize k;

  fail_unless (a->width == b->width && a->height == b->height);
  for (k = 0; k < (gsize) a->width * a->height; k++)
    n += ABS ((gint) a->data[k] - (gint) b->data[k]) > by;
  return n;
}
