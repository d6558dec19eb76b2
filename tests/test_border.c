/* cudabilateral's border and border-value properties on a GPU: the
 * properties' nicks, range and defaults; every border golden file
 * (OpenCV's bilateralFilter and GaussianBlur with each rule, the constant
 * at 0 and at 200, pictures smaller than the window, windows of every
 * kernel) within +-1 on every pixel, as GRAY8 and as the packed colour
 * formats (24- and 32-bit), every other case with padded rows; then,
 * against the C reference with the same rule, frames cut into bands, deep
 * formats (GRAY16_LE, MSB-aligned P010_10LE, planar I420_10LE, Y444_10LE)
 * and 4:2:0 (I420, NV12), whose chroma planes take the constant's value as
 * luma does and chroma's parameters, the deep colour layouts with alpha
 * (RGBA64, BGRA64, the 10A2 pair) at every window; pageable frames cut
 * into bands several in a row through one element (the wrapping border
 * waits for the frame's last rows); the rules with the strength mask and
 * with the temporal filter; and every rule in CUDA memory. Output
 * buffers are poisoned before each frame (in system memory). Exits 77
 * without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "golden.h"
#include "gpu_support.h"
#include "packed_image.h"
#include "reference.h"

/* The rules and the constant's values the element is run with here. */
static const ImageBorder borders[] = {
  {"reflect-101", 0}, {"replicate", 0}, {"reflect", 0}, {"wrap", 0},
  {"constant", 0}, {"constant", 200}
};

/* The border property: an enum of the five rules by the nicks the
 * documentation gives, reflect-101 by default; border-value 0 to 255,
 * 0 by default. */
GST_START_TEST (test_border_properties)
{
  static const gchar *nicks[] = { "reflect-101", "replicate", "reflect",
    "wrap", "constant"
  };
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  GObjectClass *klass;
  GParamSpec *spec;
  GParamSpecUInt *value;
  GEnumClass *rules;
  GEnumValue *def;
  guint i;

  fail_unless (e != NULL);
  klass = G_OBJECT_GET_CLASS (e);
  spec = g_object_class_find_property (klass, "border");
  fail_unless (spec != NULL && G_IS_PARAM_SPEC_ENUM (spec),
      "no enum property border");
  rules = G_PARAM_SPEC_ENUM (spec)->enum_class;
  fail_unless_equals_int (rules->n_values, G_N_ELEMENTS (nicks));
  for (i = 0; i < G_N_ELEMENTS (nicks); i++)
    fail_unless (g_enum_get_value_by_nick (rules, nicks[i]) != NULL,
        "border has no %s", nicks[i]);
  def = g_enum_get_value (rules, G_PARAM_SPEC_ENUM (spec)->default_value);
  fail_unless (def != NULL && g_str_equal (def->value_nick, "reflect-101"));
  spec = g_object_class_find_property (klass, "border-value");
  fail_unless (spec != NULL && G_IS_PARAM_SPEC_UINT (spec),
      "no guint property border-value");
  value = G_PARAM_SPEC_UINT (spec);
  fail_unless (value->minimum == 0 && value->maximum == 255
      && value->default_value == 0, "border-value %u to %u, default %u",
      value->minimum, value->maximum, value->default_value);
  gst_object_unref (e);
}

GST_END_TEST;

/* 24-bit RGB and BGR, beside packed_image's 32-bit colour formats. */
static const PackedFormat rgb24_formats[] = {
  {"RGB", 3, 0, 3}, {"BGR", 3, 0, 3}
};

/* The colour format of case @i: the 32-bit ones, then RGB and BGR. */
static const PackedFormat *
color_format (guint i)
{
  i %= N_PACKED_COLOR + G_N_ELEMENTS (rgb24_formats);
  return i < N_PACKED_COLOR ? &packed_formats[i] :
      &rgb24_formats[i - N_PACKED_COLOR];
}

/* The border golden cases of @channels channels, of the bilateral filter
 * or of GaussianBlur (@gaussian), with their rule and value. */
static void
check_border_golden (gint channels, gboolean gaussian)
{
  guint n_cases, i, n_checked = 0;
  GoldenBorderCase *cases = golden_load_border_cases (&n_cases);

  for (i = 0; i < n_cases; i++) {
    const GoldenBorderCase *b = &cases[i];
    const GoldenCase *c = &b->c;
    const PackedFormat *f = channels == 1 ? PACKED_GRAY8 : color_format (i);
    Params p = { c->diameter, c->sigma_color, c->sigma_space, gaussian };
    ImageBorder border = { b->border, (guint) b->border_value };
    gint w, h, ch;
    guint8 *src, *dst;
    Image in, expected, out;
    GstHarness *harness;

    if (c->channels != channels || b->gaussian != gaussian)
      continue;
    src = golden_load_pnm (c->input, &w, &h, &ch);
    dst = golden_load_pnm (c->output, &w, &h, &ch);
    /* Every other case with padded rows. */
    in = image_from_golden (f, src, w, h, ch, (i % 2) ? 3 * f->pixel_bytes +
        8 : 0, i);
    expected = image_from_golden (f, dst, w, h, ch, 0, i);
    harness = image_harness_new_border (&in, &p, &border);
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
  fail_unless (n_checked >= (gaussian ? 3u : 7u) * 5 * G_N_ELEMENTS (borders),
      "only %u border golden cases", n_checked);
  golden_free_border_cases (cases);
}

GST_START_TEST (test_border_golden_gray8)
{
  check_border_golden (1, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_border_golden_color)
{
  check_border_golden (3, FALSE);
}

GST_END_TEST;

/* mode=gaussian against GaussianBlur with each rule. */
GST_START_TEST (test_border_golden_gaussian)
{
  check_border_golden (1, TRUE);
  check_border_golden (3, TRUE);
}

GST_END_TEST;

/* Frames cut into bands (the rows above and below a band are the
 * picture's, not a border) and a one-pixel column, with every rule and
 * value, against the reference: bilateral windows of the stream, wide and
 * generic kernels (the last on the column only, for time) and mode=gaussian,
 * GRAY8 and two colour layouts, padded rows every other frame. */
GST_START_TEST (test_border_bands)
{
  static const gint sizes[][2] = { {1, 500}, {200, 300} };
  static const Params params[] = { {5, 60, 3, FALSE}, {31, 70, 8, FALSE},
  {71, 40, 12, FALSE}, {31, 0, 6, TRUE}
  };
  const PackedFormat *fmts[] =
      { PACKED_GRAY8, &packed_formats[0], &packed_formats[7] };
  guint s, p, f, b, seed = 1;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (p = 0; p < G_N_ELEMENTS (params); p++)
      for (f = 0; f < G_N_ELEMENTS (fmts); f++)
        for (b = 0; b < G_N_ELEMENTS (borders); b++) {
          Image in, expected, out;
          GstHarness *h;
          gchar *what;

          if (sizes[s][0] > 1 && params[p].diameter > 31)
            continue;
          in = image_random (fmts[f], sizes[s][0], sizes[s][1],
              (seed % 2) ? 0 : 5 * fmts[f]->pixel_bytes, seed);
          h = image_harness_new_border (&in, &params[p], &borders[b]);
          what = g_strdup_printf ("%s d=%d sc=%g ss=%g border=%s "
              "border-value=%u", params[p].gaussian ? "gaussian" :
              "bilateral", params[p].diameter, params[p].sigma_color,
              params[p].sigma_space, borders[b].border, borders[b].value);
          expected = image_reference_border (&in, &params[p], &borders[b]);
          out = image_filter (h, &in);
          image_assert_matches (&out, &expected, &in, what);
          g_free (what);
          gst_harness_teardown (h);
          image_free (&in);
          image_free (&expected);
          image_free (&out);
          seed++;
        }
}

GST_END_TEST;

typedef struct
{
  const Params *p;
  const ImageBorder *b;
} BorderSetup;

static void
border_setup (GstElement * filter, gconstpointer data)
{
  const BorderSetup *s = data;

  params_apply (filter, s->p);
  image_border_apply (filter, s->b);
}

/* A harness around cudabilateral with @p and @b for @format
 * (filter_harness_full). */
static GstHarness *
border_harness_new (const gchar * format, gint width, gint height,
    const Params * p, const ImageBorder * b)
{
  BorderSetup s = { p, b };

  return filter_harness_full (format, width, height, NULL, border_setup, &s,
      NULL);
}

/* Every format of @formats with every rule and value, each of @params
 * (the first two alone where @quick), at 67 x 45 and (not @quick) at 7 x 5
 * (smaller than most windows), padded every other frame, against the
 * reference within the format's tolerance. */
static void
check_formats_with_borders (const gchar * const *formats, guint n_formats,
    gboolean quick)
{
  static const Params params[] = {
    {9, 40, 4, FALSE}, {31, 0, 6, TRUE}, {5, 60, 3, FALSE},
    {31, 70, 8, FALSE}, {63, 90, 20, FALSE}, {9, 0, 2.5, TRUE},
    /* the wide one-channel kernel's classes whose weights all round to 0
     * (from dx^2 + dy^2 = 213 here) sharing its table of zeros */
    {41, 30, 3, FALSE},
    /* 16-bit one channel's last specialised radius */
    {21, 40, 8, FALSE}
  };
  static const gint sizes[][2] = { {67, 45}, {7, 5} };
  guint n_params = quick ? 2 : G_N_ELEMENTS (params);
  guint n_sizes = quick ? 1 : G_N_ELEMENTS (sizes);
  guint f, b, p, s, seed = 1;

  for (f = 0; f < n_formats; f++)
    for (b = 0; b < G_N_ELEMENTS (borders); b++)
      for (p = 0; p < n_params; p++)
        for (s = 0; s < n_sizes; s++) {
          const gchar *format = formats[f];
          gint w = sizes[s][0], h = sizes[s][1];
          GstVideoInfo info = info_for (format, w, h);
          GstHarness *harness = border_harness_new (format, w, h, &params[p],
              &borders[b]);
          Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
          Channel expected[GST_VIDEO_MAX_COMPONENTS];
          gchar *what = g_strdup_printf ("%dx%d%s %s d=%d sc=%g ss=%g "
              "border=%s border-value=%u", w, h, seed % 2 ? " padded" : "",
              params[p].gaussian ? "gaussian" : "bilateral",
              params[p].diameter, params[p].sigma_color,
              params[p].sigma_space, borders[b].border, borders[b].value);
          guint n = channels_for_format (format, w, h, seed, in), c;
          guint n_expected;

          filter_frame (harness, format, w, h, frame_from_channels (format,
                  w, h, in, seed % 2, seed), out);
          n_expected = channels_reference_border_for_format (&info, in,
              &params[p], borders[b].border, borders[b].value, expected);
          for (c = 0; c < n_expected; c++)
            assert_channel_matches (&out[c], &expected[c],
                format_tolerance (GST_VIDEO_INFO_FORMAT (&info)), what,
                format, c);
          /* alpha passes unchanged */
          for (c = n_expected; c < n; c++)
            assert_channel_matches (&out[c], &in[c], 0, what, format, c);
          channels_free (in, n);
          channels_free (out, n);
          channels_free (expected, n_expected);
          filter_harness_free (harness);
          g_free (what);
          seed++;
        }
}

/* Deeper samples: the constant scaled to the samples' bits (802 at 10
 * bits for 200, 51400 at 16), held MSB-aligned by P010_10LE as its
 * samples are; chroma of the subsampled ones takes it too. */
GST_START_TEST (test_border_deep_formats)
{
  static const gchar *const formats[] = { "GRAY16_LE", "P010_10LE",
    "I420_10LE", "Y444_10LE"
  };

  check_formats_with_borders (formats, G_N_ELEMENTS (formats), FALSE);
}

GST_END_TEST;

/* The colour layouts of deep samples, alpha among them (passing
 * unchanged): the constant filled into the 10-bit fields of the 10A2
 * words and the 16-bit samples of RGBA64, with every window (the deep
 * kernels' specialised, wide and generic ones, the Gaussian's). */
GST_START_TEST (test_border_deep_color)
{
  static const gchar *const formats[] = { "Y444_16LE", "GBR_10LE",
    "RGBA64_LE", "BGRA64_LE", "BGR10A2_LE", "RGB10A2_LE"
  };

  check_formats_with_borders (formats, G_N_ELEMENTS (formats), FALSE);
}

GST_END_TEST;

/* Frames cut into bands from pageable memory, several in a row through one
 * element, every rule against the reference: the wrapping border's first
 * rows read the frame's last ones, which reach the device with its last
 * band, so its first band must wait for them (the element's device buffer
 * holds the previous frame's rows until then). Big enough that the copies
 * of the later bands are still under way when the first band's kernel
 * could start. */
GST_START_TEST (test_border_bands_in_a_row)
{
  static const struct
  {
    const gchar *format;
    gint width, height;
  } cases[] = { {"GRAY8", 1280, 720}, {"RGBA", 640, 480}, {"YUY2", 640, 480} };
  static const Params p = { 9, 40, 4, FALSE };
  guint i, b, k, seed = 300;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    for (b = 0; b < G_N_ELEMENTS (borders); b++) {
      const gchar *format = cases[i].format;
      gint w = cases[i].width, h = cases[i].height;
      GstVideoInfo info = info_for (format, w, h);
      GstHarness *harness = border_harness_new (format, w, h, &p, &borders[b]);

      for (k = 0; k < 3; k++, seed++) {
        Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
        Channel expected[GST_VIDEO_MAX_COMPONENTS];
        guint n = channels_for_format (format, w, h, seed, in), c, n_expected;
        gchar *what = g_strdup_printf ("%dx%d frame %u in a row, border=%s "
            "border-value=%u", w, h, k, borders[b].border, borders[b].value);

        filter_frame (harness, format, w, h, frame_from_channels (format, w,
                h, in, FALSE, seed), out);
        n_expected = channels_reference_border_for_format (&info, in, &p,
            borders[b].border, borders[b].value, expected);
        for (c = 0; c < n_expected; c++)
          assert_channel_matches (&out[c], &expected[c], 1, what, format, c);
        channels_free (in, n);
        channels_free (out, n);
        channels_free (expected, n_expected);
        g_free (what);
      }
      filter_harness_free (harness);
    }
}

GST_END_TEST;

/* 4:2:0 with 8-bit samples: each plane with its own parameters (chroma's
 * halved), the constant (200 among the values) in chroma as in luma. */
GST_START_TEST (test_border_yuv420)
{
  static const gchar *const formats[] = { "I420", "NV12" };

  check_formats_with_borders (formats, G_N_ELEMENTS (formats), FALSE);
}

GST_END_TEST;

/* The other formats without alpha, every rule and value, a bilateral and
 * a Gaussian window. */
GST_START_TEST (test_border_every_format)
{
  static const gchar *const formats[] = { "RGB", "BGR", "RGBx", "xBGR",
    "Y444", "YV12", "NV21", "YUY2", "UYVY", "GRAY8", "P012_LE", "P016_LE",
    "I420_12LE", "I422_10LE", "I422_12LE", "Y444_16LE", "GBR_10LE"
  };

  check_formats_with_borders (formats, G_N_ELEMENTS (formats), TRUE);
}

GST_END_TEST;

/* The rules the mask and the temporal filter are combined with: each
 * reads differently from reflect-101 at every edge. */
static const ImageBorder combined_borders[] = {
  {"replicate", 0}, {"reflect", 0}, {"wrap", 0}, {"constant", 200}
};

/* Windows of the specialised and the wide kernel, and a Gaussian one. */
static const Params combined_params[] = {
  {9, 40, 4, FALSE}, {31, 70, 8, FALSE}, {7, 0, 2, TRUE}
};

/* The colour byte @b of pixel (@x, @y) of @im. */
static gint
image_byte (const Image * im, gint x, gint y, gint b)
{
  return im->pixels[y * im->stride + x * im->format->pixel_bytes + b];
}

/* A strength mask the size of the frame, level (37 x + 53 y) mod 256 at
 * (x, y), so that each edge meets the input (0), the filter (255) and
 * blends between: against the reference's blend of the input and the
 * filter with the rule, the input bit for bit where the level is 0, else
 * within +-1 (the blend of a value 1 off moves at most 1). A blend of the
 * reflect-101 filter must differ from the expected output somewhere, so
 * that an element that dropped the rule under the mask fails. GRAY8 and
 * RGBA, padded rows every other frame. */
GST_START_TEST (test_border_mask)
{
  const PackedFormat *fmts[] = { PACKED_GRAY8, &packed_formats[0] };
  const gint w = 67, h = 45;
  guint8 *levels = g_malloc (w * h);
  gchar *base = g_strdup_printf ("cbf-border-mask-%d.png", (int) getpid ());
  gchar *path = g_build_filename (g_get_tmp_dir (), base, NULL);
  guint f, p, b, seed = 1;
  gint i;

  for (i = 0; i < w * h; i++)
    levels[i] = (guint8) (((i % w) * 37 + (i / w) * 53) % 256);
  write_gray_png (path, levels, w, h);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (p = 0; p < G_N_ELEMENTS (combined_params); p++)
      for (b = 0; b < G_N_ELEMENTS (combined_borders); b++) {
        const PackedFormat *pf = fmts[f];
        const Params *q = &combined_params[p];
        const ImageBorder *rule = &combined_borders[b];
        Image in = image_random (pf, w, h, seed % 2 ? 8 : 0, seed);
        GstHarness *harness = image_harness_new_border (&in, q, rule);
        Image out, full, plain;
        guint seen = 0;
        gint x, y, k;

        g_object_set (harness->element, "mask-location", path, NULL);
        out = image_filter (harness, &in);
        full = image_reference_border (&in, q, rule);
        plain = image_reference (&in, q);
        for (y = 0; y < h; y++)
          for (x = 0; x < w; x++)
            for (k = 0; k < pf->pixel_bytes; k++) {
              gint m = levels[y * w + x], src = image_byte (&in, x, y, k);
              gint got = image_byte (&out, x, y, k), want = src;
              gboolean color = k >= pf->color_offset
                  && k < pf->color_offset + pf->channels;

              if (color) {
                want = cbf_reference_mask_blend (src,
                    image_byte (&full, x, y, k), m);
                if (ABS (cbf_reference_mask_blend (src,
                            image_byte (&plain, x, y, k), m) - want) > 1)
                  seen++;
              }
              fail_unless (ABS (got - want) <= (color && m ? 1 : 0),
                  "%s %s d=%d border=%s border-value=%u, mask level %d at "
                  "(%d, %d) byte %d: %d, expected %d", pf->name,
                  q->gaussian ? "gaussian" : "bilateral", q->diameter,
                  rule->border, rule->value, m, x, y, k, got, want);
            }
        fail_unless (seen > 0, "%s d=%d border=%s: the masked output cannot "
            "tell the rule from reflect-101", pf->name, q->diameter,
            rule->border);
        gst_harness_teardown (harness);
        image_free (&in);
        image_free (&out);
        image_free (&full);
        image_free (&plain);
        seed++;
      }
  g_unlink (path);
  g_free (path);
  g_free (base);
  g_free (levels);
}

GST_END_TEST;

#define STRENGTH 0.8
#define TEMPORAL_SIGMA 10.0

/* The temporal filter's expected output of @in after @prev (NULL: the
 * first frame) with @q and the rule @rule (NULL: reflect-101): the
 * reference's spatial values before rounding with the rule, moved towards
 * the element's previous output; other bytes the input's. */
static Image
temporal_expected (const Image * in, const Image * prev, const Params * q,
    const ImageBorder * rule)
{
  const PackedFormat *pf = in->format;
  Image e = image_new (pf, in->width, in->height, 0);
  gdouble *values = g_new (gdouble, (gsize) in->width * in->height *
      pf->channels);
  gint y;

  for (y = 0; y < in->height; y++)
    memcpy (e.pixels + y * e.stride, in->pixels + y * in->stride,
        (gsize) in->width * pf->pixel_bytes);
  cbf_reference_values_border (q->gaussian ? CBF_REFERENCE_GAUSSIAN :
      CBF_REFERENCE_BILATERAL, in->pixels, in->stride, 1, 8, in->width,
      in->height, pf->pixel_bytes, pf->color_offset, pf->channels,
      q->diameter, q->sigma_color, q->sigma_space,
      cbf_reference_border_from_nick (rule ? rule->border : "reflect-101"),
      rule ? cbf_reference_border_sample ((gint) rule->value, 8) : 0, values);
  cbf_reference_temporal (values, prev ? prev->pixels : NULL,
      prev ? prev->stride : 0, e.pixels, e.stride, 1, 8, in->width,
      in->height, pf->pixel_bytes, pf->color_offset, pf->channels,
      prev ? STRENGTH : 0, TEMPORAL_SIGMA);
  g_free (values);
  return e;
}

/* Samples of @a's colour bytes more than 1 from @b's. */
static guint
images_apart (const Image * a, const Image * b)
{
  const PackedFormat *pf = a->format;
  guint n = 0;
  gint x, y, k;

  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      for (k = pf->color_offset; k < pf->color_offset + pf->channels; k++)
        n += ABS (image_byte (a, x, y, k) - image_byte (b, x, y, k)) > 1;
  return n;
}

/* The temporal filter with each rule: a still picture under fresh noise,
 * three frames, each within +-1 of the reference's temporal filter of its
 * spatial values with the rule given the element's previous output. The
 * expected outputs must move from the spatial ones somewhere, and differ
 * from those of reflect-101 somewhere, so that an element that ignored
 * the previous frame or the rule fails. GRAY8 and RGBA. */
GST_START_TEST (test_border_temporal)
{
  const PackedFormat *fmts[] = { PACKED_GRAY8, &packed_formats[0] };
  const gint w = 67, h = 45;
  guint f, p, b, seed = 1;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (p = 0; p < G_N_ELEMENTS (combined_params); p++)
      for (b = 0; b < G_N_ELEMENTS (combined_borders); b++) {
        const PackedFormat *pf = fmts[f];
        const Params *q = &combined_params[p];
        const ImageBorder *rule = &combined_borders[b];
        Image still = image_random (pf, w, h, 0, seed), prev = { 0 };
        GstHarness *harness = image_harness_new_border (&still, q, rule);
        GRand *rand = g_rand_new_with_seed (seed);
        guint k, moved = 0, seen = 0;
        gchar *what;

        g_object_set (harness->element, "temporal-strength", STRENGTH,
            "temporal-sigma", TEMPORAL_SIGMA, NULL);
        for (k = 0; k < 3; k++) {
          Image in = image_new (pf, w, h, k % 2 ? 8 : 0), out, expected;
          Image spatial, plain;
          gint x, y, c;

          for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
              for (c = 0; c < pf->pixel_bytes; c++)
                in.pixels[y * in.stride + x * pf->pixel_bytes + c] =
                    CLAMP (image_byte (&still, x, y, c) +
                    g_rand_int_range (rand, -4, 5), 0, 255);
          out = image_filter (harness, &in);
          expected = temporal_expected (&in, k ? &prev : NULL, q, rule);
          what = g_strdup_printf ("%s d=%d border=%s border-value=%u, "
              "temporal frame %u", q->gaussian ? "gaussian" : "bilateral",
              q->diameter, rule->border, rule->value, k);
          image_assert_matches (&out, &expected, &in, what);
          g_free (what);
          spatial = temporal_expected (&in, NULL, q, rule);
          plain = temporal_expected (&in, k ? &prev : NULL, q, NULL);
          if (k)
            moved += images_apart (&expected, &spatial);
          seen += images_apart (&expected, &plain);
          image_free (&spatial);
          image_free (&plain);
          image_free (&expected);
          image_free (&in);
          if (k)
            image_free (&prev);
          prev = out;
        }
        fail_unless (moved > 0, "%s d=%d border=%s: the expected outputs "
            "never moved from the spatial ones", pf->name, q->diameter,
            rule->border);
        fail_unless (seen > 0, "%s d=%d border=%s: the expected outputs "
            "cannot tell the rule from reflect-101", pf->name, q->diameter,
            rule->border);
        image_free (&prev);
        g_rand_free (rand);
        gst_harness_teardown (harness);
        image_free (&still);
        seed++;
      }
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
/* Every rule in CUDA memory (cudaupload ! cudabilateral ! cudadownload,
 * CUDA caps forced around the filter), RGBA and BGRA (GRAY8 is not a
 * format GStreamer 1.22's cudaupload takes), against the reference: the
 * launches take device planes the element did not make. */
GST_START_TEST (test_border_cuda_memory)
{
  const PackedFormat *fmts[] = { &packed_formats[0], &packed_formats[1] };
  static const Params p = { 9, 50, 4, FALSE };
  guint f, b;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (b = 0; b < G_N_ELEMENTS (borders); b++) {
      Image in = image_random (fmts[f], 37, 23, 0, 40 + b);
      Image expected = image_reference_border (&in, &p, &borders[b]);
      Image out = image_new (fmts[f], 37, 23, 0);
      GstHarness *h = gst_harness_new_parse ("cudaupload ! "
          "video/x-raw(memory:CUDAMemory) ! cudabilateral name=f ! "
          "video/x-raw(memory:CUDAMemory) ! cudadownload");
      GstElement *filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
      GstVideoInfo info;
      GstVideoFrame frame;
      GstCaps *caps = image_caps (&in);
      GstBuffer *buf;
      gchar *what = g_strdup_printf ("CUDA memory %s border=%s "
          "border-value=%u", fmts[f]->name, borders[b].border,
          borders[b].value);
      gint y;

      g_object_set (filter, "diameter", p.diameter, "sigma-color",
          p.sigma_color, "sigma-space", p.sigma_space, NULL);
      image_border_apply (filter, &borders[b]);
      gst_harness_set_caps (h, gst_caps_ref (caps), gst_caps_ref (caps));
      fail_unless (gst_video_info_from_caps (&info, caps));
      /* GStreamer's default layout (rows rounded up to 4 bytes) */
      buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
      image_fill_buffer (buf, &in);
      buf = gst_harness_push_and_pull (h, buf);
      fail_unless (buf != NULL, "%s: no output", what);
      fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
      for (y = 0; y < in.height; y++)
        memcpy (out.pixels + y * out.stride,
            (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), out.stride);
      gst_video_frame_unmap (&frame);
      image_assert_matches (&out, &expected, &in, what);
      gst_buffer_unref (buf);
      gst_caps_unref (caps);
      gst_object_unref (filter);
      gst_harness_teardown (h);
      image_free (&in);
      image_free (&expected);
      image_free (&out);
      g_free (what);
    }
}

GST_END_TEST;
#endif

static Suite *
border_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-border", 900, &tc);

  tcase_add_test (tc, test_border_properties);
  tcase_add_test (tc, test_border_golden_gray8);
  tcase_add_test (tc, test_border_golden_color);
  tcase_add_test (tc, test_border_golden_gaussian);
  tcase_add_test (tc, test_border_bands);
  tcase_add_test (tc, test_border_deep_formats);
  tcase_add_test (tc, test_border_yuv420);
  tcase_add_test (tc, test_border_every_format);
  tcase_add_test (tc, test_border_deep_color);
  tcase_add_test (tc, test_border_bands_in_a_row);
  tcase_add_test (tc, test_border_mask);
  tcase_add_test (tc, test_border_temporal);
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_border_cuda_memory);
#endif
  return s;
}

#if CBF_HAVE_CUDA_MEMORY
TEST_MAIN (border_suite, TEST_NEEDS_GPU, "cudaupload", "cudadownload", NULL);
#else
TEST_MAIN (border_suite, TEST_NEEDS_GPU, NULL);
#endif
