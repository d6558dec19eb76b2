/* The kernels' host-side arithmetic (the tables and rules the element
 * fills its kernels' parameters with) against the C reference, without a
 * GPU. Only here do the tests call kernels/ code other than through the
 * element: the reference is the oracle, the element's tables and rules are
 * what is tested, so that a table that is off (an entry, a bucket) fails
 * on the CPU, in CI. */

#include <gst/check/gstcheck.h>

#include <math.h>
#include <string.h>

#include "golden.h"
#include "reference.h"
#include "reference_chroma.h"
#include "gpu_support.h"

#include "bilateral.h"
#include "gaussian.h"
#include "grid.h"
#include "mask.h"

/* Fails unless @got is within @rel of @want, or within @abs of it where
 * @want is that small. */
static void
assert_weight (gdouble got, gdouble want, gdouble rel, gdouble abs_floor,
    const gchar * what, gint i)
{
  fail_unless (fabs (got - want) <= rel * want + abs_floor, "%s [%d]: %.9g, "
      "the reference %.9g", what, i, got, want);
}

/* The radius, chroma and Gaussian size rules, over many parameters. */
GST_START_TEST (test_kernel_rules)
{
  static const gdouble sigmas[] = { -1, 0, 1e-7, 0.3, 1, 1.25, 5.0 / 3, 2.5,
    3.3, 10, 33.3, 75, 100, 199.99, 200
  };
  gint d, f, s;

  for (d = -2; d <= 255; d++)
    for (s = 0; s < (gint) G_N_ELEMENTS (sigmas); s++) {
      gint kd, rd, kk, rk;
      gdouble kss, rss, ksig, rsig;

      fail_unless_equals_int (cbf_bilateral_radius (d, sigmas[s]),
          cbf_reference_radius (d, sigmas[s]));
      for (f = 1; f <= 2; f++) {
        cbf_bilateral_chroma_params (d, sigmas[s], f, &kd, &kss);
        cbf_reference_chroma_params (d, sigmas[s], f, &rd, &rss);
        fail_unless (kd == rd && kss == rss, "chroma of d=%d ss=%g", d,
            sigmas[s]);
      }
      cbf_gaussian_params (d, sigmas[s], &kk, &ksig);
      cbf_reference_gaussian_params (d, sigmas[s], &rk, &rsig);
      fail_unless (kk == rk && ksig == rsig, "Gaussian size of d=%d ss=%g",
          d, sigmas[s]);
    }
}

GST_END_TEST;

/* The IEEE binary16 value of @h (no sign, infinity or NaN in a weight). */
static gdouble
half_value (guint16 h)
{
  gint exponent = (h >> 10) & 31, mantissa = h & 1023;

  return exponent == 0 ? ldexp (mantissa, -24) :
      ldexp (1024 + mantissa, exponent - 25);
}

/* Whether some tap (@a, @b) of the disc of @radius, 0 <= a <= b, has
 * a^2 + b^2 = @v: the classes of the per-class weights. */
static gboolean
tap_of_distance (gint radius, gint v, gint * a, gint * b)
{
  for (*a = 0; *a <= radius; (*a)++)
    for (*b = *a; *b <= radius; (*b)++)
      if (*a * *a + *b * *b == v && v <= radius * radius)
        return TRUE;
  return FALSE;
}

/* The wide one-channel kernel's weights (bilateral.h): each class's
 * table the reference's weight in half (within half a half's step, 2^-11
 * of it, or 2^-25 below the normal range, with the float product's own
 * rounding on top), table 0 all zeros and shared by exactly the classes
 * whose weights all round to 0, and no table for distances outside the
 * disc. */
static void
check_wide_channel_tables (const float *tables, gint r, gdouble sc, gdouble ss)
{
  const gint32 *header =
      (const gint32 *) (tables + cbf_tables_wide_channel_offset (r));
  const gint32 *table_of = header + 4;
  const guint16 *weights =
      (const guint16 *) (tables + cbf_tables_wide_channel_tables_offset (r));
  gint v, d, a, b, n = header[0];

  fail_unless (n >= 1 && n <= cbf_distance_class (r, r * r + 1) + 1,
      "r %d: %d tables", r, n);
  for (d = 0; d < 256; d++)
    fail_unless_equals_int (weights[d], 0);
  for (v = 0; v <= r * r; v++) {
    gboolean tap = tap_of_distance (r, v, &a, &b), nonzero = FALSE;
    gint t = table_of[v];

    fail_unless (t >= 0 && t < n, "r %d: d^2 %d has table %d of %d", r, v,
        t, n);
    if (!tap) {
      fail_unless_equals_int (t, 0);
      continue;
    }
    for (d = 0; d < 256; d++) {
      gdouble want = cbf_reference_space_weight (a, b, r, ss) *
          cbf_reference_range_weight (d, 8, sc);
      gdouble got = half_value (weights[(gsize) t * 256 + d]);
      gdouble slack = MAX (want * (0x1p-11 + 4e-7), 0x1p-25 + 1e-12);

      if (t)
        fail_unless (fabs (got - want) <= slack, "r %d sc %g ss %g: weight "
            "of d^2 %d, distance %d: %.9g, the reference %.9g", r, sc, ss, v,
            d, got, want);
      nonzero |= want > slack;
    }
    fail_unless (t != 0 || !nonzero, "r %d: d^2 %d shares the zero table "
        "with weights that round above 0", r, v);
  }
}

/* The wide kernel's folded tables (bilateral.h) at radius @r: for each
 * column offset j the weight of tap (j, 0) times each range weight, then
 * the range scale and log2 of the weight of tap (j, 0), from which the
 * kernel computes some pairs' weights as 2^(log2 (space) - (d scale)^2):
 * checked by computing every range weight so, against the reference; a
 * table of zeros, whose log2 is -inf; and row factors whose products from
 * row 1 to row k are the weight of tap (0, k), which the kernel's scaled
 * sums rely on. */
static void
check_wide_fold_tables (const float *tables, gint r, gdouble sc, gdouble ss)
{
  const float *fold = tables + cbf_tables_wide_fold_offset (r);
  const float *factor = fold + (r + 2) * CBF_RANGE_LUT_LEN;
  gdouble product = 1;
  gint j, d, k;

  fail_unless (cbf_tables_wide_fold_offset (r) % 4 == 0);
  fail_unless (cbf_tables_wide_channel_offset (r) >=
      cbf_tables_wide_fold_offset (r) + (r + 2) * CBF_RANGE_LUT_LEN + r + 1);
  for (j = 0; j <= r; j++) {
    const float *last = fold + (j + 1) * CBF_RANGE_LUT_LEN;
    for (d = 0; d <= 3 * 255; d++) {
      gdouble want = cbf_reference_space_weight (j, 0, r, ss) *
          cbf_reference_range_weight (d, 8, sc);
      gdouble y = d * (gdouble) last[-2];
      assert_weight (fold[j * CBF_RANGE_LUT_LEN + d], want, 1e-6, 1e-40,
          "folded table", j * CBF_RANGE_LUT_LEN + d);
      /* the two floats' roundings move the exponent by at most 2^-23 of
       * each term */
      assert_weight (exp2 (last[-1] - y * y), want,
          1e-6 + 1e-7 * (y * y + fabs (last[-1])), 1e-40,
          "folded table's computed weight", j * CBF_RANGE_LUT_LEN + d);
    }
  }
  for (d = 0; d < CBF_RANGE_LUT_LEN - 1; d++)
    fail_unless (fold[(r + 1) * CBF_RANGE_LUT_LEN + d] == 0.f ||
        d == CBF_RANGE_LUT_LEN - 2, "r %d: zero table entry %d", r, d);
  fail_unless (isinf (fold[(r + 2) * CBF_RANGE_LUT_LEN - 1]) &&
      fold[(r + 2) * CBF_RANGE_LUT_LEN - 1] < 0,
      "r %d: the zero table's log2 is not -inf", r);
  for (k = 1; k <= r; k++) {
    product *= factor[k];
    assert_weight (product, cbf_reference_space_weight (0, k, r, ss),
        1e-6 * k, 1e-40, "row factors' product", k);
  }
}

/* The spatial weight of the taps with @inner^2 < dx^2 + dy^2 <= @outer^2
 * (the taps a walk of radius @inner leaves out of a window of @outer),
 * summed over the whole square. */
static long double
left_out_weight (gint inner, gint outer, gdouble sigma_space)
{
  long double sum = 0;
  gint dx, dy;

  for (dy = -outer; dy <= outer; dy++)
    for (dx = -outer; dx <= outer; dx++) {
      gint d2 = dx * dx + dy * dy;
      if (d2 > inner * inner && d2 <= outer * outer)
        sum += expl (-(long double) d2 / (2.0L * sigma_space * sigma_space));
    }
  return sum;
}

/* cbf_bilateral_walk_radius leaves out taps weighing at most 1 / (32 x
 * the largest level) (an output then moves by at most 1/32 of a level),
 * and no fewer radii than that allows: each walk radius checked against
 * the sums of the weights it leaves out and of one radius less. */
GST_START_TEST (test_walk_radius)
{
  static const gint radii[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20,
    27, 30, 40
  };
  static const gdouble sigmas[] = { 0, 0.5, 1, 1.5, 2, 3, 5, 8, 20 };
  static const gint levels[] = { 255, 1023, 4095, 65535 };
  gint i, s, l, walked = 0;

  for (i = 0; i < (gint) G_N_ELEMENTS (radii); i++)
    for (s = 0; s < (gint) G_N_ELEMENTS (sigmas); s++)
      for (l = 0; l < (gint) G_N_ELEMENTS (levels); l++) {
        gint r = radii[i];
        gdouble sigma = sigmas[s] > 0 ? sigmas[s] : 1;
        long double bound = 1.0L / (32.0L * levels[l]);
        gint w = cbf_bilateral_walk_radius (r, sigmas[s], levels[l]);

        fail_unless (w >= 1 && w <= r, "walk %d of radius %d", w, r);
        fail_unless (left_out_weight (w, r, sigma) <= bound,
            "radius %d sigma %g level %d: walk %d leaves out too much", r,
            sigmas[s], levels[l], w);
        fail_unless (w == 1 || left_out_weight (w - 1, r, sigma) > bound,
            "radius %d sigma %g level %d: walk %d could be %d", r,
            sigmas[s], levels[l], w, w - 1);
        walked += w < r;
      }
  /* the bench's d = 61 at sigma-space 5, the same sums worked out apart */
  fail_unless_equals_int (cbf_bilateral_walk_radius (30, 5, 255), 27);
  fail_unless_equals_int (cbf_bilateral_walk_radius (30, 5, 65535), 30);
  fail_unless (walked > 50, "only %d windows walked less", walked);
}

GST_END_TEST;

/* The 8-bit tables (bilateral.h's layout): the range table, the space
 * table and half widths, and the per-class weights (float, half and
 * 16-bit integer) against the reference's weights in double, at radii of
 * every kernel and sigmas from small to large. A float entry is within
 * 10^-6 of the weight it rounds (2 x 10^-6 for a product of two); a half
 * within 2^-11; an integer within half a step. */
GST_START_TEST (test_kernel_tables)
{
  static const struct
  {
    gint radius;
    gdouble sigma_color, sigma_space;
  } params[] = { {1, 1, 1}, {2, 10, 2}, {4, 30, 3}, {5, 75, 75}, {7, 50, 10},
  {8, 200, 8}, {8, 0.5, 3}, {9, 60, 6}, {10, 30, 8}, {10, 150, 200},
  {15, 30, 5}, {15, 0, 5}, {20, 30, 3}, {20, 0.5, 3}, {30, 50, 20},
  {30, 150, 200}, {48, 60, 32}
  };
  float *tables = g_malloc (cbf_bilateral_tables_max_len () * sizeof (float));
  guint p;

  for (p = 0; p < G_N_ELEMENTS (params); p++) {
    gint r = params[p].radius, i, v, d, a, b, dx, dy, cls = 0;
    gdouble sc = params[p].sigma_color, ss = params[p].sigma_space, int_scale;
    const float *space, *half_width;

    cbf_bilateral_tables_fill (tables, r, sc, ss);
    for (i = 0; i < CBF_RANGE_LUT_LEN; i++)
      assert_weight (tables[i], cbf_reference_range_weight (i, 8, sc), 1e-6,
          1e-40, "range table", i);
    space = cbf_tables_space (tables);
    half_width = cbf_tables_half_width (tables, r);
    for (dy = 0; dy <= r; dy++) {
      gint hw = 0;

      /* OpenCV's window: the taps with sqrt (dx^2 + dy^2) <= radius. */
      while (sqrt ((double) (hw + 1) * (hw + 1) + (double) dy * dy) <= r)
        hw++;
      fail_unless_equals_int ((gint) half_width[dy], hw);
      for (dx = 0; dx <= hw; dx++)
        assert_weight (space[dx * dx + dy * dy],
            cbf_reference_space_weight (dx, dy, r, ss), 1e-6, 1e-40,
            "space table", dx * dx + dy * dy);
    }
    if (r > CBF_FAST_EXTENDED_MAX_RADIUS && r <= CBF_WIDE_MAX_RADIUS) {
      check_wide_fold_tables (tables, r, sc, ss);
      check_wide_channel_tables (tables, r, sc, ss);
    }
    if (r > CBF_FAST_EXTENDED_MAX_RADIUS)
      continue;
    /* the integer weights' scale: 2^15 to radius 8, beyond it the largest
     * whose sums, at most the disc's weights of distance 0 times 255,
     * stay below 2^32 */
    int_scale = r <= CBF_FAST_MAX_RADIUS ? CBF_INT_WEIGHT_ONE :
        cbf_extended_int_scale (cbf_tables_space (tables), r);
    fail_unless (int_scale >= 1 && int_scale <= 65535, "r %d: scale %g", r,
        int_scale);
    if (r > CBF_FAST_MAX_RADIUS) {
      gdouble largest_sum = 0;

      for (dy = -r; dy <= r; dy++)
        for (dx = -r; dx <= r; dx++)
          if (dx * dx + dy * dy <= r * r)
            largest_sum += cbf_reference_space_weight (dx, dy, r, ss) *
                int_scale + 0.5;
      fail_unless (largest_sum * 255 < 4294967296.0, "r %d sc %g ss %g: "
          "sums reach %.0f, past 2^32", r, sc, ss, largest_sum * 255);
      /* as large as it may be: 65535, or nearly the limit */
      fail_unless (int_scale == 65535 || largest_sum * 255 > 4.2e9,
          "r %d sc %g ss %g: scale %g, sums only %.0f", r, sc, ss, int_scale,
          largest_sum * 255);
    }
    for (v = 0; v <= r * r; v++) {
      const guint16 *color, *ints, *color_ints;
      gdouble space_w;

      if (!tap_of_distance (r, v, &a, &b))
        continue;
      color = (const guint16 *) (tables +
          cbf_tables_color_class_weights_offset (r)) + cls * CBF_RANGE_LUT_LEN;
      ints = (const guint16 *) (tables + cbf_tables_int_weights_offset (r)) +
          cls * 256;
      color_ints = (const guint16 *) (tables +
          cbf_tables_color_int_weights_offset (r)) + cls * CBF_RANGE_LUT_LEN;
      space_w = cbf_reference_space_weight (a, b, r, ss);
      for (d = 0; d < CBF_RANGE_LUT_LEN; d++) {
        gdouble want = space_w * cbf_reference_range_weight (d, 8, sc);

        if (d < 256)
          fail_unless (fabs (ints[d] - want * int_scale) <= 0.5 +
              2e-6 * int_scale, "r %d: integer class weight [%d]: %u, "
              "the reference %.3f", r, cls * 256 + d, ints[d],
              want * int_scale);
        assert_weight (half_value (color[d]), want, 1.0 / 2048 + 2e-6,
            ldexp (1, -25), "colour class weight", cls * CBF_RANGE_LUT_LEN + d);
        if (r <= CBF_FAST_MAX_RADIUS)
          fail_unless (fabs (color_ints[d] - want * CBF_COLOR_INT_WEIGHT_ONE)
              <= 0.5 + 2e-6 * CBF_COLOR_INT_WEIGHT_ONE, "r %d: colour integer "
              "class weight [%d]: %u, the reference %.3f", r,
              cls * CBF_RANGE_LUT_LEN + d, color_ints[d],
              want * CBF_COLOR_INT_WEIGHT_ONE);
      }
      cls++;
    }
    fail_unless_equals_int (cls, cbf_distance_class (r, r * r + 1));
  }
  g_free (tables);
}

GST_END_TEST;

/* One region of the tables: where it starts, how many floats it holds,
 * and whether a kernel copies it with 16-byte loads. */
typedef struct
{
  size_t at, len;
  gboolean vector;
} TableRegion;

/* The regions of the tables (bilateral.h) at @r, in the order they lie;
 * returns how many. */
static gint
table_regions (gint r, TableRegion * regions)
{
  gint n = cbf_distance_class (r, r * r + 1), count = 0;

#define REGION(offset, floats, vec) \
  (regions[count].at = (offset), regions[count].len = (floats), \
   regions[count++].vector = (vec))
  REGION (0, cbf_tables_class_weights_offset (r), FALSE);
  if (r <= CBF_FAST_EXTENDED_MAX_RADIUS) {
    REGION (cbf_tables_color_class_weights_offset (r),
        (size_t) n * CBF_COLOR_CLASS_FLOATS, TRUE);
    REGION (cbf_tables_int_weights_offset (r),
        (size_t) n * CBF_INT_CLASS_FLOATS, TRUE);
    if (r <= CBF_FAST_MAX_RADIUS)
      REGION (cbf_tables_color_int_weights_offset (r),
          (size_t) n * CBF_COLOR_CLASS_FLOATS, TRUE);
  } else if (r <= CBF_WIDE_MAX_RADIUS) {
    REGION (cbf_tables_wide_fold_offset (r), cbf_tables_wide_fold_len (r),
        TRUE);
    REGION (cbf_tables_wide_channel_offset (r), 4 + (size_t) r * r + 1, FALSE);
    /* at most a table a class and the zero table */
    REGION (cbf_tables_wide_channel_tables_offset (r),
        (size_t) (n + 1) * CBF_INT_CLASS_FLOATS, TRUE);
  }
#undef REGION
  return count;
}

/* Every region of the tables at every radius that has its own layout (and
 * a few past them, which hold only the range and space tables): in order,
 * disjoint, all inside cbf_bilateral_tables_len; and the fill writes
 * nothing past that length (a guard after it keeps its pattern), which a
 * region left out of the length would break: the device copy holds only
 * that many floats. The regions that kernels copy with 16-byte loads start
 * 16-byte aligned, and the padding before the first of them is zeroed
 * (the buffer is filled with a pattern first), so that the copy is the
 * same for the same parameters. */
GST_START_TEST (test_kernel_table_regions)
{
  const gint guard = 4096;
  static const gint wider[] = { CBF_WIDE_MAX_RADIUS + 1, 64, CBF_MAX_RADIUS };
  gint j;

  for (j = 1; j <= CBF_WIDE_MAX_RADIUS + (gint) G_N_ELEMENTS (wider); j++) {
    gint r = j <= CBF_WIDE_MAX_RADIUS ? j : wider[j - CBF_WIDE_MAX_RADIUS - 1];
    size_t len = cbf_bilateral_tables_len (r), end = 0;
    TableRegion regions[8];
    gint count = table_regions (r, regions), k, i;
    float *tables;
    guint32 bits;

    for (k = 0; k < count; k++) {
      fail_unless (regions[k].at >= end, "r %d: region %d starts at %zu, "
          "inside the one before (ends at %zu)", r, k, regions[k].at, end);
      fail_unless (!regions[k].vector || regions[k].at % 4 == 0, "r %d: "
          "region %d starts at float %zu, not 16-byte aligned", r, k,
          regions[k].at);
      end = regions[k].at + regions[k].len;
    }
    fail_unless (end <= len, "r %d: the regions end at %zu, past the "
        "length %zu", r, end, len);

    tables = g_malloc ((len + guard) * sizeof (float));
    memset (tables, 0xa5, (len + guard) * sizeof (float));
    cbf_bilateral_tables_fill (tables, r, 30, r / 2.0);
    if (count > 1)
      for (i = (gint) regions[0].len; i < (gint) regions[1].at; i++) {
        memcpy (&bits, tables + i, sizeof bits);
        fail_unless (bits == 0, "r %d: padding float %d not zeroed", r, i);
      }
    for (i = 0; i < guard; i++) {
      memcpy (&bits, tables + len + i, sizeof bits);
      fail_unless (bits == 0xa5a5a5a5u, "r %d: the fill wrote float %zu, "
          "past the length %zu", r, len + i, len);
    }
    g_free (tables);
  }
}

GST_END_TEST;

/* mode=gaussian's coefficients against the reference's, within 10^-6,
 * fixed kernels, even and odd sizes, sigmas given and derived. */
GST_START_TEST (test_kernel_gaussian_coefficients)
{
  static const struct
  {
    gint diameter;
    gdouble sigma_space;
  } params[] = { {1, 0}, {3, 0}, {4, 0}, {5, 0}, {7, 0}, {9, 0}, {5, 1},
  {15, 0}, {31, 6}, {0, 1.5}, {0, 3}, {-1, 0}, {255, 40}, {0, 100}
  };
  gdouble want[1201];
  float got[1201];
  guint p;

  for (p = 0; p < G_N_ELEMENTS (params); p++) {
    gint ksize, i;
    gdouble sigma;

    cbf_reference_gaussian_params (params[p].diameter, params[p].sigma_space,
        &ksize, &sigma);
    cbf_reference_gaussian_kernel (want, ksize, sigma);
    cbf_gaussian_kernel_fill (got, ksize, sigma);
    for (i = 0; i < ksize; i++)
      assert_weight (got[i], want[i], 1e-6, 1e-40, "Gaussian coefficient", i);
  }
}

GST_END_TEST;

/* The deep range table: each bucket's weight that of the distance at its
 * middle, by the reference, within 10^-6, for every depth and channel
 * count the element takes, and the deep space table. */
GST_START_TEST (test_kernel_deep_tables)
{
  static const gint depths[] = { 10, 12, 16 };
  static const gdouble sigmas[] = { 1, 10, 30, 75, 200 };
  float *tables = g_malloc (cbf_bilateral_tables_max_len () * sizeof (float));
  guint b, s, channels;

  for (b = 0; b < G_N_ELEMENTS (depths); b++)
    for (channels = 1; channels <= 3; channels += 2)
      for (s = 0; s < G_N_ELEMENTS (sigmas); s++) {
        gint bits = depths[b], shift = cbf_deep_range_shift (bits, channels);
        gint largest = ((1 << bits) - 1) * channels, i, dx, dy, r = 5;

        fail_unless ((largest >> shift) < CBF_DEEP_RANGE_LUT_LEN);
        cbf_deep_tables_fill (tables, r, bits, channels, sigmas[s], 3.0);
        for (i = 0; i <= largest >> shift; i++)
          assert_weight (tables[i], cbf_reference_range_weight (i * (1 <<
                      shift) + ((1 << shift) - 1) / 2.0, bits, sigmas[s]),
              1e-6, 1e-40, "deep range table", i);
        for (dy = 0; dy <= r; dy++)
          for (dx = 0; dx * dx + dy * dy <= r * r; dx++)
            assert_weight (tables[CBF_DEEP_RANGE_LUT_LEN + dx * dx + dy * dy],
                cbf_reference_space_weight (dx, dy, r, 3.0), 1e-6, 1e-40,
                "deep space table", dx * dx + dy * dy);
      }
  g_free (tables);
}

GST_END_TEST;

/* The grid's cells, range passes and sizes (cbf_grid_cells,
 * cbf_grid_dims) against the reference's, to the bit. */
GST_START_TEST (test_kernel_grid_cells)
{
  static const gdouble sigmas_space[] = { 0, 1, 4, 5, 8, 10, 16, 24, 32, 75,
    200
  };
  static const gdouble sigmas_color[] = { 0, 0.5, 2, 5, 10, 20, 30, 60, 75,
    200
  };
  static const gint depths[] = { 8, 10, 12, 16 };
  static const gint sizes[][2] = { {1, 1}, {97, 61}, {1920, 1080} };
  guint a, b, c, d, z;

  for (a = 0; a < G_N_ELEMENTS (sigmas_space); a++)
    for (b = 0; b < G_N_ELEMENTS (sigmas_color); b++)
      for (c = 1; c <= 3; c += 2)
        for (d = 0; d < G_N_ELEMENTS (depths); d++)
          for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
            CbfGridScratch grid = { {NULL, NULL}, 0, 0, 0, 0, 0 };
            CbfReferenceGridCells ref;
            CbfGridDims dims;

            cbf_grid_cells (sigmas_space[a], sigmas_color[b], c, depths[d],
                &grid);
            dims = cbf_grid_dims (sizes[z][0], sizes[z][1], &grid);
            cbf_reference_grid_cells (sizes[z][0], sizes[z][1], c, depths[d],
                sigmas_color[b], sigmas_space[a], &ref);
            fail_unless (grid.cell_space == ref.cell_space
                && grid.cell_range == ref.cell_range
                && grid.range_passes == ref.range_passes
                && grid.range_max == ref.range_max && dims.w == ref.w
                && dims.h == ref.h && dims.d == ref.d, "ss=%g sc=%g, %u "
                "channels, %d bits: cells %g %g, %d passes, %dx%dx%d; the "
                "reference %g %g, %d passes, %dx%dx%d", sigmas_space[a],
                sigmas_color[b], c, depths[d], grid.cell_space,
                grid.cell_range, grid.range_passes, dims.w, dims.h, dims.d,
                ref.cell_space, ref.cell_range, ref.range_passes, ref.w,
                ref.h, ref.d);
          }
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

/* The deep kernels' arithmetic on their tables: float spatial weights and
 * half widths (cbf_deep_tables_fill), the range weight from the bucket of
 * distance >> cbf_deep_range_shift, float sums, the quotient rounded to
 * the nearest. Packed pixels of @channels samples. */
static void
deep_table_filter (const guint16 * src, guint16 * dst, gint width,
    gint height, gint channels, gint bits, gint diameter,
    gdouble sigma_color, gdouble sigma_space)
{
  gint radius = cbf_bilateral_radius (diameter, sigma_space);
  gint shift = cbf_deep_range_shift (bits, channels), x, y, dx, dy, c;
  float *tables = g_malloc (cbf_deep_tables_len (radius) * sizeof (float));
  const float *space = tables + CBF_DEEP_RANGE_LUT_LEN;
  const float *half_width = space + radius * radius + 1;

  cbf_deep_tables_fill (tables, radius, bits, channels, sigma_color,
      sigma_space);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      const guint16 *centre = src + ((gsize) y * width + x) * channels;
      float sum[3] = { 0, 0, 0 }, wsum = 0;

      for (dy = -radius; dy <= radius; dy++) {
        gint hw = (gint) half_width[ABS (dy)], row = y + dy;

        while (row < 0 || row >= height)        /* reflect-101 */
          row = height == 1 ? 0 : row < 0 ? -row : 2 * height - 2 - row;
        for (dx = -hw; dx <= hw; dx++) {
          gint col = x + dx, distance = 0;
          const guint16 *p;
          float w;

          while (col < 0 || col >= width)
            col = width == 1 ? 0 : col < 0 ? -col : 2 * width - 2 - col;
          p = src + ((gsize) row * width + col) * channels;
          for (c = 0; c < channels; c++)
            distance += ABS (p[c] - centre[c]);
          w = space[dx * dx + dy * dy] * tables[distance >> shift];
          for (c = 0; c < channels; c++)
            sum[c] += w * p[c];
          wsum += w;
        }
      }
      for (c = 0; c < channels; c++)
        dst[((gsize) y * width + x) * channels + c] =
            (guint16) lrintf (sum[c] / wsum);
    }
  g_free (tables);
}

/* The deep kernels' arithmetic (bucketed range table, float sums) against
 * the double-precision reference on native samples: within one level at
 * 10 and 12 bits, within 16 (12-bit precision) at 16 bits, one channel and
 * three, small to large windows. */
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
        deep_table_filter (in, table, w, h, channels, bits,
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
 * float exponent, against the reference's spatial weight times its range
 * weight: within 10^-5 of it (the special-function unit adds about
 * 2^-22), for every distance of one sample and of three, at every tap of
 * radius 8 and of radius 10 (16-bit one channel's last, whose taps fill
 * the whole launch parameter). Weights under 10^-12, which cannot move an
 * output by a level (317 taps x 65535 x 10^-12), are held to 10^-17
 * absolute: their float exponent's rounding grows with its size. */
GST_START_TEST (test_deep_computed_weights)
{
  static const gint depths[] = { 10, 12, 16 };
  static const gdouble sigmas[] = { 1, 10, 30, 200 };
  static const gint radii[] = { 8, 10 };
  float *tables = g_malloc (cbf_bilateral_tables_max_len () * sizeof (float));
  guint b, s, r, n_checked = 0;

  for (r = 0; r < G_N_ELEMENTS (radii); r++)
    for (b = 0; b < G_N_ELEMENTS (depths); b++)
      for (s = 0; s < G_N_ELEMENTS (sigmas); s++) {
        gint radius = radii[r], side = 2 * radius + 1;
        gint bits = depths[b], largest = 3 * ((1 << bits) - 1), d, dx, dy;
        gdouble worst = 0;
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
              double want = cbf_reference_space_weight (dx, dy, radius, 4.0) *
                  cbf_reference_range_weight (d, bits, sigmas[s]);

              worst = MAX (worst, fabs (got - want) / MAX (want, 1e-12));
              n_checked++;
            }
          }
        fail_unless (worst <= 1e-5, "radius %d, %d bits, sigma-color %g: "
            "relative error %g", radius, bits, sigmas[s], worst);
      }
  fail_unless (n_checked > 200000);
  g_free (tables);
}

GST_END_TEST;

/* A mask of CBF_MASK_MAX_PIXELS x 1, the widest accepted, scaled to a few
 * columns: its positions carry 37 bits. Each sample must equal the
 * bilinear value computed in double precision (the
 * element's fixed point, mask.h, against the formula). */
GST_START_TEST (test_widest_mask_positions)
{
  const gint src_w = (gint) CBF_MASK_MAX_PIXELS, dst_w = 7;
  guint8 *mask = g_malloc (src_w);
  gint i, x;

  for (i = 0; i < src_w; i++)
    mask[i] = (guint8) (i >> 18);       /* 0 at the left, 255 at the right */
  for (x = 0; x < dst_w; x++) {
    double pos = (x + 0.5) * src_w / dst_w - 0.5;
    gint64 fixed = cbf_mask_source_position (x, src_w, dst_w);
    gint x0 = (gint) pos;
    double frac = pos - x0, expected;
    guint8 got = cbf_mask_sample (mask, src_w, src_w, 1, dst_w, 1, x, 0);

    fail_unless (fixed >= 0
        && fixed <= ((gint64) (src_w - 1) << CBF_MASK_COEF_BITS));
    fail_unless (ABS ((double) fixed / (1 << CBF_MASK_COEF_BITS) - pos) <
        1.0 / (1 << CBF_MASK_COEF_BITS), "column %d: position %" G_GINT64_FORMAT
        ", expected %f", x, fixed, pos);
    expected = mask[x0] * (1 - frac) + mask[MIN (x0 + 1, src_w - 1)] * frac;
    fail_unless (ABS (got - expected) <= 0.5 + 1e-9, "column %d: %u, "
        "expected %f", x, got, expected);
  }
  g_free (mask);
}

GST_END_TEST;

static Suite *
kernel_tables_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("kernel_tables", 300, &tc);

  tcase_add_test (tc, test_kernel_rules);
  tcase_add_test (tc, test_walk_radius);
  tcase_add_test (tc, test_kernel_tables);
  tcase_add_test (tc, test_kernel_table_regions);
  tcase_add_test (tc, test_kernel_gaussian_coefficients);
  tcase_add_test (tc, test_kernel_deep_tables);
  tcase_add_test (tc, test_kernel_grid_cells);
  tcase_add_test (tc, test_deep_table_within_tolerance);
  tcase_add_test (tc, test_deep_computed_weights);
  tcase_add_test (tc, test_widest_mask_positions);
  return s;
}

GST_CHECK_MAIN (kernel_tables);
