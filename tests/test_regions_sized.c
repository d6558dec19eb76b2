/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral on a GPU: region-size-scale, each region's window sized
 * from its box. A box 40 pixels a side and one of 400, at scale 0.1, take
 * diameters 5 and 41, sigma-space in proportion to the element's own
 * window (diameter 9, sigma-space 3: 5/3 and 41/3); each pixel is checked
 * against the reference's blend of the input with the whole frame
 * filtered by the reference at its box's parameters (computed here from
 * the property's definition), by the reference's region weight. Then a
 * small box close enough to the large one that their windows overlap:
 * both filtered with the larger diameter. GRAY8, NV12 (chroma's window
 * follows luma's) and RGBA, in system memory and in CUDA memory (the boxes
 * attached after cudaupload, which drops metas); every format with boxes
 * of 40 and 200 (diameters 5 and 21); regions=outside, where it cannot
 * apply: the element's own window and one warning; an own window the
 * element walks short of its diameter. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gpu_support.h"
#include "reference.h"
#include "regions_support.h"

#define SW 544
#define SH 464
#define FEATHER 4.0
#define SCALE 0.1

typedef struct
{
  gint x, y, w, h;
} SizedBox;

/* The element's own window, and that a box of @side pixels asks for: the
 * parameters by region-size-scale's definition. */
static const Params default_own = {.diameter = 9,.sigma_color = 30,
  .sigma_space = 3
};
static Params own = {.diameter = 9,.sigma_color = 30,.sigma_space = 3 };

static Params
params_for_side (gint side)
{
  Params p = own;
  gint d = (gint) floor (SCALE * side + 0.5) | 1;

  p.diameter = CLAMP (d, 3, 61);
  p.sigma_space = own.sigma_space * p.diameter / (2 * (own.diameter / 2) + 1);
  return p;
}

/* The two boxes a frame is given. */
static const SizedBox *frame_boxes[2];

static void
attach_sized (GstBuffer * buf)
{
  guint i;

  for (i = 0; i < 2; i++)
    gst_buffer_add_video_region_of_interest_meta (buf, "face",
        frame_boxes[i]->x, frame_boxes[i]->y, frame_boxes[i]->w,
        frame_boxes[i]->h);
}

/* In CUDA memory: the boxes on the filter's input, after cudaupload. */
static GstPadProbeReturn
attach_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));

  (void) pad;
  (void) user_data;
  if (!gst_buffer_get_video_region_of_interest_meta (buf))
    attach_sized (buf);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* Filters a frame of @format (in CUDA memory where @cuda) with boxes
 * @small and @large attached; each sample is expected blended with the
 * reference at the large box's parameters where that box (or, @merged,
 * either box) weighs it, else at the small box's. */
static void
check_sized (const gchar * format, gint sw, gint sh, gboolean cuda,
    const SizedBox * small, const SizedBox * large, gboolean merged,
    guint32 seed)
{
  GstVideoInfo info = info_for (format, sw, sh);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel fs[GST_VIDEO_MAX_COMPONENTS], fl[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format (format, sw, sh, seed, in), n_filtered, c;
  GstBuffer *buf = frame_from_channels (format, sw, sh, in, FALSE, seed);
  const SizedBox *b[2] = { small, large };
  Params ps = params_for_side (MIN (small->w, small->h));
  Params pl = params_for_side (MIN (large->w, large->h));
  int rb[2][4];
  gchar *what = g_strdup_printf ("region-size-scale %g, d = %d and %d%s%s",
      SCALE, ps.diameter, pl.diameter, merged ? ", merged" : "",
      cuda ? ", CUDA memory" : "");
  GstHarness *h;
  guint i;

  fail_unless (ps.diameter < pl.diameter);
  frame_boxes[0] = small;
  frame_boxes[1] = large;
  for (i = 0; i < 2; i++) {
    rb[i][0] = b[i]->x;
    rb[i][1] = b[i]->y;
    rb[i][2] = b[i]->x + b[i]->w;
    rb[i][3] = b[i]->y + b[i]->h;
  }
  if (cuda) {
    gchar *desc = g_strdup_printf ("cudaupload ! video/x-raw(memory:"
        "CUDAMemory),format=%s ! cudabilateral name=f regions=inside "
        "region-feather=%g region-size-scale=%g diameter=%d sigma-color=%g "
        "sigma-space=%g ! video/x-raw(memory:CUDAMemory) ! cudadownload",
        format, FEATHER, SCALE, own.diameter, own.sigma_color,
        own.sigma_space);
    GstElement *filter;
    GstPad *sink;

    h = gst_harness_new_parse (desc);
    filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
    sink = gst_element_get_static_pad (filter, "sink");
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, attach_probe, NULL,
        NULL);
    gst_harness_set_caps (h, caps_for (format, sw, sh), caps_for (format, sw,
            sh));
    push_and_read_channels (h, format, sw, sh, buf, out);
    gst_object_unref (sink);
    gst_object_unref (filter);
    g_free (desc);
  } else {
    h = filter_harness_new (format, sw, sh, &own);
    attach_sized (buf);
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
    g_object_set (h->element, "region-feather", FEATHER, "region-size-scale",
        SCALE, NULL);
    filter_frame (h, format, sw, sh, buf, out);
  }
  n_filtered = channels_reference_for_format (&info, in, &ps, fs);
  fail_unless_equals_int (channels_reference_for_format (&info, in, &pl, fl),
      n_filtered);
  /* The large box's filter wherever it (or the window it shares) weighs
   * a sample, into fs. */
  for (c = 0; c < n_filtered; c++) {
    gint fx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
    gint fy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
    gint x, y;

    for (y = 0; y < fs[c].height; y++)
      for (x = 0; x < fs[c].width; x++)
        if (cbf_reference_region_weight (merged ? rb : rb + 1, merged ? 2 : 1,
                FEATHER, FALSE, fx, fy, x, y) > 0)
          fs[c].data[y * fs[c].width + x] = fl[c].data[y * fl[c].width + x];
  }
  fail_unless (check_regions (&info, in, fs, out, n_filtered, rb, 2, FEATHER,
          FALSE, NULL, what) > 0, "%s %s: no sample between the input and "
      "the filter", what, format);
  for (c = n_filtered; c < n; c++)
    assert_channel_matches (&out[c], &in[c], 0, "alpha", format, c);
  channels_free (fs, n_filtered);
  channels_free (fl, n_filtered);
  channels_free (out, n);
  channels_free (in, n);
  if (cuda)
    gst_harness_teardown (h);
  else
    filter_harness_free (h);
  g_free (what);
}

/* Far apart: each box its own window. */
GST_START_TEST (test_regions_sized_each)
{
  static const SizedBox small = { 8, 416, 40, 40 }, large = { 136, 8, 400,
    400
  };

  check_sized ("GRAY8", SW, SH, FALSE, &small, &large, FALSE, 11);
  check_sized ("NV12", SW, SH, FALSE, &small, &large, FALSE, 12);
  check_sized ("RGBA", SW, SH, FALSE, &small, &large, FALSE, 14);
}

GST_END_TEST;

static const gchar *all_formats[] = { GPU_TEST_ALL_FORMATS };

/* Every format: boxes of 40 and 200 pixels, diameters 5 and 21. */
GST_START_TEST (test_regions_sized_every_format)
{
  static const SizedBox small = { 8, 230, 40, 40 }, large = { 92, 8, 200,
    200
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    check_sized (all_formats[f], 300, 280, FALSE, &small, &large, FALSE,
        20 + f);
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
GST_START_TEST (test_regions_sized_cuda_memory)
{
  static const SizedBox small = { 8, 416, 40, 40 }, large = { 136, 8, 400,
    400
  };

  check_sized ("NV12", SW, SH, TRUE, &small, &large, FALSE, 15);
  check_sized ("RGBA", SW, SH, TRUE, &small, &large, FALSE, 16);
}

GST_END_TEST;
#endif

/* Close: one window, the larger diameter. */
GST_START_TEST (test_regions_sized_merged)
{
  static const SizedBox small = { 150, 418, 40, 40 }, large = { 136, 8, 400,
    400
  };

  check_sized ("GRAY8", SW, SH, FALSE, &small, &large, TRUE, 13);
}

GST_END_TEST;

/* The element's own window walked short (diameter 21 at sigma-space 1:
 * radius 5, cbf_bilateral_walk_radius): the boxes' sigma-space still in
 * proportion to the diameter the property names (41/21, not 41/11). */
GST_START_TEST (test_regions_sized_own_walked)
{
  static const SizedBox small = { 8, 416, 40, 40 }, large = { 136, 8, 400,
    400
  };

  own.diameter = 21;
  own.sigma_space = 1;
  check_sized ("GRAY8", SW, SH, FALSE, &small, &large, FALSE, 17);
  check_sized ("RGBA", SW, SH, FALSE, &small, &large, FALSE, 18);
  own = default_own;
}

GST_END_TEST;

/* Where the whole frame is filtered (regions=outside), region-size-scale
 * cannot apply: the element's own window everywhere, and a warning, once,
 * that says so. */
GST_START_TEST (test_regions_sized_ignored)
{
  static const SizedBox box = { 20, 20, 200, 200 };
  const gchar *format = "GRAY8";
  GstVideoInfo info = info_for (format, 300, 280);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel filtered[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format (format, 300, 280, 30, in), n_filtered, i;
  GstHarness *h = filter_harness_new (format, 300, 280, &own);
  GstBus *bus = gst_bus_new ();
  int rb[1][4] = { {box.x, box.y, box.x + box.w, box.y + box.h} };
  GstMessage *msg;
  guint warnings = 0;

  gst_element_set_bus (h->element, bus);
  gst_util_set_object_arg (G_OBJECT (h->element), "regions", "outside");
  g_object_set (h->element, "region-feather", FEATHER, "region-size-scale",
      SCALE, NULL);
  for (i = 0; i < 2; i++) {
    GstBuffer *buf = frame_from_channels (format, 300, 280, in, FALSE, 30);

    gst_buffer_add_video_region_of_interest_meta (buf, "face", box.x, box.y,
        box.w, box.h);
    filter_frame (h, format, 300, 280, buf, out);
    n_filtered = channels_reference_for_format (&info, in, &own, filtered);
    fail_unless (check_regions (&info, in, filtered, out, n_filtered, rb, 1,
            FEATHER, TRUE, NULL, "region-size-scale, regions=outside") > 0);
    channels_free (filtered, n_filtered);
    channels_free (out, n);
  }
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *err = NULL;

    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (strstr (err->message, "region-size-scale") != NULL,
        "another warning: %s", err->message);
    warnings++;
    g_error_free (err);
    gst_message_unref (msg);
  }
  fail_unless_equals_int (warnings, 1);
  channels_free (in, n);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  filter_harness_free (h);
}

GST_END_TEST;

static Suite *
regions_sized_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-regions-sized", 600, &tc);

  tcase_add_test (tc, test_regions_sized_each);
  tcase_add_test (tc, test_regions_sized_merged);
  tcase_add_test (tc, test_regions_sized_every_format);
  tcase_add_test (tc, test_regions_sized_ignored);
  tcase_add_test (tc, test_regions_sized_own_walked);
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_regions_sized_cuda_memory);
#endif
  return s;
}

TEST_MAIN (regions_sized_suite, TEST_NEEDS_GPU, "cudaupload", "cudadownload",
    NULL);
