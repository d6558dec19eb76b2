/* cudabilateral's method=grid on a GPU, the packed 8-bit formats: crops
 * of data/'s pictures (GRAY8, and colour in both layouts with an alpha
 * byte that must pass unchanged), frames cut into bands, within +-1 of the
 * reference grid and closer to the exact filter than a floor of PSNR well
 * above the unfiltered picture's (FIGURE lines); and the method switched
 * while PLAYING. Output buffers are poisoned before each checked frame.
 * Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>

#include "gpu_support.h"
#include "packed_image.h"

/* PSNR of @out against @expected over the filtered bytes. */
static double
image_psnr (const Image * out, const Image * expected)
{
  const PackedFormat *f = out->format;
  double se = 0;
  gint x, y, c;

  for (y = 0; y < out->height; y++)
    for (x = 0; x < out->width; x++)
      for (c = 0; c < f->channels; c++) {
        gsize b = x * f->pixel_bytes + f->color_offset + c;
        double d = (double) out->pixels[y * out->stride + b] -
            expected->pixels[y * expected->stride + b];
        se += d * d;
      }
  if (se == 0)
    return 99;
  return 10 * log10 (255.0 * 255.0 * out->width * out->height * f->channels /
      se);
}

/* The grid's cases: sigma-space 8, 16 and 32 (32 takes the splat that adds
 * a warp's pixels of one cell at once: cells of 20 pixels or more) at
 * sigma-color 30 and 60, and the floor of its PSNR against the exact
 * filter on each picture, about half a dB under the reference grid's
 * (docs/kernels.md, "The bilateral grid, exactly"); each floor is at least
 * 3 dB above the unfiltered picture's PSNR against the exact filter, so
 * that a grid that did nothing fails. */
static const struct
{
  gdouble sigma_space, sigma_color;
  gdouble floor_gray, floor_color;
} grid_cases[] = {
  {8, 30, 43.0, 42.0}, {16, 30, 41.5, 40.5}, {32, 30, 40.0, 39.0},
  {8, 60, 38.0, 39.5}, {16, 60, 37.0, 38.5}, {32, 60, 35.5, 37.0},
};

/* The crops of data/'s pictures the grid is checked on: 256 x 192 pixels
 * of camera.png (GRAY8) and of astronaut.png (colour) that hold edges,
 * texture and smooth areas. */
#define GRID_W 256
#define GRID_H 192

/* method=grid on real pictures, frames cut into bands (the grid is made
 * from the whole frame before the first band is read back): within +-1 of
 * the reference grid (cbf_reference_grid), and closer to the exact filter
 * than the floors of grid_cases, printed as FIGURE lines
 * (docs/performance.md tables them). GRAY8, and colour in both layouts
 * (RGBA, ARGB) with a random alpha byte that must pass unchanged. Then the
 * method switched while PLAYING. */
GST_START_TEST (test_grid)
{
  guint8 *gray = picture_crop ("camera.png", 1, 128, 96, GRID_W, GRID_H);
  guint8 *rgb = picture_crop ("astronaut.png", 3, 128, 32, GRID_W, GRID_H);
  guint i, color;

  for (color = 0; color < 2; color++)
    for (i = 0; i < G_N_ELEMENTS (grid_cases); i++) {
      const PackedFormat *f =
          !color ? PACKED_GRAY8 : (i %
          2) ? &packed_formats[4] : &packed_formats[0];
      Image in = image_from_golden (f, color ? rgb : gray, GRID_W, GRID_H,
          color ? 3 : 1, 8, 30 + i);
      Params p = { 0, grid_cases[i].sigma_color, grid_cases[i].sigma_space,
        FALSE
      };
      gdouble floor = color ? grid_cases[i].floor_color :
          grid_cases[i].floor_gray, db, db_input, db_reference;
      GstHarness *h = image_harness_new (&in, &p);
      Image out, reference, exact;
      gchar *what = g_strdup_printf ("grid against the reference grid, "
          "sigma-space %g sigma-color %g", p.sigma_space, p.sigma_color);

      gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
      out = image_filter (h, &in);
      reference = image_reference_grid (&in, &p);
      image_assert_matches (&out, &reference, &in, what);
      /* The exact filter of the same sigmas, its window derived (d = 0). */
      exact = image_reference (&in, &p);
      db = image_psnr (&out, &exact);
      db_input = image_psnr (&in, &exact);
      db_reference = image_psnr (&reference, &exact);
      g_print ("FIGURE grid %s %dx%d %s sigma-space %g sigma-color %g: "
          "%.2f dB against the exact filter (floor %.1f; unfiltered input "
          "%.2f dB; reference grid %.2f dB)\n", color ? "astronaut.png" :
          "camera.png", GRID_W, GRID_H, f->name, p.sigma_space,
          p.sigma_color, db, floor, db_input, db_reference);
      fail_unless (db >= floor && floor >= db_input + 3, "%s %s: the grid "
          "%.2f dB against the exact filter, its floor %.1f, the unfiltered "
          "input %.2f dB", f->name, what, db, floor, db_input);
      g_free (what);
      gst_harness_teardown (h);
      image_free (&out);
      image_free (&reference);
      image_free (&exact);
      image_free (&in);
    }
  g_free (gray);
  g_free (rgb);

  {
    /* exact -> grid -> exact while PLAYING. */
    Params p = { 0, 30, 8, FALSE };
    Image in = image_random (&packed_formats[1], 80, 50, 0, 9);
    Image exact = image_reference (&in, &p);
    Image grid = image_reference_grid (&in, &p);
    GstHarness *h = image_harness_new (&in, &p);
    Image out = image_filter (h, &in);

    image_assert_matches (&out, &exact, &in, "exact, before the switch");
    image_free (&out);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
    out = image_filter (h, &in);
    image_assert_matches (&out, &grid, &in, "grid, switched to while PLAYING");
    image_free (&out);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", "exact");
    out = image_filter (h, &in);
    image_assert_matches (&out, &exact, &in, "exact, switched back");
    image_free (&out);
    gst_harness_teardown (h);
    image_free (&exact);
    image_free (&grid);
    image_free (&in);
  }
}

GST_END_TEST;

static Suite *
grid_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-grid", 600, &tc);

  tcase_add_test (tc, test_grid);
  return s;
}

TEST_MAIN (grid_suite, TEST_NEEDS_GPU, NULL);
