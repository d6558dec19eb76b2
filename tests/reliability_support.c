/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the reliability tests (test_reliability, test_recovery) share: the
 * figures they print for docs/reliability.md, and one frame through a
 * harness's element against the reference, which shows the element still
 * filters right after whatever the test did to it. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <stdio.h>

#include "gpu_support.h"
#include "reliability_support.h"

/* A figure for docs/reliability.md: printed, and appended to the file
 * $CBF_FIGURES when set (test runners may swallow the output). */
void
figure (const gchar * name, gint64 value)
{
  const gchar *path = g_getenv ("CBF_FIGURES");
  gchar *line = g_strdup_printf ("FIGURE %s %" G_GINT64_FORMAT "\n", name,
      value);

  g_print ("%s", line);
  if (path) {
    FILE *f = fopen (path, "a");

    if (f) {
      fputs (line, f);
      fclose (f);
    }
  }
  g_free (line);
}

/* One frame of @format, @w x @h, through @h's element against the
 * reference. */
void
check_one_frame (GstHarness * h, const gchar * format, gint w, gint height,
    const Params * p, guint32 seed)
{
  GstVideoInfo info = info_for (format, w, height);
  guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), n_expected, c;
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel expected[GST_VIDEO_MAX_COMPONENTS];

  channels_for_format (format, w, height, seed, in);
  filter_frame (h, format, w, height,
      frame_from_channels (format, w, height, in, seed % 2, seed), out);
  n_expected = channels_reference_for_format (&info, in, p, expected);
  for (c = 0; c < n_expected; c++)
    assert_channel_matches (&out[c], &expected[c], 1, "renegotiated", format,
        c);
  channels_free (expected, n_expected);
  channels_free (in, n);
  channels_free (out, n);
}
