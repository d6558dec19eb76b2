/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral on a GPU: region-hold against the C reference, as
 * test_regions_gpu checks regions (regions_support.h): a face seen in two
 * frames, held where its velocity takes it, then dropped, in every format
 * in system memory and in CUDA memory, with the held boxes' metas; and
 * what restarts the temporal filter (a flush, new caps) dropping held
 * boxes. Output pools are poisoned first. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gpu_support.h"
#include "reference.h"
#include "regions_support.h"

static const gchar *all_formats[] = { GPU_TEST_ALL_FORMATS };

/* region-hold's face: seen in frames 0 and 1, 4 pixels right a frame,
 * then missed. */
#define HOLD_FRAMES 5
static const gint hold_seen_x[] = { 10, 14 };

#if CBF_HAVE_CUDA_MEMORY
/* Puts the face of frame *@frame (counted here) on the filter's input, in
 * CUDA memory, where cudaupload left no meta. */
static GstPadProbeReturn
add_hold_face_probe (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  guint *frame = user_data;

  if (*frame < G_N_ELEMENTS (hold_seen_x)) {
    GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER
        (info));

    gst_buffer_add_video_region_of_interest_meta (buf, "face",
        hold_seen_x[*frame], 8, 20, 16);
    GST_PAD_PROBE_INFO_DATA (info) = buf;
  }
  (*frame)++;
  return GST_PAD_PROBE_OK;
}
#endif

/* region-hold=2, no growth, in system or CUDA memory (cudaupload !
 * cudabilateral ! cudadownload): the face seen in frames 0 and 1, missed
 * in frames 2 to 4, is held where its velocity takes it in frames 2 and 3
 * (x = 18, then 22) and gone in frame 4 (the output is the input); the
 * boxes are worked out here. In system memory the held frames carry the
 * held box as a ROI meta with the element's param, the others none
 * (cudadownload, as GStreamer's CUDA elements do, keeps no such meta). */
static void
check_hold (const gchar * format, gboolean cuda_memory, guint32 seed)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  static const gint held_x[] = { 18, 22 };
  GstVideoInfo info = info_for (format, W, H);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel filtered[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format (format, W, H, seed, in), n_filtered;
  guint k, c, probe_frame = 0;
  GstElement *filter;
  GstHarness *h;

  if (cuda_memory) {
#if CBF_HAVE_CUDA_MEMORY
    gchar *desc = g_strdup_printf ("cudaupload ! video/x-raw(memory:"
        "CUDAMemory),format=%s ! cudabilateral name=f diameter=%d "
        "sigma-color=%g sigma-space=%g ! video/x-raw(memory:CUDAMemory) ! "
        "cudadownload", format, p.diameter, p.sigma_color, p.sigma_space);
    GstPad *sink;

    h = gst_harness_new_parse (desc);
    filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
    sink = gst_element_get_static_pad (filter, "sink");
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, add_hold_face_probe,
        &probe_frame, NULL);
    gst_object_unref (sink);
    gst_harness_set_caps (h, caps_for (format, W, H), caps_for (format, W, H));
    g_free (desc);
#else
    g_assert_not_reached ();
#endif
  } else {
    h = filter_harness_new (format, W, H, &p);
    filter = gst_object_ref (h->element);
  }
  gst_util_set_object_arg (G_OBJECT (filter), "regions", "inside");
  g_object_set (filter, "region-hold", 2, "region-hold-growth", 0.0, NULL);
  n_filtered = channels_reference_for_format (&info, in, &p, filtered);
  for (k = 0; k < HOLD_FRAMES; k++) {
    GstBuffer *buf = frame_from_channels (format, W, H, in, FALSE, k);
    GstVideoRegionOfInterestMeta *roi;
    gboolean held = k == 2 || k == 3;
    gint x = k < 2 ? hold_seen_x[k] : held ? held_x[k - 2] : -1;
    int rb[1][4] = { {x, 8, x + 20, 24} };
    gchar *what = g_strdup_printf ("region-hold=2 frame %u%s", k,
        cuda_memory ? " CUDA memory" : "");
    GstBuffer *result;
    GstVideoFrame frame;
    gpointer state = NULL;
    guint n_held = 0;

    if (k < 2 && !cuda_memory)
      gst_buffer_add_video_region_of_interest_meta (buf, "face",
          hold_seen_x[k], 8, 20, 16);
    if (!cuda_memory)
      gpu_test_poison_output_pool (h->element);
    result = gst_harness_push_and_pull (h, buf);
    fail_unless (result != NULL);
    fail_unless (gst_video_frame_map (&frame, &info, result, GST_MAP_READ));
    for (c = 0; c < n; c++)
      out[c] = read_component (&frame, c);
    gst_video_frame_unmap (&frame);
    check_regions (&info, in, filtered, out, n_filtered, rb, x < 0 ? 0 : 1,
        0, FALSE, NULL, what);
    for (c = n_filtered; c < n; c++)
      assert_channel_matches (&out[c], &in[c], 0, "alpha", format, c);
    while (!cuda_memory && (roi = (GstVideoRegionOfInterestMeta *)
            gst_buffer_iterate_meta_filtered (result, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstStructure *param = gst_video_region_of_interest_meta_get_param
          (roi, "cudabilateral/held");
      guint frames_held = 0;

      if (!param)
        continue;
      n_held++;
      fail_unless (held, "%s %s: a held box's meta on a frame that holds "
          "none", what, format);
      fail_unless (roi->x == (guint) x && roi->y == 8 && roi->w == 20
          && roi->h == 16, "%s %s: held meta at %u,%u %ux%u", what, format,
          roi->x, roi->y, roi->w, roi->h);
      fail_unless (gst_structure_get_uint (param, "frames-held", &frames_held));
      fail_unless_equals_int (frames_held, k - 1);
      fail_unless_equals_string (g_quark_to_string (roi->roi_type), "face");
    }
    if (!cuda_memory)
      fail_unless_equals_int (n_held, held ? 1 : 0);
    channels_free (out, n);
    gst_buffer_unref (result);
    g_free (what);
  }
  if (cuda_memory)
    fail_unless_equals_int (probe_frame, HOLD_FRAMES);
  channels_free (filtered, n_filtered);
  channels_free (in, n);
  gst_object_unref (filter);
  if (cuda_memory)
    gst_harness_teardown (h);
  else
    filter_harness_free (h);
}

/* region-hold in every format in system memory, and in CUDA memory. */
GST_START_TEST (test_regions_hold)
{
  guint f;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    check_hold (all_formats[f], FALSE, 40 + f);
#if CBF_HAVE_CUDA_MEMORY
  {
    static const gchar *cuda_fmts[] = { "RGBA", "NV12", "I420", "P010_10LE" };

    for (f = 0; f < G_N_ELEMENTS (cuda_fmts); f++)
      check_hold (cuda_fmts[f], TRUE, 80 + f);
  }
#endif
}

GST_END_TEST;

/* What restarts the temporal filter drops held boxes too: a face seen in
 * two frames, then a flush, or new caps of the same size (only the frame
 * rate changes), then a frame without it: nothing held, the output is the
 * input. Without the restart the same frame is filtered in the held box,
 * so that the check can tell. */
typedef enum
{
  HOLD_NO_RESET,
  HOLD_RESET_FLUSH,
  HOLD_RESET_CAPS,
} HoldReset;

static void
check_hold_reset (const gchar * format, HoldReset reset)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  GstVideoInfo info = info_for (format, W, H);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel filtered[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format (format, W, H, 90, in), n_filtered, k;
  GstHarness *h = filter_harness_new (format, W, H, &p);
  int rb[1][4] = { {10, 8, 30, 24} };
  gchar *what = g_strdup_printf ("region-hold=3, %s",
      reset == HOLD_NO_RESET ? "no reset" : reset == HOLD_RESET_FLUSH ?
      "a flush" : "new caps of the same size");

  gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
  g_object_set (h->element, "region-hold", 3, "region-hold-growth", 0.0, NULL);
  n_filtered = channels_reference_for_format (&info, in, &p, filtered);
  for (k = 0; k < 2; k++) {
    GstBuffer *buf = frame_from_channels (format, W, H, in, FALSE, k);

    gst_buffer_add_video_region_of_interest_meta (buf, "face", 10, 8, 20, 16);
    filter_frame (h, format, W, H, buf, out);
    channels_free (out, n);
  }
  if (reset == HOLD_RESET_FLUSH) {
    GstSegment segment;

    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  } else if (reset == HOLD_RESET_CAPS) {
    GstCaps *caps = caps_for (format, W, H);

    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 25, 1, NULL);
    gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  }
  filter_frame (h, format, W, H, frame_from_channels (format, W, H, in,
          FALSE, 2), out);
  check_regions (&info, in, filtered, out, n_filtered, rb,
      reset == HOLD_NO_RESET ? 1 : 0, 0, FALSE, NULL, what);
  channels_free (out, n);
  channels_free (filtered, n_filtered);
  channels_free (in, n);
  filter_harness_free (h);
  g_free (what);
}

GST_START_TEST (test_regions_hold_resets)
{
  static const gchar *fmts[] = { "RGBA", "NV12" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    check_hold_reset (fmts[f], HOLD_NO_RESET);
    check_hold_reset (fmts[f], HOLD_RESET_FLUSH);
    check_hold_reset (fmts[f], HOLD_RESET_CAPS);
  }
}

GST_END_TEST;

static Suite *
regions_hold_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-regions-hold", 600, &tc);

  tcase_add_test (tc, test_regions_hold);
  tcase_add_test (tc, test_regions_hold_resets);
  return s;
}

TEST_MAIN (regions_hold_suite, TEST_NEEDS_GPU, "cudaupload", "cudadownload",
    NULL);
