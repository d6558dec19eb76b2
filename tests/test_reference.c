/* The C reference against OpenCV's golden files: the oracle of the GPU
 * tests is itself checked here, in CI, without a GPU. */

#include <gst/check/gstcheck.h>

#include <math.h>

#include "golden.h"
#include "reference.h"
#include "bilateral.h"
#include "gpu_support.h"

GST_START_TEST (test_reference_matches_opencv)
{
  guint n_cases, i;
  GoldenCase *cases = golden_load_cases (&n_cases);

  fail_unless (n_cases >= 6 * 8, "expected the full golden set, got %u",
      n_cases);
  for (i = 0; i < n_cases; i++) {
    const GoldenCase *c = &cases[i];
    gint w, h, ch, ow, oh, och, max_diff, fx, fy;
    guint8 *src = golden_load_pnm (c->input, &w, &h, &ch);
    guint8 *expected = golden_load_pnm (c->output, &ow, &oh, &och);
    guint8 *out = g_malloc ((gsize) w * h * ch);
    guint bad;

    fail_unless (w == c->width && h == c->height && ch == c->channels
        && ow == w && oh == h && och == ch, "%s: sizes disagree", c->name);
    memset (out, 0xcd, (gsize) w * h * ch);     /* poison */
    cbf_reference_bilateral (src, w * ch, out, w * ch, w, h, ch, 0, ch,
        c->diameter, c->sigma_color, c->sigma_space);
    bad = images_diff_beyond_one (out, w * ch, expected, w * ch, w, h, ch, 0,
        ch, 0, ch, &max_diff, &fx, &fy);
    fail_unless (bad == 0, "%s: %u values off by more than 1 (max %d, first "
        "at %d,%d)", c->name, bad, max_diff, fx, fy);
    GST_INFO ("%s: max difference %d", c->name, max_diff);
    g_free (src);
    g_free (expected);
    g_free (out);
  }
  golden_free_cases (cases);
}

GST_END_TEST;

/* The deep-sample reference on the golden pictures widened to 16 bits
 * exactly (v x 257, so that sigma-color scaled by 65535 / 255 keeps every
 * weight), narrowed back (/ 257, rounded): within +-1 of OpenCV's 8-bit
 * output, as the 16-bit formats must be. */
GST_START_TEST (test_deep_reference_widened_matches_opencv)
{
  guint n_cases, i;
  GoldenCase *cases = golden_load_cases (&n_cases);
  gint worst = 0;

  for (i = 0; i < n_cases; i++) {
    const GoldenCase *c = &cases[i];
    gint w, h, ch, ow, oh, och, max_diff, fx, fy;
    guint8 *src = golden_load_pnm (c->input, &w, &h, &ch);
    guint8 *expected = golden_load_pnm (c->output, &ow, &oh, &och);
    gsize n = (gsize) w * h * ch, k;
    guint16 *wide = g_new (guint16, n), *wide_out = g_new (guint16, n);
    guint8 *out = g_malloc (n);
    guint bad;

    for (k = 0; k < n; k++)
      wide[k] = src[k] * 257;
    cbf_reference_bilateral_deep (wide, w * ch, wide_out, w * ch, w, h, ch, 0,
        ch, 16, c->diameter, c->sigma_color, c->sigma_space);
    for (k = 0; k < n; k++)
      out[k] = (2 * wide_out[k] + 257) / 514;
    bad = images_diff_beyond_one (out, w * ch, expected, w * ch, w, h, ch, 0,
        ch, 0, ch, &max_diff, &fx, &fy);
    fail_unless (bad == 0, "%s widened: %u values off by more than 1 (max %d, "
        "first at %d,%d)", c->name, bad, max_diff, fx, fy);
    worst = MAX (worst, max_diff);
    g_free (src);
    g_free (expected);
    g_free (wide);
    g_free (wide_out);
    g_free (out);
  }
  GST_INFO ("%u cases widened to 16 bits: max difference %d", n_cases, worst);
  golden_free_cases (cases);
}

GST_END_TEST;

/* Each plane of the YUV cases, filtered on its own: luma with the case's
 * parameters, chroma with those the element derives for it
 * (cbf_bilateral_chroma_params), which must be the ones OpenCV was run
 * with. */
GST_START_TEST (test_reference_matches_opencv_yuv)
{
  guint n_cases, i, p;
  GoldenYuvCase *cases = golden_load_yuv_cases (&n_cases);

  fail_unless (n_cases >= 2 * 4 * 8, "expected the full YUV set, got %u",
      n_cases);
  for (i = 0; i < n_cases; i++) {
    const GoldenYuvCase *c = &cases[i];
    gint chroma_diameter;
    gdouble chroma_sigma_space;

    cbf_bilateral_chroma_params (c->diameter, c->sigma_space, 2,
        &chroma_diameter, &chroma_sigma_space);
    fail_unless (chroma_diameter == c->chroma_diameter
        && chroma_sigma_space == c->chroma_sigma_space,
        "%s: chroma parameters %d %g, OpenCV was run with %d %g", c->name,
        chroma_diameter, chroma_sigma_space, c->chroma_diameter,
        c->chroma_sigma_space);
    for (p = 0; p < 3; p++) {
      gint w, h, ch, ow, oh, och, max_diff, fx, fy;
      guint8 *src = golden_load_pnm (c->input[p], &w, &h, &ch);
      guint8 *expected = golden_load_pnm (c->output[p], &ow, &oh, &och);
      guint8 *out = g_malloc ((gsize) w * h);
      gint expected_w = p ? (c->width + 1) / 2 : c->width;
      gint expected_h = p && c->subsampling == 420 ? (c->height + 1) / 2 :
          c->height;
      guint bad;

      fail_unless (w == expected_w && h == expected_h && ch == 1 && ow == w
          && oh == h && och == 1, "%s plane %u: sizes disagree", c->name, p);
      memset (out, 0xcd, (gsize) w * h);
      cbf_reference_bilateral (src, w, out, w, w, h, 1, 0, 1,
          p ? chroma_diameter : c->diameter, c->sigma_color,
          p ? chroma_sigma_space : c->sigma_space);
      bad = images_diff_beyond_one (out, w, expected, w, w, h, 1, 0, 1, 0, 1,
          &max_diff, &fx, &fy);
      fail_unless (bad == 0, "%s plane %u: %u values off by more than 1 (max "
          "%d, first at %d,%d)", c->name, p, bad, max_diff, fx, fy);
      g_free (src);
      g_free (expected);
      g_free (out);
    }
  }
  golden_free_yuv_cases (cases);
}

GST_END_TEST;

/* The radius rule, on values OpenCV documents or rounds at a tie. */
GST_START_TEST (test_radius_rule)
{
  fail_unless_equals_int (cbf_bilateral_radius (9, 75), 4);
  fail_unless_equals_int (cbf_bilateral_radius (4, 75), 2);
  fail_unless_equals_int (cbf_bilateral_radius (1, 75), 1);
  fail_unless_equals_int (cbf_bilateral_radius (0, 2.5), 4);    /* 3.75 */
  fail_unless_equals_int (cbf_bilateral_radius (0, 1), 2);      /* 1.5: even */
  fail_unless_equals_int (cbf_bilateral_radius (-1, 0), 2);     /* sigma 1 */
  fail_unless_equals_int (cbf_bilateral_radius (0, 200), CBF_MAX_RADIUS);
}

GST_END_TEST;

/* The Gaussian-mode reference (mode=gaussian) against OpenCV's
 * GaussianBlur, and its size rule. */
GST_START_TEST (test_gaussian_reference_matches_opencv)
{
  guint n_cases, i;
  GoldenCase *cases = golden_load_gaussian_cases (&n_cases);
  gint ksize;
  gdouble sigma;

  fail_unless (n_cases >= 10 * 11, "expected the full Gaussian set, got %u",
      n_cases);
  for (i = 0; i < n_cases; i++) {
    const GoldenCase *c = &cases[i];
    gint w, h, ch, max_diff, fx, fy;
    guint8 *src = golden_load_pnm (c->input, &w, &h, &ch);
    guint8 *expected = golden_load_pnm (c->output, &w, &h, &ch);
    guint8 *out = g_malloc ((gsize) w * h * ch);
    guint bad;

    memset (out, 0xcd, (gsize) w * h * ch);
    cbf_reference_gaussian (src, w * ch, out, w * ch, w, h, ch, 0, ch,
        c->diameter, c->sigma_space);
    bad = images_diff_beyond_one (out, w * ch, expected, w * ch, w, h, ch, 0,
        ch, 0, ch, &max_diff, &fx, &fy);
    fail_unless (bad == 0, "%s: %u values off by more than 1 (max %d, first "
        "at %d,%d)", c->name, bad, max_diff, fx, fy);
    g_free (src);
    g_free (expected);
    g_free (out);
  }
  golden_free_cases (cases);

  cbf_gaussian_params (4, 0, &ksize, &sigma);
  fail_unless (ksize == 5 && sigma == 0);
  cbf_gaussian_params (0, 1.5, &ksize, &sigma);
  fail_unless (ksize == 11 && sigma == 1.5);    /* cvRound (10) | 1 */
  cbf_gaussian_params (-1, 0, &ksize, &sigma);
  fail_unless (ksize == 7 && sigma == 1);
  cbf_gaussian_params (0, 200, &ksize, &sigma);
  fail_unless_equals_int (ksize, CBF_GAUSSIAN_MAX_KSIZE);
}

GST_END_TEST;

/* A @bits-bit picture of @channels samples a pixel: a gradient, a bright
 * block with an edge, noise, and dark and bright single pixels (where a
 * rounded weight would show most). */
static guint16 *
deep_picture (gint w, gint h, gint channels, gint bits, guint32 seed)
{
  guint16 *pic = g_malloc ((gsize) w * h * channels * sizeof (guint16));
  GRand *rand = g_rand_new_with_seed (seed);
  gint top = (1 << bits) - 1, x, y, c;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (c = 0; c < channels; c++) {
        gdouble v = 0.15 + 0.5 * x / w + 0.1 * y / h + 0.05 * c +
            (x > w / 3 && y > h / 3 ? 0.25 : 0) +
            g_rand_double_range (rand, -0.04, 0.04);
        gint32 r = g_rand_int_range (rand, 0, 300);

        if (r == 0)
          v = 0;
        else if (r == 1)
          v = 1;
        pic[(y * w + x) * channels + c] = (guint16) CLAMP (lrint (v * top),
            0, top);
      }
  g_rand_free (rand);
  return pic;
}

/* The deep kernels' planned arithmetic (bucketed range table, float sums)
 * against the double-precision reference on native samples: within one
 * level at 10 and 12 bits, within 16 (12-bit precision) at 16 bits, one
 * channel and three, small to large windows. */
GST_START_TEST (test_deep_table_within_tolerance)
{
  static const gint depths[] = { 10, 12, 16 };
  static const struct
  {
    gint diameter;
    gdouble sigma_color, sigma_space;
  } params[] = { {3, 10, 2}, {5, 30, 5}, {9, 75, 75}, {15, 50, 10},
  {31, 30, 5}, {0, 200, 3}
  };
  const gint w = 53, h = 41;
  guint d, p, channels, n_checked = 0;

  for (d = 0; d < G_N_ELEMENTS (depths); d++)
    for (channels = 1; channels <= 3; channels += 2)
      for (p = 0; p < G_N_ELEMENTS (params); p++) {
        gint bits = depths[d], tolerance = bits > 12 ? 16 : 1, worst = 0;
        gsize n = (gsize) w * h * channels, k;
        guint16 *in = deep_picture (w, h, channels, bits, 7 * d + p);
        guint16 *exact = g_malloc (n * sizeof (guint16));
        guint16 *table = g_malloc (n * sizeof (guint16));

        cbf_reference_bilateral_deep (in, w * channels, exact, w * channels,
            w, h, channels, 0, channels, bits, params[p].diameter,
            params[p].sigma_color, params[p].sigma_space);
        cbf_reference_bilateral_deep_table (in, w * channels, table,
            w * channels, w, h, channels, 0, channels, bits,
            params[p].diameter, params[p].sigma_color, params[p].sigma_space);
        for (k = 0; k < n; k++)
          worst = MAX (worst, ABS ((gint) table[k] - (gint) exact[k]));
        fail_unless (worst <= tolerance, "%d bits, %u channels, d=%d sc=%g "
            "ss=%g: off by %d (at most %d)", bits, channels,
            params[p].diameter, params[p].sigma_color, params[p].sigma_space,
            worst, tolerance);
        GST_INFO ("%d bits, %u channels, d=%d: max difference %d", bits,
            channels, params[p].diameter, worst);
        n_checked++;
        g_free (in);
        g_free (exact);
        g_free (table);
      }
  fail_unless_equals_int (n_checked, 36);
}

GST_END_TEST;

/* The deep specialised kernel's weights, as it computes them: y, the
 * distance times range_scale in float, and 2^(log2 (space) - y^2) from a
 * float exponent, against the spatial weight times the range weight in
 * double, exp (-d^2 / (2 s^2)) with s = sigma-color x (2^bits - 1) / 255:
 * within 10^-5 of it (the special-function unit adds about 2^-22), for
 * every distance of one sample and of three, at every tap. Weights under
 * 10^-12, which cannot move an output by a level (197 taps x 65535 x
 * 10^-12), are held to 10^-17 absolute: their float exponent's rounding
 * grows with its size. */
GST_START_TEST (test_deep_computed_weights)
{
  static const gint depths[] = { 10, 12, 16 };
  static const gdouble sigmas[] = { 1, 10, 30, 200 };
  const gint radius = 8, side = 2 * radius + 1;
  float *tables = g_malloc (cbf_bilateral_tables_max_len () * sizeof (float));
  guint b, s, n_checked = 0;

  for (b = 0; b < G_N_ELEMENTS (depths); b++)
    for (s = 0; s < G_N_ELEMENTS (sigmas); s++) {
      gint bits = depths[b], largest = 3 * ((1 << bits) - 1), d, dx, dy;
      gdouble sigma = sigmas[s] * ((1 << bits) - 1) / 255.0, worst = 0;
      CbfFilterParams w;

      cbf_deep_tables_fill (tables, radius, bits, 3, sigmas[s], 4.0);
      cbf_deep_weights_init (&w, radius, bits, sigmas[s], tables, NULL);
      for (dy = -radius; dy <= radius; dy++)
        for (dx = -radius; dx <= radius; dx++) {
          gint i = (dy + radius) * side + dx + radius;

          if (dx * dx + dy * dy > radius * radius)
            continue;
          for (d = 0; d <= largest; d += 1 + d / 64) {
            float y = (float) d * w.bilateral.range_scale;
            double got = exp2 (fmaf (-y, y, w.bilateral.space_log2_taps[i]));
            double want = w.bilateral.space_taps[i] *
                exp (-(double) d * d / (2 * sigma * sigma));

            worst = MAX (worst, fabs (got - want) / MAX (want, 1e-12));
            n_checked++;
          }
        }
      fail_unless (worst <= 1e-5, "%d bits, sigma-color %g: relative error "
          "%g", bits, sigmas[s], worst);
    }
  fail_unless (n_checked > 100000);
  g_free (tables);
}

GST_END_TEST;

/* The chroma rule at its edges: integer division, at least 1, derived
 * radii kept derived. */
GST_START_TEST (test_chroma_rule)
{
  gint d;
  gdouble ss;

  cbf_bilateral_chroma_params (15, 10, 2, &d, &ss);
  fail_unless (d == 7 && ss == 5);
  cbf_bilateral_chroma_params (1, 1, 2, &d, &ss);
  fail_unless (d == 1 && ss == 0.5);
  cbf_bilateral_chroma_params (0, 2.5, 2, &d, &ss);
  fail_unless (d == 0 && ss == 1.25);
  fail_unless_equals_int (cbf_bilateral_radius (d, ss), 2);     /* 1.875 */
  cbf_bilateral_chroma_params (-1, 0, 2, &d, &ss);
  fail_unless (d == -1 && ss == 0);
}

GST_END_TEST;

static Suite *
reference_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("reference", 300, &tc);

  tcase_add_test (tc, test_reference_matches_opencv);
  tcase_add_test (tc, test_reference_matches_opencv_yuv);
  tcase_add_test (tc, test_deep_reference_widened_matches_opencv);
  tcase_add_test (tc, test_deep_table_within_tolerance);
  tcase_add_test (tc, test_deep_computed_weights);
  tcase_add_test (tc, test_radius_rule);
  tcase_add_test (tc, test_chroma_rule);
  tcase_add_test (tc, test_gaussian_reference_matches_opencv);
  return s;
}

GST_CHECK_MAIN (reference);
