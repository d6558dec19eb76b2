/* cudabilateral on a GPU, the packed 8-bit formats (the 32-bit RGB
 * formats and GRAY8) against OpenCV: every golden file of the bilateral
 * filter and of GaussianBlur (mode=gaussian) within +-1 on every pixel,
 * every other case with padded rows; then odd and degenerate sizes, frames
 * cut into bands, padded strides and every kernel's radii (specialised,
 * wide and generic; Gaussian kernel sizes 1 to 601) against the C
 * reference. The byte the element passes through (alpha, padding) must
 * come back unchanged; output buffers are poisoned before each checked
 * frame, so an unwritten pixel fails. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "golden.h"
#include "gpu_support.h"
#include "packed_image.h"
#include "reference.h"

#include <cuda_runtime_api.h>
#include <math.h>

/* The golden cases of @channels channels, of the bilateral filter or of
 * GaussianBlur (@gaussian). */
static void
check_golden (gint channels, gboolean gaussian)
{
  guint n_cases, i, n_checked = 0;
  GoldenCase *cases = gaussian ? golden_load_gaussian_cases (&n_cases) :
      golden_load_cases (&n_cases);

  for (i = 0; i < n_cases; i++) {
    const GoldenCase *c = &cases[i];
    const PackedFormat *f =
        channels == 1 ? PACKED_GRAY8 : &packed_formats[i % N_PACKED_COLOR];
    Params p = { c->diameter, c->sigma_color, c->sigma_space, gaussian };
    gint w, h, ch;
    guint8 *src, *dst;
    Image in, expected, out;
    GstHarness *harness;

    if (c->channels != channels)
      continue;
    src = golden_load_pnm (c->input, &w, &h, &ch);
    dst = golden_load_pnm (c->output, &w, &h, &ch);
    /* Every other case with padded rows. */
    in = image_from_golden (f, src, w, h, ch, (i % 2) ? 3 * f->pixel_bytes +
        8 : 0, i);
    expected = image_from_golden (f, dst, w, h, ch, 0, i);
    harness = image_harness_new (&in, &p);
    out = image_filter (harness, &in);
    image_assert_matches (&out, &expected, &in, c->name);
    gst_harness_teardown (harness);
    image_free (&in);
    image_free (&expected);
    image_free (&out);
    g_free (src);
    g_free (dst);
    n_checked++;
  }
  fail_unless (n_checked >= 6 * 4, "only %u golden cases", n_checked);
  golden_free_cases (cases);
}

GST_START_TEST (test_golden_gray8)
{
  check_golden (1, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_golden_color)
{
  check_golden (3, FALSE);
}

GST_END_TEST;

/* mode=gaussian against OpenCV's GaussianBlur: 55 GRAY8 cases and 55
 * colour ones, including even and derived kernel sizes. */
GST_START_TEST (test_golden_gaussian)
{
  check_golden (1, TRUE);
  check_golden (3, TRUE);
}

GST_END_TEST;

/* Odd and degenerate sizes, frames cut into bands, padded strides, every
 * specialised radius and the generic kernel's (tiled and large-window),
 * against the C reference. */
GST_START_TEST (test_sizes_and_radii)
{
  /* 1 x 500 and 200 x 300 are cut into bands (7 and 4). */
  static const gint sizes[][2] = { {1, 1}, {3, 7}, {1, 500}, {500, 1},
  {33, 9}, {130, 67}, {200, 300}
  };
  /* Radii 2, 35 and 45 (the generic kernel) and 1, then every specialised
   * radius not in the golden set (3, 5, 6, 8), and the wide kernel's first
   * (9), two of its radii not multiples of four (13, 29) and its last
   * (30). */
  static const Params params[] = { {5, 30, 5, FALSE}, {71, 25, 12, FALSE},
  {0, 60, 30, FALSE}, {2, 0, 0, FALSE}, {7, 40, 3, FALSE},
  {11, 30, 4, FALSE}, {13, 50, 6, FALSE}, {17, 45, 9, FALSE},
  {19, 35, 7, FALSE}, {27, 20, 5, FALSE}, {59, 40, 15, FALSE},
  {0, 25, 20, FALSE},
  /* The extremes of the range weights, which the one-channel kernel
   * rounds to 16-bit integers (bilateral_fast.cuh): none left at a
   * difference of 1 level, and nearly flat. */
  {9, 0.05, 3, FALSE}, {15, 1000, 5, FALSE},
  /* Gaussian: ksize 1, 5, 31 (sigma derived), 255, and 601 (from
   * sigma 100: wider than every frame here) */
  {1, 0, 2, TRUE}, {5, 0, 1.5, TRUE}, {31, 0, 0, TRUE}, {255, 0, 40, TRUE},
  {0, 0, 100, TRUE}
  };
  const PackedFormat *fmts[] =
      { PACKED_GRAY8, &packed_formats[0], &packed_formats[7] };
  guint s, p, fi, seed = 1;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (p = 0; p < G_N_ELEMENTS (params); p++)
      for (fi = 0; fi < G_N_ELEMENTS (fmts); fi++) {
        Image in = image_random (fmts[fi], sizes[s][0], sizes[s][1],
            (seed % 2) ? 0 : 5 * fmts[fi]->pixel_bytes, seed);
        GstHarness *h = image_harness_new (&in, &params[p]);
        gchar *what = g_strdup_printf ("%s d=%d sc=%g ss=%g",
            params[p].gaussian ? "gaussian" : "bilateral", params[p].diameter,
            params[p].sigma_color, params[p].sigma_space);

        image_check_filtered (h, &in, &params[p], what);
        g_free (what);
        gst_harness_teardown (h);
        image_free (&in);
        seed++;
      }
}

GST_END_TEST;

/* The wide kernel's two forms (8-bit layouts, radii 11 to 30), each asked
 * for by GST_CBF_WIDE_KERNEL, so that both run whatever the GPU's size
 * (left to itself, only a large grid takes the folded one; asked for, it
 * runs where its shared memory fits, every case here on a GPU of 227 KiB
 * a block; one channel asked for either takes it in place of its own wide
 * kernel, whose fallback the unfolded one is): whole 4K frames (one band)
 * of 32- and 24-bit colour and GRAY8, against the reference on bands of
 * rows at the top, the middle and the bottom, each computed from the rows
 * its windows reach, so that the reference sees the frame's own borders
 * and no others. */
GST_START_TEST (test_wide_folded)
{
  static const PackedFormat rgb = { "RGB", 3, 0, 3 }, bgr = { "BGR", 3, 0, 3 };
  static const struct
  {
    const PackedFormat *format;
    Params params;
  } cases[] = {
    {&packed_formats[0], {31, 30, 5, FALSE}},
    {&packed_formats[0], {61, 40, 20, FALSE}},
    {&packed_formats[7], {23, 60, 12, FALSE}},
    {&rgb, {31, 30, 5, FALSE}},
    {&rgb, {61, 40, 20, FALSE}},
    {&bgr, {23, 60, 12, FALSE}},
    {PACKED_GRAY8, {31, 30, 5, FALSE}},
    {PACKED_GRAY8, {61, 40, 20, FALSE}},
  };
  static const gchar *forms[] = { "folded", "unfolded" };
  const gint width = 3840, height = 2160, rows = 16;
  const gint bands[] = { 0, height / 2 - rows / 2, height - rows };
  gchar *band_bytes = g_strdup (g_getenv ("GST_CBF_BAND_BYTES"));
  guint c, form, b, seed = 11;
  gint optin = 0;

  /* The folded form fits every radius in 227 KiB a block, to radius 16 in
   * 99 KiB (kernels.md). */
  fail_unless (cudaDeviceGetAttribute (&optin,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  g_setenv ("GST_CBF_BAND_BYTES", "4000000000", TRUE);
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const PackedFormat *f = cases[c].format;
    const Params *p = &cases[c].params;
    const gint radius = p->diameter / 2;
    Image in = image_random (f, width, height, 0, seed++);
    guint8 *expected[G_N_ELEMENTS (bands)];
    Image first = { 0 };

    for (b = 0; b < G_N_ELEMENTS (bands); b++) {
      const gint top = MAX (bands[b] - radius, 0);
      const gint bottom = MIN (bands[b] + rows + radius, height);
      expected[b] = g_malloc (in.stride * (bottom - top));
      cbf_reference_bilateral (in.pixels + top * in.stride, in.stride,
          expected[b], in.stride, width, bottom - top, f->pixel_bytes,
          f->color_offset, f->channels, p->diameter, p->sigma_color,
          p->sigma_space);
    }
    for (form = 0; form < G_N_ELEMENTS (forms); form++) {
      GstHarness *h;
      Image out;

      g_setenv ("GST_CBF_WIDE_KERNEL", forms[form], TRUE);
      h = image_harness_new (&in, p);
      out = image_filter (h, &in);
      for (b = 0; b < G_N_ELEMENTS (bands); b++) {
        const gint top = MAX (bands[b] - radius, 0);
        gint max_diff = 0, fx = 0, fy = 0;
        guint bad = images_diff_beyond_one (out.pixels + bands[b] * out.stride,
            out.stride, expected[b] + (bands[b] - top) * in.stride, in.stride,
            width, rows, f->pixel_bytes, f->color_offset, f->pixel_bytes,
            f->color_offset, f->channels, &max_diff, &fx, &fy);
        fail_unless (bad == 0, "%s %s d=%d sc=%g ss=%g, rows %d..%d: %u "
            "values off by more than 1, max %d, first at %d,%d", forms[form],
            f->name, p->diameter, p->sigma_color, p->sigma_space, bands[b],
            bands[b] + rows - 1, bad, max_diff, fx, bands[b] + fy);
      }
      /* Two different kernels round some sums differently: identical
       * frames would mean the switch was not heeded. */
      if (form == 0) {
        first = out;
      } else {
        gsize k, differing = 0;

        for (k = 0; k < out.stride * height; k++)
          differing += first.pixels[k] != out.pixels[k];
        fail_unless (differing > 0 || (optin < 227 * 1024
                && (radius > 16 || optin < 99 * 1024)),
            "%s d=%d: the folded and unfolded forms gave identical frames",
            f->name, p->diameter);
        image_free (&first);
        image_free (&out);
      }
      gst_harness_teardown (h);
    }
    for (b = 0; b < G_N_ELEMENTS (bands); b++)
      g_free (expected[b]);
    image_free (&in);
  }
  g_unsetenv ("GST_CBF_WIDE_KERNEL");
  if (band_bytes)
    g_setenv ("GST_CBF_BAND_BYTES", band_bytes, TRUE);
  else
    g_unsetenv ("GST_CBF_BAND_BYTES");
  g_free (band_bytes);
}

GST_END_TEST;

/* Level of filtered byte 0 of @im at (@x, @y), the others set to @field. */
static void
set_level (Image * im, gint x, gint y, gint level, gint field)
{
  guint8 *px = im->pixels + y * im->stride + x * im->format->pixel_bytes +
      im->format->color_offset;
  gint c;

  for (c = 0; c < im->format->channels; c++)
    px[c] = c ? field : level;
}

/* Where most of a wide window weighs little, each tap's weight a tiny
 * fraction of the centre's, against the reference: a dark or bright pixel
 * in flat fields (134 and 146, a dark one in a corner too), and a dark
 * pixel in rings whose level at each distance puts its taps' weights just
 * under 2^-17 (half a step of 16-bit weights scaled to 65535). A kernel
 * that rounds small weights to zero there moves these outputs by several
 * levels (OpenCV gives 9.79 for the dark pixel in the field of 134 at
 * d = 61, sigma-space 20), where random pictures show nothing. Every wide
 * kernel: one channel's own, and the folded and unfolded forms. */
GST_START_TEST (test_wide_small_weights)
{
  static const PackedFormat rgb = { "RGB", 3, 0, 3 };
  const PackedFormat *fmts[] = { PACKED_GRAY8, &packed_formats[0], &rgb };
  static const Params params[] = { {61, 30, 20, FALSE}, {61, 30, 5, FALSE},
  {41, 30, 10, FALSE}, {31, 30, 10, FALSE}
  };
  static const gchar *forms[] = { NULL, "folded", "unfolded" };
  const gint width = 160, height = 96, cx = 80, cy = 48;
  guint fi, p, picture, form;

  for (fi = 0; fi < G_N_ELEMENTS (fmts); fi++)
    for (p = 0; p < G_N_ELEMENTS (params); p++)
      for (picture = 0; picture < 2; picture++) {
        const Params *q = &params[p];
        Image in = image_new (fmts[fi], width, height, 0), expected;
        gint x, y;

        for (y = 0; y < height; y++)
          for (x = 0; x < width; x++) {
            gint field = x < width / 2 ? 134 : 146, level = field;

            if (picture == 1) {
              gdouble space = exp (-(gdouble) ((x - cx) * (x - cx) +
                      (y - cy) * (y - cy)) / (2 * q->sigma_space *
                      q->sigma_space));
              /* the least level whose range weight times space is below
               * 2^-17 */
              gdouble d = 2 * 65535 * space > 1 ? ceil (q->sigma_color *
                  sqrt (2 * log (2 * 65535 * space))) : 1;
              field = level = (gint) MIN (d, 255);
            }
            set_level (&in, x, y, level, field);
          }
        if (picture == 0) {
          set_level (&in, 40, cy, 0, 134);
          set_level (&in, 120, cy, 0, 146);
          set_level (&in, 60, 20, 255, 134);
          set_level (&in, 0, 0, 0, 134);
        } else {
          set_level (&in, cx, cy, 0, 0);
        }
        expected = image_reference (&in, q);
        for (form = 0; form < G_N_ELEMENTS (forms); form++) {
          gchar *what = g_strdup_printf ("%s %s d=%d sc=%g ss=%g, %s kernel",
              picture ? "rings" : "flat fields", fmts[fi]->name, q->diameter,
              q->sigma_color, q->sigma_space,
              forms[form] ? forms[form] : "its own");
          GstHarness *h;
          Image out;

          if (forms[form])
            g_setenv ("GST_CBF_WIDE_KERNEL", forms[form], TRUE);
          else
            g_unsetenv ("GST_CBF_WIDE_KERNEL");
          h = image_harness_new (&in, q);
          out = image_filter (h, &in);
          image_assert_matches (&out, &expected, &in, what);
          gst_harness_teardown (h);
          image_free (&out);
          g_free (what);
        }
        image_free (&expected);
        image_free (&in);
      }
  g_unsetenv ("GST_CBF_WIDE_KERNEL");
}

GST_END_TEST;

static Suite *
golden_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-golden", 600, &tc);

  tcase_add_test (tc, test_golden_gray8);
  tcase_add_test (tc, test_golden_color);
  tcase_add_test (tc, test_golden_gaussian);
  tcase_add_test (tc, test_sizes_and_radii);
  tcase_add_test (tc, test_wide_folded);
  tcase_add_test (tc, test_wide_small_weights);
  return s;
}

TEST_MAIN (golden_suite, TEST_NEEDS_GPU, NULL);
