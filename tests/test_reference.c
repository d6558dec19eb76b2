/* The C reference against OpenCV's golden files: the oracle of the GPU
 * tests is itself checked here, in CI, without a GPU. The kernels'
 * host-side arithmetic against the reference is test_kernel_tables. */

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "golden.h"
#include "reference.h"
#include "reference_chroma.h"
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
 * parameters, chroma with those the reference derives for it
 * (cbf_reference_chroma_params), which must be the ones OpenCV was run
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

    cbf_reference_chroma_params (c->diameter, c->sigma_space, 2,
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
  fail_unless_equals_int (cbf_reference_radius (9, 75), 4);
  fail_unless_equals_int (cbf_reference_radius (4, 75), 2);
  fail_unless_equals_int (cbf_reference_radius (1, 75), 1);
  fail_unless_equals_int (cbf_reference_radius (0, 2.5), 4);    /* 3.75 */
  fail_unless_equals_int (cbf_reference_radius (0, 1), 2);      /* 1.5: even */
  fail_unless_equals_int (cbf_reference_radius (0, 5.0 / 3), 2);        /* 2.5 */
  fail_unless_equals_int (cbf_reference_radius (-1, 0), 2);     /* sigma 1 */
  fail_unless_equals_int (cbf_reference_radius (0, 0.1), 1);    /* at least */
  /* sigma-space's largest value, 200: 300, the element's largest radius. */
  fail_unless_equals_int (cbf_reference_radius (0, 200), 300);
}

GST_END_TEST;

/* The chroma rule at its edges: integer division, at least 1, derived
 * radii kept derived. */
GST_START_TEST (test_chroma_rule)
{
  gint d;
  gdouble ss;

  cbf_reference_chroma_params (15, 10, 2, &d, &ss);
  fail_unless (d == 7 && ss == 5);
  cbf_reference_chroma_params (1, 1, 2, &d, &ss);
  fail_unless (d == 1 && ss == 0.5);
  cbf_reference_chroma_params (0, 2.5, 2, &d, &ss);
  fail_unless (d == 0 && ss == 1.25);
  fail_unless_equals_int (cbf_reference_radius (d, ss), 2);     /* 1.875 */
  cbf_reference_chroma_params (-1, 0, 2, &d, &ss);
  fail_unless (d == -1 && ss == 0);
}

GST_END_TEST;

/* The guide of chroma guided by luma (cbf_reference_chroma_guide) on a
 * 5 x 3 luma picture, odd both ways so that every edge is clamped, each
 * siting against values worked out by hand from the definition: jpeg
 * (centred, 2 x 2 mean), mpeg2 ([1 2 1] / 4 x [1 1] / 2), cosited
 * ([1 2 1] / 4 both ways), 4:2:2 (vertical cositing ignored), 4:4:4, and a
 * 16-bit sample. Worked, mpeg2 (0, 0): columns -1 (read as 0), 0, 1 of
 * rows 0 and 1: (0 + 2 x 0 + 4) + (1 + 2 x 1 + 3) = 10, (10 + 4) / 8 = 1;
 * cosited (2, 0): rows -1 (as 0), 0, 1 of columns 3, 4, 5 (as 4): 612,
 * 612 x 2, 34 = 1870, (1870 + 8) / 16 = 117. */
GST_START_TEST (test_chroma_guide_siting)
{
  static const guint8 luma[3][5] = {
    {0, 4, 8, 12, 200}, {1, 3, 5, 7, 9}, {100, 50, 25, 13, 7}
  };
  static const struct
  {
    const gchar *name;
    gint sub_x, sub_y, h_cosited, v_cosited;
    guint8 expected[3][5];
  } cases[] = {
    {"4:2:0 jpeg", 2, 2, 0, 0, {{2, 8, 105}, {75, 19, 7}}},
    {"4:2:0 mpeg2", 2, 2, 1, 0, {{1, 7, 81}, {88, 28, 9}}},
    {"4:2:0 cosited", 2, 2, 1, 1, {{1, 7, 117}, {66, 22, 9}}},
    {"4:2:2 jpeg", 2, 1, 0, 0, {{2, 10, 200}, {2, 6, 9}, {75, 19, 7}}},
    {"4:2:2 mpeg2", 2, 1, 1, 0, {{1, 8, 153}, {2, 5, 9}, {88, 28, 9}}},
    {"4:2:2 cosited", 2, 1, 1, 1, {{1, 8, 153}, {2, 5, 9}, {88, 28, 9}}},
    {"4:4:4 cosited", 1, 1, 1, 1, {{0, 4, 8, 12, 200}, {1, 3, 5, 7, 9},
            {100, 50, 25, 13, 7}}},
  };
  static const guint16 deep_luma[2] = { 1000, 3 };
  guint16 deep_guide[1] = { 0 };
  guint i;
  gint x, y;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gint gw = (5 + cases[i].sub_x - 1) / cases[i].sub_x;
    gint gh = (3 + cases[i].sub_y - 1) / cases[i].sub_y;
    guint8 guide[3][5];

    memset (guide, 0xee, sizeof (guide));
    cbf_reference_chroma_guide (luma, 5, guide, 5, 1, 5, 3, cases[i].sub_x,
        cases[i].sub_y, cases[i].h_cosited, cases[i].v_cosited);
    for (y = 0; y < gh; y++)
      for (x = 0; x < gw; x++)
        fail_unless (guide[y][x] == cases[i].expected[y][x], "%s: guide "
            "(%d, %d) %u, expected %u", cases[i].name, x, y, guide[y][x],
            cases[i].expected[y][x]);
  }
  /* (1000 + 2 x 1000 + 3 + 2) / 4 */
  cbf_reference_chroma_guide (deep_luma, 2, deep_guide, 1, 2, 2, 1, 2, 1, 1, 0);
  fail_unless_equals_int (deep_guide[0], 751);
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

  cbf_reference_gaussian_params (4, 0, &ksize, &sigma);
  fail_unless (ksize == 5 && sigma == 0);
  cbf_reference_gaussian_params (0, 1.5, &ksize, &sigma);
  fail_unless (ksize == 11 && sigma == 1.5);    /* cvRound (10) | 1 */
  cbf_reference_gaussian_params (-1, 0, &ksize, &sigma);
  fail_unless (ksize == 7 && sigma == 1);
  /* Capped at 1201, the element's largest kernel. */
  cbf_reference_gaussian_params (0, 200, &ksize, &sigma);
  fail_unless_equals_int (ksize, 1201);
}

GST_END_TEST;

/* The border rules' indices on lines of 1, 2 and 3 samples, worked by
 * hand from OpenCV's definitions (reflect-101 gfedcb|abcdefgh|gfedcba,
 * replicate aaa|abc|ccc, reflect cba|abc|cba, wrap abc|abc|abc), windows
 * wider than the line included; and the constant's deeper samples. */
GST_START_TEST (test_border_rules)
{
  /* Positions -7 to 9 of a line of 3. */
  static const gint expected[4][17] = {
    {1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2},
    {0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2},
    {2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0},
  };
  /* Positions -4 to 5 of a line of 2. */
  static const gint two[4][10] = {
    {0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
    {0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    {0, 1, 1, 0, 0, 1, 1, 0, 0, 1},
    {0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
  };
  gint b, p;

  for (b = 0; b < 4; b++) {
    for (p = -7; p <= 9; p++)
      fail_unless (cbf_reference_border_index (b, p, 3) ==
          expected[b][p + 7], "rule %d, position %d of 3: %d", b, p,
          cbf_reference_border_index (b, p, 3));
    for (p = -4; p <= 5; p++)
      fail_unless (cbf_reference_border_index (b, p, 2) == two[b][p + 4],
          "rule %d, position %d of 2: %d", b, p,
          cbf_reference_border_index (b, p, 2));
    /* A line of one sample: every position reads it. */
    for (p = -40; p <= 40; p++)
      fail_unless_equals_int (cbf_reference_border_index (b, p, 1), 0);
  }
  fail_unless_equals_int (cbf_reference_border_index
      (CBF_REFERENCE_BORDER_CONSTANT, -1, 3), -1);
  fail_unless_equals_int (cbf_reference_border_index
      (CBF_REFERENCE_BORDER_CONSTANT, 3, 3), -1);
  fail_unless_equals_int (cbf_reference_border_index
      (CBF_REFERENCE_BORDER_CONSTANT, 2, 3), 2);
  fail_unless_equals_int (cbf_reference_border_from_nick ("wrap"),
      CBF_REFERENCE_BORDER_WRAP);
  fail_unless_equals_int (cbf_reference_border_from_nick ("reflect-101"),
      CBF_REFERENCE_BORDER_REFLECT_101);
  fail_unless_equals_int (cbf_reference_border_from_nick ("default"), -1);
  /* round (v (2^bits - 1) / 255): 200 is 802.35 at 10 bits, 128 is
   * 2055.53 at 12 bits. */
  fail_unless_equals_int (cbf_reference_border_sample (200, 8), 200);
  fail_unless_equals_int (cbf_reference_border_sample (200, 10), 802);
  fail_unless_equals_int (cbf_reference_border_sample (128, 12), 2056);
  fail_unless_equals_int (cbf_reference_border_sample (200, 16), 51400);
  fail_unless_equals_int (cbf_reference_border_sample (255, 10), 1023);
  fail_unless_equals_int (cbf_reference_border_sample (0, 16), 0);
}

GST_END_TEST;

/* A border case's rule as one of six: the five rules, and the constant
 * of a nonzero value the sixth. */
#define N_BORDER_VARIANTS 6

static gint
border_variant (const GoldenBorderCase * b)
{
  gint rule = cbf_reference_border_from_nick (b->border);

  fail_unless (rule >= 0, "%s: no border rule %s", b->c.name, b->border);
  fail_unless (rule == CBF_REFERENCE_BORDER_CONSTANT || b->border_value == 0,
      "%s: a value for the %s rule", b->c.name, b->border);
  return rule == CBF_REFERENCE_BORDER_CONSTANT && b->border_value ? 5 : rule;
}

/* The reference with each border rule against OpenCV's outputs of every
 * border case (bilateral and GaussianBlur, one and three channels, pictures
 * smaller than the window, windows of every kernel). So that a wrong rule
 * fails, the golden outputs must differ between the rules: for each pair
 * of the six (the five rules, the constant at 0 and at 200), in at least
 * 20 groups of a picture smaller than its window (same picture, mode and
 * parameters) they differ by more than 1 somewhere. */
GST_START_TEST (test_border_reference_matches_opencv)
{
  guint n_cases, i, j, a, k;
  GoldenBorderCase *cases = golden_load_border_cases (&n_cases);
  guint8 **expected = g_new0 (guint8 *, n_cases);
  guint differ[N_BORDER_VARIANTS][N_BORDER_VARIANTS] = { {0,}, };
  guint seen[N_BORDER_VARIANTS] = { 0, };

  fail_unless (n_cases >= 10 * 10 * N_BORDER_VARIANTS, "expected the full "
      "border set, got %u", n_cases);
  for (i = 0; i < n_cases; i++) {
    const GoldenBorderCase *b = &cases[i];
    const GoldenCase *c = &b->c;
    gint w, h, ch, ow, oh, och, max_diff, fx, fy;
    gint rule = cbf_reference_border_from_nick (b->border);
    gint sample = cbf_reference_border_sample (b->border_value, 8);
    guint8 *src = golden_load_pnm (c->input, &w, &h, &ch);
    guint8 *out = g_malloc ((gsize) w * h * ch);
    guint bad;

    seen[border_variant (b)]++;
    expected[i] = golden_load_pnm (c->output, &ow, &oh, &och);
    fail_unless (w == c->width && h == c->height && ch == c->channels
        && ow == w && oh == h && och == ch, "%s: sizes disagree", c->name);
    memset (out, 0xcd, (gsize) w * h * ch);
    if (b->gaussian)
      cbf_reference_gaussian_border (src, w * ch, out, w * ch, w, h, ch, 0,
          ch, c->diameter, c->sigma_space, rule, sample);
    else
      cbf_reference_bilateral_border (src, w * ch, out, w * ch, w, h, ch, 0,
          ch, c->diameter, c->sigma_color, c->sigma_space, rule, sample);
    bad = images_diff_beyond_one (out, w * ch, expected[i], w * ch, w, h, ch,
        0, ch, 0, ch, &max_diff, &fx, &fy);
    fail_unless (bad == 0, "%s: %u values off by more than 1 (max %d, first "
        "at %d,%d)", c->name, bad, max_diff, fx, fy);
    g_free (src);
    g_free (out);
  }
  for (a = 0; a < N_BORDER_VARIANTS; a++)
    fail_unless (seen[a] >= 10 * 10, "only %u cases of border variant %u",
        seen[a], a);

  /* Pairs of cases of one group: the same name up to the rule's tag. */
  for (i = 0; i < n_cases; i++)
    for (j = i + 1; j < n_cases; j++) {
      const GoldenCase *c = &cases[i].c;
      gint window = c->diameter, max_diff, fx, fy, va, vb;
      gsize len = strrchr (c->name, '.') - c->name;

      if (strncmp (c->name, cases[j].c.name, len) != 0
          || cases[j].c.name[len] != '.')
        continue;
      if (cases[i].gaussian) {
        gdouble sigma;

        cbf_reference_gaussian_params (c->diameter, c->sigma_space, &window,
            &sigma);
      }
      if (c->width >= window && c->height >= window)
        continue;
      va = border_variant (&cases[i]);
      vb = border_variant (&cases[j]);
      fail_unless (va != vb, "%s and %s: the same rule", c->name,
          cases[j].c.name);
      if (images_diff_beyond_one (expected[i], c->width * c->channels,
              expected[j], c->width * c->channels, c->width, c->height,
              c->channels, 0, c->channels, 0, c->channels, &max_diff, &fx,
              &fy) > 0) {
        differ[va][vb]++;
        differ[vb][va]++;
      }
    }
  for (a = 0; a < N_BORDER_VARIANTS; a++)
    for (k = a + 1; k < N_BORDER_VARIANTS; k++) {
      GST_INFO ("border variants %u and %u differ in %u small groups", a, k,
          differ[a][k]);
      fail_unless (differ[a][k] >= 20, "border variants %u and %u differ in "
          "only %u groups of a picture smaller than its window: the golden "
          "set cannot tell them apart", a, k, differ[a][k]);
    }
  for (i = 0; i < n_cases; i++)
    g_free (expected[i]);
  g_free (expected);
  golden_free_border_cases (cases);
}

GST_END_TEST;

/* The deep references with each border rule on the border goldens widened
 * to 16 bits (v x 257; the constant 257 v, what
 * cbf_reference_border_sample gives at 16 bits), narrowed back: within
 * +-1 of OpenCV's 8-bit output, bilateral and Gaussian. */
GST_START_TEST (test_border_deep_reference_widened_matches_opencv)
{
  guint n_cases, i;
  GoldenBorderCase *cases = golden_load_border_cases (&n_cases);

  for (i = 0; i < n_cases; i++) {
    const GoldenBorderCase *b = &cases[i];
    const GoldenCase *c = &b->c;
    gint w, h, ch, max_diff, fx, fy;
    gint rule = cbf_reference_border_from_nick (b->border);
    gint sample = cbf_reference_border_sample (b->border_value, 16);
    guint8 *src = golden_load_pnm (c->input, &w, &h, &ch);
    guint8 *expected = golden_load_pnm (c->output, &w, &h, &ch);
    gsize n = (gsize) w * h * ch, k;
    guint16 *wide = g_new (guint16, n), *wide_out = g_new (guint16, n);
    guint8 *out = g_malloc (n);
    guint bad;

    fail_unless_equals_int (sample, b->border_value * 257);
    for (k = 0; k < n; k++)
      wide[k] = src[k] * 257;
    if (b->gaussian)
      cbf_reference_gaussian_deep_border (wide, w * ch, wide_out, w * ch, w,
          h, ch, 0, ch, c->diameter, c->sigma_space, rule, sample);
    else
      cbf_reference_bilateral_deep_border (wide, w * ch, wide_out, w * ch, w,
          h, ch, 0, ch, 16, c->diameter, c->sigma_color, c->sigma_space, rule,
          sample);
    for (k = 0; k < n; k++)
      out[k] = (2 * wide_out[k] + 257) / 514;
    bad = images_diff_beyond_one (out, w * ch, expected, w * ch, w, h, ch, 0,
        ch, 0, ch, &max_diff, &fx, &fy);
    fail_unless (bad == 0, "%s widened: %u values off by more than 1 (max %d, "
        "first at %d,%d)", c->name, bad, max_diff, fx, fy);
    g_free (src);
    g_free (expected);
    g_free (wide);
    g_free (wide_out);
    g_free (out);
  }
  golden_free_border_cases (cases);
}

GST_END_TEST;

/* The mask's scaling and blend on values worked by hand: a mask of the
 * frame's size is itself, a 2 x 1 mask stretched over 4 pixels reads
 * 0, 1/4, 3/4 and 1 of the way (centres aligned, ends clamped), and the
 * blend rounds to the nearest, away from zero at 128 / 255 of one level. */
GST_START_TEST (test_mask_reference)
{
  static const guint8 mask[2] = { 0, 200 };
  static const gint stretched[4] = { 0, 50, 150, 200 };
  gint x;

  for (x = 0; x < 2; x++)
    fail_unless_equals_int (cbf_reference_mask_sample (mask, 2, 2, 1, 2, 1,
            x, 0), mask[x]);
  for (x = 0; x < 4; x++)
    fail_unless_equals_int (cbf_reference_mask_sample (mask, 2, 2, 1, 4, 1,
            x, 0), stretched[x]);
  fail_unless_equals_int (cbf_reference_mask_blend (10, 200, 0), 10);
  fail_unless_equals_int (cbf_reference_mask_blend (10, 200, 255), 200);
  fail_unless_equals_int (cbf_reference_mask_blend (0, 1, 128), 1);
  fail_unless_equals_int (cbf_reference_mask_blend (0, 1, 127), 0);
  fail_unless_equals_int (cbf_reference_mask_blend (1, 0, 128), 0);
  fail_unless_equals_int (cbf_reference_mask_blend (1, 0, 127), 1);
  fail_unless_equals_int (cbf_reference_mask_blend (65535, 0, 1), 65278);
}

GST_END_TEST;

/* PSNR of the @channels values at @offset of @pixel_bytes-byte pixels. */
static gdouble
psnr (const guint8 * a, const guint8 * b, gint n_pixels, gint pixel_bytes,
    gint offset, gint channels)
{
  gdouble se = 0;
  gint i, c;

  for (i = 0; i < n_pixels; i++)
    for (c = 0; c < channels; c++) {
      gdouble d = (gdouble) a[i * pixel_bytes + offset + c] -
          b[i * pixel_bytes + offset + c];

      se += d * d;
    }
  return se == 0 ? 99 : 10 * log10 (255.0 * 255.0 * n_pixels * channels / se);
}

/* The grid's reference, documented cells (docs/kernels.md, "The bilateral
 * grid, exactly"), a flat picture kept exactly, and on the golden
 * pictures a filter that comes closer to the exact one than the input
 * does (a reference that did nothing would not). */
GST_START_TEST (test_grid_reference)
{
  static const gdouble sigmas[] = { 8, 16, 32 };
  static const gchar *pictures[] = { "gray_camera_96x72.pgm",
    "rgb_astronaut_96x72.ppm"
  };
  CbfReferenceGridCells g;
  guint8 flat[40 * 30 * 4], flat_out[40 * 30 * 4];
  guint p, s;

  /* One channel, sigma-space 16, sigma-color 30: cells of 16 / sqrt 1.25
   * pixels and 30 / sqrt 4.25 levels, four range passes; 100 x 50 pixels
   * are 7 + 1 + 4 by 3 + 1 + 4 cells, 255 levels 18 + 1 + 16. */
  cbf_reference_grid_cells (100, 50, 1, 8, 30, 16, &g);
  fail_unless (g.cell_space == (float) (16 / sqrt (1.25)));
  fail_unless (g.cell_range == (float) (30 / sqrt (4.25)));
  fail_unless (g.range_passes == 4 && g.range_max == 255);
  fail_unless (g.w == 12 && g.h == 8 && g.d == 35, "%d %d %d", g.w, g.h, g.d);
  /* Colour: 0.4 sigma-color, one pass; the 10-bit range scaled. */
  cbf_reference_grid_cells (100, 50, 3, 10, 30, 16, &g);
  fail_unless (g.cell_range == (float) ((float) (12 / sqrt (1.25)) *
          (1023 / 255.0)));
  fail_unless (g.range_passes == 1 && g.range_max == 1023);
  /* Small sigmas: cells held at 4 pixels and 255 / 96 levels, one pass. */
  cbf_reference_grid_cells (100, 50, 1, 8, 2, 2, &g);
  fail_unless (g.cell_space == 4 && g.cell_range == (float) (255.0 / 96));
  fail_unless_equals_int (g.range_passes, 1);

  for (p = 0; p < 40 * 30 * 4; p++)
    flat[p] = p % 4 == 3 ? p % 251 : 60 + 70 * (p % 4);
  cbf_reference_grid (flat, 40 * 4, flat_out, 40 * 4, 40, 30, 4, 0, 3, 30, 8);
  fail_unless (memcmp (flat, flat_out, sizeof flat) == 0,
      "a flat picture changed");

  for (p = 0; p < G_N_ELEMENTS (pictures); p++) {
    gint w, h, ch;
    guint8 *in = golden_load_pnm (pictures[p], &w, &h, &ch);
    guint8 *exact = g_malloc ((gsize) w * h * ch);
    guint8 *grid = g_malloc ((gsize) w * h * ch);

    for (s = 0; s < G_N_ELEMENTS (sigmas); s++) {
      gdouble db_grid, db_input;

      cbf_reference_bilateral (in, w * ch, exact, w * ch, w, h, ch, 0, ch, 0,
          60, sigmas[s]);
      cbf_reference_grid (in, w * ch, grid, w * ch, w, h, ch, 0, ch, 60,
          sigmas[s]);
      db_grid = psnr (grid, exact, w * h, ch, 0, ch);
      db_input = psnr (in, exact, w * h, ch, 0, ch);
      g_print ("reference grid against exact, %s, sigma-color 60, "
          "sigma-space %g: %.2f dB (the input %.2f dB)\n", pictures[p],
          sigmas[s], db_grid, db_input);
      fail_unless (db_grid >= db_input + 3, "%s sigma-space %g: the grid "
          "%.2f dB, the input %.2f dB", pictures[p], sigmas[s], db_grid,
          db_input);
    }
    g_free (in);
    g_free (exact);
    g_free (grid);
  }
}

GST_END_TEST;

/* The temporal reference: values worked by hand, a previous frame that
 * makes no difference where the two are far apart, the spatial values of
 * every mode rounding to the rounded references' outputs. */
GST_START_TEST (test_temporal_reference)
{
  /* One channel: B 100.4, P 110, a 0.8, sigma 10: D 9.6,
   * g = exp (-0.4608) = 0.63078, Y = 100.4 + 0.8 x 0.63078 x 9.6 = 105.24. */
  const gdouble one[] = { 100.4 }, far[] = { 100.4 };
  const guint8 prev_one[] = { 110 }, prev_far[] = { 160 };
  /* Three channels, 10 bits (sigma 10 levels: 40.118 samples): B (400, 500,
   * 600.6), P (410, 490, 620): D 39.4, g = exp (-0.48225) = 0.61740,
   * Y = B + 0.5 g (P - B): 403.09, 496.91, 606.59. */
  const gdouble three[] = { 400, 500, 600.6 };
  const guint16 prev_three[] = { 410, 490, 620 };
  guint8 out8[1];
  guint16 out16[3];
  guint8 camera[24 * 16];
  guint8 rounded[24 * 16];
  gdouble values[24 * 16];
  gint i;

  cbf_reference_temporal (one, prev_one, 1, out8, 1, 1, 8, 1, 1, 1, 0, 1,
      0.8, 10);
  fail_unless_equals_int (out8[0], 105);
  cbf_reference_temporal (one, NULL, 1, out8, 1, 1, 8, 1, 1, 1, 0, 1, 0.8, 10);
  fail_unless_equals_int (out8[0], 100);
  /* D 59.6: g = 1.9e-8, the previous frame is ignored. */
  cbf_reference_temporal (far, prev_far, 1, out8, 1, 1, 8, 1, 1, 1, 0, 1,
      0.95, 10);
  fail_unless_equals_int (out8[0], 100);
  cbf_reference_temporal (three, prev_three, 3, out16, 3, 2, 10, 1, 1, 3, 0,
      3, 0.5, 10);
  fail_unless (out16[0] == 403 && out16[1] == 497 && out16[2] == 607,
      "%u %u %u", out16[0], out16[1], out16[2]);

  /* B of each mode is what its rounded reference rounds. */
  for (i = 0; i < 24 * 16; i++)
    camera[i] = (guint8) ((i * 37) % 251);
  cbf_reference_values (CBF_REFERENCE_BILATERAL, camera, 24, 1, 8, 24, 16, 1,
      0, 1, 5, 30, 3, values);
  cbf_reference_bilateral (camera, 24, rounded, 24, 24, 16, 1, 0, 1, 5, 30, 3);
  for (i = 0; i < 24 * 16; i++)
    fail_unless (lrint (values[i]) == rounded[i], "bilateral [%d]", i);
  cbf_reference_values (CBF_REFERENCE_GAUSSIAN, camera, 24, 1, 8, 24, 16, 1,
      0, 1, 5, 0, 2, values);
  cbf_reference_gaussian (camera, 24, rounded, 24, 24, 16, 1, 0, 1, 5, 2);
  for (i = 0; i < 24 * 16; i++)
    fail_unless (lrintf ((float) values[i]) == rounded[i], "gaussian [%d]", i);
  cbf_reference_values (CBF_REFERENCE_GRID, camera, 24, 1, 8, 24, 16, 1, 0, 1,
      0, 30, 8, values);
  cbf_reference_grid (camera, 24, rounded, 24, 24, 16, 1, 0, 1, 30, 8);
  for (i = 0; i < 24 * 16; i++)
    fail_unless (lrint (values[i]) == rounded[i], "grid [%d]", i);
  /* Sigma 0: the input itself. */
  cbf_reference_values (CBF_REFERENCE_BILATERAL, camera, 24, 1, 8, 24, 16, 1,
      0, 1, 5, 0, 3, values);
  for (i = 0; i < 24 * 16; i++)
    fail_unless (values[i] == camera[i], "sigma 0 [%d]", i);
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
  tcase_add_test (tc, test_radius_rule);
  tcase_add_test (tc, test_chroma_rule);
  tcase_add_test (tc, test_chroma_guide_siting);
  tcase_add_test (tc, test_gaussian_reference_matches_opencv);
  tcase_add_test (tc, test_border_rules);
  tcase_add_test (tc, test_border_reference_matches_opencv);
  tcase_add_test (tc, test_border_deep_reference_widened_matches_opencv);
  tcase_add_test (tc, test_mask_reference);
  tcase_add_test (tc, test_grid_reference);
  tcase_add_test (tc, test_temporal_reference);
  return s;
}

GST_CHECK_MAIN (reference);
