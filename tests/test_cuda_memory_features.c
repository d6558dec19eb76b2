/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral's other features on frames in CUDA memory (cudaupload !
 * cudabilateral ! cudadownload, CUDA caps forced): mode=gaussian,
 * method=grid, a strength mask and filter-chroma=false give the bytes of
 * the system-memory path, and the reference where there is one; the
 * temporal filter, which keeps the previous output on the GPU between
 * frames that leave with their work pending, within the tolerance of the
 * reference given that output; and temporal-motion=compensated giving the
 * output of system memory cut into bands. The CUDA-memory path itself is
 * tested in test_cuda_memory. Exits 77 without a CUDA device or without
 * GStreamer's cudaupload and cudadownload. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cuda_memory_support.h"
#include "gpu_support.h"

/* What a setup of test_cuda_memory_modes sets beyond the parameters. */
typedef struct
{
  const gchar *what;
  Params p;
  const gchar *method;
  gboolean filter_chroma;
  gboolean mask;
} ModeSetup;

static void
apply_setup (GstElement * filter, const ModeSetup * setup,
    const gchar * mask_path)
{
  params_apply (filter, &setup->p);
  gst_util_set_object_arg (G_OBJECT (filter), "method", setup->method);
  g_object_set (filter, "filter-chroma", setup->filter_chroma,
      "mask-location", setup->mask ? mask_path : NULL, NULL);
}

/* The blend the README documents: in + (filtered - in) m / 255, rounded to
 * the nearest (255 is odd: no value lies halfway). */
static guint8
mask_blend (guint8 in, guint8 filtered, guint8 m)
{
  return (guint8) ((gint) in + (gint) lround (((gint) filtered - (gint) in) *
          m / 255.0));
}

/* mode=gaussian, method=grid, a strength mask and filter-chroma=false on
 * frames in CUDA memory (cudaupload ! cudabilateral ! cudadownload, CUDA
 * caps forced): every component the very bytes of the system-memory path,
 * and the reference where there is one: the Gaussian's within +-1; with
 * the mask (of the frame's size, so not scaled for luma and RGB), the
 * blend of the input and the reference by it within +-1 on luma and RGB;
 * with filter-chroma=false, luma the reference's within +-1 and chroma
 * the input's exactly. The grid is held to the system-memory path only. */
GST_START_TEST (test_cuda_memory_modes)
{
  static const gchar *fmts[] = { "NV12", "I420", "RGBA" };
  static const ModeSetup setups[] = {
    {"mode=gaussian", {.diameter = 9,.sigma_space = 2,.gaussian = TRUE},
        "exact", TRUE, FALSE},
    {"method=grid", {.diameter = 9,.sigma_color = 30,.sigma_space = 12},
        "grid", TRUE, FALSE},
    {"strength mask", {.diameter = 9,.sigma_color = 30,.sigma_space = 3},
        "exact", TRUE, TRUE},
    {"filter-chroma=false", {.diameter = 9,.sigma_color = 30,
            .sigma_space = 3}, "exact", FALSE, FALSE},
  };
  const gint w = 97, h = 61;
  guint8 *mask = g_malloc ((gsize) w * h);
  gchar *name = g_strdup_printf ("cbf-cuda-memory-mask-%d.png",
      (int) getpid ());
  gchar *mask_path = g_build_filename (g_get_tmp_dir (), name, NULL);
  guint f, s, c, n_checked = 0;
  gint x, y;

  /* A gradient, inverted every eight rows: 0 and 255 both occur. */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      mask[y * w + x] = (guint8) ((x * 255 / (w - 1)) ^ (y & 8 ? 0xff : 0));
  write_gray_png (mask_path, mask, w, h);

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (s = 0; s < G_N_ELEMENTS (setups); s++) {
      const ModeSetup *setup = &setups[s];
      GstVideoInfo info = info_for (fmts[f], w, h);
      guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), n_expected;
      gboolean yuv = GST_VIDEO_INFO_IS_YUV (&info);
      GstHarness *cuda = cuda_harness_new (fmts[f], w, h, &setup->p,
          "cudabilateral name=f");
      GstHarness *sys = gst_harness_new ("cudabilateral");
      GstElement *filter = filter_named (cuda, "f");
      Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
      Channel sys_out[GST_VIDEO_MAX_COMPONENTS];
      Channel expected[GST_VIDEO_MAX_COMPONENTS];
      gchar *what = g_strdup_printf ("CUDA memory, %s", setup->what);

      apply_setup (filter, setup, mask_path);
      apply_setup (sys->element, setup, mask_path);
      gst_harness_set_caps (sys, caps_for (fmts[f], w, h), caps_for (fmts[f],
              w, h));
      channels_for_format (fmts[f], w, h, 900 + 10 * f + s, in);
      push_and_read_channels (cuda, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, TRUE, s), out);
      assert_cuda_caps (filter);
      filter_frame (sys, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, FALSE, s), sys_out);
      for (c = 0; c < n; c++)
        assert_channel_matches (&out[c], &sys_out[c], 0,
            "CUDA memory against system memory", fmts[f], c);

      n_expected = channels_reference_for_format (&info, in, &setup->p,
          expected);
      fail_unless_equals_int (n_expected, 3);
      for (c = 0; c < n_expected && !g_str_equal (setup->method, "grid"); c++) {
        if (c > 0 && yuv && !setup->filter_chroma) {
          assert_channel_matches (&out[c], &in[c], 0, what, fmts[f], c);
        } else if (setup->mask) {
          Channel blended;
          gsize k;

          /* Chroma's mask is scaled to its size: the system-memory path
           * above holds it. */
          if (c > 0 && yuv)
            continue;
          blended = channel_new (in[c].width, in[c].height, 8);
          for (k = 0; k < (gsize) w * h; k++)
            blended.data[k] = mask_blend (in[c].data[k], expected[c].data[k],
                mask[k]);
          assert_channel_matches (&out[c], &blended, 1, what, fmts[f], c);
          channels_free (&blended, 1);
        } else {
          assert_channel_matches (&out[c], &expected[c], 1, what, fmts[f], c);
        }
      }
      for (c = n_expected; c < n; c++)
        assert_channel_matches (&out[c], &in[c], 0, "alpha", fmts[f], c);
      n_checked++;

      channels_free (in, n);
      channels_free (out, n);
      channels_free (sys_out, n);
      channels_free (expected, n_expected);
      gst_object_unref (filter);
      gst_harness_teardown (cuda);
      gst_harness_teardown (sys);
      g_free (what);
    }
  fail_unless_equals_int (n_checked, G_N_ELEMENTS (fmts) *
      G_N_ELEMENTS (setups));
  g_unlink (mask_path);
  g_free (mask_path);
  g_free (name);
  g_free (mask);
}

GST_END_TEST;

/* @base's @n channels moved @shift luma pixels right (wrapping; each
 * channel by its share of the frame's width @w) under noise of up to +-20
 * 8-bit levels from @rand, scaled to their bits, into @in. */
static void
moving_frame (const Channel * base, guint n, gint w, gint shift, GRand * rand,
    Channel * in)
{
  guint c;
  gsize k;

  for (c = 0; c < n; c++) {
    gint top = (1 << base[c].bits) - 1, cw = base[c].width;
    gint s = shift * cw / w;

    in[c] = channel_new (cw, base[c].height, base[c].bits);
    for (k = 0; k < (gsize) cw * base[c].height; k++) {
      gint x = k % cw, row = k / cw;
      gint v = base[c].data[row * cw + ((x - s) % cw + cw) % cw] +
          g_rand_int_range (rand, -20, 21) * top / 255;

      in[c].data[k] = (guint16) CLAMP (v, 0, top);
    }
  }
}

/* The temporal filter in CUDA memory: each frame of a still picture under
 * fresh noise, then a moving one, within +-1 (16-bit: the temporal
 * tolerance) of the reference given the previous output, which the
 * element keeps on the GPU between frames that leave with their work
 * pending. */
GST_START_TEST (test_cuda_memory_temporal)
{
  static const gchar *fmts[] = { "NV12", "RGBA", "I420", "P010_10LE" };
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  const gint w = 96, h = 64;
  guint f, i, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *harness = cuda_harness_new (fmts[f], w, h, &p,
        "cudabilateral name=f temporal-strength=0.8 temporal-sigma=10");
    GstVideoInfo info = info_for (fmts[f], w, h);
    guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), moved = 0, n_filtered = 0;
    gint tol = format_bits (GST_VIDEO_INFO_FORMAT (&info)) == 16 ? 24 : 1;
    Channel base[GST_VIDEO_MAX_COMPONENTS], prev[GST_VIDEO_MAX_COMPONENTS];
    GstElement *filter;

    channels_for_format (fmts[f], w, h, 11 + f, base);
    for (i = 0; i < 6; i++) {
      Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
      Channel expected[GST_VIDEO_MAX_COMPONENTS];
      Channel spatial[GST_VIDEO_MAX_COMPONENTS];
      GRand *rand = g_rand_new_with_seed (500 + i);
      gsize k;

      moving_frame (base, n, w, i < 4 ? 0 : 2 * (gint) i, rand, in);
      g_rand_free (rand);
      push_and_read_channels (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, FALSE, i), out);
      n_filtered = channels_temporal_for_format (&info, in, i ? prev : NULL,
          &p, FALSE, 0.8, 10, expected);
      channels_temporal_for_format (&info, in, NULL, &p, FALSE, 0.8, 10,
          spatial);
      for (c = 0; c < n_filtered; c++) {
        assert_channel_matches (&out[c], &expected[c], tol,
            "cudaupload ! cudabilateral temporal ! cudadownload", fmts[f], c);
        for (k = 0; k < (gsize) out[c].width * out[c].height; k++)
          moved += ABS ((gint) expected[c].data[k] - spatial[c].data[k]) > tol;
      }
      if (i)
        channels_free (prev, n);
      memcpy (prev, out, sizeof (Channel) * n);
      channels_free (in, n);
      channels_free (expected, n_filtered);
      channels_free (spatial, n_filtered);
    }
    fail_unless (moved > 0, "%s: no output moved by the temporal filter",
        fmts[f]);
    filter = filter_named (harness, "f");
    assert_cuda_caps (filter);
    gst_object_unref (filter);
    channels_free (prev, n);
    channels_free (base, n);
    gst_harness_teardown (harness);
  }
}

GST_END_TEST;

/* temporal-motion=compensated in CUDA memory (whole frames) and in system
 * memory (frames cut into bands, GST_CBF_BAND_BYTES=1): the same output,
 * frame by frame, on a picture moving under fresh noise; and not the
 * spatial result once a previous frame is there. */
GST_START_TEST (test_cuda_memory_compensated)
{
  static const gchar *fmts[] = { "NV12", "RGBA", "I420", "BGRx",
    "P010_10LE"
  };
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  const gchar *props = "temporal-strength=0.9 temporal-sigma=8 "
      "temporal-motion=compensated";
  const gint w = 96, h = 64;
  guint f, i, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    gchar *desc = g_strdup_printf ("cudabilateral name=f %s", props);
    GstHarness *cuda = cuda_harness_new (fmts[f], w, h, &p, desc);
    GstHarness *sys = filter_harness_new (fmts[f], w, h, &p);
    GstHarness *spatial = filter_harness_new (fmts[f], w, h, &p);
    GstVideoInfo info = info_for (fmts[f], w, h);
    guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), moved = 0;
    Channel base[GST_VIDEO_MAX_COMPONENTS];
    GstElement *filter;

    gst_util_set_object_arg (G_OBJECT (sys->element), "temporal-motion",
        "compensated");
    g_object_set (sys->element, "temporal-strength", 0.9, "temporal-sigma",
        8.0, NULL);
    channels_for_format (fmts[f], w, h, 31 + f, base);
    for (i = 0; i < 5; i++) {
      Channel in[GST_VIDEO_MAX_COMPONENTS], a[GST_VIDEO_MAX_COMPONENTS];
      Channel b[GST_VIDEO_MAX_COMPONENTS], s[GST_VIDEO_MAX_COMPONENTS];
      GRand *rand = g_rand_new_with_seed (700 + i);
      gsize k;

      moving_frame (base, n, w, 2 * (gint) i, rand, in);
      g_rand_free (rand);
      push_and_read_channels (cuda, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, FALSE, i), a);
      push_and_read_channels (sys, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, FALSE, i), b);
      push_and_read_channels (spatial, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, FALSE, i), s);
      for (c = 0; c < n; c++) {
        assert_channel_matches (&a[c], &b[c], 0,
            "compensated, CUDA memory against system memory in bands",
            fmts[f], c);
        for (k = 0; k < (gsize) a[c].width * a[c].height; k++)
          moved += ABS ((gint) a[c].data[k] - s[c].data[k]) > 1;
      }
      channels_free (in, n);
      channels_free (a, n);
      channels_free (b, n);
      channels_free (s, n);
    }
    fail_unless (moved > 0, "%s: compensated moved no output", fmts[f]);
    filter = filter_named (cuda, "f");
    assert_cuda_caps (filter);
    gst_object_unref (filter);
    channels_free (base, n);
    gst_harness_teardown (cuda);
    filter_harness_free (sys);
    filter_harness_free (spatial);
    g_free (desc);
  }
}

GST_END_TEST;

static Suite *
cuda_memory_features_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-cuda-memory-features", 600, &tc);

  tcase_add_test (tc, test_cuda_memory_modes);
  tcase_add_test (tc, test_cuda_memory_temporal);
  tcase_add_test (tc, test_cuda_memory_compensated);
  return s;
}

TEST_MAIN (cuda_memory_features_suite, TEST_NEEDS_GPU, "cudaupload",
    "cudadownload", NULL);
