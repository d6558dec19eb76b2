/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral on a GPU pushes a frame in system memory of its own
 * (pinned) while the GPU still filters and downloads it, and whoever maps
 * it waits: a frame mapped at once holds its own pixels, not the pool
 * buffer's last ones; frames pushed back to back, before any is read,
 * each hold their own, although the next frame's uploads run while the
 * previous one's kernels still read their input; a buffer given back
 * unread, its download still running, is filled right the next time.
 * The frames are 4K RGBA at d = 61, whose kernels take milliseconds while
 * a push returns once the uploads are done: a map that did not wait, or
 * frames sharing one input buffer, would show other frames' pixels. Exits
 * 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gpu_support.h"

#define WIDTH 3840
#define HEIGHT 2160

static GstHarness *
slow_filter_new (void)
{
  GstHarness *h = gst_harness_new ("cudabilateral");

  g_object_set (h->element, "diameter", 61, "sigma-color", 30.0,
      "sigma-space", 20.0, NULL);
  gst_harness_set_caps (h, caps_for ("RGBA", WIDTH, HEIGHT),
      caps_for ("RGBA", WIDTH, HEIGHT));
  return h;
}

/* A frame of one value throughout, which the filter keeps, in the pinned
 * pool the element offers upstream: its uploads take a fraction of the
 * kernels' time. */
static GstBuffer *
uniform_frame (GstHarness * h, guint8 value)
{
  GstVideoInfo info = info_for ("RGBA", WIDTH, HEIGHT);
  GstBuffer *buf = gst_harness_create_buffer (h, info.size);

  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
          "CbfPinnedMemory"), "input not in the element's pinned pool");
  gst_buffer_memset (buf, 0, value, info.size);
  return buf;
}

/* Fails unless @buf, the element's pinned memory, holds @value (within 1)
 * in every byte; frees it. The last rows first: the last band's kernel
 * and download are the last to end. */
static void
check_uniform (GstBuffer * buf, guint8 value, const gchar * which)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;
  gsize i, wrong = 0, last = 0;
  guint8 seen = 0;

  fail_unless (gst_memory_is_type (mem, "CbfPinnedMemory"),
      "%s: output in %s memory, not the element's pinned memory", which,
      mem->allocator->mem_type);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ), "%s: no map", which);
  for (i = map.size; i-- > 0;)
    if (ABS ((gint) map.data[i] - value) > 1 && wrong++ == 0) {
      last = i;
      seen = map.data[i];
    }
  fail_unless (wrong == 0, "%s: %" G_GSIZE_FORMAT " bytes are not %u, the "
      "last at row %" G_GSIZE_FORMAT " (%u)", which, wrong, value,
      last / (WIDTH * 4), seen);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
}

/* Pushes @in, keeping the caller's reference to it: an input freed at
 * once would take cudaFreeHost's wait for the whole device with it, and
 * the frame would be done before anyone looked. */
static void
push_kept (GstHarness * h, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
}

GST_START_TEST (test_map_waits)
{
  GstHarness *h = slow_filter_new ();
  GstBuffer *in[2];

  push_kept (h, in[0] = uniform_frame (h, 10));
  check_uniform (gst_harness_pull (h), 10, "first frame");
  /* Likely the same pool buffer again, holding 10 until the GPU is done. */
  push_kept (h, in[1] = uniform_frame (h, 200));
  check_uniform (gst_harness_pull (h), 200, "second frame");
  gst_buffer_unref (in[0]);
  gst_buffer_unref (in[1]);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_frames_in_flight)
{
  GstHarness *h = slow_filter_new ();
  static const guint8 values[] = { 10, 200, 60 };
  GstBuffer *in[G_N_ELEMENTS (values) + 1], *out[G_N_ELEMENTS (values)];
  guint i;

  /* Inputs made, and the output pool filled, first: each push then
   * follows the last at once, its uploads running while the frame before
   * is filtered. */
  for (i = 0; i < G_N_ELEMENTS (values); i++)
    in[i] = uniform_frame (h, values[i]);
  for (i = 0; i < G_N_ELEMENTS (values); i++)
    push_kept (h, in[i]);
  for (i = 0; i < G_N_ELEMENTS (values); i++)
    gst_buffer_unref (gst_harness_pull (h));
  in[G_N_ELEMENTS (values)] = uniform_frame (h, 120);
  for (i = 0; i < G_N_ELEMENTS (values); i++)
    push_kept (h, in[i]);
  for (i = 0; i < G_N_ELEMENTS (values); i++)
    out[i] = gst_harness_pull (h);
  check_uniform (out[0], values[0], "first of three in flight");
  check_uniform (out[1], values[1], "second of three in flight");
  /* The third goes back to the pool unread, its download maybe running;
   * the next frame may be written into it. */
  gst_buffer_unref (out[2]);
  push_kept (h, in[G_N_ELEMENTS (values)]);
  check_uniform (gst_harness_pull (h), 120, "frame after one left unread");
  for (i = 0; i < G_N_ELEMENTS (in); i++)
    gst_buffer_unref (in[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
pending_output_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-pending-output", 300, &tc);

  tcase_add_test (tc, test_map_waits);
  tcase_add_test (tc, test_frames_in_flight);
  return s;
}

TEST_MAIN (pending_output_suite, TEST_NEEDS_GPU, NULL);
