/* cudabilateral on a GPU: output equals OpenCV's golden files (and, where no
 * golden file exists, the C reference) within +-1 on every pixel, for every
 * format, odd sizes, padded strides, pinned and unpinned input, property
 * changes while playing and renegotiation. Output buffers are poisoned
 * before each checked frame, so an unwritten pixel fails. Exits 77 without a
 * CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <math.h>

#include <cuda_runtime_api.h>

#include "golden.h"
#include "gpu_support.h"
#include "reference.h"

typedef struct
{
  const gchar *name;
  gint pixel_bytes;
  gint colour_offset;           /* first filtered byte */
  gint channels;                /* filtered bytes */
} Format;

static const Format formats[] = {
  {"RGBA", 4, 0, 3}, {"BGRA", 4, 0, 3}, {"RGBx", 4, 0, 3}, {"BGRx", 4, 0, 3},
  {"ARGB", 4, 1, 3}, {"ABGR", 4, 1, 3}, {"xRGB", 4, 1, 3}, {"xBGR", 4, 1, 3},
  {"GRAY8", 1, 0, 1},
};

#define GRAY8 (&formats[8])
#define N_COLOUR_FORMATS 8

/* A frame in system memory, packed or with padded rows. */
typedef struct
{
  const Format *format;
  gint width, height;
  gsize stride;
  guint8 *pixels;
} Image;

static Image
image_new (const Format * f, gint width, gint height, gsize extra_stride)
{
  Image im = { f, width, height, (gsize) width * f->pixel_bytes + extra_stride,
    NULL
  };
  im.pixels = g_malloc0 (im.stride * height);
  return im;
}

/* Gradient, an edge and noise; the passthrough byte random. */
static Image
image_random (const Format * f, gint width, gint height, gsize extra_stride,
    guint32 seed)
{
  Image im = image_new (f, width, height, extra_stride);
  GRand *rand = g_rand_new_with_seed (seed);
  gint x, y, b;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (b = 0; b < f->pixel_bytes; b++) {
        gint v = (x * 7 + y * 3 + b * 50) % 256 + ((x > width / 2) ? 60 : 0) +
            g_rand_int_range (rand, -25, 26);
        im.pixels[y * im.stride + x * f->pixel_bytes + b] = CLAMP (v, 0, 255);
      }
  g_rand_free (rand);
  return im;
}

static GstCaps *
image_caps (const Image * im)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      im->format->name, "width", G_TYPE_INT, im->width, "height", G_TYPE_INT,
      im->height, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

static GstHarness *
harness_new (const Image * im, const Params * p)
{
  GstHarness *h = gst_harness_new ("cudabilateral");

  params_apply (h->element, p);
  gst_harness_set_caps (h, image_caps (im), image_caps (im));
  return h;
}

/* Writes @im into @buf through a video frame: @buf's video meta (its
 * strides) decides the layout. */
static void
fill_buffer (GstBuffer * buf, const Image * im)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  gint y;
  GstCaps *caps = image_caps (im);

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < im->height; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), im->pixels +
        y * im->stride, (gsize) im->width * im->format->pixel_bytes);
  gst_video_frame_unmap (&frame);
}

/* A system-memory buffer with @im's own stride, described by a video
 * meta. */
static GstBuffer *
buffer_from_image (const Image * im)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, im->stride * im->height,
      NULL);
  GstVideoInfo info;
  GstCaps *caps = image_caps (im);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { (gint) im->stride, };

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), im->width, im->height, 1, offset, stride);
  fill_buffer (buf, im);
  return buf;
}

/* Pushes @in (taking it) and returns the output read back into an Image. */
static Image
filter_buffer (GstHarness * h, const Image * im, GstBuffer * in)
{
  GstBuffer *out;
  GstVideoInfo info;
  GstVideoFrame frame;
  GstCaps *caps = image_caps (im);
  Image result = image_new (im->format, im->width, im->height, 0);
  gint y;

  gpu_test_poison_output_pool (h->element);

  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL, "no output buffer");
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
          "CbfPinnedMemory"), "output is not in pinned memory");
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (y = 0; y < im->height; y++)
    memcpy (result.pixels + y * result.stride,
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), result.stride);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  return result;
}

static Image
filter_image (GstHarness * h, const Image * im)
{
  return filter_buffer (h, im, buffer_from_image (im));
}

/* Expected output by the C reference (itself checked against OpenCV). */
static Image
reference_image (const Image * im, const Params * p)
{
  Image ref = image_new (im->format, im->width, im->height, 0);

  params_reference (p, im->pixels, im->stride, ref.pixels, ref.stride,
      im->width, im->height, im->format->pixel_bytes,
      im->format->colour_offset, im->format->channels);
  return ref;
}

/* Expected output of method=grid by the C reference grid. */
static Image
reference_grid_image (const Image * im, const Params * p)
{
  Image ref = image_new (im->format, im->width, im->height, 0);

  params_reference_grid (p, im->pixels, im->stride, ref.pixels, ref.stride,
      im->width, im->height, im->format->pixel_bytes,
      im->format->colour_offset, im->format->channels);
  return ref;
}

/* Colour bytes within +-1, the passthrough byte exact. */
static void
assert_matches (const Image * out, const Image * expected, const Image * in,
    const gchar * what)
{
  const Format *f = out->format;
  gint max_diff, fx, fy, x, y, b;
  guint bad = images_diff_beyond_one (out->pixels, out->stride,
      expected->pixels, expected->stride, out->width, out->height,
      f->pixel_bytes, f->colour_offset, f->pixel_bytes, f->colour_offset,
      f->channels, &max_diff, &fx, &fy);

  fail_unless (bad == 0, "%s (%s %dx%d): %u values off by more than 1, max "
      "%d, first at %d,%d", what, f->name, out->width, out->height, bad,
      max_diff, fx, fy);
  for (y = 0; y < out->height; y++)
    for (x = 0; x < out->width; x++)
      for (b = 0; b < f->pixel_bytes; b++) {
        if (b >= f->colour_offset && b < f->colour_offset + f->channels)
          continue;
        fail_unless_equals_int (out->pixels[y * out->stride +
                x * f->pixel_bytes + b],
            in->pixels[y * in->stride + x * f->pixel_bytes + b]);
      }
}

static void
image_free (Image * im)
{
  g_free (im->pixels);
  im->pixels = NULL;
}

/* A golden case's pixels (packed, 1 or 3 bytes) placed into @f's layout,
 * the passthrough byte random. */
static Image
image_from_golden (const Format * f, const guint8 * pnm, gint width,
    gint height, gint channels, gsize extra_stride, guint32 seed)
{
  Image im = image_random (f, width, height, extra_stride, seed);
  gint x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++)
        im.pixels[y * im.stride + x * f->pixel_bytes + f->colour_offset + c] =
            pnm[(y * width + x) * channels + c];
  return im;
}

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
    const Format *f = channels == 1 ? GRAY8 : &formats[i % N_COLOUR_FORMATS];
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
    harness = harness_new (&in, &p);
    out = filter_image (harness, &in);
    assert_matches (&out, &expected, &in, c->name);
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

GST_START_TEST (test_golden_colour)
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
  const Format *fmts[] = { GRAY8, &formats[0], &formats[7] };
  guint s, p, fi, seed = 1;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (p = 0; p < G_N_ELEMENTS (params); p++)
      for (fi = 0; fi < G_N_ELEMENTS (fmts); fi++) {
        Image in = image_random (fmts[fi], sizes[s][0], sizes[s][1],
            (seed % 2) ? 0 : 5 * fmts[fi]->pixel_bytes, seed);
        Image expected = reference_image (&in, &params[p]);
        GstHarness *h = harness_new (&in, &params[p]);
        Image out = filter_image (h, &in);
        gchar *what = g_strdup_printf ("%s d=%d sc=%g ss=%g",
            params[p].gaussian ? "gaussian" : "bilateral", params[p].diameter,
            params[p].sigma_color, params[p].sigma_space);

        assert_matches (&out, &expected, &in, what);
        g_free (what);
        gst_harness_teardown (h);
        image_free (&in);
        image_free (&expected);
        image_free (&out);
        seed++;
      }
}

GST_END_TEST;

/* Upstream that uses the element's proposed pool gets pinned memory, and
 * frames from it are filtered as well. */
GST_START_TEST (test_pinned_pool_input)
{
  Params p = { 9, 40, 4, FALSE };
  Image in = image_random (&formats[1], 320, 240, 0, 77);
  Image expected = reference_image (&in, &p);
  GstHarness *h = harness_new (&in, &p);
  GstCaps *caps = image_caps (&in);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstBuffer *buf;
  Image out;

  /* Negotiate first, as upstream would before asking. */
  out = filter_image (h, &in);
  image_free (&out);

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL, "no pool proposed");
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
          "CbfPinnedMemory"), "proposed pool is not pinned");
  fill_buffer (buf, &in);

  out = filter_buffer (h, &in, buf);
  assert_matches (&out, &expected, &in, "pinned input");

  image_free (&out);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  image_free (&in);
  image_free (&expected);
}

GST_END_TEST;

/* A property change while PLAYING applies from the next frame. */
GST_START_TEST (test_property_change_while_playing)
{
  Params a = { 5, 20, 3, FALSE }, b = { 15, 80, 6, FALSE };
  Params c = { 0, 10, 20, FALSE };
  Params g = { 9, 20, 3, TRUE }, g2 = { 0, 20, 2.5, TRUE };
  Image in = image_random (&formats[4], 97, 61, 4, 5);
  GstHarness *h = harness_new (&in, &a);
  /* The mode switched both ways too. */
  const Params *steps[] = { &a, &b, &g, &c, &g2, &g, &a };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    const Params *p = steps[i];
    Image expected = reference_image (&in, p), out;

    params_apply (h->element, p);
    fail_unless_equals_int (GST_STATE (h->element), GST_STATE_PLAYING);
    out = filter_image (h, &in);
    assert_matches (&out, &expected, &in, "after a property change");
    image_free (&out);
    image_free (&expected);
  }
  gst_harness_teardown (h);
  image_free (&in);
}

GST_END_TEST;

/* New caps mid-stream: new size and format, still exact. */
GST_START_TEST (test_renegotiation)
{
  Params p = { 7, 35, 3, FALSE };
  Image first = image_random (&formats[0], 64, 48, 0, 9);
  Image second = image_random (GRAY8, 45, 101, 3, 10);
  GstHarness *h = harness_new (&first, &p);
  Image expected = reference_image (&first, &p), out;

  out = filter_image (h, &first);
  assert_matches (&out, &expected, &first, "before renegotiation");
  image_free (&out);
  image_free (&expected);

  gst_harness_set_caps (h, image_caps (&second), image_caps (&second));
  expected = reference_image (&second, &p);
  out = filter_image (h, &second);
  assert_matches (&out, &expected, &second, "after renegotiation");
  image_free (&out);
  image_free (&expected);

  gst_harness_teardown (h);
  image_free (&first);
  image_free (&second);
}

GST_END_TEST;

/* A frame that does not fit in the GPU's free memory: an element error
 * naming the cause, no crash, and the element works again once memory is
 * free. The test takes nearly all free memory itself first. */
/* ---------------------------------------------------------------- */
/* Strength mask (mask-location) */

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
  GstHarness *h = harness_new (im, p);
  Image out;

  g_object_set (h->element, "mask-location", mask, NULL);
  out = filter_image (h, im);
  gst_harness_teardown (h);
  return out;
}

/* What the mask (@mask_w x @mask_h) makes of the unmasked output
 * @filtered, by the reference's scaling and blend (reference.h): computed
 * in double, the scaled mask may differ from the element's 11-bit fixed
 * point by one level, so the output is compared within +-1 of it
 * (assert_matches). */
static Image
expected_masked (const Image * in, const Image * filtered,
    const guint8 * mask, gint mask_w, gint mask_h)
{
  const Format *f = in->format;
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
  const Format *fmts[] = { &formats[0], &formats[4], GRAY8 };
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
      assert_matches (&out, &expected, &in, "half and half");
      image_free (&out);
      image_free (&expected);

      out = filter_masked (&in, &params[p], small_path);
      expected = expected_masked (&in, &plain, small, small_w, small_h);
      assert_matches (&out, &expected, &in, "16x9 mask scaled");
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
  Image in = image_random (&formats[0], w, h, 0, 3);
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
  harness = harness_new (&in, &p);
  gst_element_set_bus (harness->element, bus);
  g_object_set (harness->element, "mask-location", halves_path, NULL);
  before = filter_image (harness, &in);
  g_object_set (harness->element, "mask-location", missing, NULL);
  assert_message_names (bus, GST_MESSAGE_WARNING, missing);
  fail_if (gst_bus_have_pending (bus), "more than a warning posted");
  fail_unless_equals_int (GST_STATE (harness->element), GST_STATE_PLAYING);
  after = filter_image (harness, &in);
  assert_images_equal (&after, &before, "after a missing mask file");
  image_free (&after);
  g_object_set (harness->element, "mask-location", not_image, NULL);
  assert_message_names (bus, GST_MESSAGE_WARNING, not_image);
  after = filter_image (harness, &in);
  assert_images_equal (&after, &before, "after a file that is no picture");
  image_free (&after);
  /* And unset: the whole frame filtered again. */
  g_object_set (harness->element, "mask-location", NULL, NULL);
  after = filter_image (harness, &in);
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
  Image in = image_random (&formats[0], w, h, 0, 21);
  guint8 *masks[2] = { gradient (mask_w, mask_h, FALSE),
    gradient (mask_w, mask_h, TRUE)
  };
  gchar *paths[2] = { mask_file ("reload-a", masks[0], mask_w, mask_h),
    mask_file ("reload-b", masks[1], mask_w, mask_h)
  };
  GstHarness *harness = harness_new (&in, &p);
  Image plain = filter_image (harness, &in), expected[2], out;

  expected[0] = expected_masked (&in, &plain, masks[0], mask_w, mask_h);
  expected[1] = expected_masked (&in, &plain, masks[1], mask_w, mask_h);
  for (i = 0; i < n; i++) {
    g_object_set (harness->element, "mask-location", paths[i % 2], NULL);
    gchar *what = g_strdup_printf ("reload %u: the blend with the new mask",
        i);

    out = filter_image (harness, &in);
    assert_matches (&out, &expected[i % 2], &in, what);
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
  Image in = image_random (&formats[8], w, h, 0, 23);
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
  out = filter_image (harness, &in);
  plain = filter_masked (&in, &p, NULL);
  expected = expected_masked (&in, &plain, quick, w, h);
  assert_matches (&out, &expected, &in, "the mask set during the start");

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

/* ---------------------------------------------------------------- */
/* method=grid */

/* PSNR of @out against @expected over the filtered bytes. */
static double
image_psnr (const Image * out, const Image * expected)
{
  const Format *f = out->format;
  double se = 0;
  gint x, y, c;

  for (y = 0; y < out->height; y++)
    for (x = 0; x < out->width; x++)
      for (c = 0; c < f->channels; c++) {
        gsize b = x * f->pixel_bytes + f->colour_offset + c;
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
 * (docs/design.md, "The bilateral grid, exactly"); each floor is at least
 * 3 dB above the unfiltered picture's PSNR against the exact filter, so
 * that a grid that did nothing fails. */
static const struct
{
  gdouble sigma_space, sigma_color;
  gdouble floor_gray, floor_colour;
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
  guint i, colour;

  for (colour = 0; colour < 2; colour++)
    for (i = 0; i < G_N_ELEMENTS (grid_cases); i++) {
      const Format *f = !colour ? GRAY8 : (i % 2) ? &formats[4] : &formats[0];
      Image in = image_from_golden (f, colour ? rgb : gray, GRID_W, GRID_H,
          colour ? 3 : 1, 8, 30 + i);
      Params p = { 0, grid_cases[i].sigma_color, grid_cases[i].sigma_space,
        FALSE
      };
      gdouble floor = colour ? grid_cases[i].floor_colour :
          grid_cases[i].floor_gray, db, db_input, db_reference;
      GstHarness *h = harness_new (&in, &p);
      Image out, reference, exact;
      gchar *what = g_strdup_printf ("grid against the reference grid, "
          "sigma-space %g sigma-color %g", p.sigma_space, p.sigma_color);

      gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
      out = filter_image (h, &in);
      reference = reference_grid_image (&in, &p);
      assert_matches (&out, &reference, &in, what);
      /* The exact filter of the same sigmas, its window derived (d = 0). */
      exact = reference_image (&in, &p);
      db = image_psnr (&out, &exact);
      db_input = image_psnr (&in, &exact);
      db_reference = image_psnr (&reference, &exact);
      g_print ("FIGURE grid %s %dx%d %s sigma-space %g sigma-color %g: "
          "%.2f dB against the exact filter (floor %.1f; unfiltered input "
          "%.2f dB; reference grid %.2f dB)\n", colour ? "astronaut.png" :
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
    Image in = image_random (&formats[1], 80, 50, 0, 9);
    Image exact = reference_image (&in, &p);
    Image grid = reference_grid_image (&in, &p);
    GstHarness *h = harness_new (&in, &p);
    Image out = filter_image (h, &in);

    assert_matches (&out, &exact, &in, "exact, before the switch");
    image_free (&out);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
    out = filter_image (h, &in);
    assert_matches (&out, &grid, &in, "grid, switched to while PLAYING");
    image_free (&out);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", "exact");
    out = filter_image (h, &in);
    assert_matches (&out, &exact, &in, "exact, switched back");
    image_free (&out);
    gst_harness_teardown (h);
    image_free (&exact);
    image_free (&grid);
    image_free (&in);
  }
}

GST_END_TEST;

GST_START_TEST (test_out_of_memory)
{
  Params p = { 5, 30, 5, FALSE };
  Image big = { &formats[0], 12000, 12000, 12000 * 4, NULL };
  Image small = image_random (&formats[0], 40, 30, 0, 3);
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  size_t free_bytes = 0, total_bytes = 0;
  void *hog = NULL;
  GstMessage *msg;
  GError *error = NULL;
  Image expected, out;

  fail_unless_equals_int (cudaMemGetInfo (&free_bytes, &total_bytes),
      cudaSuccess);
  /* Leave 256 MiB: less than one 576 MB frame buffer. */
  fail_unless_equals_int (cudaMalloc (&hog, free_bytes - (256 << 20)),
      cudaSuccess);

  /* The bus first: the caps event already makes the element allocate. */
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  gst_harness_set_caps (h, image_caps (&big), image_caps (&big));
  fail_if (gst_harness_push (h, gst_buffer_new_allocate (NULL, 64, NULL)) ==
      GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no element error when out of GPU memory");
  gst_message_parse_error (msg, &error, NULL);
  GST_INFO ("error: %s", error->message);
  fail_unless (error->domain == GST_RESOURCE_ERROR, "%s", error->message);
  fail_unless (strstr (error->message, "Out of memory on CUDA device") !=
      NULL, "%s", error->message);
  g_error_free (error);
  gst_message_unref (msg);

  fail_unless_equals_int (cudaFree (hog), cudaSuccess);
  gst_harness_set_caps (h, image_caps (&small), image_caps (&small));
  expected = reference_image (&small, &p);
  out = filter_image (h, &small);
  assert_matches (&out, &expected, &small, "after running out of memory");

  image_free (&out);
  image_free (&expected);
  image_free (&small);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
gpu_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-gpu", 600, &tc);

  tcase_add_test (tc, test_golden_gray8);
  tcase_add_test (tc, test_golden_colour);
  tcase_add_test (tc, test_golden_gaussian);
  tcase_add_test (tc, test_sizes_and_radii);
  tcase_add_test (tc, test_pinned_pool_input);
  tcase_add_test (tc, test_property_change_while_playing);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_out_of_memory);
  tcase_add_test (tc, test_mask_blend);
  tcase_add_test (tc, test_mask_unreadable);
  tcase_add_test (tc, test_mask_reloads);
  tcase_add_test (tc, test_mask_change_during_start);
  tcase_add_test (tc, test_grid);
  return s;
}

TEST_MAIN (gpu_suite, TEST_NEEDS_GPU, NULL);
