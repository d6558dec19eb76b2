/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The element with temporal-motion=compensated on a GPU (system memory,
 * every format): the frame after a flush, a DISCONT, a new segment or new
 * caps of the same size is the spatial result, a frame without any is
 * not; a scene cut is counted by scene-cuts and announced on the bus
 * once. The filter itself, through the engine, is tested in test_motion;
 * the frames of a known motion come from motion_support.c. Exits 77
 * without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gpu_support.h"
#include "motion_support.h"

static const gchar *all_formats[] = { GPU_TEST_ALL_FORMATS };

/* Frame @k of the element tests: the texture moving (1.5, 0.5) a frame
 * (another picture from @cut on), pushed through @h; its output into
 * @out. */
static guint
element_frame (GstHarness * h, const gchar * format, gint w, gint hgt,
    guint k, guint cut, GstBufferFlags flags, Channel * out)
{
  Channel in[GST_VIDEO_MAX_COMPONENTS];
  Motion m = k < cut ? shift_by (1.5 * k, 0.5 * k) :
      (Motion) { 0, 1, -1, 0, 400 + k, 250 };
  guint n = make_frame (format, w, hgt, &m, 8, 500 + k, FALSE, in);
  GstBuffer *buf = frame_from_channels (format, w, hgt, in, k % 2, k);

  GST_BUFFER_FLAG_SET (buf, flags);
  filter_frame (h, format, w, hgt, buf, out);
  channels_free (in, n);
  return n;
}

/* How many of @n channels' values differ by more than @tol. */
static guint
values_apart (const Channel * a, const Channel * b, guint n, gint tol)
{
  guint c, apart = 0;
  gsize k;

  for (c = 0; c < n; c++)
    for (k = 0; k < (gsize) a[c].width * a[c].height; k++)
      apart += ABS ((gint) a[c].data[k] - (gint) b[c].data[k]) > tol;
  return apart;
}

/* Every format: after a flush, a DISCONT, a new segment and new caps of
 * the same size the frame is the spatial one (within 1: the element
 * without the temporal filter rounds by another path); without any, it is
 * not. */
GST_START_TEST (test_element_resets)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  const gint w = 64, h = 48;
  guint f;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    const gchar *format = all_formats[f];
    GstHarness *comp = filter_harness_new (format, w, h, &p);
    GstHarness *spatial = filter_harness_new (format, w, h, &p);
    guint k, n;

    gst_util_set_object_arg (G_OBJECT (comp->element), "temporal-motion",
        "compensated");
    g_object_set (comp->element, "temporal-strength", STRENGTH,
        "temporal-sigma", 8.0, NULL);
    for (k = 0; k < 7; k++) {
      Channel a[GST_VIDEO_MAX_COMPONENTS], b[GST_VIDEO_MAX_COMPONENTS];
      GstBufferFlags flags = 0;
      const gchar *what = k == 0 ? "the first frame" : k == 2 ? "a flush" :
          k == 3 ? "a discontinuity" : k == 4 ? "a new segment" :
          k == 5 ? "new caps of the same size" : NULL;

      if (k == 2) {
        fail_unless (gst_harness_push_event (comp,
                gst_event_new_flush_start ()));
        fail_unless (gst_harness_push_event (comp,
                gst_event_new_flush_stop (TRUE)));
        /* The segment in force again: no reset by itself. */
        {
          GstSegment segment;

          gst_segment_init (&segment, GST_FORMAT_TIME);
          fail_unless (gst_harness_push_event (comp,
                  gst_event_new_segment (&segment)));
        }
      } else if (k == 3) {
        flags = GST_BUFFER_FLAG_DISCONT;
      } else if (k == 4) {
        GstSegment segment;

        gst_segment_init (&segment, GST_FORMAT_TIME);
        segment.base = 10 * GST_SECOND;
        fail_unless (gst_harness_push_event (comp,
                gst_event_new_segment (&segment)));
      } else if (k == 5) {
        GstCaps *caps = caps_for (format, w, h);

        gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 25, 1, NULL);
        gst_harness_set_caps (comp, gst_caps_ref (caps), caps);
      }
      n = element_frame (comp, format, w, h, k, 100, flags, a);
      element_frame (spatial, format, w, h, k, 100, 0, b);
      if (what)
        fail_unless (values_apart (a, b, n, 1) == 0, "%s: after %s the "
            "output is not the spatial one", format, what);
      else
        fail_unless (values_apart (a, b, n, 1) > 0, "%s, frame %u: the "
            "output is the spatial one", format, k);
      channels_free (a, n);
      channels_free (b, n);
    }
    filter_harness_free (comp);
    filter_harness_free (spatial);
  }
}

GST_END_TEST;

/* A cut to another picture: scene-cuts counts it (by the next frame) and
 * a cudabilateral-scene-cut message says so, once. */
GST_START_TEST (test_element_scene_cut)
{
  static const Params p = {.diameter = 3,.sigma_color = 30,.sigma_space = 3 };
  const gint w = 160, h = 96;
  GstHarness *hn = filter_harness_new ("NV12", w, h, &p);
  GstBus *bus = gst_element_get_bus (hn->element);
  GstMessage *msg;
  guint64 cuts = 0, count = 0;
  guint k, messages = 0;

  gst_util_set_object_arg (G_OBJECT (hn->element), "temporal-motion",
      "compensated");
  g_object_set (hn->element, "temporal-strength", STRENGTH, "temporal-sigma",
      8.0, NULL);
  for (k = 0; k < 6; k++) {
    Channel out[GST_VIDEO_MAX_COMPONENTS];
    guint n = element_frame (hn, "NV12", w, h, k, 3, 0, out);

    channels_free (out, n);
  }
  g_object_get (hn->element, "scene-cuts", &cuts, NULL);
  fail_unless_equals_int (cuts, 1);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *st = gst_message_get_structure (msg);

    if (gst_structure_has_name (st, "cudabilateral-scene-cut")) {
      messages++;
      fail_unless (gst_structure_get_uint64 (st, "count", &count));
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (messages, 1);
  fail_unless_equals_int (count, 1);
  gst_object_unref (bus);
  filter_harness_free (hn);
}

GST_END_TEST;

static Suite *
motion_element_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-motion-element", 900, &tc);

  tcase_add_test (tc, test_element_resets);
  tcase_add_test (tc, test_element_scene_cut);
  return s;
}

TEST_MAIN (motion_element_suite, TEST_NEEDS_GPU, NULL);
