/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral on a GPU: chroma-guide=luma with the element's other
 * features: every border rule (which chroma and its guide both follow
 * past their edges) against the reference; mode=gaussian and method=grid,
 * which have no range weights to guide, giving the output without the
 * guide; a strength mask, the temporal filter and regions against the
 * reference's blends; and CUDA memory giving the reference's output and
 * the system-memory path's bytes. The rest of the chroma tests are in
 * test_chroma and test_chroma_siting. Output pools are poisoned first.
 * Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "chroma_support.h"
#include "gpu_support.h"
#include "packed_image.h"
#include "reference.h"
#include "reference_chroma.h"

/* ------------------------------------------------------------------ */
/* Borders, and the modes without range weights */

/* The guided chroma with every border rule (the border property:
 * reflect-101, replicate, reflect, wrap, constant with border-value 200
 * and 0), which chroma and its guide both follow past their edges, the
 * constant's value scaled to the samples' bits in both
 * (cbf_reference_chroma_guided_border), luma against test_border's
 * reference: I420, NV12, P010_10LE and YUY2 (one plane: at 45 x 130 cut
 * into two bands under the GPU tests' GST_CBF_BAND_BYTES=1, whose windows
 * read guide rows of the other band, with wrap those of the far edge),
 * 37 x 23, 7 x 5 (smaller than the windows, which then repeat the rule)
 * and 45 x 130, a specialised window (d = 9) and a wide one
 * (chroma-diameter 41), the centred guide and mpeg2's. */
GST_START_TEST (test_guided_borders)
{
  static const gchar *fmts[] = { "I420", "NV12", "P010_10LE", "YUY2" };
  static const ImageBorder borders[] = {
    {"reflect-101", 0}, {"replicate", 0}, {"reflect", 0}, {"wrap", 0},
    {"constant", 200}, {"constant", 0}
  };
  static const gint sizes[][2] = { {37, 23}, {7, 5}, {45, 130} };
  static const gchar *sites[] = { NULL, "mpeg2" };
  Setup setups[2];
  guint f, b, z, k, si, seed = 1300;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (9, 30, 4, TRUE);
  setups[1].chroma_diameter = 41;
  setups[1].chroma_sigma_color = 50;
  setups[1].chroma_sigma_space = 10;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (b = 0; b < G_N_ELEMENTS (borders); b++)
      for (z = 0; z < G_N_ELEMENTS (sizes); z++)
        for (k = 0; k < G_N_ELEMENTS (setups); k++)
          for (si = 0; si < G_N_ELEMENTS (sites); si++) {
            Setup s = setups[k];

            s.border = &borders[b];
            s.chroma_site = sites[si];
            check_setup (fmts[f], sizes[z][0], sizes[z][1], &s, seed++, NULL);
          }
}

GST_END_TEST;

/* mode=gaussian and method=grid have no range weights to guide: with
 * chroma-guide=luma the output is the very one without it. */
GST_START_TEST (test_guide_ignored)
{
  static const gchar *modes[][2] = { {"mode", "gaussian"}, {"method", "grid"} };
  const gint w = 64, h = 48;
  guint m, g, c;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    Channel in[3], out[2][3];

    picture_channels ("NV12", w, h, 11, in);
    for (g = 0; g < 2; g++) {
      Setup s = setup_make (9, 30, 8, g == 1);
      GstHarness *harness = chroma_harness_new ("NV12", w, h, &s);

      gst_util_set_object_arg (G_OBJECT (harness->element), modes[m][0],
          modes[m][1]);
      filter_frame (harness, "NV12", w, h,
          frame_from_channels ("NV12", w, h, in, g, g), out[g]);
      filter_harness_free (harness);
    }
    for (c = 0; c < 3; c++)
      assert_channel_matches (&out[1][c], &out[0][c], 0, modes[m][1], "NV12",
          c);
    channels_free (in, 3);
    channels_free (out[0], 3);
    channels_free (out[1], 3);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* The mask, the temporal filter, regions and CUDA memory */

/* Whether @out is @in blended with @filtered by a mask level within one of
 * @level (the reference's, in double; the element's 11-bit fixed point may
 * be a level off), within one sample more. */
static gboolean
blend_matches (gint out, gint in, gint filtered, gdouble level)
{
  gint m = (gint) floor (level + 0.5), k;

  for (k = MAX (m - 1, 0); k <= MIN (m + 1, 255); k++)
    if (ABS (out - cbf_reference_mask_blend (in, filtered, k)) <= 1)
      return TRUE;
  return FALSE;
}

/* A strength mask with the guide: the unmasked output the reference's,
 * the masked one the blend of the input and it by the mask scaled to each
 * plane's size. */
GST_START_TEST (test_guided_mask)
{
  static const gchar *fmts[] = { "NV12", "I420", "YUY2", "Y444",
    "P010_10LE"
  };
  const gint w = 97, h = 62, mask_w = 20, mask_h = 11;
  Setup s = setup_make (9, 40, 4, TRUE);
  gchar *base = g_strdup_printf ("cbf-chroma-mask-%d.png", (int) getpid ());
  gchar *path = g_build_filename (g_get_tmp_dir (), base, NULL);
  guint8 *mask = g_malloc (mask_w * mask_h);
  guint f, c;
  gint i, x, y;

  for (i = 0; i < mask_w * mask_h; i++)
    mask[i] = (guint8) ((i % mask_w) * 13 + (i / mask_w) * 7);
  write_gray_png (path, mask, mask_w, mask_h);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *masked = chroma_harness_new (fmts[f], w, h, &s);
    Channel in[3], plain[3], out[3];

    g_object_set (masked->element, "mask-location", path, NULL);
    check_setup (fmts[f], w, h, &s, 40 + f, plain);
    picture_channels (fmts[f], w, h, 40 + f, in);
    filter_frame (masked, fmts[f], w, h,
        frame_from_channels (fmts[f], w, h, in, TRUE, 3), out);
    for (c = 0; c < 3; c++)
      for (y = 0; y < out[c].height; y++)
        for (x = 0; x < out[c].width; x++) {
          gint k = y * out[c].width + x;
          gdouble level = cbf_reference_mask_level (mask, mask_w, mask_w,
              mask_h, out[c].width, out[c].height, x, y);

          fail_unless (blend_matches (out[c].data[k], in[c].data[k],
                  plain[c].data[k], level), "masked and guided %s component "
              "%u at %d,%d: %u, not the blend of %u and %u by a mask level "
              "within one of %.3f", fmts[f], c, x, y, out[c].data[k],
              in[c].data[k], plain[c].data[k], level);
        }
    channels_free (in, 3);
    channels_free (plain, 3);
    channels_free (out, 3);
    filter_harness_free (masked);
  }
  g_unlink (path);
  g_free (path);
  g_free (base);
  g_free (mask);
}

GST_END_TEST;

#define STRENGTH 0.8
#define TEMPORAL_SIGMA 10.0

/* The temporal reference of one plane: B, @values (@width x @height, not
 * rounded), moved towards @prev, the element's previous output (NULL:
 * none). */
static Channel
temporal_channel (const gdouble * values, const Channel * prev, gint width,
    gint height, gint bits)
{
  Channel out = channel_new (width, height, bits);

  cbf_reference_temporal (values, prev ? prev->data : NULL, width, out.data,
      width, 2, bits, width, height, 1, 0, 1, STRENGTH, TEMPORAL_SIGMA);
  return out;
}

/* The guided frame's B before rounding, plane by plane: luma by the
 * one-channel reference, chroma by the guided one. */
static gdouble *
guided_values (const GstVideoInfo * info, const Channel * in, const Setup * s,
    guint c)
{
  gsize n = (gsize) in[c].width * in[c].height;
  gdouble *values = g_new (gdouble, n);

  if (c == 0) {
    cbf_reference_values (CBF_REFERENCE_BILATERAL, in[0].data, in[0].width,
        2, in[0].bits, in[0].width, in[0].height, 1, 0, 1, s->p.diameter,
        s->p.sigma_color, s->p.sigma_space, values);
  } else {
    Params q = chroma_params (info, s);
    Channel g = guide_for (info, &in[0]);

    cbf_reference_chroma_guided_values (g.data, g.width, in[c].data,
        in[c].width, 2, in[c].bits, in[c].width, in[c].height, q.diameter,
        q.sigma_color, q.sigma_space, CBF_REFERENCE_BORDER_REFLECT_101, 0,
        values);
    channels_free (&g, 1);
  }
  return values;
}

/* The temporal filter after the guide: a still picture under fresh noise,
 * three frames, each within the tolerance of the temporal reference given
 * the guided values before rounding and the element's previous output;
 * chroma's expected outputs must move from the spatial ones somewhere, so
 * that an element ignoring the previous frame there fails. */
GST_START_TEST (test_guided_temporal)
{
  static const gchar *fmts[] = { "NV12", "I420_10LE", "Y444" };
  const gint w = 64, h = 48;
  Setup s = setup_make (9, 40, 4, TRUE);
  guint f, k, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    GstHarness *harness = chroma_harness_new (fmts[f], w, h, &s);
    Channel prev[3];
    guint moved = 0;

    g_object_set (harness->element, "temporal-strength", STRENGTH,
        "temporal-sigma", TEMPORAL_SIGMA, NULL);
    for (k = 0; k < 3; k++) {
      Channel in[3], out[3];

      picture_channels (fmts[f], w, h, 60 + k, in);
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, k % 2, k), out);
      for (c = 0; c < 3; c++) {
        gdouble *values = guided_values (&info, in, &s, c);
        Channel expected = temporal_channel (values, k ? &prev[c] : NULL,
            in[c].width, in[c].height, in[c].bits);
        Channel spatial = temporal_channel (values, NULL, in[c].width,
            in[c].height, in[c].bits);
        gchar *what = g_strdup_printf ("guided, temporal frame %u", k);

        assert_channel_matches (&out[c], &expected,
            format_tolerance (GST_VIDEO_INFO_FORMAT (&info)), what, fmts[f], c);
        if (c > 0)
          moved +=
              count_differing (&expected, &spatial,
              format_tolerance (GST_VIDEO_INFO_FORMAT (&info)));
        channels_free (&expected, 1);
        channels_free (&spatial, 1);
        g_free (values);
        g_free (what);
      }
      if (k)
        channels_free (prev, 3);
      memcpy (prev, out, sizeof (prev));
      channels_free (in, 3);
    }
    fail_unless (moved > 0, "%s: the temporal reference's chroma is the "
        "spatial one: the check cannot tell a temporal filter", fmts[f]);
    channels_free (prev, 3);
    filter_harness_free (harness);
  }
}

GST_END_TEST;

#define RW 70
#define RH 46
#define PADDING 2
#define FEATHER 5.5

/* Overlapping boxes, one past the right and bottom edges, a tiny one. */
static const gint region_boxes[][4] = {
  {10, 8, 20, 16}, {24, 14, 18, 12}, {60, 34, 20, 30}, {4, 40, 1, 1}
};

static void
attach_regions (GstBuffer * buf)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (region_boxes); i++)
    gst_buffer_add_video_region_of_interest_meta (buf, "face",
        region_boxes[i][0], region_boxes[i][1], region_boxes[i][2],
        region_boxes[i][3]);
}

/* Regions with the guide: each sample the reference's blend of the input
 * and the whole frame filtered (chroma guided) by the region weight at
 * its plane; the input bit for bit where the weight is 0, within the
 * tolerance where it is 255, and between within what a weight one level
 * off moves. */
GST_START_TEST (test_guided_regions)
{
  static const struct
  {
    const gchar *format;
    const gchar *mode;
  } runs[] = { {"NV12", "inside"}, {"NV12", "outside"}, {"I420", "inside"},
  {"Y444", "inside"}, {"P010_10LE", "inside"}
  };
  Setup s = setup_make (9, 40, 4, TRUE);
  gint boxes[G_N_ELEMENTS (region_boxes)][4];
  guint r, i, c;

  /* Grown by the padding and clipped to the frame. */
  for (i = 0; i < G_N_ELEMENTS (region_boxes); i++) {
    boxes[i][0] = CLAMP (region_boxes[i][0] - PADDING, 0, RW);
    boxes[i][1] = CLAMP (region_boxes[i][1] - PADDING, 0, RH);
    boxes[i][2] = CLAMP (region_boxes[i][0] + region_boxes[i][2] + PADDING,
        0, RW);
    boxes[i][3] = CLAMP (region_boxes[i][1] + region_boxes[i][3] + PADDING,
        0, RH);
  }
  for (r = 0; r < G_N_ELEMENTS (runs); r++) {
    const gchar *fmt = runs[r].format;
    gboolean outside = g_str_equal (runs[r].mode, "outside");
    GstVideoInfo info = info_for (fmt, RW, RH);
    gint tol = format_tolerance (GST_VIDEO_INFO_FORMAT (&info));
    GstHarness *harness = chroma_harness_new (fmt, RW, RH, &s);
    Channel in[3], out[3], filtered[3];
    GstBuffer *buf;
    guint counts[3] = { 0, 0, 0 };      /* chroma weights 0, between, 255 */

    gst_util_set_object_arg (G_OBJECT (harness->element), "regions",
        runs[r].mode);
    g_object_set (harness->element, "region-padding", PADDING,
        "region-feather", FEATHER, NULL);
    picture_channels (fmt, RW, RH, 70 + r, in);
    buf = frame_from_channels (fmt, RW, RH, in, r % 2, r);
    attach_regions (buf);
    filter_frame (harness, fmt, RW, RH, buf, out);
    expected_by_plane (&info, in, &s, filtered);
    for (c = 0; c < 3; c++) {
      gint fx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
      gint fy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
      gint x, y;

      for (y = 0; y < out[c].height; y++)
        for (x = 0; x < out[c].width; x++) {
          gint k = y * out[c].width + x, got = out[c].data[k];
          gint src = in[c].data[k], full = filtered[c].data[k];
          gint m = cbf_reference_region_weight ((const int (*)[4]) boxes,
              G_N_ELEMENTS (boxes), FEATHER, outside, fx, fy, x, y);
          gint want = cbf_reference_mask_blend (src, full, m);
          gint limit = m == 0 ? 0 : m == 255 ? tol :
              tol + 1 + (ABS (full - src) + 254) / 255;

          if (c > 0)
            counts[m == 0 ? 0 : m == 255 ? 2 : 1]++;
          fail_unless (ABS (got - want) <= limit, "regions=%s, guided, %s "
              "component %u (%d, %d) weight %d: %d, expected %d (input %d, "
              "filtered %d)", runs[r].mode, fmt, c, x, y, m, got, want, src,
              full);
        }
    }
    fail_unless (counts[0] && counts[1] && counts[2], "%s regions=%s: "
        "chroma weights 0, between and 255: %u, %u, %u samples", fmt,
        runs[r].mode, counts[0], counts[1], counts[2]);
    channels_free (in, 3);
    channels_free (out, 3);
    channels_free (filtered, 3);
    filter_harness_free (harness);
  }
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
/* cudaupload ! cudabilateral name=f ! cudadownload, CUDA caps forced on
 * both sides of the filter, set up as @s (filter_harness_full). */
static GstHarness *
cuda_harness_new (const gchar * format, gint width, gint height,
    const Setup * s)
{
  return filter_harness_full (format, width, height, "cudabilateral name=f",
      setup_filter, s, NULL);
}

/* Whether the filter in @h negotiated CUDA memory. */
static gboolean
filter_in_cuda_memory (GstHarness * h)
{
  GstElement *filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
  GstPad *pad = gst_element_get_static_pad (filter, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean cuda = caps && gst_caps_features_contains (gst_caps_get_features
      (caps, 0), "memory:CUDAMemory");

  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (filter);
  return cuda;
}

/* The guide in CUDA memory: NV12 and I420, odd and even sizes, the
 * reference's output, and the very bytes of the system-memory path. */
GST_START_TEST (test_guided_cuda_memory)
{
  static const gchar *fmts[] = { "NV12", "I420" };
  static const gint sizes[][2] = { {97, 61}, {160, 90} };
  Setup s = setup_make (9, 40, 4, TRUE);
  guint f, z, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
      gint w = sizes[z][0], h = sizes[z][1];
      GstVideoInfo info = info_for (fmts[f], w, h);
      GstHarness *cuda = cuda_harness_new (fmts[f], w, h, &s);
      Channel in[3], cuda_out[3], sys_out[3], expected[3];

      picture_channels (fmts[f], w, h, 90 + z, in);
      push_and_read_channels (cuda, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, z % 2, z), cuda_out);
      fail_unless (filter_in_cuda_memory (cuda), "%s: the filter did not "
          "negotiate CUDA memory", fmts[f]);
      check_setup (fmts[f], w, h, &s, 90 + z, sys_out);
      expected_by_plane (&info, in, &s, expected);
      for (c = 0; c < 3; c++) {
        assert_channel_matches (&cuda_out[c], &expected[c],
            plane_tolerance (&info, &s, c), "guided, CUDA memory", fmts[f], c);
        assert_channel_matches (&cuda_out[c], &sys_out[c], 0,
            "guided, CUDA memory against system memory", fmts[f], c);
      }
      channels_free (in, 3);
      channels_free (cuda_out, 3);
      channels_free (sys_out, 3);
      channels_free (expected, 3);
      filter_harness_free (cuda);
    }
}

GST_END_TEST;
#endif

static Suite *
chroma_features_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-chroma-features", 600, &tc);

  tcase_add_test (tc, test_guided_borders);
  tcase_add_test (tc, test_guide_ignored);
  tcase_add_test (tc, test_guided_mask);
  tcase_add_test (tc, test_guided_temporal);
  tcase_add_test (tc, test_guided_regions);
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_guided_cuda_memory);
#endif
  return s;
}

#if CBF_HAVE_CUDA_MEMORY
TEST_MAIN (chroma_features_suite, TEST_NEEDS_GPU, "pngenc", "pngdec",
    "cudaupload", "cudadownload", NULL);
#else
TEST_MAIN (chroma_features_suite, TEST_NEEDS_GPU, "pngenc", "pngdec", NULL);
#endif
