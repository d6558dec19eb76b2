/* cudabilateral on a GPU, the formats beyond 32-bit RGB and GRAY8: packed
 * 24-bit RGB/BGR and planar Y444 (three channels together), and the
 * chroma-subsampled I420, YV12, NV12, NV21, YUY2 and UYVY (each channel on
 * its own, chroma with the scaled parameters). Every channel of the output
 * is compared with OpenCV's golden files (or the C reference for sizes
 * without one) within +-1. Input frames have padded strides and plane
 * offsets (GstVideoAlignment, carried by a video meta); output buffers are
 * poisoned first. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "golden.h"
#include "gpu_support.h"
#include <glib/gstdio.h>
#include <math.h>
#include "reference.h"

static const gchar *formats_420[] = { "I420", "YV12", "NV12", "NV21" };
static const gchar *formats_422[] = { "YUY2", "UYVY" };
static const gchar *formats_rgb3[] = { "RGB", "BGR", "Y444" };

static GstHarness *
harness_new (const gchar * format, gint width, gint height, const Params * p)
{
  GstHarness *h = gst_harness_new ("cudabilateral");

  params_apply (h->element, p);
  gst_harness_set_caps (h, caps_for (format, width, height),
      caps_for (format, width, height));
  return h;
}

/* Every YUV golden case through every format of its subsampling, every
 * other one with padded rows and plane offsets. */
GST_START_TEST (test_golden_yuv)
{
  guint n_cases, i, f, c, n_checked = 0;
  GoldenYuvCase *cases = golden_load_yuv_cases (&n_cases);

  for (i = 0; i < n_cases; i++) {
    const GoldenYuvCase *gc = &cases[i];
    const gchar **fmts = gc->subsampling == 420 ? formats_420 : formats_422;
    guint n_fmts = gc->subsampling == 420 ? G_N_ELEMENTS (formats_420) :
        G_N_ELEMENTS (formats_422);
    Params p = { gc->diameter, gc->sigma_color, gc->sigma_space, FALSE };
    Channel in[3], expected[3];

    for (c = 0; c < 3; c++) {
      in[c] = channel_from_pgm (gc->input[c]);
      expected[c] = channel_from_pgm (gc->output[c]);
    }
    for (f = 0; f < n_fmts; f++) {
      GstHarness *h = harness_new (fmts[f], gc->width, gc->height, &p);
      Channel out[3];

      filter_frame (h, fmts[f], gc->width, gc->height,
          frame_from_channels (fmts[f], gc->width, gc->height, in,
              (i + f) % 2, i), out);
      for (c = 0; c < 3; c++)
        assert_channel_matches (&out[c], &expected[c], 1, gc->name, fmts[f], c);
      channels_free (out, 3);
      gst_harness_teardown (h);
      n_checked++;
    }
    channels_free (in, 3);
    channels_free (expected, 3);
  }
  fail_unless (n_checked >= 8 * 9 * 3, "only %u YUV frames checked", n_checked);
  golden_free_yuv_cases (cases);
}

GST_END_TEST;

/* OpenCV's 3-channel cases through RGB, BGR and Y444: channel c of the
 * golden file is component c (R, G, B or Y, U, V) of the frame; the filter
 * is symmetric in the channels' order. */
/* The 3-channel golden cases of @gaussian's mode through RGB, BGR and
 * Y444. Returns the frames checked. */
static guint
check_golden_rgb3 (gboolean gaussian)
{
  guint n_cases, i, f, c, n_checked = 0;
  GoldenCase *cases = gaussian ? golden_load_gaussian_cases (&n_cases) :
      golden_load_cases (&n_cases);

  for (i = 0; i < n_cases; i++) {
    const GoldenCase *gc = &cases[i];
    Params p = { gc->diameter, gc->sigma_color, gc->sigma_space, gaussian };
    Channel in[3], expected[3];
    guint8 *src, *dst;
    gint w, h, ch, x;

    if (gc->channels != 3)
      continue;
    src = golden_load_pnm (gc->input, &w, &h, &ch);
    dst = golden_load_pnm (gc->output, &w, &h, &ch);
    for (c = 0; c < 3; c++) {
      in[c] = channel_new (w, h, 8);
      expected[c] = channel_new (w, h, 8);
      for (x = 0; x < w * h; x++) {
        in[c].data[x] = src[x * 3 + c];
        expected[c].data[x] = dst[x * 3 + c];
      }
    }
    for (f = 0; f < G_N_ELEMENTS (formats_rgb3); f++) {
      GstHarness *harness = harness_new (formats_rgb3[f], w, h, &p);
      Channel out[3];

      filter_frame (harness, formats_rgb3[f], w, h,
          frame_from_channels (formats_rgb3[f], w, h, in, (i + f) % 2, i), out);
      for (c = 0; c < 3; c++)
        assert_channel_matches (&out[c], &expected[c], 1, gc->name,
            formats_rgb3[f], c);
      channels_free (out, 3);
      gst_harness_teardown (harness);
      n_checked++;
    }
    channels_free (in, 3);
    channels_free (expected, 3);
    g_free (src);
    g_free (dst);
  }
  golden_free_cases (cases);
  return n_checked;
}

GST_START_TEST (test_golden_rgb3)
{
  guint n_checked = check_golden_rgb3 (FALSE);

  fail_unless (n_checked >= 5 * 9 * 3, "only %u frames checked", n_checked);
}

GST_END_TEST;

/* mode=gaussian: OpenCV's GaussianBlur golden cases (3 channels). */
GST_START_TEST (test_golden_gaussian_rgb3)
{
  guint n_checked = check_golden_rgb3 (TRUE);

  fail_unless (n_checked >= 5 * 11 * 3, "only %u frames checked", n_checked);
}

GST_END_TEST;

/* Sizes the golden set lacks: degenerate and larger ones (YUY2 and UYVY,
 * one plane, are cut into bands), specialised and generic radii for luma
 * and chroma, against the C reference. */
GST_START_TEST (test_yuv_sizes_and_radii)
{
  static const struct
  {
    const gchar *format;
    gint width, height;
  } frames[] = { {"YUY2", 131, 67}, {"UYVY", 200, 300}, {"NV21", 33, 9},
  {"I420", 1, 500}, {"NV12", 500, 1}, {"YV12", 130, 67}, {"NV12", 2, 2}
  };
  /* Luma radius 7 and chroma 3 (specialised), luma 35 and chroma 17
   * (generic), luma 1 and chroma 1, luma 20 (wide) and chroma 10 (one
   * channel's specialised kernel, both planes in one launch). */
  static const Params params[] = { {15, 40, 10, FALSE}, {71, 25, 12, FALSE},
  {2, 30, 3, FALSE}, {41, 35, 14, FALSE},
  /* Gaussian: ksize 15 (chroma 7), 71 (35), derived from sigma 4 (chroma 2) */
  {15, 0, 3, TRUE}, {71, 0, 0, TRUE}, {0, 0, 4, TRUE}
  };
  guint i, p, c;

  for (i = 0; i < G_N_ELEMENTS (frames); i++)
    for (p = 0; p < G_N_ELEMENTS (params); p++) {
      const gchar *fmt = frames[i].format;
      gint w = frames[i].width, h = frames[i].height;
      GstHarness *harness = harness_new (fmt, w, h, &params[p]);
      Channel in[3], out[3];

      channels_for_format (fmt, w, h, 10 * i + p, in);
      filter_frame (harness, fmt, w, h,
          frame_from_channels (fmt, w, h, in, p % 2, i), out);
      for (c = 0; c < 3; c++) {
        Channel expected = channel_reference (&in[c], &params[p], c > 0);
        gchar *what = g_strdup_printf ("%s d=%d sc=%g ss=%g",
            params[p].gaussian ? "gaussian" : "bilateral", params[p].diameter,
            params[p].sigma_color, params[p].sigma_space);

        assert_channel_matches (&out[c], &expected, 1, what, fmt, c);
        g_free (what);
        channels_free (&expected, 1);
      }
      channels_free (in, 3);
      channels_free (out, 3);
      gst_harness_teardown (harness);
    }
}

GST_END_TEST;

/* A plane for test_wide_small_weights_planar: @picture 0, flat fields of
 * 134 (left) and 146 (right) with a dark pixel in each, a bright one and a
 * dark one in the corner; 1, rings around a dark centre whose level at
 * each distance puts its taps' weights, with @sigma_color and
 * @sigma_space, just under 2^-17 (half a step of 16-bit weights scaled to
 * 65535). */
static Channel
small_weights_plane (gint width, gint height, gint picture,
    gdouble sigma_color, gdouble sigma_space)
{
  Channel ch = channel_new (width, height, 8);
  gint cx = width / 2, cy = height / 2, x, y;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      gint level = x < width / 2 ? 134 : 146;

      if (picture == 1) {
        gdouble space = exp (-(gdouble) ((x - cx) * (x - cx) +
                (y - cy) * (y - cy)) / (2 * sigma_space * sigma_space));

        level = 2 * 65535 * space > 1 ? (gint) MIN (ceil (sigma_color *
                sqrt (2 * log (2 * 65535 * space))), 255) : 1;
      }
      ch.data[y * width + x] = level;
    }
  if (picture == 0) {
    ch.data[cy * width + width / 4] = 0;
    ch.data[cy * width + 3 * width / 4] = 0;
    ch.data[(height / 4) * width + 3 * width / 8] = 255;
    ch.data[0] = 0;
  } else {
    ch.data[cy * width + cx] = 0;
  }
  return ch;
}

/* test_golden's small weights (a wide window where most taps weigh a tiny
 * fraction of the centre's: a kernel that rounds them to zero moves such
 * outputs by several levels) through the planes of NV12 and I420: luma
 * alone in its plane, chroma interleaved in one plane or in two. Chroma
 * takes luma's window in its own pixels (chroma-diameter,
 * chroma-sigma-space): at the window derived for it, radius 15 at most
 * here, the weights such a kernel drops move an output by less than a
 * level. Against the reference. */
GST_START_TEST (test_wide_small_weights_planar)
{
  static const gchar *fmts[] = { "NV12", "I420" };
  static const Params params[] = { {61, 30, 20, FALSE}, {61, 30, 5, FALSE},
  {41, 30, 10, FALSE}
  };
  const gint w = 160, h = 96;
  guint f, p, c;
  gint picture;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (p = 0; p < G_N_ELEMENTS (params); p++)
      for (picture = 0; picture < 2; picture++) {
        const Params *q = &params[p];
        GstHarness *harness = gst_harness_new ("cudabilateral");
        Channel in[3], out[3];

        params_apply (harness->element, q);
        g_object_set (harness->element, "chroma-diameter", q->diameter,
            "chroma-sigma-space", q->sigma_space, NULL);
        gst_harness_set_caps (harness, caps_for (fmts[f], w, h),
            caps_for (fmts[f], w, h));
        in[0] = small_weights_plane (w, h, picture, q->sigma_color,
            q->sigma_space);
        in[1] = small_weights_plane (w / 2, h / 2, picture, q->sigma_color,
            q->sigma_space);
        in[2] = small_weights_plane (w / 2, h / 2, 0, q->sigma_color,
            q->sigma_space);
        filter_frame (harness, fmts[f], w, h,
            frame_from_channels (fmts[f], w, h, in, p % 2, p), out);
        for (c = 0; c < 3; c++) {
          /* chroma on luma's parameters, set above */
          Channel expected = channel_reference (&in[c], q, FALSE);
          gchar *what = g_strdup_printf ("%s d=%d sc=%g ss=%g",
              picture ? "rings" : "flat fields", q->diameter, q->sigma_color,
              q->sigma_space);

          assert_channel_matches (&out[c], &expected, 1, what, fmts[f], c);
          g_free (what);
          channels_free (&expected, 1);
        }
        channels_free (in, 3);
        channels_free (out, 3);
        gst_harness_teardown (harness);
      }
}

GST_END_TEST;

/* filter-chroma=false copies chroma exactly and still filters luma; set
 * back to true while PLAYING, chroma is filtered again from the next
 * frame. */
/* A strength mask on YUV and RGB formats: each channel blended with the
 * mask scaled to that channel's size (chroma's is smaller) by the
 * reference's scaling and blend, from the same element's unmasked output:
 * within +-1, since the reference scales the mask in double and the
 * element in 11-bit fixed point, which may differ by one mask level. */
GST_START_TEST (test_mask_channels)
{
  static const gchar *fmts[] = { "I420", "NV12", "YUY2", "Y444", "RGB" };
  Params p = { 9, 30, 4, FALSE };
  const gint w = 97, h = 62, mask_w = 20, mask_h = 11;
  guint8 *mask = g_malloc (mask_w * mask_h);
  gchar *path = g_build_filename (g_get_tmp_dir (), "cbf-mask-channels.png",
      NULL);
  guint f, c;
  gint i, x, y;

  for (i = 0; i < mask_w * mask_h; i++)
    mask[i] = (guint8) ((i % mask_w) * 13 + (i / mask_w) * 7);
  write_gray_png (path, mask, mask_w, mask_h);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *plain = harness_new (fmts[f], w, h, &p);
    GstHarness *masked = harness_new (fmts[f], w, h, &p);
    Channel in[3], plain_out[3], masked_out[3];

    g_object_set (masked->element, "mask-location", path, NULL);
    channels_for_format (fmts[f], w, h, 90 + f, in);
    filter_frame (plain, fmts[f], w, h,
        frame_from_channels (fmts[f], w, h, in, FALSE, 1), plain_out);
    filter_frame (masked, fmts[f], w, h,
        frame_from_channels (fmts[f], w, h, in, TRUE, 2), masked_out);
    for (c = 0; c < 3; c++) {
      Channel expected = channel_new (in[c].width, in[c].height, 8);

      for (y = 0; y < expected.height; y++)
        for (x = 0; x < expected.width; x++) {
          gint k = y * expected.width + x;
          expected.data[k] = (guint16) cbf_reference_mask_blend (in[c].data[k],
              plain_out[c].data[k], cbf_reference_mask_sample (mask, mask_w,
                  mask_w, mask_h, expected.width, expected.height, x, y));
        }
      assert_channel_matches (&masked_out[c], &expected, 1, "masked",
          fmts[f], c);
      channels_free (&expected, 1);
    }
    channels_free (in, 3);
    channels_free (plain_out, 3);
    channels_free (masked_out, 3);
    gst_harness_teardown (plain);
    gst_harness_teardown (masked);
  }
  g_unlink (path);
  g_free (path);
  g_free (mask);
}

GST_END_TEST;

/* PSNR of @a against @b (8-bit levels). */
static gdouble
channel_psnr (const Channel * a, const Channel * b)
{
  gdouble se = 0;
  gint i, n = a->width * a->height;

  for (i = 0; i < n; i++) {
    gdouble d = (gdouble) a->data[i] - b->data[i];

    se += d * d;
  }
  return se == 0 ? 99 : 10 * log10 (255.0 * 255.0 * n / se);
}

/* method=grid on YUV and Y444: astronaut.png's 256 x 192 crop of the
 * 8-bit grid test (test_grid) in YUV (BT.601, chroma averaged down to each
 * format's size), at that test's sigmas, changed while PLAYING: every
 * channel within +-1 of the reference grid (chroma with its scaled
 * sigma-space; U and V of NV12 and I420 go through the paired launch, a
 * grid each; Y444's three channels a grid each, placed by their own
 * level). NV12's planes are also held to floors of PSNR against the exact
 * filter, about half a dB under the reference grid's and at least 3 dB
 * above the unfiltered planes', printed as FIGURE lines. */
GST_START_TEST (test_grid_channels)
{
  static const gchar *fmts[] = { "NV12", "I420", "YUY2", "Y444" };
  static const struct
  {
    gdouble sigma_space, sigma_color;
    gdouble floor[3];           /* NV12's Y, U and V, dB */
  } cases[] = {
    {8, 30, {42.5, 47.5, 50.5}}, {16, 30, {41.5, 47.5, 50.0}},
    {32, 30, {40.5, 45.0, 46.5}}, {8, 60, {37.5, 46.5, 50.5}},
    {16, 60, {36.0, 46.5, 49.5}}, {32, 60, {35.0, 44.0, 45.5}},
  };
  const gint w = 256, h = 192;
  guint8 *rgb = picture_crop ("astronaut.png", 3, 128, 32, w, h);
  Channel yuv[3];
  guint f, c, i;

  channels_yuv_from_rgb (rgb, w, h, yuv);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    Params p = { 0, cases[0].sigma_color, cases[0].sigma_space, FALSE };
    GstHarness *harness = harness_new (fmts[f], w, h, &p);
    Channel in[3];

    gst_util_set_object_arg (G_OBJECT (harness->element), "method", "grid");

    for (c = 0; c < 3; c++)
      in[c] = channel_subsample (&yuv[c], GST_VIDEO_INFO_COMP_WIDTH (&info,
              c), GST_VIDEO_INFO_COMP_HEIGHT (&info, c));
    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      Channel out[3], expected[3];
      gchar *what = g_strdup_printf ("grid against the reference grid, "
          "sigma-space %g sigma-color %g", cases[i].sigma_space,
          cases[i].sigma_color);
      guint n;

      p.sigma_space = cases[i].sigma_space;
      p.sigma_color = cases[i].sigma_color;
      params_apply (harness->element, &p);
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, TRUE, f + i), out);
      n = channels_reference_grid_for_format (&info, in, &p, expected);
      for (c = 0; c < n; c++)
        assert_channel_matches (&out[c], &expected[c], 1, what, fmts[f], c);
      for (c = 0; c < n && g_str_equal (fmts[f], "NV12"); c++) {
        Channel exact = channel_reference (&in[c], &p, c > 0);
        gdouble db, db_input, db_reference;

        db = channel_psnr (&out[c], &exact);
        db_input = channel_psnr (&in[c], &exact);
        db_reference = channel_psnr (&expected[c], &exact);
        g_print ("FIGURE grid astronaut.png %dx%d NV12 plane %c sigma-space "
            "%g sigma-color %g: %.2f dB against the exact filter (floor "
            "%.1f; unfiltered input %.2f dB; reference grid %.2f dB)\n", w,
            h, "YUV"[c], p.sigma_space, p.sigma_color, db, cases[i].floor[c],
            db_input, db_reference);
        fail_unless (db >= cases[i].floor[c] && cases[i].floor[c] >=
            db_input + 3, "NV12 plane %u, %s: the grid %.2f dB against the "
            "exact filter, its floor %.1f, the unfiltered input %.2f dB", c,
            what, db, cases[i].floor[c], db_input);
        channels_free (&exact, 1);
      }
      channels_free (expected, n);
      channels_free (out, 3);
      g_free (what);
    }
    channels_free (in, 3);
    gst_harness_teardown (harness);
  }
  channels_free (yuv, 3);
  g_free (rgb);
}

GST_END_TEST;

GST_START_TEST (test_filter_chroma_off)
{
  static const gchar *fmts[] = { "I420", "NV12", "YUY2", "UYVY" };
  Params p = { 9, 30, 4, FALSE };
  guint f, c, step;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    gint w = 97, h = 300;
    GstHarness *harness = harness_new (fmts[f], w, h, &p);
    Channel in[3];

    channels_for_format (fmts[f], w, h, 50 + f, in);
    for (step = 0; step < 3; step++) {
      gboolean filter_chroma = step == 1;
      Channel out[3];

      g_object_set (harness->element, "filter-chroma", filter_chroma, NULL);
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, step % 2, step), out);
      for (c = 0; c < 3; c++) {
        Channel expected = c > 0 && !filter_chroma ? in[c] :
            channel_reference (&in[c], &p, c > 0);

        assert_channel_matches (&out[c], &expected, c > 0 && !filter_chroma ?
            0 : 1, filter_chroma ? "filter-chroma=true" :
            "filter-chroma=false", fmts[f], c);
        if (expected.data != in[c].data)
          channels_free (&expected, 1);
      }
      channels_free (out, 3);
    }
    channels_free (in, 3);
    gst_harness_teardown (harness);
  }
}

GST_END_TEST;

static Suite *
formats_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-formats", 600, &tc);

  tcase_add_test (tc, test_golden_yuv);
  tcase_add_test (tc, test_golden_rgb3);
  tcase_add_test (tc, test_golden_gaussian_rgb3);
  tcase_add_test (tc, test_yuv_sizes_and_radii);
  tcase_add_test (tc, test_wide_small_weights_planar);
  tcase_add_test (tc, test_filter_chroma_off);
  tcase_add_test (tc, test_mask_channels);
  tcase_add_test (tc, test_grid_channels);
  return s;
}

TEST_MAIN (formats_suite, TEST_NEEDS_GPU, NULL);
