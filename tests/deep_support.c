/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* test_deep's frames of samples deeper than 8 bits, and the check of the
 * element's output against the reference's, alpha included (out of
 * test_deep.c, which holds the cases). */

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "deep_support.h"
#include "gpu_support.h"

gint
deep_bits (const gchar * format)
{
  gint bits = format_bits (gst_video_format_from_string (format));

  fail_unless (bits > 8, "%s has no deep bits", format);
  return bits;
}

/* channel_random's gradient, edge and noise, scaled from 8-bit levels to
 * @bits bits with noise in the bits below too. */
static Channel
deep_channel_random (gint width, gint height, gint bits, guint32 seed)
{
  Channel base = channel_random (width, height, seed);
  Channel ch = channel_new (width, height, bits);
  GRand *rand = g_rand_new_with_seed (seed ^ 0x5a5a);
  gint top = (1 << bits) - 1, fine = MAX (top / 255, 1);
  gsize k;

  for (k = 0; k < (gsize) width * height; k++) {
    gint v = base.data[k] * top / 255 + g_rand_int_range (rand, 0, fine);

    ch.data[k] = (guint16) MIN (v, top);
  }
  g_rand_free (rand);
  channels_free (&base, 1);
  return ch;
}

/* Uniform noise over @bits bits: alpha, which must come back unchanged. */
Channel
deep_channel_noise (gint width, gint height, gint bits, guint32 seed)
{
  Channel ch = channel_new (width, height, bits);
  GRand *rand = g_rand_new_with_seed (seed);
  gsize k;

  for (k = 0; k < (gsize) width * height; k++)
    ch.data[k] = (guint16) g_rand_int_range (rand, 0, 1 << bits);
  g_rand_free (rand);
  return ch;
}

/* Whether component @c of @info is alpha (copied, never filtered). */
gboolean
is_alpha (const GstVideoInfo * info, guint c)
{
  return GST_VIDEO_INFO_HAS_ALPHA (info) && c == GST_VIDEO_COMP_A;
}

/* Input channels of @format's component sizes; alpha random over its
 * depth. */
guint
deep_channels_for_format (const gchar * format, gint width, gint height,
    guint32 seed, Channel * ch)
{
  GstVideoInfo info = info_for (format, width, height);
  guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), c;

  for (c = 0; c < n; c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);

    ch[c] = is_alpha (&info, c) ?
        deep_channel_noise (w, h, GST_VIDEO_INFO_COMP_DEPTH (&info, c),
        seed + c) : deep_channel_random (w, h, deep_bits (format), seed + c);
  }
  return n;
}

/* Fails unless @out (the element's components of a frame of @info) is
 * the reference @expected (its filtered components, @n_expected) within
 * @tolerance, alpha @in's exactly (@alpha_what: what to call it); returns
 * the largest difference of a value. */
gint
assert_deep_output (const GstVideoInfo * info, const Channel * out,
    const Channel * in, const Channel * expected, guint n_expected,
    gint tolerance, const gchar * what, const gchar * alpha_what)
{
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), c;
  const gchar *format = GST_VIDEO_INFO_NAME (info);
  gint worst = 0;
  gsize k;

  for (c = 0; c < n; c++) {
    gboolean alpha = is_alpha (info, c);
    const Channel *e = alpha ? &in[c] : &expected[c];

    fail_unless (alpha != (c < n_expected), "%s component %u: %s, but the "
        "reference %s it", format, c, alpha ? "alpha" : "not alpha",
        c < n_expected ? "filtered" : "did not filter");
    assert_channel_matches (&out[c], e, alpha ? 0 : tolerance,
        alpha ? alpha_what : what, format, c);
    for (k = 0; k < (gsize) out[c].width * out[c].height; k++)
      worst = MAX (worst, ABS ((gint) out[c].data[k] - e->data[k]));
  }
  return worst;
}
