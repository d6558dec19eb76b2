/* cudabilateral on samples deeper than 8 bits: every 10-, 12- and 16-bit
 * format in system memory against the double-precision reference (within 1
 * at 10 and 12 bits, within 16 at 16 bits), bilateral and gaussian, odd
 * sizes, padded strides and plane offsets, windows from 3 to 75 pixels;
 * OpenCV's golden pictures widened to 16 bits (v x 257), filtered and
 * narrowed back within +-1 of OpenCV's 8-bit output (bilateral, YUV 4:2:0
 * and gaussian); method=grid against the reference grid on real pictures;
 * the strength mask; alpha passing unchanged; and, with GStreamer's CUDA
 * library, cudaupload ! cudabilateral ! cudadownload giving the bytes the
 * system-memory path gives. Output buffers are poisoned first. The deep
 * frames and the check of an output against the reference are in
 * deep_support.c. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include "golden.h"
#include <cuda_runtime_api.h>

#include "deep_support.h"
#include "gpu_support.h"
#include "reference.h"

#include <math.h>

/* P010's and P012's samples are written MSB-aligned, their low bits zero,
 * as a decoder writes them (write_component). */
static const gchar *deep_formats[] = { "GRAY16_LE", "P010_10LE", "P012_LE",
  "P016_LE", "I420_10LE", "I422_10LE", "I420_12LE", "I422_12LE",
  "Y444_16LE", "Y444_10LE", "GBR_10LE", "RGBA64_LE", "BGRA64_LE",
  "BGR10A2_LE", "RGB10A2_LE"
};

/* One frame of @format through the element with @p against the
 * reference; returns the largest difference of a filtered value. */
static gint
check_against_reference (const gchar * format, gint w, gint h,
    const Params * p, gboolean padded, guint32 seed)
{
  GstHarness *harness = filter_harness_new (format, w, h, p);
  GstVideoInfo info = info_for (format, w, h);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel expected[GST_VIDEO_MAX_COMPONENTS];
  gchar *what = g_strdup_printf ("%dx%d%s %s d=%d sc=%g ss=%g", w, h,
      padded ? " padded" : "", p->gaussian ? "gaussian" : "bilateral",
      p->diameter, p->sigma_color, p->sigma_space);
  guint n = deep_channels_for_format (format, w, h, seed, in), n_expected;
  gint worst;

  filter_frame (harness, format, w, h,
      frame_from_channels (format, w, h, in, padded, seed), out);
  n_expected = channels_reference_for_format (&info, in, p, expected);
  worst = assert_deep_output (&info, out, in, expected, n_expected,
      format_tolerance (gst_video_format_from_string (format)), what, "alpha");
  channels_free (in, n);
  channels_free (out, n);
  channels_free (expected, n_expected);
  filter_harness_free (harness);
  g_free (what);
  return worst;
}

/* check_against_reference on every deep format with each of @params
 * (@n_params), 67 x 45 frames, 33 x 17 above d = 61; a frame padded
 * where its format's and parameters' indices plus @pad_phase are odd,
 * seeds @seed_step a format apart. Prints each format's largest
 * difference, @what the filter was. */
static void
check_formats (const Params * params, guint n_params, guint pad_phase,
    guint seed_step, const gchar * what)
{
  guint f, p;

  for (f = 0; f < G_N_ELEMENTS (deep_formats); f++) {
    gint worst = 0;

    for (p = 0; p < n_params; p++) {
      gboolean small = params[p].diameter > 61;

      worst = MAX (worst, check_against_reference (deep_formats[f],
              small ? 33 : 67, small ? 17 : 45, &params[p],
              (f + p + pad_phase) % 2, seed_step * f + p));
    }
    g_print ("%s: %s within %d of the reference (allowed %d)\n",
        deep_formats[f], what, worst,
        format_tolerance (gst_video_format_from_string (deep_formats[f])));
  }
}

/* Every deep format against the reference: small (3, 5), medium (9 to
 * 21: every radius of the table's taps, 4 to 7, 8, and 16-bit one
 * channel's last two, 9 and 10) and wide (31)
 * windows, one derived from sigma-space, sigmas of 0 (taken as 1,
 * sigma-color before it is scaled), and one beyond the specialised radii
 * (75: the generic kernel, on a small picture); every other frame padded. */
GST_START_TEST (test_deep_reference)
{
  static const Params params[] = { {3, 10, 2, FALSE}, {5, 30, 5, FALSE},
  {9, 40, 4, FALSE}, {15, 60, 10, FALSE}, {31, 30, 8, FALSE},
  {0, 20, 2.5, FALSE}, {-1, 0, 0, FALSE}, {75, 25, 20, FALSE},
  {11, 25, 3, FALSE}, {13, 45, 6, FALSE}, {17, 35, 7, FALSE},
  {19, 30, 6, FALSE}, {21, 40, 8, FALSE}
  };

  check_formats (params, G_N_ELEMENTS (params), 0, 100, "bilateral");
}

GST_END_TEST;

/* mode=gaussian on every deep format: OpenCV's GaussianBlur on the samples
 * (the deep reference), within the same tolerance: kernel sizes 3, 4 (made
 * 5), 15, derived from sigma-space, and 71 on a small picture. */
GST_START_TEST (test_deep_gaussian)
{
  static const Params params[] = { {3, 0, 0, TRUE}, {4, 0, 0, TRUE},
  {15, 0, 3, TRUE}, {0, 0, 4, TRUE}, {71, 0, 0, TRUE}
  };

  check_formats (params, G_N_ELEMENTS (params), 1, 200, "gaussian");
}

GST_END_TEST;

/* Channel @c of packed 8-bit pixels of @pixel_bytes bytes, widened to 16
 * bits: v x 257 spans 0 to 65535, and sigma-color scaled by 65535 / 255 =
 * 257 keeps every weight OpenCV used. */
static Channel
widen (const guint8 * pixels, gint width, gint height, gint pixel_bytes, gint c)
{
  Channel ch = channel_new (width, height, 16);
  gsize k;

  for (k = 0; k < (gsize) width * height; k++)
    ch.data[k] = pixels[k * pixel_bytes + c] * 257;
  return ch;
}

/* Back to 8 bits: / 257, rounded. */
static Channel
narrow (const Channel * ch)
{
  Channel out = channel_new (ch->width, ch->height, 8);
  gsize k;

  for (k = 0; k < (gsize) ch->width * ch->height; k++)
    out.data[k] = (guint16) ((2 * ch->data[k] + 257) / 514);
  return out;
}

/* The golden cases of @gaussian's mode widened: one channel through
 * GRAY16_LE, three through Y444_16LE and RGBA64_LE (channel c of the file
 * in component c; alpha random, to come back unchanged). Narrowed, each
 * channel within +-1 of OpenCV's. Returns the frames checked. */
static guint
check_golden_widened (gboolean gaussian)
{
  static const gchar *gray[] = { "GRAY16_LE", NULL };
  static const gchar *color[] = { "Y444_16LE", "RGBA64_LE", NULL };
  guint n_cases, i, f, c, n_checked = 0;
  GoldenCase *cases = gaussian ? golden_load_gaussian_cases (&n_cases) :
      golden_load_cases (&n_cases);

  for (i = 0; i < n_cases; i++) {
    const GoldenCase *gc = &cases[i];
    Params p = { gc->diameter, gc->sigma_color, gc->sigma_space, gaussian };
    const gchar **fmts = gc->channels == 1 ? gray : color;
    gint w, h, ch;
    guint8 *src = golden_load_pnm (gc->input, &w, &h, &ch);
    guint8 *dst = golden_load_pnm (gc->output, &w, &h, &ch);

    for (f = 0; fmts[f]; f++) {
      GstHarness *harness = filter_harness_new (fmts[f], w, h, &p);
      GstVideoInfo info = info_for (fmts[f], w, h);
      guint n = GST_VIDEO_INFO_N_COMPONENTS (&info);
      Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];

      fail_unless (n >= (guint) ch);
      for (c = 0; c < n; c++)
        in[c] = c < (guint) ch ? widen (src, w, h, ch, c) :
            deep_channel_noise (w, h, 16, i + c);
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, (i + f) % 2, i), out);
      for (c = 0; c < (guint) ch; c++) {
        Channel got = narrow (&out[c]), expected = channel_new (w, h, 8);
        gsize k;

        for (k = 0; k < (gsize) w * h; k++)
          expected.data[k] = dst[k * ch + c];
        assert_channel_matches (&got, &expected, 1, gc->name, fmts[f], c);
        channels_free (&got, 1);
        channels_free (&expected, 1);
      }
      for (c = ch; c < n; c++)
        assert_channel_matches (&out[c], &in[c], 0, "alpha", fmts[f], c);
      channels_free (in, n);
      channels_free (out, n);
      filter_harness_free (harness);
      n_checked++;
    }
    g_free (src);
    g_free (dst);
  }
  golden_free_cases (cases);
  return n_checked;
}

GST_START_TEST (test_deep_golden_widened)
{
  guint n_checked = check_golden_widened (FALSE);

  fail_unless (n_checked >= 5 * 12 * 3, "only %u frames checked", n_checked);
}

GST_END_TEST;

/* mode=gaussian: OpenCV's GaussianBlur golden cases, widened. */
GST_START_TEST (test_deep_golden_widened_gaussian)
{
  guint n_checked = check_golden_widened (TRUE);

  fail_unless (n_checked >= 5 * 11 * 3, "only %u frames checked", n_checked);
}

GST_END_TEST;

/* The 4:2:0 golden cases widened through P016_LE: each plane on its own,
 * chroma with the chroma parameters, narrowed within +-1 of OpenCV's.
 * (P010_10LE cannot hold the widened values, v x 257 has low bits; the
 * 4:2:2 deep formats hold 10 or 12 bits, which v x 257 does not fit.) */
GST_START_TEST (test_deep_golden_widened_yuv)
{
  guint n_cases, i, c, n_checked = 0;
  GoldenYuvCase *cases = golden_load_yuv_cases (&n_cases);

  for (i = 0; i < n_cases; i++) {
    const GoldenYuvCase *gc = &cases[i];
    Params p = { gc->diameter, gc->sigma_color, gc->sigma_space, FALSE };
    GstHarness *harness;
    Channel in[3], out[3];

    if (gc->subsampling != 420)
      continue;
    for (c = 0; c < 3; c++) {
      gint pw, ph, channels;
      guint8 *plane = golden_load_pnm (gc->input[c], &pw, &ph, &channels);

      fail_unless_equals_int (channels, 1);
      in[c] = widen (plane, pw, ph, 1, 0);
      g_free (plane);
    }
    harness = filter_harness_new ("P016_LE", gc->width, gc->height, &p);
    filter_frame (harness, "P016_LE", gc->width, gc->height,
        frame_from_channels ("P016_LE", gc->width, gc->height, in, i % 2, i),
        out);
    for (c = 0; c < 3; c++) {
      Channel got = narrow (&out[c]);
      Channel expected = channel_from_pgm (gc->output[c]);

      assert_channel_matches (&got, &expected, 1, gc->name, "P016_LE", c);
      channels_free (&got, 1);
      channels_free (&expected, 1);
    }
    channels_free (in, 3);
    channels_free (out, 3);
    filter_harness_free (harness);
    n_checked++;
  }
  fail_unless (n_checked >= 4 * 12, "only %u frames checked", n_checked);
  golden_free_yuv_cases (cases);
}

GST_END_TEST;

/* @v (8-bit) widened to @bits bits: v x 257 at 16 bits, else
 * v x (2^bits - 1) / 255 rounded. */
static guint16
grid_widen (guint8 v, gint bits)
{
  gint top = (1 << bits) - 1;

  return (guint16) ((2 * v * top + 255) / 510);
}

/* PSNR of @a against @b, samples of @bits bits. */
static gdouble
deep_psnr (const Channel * a, const Channel * b, gint bits)
{
  gdouble se = 0, top = (1 << bits) - 1;
  gsize k, n = (gsize) a->width * a->height;

  for (k = 0; k < n; k++) {
    gdouble d = (gdouble) a->data[k] - b->data[k];

    se += d * d;
  }
  return se == 0 ? 99 : 10 * log10 (top * top * n / se);
}

/* method=grid on deep samples against the reference grid at their depth
 * (cbf_reference_grid_deep: the range cells scaled by (2^bits - 1) / 255,
 * so that a deep frame has the 8-bit frame's cells), on the crops of
 * data/'s pictures the 8-bit grid tests use, widened (grid_widen), at
 * their sigmas: P010_10LE (astronaut.png in YUV, as test_formats makes
 * it) within 1, its planes also held to floors of PSNR against the exact
 * filter at 10 bits, about half a dB under the reference grid's and at
 * least 3 dB above the unfiltered planes' (FIGURE lines); GRAY16_LE
 * (camera.png), RGBA64_LE (astronaut.png, alpha noise that must pass
 * unchanged) and Y444_16LE (astronaut.png in YUV) within 2: a cell's sum
 * of 16-bit levels passes 2^24 at sigma-space 32, where the GPU's float
 * sums round in the order its atomics take. */
GST_START_TEST (test_deep_grid)
{
  static const gchar *fmts[] = { "P010_10LE", "GRAY16_LE", "RGBA64_LE",
    "Y444_16LE"
  };
  static const struct
  {
    gdouble sigma_space, sigma_color;
    gdouble floor[3];           /* P010_10LE's Y, U and V, dB */
  } cases[] = {
    {8, 30, {42.5, 48.0, 52.5}}, {16, 30, {41.5, 48.5, 51.5}},
    {32, 30, {40.5, 45.5, 47.0}}, {8, 60, {37.5, 47.0, 52.0}},
    {16, 60, {36.5, 47.0, 51.0}}, {32, 60, {35.0, 44.0, 46.0}},
  };
  const gint w = 256, h = 192;
  guint8 *gray = picture_crop ("camera.png", 1, 128, 96, w, h);
  guint8 *rgb = picture_crop ("astronaut.png", 3, 128, 32, w, h);
  Channel yuv[3];
  guint f, c, i;

  channels_yuv_from_rgb (rgb, w, h, yuv);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    guint n = GST_VIDEO_INFO_N_COMPONENTS (&info);
    gint bits = deep_bits (fmts[f]), tolerance = bits > 12 ? 2 : 1;
    gboolean is_yuv = GST_VIDEO_INFO_IS_YUV (&info);
    Params p = { 0, cases[0].sigma_color, cases[0].sigma_space, FALSE };
    GstHarness *harness = filter_harness_new (fmts[f], w, h, &p);
    Channel in[GST_VIDEO_MAX_COMPONENTS];
    gint worst = 0;

    gst_util_set_object_arg (G_OBJECT (harness->element), "method", "grid");
    for (c = 0; c < n; c++) {
      gint cw = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
      gint ch = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
      gsize k;

      if (is_alpha (&info, c)) {
        in[c] = deep_channel_noise (cw, ch, bits, 40 + c);
        continue;
      }
      in[c] = channel_new (cw, ch, bits);
      if (is_yuv) {
        Channel plane = channel_subsample (&yuv[c], cw, ch);

        for (k = 0; k < (gsize) cw * ch; k++)
          in[c].data[k] = grid_widen (plane.data[k], bits);
        channels_free (&plane, 1);
      } else {
        for (k = 0; k < (gsize) cw * ch; k++)
          in[c].data[k] = grid_widen (n == 1 ? gray[k] : rgb[3 * k + c], bits);
      }
    }
    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      Channel out[GST_VIDEO_MAX_COMPONENTS];
      Channel expected[GST_VIDEO_MAX_COMPONENTS];
      gchar *what = g_strdup_printf ("grid against the reference grid, "
          "sigma-space %g sigma-color %g", cases[i].sigma_space,
          cases[i].sigma_color);
      guint n_expected;

      p.sigma_space = cases[i].sigma_space;
      p.sigma_color = cases[i].sigma_color;
      params_apply (harness->element, &p);
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, i % 2, f + i), out);
      n_expected = channels_reference_grid_for_format (&info, in, &p, expected);
      worst = MAX (worst, assert_deep_output (&info, out, in, expected,
              n_expected, tolerance, what, "grid, alpha"));
      for (c = 0; c < n && g_str_equal (fmts[f], "P010_10LE"); c++) {
        /* The exact filter at 10 bits (chroma with its parameters). */
        Channel exact = channel_reference (&in[c], &p, c > 0);
        gdouble db, db_input, db_reference;

        db = deep_psnr (&out[c], &exact, bits);
        db_input = deep_psnr (&in[c], &exact, bits);
        db_reference = deep_psnr (&expected[c], &exact, bits);
        g_print ("FIGURE grid astronaut.png %dx%d P010_10LE plane %c "
            "sigma-space %g sigma-color %g: %.2f dB against the exact filter "
            "(floor %.1f; unfiltered input %.2f dB; reference grid %.2f "
            "dB)\n", w, h, "YUV"[c], p.sigma_space, p.sigma_color, db,
            cases[i].floor[c], db_input, db_reference);
        fail_unless (db >= cases[i].floor[c] && cases[i].floor[c] >=
            db_input + 3, "P010_10LE plane %u, %s: the grid %.2f dB against "
            "the exact filter, its floor %.1f, the unfiltered input %.2f dB",
            c, what, db, cases[i].floor[c], db_input);
        channels_free (&exact, 1);
      }
      channels_free (out, n);
      channels_free (expected, n_expected);
      g_free (what);
    }
    g_print ("grid, %s: within %d of the reference grid (allowed %d)\n",
        fmts[f], worst, tolerance);
    channels_free (in, n);
    filter_harness_free (harness);
  }
  channels_free (yuv, 3);
  g_free (gray);
  g_free (rgb);
}

GST_END_TEST;

/* Whether @out is the blend of @in and @filtered by the mask's level at
 * the pixel: the reference scales the mask in double (@level, unrounded)
 * and the element in 11-bit fixed point, which may come out one mask
 * level apart, so any level within one of the rounded @level is taken (at
 * 16 bits one mask level moves an output by up to 257). */
static gboolean
deep_blend_matches (guint16 out, guint16 in, guint16 filtered, gdouble level)
{
  gint m = (gint) floor (level + 0.5), k;

  for (k = MAX (m - 1, 0); k <= MIN (m + 1, 255); k++)
    if (out == cbf_reference_mask_blend (in, filtered, k))
      return TRUE;
  return FALSE;
}

/* A strength mask on deep formats, one component at a time (P010_10LE,
 * I420_10LE: chroma blended with the mask scaled to chroma's size) and
 * colour (RGBA64_LE, BGR10A2_LE: alpha unchanged): the blend of the input
 * and the same element's unmasked output by the reference's mask, at a
 * level within one of it (deep_blend_matches). */
GST_START_TEST (test_deep_mask)
{
  static const gchar *fmts[] = { "P010_10LE", "I420_10LE", "RGBA64_LE",
    "BGR10A2_LE"
  };
  Params p = { 9, 30, 4, FALSE };
  const gint w = 97, h = 61, mask_w = 20, mask_h = 11;
  guint8 *mask = g_malloc (mask_w * mask_h);
  gchar *path = g_build_filename (g_get_tmp_dir (), "cbf-mask-deep.png",
      NULL);
  guint f, c;
  gint i, x, y;

  for (i = 0; i < mask_w * mask_h; i++)
    mask[i] = (guint8) ((i % mask_w) * 13 + (i / mask_w) * 7);
  write_gray_png (path, mask, mask_w, mask_h);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *plain = filter_harness_new (fmts[f], w, h, &p);
    GstHarness *masked = filter_harness_new (fmts[f], w, h, &p);
    GstVideoInfo info = info_for (fmts[f], w, h);
    Channel in[GST_VIDEO_MAX_COMPONENTS];
    Channel plain_out[GST_VIDEO_MAX_COMPONENTS];
    Channel masked_out[GST_VIDEO_MAX_COMPONENTS];
    guint n;

    g_object_set (masked->element, "mask-location", path, NULL);
    n = deep_channels_for_format (fmts[f], w, h, 90 + f, in);
    filter_frame (plain, fmts[f], w, h,
        frame_from_channels (fmts[f], w, h, in, FALSE, 1), plain_out);
    filter_frame (masked, fmts[f], w, h,
        frame_from_channels (fmts[f], w, h, in, TRUE, 2), masked_out);
    for (c = 0; c < n; c++) {
      const Channel *out = &masked_out[c];

      if (is_alpha (&info, c)) {
        assert_channel_matches (out, &in[c], 0, "masked, alpha", fmts[f], c);
        continue;
      }
      for (y = 0; y < out->height; y++)
        for (x = 0; x < out->width; x++) {
          gint k = y * out->width + x;
          gdouble level = cbf_reference_mask_level (mask, mask_w, mask_w,
              mask_h, out->width, out->height, x, y);

          fail_unless (deep_blend_matches (out->data[k], in[c].data[k],
                  plain_out[c].data[k], level), "masked %s component %u at "
              "%d,%d: %u, not the blend of %u and %u by a mask level within "
              "one of %.3f", fmts[f], c, x, y, out->data[k], in[c].data[k],
              plain_out[c].data[k], level);
        }
    }
    channels_free (in, n);
    channels_free (plain_out, n);
    channels_free (masked_out, n);
    filter_harness_free (plain);
    filter_harness_free (masked);
  }
  g_unlink (path);
  g_free (path);
  g_free (mask);
}

GST_END_TEST;

/* P010_10LE and P012_LE from a source that leaves noise in the bits below
 * its samples: the element filters the samples alone, so that the output
 * is the one of the same frame with those bits clear, and writes them
 * zero (read_component fails on a bit set there). */
GST_START_TEST (test_deep_low_bits)
{
  static const gchar *fmts[] = { "P010_10LE", "P012_LE" };
  Params p = { 15, 30, 5, FALSE };
  const gint w = 97, h = 61;
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *harness = filter_harness_new (fmts[f], w, h, &p);
    GstVideoInfo info = info_for (fmts[f], w, h);
    Channel in[3], clean[3], noisy[3];
    GRand *rand = g_rand_new_with_seed (70 + f);
    GstVideoFrame frame;
    GstBuffer *buf;
    guint n = deep_channels_for_format (fmts[f], w, h, 60 + f, in), pl;

    filter_frame (harness, fmts[f], w, h,
        frame_from_channels (fmts[f], w, h, in, FALSE, 1), clean);
    buf = frame_from_channels (fmts[f], w, h, in, FALSE, 1);
    fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
    for (pl = 0; pl < GST_VIDEO_FRAME_N_PLANES (&frame); pl++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS], x, y;
      guint below, words;

      gst_video_format_info_component (info.finfo, pl, comp);
      below = (1u << GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, comp[0])) - 1;
      words = GST_VIDEO_INFO_COMP_WIDTH (&info, comp[0]) *
          GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp[0]) / 2;
      fail_unless (below != 0, "%s has no bits below its samples", fmts[f]);
      for (y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]); y++) {
        guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, pl) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, pl);

        for (x = 0; x < (gint) words; x++)
          GST_WRITE_UINT16_LE (row + 2 * x, GST_READ_UINT16_LE (row + 2 * x)
              | (g_rand_int (rand) & below));
      }
    }
    gst_video_frame_unmap (&frame);
    filter_frame (harness, fmts[f], w, h, buf, noisy);
    for (c = 0; c < n; c++)
      assert_channel_matches (&noisy[c], &clean[c], 0,
          "noise below the samples", fmts[f], c);
    g_rand_free (rand);
    channels_free (in, n);
    channels_free (clean, n);
    channels_free (noisy, n);
    filter_harness_free (harness);
  }
}

GST_END_TEST;

/* LSB-aligned samples of 10 and 12 bits from a source that sets bits above
 * them (a mislabelled MSB-aligned source, a faulty decoder, rawvideoparse
 * on an untrusted file): every mode and method reads a sample's own bits
 * only, so that the output is the clean frame's, within the samples'
 * depth, and nothing outside the grid's buffers is touched. A strength
 * mask with no 0 (which passes the input as it came) blends the sample as
 * the filter reads it. */
GST_START_TEST (test_deep_high_bits)
{
  static const gchar *fmts[] = { "I420_10LE", "I422_10LE", "I420_12LE",
    "I422_12LE", "Y444_10LE", "GBR_10LE"
  };
  static const struct
  {
    const gchar *what;
    Params p;
    const gchar *method;
    gboolean mask;
  } modes[] = {
    {"exact d=15", {15, 30, 5, FALSE}, "exact", FALSE},
    {"exact d=31", {31, 30, 8, FALSE}, "exact", FALSE},
    {"gaussian", {15, 0, 4, TRUE}, "exact", FALSE},
    {"grid", {0, 10, 12, FALSE}, "grid", FALSE},
    {"grid, masked", {0, 75, 8, FALSE}, "grid", TRUE},
    {"exact, masked", {9, 30, 4, FALSE}, "exact", TRUE},
  };
  const gint w = 97, h = 61, mask_w = 20, mask_h = 11;
  guint8 *mask = g_malloc (mask_w * mask_h);
  gchar *path = g_build_filename (g_get_tmp_dir (), "cbf-mask-high-bits.png",
      NULL);
  guint f, m, c;
  gint i;

  for (i = 0; i < mask_w * mask_h; i++)
    mask[i] = (guint8) (1 + (i * 37) % 255);
  write_gray_png (path, mask, mask_w, mask_h);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    guint above = 0xffffu & ~((1u << deep_bits (fmts[f])) - 1);

    for (m = 0; m < G_N_ELEMENTS (modes); m++) {
      GstHarness *harness = filter_harness_new (fmts[f], w, h, &modes[m].p);
      Channel in[3], clean[3], faulty[3];
      GRand *rand = g_rand_new_with_seed (170 + 10 * f + m);
      GstVideoFrame frame;
      GstBuffer *buf;
      guint n = deep_channels_for_format (fmts[f], w, h, 160 + f, in), pl;

      gst_util_set_object_arg (G_OBJECT (harness->element), "method",
          modes[m].method);
      if (modes[m].mask)
        g_object_set (harness->element, "mask-location", path, NULL);
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, FALSE, 1), clean);
      buf = frame_from_channels (fmts[f], w, h, in, FALSE, 1);
      fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
      for (pl = 0; pl < GST_VIDEO_FRAME_N_PLANES (&frame); pl++) {
        gint comp[GST_VIDEO_MAX_COMPONENTS], x, y;
        gint words;

        gst_video_format_info_component (info.finfo, pl, comp);
        words = GST_VIDEO_INFO_COMP_WIDTH (&info, comp[0]) *
            GST_VIDEO_INFO_COMP_PSTRIDE (&info, comp[0]) / 2;
        for (y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]); y++) {
          guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, pl) +
              (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, pl);

          /* All of them set in the first row, so that the largest value
           * a container holds is there. */
          for (x = 0; x < words; x++)
            GST_WRITE_UINT16_LE (row + 2 * x, GST_READ_UINT16_LE (row + 2 * x)
                | (y == 0 ? above : g_rand_int (rand) & above));
        }
      }
      gst_video_frame_unmap (&frame);
      filter_frame (harness, fmts[f], w, h, buf, faulty);
      for (c = 0; c < n; c++)
        assert_channel_matches (&faulty[c], &clean[c], 0,
            modes[m].what, fmts[f], c);
      g_rand_free (rand);
      channels_free (in, n);
      channels_free (clean, n);
      channels_free (faulty, n);
      filter_harness_free (harness);
    }
  }
  g_unlink (path);
  g_free (path);
  g_free (mask);
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
/* Whether a pad template of @direction of the element @factory_name
 * accepts @caps. */
static gboolean
template_accepts (const gchar * factory_name, GstPadDirection direction,
    GstCaps * caps)
{
  GstElementFactory *factory = gst_element_factory_find (factory_name);
  const GList *l;
  gboolean accepts = FALSE;

  if (!factory)
    return FALSE;
  for (l = gst_element_factory_get_static_pad_templates (factory); l;
      l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *template_caps;

    if (t->direction != direction)
      continue;
    template_caps = gst_static_pad_template_get_caps (t);
    accepts |= gst_caps_can_intersect (template_caps, caps);
    gst_caps_unref (template_caps);
  }
  gst_object_unref (factory);
  return accepts;
}

/* Whether cudaupload and cudadownload of the GStreamer running the test
 * move @format between system and CUDA memory: their list of formats grew
 * between releases (1.22's has neither GRAY16_LE nor the 64-bit RGB
 * formats), so it is read from their pad templates, not assumed. */
static gboolean
cuda_elements_take (const gchar * format)
{
  GstCaps *sys = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, NULL);
  GstCaps *cuda = gst_caps_copy (sys);
  gboolean take;

  gst_caps_set_features (cuda, 0, gst_caps_features_new ("memory:CUDAMemory",
          NULL));
  take = template_accepts ("cudaupload", GST_PAD_SINK, sys)
      && template_accepts ("cudaupload", GST_PAD_SRC, cuda)
      && template_accepts ("cudadownload", GST_PAD_SINK, cuda)
      && template_accepts ("cudadownload", GST_PAD_SRC, sys);
  gst_caps_unref (sys);
  gst_caps_unref (cuda);
  return take;
}

/* cudaupload ! cudabilateral name=f ! cudadownload, CUDA caps forced on
 * both sides of the filter (filter_harness_full). */
static GstHarness *
cuda_harness_new (const gchar * format, gint width, gint height,
    const Params * p)
{
  return filter_harness_full (format, width, height, "cudabilateral name=f",
      filter_setup_params, p, NULL);
}

/* The filter in @h negotiated CUDA memory. */
static void
assert_filter_in_cuda_memory (GstHarness * h, const gchar * format)
{
  GstElement *filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
  GstPad *pad = gst_element_get_static_pad (filter, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);

  fail_unless (caps != NULL, "%s: no caps", format);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          "memory:CUDAMemory"), "%s: negotiated %" GST_PTR_FORMAT, format,
      caps);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (filter);
}

/* Every deep format cudaupload and cudadownload take, filtered in CUDA
 * memory: the very bytes of the system-memory path, every component (alpha
 * included), an odd size with padded input and a larger one with a window
 * of the generic kernel. */
GST_START_TEST (test_deep_cuda_memory)
{
  static const struct
  {
    Params p;
    gint width, height;
    gboolean padded;
  } runs[] = { {{9, 30, 4, FALSE}, 97, 61, TRUE},
  {{71, 25, 12, FALSE}, 160, 90, FALSE}
  };
  guint f, r, c, n_run = 0;
  for (f = 0; f < G_N_ELEMENTS (deep_formats); f++) {
    const gchar *format = deep_formats[f];

    if (!cuda_elements_take (format)) {
      g_print ("%s: not in cudaupload's and cudadownload's formats here, "
          "not run in CUDA memory\n", format);
      continue;
    }
    for (r = 0; r < G_N_ELEMENTS (runs); r++) {
      gint w = runs[r].width, h = runs[r].height;
      GstHarness *cuda = cuda_harness_new (format, w, h, &runs[r].p);
      GstHarness *sys = filter_harness_new (format, w, h, &runs[r].p);
      Channel in[GST_VIDEO_MAX_COMPONENTS];
      Channel cuda_out[GST_VIDEO_MAX_COMPONENTS];
      Channel sys_out[GST_VIDEO_MAX_COMPONENTS];
      guint n = deep_channels_for_format (format, w, h, 300 + 10 * f + r, in);

      push_and_read_channels (cuda, format, w, h,
          frame_from_channels (format, w, h, in, runs[r].padded, f), cuda_out);
      assert_filter_in_cuda_memory (cuda, format);
      filter_frame (sys, format, w, h,
          frame_from_channels (format, w, h, in, runs[r].padded, f), sys_out);
      for (c = 0; c < n; c++)
        assert_channel_matches (&cuda_out[c], &sys_out[c], 0,
            "CUDA memory against system memory", format, c);
      channels_free (in, n);
      channels_free (cuda_out, n);
      channels_free (sys_out, n);
      filter_harness_free (cuda);
      filter_harness_free (sys);
    }
    n_run++;
  }
  fail_unless (n_run > 0, "no deep format went through CUDA memory");
}

GST_END_TEST;
#endif

static Suite *
deep_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-deep", 600, &tc);

  tcase_add_test (tc, test_deep_reference);
  tcase_add_test (tc, test_deep_gaussian);
  tcase_add_test (tc, test_deep_golden_widened);
  tcase_add_test (tc, test_deep_golden_widened_gaussian);
  tcase_add_test (tc, test_deep_golden_widened_yuv);
  tcase_add_test (tc, test_deep_grid);
  tcase_add_test (tc, test_deep_mask);
  tcase_add_test (tc, test_deep_low_bits);
  tcase_add_test (tc, test_deep_high_bits);
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_deep_cuda_memory);
#endif
  return s;
}

#if CBF_HAVE_CUDA_MEMORY
TEST_MAIN (deep_suite, TEST_NEEDS_GPU, "cudaupload", "cudadownload", NULL);
#else
TEST_MAIN (deep_suite, TEST_NEEDS_GPU, NULL);
#endif
