/* cudabilateral's strength mask (mask-location) on a GPU, the packed
 * 8-bit formats: a mask of 255 gives the plain filter and one of 0 the
 * input, bit for bit; half and half, and a mask of another size scaled,
 * within +-1 of the reference's blend, bilateral and Gaussian, colour in
 * both layouts and GRAY8; an unreadable mask file at start (an element
 * error, no start) and while PLAYING (a warning, the mask in use kept,
 * then unset); the first frame after each of 1,000 reloads the new mask's
 * blend; a change of the mask while the element starts kept. Output
 * buffers are poisoned before each checked frame. Exits 77 without a CUDA
 * device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "golden.h"
#include "gpu_support.h"
#include "packed_image.h"
#include "reference.h"

/* A PNG in the temporary directory, named for this process. */
static gchar *
mask_file (const gchar * name, const guint8 * pixels, gint width, gint height)
{
  gchar *base = g_strdup_printf ("cbf-mask-%d-%s.png", (int) getpid (), name);
  gchar *path = g_build_filename (g_get_tmp_dir (), base, NULL);

  g_free (base);
  write_gray_png (path, pixels, width, height);
  return path;
}

/* @im filtered with @p and the mask at @mask (NULL: none). */
static Image
filter_masked (const Image * im, const Params * p, const gchar * mask)
{
  GstHarness *h = image_harness_new (im, p);
  Image out;

  g_object_set (h->element, "mask-location", mask, NULL);
  out = image_filter (h, im);
  gst_harness_teardown (h);
  return out;
}

/* What the mask (@mask_w x @mask_h) makes of the unmasked output
 * @filtered, by the reference's scaling and blend (reference.h): computed
 * in double, the scaled mask may differ from the element's 11-bit fixed
 * point by one level, so the output is compared within +-1 of it
 * (image_assert_matches). */
static Image
expected_masked (const Image * in, const Image * filtered,
    const guint8 * mask, gint mask_w, gint mask_h)
{
  const PackedFormat *f = in->format;
  Image e = image_new (f, in->width, in->height, 0);
  gint x, y, b;

  for (y = 0; y < in->height; y++)
    for (x = 0; x < in->width; x++) {
      gint m = cbf_reference_mask_sample (mask, mask_w, mask_w, mask_h,
          in->width, in->height, x, y);
      for (b = 0; b < f->pixel_bytes; b++) {
        gsize i = y * in->stride + x * f->pixel_bytes + b;
        gsize o = y * filtered->stride + x * f->pixel_bytes + b;
        e.pixels[y * e.stride + x * f->pixel_bytes + b] =
            (guint8) cbf_reference_mask_blend (in->pixels[i],
            filtered->pixels[o], m);
      }
    }
  return e;
}

static void
assert_images_equal (const Image * a, const Image * b, const gchar * what)
{
  gint y;

  for (y = 0; y < a->height; y++)
    fail_unless (memcmp (a->pixels + y * a->stride, b->pixels + y * b->stride,
            (gsize) a->width * a->format->pixel_bytes) == 0,
        "%s (%s %dx%d): row %d differs", what, a->format->name, a->width,
        a->height, y);
}

/* All 255: the plain filter; all 0: the input, bit for bit; half and
 * half, and a mask of another size, scaled: within +-1 of the reference's
 * blend (expected_masked). Bilateral and Gaussian, colour (both layouts)
 * and GRAY8. */
GST_START_TEST (test_mask_blend)
{
  const PackedFormat *fmts[] =
      { &packed_formats[0], &packed_formats[4], PACKED_GRAY8 };
  static const Params params[] = { {9, 40, 4, FALSE}, {7, 0, 2, TRUE} };
  const gint w = 97, h = 61, small_w = 16, small_h = 9;
  guint8 *full = g_malloc (w * h), *none = g_malloc0 (w * h);
  guint8 *halves = g_malloc (w * h), *small = g_malloc (small_w * small_h);
  gchar *full_path, *none_path, *halves_path, *small_path;
  guint fi, p;
  gint i;

  memset (full, 255, w * h);
  for (i = 0; i < w * h; i++)
    halves[i] = (i % w) < w / 2 ? 0 : 255;
  for (i = 0; i < small_w * small_h; i++)
    small[i] = (guint8) ((i % small_w) * 17 + (i / small_w) * 9);
  full_path = mask_file ("full", full, w, h);
  none_path = mask_file ("none", none, w, h);
  halves_path = mask_file ("halves", halves, w, h);
  small_path = mask_file ("small", small, small_w, small_h);

  for (fi = 0; fi < G_N_ELEMENTS (fmts); fi++)
    for (p = 0; p < G_N_ELEMENTS (params); p++) {
      Image in = image_random (fmts[fi], w, h, 8, 40 + fi);
      Image plain = filter_masked (&in, &params[p], NULL);
      Image out, expected;

      out = filter_masked (&in, &params[p], full_path);
      assert_images_equal (&out, &plain, "mask of 255");
      image_free (&out);

      out = filter_masked (&in, &params[p], none_path);
      expected = image_new (in.format, w, h, 0);
      for (i = 0; i < h; i++)
        memcpy (expected.pixels + i * expected.stride, in.pixels +
            i * in.stride, (gsize) w * in.format->pixel_bytes);
      assert_images_equal (&out, &expected, "mask of 0");
      image_free (&out);
      image_free (&expected);

      out = filter_masked (&in, &params[p], halves_path);
      expected = expected_masked (&in, &plain, halves, w, h);
      image_assert_matches (&out, &expected, &in, "half and half");
      image_free (&out);
      image_free (&expected);

      out = filter_masked (&in, &params[p], small_path);
      expected = expected_masked (&in, &plain, small, small_w, small_h);
      image_assert_matches (&out, &expected, &in, "16x9 mask scaled");
      image_free (&out);
      image_free (&expected);

      image_free (&plain);
      image_free (&in);
    }
  g_unlink (full_path);
  g_unlink (none_path);
  g_unlink (halves_path);
  g_unlink (small_path);
  g_free (full_path);
  g_free (none_path);
  g_free (halves_path);
  g_free (small_path);
  g_free (full);
  g_free (none);
  g_free (halves);
  g_free (small);
}

GST_END_TEST;

/* The first message of @type (an error or a warning) on @bus, which must
 * exist and name @text. */
static void
assert_message_names (GstBus * bus, GstMessageType type, const gchar * text)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, type);
  GError *error = NULL;

  fail_unless (msg != NULL, "no %s message", gst_message_type_get_name (type));
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, NULL);
  else
    gst_message_parse_warning (msg, &error, NULL);
  fail_unless (strstr (error->message, text) != NULL,
      "%s \"%s\" does not name %s", gst_message_type_get_name (type),
      error->message, text);
  g_error_free (error);
  gst_message_unref (msg);
}

/* A mask that cannot be read: at start, an element error and no start;
 * while PLAYING, a warning (an error would stop most applications) and the
 * mask in use stays. */
GST_START_TEST (test_mask_unreadable)
{
  const gchar *missing = "/nonexistent/cbf-mask.png";
  const gint w = 64, h = 40;
  Params p = { 9, 40, 4, FALSE };
  Image in = image_random (&packed_formats[0], w, h, 0, 3);
  guint8 *halves = g_malloc (w * h);
  gchar *halves_path, *not_image;
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *harness;
  Image before, after;
  gint i;

  /* At start. */
  gst_element_set_bus (e, bus);
  g_object_set (e, "mask-location", missing, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  assert_message_names (bus, GST_MESSAGE_ERROR, missing);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);

  /* While PLAYING: a missing file, then a file that is not a picture. */
  for (i = 0; i < w * h; i++)
    halves[i] = (i % w) < w / 2 ? 0 : 255;
  halves_path = mask_file ("keep", halves, w, h);
  not_image = g_build_filename (golden_dir (), "cases.txt", NULL);
  harness = image_harness_new (&in, &p);
  gst_element_set_bus (harness->element, bus);
  g_object_set (harness->element, "mask-location", halves_path, NULL);
  before = image_filter (harness, &in);
  g_object_set (harness->element, "mask-location", missing, NULL);
  assert_message_names (bus, GST_MESSAGE_WARNING, missing);
  fail_if (gst_bus_have_pending (bus), "more than a warning posted");
  fail_unless_equals_int (GST_STATE (harness->element), GST_STATE_PLAYING);
  after = image_filter (harness, &in);
  assert_images_equal (&after, &before, "after a missing mask file");
  image_free (&after);
  g_object_set (harness->element, "mask-location", not_image, NULL);
  assert_message_names (bus, GST_MESSAGE_WARNING, not_image);
  after = image_filter (harness, &in);
  assert_images_equal (&after, &before, "after a file that is no picture");
  image_free (&after);
  /* And unset: the whole frame filtered again. */
  g_object_set (harness->element, "mask-location", NULL, NULL);
  after = image_filter (harness, &in);
  {
    Image plain = filter_masked (&in, &p, NULL);
    assert_images_equal (&after, &plain, "mask unset");
    image_free (&plain);
  }
  image_free (&after);
  image_free (&before);
  gst_element_set_bus (harness->element, NULL);
  gst_harness_teardown (harness);
  gst_object_unref (bus);
  g_unlink (halves_path);
  g_free (halves_path);
  g_free (not_image);
  g_free (halves);
  image_free (&in);
}

GST_END_TEST;

/* A picture of @w x @h for a mask: a gradient, or its negative. */
static guint8 *
gradient (gint w, gint h, gboolean negative)
{
  guint8 *pixels = g_malloc ((gsize) w * h);
  gint x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint8 v = (guint8) ((x * 3 + y * 5) & 255);
      pixels[(gsize) y * w + x] = negative ? 255 - v : v;
    }
  return pixels;
}

/* The mask's upload is ordered with the kernels that read it: the first
 * frame after each of CBF_MASK_RELOADS (1000) reloads, alternating between
 * two masks of one size (so that no reallocation synchronises), is the
 * blend of the newly loaded mask (within +-1 of the reference's, see
 * expected_masked; the two masks' blends are further apart than that
 * wherever the masks differ by more than a level). */
GST_START_TEST (test_mask_reloads)
{
  const gchar *env = g_getenv ("CBF_MASK_RELOADS");
  guint n = env ? (guint) g_ascii_strtoull (env, NULL, 10) : 1000, i;
  const gint w = 160, h = 120, mask_w = 1024, mask_h = 1024;
  Params p = { 7, 30, 3, FALSE };
  Image in = image_random (&packed_formats[0], w, h, 0, 21);
  guint8 *masks[2] = { gradient (mask_w, mask_h, FALSE),
    gradient (mask_w, mask_h, TRUE)
  };
  gchar *paths[2] = { mask_file ("reload-a", masks[0], mask_w, mask_h),
    mask_file ("reload-b", masks[1], mask_w, mask_h)
  };
  GstHarness *harness = image_harness_new (&in, &p);
  Image plain = image_filter (harness, &in), expected[2], out;

  expected[0] = expected_masked (&in, &plain, masks[0], mask_w, mask_h);
  expected[1] = expected_masked (&in, &plain, masks[1], mask_w, mask_h);
  for (i = 0; i < n; i++) {
    g_object_set (harness->element, "mask-location", paths[i % 2], NULL);
    gchar *what = g_strdup_printf ("reload %u: the blend with the new mask",
        i);

    out = image_filter (harness, &in);
    image_assert_matches (&out, &expected[i % 2], &in, what);
    image_free (&out);
    g_free (what);
  }
  GST_INFO ("%u reloads, each first frame the new mask's blend", n);
  gst_harness_teardown (harness);
  for (i = 0; i < 2; i++) {
    g_unlink (paths[i]);
    g_free (paths[i]);
    g_free (masks[i]);
    image_free (&expected[i]);
  }
  image_free (&plain);
  image_free (&in);
}

GST_END_TEST;

typedef struct
{
  GstElement *element;
  const gchar *location;
  gint64 set_at;
} LateSet;

static gpointer
set_mask_later (gpointer data)
{
  LateSet *late = data;

  g_usleep (30 * 1000);
  late->set_at = g_get_monotonic_time ();
  g_object_set (late->element, "mask-location", late->location, NULL);
  return NULL;
}

/* A change of mask-location while the element starts (its start decodes a
 * large mask) is not lost: once the start is done the new mask is in use,
 * whichever load finished last. */
GST_START_TEST (test_mask_change_during_start)
{
  const gint w = 96, h = 64, slow_w = 8192, slow_h = 4096;
  Params p = { 7, 30, 3, FALSE };
  Image in = image_random (&packed_formats[8], w, h, 0, 23);
  guint8 *slow = gradient (slow_w, slow_h, FALSE);
  guint8 *quick = gradient (w, h, TRUE);
  gchar *slow_path = mask_file ("slow", slow, slow_w, slow_h);
  gchar *quick_path = mask_file ("quick", quick, w, h);
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  LateSet late = { e, quick_path, 0 };
  GstHarness *harness;
  GThread *thread;
  Image plain, out, expected;
  gint64 t0, t1;

  params_apply (e, &p);
  g_object_set (e, "mask-location", slow_path, NULL);
  thread = g_thread_new ("set-mask", set_mask_later, &late);
  t0 = g_get_monotonic_time ();
  harness = gst_harness_new_with_element (e, "sink", "src");    /* starts */
  t1 = g_get_monotonic_time ();
  g_thread_join (thread);
  GST_INFO ("start took %.0f ms, the change came after %.0f ms",
      (t1 - t0) / 1e3, (late.set_at - t0) / 1e3);
  fail_unless (late.set_at > t0 && late.set_at < t1, "the change did not "
      "come during the start (%.0f ms into a start of %.0f ms)",
      (late.set_at - t0) / 1e3, (t1 - t0) / 1e3);
  gst_harness_set_caps (harness, image_caps (&in), image_caps (&in));
  out = image_filter (harness, &in);
  plain = filter_masked (&in, &p, NULL);
  expected = expected_masked (&in, &plain, quick, w, h);
  image_assert_matches (&out, &expected, &in, "the mask set during the start");

  gst_harness_teardown (harness);
  gst_object_unref (e);
  image_free (&out);
  image_free (&plain);
  image_free (&expected);
  image_free (&in);
  g_unlink (slow_path);
  g_unlink (quick_path);
  g_free (slow_path);
  g_free (quick_path);
  g_free (slow);
  g_free (quick);
}

GST_END_TEST;

static Suite *
mask_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-mask", 600, &tc);

  tcase_add_test (tc, test_mask_blend);
  tcase_add_test (tc, test_mask_unreadable);
  tcase_add_test (tc, test_mask_reloads);
  tcase_add_test (tc, test_mask_change_during_start);
  return s;
}

TEST_MAIN (mask_suite, TEST_NEEDS_GPU, NULL);
