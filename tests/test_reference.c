/* The C reference against OpenCV's golden files: the oracle of the GPU
 * tests is itself checked here, in CI, without a GPU. */

#include <gst/check/gstcheck.h>

#include "golden.h"
#include "reference.h"
#include "bilateral.h"

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

/* The radius rule, on values OpenCV documents or rounds at a tie. */
GST_START_TEST (test_radius_rule)
{
  fail_unless_equals_int (cbf_bilateral_radius (9, 75), 4);
  fail_unless_equals_int (cbf_bilateral_radius (4, 75), 2);
  fail_unless_equals_int (cbf_bilateral_radius (1, 75), 1);
  fail_unless_equals_int (cbf_bilateral_radius (0, 2.5), 4);   /* 3.75 */
  fail_unless_equals_int (cbf_bilateral_radius (0, 1), 2);     /* 1.5: even */
  fail_unless_equals_int (cbf_bilateral_radius (-1, 0), 2);    /* sigma 1 */
  fail_unless_equals_int (cbf_bilateral_radius (0, 200), CBF_MAX_RADIUS);
}

GST_END_TEST;

static Suite *
reference_suite (void)
{
  Suite *s = suite_create ("reference");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reference_matches_opencv);
  tcase_add_test (tc, test_radius_rule);
  return s;
}

GST_CHECK_MAIN (reference);
