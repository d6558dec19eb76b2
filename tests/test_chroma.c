/* cudabilateral on a GPU: the properties of YUV's planes. chroma-guide=luma
 * (chroma's range weights from luma brought to chroma's resolution, a
 * joint bilateral filter): Y444 against OpenCV's
 * ximgproc::jointBilateralFilter golden files (make_golden_joint.py; luma
 * against bilateralFilter), Y444_16LE against the same functions run on
 * float samples, and I420, NV12, YUY2, P010_10LE, I420_10LE and Y444_16LE
 * against the C reference of the guide and the guided filter
 * (reference_chroma.h), odd and tiny sizes, every kernel family's radius.
 * chroma-diameter, chroma-sigma-color and chroma-sigma-space, filter-luma
 * and filter-chroma against the reference plane by plane, YUV 4:4:4 then
 * filtered plane by plane (and as colour again when they are back at
 * their defaults). The guide and chroma's own sigma-color must change the
 * output on this content (chroma edges on luma's, under strong chroma
 * noise), so that an element ignoring them fails. The guide's chroma
 * siting: its kernel (cbf_chroma_guide, called directly) against the
 * reference bit for bit, and against videoconvert's chroma resampler (an
 * outside oracle) for jpeg and mpeg2; the element with chroma-site=mpeg2
 * and cosited caps; the guided chroma with every border rule. The guide
 * with a strength mask, the temporal filter, regions and CUDA memory;
 * ignored by mode=gaussian and method=grid. Output pools are poisoned
 * first. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "golden.h"
#include "gpu_support.h"
#include "guide.h"
#include "packed_image.h"
#include "reference.h"
#include "reference_chroma.h"

/* What a frame is filtered with: the element's diameter, sigma-color and
 * sigma-space (luma's), its chroma-* properties (-1: derived from
 * luma's), chroma-guide, filter-luma and filter-chroma, its border and
 * border-value (NULL: the default, reflect-101); and the chroma-site of
 * the caps (NULL: none, which the guide takes as centred). */
typedef struct
{
  Params p;
  gint chroma_diameter;
  gdouble chroma_sigma_color;
  gdouble chroma_sigma_space;
  gboolean guide;
  gboolean luma_off;
  gboolean chroma_off;
  const ImageBorder *border;
  const gchar *chroma_site;
} Setup;

#define DERIVED (-1)

static Setup
setup_make (gint diameter, gdouble sigma_color, gdouble sigma_space,
    gboolean guide)
{
  Setup s = { {diameter, sigma_color, sigma_space, FALSE}, DERIVED, DERIVED,
  DERIVED, guide, FALSE, FALSE, NULL, NULL
  };

  return s;
}

static void
setup_apply (GstElement * element, const Setup * s)
{
  params_apply (element, &s->p);
  g_object_set (element, "chroma-diameter", s->chroma_diameter,
      "chroma-sigma-color", s->chroma_sigma_color, "chroma-sigma-space",
      s->chroma_sigma_space, "filter-luma", !s->luma_off, "filter-chroma",
      !s->chroma_off, NULL);
  gst_util_set_object_arg (G_OBJECT (element), "chroma-guide",
      s->guide ? "luma" : "none");
  if (s->border)
    image_border_apply (element, s->border);
}

static gchar *
setup_describe (const Setup * s)
{
  gchar *border = s->border ? g_strdup_printf (" border=%s border-value=%u",
      s->border->border ? s->border->border : "reflect-101",
      s->border->value) : g_strdup ("");
  gchar *desc = g_strdup_printf ("d=%d sc=%g ss=%g chroma-diameter=%d "
      "chroma-sigma-color=%g chroma-sigma-space=%g chroma-guide=%s%s%s%s, "
      "caps chroma-site=%s",
      s->p.diameter, s->p.sigma_color, s->p.sigma_space, s->chroma_diameter,
      s->chroma_sigma_color, s->chroma_sigma_space, s->guide ? "luma" : "none",
      s->luma_off ? " filter-luma=false" : "",
      s->chroma_off ? " filter-chroma=false" : "", border,
      s->chroma_site ? s->chroma_site : "(none)");

  g_free (border);
  return desc;
}

/* The caps of a frame of @format filtered as @s asks: caps_for's, with
 * @s's chroma-site where it has one, and then a colorimetry too (the
 * default one, which caps_for's caps get): GStreamer 1.22's
 * gst_video_info_from_caps replaces the chroma-site of caps without a
 * colorimetry by the default for their height (jpeg up to 576 rows). */
static GstCaps *
setup_caps (const gchar * format, gint width, gint height, const Setup * s)
{
  GstCaps *caps = caps_for (format, width, height);

  if (s->chroma_site) {
    GstVideoInfo info;
    gchar *colorimetry;

    fail_unless (gst_video_info_from_caps (&info, caps));
    colorimetry = gst_video_colorimetry_to_string (&info.colorimetry);
    gst_caps_set_simple (caps, "chroma-site", G_TYPE_STRING, s->chroma_site,
        "colorimetry", G_TYPE_STRING, colorimetry, NULL);
    g_free (colorimetry);
  }
  return caps;
}

/* The video info of those caps. */
static GstVideoInfo
setup_info (const gchar * format, gint width, gint height, const Setup * s)
{
  GstVideoInfo info;
  GstCaps *caps = setup_caps (format, width, height, s);

  fail_unless (gst_video_info_from_caps (&info, caps), "bad caps %"
      GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  if (s->chroma_site)
    fail_unless (info.chroma_site == gst_video_chroma_site_from_string
        (s->chroma_site), "caps chroma-site=%s read as 0x%x", s->chroma_site,
        info.chroma_site);
  return info;
}

static void
setup_filter (GstElement * filter, gconstpointer s)
{
  setup_apply (filter, s);
}

/* A harness around cudabilateral set up as @s, with @s's caps
 * (filter_harness_full). */
static GstHarness *
chroma_harness_new (const gchar * format, gint width, gint height,
    const Setup * s)
{
  return filter_harness_full (format, width, height, NULL, setup_filter, s,
      setup_caps (format, width, height, s));
}

/* ------------------------------------------------------------------ */
/* The pictures */

/* Which shape luma pixel (@x, @y) of a @width x @height picture lies in:
 * 1 a disc, 2 a vertical bar, 3 a box in the corner, 0 the background. */
static gint
shape_at (gint x, gint y, gint width, gint height)
{
  gdouble cx = 0.45 * width, cy = 0.5 * height, r = 0.3 * MIN (width, height);

  if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r)
    return 1;
  if (x > 0.75 * width && x < 0.9 * width)
    return 2;
  if (x < 0.3 * width && y < 0.35 * height)
    return 3;
  return 0;
}

/* A picture of @format whose chroma edges are luma's: luma a gradient with
 * the shapes raised or lowered and light noise (+-6 levels), U and V a
 * level a shape under strong noise (+-40), the noise drawn from @seed (the
 * shapes are the same whatever the seed: a still picture). Deeper samples
 * scaled to their bits with noise in the bits below. Returns the number
 * of components, 3. */
static guint
picture_channels (const gchar * format, gint width, gint height,
    guint32 seed, Channel * ch)
{
  static const gint luma_step[] = { 0, 110, 70, -30 };
  static const gint chroma_base[] = { 128, 120 };
  static const gint chroma_step[2][4] = { {0, -70, 60, 50}, {0, 65, -55, 45} };
  GstVideoInfo info = info_for (format, width, height);
  gint bits = format_bits (GST_VIDEO_INFO_FORMAT (&info));
  gint top = (1 << bits) - 1, fine = MAX (top / 255, 1);
  GRand *rand = g_rand_new_with_seed (seed);
  guint c;

  fail_unless_equals_int (GST_VIDEO_INFO_N_COMPONENTS (&info), 3);
  for (c = 0; c < 3; c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
    gint fx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
    gint fy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
    gint x, y;

    ch[c] = channel_new (w, h, bits);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        gint s = shape_at (x * fx, y * fy, width, height), v;

        v = c == 0 ? 40 + 60 * x * fx / MAX (width - 1, 1) + luma_step[s] +
            g_rand_int_range (rand, -6, 7) : chroma_base[c - 1] +
            chroma_step[c - 1][s] + g_rand_int_range (rand, -40, 41);
        v = CLAMP (v, 0, 255);
        if (bits > 8)
          v = MIN (v * top / 255 + g_rand_int_range (rand, 0, fine), top);
        ch[c].data[(gsize) y * w + x] = (guint16) v;
      }
  }
  g_rand_free (rand);
  return 3;
}

static Channel
channel_copy (const Channel * in)
{
  Channel out = channel_new (in->width, in->height, in->bits);

  memcpy (out.data, in->data, (gsize) in->width * in->height *
      sizeof (guint16));
  return out;
}

/* ------------------------------------------------------------------ */
/* The expected output */

/* Chroma's parameters in a frame of @info filtered as @s asks: luma's
 * diameter and sigma-space divided by the horizontal chroma subsampling
 * (1 for 4:4:4), sigma-color as luma's, each replaced by its chroma-*
 * property where that is set. */
static Params
chroma_params (const GstVideoInfo * info, const Setup * s)
{
  Params q = { 0, 0, 0, FALSE };

  cbf_reference_chroma_params (s->p.diameter, s->p.sigma_space,
      1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, GST_VIDEO_COMP_U),
      &q.diameter, &q.sigma_space);
  if (s->chroma_diameter >= 0)
    q.diameter = s->chroma_diameter;
  if (s->chroma_sigma_space >= 0)
    q.sigma_space = s->chroma_sigma_space;
  q.sigma_color = s->chroma_sigma_color >= 0 ? s->chroma_sigma_color :
      s->p.sigma_color;
  return q;
}

/* The guide of a frame of @info whose luma is @luma, at chroma's size,
 * sited as @info's chroma-site says (its two COSITED flags; none, UNKNOWN,
 * is centred). */
static Channel
guide_for (const GstVideoInfo * info, const Channel * luma)
{
  GstVideoChromaSite site = GST_VIDEO_INFO_CHROMA_SITE (info);
  gint sx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, GST_VIDEO_COMP_U);
  gint sy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, GST_VIDEO_COMP_U);
  Channel g = channel_new ((luma->width + sx - 1) / sx,
      (luma->height + sy - 1) / sy, luma->bits);

  fail_unless (g.width == GST_VIDEO_INFO_COMP_WIDTH (info, GST_VIDEO_COMP_U)
      && g.height == GST_VIDEO_INFO_COMP_HEIGHT (info, GST_VIDEO_COMP_U),
      "%s: the guide is %dx%d, chroma %dx%d", GST_VIDEO_INFO_NAME (info),
      g.width, g.height, GST_VIDEO_INFO_COMP_WIDTH (info, GST_VIDEO_COMP_U),
      GST_VIDEO_INFO_COMP_HEIGHT (info, GST_VIDEO_COMP_U));
  cbf_reference_chroma_guide (luma->data, luma->width, g.data, g.width, 2,
      luma->width, luma->height, sx, sy,
      (site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0,
      (site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0);
  return g;
}

/* Chroma channel @c (1 or 2) of @in guided by @in's luma with @q, both
 * read past their edges by @border (NULL: reflect-101). */
static Channel
guided_channel (const GstVideoInfo * info, const Channel * in, guint c,
    const Params * q, const ImageBorder * border)
{
  Channel g = guide_for (info, &in[0]);
  Channel out = channel_new (in[c].width, in[c].height, in[c].bits);
  gint rule = border && border->border ?
      cbf_reference_border_from_nick (border->border) :
      CBF_REFERENCE_BORDER_REFLECT_101;

  fail_unless (rule >= 0, "no border rule %s", border->border);
  cbf_reference_chroma_guided_border (g.data, g.width, in[c].data,
      in[c].width, out.data, out.width, 2, in[c].bits, in[c].width,
      in[c].height, q->diameter, q->sigma_color, q->sigma_space,
      (CbfReferenceBorder) rule, border ?
      cbf_reference_border_sample ((gint) border->value, in[c].bits) : 0);
  channels_free (&g, 1);
  return out;
}

/* The expected Y, U and V of a frame of @info holding @in filtered plane
 * by plane as @s asks (what YUV 4:4:4 gets too once @s differs from the
 * defaults): luma the one-channel filter with @s's parameters, or a copy;
 * chroma guided by luma, or the one-channel filter, with chroma's
 * parameters, or a copy. With a border (@s->border) only luma filtered
 * and chroma guided (the cases that set one). */
static void
expected_by_plane (const GstVideoInfo * info, const Channel * in,
    const Setup * s, Channel * expected)
{
  Params q = chroma_params (info, s);
  guint c;

  if (s->border) {
    Channel all[3];

    fail_unless (s->guide && !s->luma_off && !s->chroma_off,
        "a border case must filter luma and guide chroma");
    /* luma by the border reference (test_border's own) */
    channels_reference_border_for_format (info, in, &s->p,
        s->border->border ? s->border->border : "reflect-101",
        s->border->value, all);
    expected[0] = all[0];
    channels_free (all + 1, 2);
  } else {
    expected[0] = s->luma_off ? channel_copy (&in[0]) :
        channel_reference (&in[0], &s->p, FALSE);
  }
  for (c = 1; c < 3; c++)
    expected[c] = s->chroma_off ? channel_copy (&in[c]) : s->guide ?
        guided_channel (info, in, c, &q, s->border) :
        channel_reference (&in[c], &q, FALSE);
}

/* The tolerance of component @c of @info's output set up as @s: chroma
 * guided by luma has exact weights at every depth (+-1), every other
 * plane its format's. */
static gint
plane_tolerance (const GstVideoInfo * info, const Setup * s, guint c)
{
  return c > 0
      && s->guide ? 1 : format_tolerance (GST_VIDEO_INFO_FORMAT (info));
}

/* Fails unless @out is @expected within its plane's tolerance, exactly
 * where @s copies the plane. */
static void
assert_by_plane (const GstVideoInfo * info, const Setup * s,
    const Channel * out, const Channel * expected, const gchar * what)
{
  guint c;

  for (c = 0; c < 3; c++) {
    gboolean copied = c == 0 ? s->luma_off : s->chroma_off;

    assert_channel_matches (&out[c], &expected[c], copied ? 0 :
        plane_tolerance (info, s, c), what, GST_VIDEO_INFO_NAME (info), c);
  }
}

/* A frame of @format, @width x @height, of picture_channels (@seed)
 * through the element set up as @s, against expected_by_plane; its
 * output into @out where given. */
static void
check_setup (const gchar * format, gint width, gint height, const Setup * s,
    guint32 seed, Channel * out)
{
  GstVideoInfo info = setup_info (format, width, height, s);
  GstHarness *h = chroma_harness_new (format, width, height, s);
  Channel in[3], got[3], expected[3];
  gchar *desc = setup_describe (s);
  gchar *what = g_strdup_printf ("%dx%d %s", width, height, desc);

  picture_channels (format, width, height, seed, in);
  filter_frame (h, format, width, height,
      frame_from_channels (format, width, height, in, seed % 2, seed), got);
  expected_by_plane (&info, in, s, expected);
  assert_by_plane (&info, s, got, expected, what);
  if (out)
    memcpy (out, got, sizeof (got));
  else
    channels_free (got, 3);
  channels_free (in, 3);
  channels_free (expected, 3);
  filter_harness_free (h);
  g_free (what);
  g_free (desc);
}

/* How many values of @a and @b differ by more than @by. */
static guint
count_differing (const Channel * a, const Channel * b, gint by)
{
  guint n = 0;
  gsize k;

  fail_unless (a->width == b->width && a->height == b->height);
  for (k = 0; k < (gsize) a->width * a->height; k++)
    n += ABS ((gint) a->data[k] - (gint) b->data[k]) > by;
  return n;
}

/* ------------------------------------------------------------------ */
/* OpenCV's golden files */

/* A golden PGM of maxval 255 or 65535 (two bytes a sample, most
 * significant first) as a channel of 8 or 16 bits. */
static Channel
channel_from_golden (const gchar * file)
{
  gchar *path = g_build_filename (golden_dir (), file, NULL);
  gchar *data = NULL, magic[3] = "";
  gsize size = 0, k;
  gint w = 0, h = 0, maxval = 0, header = 0, bytes;
  Channel ch;

  fail_unless (g_file_get_contents (path, &data, &size, NULL),
      "cannot read %s", path);
  fail_unless (sscanf (data, "%2s %d %d %d%n", magic, &w, &h, &maxval,
          &header) == 4 && strcmp (magic, "P5") == 0 && w > 0 && h > 0
      && (maxval == 255 || maxval == 65535), "bad PGM header in %s", path);
  header++;                     /* the single white space after maxval */
  bytes = maxval == 255 ? 1 : 2;
  fail_unless (size >= (gsize) header + (gsize) w * h * bytes,
      "%s is truncated", path);
  ch = channel_new (w, h, bytes == 1 ? 8 : 16);
  for (k = 0; k < (gsize) w * h; k++) {
    const guint8 *p = (const guint8 *) data + header + k * bytes;

    ch.data[k] = bytes == 1 ? p[0] : (guint16) (p[0] << 8 | p[1]);
  }
  g_free (data);
  g_free (path);
  return ch;
}

/* A line of joint_cases.txt (make_golden_joint.py documents it). */
typedef struct
{
  gchar *name;
  gint bits, width, height;
  Setup setup;
  gchar *files[6];              /* y, u, v, y_out, u_out, v_out */
} JointCase;

static void
joint_case_free (gpointer data)
{
  JointCase *jc = data;
  guint i;

  g_free (jc->name);
  for (i = 0; i < G_N_ELEMENTS (jc->files); i++)
    g_free (jc->files[i]);
  g_free (jc);
}

static GPtrArray *
load_joint_cases (void)
{
  gchar *path = g_build_filename (golden_dir (), "joint_cases.txt", NULL);
  gchar *text = NULL, **lines;
  GPtrArray *cases = g_ptr_array_new_with_free_func (joint_case_free);
  guint i, f;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL),
      "cannot read %s", path);
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    JointCase *jc;
    gchar name[256], files[6][256];
    gint bits, w, h, d, cd;
    gdouble sc, ss, csc, css;

    if (lines[i][0] == '#' || lines[i][0] == '\0')
      continue;
    fail_unless (sscanf (lines[i], "%255s %d %d %d %d %lf %lf %d %lf %lf "
            "%255s %255s %255s %255s %255s %255s", name, &bits, &w, &h, &d,
            &sc, &ss, &cd, &csc, &css, files[0], files[1], files[2],
            files[3], files[4], files[5]) == 16 && (bits == 8 || bits == 16),
        "malformed line %u of %s: %s", i + 1, path, lines[i]);
    jc = g_new0 (JointCase, 1);
    jc->name = g_strdup (name);
    jc->bits = bits;
    jc->width = w;
    jc->height = h;
    jc->setup = setup_make (d, sc, ss, TRUE);
    jc->setup.chroma_diameter = cd;
    jc->setup.chroma_sigma_color = csc;
    jc->setup.chroma_sigma_space = css;
    for (f = 0; f < 6; f++)
      jc->files[f] = g_strdup (files[f]);
    g_ptr_array_add (cases, jc);
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  return cases;
}

/* Every golden case through Y444 (8 bits) or Y444_16LE (16): Y within
 * +-1 of bilateralFilter, U and V of jointBilateralFilter with Y as the
 * joint image, every other frame padded. OpenCV's float functions, which
 * wrote the 16-bit files, were within 0.1 level of the exact filter before
 * rounding (the script checks that): U and V within +-1 at both depths,
 * and 16-bit Y, which the element may put its documented 16 levels from
 * the exact filter, within 17. */
GST_START_TEST (test_joint_golden)
{
  GPtrArray *cases = load_joint_cases ();
  guint i, c, n_checked[2] = { 0, 0 };

  for (i = 0; i < cases->len; i++) {
    const JointCase *jc = g_ptr_array_index (cases, i);
    const gchar *format = jc->bits == 8 ? "Y444" : "Y444_16LE";
    gint luma_tol = jc->bits == 8 ? 1 :
        format_tolerance (GST_VIDEO_FORMAT_Y444_16LE) + 1;
    GstHarness *h = chroma_harness_new (format, jc->width, jc->height,
        &jc->setup);
    Channel in[3], expected[3], out[3];

    for (c = 0; c < 3; c++) {
      in[c] = channel_from_golden (jc->files[c]);
      expected[c] = channel_from_golden (jc->files[3 + c]);
      fail_unless (in[c].width == jc->width && in[c].height == jc->height
          && in[c].bits == jc->bits, "%s: %s is not %dx%d of %d bits",
          jc->name, jc->files[c], jc->width, jc->height, jc->bits);
    }
    filter_frame (h, format, jc->width, jc->height,
        frame_from_channels (format, jc->width, jc->height, in, i % 2, i), out);
    for (c = 0; c < 3; c++)
      assert_channel_matches (&out[c], &expected[c], c ? 1 : luma_tol,
          jc->name, format, c);
    n_checked[jc->bits == 16]++;
    channels_free (in, 3);
    channels_free (expected, 3);
    channels_free (out, 3);
    filter_harness_free (h);
  }
  fail_unless (n_checked[0] >= 15 && n_checked[1] >= 15, "only %u 8-bit and "
      "%u 16-bit golden cases", n_checked[0], n_checked[1]);
  g_ptr_array_unref (cases);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Against the C reference */

/* The guided chroma of the 8-bit 4:2:0 and 4:2:2 formats and the deep
 * ones against the reference, luma too: chroma radii 2, 3 and 4 (the
 * specialised kernels), 20 (the wide one) and 35 (the generic one), one
 * derived from sigma-space; sizes even, odd and smaller than the
 * windows. */
GST_START_TEST (test_guided_formats)
{
  static const gchar *fmts[] = { "I420", "NV12", "YUY2", "P010_10LE",
    "I420_10LE", "Y444_16LE"
  };
  static const gint sizes[][2] = { {64, 48}, {37, 23}, {5, 3}, {1, 1} };
  Setup setups[5];
  guint f, z, s;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (15, 60, 8, TRUE);
  setups[2] = setup_make (0, 35, 5, TRUE);
  setups[3] = setup_make (9, 30, 4, TRUE);
  setups[3].chroma_diameter = 41;
  setups[3].chroma_sigma_color = 50;
  setups[3].chroma_sigma_space = 10;
  setups[4] = setup_make (5, 30, 3, TRUE);
  setups[4].chroma_diameter = 71;
  setups[4].chroma_sigma_color = 25;
  setups[4].chroma_sigma_space = 20;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (s = 0; s < G_N_ELEMENTS (setups); s++)
        check_setup (fmts[f], sizes[z][0], sizes[z][1], &setups[s],
            100 * f + 10 * z + s, NULL);
}

GST_END_TEST;

/* The guide on the other YUV formats, a specialised and a wide window. */
GST_START_TEST (test_guided_every_format)
{
  static const gchar *fmts[] = { "YV12", "NV21", "UYVY", "Y444", "P012_LE",
    "P016_LE", "I420_12LE", "I422_10LE", "I422_12LE", "Y444_10LE"
  };
  Setup setups[2];
  guint f, s;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (9, 30, 4, TRUE);
  setups[1].chroma_diameter = 41;
  setups[1].chroma_sigma_color = 50;
  setups[1].chroma_sigma_space = 10;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (s = 0; s < G_N_ELEMENTS (setups); s++)
      check_setup (fmts[f], 37, 23, &setups[s], 700 + 10 * f + s, NULL);
}

GST_END_TEST;

/* chroma-diameter (0: from chroma-sigma-space), chroma-sigma-color (0:
 * chroma copied) and chroma-sigma-space without the guide, and
 * filter-luma=false (luma the input's, bit for bit; with the guide too)
 * on the subsampled formats. */
GST_START_TEST (test_plane_params)
{
  static const gchar *fmts[] = { "I420", "NV12", "YUY2", "I420_10LE" };
  Setup setups[9];
  guint f, s;

  for (s = 0; s < G_N_ELEMENTS (setups); s++)
    setups[s] = setup_make (9, 30, 4, FALSE);
  setups[0].chroma_diameter = 7;
  setups[1].chroma_sigma_color = 70;
  setups[2].chroma_sigma_space = 6;
  setups[3].chroma_diameter = 0;
  setups[3].chroma_sigma_color = 50;
  setups[3].chroma_sigma_space = 3;
  setups[4].chroma_diameter = 11;
  setups[4].chroma_sigma_color = 15;
  setups[4].chroma_sigma_space = 20;
  setups[5].chroma_sigma_color = 0;
  setups[6].luma_off = TRUE;
  setups[7].luma_off = TRUE;
  setups[7].guide = TRUE;
  setups[8].chroma_off = TRUE;
  setups[8].guide = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (s = 0; s < G_N_ELEMENTS (setups); s++) {
      Channel out[3];

      check_setup (fmts[f], 37, 23, &setups[s], 10 * f + s, out);
      if (setups[s].chroma_sigma_color == 0) {
        Channel in[3];
        guint c;

        /* Passed through: the input, bit for bit. */
        picture_channels (fmts[f], 37, 23, 10 * f + s, in);
        for (c = 1; c < 3; c++)
          assert_channel_matches (&out[c], &in[c], 0, "chroma-sigma-color=0",
              fmts[f], c);
        channels_free (in, 3);
      }
      channels_free (out, 3);
    }
}

GST_END_TEST;

/* YUV 4:4:4 plane by plane: filter-chroma=false leaves chroma as it came
 * and filters luma as one channel, which the colour filter's luma is not
 * (checked, so that the test tells them apart); filter-luma=false,
 * chroma's own sigma-color and the guide each filter chroma as one
 * channel with luma's diameter and sigma-space (factor 1). */
GST_START_TEST (test_y444_by_plane)
{
  static const gchar *fmts[] = { "Y444", "Y444_10LE", "Y444_16LE" };
  Setup setups[5];
  guint f, s;

  for (s = 0; s < G_N_ELEMENTS (setups); s++)
    setups[s] = setup_make (9, 40, 4, FALSE);
  setups[0].chroma_off = TRUE;
  setups[1].chroma_off = TRUE;
  setups[1].guide = TRUE;
  setups[2].luma_off = TRUE;
  setups[3].chroma_sigma_color = 40;
  setups[4].guide = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], 64, 48);
    Channel in[3], colour[3];

    picture_channels (fmts[f], 64, 48, 7, in);
    channels_reference_for_format (&info, in, &setups[0].p, colour);
    for (s = 0; s < G_N_ELEMENTS (setups); s++) {
      Channel out[3];

      check_setup (fmts[f], 64, 48, &setups[s], 7, out);
      if (s == 0)
        fail_unless (count_differing (&out[0], &colour[0],
                2 * format_tolerance (GST_VIDEO_INFO_FORMAT (&info))) > 0,
            "%s filter-chroma=false: luma " "is the colour filter's", fmts[f]);
      channels_free (out, 3);
    }
    channels_free (in, 3);
    channels_free (colour, 3);
  }
}

GST_END_TEST;

/* Y444 switched while PLAYING: colour (three channels together) by
 * default, plane by plane guided from the frame after chroma-guide=luma,
 * colour again after chroma-guide=none. */
GST_START_TEST (test_y444_switch)
{
  static const gchar *fmts[] = { "Y444", "Y444_16LE" };
  const gint w = 64, h = 48;
  Setup plain = setup_make (9, 40, 4, FALSE), guided = plain;
  guint f, step, c;

  guided.guide = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    GstHarness *harness = chroma_harness_new (fmts[f], w, h, &plain);

    for (step = 0; step < 3; step++) {
      const Setup *s = step == 1 ? &guided : &plain;
      Channel in[3], out[3], expected[3];

      picture_channels (fmts[f], w, h, 30 + step, in);
      gst_util_set_object_arg (G_OBJECT (harness->element), "chroma-guide",
          s->guide ? "luma" : "none");
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, step % 2, step), out);
      if (s->guide)
        expected_by_plane (&info, in, s, expected);
      else
        channels_reference_for_format (&info, in, &s->p, expected);
      for (c = 0; c < 3; c++)
        assert_channel_matches (&out[c], &expected[c],
            plane_tolerance (&info, s, c), s->guide ?
            "switched to chroma-guide=luma" :
            "chroma-guide=none (colour)", fmts[f], c);
      channels_free (in, 3);
      channels_free (out, 3);
      channels_free (expected, 3);
    }
    filter_harness_free (harness);
  }
}

GST_END_TEST;

/* What a wrong element would not give: on this content (chroma edges on
 * luma's under strong chroma noise) the guided chroma differs from the
 * unguided in at least a quarter of the samples, in the reference and in
 * the element, whose luma stays bit for bit the same; chroma-sigma-color
 * changes chroma (guided or not) in at least an eighth of the samples (a
 * third in the reference) and leaves luma alone. */
GST_START_TEST (test_guide_matters)
{
  static const gchar *fmts[] = { "NV12", "Y444", "P010_10LE" };
  const gint w = 64, h = 48;
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    gint tol = format_tolerance (GST_VIDEO_INFO_FORMAT (&info));
    /* Y444's unguided plane by plane: chroma-sigma-color set to luma's. */
    Setup unguided = setup_make (9, 40, 4, FALSE), guided, sharper[2];
    Channel in[3], out_unguided[3], out_guided[3], out_sharper[2][3];
    Channel ref_unguided[3], ref_guided[3];
    guint k;

    unguided.chroma_sigma_color = 40;
    guided = unguided;
    guided.guide = TRUE;
    sharper[0] = unguided;
    sharper[1] = guided;
    for (k = 0; k < 2; k++)
      sharper[k].chroma_sigma_color = 5;

    picture_channels (fmts[f], w, h, 3, in);
    check_setup (fmts[f], w, h, &unguided, 3, out_unguided);
    check_setup (fmts[f], w, h, &guided, 3, out_guided);
    for (k = 0; k < 2; k++)
      check_setup (fmts[f], w, h, &sharper[k], 3, out_sharper[k]);
    expected_by_plane (&info, in, &unguided, ref_unguided);
    expected_by_plane (&info, in, &guided, ref_guided);

    assert_channel_matches (&out_guided[0], &out_unguided[0], 0,
        "luma with and without the guide", fmts[f], 0);
    for (k = 0; k < 2; k++)
      assert_channel_matches (&out_sharper[k][0], &out_unguided[0], 0,
          "luma with chroma-sigma-color=5", fmts[f], 0);
    for (c = 1; c < 3; c++) {
      guint n = in[c].width * in[c].height;
      guint ref_diff = count_differing (&ref_guided[c], &ref_unguided[c],
          2 * tol);
      guint diff = count_differing (&out_guided[c], &out_unguided[c],
          2 * tol);

      fail_unless (ref_diff >= n / 4, "%s component %u: the reference's "
          "guided chroma differs from the unguided in %u of %u samples: "
          "the content cannot tell the guide", fmts[f], c, ref_diff, n);
      fail_unless (diff >= n / 4, "%s component %u: chroma-guide=luma "
          "changed %u of %u samples", fmts[f], c, diff, n);
      for (k = 0; k < 2; k++) {
        guint moved = count_differing (&out_sharper[k][c],
            k ? &out_guided[c] : &out_unguided[c], 2 * tol);

        fail_unless (moved >= n / 8, "%s component %u%s: chroma-sigma-color "
            "5 instead of 40 changed %u of %u samples", fmts[f], c,
            k ? " guided" : "", moved, n);
      }
    }
    channels_free (in, 3);
    channels_free (out_unguided, 3);
    channels_free (out_guided, 3);
    for (k = 0; k < 2; k++)
      channels_free (out_sharper[k], 3);
    channels_free (ref_unguided, 3);
    channels_free (ref_guided, 3);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* The guide's chroma siting */

#define CUDA_OK(call) G_STMT_START {                                     \
    cudaError_t e_ = (call);                                           \
    fail_unless (e_ == cudaSuccess, "%s: %s", #call,                   \
        cudaGetErrorString (e_));                                      \
  } G_STMT_END

/* @site's two COSITED flags as the kernel takes them (guide.h's
 * CbfChromaSite), restated here: which flags the element passes for its
 * caps is checked through its output (test_guided_siting). */
static gint
kernel_site (GstVideoChromaSite site)
{
  return ((site & GST_VIDEO_CHROMA_SITE_H_COSITED) ?
      CBF_CHROMA_SITE_H_COSITED : 0) |
      ((site & GST_VIDEO_CHROMA_SITE_V_COSITED) ?
      CBF_CHROMA_SITE_V_COSITED : 0);
}

static const gchar *
site_name (gint site)
{
  static const gchar *names[] = { "centred", "H cosited", "V cosited",
    "H and V cosited"
  };

  return names[site & 3];
}

/* How kernel_guide lays luma out in device memory. */
typedef struct
{
  const gchar *name;
  gint bits;                    /* the samples' */
  gint pixel_bytes;             /* from one luma sample to the next */
  gint shift;                   /* of 16-bit containers' samples */
  gsize offset;                 /* of the plane's first byte past a 256-byte
                                 * boundary: 1 breaks the x4 path's 8-byte
                                 * alignment */
} LumaLayout;

/* The guide that cbf_chroma_guide (guide.h), the very kernel the element
 * runs, makes on the GPU from @luma laid out as @layout says (8-bit: a
 * byte a sample, the bytes between samples junk; deeper: 16-bit
 * containers, the sample @layout->shift bits up and junk in the bits
 * below, which the kernel must not read), for chroma subsampled by
 * @sub_x x @sub_y and sited @site (CbfChromaSite flags): its rows in two
 * calls, [0, h / 2) and [h / 2, h), as a frame's bands may ask, into a
 * poisoned guide; its samples' low bits must come back zero. */
static Channel
kernel_guide (const Channel * luma, const LumaLayout * layout, gint sub_x,
    gint sub_y, gint site)
{
  gint w = luma->width, h = luma->height, bytes = layout->bits > 8 ? 2 : 1;
  gint gw = (w + sub_x - 1) / sub_x, gh = (h + sub_y - 1) / sub_y, x, y;
  gsize luma_pitch = ((gsize) w * layout->pixel_bytes + 255) / 256 * 256;
  gsize guide_pitch = ((gsize) gw * bytes + 255) / 256 * 256;
  guint8 *host_luma = g_malloc (luma_pitch * h);
  guint8 *host_guide = g_malloc (guide_pitch * gh);
  guint8 *dev_luma = NULL, *dev_guide = NULL;
  guint16 low = (guint16) ((1u << layout->shift) - 1);
  CbfPlane lp, gp;
  Channel g = channel_new (gw, gh, luma->bits);

  fail_unless (luma->bits == layout->bits);
  memset (host_luma, 0xa5, luma_pitch * h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint8 *p = host_luma + y * luma_pitch + (gsize) x * layout->pixel_bytes;
      guint v = luma->data[(gsize) y * w + x];

      if (bytes == 1) {
        *p = (guint8) v;
      } else {
        guint16 c = (guint16) (v << layout->shift | (0x5a5a & low));

        memcpy (p, &c, sizeof (c));
      }
    }
  CUDA_OK (cudaMalloc ((void **) &dev_luma, luma_pitch * h + 256));
  CUDA_OK (cudaMalloc ((void **) &dev_guide, guide_pitch * gh));
  CUDA_OK (cudaMemcpy (dev_luma + layout->offset, host_luma, luma_pitch * h,
          cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemset (dev_guide, 0xee, guide_pitch * gh));
  memset (&lp, 0, sizeof (lp));
  lp.data = dev_luma + layout->offset;
  lp.pitch_bytes = luma_pitch;
  lp.pixel_bytes = layout->pixel_bytes;
  lp.width = w;
  lp.height = h;
  lp.sample_shift = layout->shift;
  lp.sample_bits = bytes == 2 ? layout->bits : 0;
  gp = lp;
  gp.data = dev_guide;
  gp.pitch_bytes = guide_pitch;
  gp.pixel_bytes = bytes;
  gp.width = gw;
  gp.height = gh;
  if (gh / 2 > 0)
    CUDA_OK (cbf_chroma_guide (&lp, &gp, sub_x, sub_y, site, 0, gh / 2, 0));
  CUDA_OK (cbf_chroma_guide (&lp, &gp, sub_x, sub_y, site, gh / 2, gh, 0));
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaMemcpy (host_guide, dev_guide, guide_pitch * gh,
          cudaMemcpyDeviceToHost));
  for (y = 0; y < gh; y++)
    for (x = 0; x < gw; x++) {
      const guint8 *p = host_guide + y * guide_pitch + (gsize) x * bytes;
      guint16 c = *p;

      if (bytes == 2)
        memcpy (&c, p, sizeof (c));
      fail_unless ((c & low) == 0, "cbf_chroma_guide (%s) wrote 0x%04x at "
          "(%d, %d): bits below the sample's shift %d set", layout->name, c,
          x, y, layout->shift);
      g.data[(gsize) y * gw + x] = (guint16) (c >> layout->shift);
    }
  cudaFree (dev_luma);
  cudaFree (dev_guide);
  g_free (host_luma);
  g_free (host_guide);
  return g;
}

/* Uniform noise over @bits bits: every rounding of the guide is met. */
static Channel
channel_noise (gint width, gint height, gint bits, guint32 seed)
{
  Channel ch = channel_new (width, height, bits);
  GRand *rand = g_rand_new_with_seed (seed);
  gsize k;

  for (k = 0; k < (gsize) width * height; k++)
    ch.data[k] = (guint16) g_rand_int_range (rand, 0, 1 << bits);
  g_rand_free (rand);
  return ch;
}

/* The guide's kernels (chroma_guide_x4, for 8-bit 4:2:x luma of a byte a
 * sample in 8-byte words, centred or cosited horizontally; chroma_guide
 * for the rest) against the reference's definition (reference_chroma.h),
 * bit for bit: every siting (centred, H, V, H and V cosited) and
 * subsampling (4:2:0, 4:2:2, 4:4:4); widths the x4 path takes in whole
 * words (64), with a rest for the plain kernel (70, 37, 17, 9) and too
 * narrow for it (8 is one word; 5, 2, 1), heights even and odd; 8-bit
 * luma of a byte a sample (NV12's and I420's: the x4 path), the same one
 * byte off 8-byte alignment (the plain kernel), of two bytes a sample
 * (YUY2's Y), 10-bit samples in the low bits (I420_10LE) and MSB-aligned
 * with junk below (P010_10LE), 16-bit (P016_LE). */
GST_START_TEST (test_guide_kernel)
{
  static const LumaLayout layouts[] = {
    {"8-bit", 8, 1, 0, 0}, {"8-bit misaligned", 8, 1, 0, 1},
    {"8-bit of 2 bytes", 8, 2, 0, 0}, {"10-bit LSB", 10, 2, 0, 0},
    {"10-bit MSB", 10, 2, 6, 0}, {"16-bit", 16, 2, 0, 0}
  };
  static const gint sizes[][2] = { {64, 48}, {70, 46}, {37, 23}, {17, 5},
  {9, 3}, {8, 2}, {5, 4}, {2, 2}, {1, 1}
  };
  static const gint subs[][2] = { {2, 2}, {2, 1}, {1, 1} };
  guint l, z, u, seed = 1;
  gint site, x, y;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (u = 0; u < G_N_ELEMENTS (subs); u++)
        for (site = 0; site < 4; site++) {
          gint w = sizes[z][0], h = sizes[z][1];
          gint sx = subs[u][0], sy = subs[u][1];
          Channel luma = channel_noise (w, h, layouts[l].bits, seed++);
          Channel got = kernel_guide (&luma, &layouts[l], sx, sy, site);
          Channel want = channel_new (got.width, got.height, luma.bits);

          cbf_reference_chroma_guide (luma.data, w, want.data, want.width, 2,
              w, h, sx, sy, (site & CBF_CHROMA_SITE_H_COSITED) != 0,
              (site & CBF_CHROMA_SITE_V_COSITED) != 0);
          for (y = 0; y < got.height; y++)
            for (x = 0; x < got.width; x++) {
              gsize k = (gsize) y * got.width + x;

              fail_unless (got.data[k] == want.data[k], "cbf_chroma_guide, "
                  "%s luma %dx%d, chroma subsampled %dx%d, %s: guide sample "
                  "(%d, %d) is %u, the reference's definition %u",
                  layouts[l].name, w, h, sx, sy, site_name (site), x, y,
                  got.data[k], want.data[k]);
            }
          channels_free (&luma, 1);
          channels_free (&got, 1);
          channels_free (&want, 1);
        }
}

GST_END_TEST;

/* videoconvert's 4:2:0 chroma of @luma (8 bits): a Y444 frame whose three
 * planes are @luma, converted to I420 of chroma-site @site by a
 * GstVideoConverter (videoconvert's own converter), its U plane. The
 * converter's fast path from Y444 to I420 scales the chroma planes as
 * pictures, blind to the siting; a dither-quantization other than 1 turns
 * every fast path off, and dither=none keeps it from dithering, so the
 * frame takes the generic path: unpacked to AYUV, video-chroma.c's
 * downsampler for @site, packed. matrix-mode=none: no colour conversion,
 * U stays luma's values. */
static Channel
videoconvert_chroma (const Channel * luma, GstVideoChromaSite site)
{
  gint w = luma->width, h = luma->height, x, y;
  guint p;
  GstVideoInfo in_info, out_info;
  GstVideoFrame in_frame, out_frame;
  GstBuffer *in_buf, *out_buf;
  GstVideoConverter *convert;
  Channel u;

  fail_unless (luma->bits == 8);
  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_Y444, w, h);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_I420, w, h);
  out_info.chroma_site = site;
  in_buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&in_info), NULL);
  out_buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&out_info),
      NULL);
  fail_unless (gst_video_frame_map (&in_frame, &in_info, in_buf,
          GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&out_frame, &out_info, out_buf,
          GST_MAP_WRITE));
  for (p = 0; p < 3; p++)
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&in_frame, p))[y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, p) + x] =
            (guint8) luma->data[(gsize) y * w + x];
  convert = gst_video_converter_new (&in_info, &out_info,
      gst_structure_new ("options",
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
          GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_DITHER_QUANTIZATION,
          G_TYPE_UINT, 2, GST_VIDEO_CONVERTER_OPT_MATRIX_MODE,
          GST_TYPE_VIDEO_MATRIX_MODE, GST_VIDEO_MATRIX_MODE_NONE, NULL));
  fail_unless (convert != NULL, "no GstVideoConverter from Y444 to I420");
  gst_video_converter_frame (convert, &in_frame, &out_frame);
  u = channel_new (GST_VIDEO_INFO_COMP_WIDTH (&out_info, 1),
      GST_VIDEO_INFO_COMP_HEIGHT (&out_info, 1), 8);
  for (y = 0; y < u.height; y++)
    for (x = 0; x < u.width; x++)
      u.data[(gsize) y * u.width + x] =
          ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&out_frame, 1))[y *
          GST_VIDEO_FRAME_COMP_STRIDE (&out_frame, 1) + x];
  gst_video_converter_free (convert);
  gst_video_frame_unmap (&in_frame);
  gst_video_frame_unmap (&out_frame);
  gst_buffer_unref (in_buf);
  gst_buffer_unref (out_buf);
  return u;
}

/* The guide against an outside oracle, videoconvert's chroma resampler
 * (GstVideoConverter, video-chroma.c): the guide that cbf_chroma_guide
 * (the element's kernel) makes for 4:2:0 chroma-site=jpeg and mpeg2 from
 * a luma picture (the shapes picture's luma; uniform noise), against the
 * U plane that videoconvert makes for that chroma-site from a Y444 frame
 * whose U is that luma. videoconvert filters each column pair
 * ((a + b + 1) >> 1) and rounds, then each row ((a + b + 1) >> 1 for jpeg;
 * for mpeg2 (a + 2b + c + 2) >> 2, and (3b + c + 2) >> 2 at the left edge:
 * column -1 clamped to 0) and rounds again; the guide rounds once. Both
 * round half up: videoconvert's first rounding lifts the values by at
 * most half a level, so its sample is the guide's or one more (0 <= vc -
 * guide <= 1), everywhere but at the last chroma column of an even width
 * with mpeg2, where videoconvert's loop ends a step early and takes
 * (a + 3b + 2) >> 2 of luma columns W - 3 and W - 2, leaving out column
 * W - 1, which the guide's [1 2 1] reads: that column is skipped.
 * videoconvert has no vertical cositing (its downsampler for it, v2_cs, is
 * a FIXME that only decimates), so chroma-site=cosited is held to the C
 * reference alone (test_guide_kernel, test_guided_siting). The oracle must
 * tell the sitings apart: the centred guide and videoconvert's mpeg2
 * chroma differ by more than 1 somewhere. */
GST_START_TEST (test_guide_videoconvert)
{
  static const struct
  {
    const gchar *name;
    GstVideoChromaSite site;
  } sites[] = { {"jpeg", GST_VIDEO_CHROMA_SITE_JPEG},
  {"mpeg2", GST_VIDEO_CHROMA_SITE_MPEG2}
  };
  static const gint sizes[][2] = { {64, 48}, {70, 46}, {37, 23}, {9, 7},
  {5, 3}, {2, 2}, {1, 1}
  };
  static const LumaLayout layout = { "8-bit", 8, 1, 0, 0 };
  guint s, z, k, told = 0;
  gint x, y;

  for (z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (k = 0; k < 2; k++) {
      gint w = sizes[z][0], h = sizes[z][1];
      Channel luma;

      if (k == 0) {
        Channel in[3];

        picture_channels ("I420", w, h, 500 + z, in);
        luma = in[0];
        channels_free (in + 1, 2);
      } else {
        luma = channel_noise (w, h, 8, 510 + z);
      }
      for (s = 0; s < G_N_ELEMENTS (sites); s++) {
        gint site = kernel_site (sites[s].site);
        Channel guide = kernel_guide (&luma, &layout, 2, 2, site);
        Channel vc = videoconvert_chroma (&luma, sites[s].site);
        gboolean h_cosited = (site & CBF_CHROMA_SITE_H_COSITED) != 0;

        fail_unless (vc.width == guide.width && vc.height == guide.height);
        for (y = 0; y < vc.height; y++)
          for (x = 0; x < vc.width; x++) {
            gsize i = (gsize) y * vc.width + x;
            gint d = (gint) vc.data[i] - (gint) guide.data[i];

            if (h_cosited && w % 2 == 0 && x == vc.width - 1)
              continue;
            fail_unless (d == 0 || d == 1, "%dx%d %s luma, chroma-site=%s: "
                "guide sample (%d, %d) is %u, videoconvert's chroma %u: it "
                "must be the guide's or one more (videoconvert rounds "
                "twice, half up)", w, h, k ? "noise" : "picture",
                sites[s].name, x, y, guide.data[i], vc.data[i]);
          }
        if (h_cosited) {
          Channel centred = kernel_guide (&luma, &layout, 2, 2, 0);

          told += count_differing (&centred, &vc, 1);
          channels_free (&centred, 1);
        }
        channels_free (&guide, 1);
        channels_free (&vc, 1);
      }
      channels_free (&luma, 1);
    }
  fail_unless (told > 0, "the centred guide is within 1 of videoconvert's "
      "mpeg2 chroma everywhere: the oracle cannot tell the sitings apart");
}

GST_END_TEST;

/* The element follows the caps' chroma-site: I420, NV12, P010_10LE and
 * I422_10LE (4:2:2: horizontal siting only, cosited's vertical flag
 * ignored) with chroma-site=mpeg2, cosited and jpeg in the caps, a
 * specialised window (d = 9) and a wide one (chroma-diameter 41),
 * 64 x 48 and 37 x 23: the guided chroma against the reference's with the
 * guide of that siting, within +-1. So that an element that ignores
 * chroma-site, or one of its flags, fails: for each format, the reference
 * of each siting must differ by more than 2 somewhere from that of every
 * other siting whose guide differs (all three for 4:2:0; for 4:2:2 mpeg2's
 * and cosited's guides are one). */
GST_START_TEST (test_guided_siting)
{
  static const gchar *fmts[] = { "I420", "NV12", "P010_10LE", "I422_10LE" };
  static const gchar *sites[] = { "jpeg", "mpeg2", "cosited" };
  static const gint sizes[][2] = { {64, 48}, {37, 23} };
  Setup setups[2];
  guint f, si, o, z, k, c;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (9, 30, 4, TRUE);
  setups[1].chroma_diameter = 41;
  setups[1].chroma_sigma_color = 50;
  setups[1].chroma_sigma_space = 10;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    guint told[G_N_ELEMENTS (sites)][G_N_ELEMENTS (sites)];
    gboolean rows_subsampled = FALSE;

    memset (told, 0, sizeof (told));
    for (z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (k = 0; k < G_N_ELEMENTS (setups); k++) {
        gint w = sizes[z][0], h = sizes[z][1];
        guint32 seed = 900 + 10 * f + 2 * z + k;
        Channel in[3], ref[G_N_ELEMENTS (sites)][3];

        picture_channels (fmts[f], w, h, seed, in);
        for (si = 0; si < G_N_ELEMENTS (sites); si++) {
          Setup s = setups[k];
          GstVideoInfo info;

          s.chroma_site = sites[si];
          info = setup_info (fmts[f], w, h, &s);
          rows_subsampled = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, 1) > 0;
          check_setup (fmts[f], w, h, &s, seed, NULL);
          expected_by_plane (&info, in, &s, ref[si]);
        }
        for (si = 0; si < G_N_ELEMENTS (sites); si++)
          for (o = 0; o < G_N_ELEMENTS (sites); o++)
            for (c = 1; c < 3; c++)
              told[si][o] += count_differing (&ref[si][c], &ref[o][c], 2);
        channels_free (in, 3);
        for (si = 0; si < G_N_ELEMENTS (sites); si++)
          channels_free (ref[si], 3);
      }
    for (si = 0; si < G_N_ELEMENTS (sites); si++)
      for (o = si + 1; o < G_N_ELEMENTS (sites); o++) {
        /* mpeg2 and cosited differ only in their vertical flag */
        if (!rows_subsampled && si == 1 && o == 2)
          continue;
        fail_unless (told[si][o] > 0, "%s: the reference's guided chroma "
            "with chroma-site=%s is within 2 of chroma-site=%s's "
            "everywhere: the content cannot tell whether the element "
            "follows chroma-site", fmts[f], sites[si], sites[o]);
      }
  }
}

GST_END_TEST;

/* The guided chroma with every border rule (the border property:
 * reflect-101, replicate, reflect, wrap, constant with border-value 200
 * and 0), which chroma and its guide both follow past their edges, the
 * constant's value scaled to the samples' bits in both
 * (cbf_reference_chroma_guided_border), luma against test_border's
 * reference: I420, NV12, P010_10LE and YUY2 (one plane: at 45 x 130 cut
 * into two bands under the GPU tests' GST_CBF_BAND_BYTES=1, whose windows
 * read guide rows of the other band, with wrap those of the far edge),
 * 37 x 23, 7 x 5 (smaller than the windows, which then repeat the rule)
 * and 45 x 130, a specialised window (d = 9) and a wide one
 * (chroma-diameter 41), the centred guide and mpeg2's. */
GST_START_TEST (test_guided_borders)
{
  static const gchar *fmts[] = { "I420", "NV12", "P010_10LE", "YUY2" };
  static const ImageBorder borders[] = {
    {"reflect-101", 0}, {"replicate", 0}, {"reflect", 0}, {"wrap", 0},
    {"constant", 200}, {"constant", 0}
  };
  static const gint sizes[][2] = { {37, 23}, {7, 5}, {45, 130} };
  static const gchar *sites[] = { NULL, "mpeg2" };
  Setup setups[2];
  guint f, b, z, k, si, seed = 1300;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (9, 30, 4, TRUE);
  setups[1].chroma_diameter = 41;
  setups[1].chroma_sigma_color = 50;
  setups[1].chroma_sigma_space = 10;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (b = 0; b < G_N_ELEMENTS (borders); b++)
      for (z = 0; z < G_N_ELEMENTS (sizes); z++)
        for (k = 0; k < G_N_ELEMENTS (setups); k++)
          for (si = 0; si < G_N_ELEMENTS (sites); si++) {
            Setup s = setups[k];

            s.border = &borders[b];
            s.chroma_site = sites[si];
            check_setup (fmts[f], sizes[z][0], sizes[z][1], &s, seed++, NULL);
          }
}

GST_END_TEST;

/* mode=gaussian and method=grid have no range weights to guide: with
 * chroma-guide=luma the output is the very one without it. */
GST_START_TEST (test_guide_ignored)
{
  static const gchar *modes[][2] = { {"mode", "gaussian"}, {"method", "grid"} };
  const gint w = 64, h = 48;
  guint m, g, c;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    Channel in[3], out[2][3];

    picture_channels ("NV12", w, h, 11, in);
    for (g = 0; g < 2; g++) {
      Setup s = setup_make (9, 30, 8, g == 1);
      GstHarness *harness = chroma_harness_new ("NV12", w, h, &s);

      gst_util_set_object_arg (G_OBJECT (harness->element), modes[m][0],
          modes[m][1]);
      filter_frame (harness, "NV12", w, h,
          frame_from_channels ("NV12", w, h, in, g, g), out[g]);
      filter_harness_free (harness);
    }
    for (c = 0; c < 3; c++)
      assert_channel_matches (&out[1][c], &out[0][c], 0, modes[m][1], "NV12",
          c);
    channels_free (in, 3);
    channels_free (out[0], 3);
    channels_free (out[1], 3);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* With the other features */

/* Whether @out is @in blended with @filtered by a mask level within one of
 * @level (the reference's, in double; the element's 11-bit fixed point may
 * be a level off), within one sample more. */
static gboolean
blend_matches (gint out, gint in, gint filtered, gdouble level)
{
  gint m = (gint) floor (level + 0.5), k;

  for (k = MAX (m - 1, 0); k <= MIN (m + 1, 255); k++)
    if (ABS (out - cbf_reference_mask_blend (in, filtered, k)) <= 1)
      return TRUE;
  return FALSE;
}

/* A strength mask with the guide: the unmasked output the reference's,
 * the masked one the blend of the input and it by the mask scaled to each
 * plane's size. */
GST_START_TEST (test_guided_mask)
{
  static const gchar *fmts[] = { "NV12", "I420", "YUY2", "Y444",
    "P010_10LE"
  };
  const gint w = 97, h = 62, mask_w = 20, mask_h = 11;
  Setup s = setup_make (9, 40, 4, TRUE);
  gchar *base = g_strdup_printf ("cbf-chroma-mask-%d.png", (int) getpid ());
  gchar *path = g_build_filename (g_get_tmp_dir (), base, NULL);
  guint8 *mask = g_malloc (mask_w * mask_h);
  guint f, c;
  gint i, x, y;

  for (i = 0; i < mask_w * mask_h; i++)
    mask[i] = (guint8) ((i % mask_w) * 13 + (i / mask_w) * 7);
  write_gray_png (path, mask, mask_w, mask_h);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *masked = chroma_harness_new (fmts[f], w, h, &s);
    Channel in[3], plain[3], out[3];

    g_object_set (masked->element, "mask-location", path, NULL);
    check_setup (fmts[f], w, h, &s, 40 + f, plain);
    picture_channels (fmts[f], w, h, 40 + f, in);
    filter_frame (masked, fmts[f], w, h,
        frame_from_channels (fmts[f], w, h, in, TRUE, 3), out);
    for (c = 0; c < 3; c++)
      for (y = 0; y < out[c].height; y++)
        for (x = 0; x < out[c].width; x++) {
          gint k = y * out[c].width + x;
          gdouble level = cbf_reference_mask_level (mask, mask_w, mask_w,
              mask_h, out[c].width, out[c].height, x, y);

          fail_unless (blend_matches (out[c].data[k], in[c].data[k],
                  plain[c].data[k], level), "masked and guided %s component "
              "%u at %d,%d: %u, not the blend of %u and %u by a mask level "
              "within one of %.3f", fmts[f], c, x, y, out[c].data[k],
              in[c].data[k], plain[c].data[k], level);
        }
    channels_free (in, 3);
    channels_free (plain, 3);
    channels_free (out, 3);
    filter_harness_free (masked);
  }
  g_unlink (path);
  g_free (path);
  g_free (base);
  g_free (mask);
}

GST_END_TEST;

#define STRENGTH 0.8
#define TEMPORAL_SIGMA 10.0

/* The temporal reference of one plane: B, @values (@width x @height, not
 * rounded), moved towards @prev, the element's previous output (NULL:
 * none). */
static Channel
temporal_channel (const gdouble * values, const Channel * prev, gint width,
    gint height, gint bits)
{
  Channel out = channel_new (width, height, bits);

  cbf_reference_temporal (values, prev ? prev->data : NULL, width, out.data,
      width, 2, bits, width, height, 1, 0, 1, STRENGTH, TEMPORAL_SIGMA);
  return out;
}

/* The guided frame's B before rounding, plane by plane: luma by the
 * one-channel reference, chroma by the guided one. */
static gdouble *
guided_values (const GstVideoInfo * info, const Channel * in, const Setup * s,
    guint c)
{
  gsize n = (gsize) in[c].width * in[c].height;
  gdouble *values = g_new (gdouble, n);

  if (c == 0) {
    cbf_reference_values (CBF_REFERENCE_BILATERAL, in[0].data, in[0].width,
        2, in[0].bits, in[0].width, in[0].height, 1, 0, 1, s->p.diameter,
        s->p.sigma_color, s->p.sigma_space, values);
  } else {
    Params q = chroma_params (info, s);
    Channel g = guide_for (info, &in[0]);

    cbf_reference_chroma_guided_values (g.data, g.width, in[c].data,
        in[c].width, 2, in[c].bits, in[c].width, in[c].height, q.diameter,
        q.sigma_color, q.sigma_space, CBF_REFERENCE_BORDER_REFLECT_101, 0,
        values);
    channels_free (&g, 1);
  }
  return values;
}

/* The temporal filter after the guide: a still picture under fresh noise,
 * three frames, each within the tolerance of the temporal reference given
 * the guided values before rounding and the element's previous output;
 * chroma's expected outputs must move from the spatial ones somewhere, so
 * that an element ignoring the previous frame there fails. */
GST_START_TEST (test_guided_temporal)
{
  static const gchar *fmts[] = { "NV12", "I420_10LE", "Y444" };
  const gint w = 64, h = 48;
  Setup s = setup_make (9, 40, 4, TRUE);
  guint f, k, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    GstHarness *harness = chroma_harness_new (fmts[f], w, h, &s);
    Channel prev[3];
    guint moved = 0;

    g_object_set (harness->element, "temporal-strength", STRENGTH,
        "temporal-sigma", TEMPORAL_SIGMA, NULL);
    for (k = 0; k < 3; k++) {
      Channel in[3], out[3];

      picture_channels (fmts[f], w, h, 60 + k, in);
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, k % 2, k), out);
      for (c = 0; c < 3; c++) {
        gdouble *values = guided_values (&info, in, &s, c);
        Channel expected = temporal_channel (values, k ? &prev[c] : NULL,
            in[c].width, in[c].height, in[c].bits);
        Channel spatial = temporal_channel (values, NULL, in[c].width,
            in[c].height, in[c].bits);
        gchar *what = g_strdup_printf ("guided, temporal frame %u", k);

        assert_channel_matches (&out[c], &expected,
            format_tolerance (GST_VIDEO_INFO_FORMAT (&info)), what, fmts[f], c);
        if (c > 0)
          moved +=
              count_differing (&expected, &spatial,
              format_tolerance (GST_VIDEO_INFO_FORMAT (&info)));
        channels_free (&expected, 1);
        channels_free (&spatial, 1);
        g_free (values);
        g_free (what);
      }
      if (k)
        channels_free (prev, 3);
      memcpy (prev, out, sizeof (prev));
      channels_free (in, 3);
    }
    fail_unless (moved > 0, "%s: the temporal reference's chroma is the "
        "spatial one: the check cannot tell a temporal filter", fmts[f]);
    channels_free (prev, 3);
    filter_harness_free (harness);
  }
}

GST_END_TEST;

#define RW 70
#define RH 46
#define PADDING 2
#define FEATHER 5.5

/* Overlapping boxes, one past the right and bottom edges, a tiny one. */
static const gint region_boxes[][4] = {
  {10, 8, 20, 16}, {24, 14, 18, 12}, {60, 34, 20, 30}, {4, 40, 1, 1}
};

static void
attach_regions (GstBuffer * buf)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (region_boxes); i++)
    gst_buffer_add_video_region_of_interest_meta (buf, "face",
        region_boxes[i][0], region_boxes[i][1], region_boxes[i][2],
        region_boxes[i][3]);
}

/* Regions with the guide: each sample the reference's blend of the input
 * and the whole frame filtered (chroma guided) by the region weight at
 * its plane; the input bit for bit where the weight is 0, within the
 * tolerance where it is 255, and between within what a weight one level
 * off moves. */
GST_START_TEST (test_guided_regions)
{
  static const struct
  {
    const gchar *format;
    const gchar *mode;
  } runs[] = { {"NV12", "inside"}, {"NV12", "outside"}, {"I420", "inside"},
  {"Y444", "inside"}, {"P010_10LE", "inside"}
  };
  Setup s = setup_make (9, 40, 4, TRUE);
  gint boxes[G_N_ELEMENTS (region_boxes)][4];
  guint r, i, c;

  /* Grown by the padding and clipped to the frame. */
  for (i = 0; i < G_N_ELEMENTS (region_boxes); i++) {
    boxes[i][0] = CLAMP (region_boxes[i][0] - PADDING, 0, RW);
    boxes[i][1] = CLAMP (region_boxes[i][1] - PADDING, 0, RH);
    boxes[i][2] = CLAMP (region_boxes[i][0] + region_boxes[i][2] + PADDING,
        0, RW);
    boxes[i][3] = CLAMP (region_boxes[i][1] + region_boxes[i][3] + PADDING,
        0, RH);
  }
  for (r = 0; r < G_N_ELEMENTS (runs); r++) {
    const gchar *fmt = runs[r].format;
    gboolean outside = g_str_equal (runs[r].mode, "outside");
    GstVideoInfo info = info_for (fmt, RW, RH);
    gint tol = format_tolerance (GST_VIDEO_INFO_FORMAT (&info));
    GstHarness *harness = chroma_harness_new (fmt, RW, RH, &s);
    Channel in[3], out[3], filtered[3];
    GstBuffer *buf;
    guint counts[3] = { 0, 0, 0 };      /* chroma weights 0, between, 255 */

    gst_util_set_object_arg (G_OBJECT (harness->element), "regions",
        runs[r].mode);
    g_object_set (harness->element, "region-padding", PADDING,
        "region-feather", FEATHER, NULL);
    picture_channels (fmt, RW, RH, 70 + r, in);
    buf = frame_from_channels (fmt, RW, RH, in, r % 2, r);
    attach_regions (buf);
    filter_frame (harness, fmt, RW, RH, buf, out);
    expected_by_plane (&info, in, &s, filtered);
    for (c = 0; c < 3; c++) {
      gint fx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
      gint fy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
      gint x, y;

      for (y = 0; y < out[c].height; y++)
        for (x = 0; x < out[c].width; x++) {
          gint k = y * out[c].width + x, got = out[c].data[k];
          gint src = in[c].data[k], full = filtered[c].data[k];
          gint m = cbf_reference_region_weight ((const int (*)[4]) boxes,
              G_N_ELEMENTS (boxes), FEATHER, outside, fx, fy, x, y);
          gint want = cbf_reference_mask_blend (src, full, m);
          gint limit = m == 0 ? 0 : m == 255 ? tol :
              tol + 1 + (ABS (full - src) + 254) / 255;

          if (c > 0)
            counts[m == 0 ? 0 : m == 255 ? 2 : 1]++;
          fail_unless (ABS (got - want) <= limit, "regions=%s, guided, %s "
              "component %u (%d, %d) weight %d: %d, expected %d (input %d, "
              "filtered %d)", runs[r].mode, fmt, c, x, y, m, got, want, src,
              full);
        }
    }
    fail_unless (counts[0] && counts[1] && counts[2], "%s regions=%s: "
        "chroma weights 0, between and 255: %u, %u, %u samples", fmt,
        runs[r].mode, counts[0], counts[1], counts[2]);
    channels_free (in, 3);
    channels_free (out, 3);
    channels_free (filtered, 3);
    filter_harness_free (harness);
  }
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
/* cudaupload ! cudabilateral name=f ! cudadownload, CUDA caps forced on
 * both sides of the filter, set up as @s (filter_harness_full). */
static GstHarness *
cuda_harness_new (const gchar * format, gint width, gint height,
    const Setup * s)
{
  return filter_harness_full (format, width, height, "cudabilateral name=f",
      setup_filter, s, NULL);
}

/* Whether the filter in @h negotiated CUDA memory. */
static gboolean
filter_in_cuda_memory (GstHarness * h)
{
  GstElement *filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
  GstPad *pad = gst_element_get_static_pad (filter, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean cuda = caps && gst_caps_features_contains (gst_caps_get_features
      (caps, 0), "memory:CUDAMemory");

  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (filter);
  return cuda;
}

/* The guide in CUDA memory: NV12 and I420, odd and even sizes, the
 * reference's output, and the very bytes of the system-memory path. */
GST_START_TEST (test_guided_cuda_memory)
{
  static const gchar *fmts[] = { "NV12", "I420" };
  static const gint sizes[][2] = { {97, 61}, {160, 90} };
  Setup s = setup_make (9, 40, 4, TRUE);
  guint f, z, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
      gint w = sizes[z][0], h = sizes[z][1];
      GstVideoInfo info = info_for (fmts[f], w, h);
      GstHarness *cuda = cuda_harness_new (fmts[f], w, h, &s);
      Channel in[3], cuda_out[3], sys_out[3], expected[3];

      picture_channels (fmts[f], w, h, 90 + z, in);
      push_and_read_channels (cuda, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, z % 2, z), cuda_out);
      fail_unless (filter_in_cuda_memory (cuda), "%s: the filter did not "
          "negotiate CUDA memory", fmts[f]);
      check_setup (fmts[f], w, h, &s, 90 + z, sys_out);
      expected_by_plane (&info, in, &s, expected);
      for (c = 0; c < 3; c++) {
        assert_channel_matches (&cuda_out[c], &expected[c],
            plane_tolerance (&info, &s, c), "guided, CUDA memory", fmts[f], c);
        assert_channel_matches (&cuda_out[c], &sys_out[c], 0,
            "guided, CUDA memory against system memory", fmts[f], c);
      }
      channels_free (in, 3);
      channels_free (cuda_out, 3);
      channels_free (sys_out, 3);
      channels_free (expected, 3);
      filter_harness_free (cuda);
    }
}

GST_END_TEST;
#endif

static Suite *
chroma_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-chroma", 600, &tc);

  tcase_add_test (tc, test_joint_golden);
  tcase_add_test (tc, test_guided_formats);
  tcase_add_test (tc, test_guided_every_format);
  tcase_add_test (tc, test_plane_params);
  tcase_add_test (tc, test_y444_by_plane);
  tcase_add_test (tc, test_y444_switch);
  tcase_add_test (tc, test_guide_matters);
  tcase_add_test (tc, test_guide_ignored);
  tcase_add_test (tc, test_guide_kernel);
  tcase_add_test (tc, test_guide_videoconvert);
  tcase_add_test (tc, test_guided_siting);
  tcase_add_test (tc, test_guided_borders);
  tcase_add_test (tc, test_guided_mask);
  tcase_add_test (tc, test_guided_temporal);
  tcase_add_test (tc, test_guided_regions);
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_guided_cuda_memory);
#endif
  return s;
}

#if CBF_HAVE_CUDA_MEMORY
TEST_MAIN (chroma_suite, TEST_NEEDS_GPU, "pngenc", "pngdec", "cudaupload",
    "cudadownload", NULL);
#else
TEST_MAIN (chroma_suite, TEST_NEEDS_GPU, "pngenc", "pngdec", NULL);
#endif
