/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral on a GPU: a window walked short of its diameter
 * (cbf_bilateral_walk_radius: d = 61 at sigma-space 5 walked to radius
 * 27). The picture is made so that the taps far out count as much as they
 * can: around its centre, a disc of radius 3 sigma-space 128 levels off
 * the centre's value (range weight about 0 at sigma-color 30), then, out
 * past the window, a plane 20 levels off it (range weight 0.8; colour 12
 * levels in each channel, 0.49). The element must stay within +-1 of the
 * reference, which walks the whole window. The test first checks that the
 * picture tells: the reference with the window cut at 3 sigma-space moves
 * the centre by several levels. GRAY8 and RGBA (the two kernel families at
 * this radius). Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gpu_support.h"

#define W 160
#define H 128
#define CX 83
#define CY 61

static const Params walked = {.diameter = 61,.sigma_color = 30,
  .sigma_space = 5
};

/* The picture's value at (@x, @y): 128 at the centre, 0 within 3
 * sigma-space of it, 128 + @far beyond. */
static guint16
ring_value (gint x, gint y, gint far)
{
  gint d2 = (x - CX) * (x - CX) + (y - CY) * (y - CY);
  gdouble near = 3 * walked.sigma_space;

  return d2 == 0 ? 128 : d2 <= near * near ? 0 : 128 + far;
}

static void
check_walked (const gchar * format)
{
  GstVideoInfo info = info_for (format, W, H);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel expected[GST_VIDEO_MAX_COMPONENTS];
  Params cut = walked;
  GstHarness *h;
  guint n = channels_for_format (format, W, H, 1, in), n_filtered, c;
  /* colour's range distance sums three channels' */
  gint far = n > 1 ? 12 : 20, x, y;

  for (c = 0; c < n; c++) {
    fail_unless (in[c].width == W && in[c].height == H && in[c].bits == 8);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++)
        in[c].data[y * W + x] = c == 3 ? 255 : ring_value (x, y, far);
  }
  n_filtered = channels_reference_for_format (&info, in, &walked, expected);

  /* the picture tells a window cut at 3 sigma-space from the whole */
  cut.diameter = 2 * (gint) (3 * walked.sigma_space) + 1;
  {
    Channel short_window[GST_VIDEO_MAX_COMPONENTS];
    gint moved;

    channels_reference_for_format (&info, in, &cut, short_window);
    moved = ABS ((gint) short_window[0].data[CY * W + CX] -
        (gint) expected[0].data[CY * W + CX]);
    fail_unless (moved >= 4, "%s: a window cut at d = %d moves the centre "
        "by %d levels only", format, cut.diameter, moved);
    channels_free (short_window, n_filtered);
  }

  h = filter_harness_new (format, W, H, &walked);
  filter_frame (h, format, W, H, frame_from_channels (format, W, H, in,
          FALSE, 1), out);
  for (c = 0; c < n_filtered; c++)
    assert_channel_matches (&out[c], &expected[c],
        format_tolerance (GST_VIDEO_INFO_FORMAT (&info)),
        "d = 61, sigma-space 5, walked to radius 27", format, c);
  filter_harness_free (h);
  channels_free (expected, n_filtered);
  channels_free (out, n);
  channels_free (in, n);
}

GST_START_TEST (test_walk_gray)
{
  check_walked ("GRAY8");
}

GST_END_TEST;

GST_START_TEST (test_walk_color)
{
  check_walked ("RGBA");
}

GST_END_TEST;

static Suite *
walk_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-walk", 300, &tc);

  tcase_add_test (tc, test_walk_gray);
  tcase_add_test (tc, test_walk_color);
  return s;
}

TEST_MAIN (walk_suite, TEST_NEEDS_GPU, NULL);
