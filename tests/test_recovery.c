/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral under abuse and failure, on a GPU, and what it does next:
 * buffers smaller than their caps or whose video meta reaches past them,
 * caps no frame can satisfy, a bad cuda-device-id, GPU memory exhausted
 * when the weight tables, the grid and the mask are made, a failed start,
 * frames taller than the kernels can launch for: each an element error
 * (or refused caps) saying why, never a crash, and the element (or the
 * next pipeline) then filters right, against the reference. Figures are
 * printed as test_reliability's are (reliability_support.c). Exits 77
 * without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <glib/gstdio.h>
#include <string.h>

#include "gpu_support.h"
#include "reliability_support.h"

/* ---------------------------------------------------------------------- */
/* Bad buffers */

/* The first error message on @bus, or fails. */
static gchar *
pop_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;
  gchar *text, *debug = NULL;

  fail_unless (msg != NULL, "no element error");
  gst_message_parse_error (msg, &error, &debug);
  text = g_strdup_printf ("%s (%s)", error->message, debug ? debug : "");
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  return text;
}

GST_START_TEST (test_bad_buffers)
{
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info = info_for ("NV12", 64, 48);
  GstBuffer *buf;
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  gchar *error;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  gst_harness_set_caps (h, caps_for ("NV12", 64, 48), caps_for ("NV12", 64,
          48));

  /* Smaller than the caps say, no video meta: refused, nothing read past
   * its end (compute-sanitizer and valgrind would see it). */
  buf = gst_buffer_new_allocate (NULL, info.size / 2, NULL);
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  error = pop_error (bus);
  GST_INFO ("short buffer: %s", error);
  fail_unless (strstr (error, "caps need") != NULL, "%s", error);
  g_free (error);

  /* A video meta whose planes reach past the buffer: refused too. */
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0, 64 * 48 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 4096, 4096 };

    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_NV12, 64, 48, 2, offset, stride);
  }
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  error = pop_error (bus);
  GST_INFO ("meta past the end: %s", error);
  fail_unless (strstr (error, "plane 0") != NULL, "%s", error);
  g_free (error);

  /* After both, a good frame (no meta, default layout) is filtered right:
   * the element kept running. */
  gst_harness_set_caps (h, caps_for ("NV12", 64, 48), caps_for ("NV12", 64,
          48));
  check_one_frame (h, "NV12", 64, 48, &p, 5);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Caps no frame can satisfy. Zero size is refused by the caps. A frame too
 * large for the GPU (2^17 x 2^17 RGBA, 64 GiB) is an element error naming
 * the cause, or caps GStreamer itself refuses (2^20 x 2^20 overflows
 * GstVideoInfo); either way no crash, and the element then works with sane
 * caps. */
static void
push_huge (GstHarness * h, GstBus * bus, gint side)
{
  GstFlowReturn flow;
  GstMessage *msg;

  gst_harness_set_caps (h, caps_for ("RGBA", side, side),
      caps_for ("RGBA", side, side));
  flow = gst_harness_push (h, gst_buffer_new_allocate (NULL, 64, NULL));
  fail_if (flow == GST_FLOW_OK, "a %dx%d frame was filtered", side, side);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *error = NULL;

    gst_message_parse_error (msg, &error, NULL);
    GST_INFO ("%dx%d: %s", side, side, error->message);
    fail_unless (strstr (error->message, "Out of memory") != NULL
        || strstr (error->message, "caps need") != NULL, "%s", error->message);
    g_error_free (error);
    gst_message_unref (msg);
  } else {
    fail_unless_equals_int (flow, GST_FLOW_NOT_NEGOTIATED);
    GST_INFO ("%dx%d: caps refused", side, side);
  }
  figure (side == 1 << 17 ? "huge_caps_2e17_flow" : "huge_caps_2e20_flow",
      flow);
}

GST_START_TEST (test_huge_caps)
{
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");
  GstCaps *zero = caps_for ("RGBA", 0, 480);
  GstBus *bus = gst_bus_new ();
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };

  fail_if (gst_pad_query_accept_caps (sink, zero));
  gst_caps_unref (zero);
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  push_huge (h, bus, 1 << 17);
  push_huge (h, bus, 1 << 20);

  gst_harness_set_caps (h, caps_for ("RGBA", 40, 30), caps_for ("RGBA", 40,
          30));
  check_one_frame (h, "RGBA", 40, 30, &p, 9);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A pipeline that fails for a bad cuda-device-id, then a good one in the
 * same process: the failure leaves nothing behind that breaks the next. */
GST_START_TEST (test_fault_then_recovery)
{
  GstElement *bad = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudabilateral "
      "cuda-device-id=99 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (bad);
  GstMessage *msg;
  GstHarness *h;
  Params p = {.diameter = 7,.sigma_color = 30,.sigma_space = 3 };

  gst_element_set_state (bad, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_ERROR
      | GST_MESSAGE_EOS);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (bad, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (bad);

  h = gst_harness_new ("cudabilateral");
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  gst_harness_set_caps (h, caps_for ("RGBA", 64, 48), caps_for ("RGBA", 64,
          48));
  check_one_frame (h, "RGBA", 64, 48, &p, 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Allocation failures, then recovery */

/* The frame pushed into @h fails, with an element error that names
 * @site. */
static void
push_fails_at (GstHarness * h, GstBus * bus, const gchar * format, gint w,
    gint height, const gchar * site)
{
  Channel in[GST_VIDEO_MAX_COMPONENTS];
  GstVideoInfo info = info_for (format, w, height);
  gchar *error;

  channels_for_format (format, w, height, 1, in);
  fail_if (gst_harness_push (h, frame_from_channels (format, w, height, in,
              FALSE, 1)) == GST_FLOW_OK, "a frame went through without %s",
      site);
  error = pop_error (bus);
  GST_INFO ("%s: %s", site, error);
  fail_unless (strstr (error, site) != NULL, "\"%s\" does not name %s",
      error, site);
  fail_unless (strstr (error, "Out of memory") != NULL, "%s", error);
  g_free (error);
  channels_free (in, GST_VIDEO_INFO_N_COMPONENTS (&info));
}

/* A flushing seek as it reaches the element: flush, then a new segment. */
static void
flush (GstHarness * h)
{
  GstSegment segment;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

/* Each allocation a frame may make after a change (the weight tables at
 * the first frame, the grid's cells when method=grid comes, the mask's
 * planes when a mask comes) fails once the device is out of memory: an
 * element error naming it, for that frame. Once the cause is gone (memory
 * freed, the property changed back, after a flushing seek) the next frame
 * is right. */
GST_START_TEST (test_allocation_failures)
{
  const gchar *fmt = "NV12";
  const gint w = 640, height = 480;
  Params p = {.diameter = 7,.sigma_color = 30,.sigma_space = 3 };
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  gchar *mask_path = g_build_filename (g_get_tmp_dir (),
      "cbf-reliability-mask.png", NULL);
  guint8 *mask = g_malloc (w * height);
  GPtrArray *hog;
  GstHarness *grid_h;
  Channel in[3], grid_out[3], out[3];
  guint c;

  memset (mask, 255, w * height);
  write_gray_png (mask_path, mask, w, height);
  gst_element_set_bus (h->element, bus);
  params_apply (h->element, &p);
  gst_harness_set_caps (h, caps_for (fmt, w, height), caps_for (fmt, w,
          height));

  /* The weight tables, made by the first frame: fail, then after the
   * memory is freed, a right frame. */
  hog = gpu_test_hog_memory ();
  push_fails_at (h, bus, fmt, w, height, "allocating the weight tables");
  gpu_test_free_hog (hog);
  check_one_frame (h, fmt, w, height, &p, 11);

  /* The grid: fails; method back to exact (memory still short): right;
   * memory freed and method=grid again: the same frame as an element
   * that never failed. */
  hog = gpu_test_hog_memory ();
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
  push_fails_at (h, bus, fmt, w, height, "allocating the bilateral grid");
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "exact");
  check_one_frame (h, fmt, w, height, &p, 12);
  gpu_test_free_hog (hog);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
  grid_h = gst_harness_new ("cudabilateral");
  params_apply (grid_h->element, &p);
  gst_util_set_object_arg (G_OBJECT (grid_h->element), "method", "grid");
  gst_harness_set_caps (grid_h, caps_for (fmt, w, height), caps_for (fmt, w,
          height));
  channels_for_format (fmt, w, height, 13, in);
  filter_frame (grid_h, fmt, w, height, frame_from_channels (fmt, w, height,
          in, FALSE, 13), grid_out);
  filter_frame (h, fmt, w, height, frame_from_channels (fmt, w, height, in,
          TRUE, 13), out);
  {
    GstVideoInfo info = info_for (fmt, w, height);
    Channel expected[3];
    guint n = channels_reference_grid_for_format (&info, in, &p, expected);

    for (c = 0; c < 3; c++)
      assert_channel_matches (&out[c], &grid_out[c], 0,
          "grid after recovery, against a fresh element", fmt, c);
    for (c = 0; c < n; c++)
      assert_channel_matches (&out[c], &expected[c], 1,
          "grid after recovery, against the reference grid", fmt, c);
    channels_free (expected, n);
  }
  channels_free (in, 3);
  channels_free (out, 3);
  channels_free (grid_out, 3);
  gst_harness_teardown (grid_h);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "exact");

  /* The mask's planes: fail; memory freed, a flushing seek, then the mask
   * (all 255: the plain filter) applies. */
  hog = gpu_test_hog_memory ();
  g_object_set (h->element, "mask-location", mask_path, NULL);
  push_fails_at (h, bus, fmt, w, height, "uploading the strength mask");
  gpu_test_free_hog (hog);
  flush (h);
  check_one_frame (h, fmt, w, height, &p, 14);

  figure ("allocation_failures_recovered", 3);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_unlink (mask_path);
  g_free (mask_path);
  g_free (mask);
}

GST_END_TEST;

/* A start that fails leaves a stopped element: the same element then
 * starts and filters right. */
GST_START_TEST (test_failed_start_then_start)
{
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  GstHarness *h;

  g_object_set (e, "cuda-device-id", 4096, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (e, "cuda-device-id", -1, NULL);
  params_apply (e, &p);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_caps (h, caps_for ("I420", 64, 48), caps_for ("I420", 64,
          48));
  check_one_frame (h, "I420", 64, 48, &p, 31);
  gst_harness_teardown (h);
  gst_object_unref (e);
}

GST_END_TEST;

/* The tallest frame the README promises, the kernels' launch limit. */
#define MAX_HEIGHT 65535

/* Frames taller than MAX_HEIGHT rows, which no kernel can launch for:
 * refused at negotiation with one warning naming the limit, in every mode
 * and method; frames then pushed are not negotiated, and no error is
 * posted for them. The tallest frame and a very wide one are filtered. */
GST_START_TEST (test_launch_limits)
{
  static const gchar *setups[][2] = { {"bilateral", "exact"},
  {"gaussian", "exact"}, {"bilateral", "grid"}
  };
  static const gint fine[][2] = { {1, MAX_HEIGHT}, {600000, 1} };
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  guint s, i;

  for (s = 0; s < G_N_ELEMENTS (setups); s++) {
    GstHarness *h = gst_harness_new ("cudabilateral");
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *warning = NULL;

    gst_element_set_bus (h->element, bus);
    params_apply (h->element, &p);
    gst_util_set_object_arg (G_OBJECT (h->element), "mode", setups[s][0]);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", setups[s][1]);
    {
      GstCaps *tall = caps_for ("GRAY8", 1, 600000);
      GstPad *sink = gst_element_get_static_pad (h->element, "sink");
      GstSegment segment;

      fail_if (gst_pad_query_accept_caps (sink, tall), "1x600000 accepted");
      /* Sticky: pushing it succeeds, sending it fails with each frame. */
      gst_pad_push_event (h->srcpad, gst_event_new_caps (tall));
      gst_segment_init (&segment, GST_FORMAT_TIME);
      gst_pad_push_event (h->srcpad, gst_event_new_segment (&segment));
      gst_object_unref (sink);
    }
    for (i = 0; i < 3; i++)
      fail_unless_equals_int (gst_harness_push (h,
              gst_buffer_new_allocate (NULL, 600000, NULL)),
          GST_FLOW_NOT_NEGOTIATED);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "no message for the refused caps");
    gst_message_parse_warning (msg, &warning, NULL);
    GST_INFO ("%s %s: %s", setups[s][0], setups[s][1], warning->message);
    fail_unless (strstr (warning->message, "65535") != NULL, "%s",
        warning->message);
    g_error_free (warning);
    gst_message_unref (msg);
    fail_if (gst_bus_have_pending (bus), "more messages than one warning "
        "for the refused caps and three frames");

    for (i = 0; i < G_N_ELEMENTS (fine); i++) {
      GstVideoInfo info = info_for ("GRAY8", fine[i][0], fine[i][1]);
      Params q = p;

      q.gaussian = g_str_equal (setups[s][0], "gaussian");
      gst_harness_set_caps (h, caps_for ("GRAY8", fine[i][0], fine[i][1]),
          caps_for ("GRAY8", fine[i][0], fine[i][1]));
      if (g_str_equal (setups[s][1], "grid")) {
        Channel in[1], out[1], expected[1];

        channels_for_format ("GRAY8", fine[i][0], fine[i][1], i, in);
        filter_frame (h, "GRAY8", fine[i][0], fine[i][1],
            frame_from_channels ("GRAY8", fine[i][0], fine[i][1], in, FALSE,
                i), out);
        fail_unless_equals_int (channels_reference_grid_for_format (&info,
                in, &q, expected), 1);
        assert_channel_matches (&out[0], &expected[0], 1, "grid at the limit",
            "GRAY8", 0);
        channels_free (in, 1);
        channels_free (out, 1);
        channels_free (expected, 1);
      } else {
        check_one_frame (h, "GRAY8", fine[i][0], fine[i][1], &q, 40 + i);
      }
      fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL,
          "%dx%d: an error", GST_VIDEO_INFO_WIDTH (&info),
          GST_VIDEO_INFO_HEIGHT (&info));
    }
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static Suite *
recovery_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-recovery", 1800, &tc);

  tcase_add_test (tc, test_bad_buffers);
  tcase_add_test (tc, test_huge_caps);
  tcase_add_test (tc, test_fault_then_recovery);
  tcase_add_test (tc, test_allocation_failures);
  tcase_add_test (tc, test_failed_start_then_start);
  tcase_add_test (tc, test_launch_limits);
  return s;
}

TEST_MAIN (recovery_suite, TEST_NEEDS_GPU, NULL);
