/* The motion-compensated temporal filter (temporal-motion=compensated) on
 * a GPU, through the engine the element runs:
 * - the blend against a reference written here, frame by frame, given the
 *   engine's own motion field, spatial result (a second engine that starts
 *   again every frame, whose output is the spatial result as the blend
 *   takes it, itself held to the C reference within the format's
 *   tolerance) and previous output: warp, gate, blend within 1 in every
 *   format, on a picture that moves under fresh noise, and on frames too
 *   small to search;
 * - the estimator against known motion: sub-pixel shifts in eight
 *   directions, a rotation and a zoom of a textured picture, and a flat
 *   picture under noise, which must show no motion;
 * - a scene cut: the frame after it is the spatial result, counted once;
 * - an object moving over a still background leaves no trail;
 * - chroma without a luma to follow (filter-luma=false) starts again;
 * - the noise measured (noise-sigma=-1) on a picture of data/ under
 *   Gaussian noise of 4 to 30 levels, and the settings a noise level
 *   gives.
 * The element's own rules (its resets, scene-cuts and its message) are
 * tested in test_motion_element; the frames and the engine's rig both use
 * are in motion_support.c. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <math.h>

#include "gpu_support.h"
#include "cbfengine.h"
#include "motion_support.h"

static const Motion still = { 1, 0, 0, 1, 0, 0 };

/* The field's vector at luma position (x, y): bilinear between the
 * centres of the blocks, the outer centres' past them (motion.h). */
static void
field_at (const gfloat * f, gint bx, gint by, double x, double y, double *vx,
    double *vy)
{
  double half = (CBF_MOTION_BLOCK - 1) / 2.0;
  double fx = CLAMP ((x - half) / CBF_MOTION_BLOCK, 0, bx - 1);
  double fy = CLAMP ((y - half) / CBF_MOTION_BLOCK, 0, by - 1);
  gint x0 = (gint) fx, y0 = (gint) fy;
  gint x1 = MIN (x0 + 1, bx - 1), y1 = MIN (y0 + 1, by - 1);
  double ax = fx - x0, ay = fy - y0;
  guint k;

  for (k = 0; k < 2; k++) {
    double t = (1 - ax) * f[2 * (y0 * bx + x0) + k] +
        ax * f[2 * (y0 * bx + x1) + k];
    double b = (1 - ax) * f[2 * (y1 * bx + x0) + k] +
        ax * f[2 * (y1 * bx + x1) + k];
    *(k ? vy : vx) = t + ay * (b - t);
  }
}

/* @ch bilinear at (x, y), positions clamped to it. */
static double
bilinear (const Channel * ch, double x, double y)
{
  gint x0, y0, x1, y1;
  double ax, ay, t, b;

  x = CLAMP (x, 0, ch->width - 1);
  y = CLAMP (y, 0, ch->height - 1);
  x0 = (gint) x;
  y0 = (gint) y;
  x1 = MIN (x0 + 1, ch->width - 1);
  y1 = MIN (y0 + 1, ch->height - 1);
  ax = x - x0;
  ay = y - y0;
  t = ch->data[y0 * ch->width + x0] * (1 - ax) +
      ch->data[y0 * ch->width + x1] * ax;
  b = ch->data[y1 * ch->width + x0] * (1 - ax) +
      ch->data[y1 * ch->width + x1] * ax;
  return t + ay * (b - t);
}

/* What a channel is to the others in reference_blend. */
typedef enum
{
  ALONE, LUMA, CHROMA
} Role;

/* The blend of a group of @n channels filtered together (@c0 on), from
 * @b (the spatial result), @prev (the previous output), the field and the
 * frame's luma size: each channel's previous output warped by the field
 * at its pixels (scaled to its resolution), D the sum over the group of
 * |3 x 3 mean of (B - P)| (taps clamped to the plane), Y = B + a g (P - B)
 * rounded. @role LUMA leaves D in @luma_d (@width x @height); CHROMA
 * (one channel) takes the largest of its D, of |2 x 2 mean of (B - P)|
 * over the four 2 x 2 squares holding the pixel, and of @luma_d over the
 * block of luma pixels the pixel stands for and the ring around it
 * (positions clamped to the planes). Returns how many outputs differ from
 * B by more than 1. */
static guint
reference_blend (const Channel * b, const Channel * prev, guint c0, guint n,
    const gfloat * field, gint bx, gint by, gint width, gint height,
    Role role, double *luma_d, Channel * expected)
{
  gint w = b[c0].width, h = b[c0].height, x, y, i, j;
  double sx = (double) width / w, sy = (double) height / h;
  /* Luma pixels a pixel stands for: the plane's size rounds up. */
  gint sub_x = (width + w - 1) / w, sub_y = (height + h - 1) / h;
  double top = (1 << b[c0].bits) - 1, s = SIGMA * top / 255;
  double *diff = g_new (double, (gsize) w * h * n);
  guint c, moved = 0;

  for (c = 0; c < n; c++)
    expected[c0 + c] = channel_new (w, h, b[c0].bits);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double vx, vy;

      field_at (field, bx, by, (x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5,
          &vx, &vy);
      for (c = 0; c < n; c++)
        diff[((gsize) y * w + x) * n + c] = b[c0 + c].data[y * w + x] -
            bilinear (&prev[c0 + c], x + vx / sx, y + vy / sy);
    }
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double d = 0, g;

      for (c = 0; c < n; c++) {
        double m = 0;

        for (j = -1; j <= 1; j++)
          for (i = -1; i <= 1; i++)
            m += diff[((gsize) CLAMP (y + j, 0, h - 1) * w +
                    CLAMP (x + i, 0, w - 1)) * n + c];
        d += fabs (m / 9);
      }
      if (role == LUMA)
        luma_d[y * width + x] = d;
      for (j = -1; role == CHROMA && j <= 0; j++)
        for (i = -1; i <= 0; i++) {
          double m = 0;
          gint q, r;

          for (q = 0; q < 2; q++)
            for (r = 0; r < 2; r++)
              m += diff[(gsize) CLAMP (y + j + q, 0, h - 1) * w +
                  CLAMP (x + i + r, 0, w - 1)];
          d = MAX (d, fabs (m / 4));
        }
      for (j = -1; role == CHROMA && j <= sub_y; j++)
        for (i = -1; i <= sub_x; i++)
          d = MAX (d, luma_d[CLAMP (y * sub_y + j, 0, height - 1) * width +
                  CLAMP (x * sub_x + i, 0, width - 1)]);
      g = STRENGTH * exp (-d * d / (2 * s * s));
      for (c = 0; c < n; c++) {
        double bv = b[c0 + c].data[y * w + x];
        double v = bv - g * diff[((gsize) y * w + x) * n + c];
        gint r = (gint) CLAMP (lrint (v), 0, top);

        expected[c0 + c].data[y * w + x] = (guint16) r;
        moved += ABS (r - (gint) bv) > 1;
      }
    }
  g_free (diff);
  return moved;
}

static const gchar *blend_formats[] = { "GRAY8", "NV12", "I420", "YUY2",
  "RGBA", "xRGB", "RGB", "Y444", "P010_10LE", "I420_10LE", "GRAY16_LE",
  "Y444_16LE", "GBR_10LE", "RGBA64_LE", "BGR10A2_LE"
};

/* Five frames of @format at @w x @h, a picture moving (@sx, @sy) pixels a
 * frame under fresh noise, through an engine, frame by frame against
 * reference_blend given the engine's own field (@zero_field: which must
 * be zero); returns how many outputs the blend moved. */
static guint
check_blend (const gchar * format, gint w, gint h, double sx, double sy,
    gboolean zero_field)
{
  static const Params p = {.diameter = 3,.sigma_color = 30,.sigma_space = 5 };
  GstVideoInfo info = info_for (format, w, h);
  gboolean color = GST_VIDEO_INFO_N_COMPONENTS (&info) >= 3
      && GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, 1) == 0
      && GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, 1) == 0;
  gint tol = format_tolerance (GST_VIDEO_INFO_FORMAT (&info));
  Channel prev[GST_VIDEO_MAX_COMPONENTS];
  Rig comp, spatial;
  guint k, n = 0, moved = 0;

  rig_init (&comp, format, w, h, &p, SIGMA, FALSE);
  rig_init (&spatial, format, w, h, &p, SIGMA, TRUE);
  for (k = 0; k < 5; k++) {
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel b[GST_VIDEO_MAX_COMPONENTS], ref[GST_VIDEO_MAX_COMPONENTS];
    Channel expected[GST_VIDEO_MAX_COMPONENTS];
    Motion m = shift_by (sx * k, sy * k);
    gfloat *field = NULL;
    gint bx, by, i;
    guint c, n_ref;
    gchar *what;

    n = make_frame (format, w, h, &m, 8, 100 + k, FALSE, in);
    rig_filter (&comp, in, out);
    rig_filter (&spatial, in, b);
    /* The spatial result the blend starts from is the filter's. */
    n_ref = channels_reference_for_format (&info, in, &p, ref);
    for (c = 0; c < n_ref; c++)
      assert_channel_matches (&b[c], &ref[c], tol, "spatial", format, c);
    channels_free (ref, n_ref);

    what = g_strdup_printf ("%dx%d frame %u", w, h, k);
    if (k == 0) {
      fail_if (cbf_engine_get_motion (comp.engine, &field, &bx, &by),
          "%s: a field without a previous frame", format);
      for (c = 0; c < n_ref; c++)
        assert_channel_matches (&out[c], &b[c], 0, what, format, c);
    } else {
      fail_unless (cbf_engine_get_motion (comp.engine, &field, &bx, &by),
          "%s: no field", format);
      for (i = 0; zero_field && i < 2 * bx * by; i++)
        fail_unless (field[i] == 0, "%s %s: motion %g in a frame too small "
            "to search", format, what, field[i]);
      if (color) {
        moved += reference_blend (b, prev, 0, 3, field, bx, by, w, h, ALONE,
            NULL, expected);
      } else {
        double *luma_d = g_new (double, (gsize) w * h);

        /* Luma first: its D is what chroma lets go by. */
        for (c = 0; c < n_ref; c++)
          moved += reference_blend (b, prev, c, 1, field, bx, by, w, h,
              c ? CHROMA : LUMA, luma_d, expected);
        g_free (luma_d);
      }
      for (c = 0; c < n_ref; c++)
        assert_channel_matches (&out[c], &expected[c], 1, what, format, c);
      channels_free (expected, n_ref);
      channels_free (prev, n);
      g_free (field);
    }
    /* Alpha passes unchanged. */
    for (c = n_ref; c < n; c++)
      assert_channel_matches (&out[c], &in[c], 0, "alpha", format, c);
    memcpy (prev, out, sizeof (Channel) * n);
    channels_free (in, n);
    channels_free (b, n);
    g_free (what);
  }
  channels_free (prev, n);
  fail_unless_equals_int (cbf_engine_get_scene_cuts (comp.engine), 0);
  rig_clear (&comp);
  rig_clear (&spatial);
  return moved;
}

/* Frame by frame against reference_blend, a picture moving (1.6, -0.7)
 * pixels a frame under fresh noise. */
GST_START_TEST (test_blend_every_format)
{
  guint f;

  for (f = 0; f < G_N_ELEMENTS (blend_formats); f++)
    /* The blend moved outputs: the check could tell a missing one. */
    fail_unless (check_blend (blend_formats[f], 96, 64, 1.6, -0.7, FALSE) > 0,
        "%s: the blend moved no output", blend_formats[f]);
}

GST_END_TEST;

/* Frames smaller than the search's coarsest level (under 4 pixels a
 * side): no motion, and the blend as the reference's, still pictures. */
GST_START_TEST (test_tiny_frames)
{
  static const gint sizes[][2] = { {1, 1}, {3, 2}, {2, 5}, {7, 3} };
  const gchar *formats[] = { "GRAY8", "NV12", "RGBA", "P010_10LE" };
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (i = 0; i < G_N_ELEMENTS (sizes); i++)
      check_blend (formats[f], sizes[i][0], sizes[i][1], 0, 0, TRUE);
}

GST_END_TEST;

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Mean and 95th percentile of the field's error against @truth over the
 * blocks at least two blocks from the frame's edges, of a pair of GRAY8
 * frames: the texture through still, then through @m, noise @noise. */
static void
field_error (const Motion * m, double noise, double sigma, gboolean flat,
    double *mean, double *p95, double *most)
{
  static const Params p = {.diameter = 3,.sigma_color = 30,.sigma_space = 5 };
  const gint w = 320, h = 192;
  Channel in[1], out[1];
  Rig r;
  gfloat *field;
  gint bx, by, x, y;
  GArray *errors = g_array_new (FALSE, FALSE, sizeof (double));
  double sum = 0;
  guint k;

  rig_init (&r, "GRAY8", w, h, &p, sigma, FALSE);
  for (k = 0; k < 2; k++) {
    make_frame ("GRAY8", w, h, k ? m : &still, noise, 7 + k, flat, in);
    rig_filter (&r, in, out);
    channels_free (in, 1);
    channels_free (out, 1);
  }
  fail_unless (cbf_engine_get_motion (r.engine, &field, &bx, &by));
  *most = 0;
  for (y = 2; y < by - 2; y++)
    for (x = 2; x < bx - 2; x++) {
      /* Block centre c shows texture m (c) now, still (c) = c before:
       * v = m (c) - c. */
      double cx = x * CBF_MOTION_BLOCK + (CBF_MOTION_BLOCK - 1) / 2.0;
      double cy = y * CBF_MOTION_BLOCK + (CBF_MOTION_BLOCK - 1) / 2.0;
      double tx = flat ? 0 : m->a * cx + m->b * cy + m->tx - cx;
      double ty = flat ? 0 : m->c * cx + m->d * cy + m->ty - cy;
      double e = hypot (field[2 * (y * bx + x)] - tx,
          field[2 * (y * bx + x) + 1] - ty);

      g_array_append_val (errors, e);
      sum += e;
      *most = MAX (*most, e);
    }
  g_array_sort (errors, (GCompareFunc) cmp_double);
  *mean = sum / errors->len;
  *p95 = g_array_index (errors, double, (guint) (0.95 * (errors->len - 1)));
  g_array_free (errors, TRUE);
  g_free (field);
  rig_clear (&r);
}

/* Known sub-pixel shifts in eight directions, a rotation and a zoom about
 * the centre, under noise of 8 levels (temporal-sigma 8): the field within
 * 0.25 pixels on average over the textured picture, the 95th percentile
 * printed. */
GST_START_TEST (test_estimator_accuracy)
{
  const double cx = 159.5, cy = 95.5, r = 2.37;
  guint k;

  for (k = 0; k < 10; k++) {
    Motion m;
    double mean, p95, most;
    gchar *what;

    if (k < 8) {
      double a = k * G_PI / 4 + 0.2;
      m = shift_by (r * cos (a), r * sin (a));
      what = g_strdup_printf ("shift (%.2f, %.2f)", r * cos (a), r * sin (a));
    } else {
      /* About the centre: x' = c + M (x - c). */
      double t = k == 8 ? 1.5 * G_PI / 180 : 0, z = k == 8 ? 1 : 1.02;
      m.a = z * cos (t);
      m.b = -z * sin (t);
      m.c = z * sin (t);
      m.d = z * cos (t);
      m.tx = cx - m.a * cx - m.b * cy;
      m.ty = cy - m.c * cx - m.d * cy;
      what = g_strdup (k == 8 ? "rotation 1.5 degrees" : "zoom 1.02");
    }
    field_error (&m, 8, 8, FALSE, &mean, &p95, &most);
    GST_INFO ("%s: error mean %.3f, 95th percentile %.3f, most %.3f px",
        what, mean, p95, most);
    g_print ("estimator, %s: error mean %.3f, 95th percentile %.3f px\n",
        what, mean, p95);
    fail_unless (mean <= 0.25, "%s: mean error %.3f px", what, mean);
    g_free (what);
  }
}

GST_END_TEST;

/* A flat picture under noise of 4 to 30 levels, temporal-sigma set to
 * the noise, invents no motion. */
GST_START_TEST (test_estimator_flat)
{
  const double noises[] = { 4, 8, 20, 30 };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (noises); k++) {
    double mean, p95, most;

    field_error (&still, noises[k], noises[k], TRUE, &mean, &p95, &most);
    g_print ("estimator, flat under noise %g: largest vector %.4f px\n",
        noises[k], most);
    fail_unless (most < 0.05, "noise %g: a vector of %.3f px on a flat "
        "picture", noises[k], most);
  }
}

GST_END_TEST;

/* A cut to another picture: that frame is the spatial result (no blend),
 * and it is counted once; the frames around it are not cuts. */
GST_START_TEST (test_scene_cut)
{
  static const Params p = {.diameter = 3,.sigma_color = 30,.sigma_space = 5 };
  const gint w = 160, h = 96;
  const gchar *formats[] = { "GRAY8", "NV12", "RGBA" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    Rig comp, spatial;
    guint k, c, n = 0;

    rig_init (&comp, formats[f], w, h, &p, SIGMA, FALSE);
    rig_init (&spatial, formats[f], w, h, &p, SIGMA, TRUE);
    for (k = 0; k < 5; k++) {
      Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
      Channel b[GST_VIDEO_MAX_COMPONENTS];
      /* Frames 3 and 4: the texture turned and moved far away. */
      Motion m = k < 3 ? shift_by (k, 0) : (Motion) {
        0, 1, -1, 0, 500 + k, 300
      };

      n = make_frame (formats[f], w, h, &m, 8, 40 + k, FALSE, in);
      rig_filter (&comp, in, out);
      rig_filter (&spatial, in, b);
      if (k == 3)
        for (c = 0; c < n; c++)
          assert_channel_matches (&out[c], &b[c], 0, "the cut's frame",
              formats[f], c);
      channels_free (in, n);
      channels_free (out, n);
      channels_free (b, n);
      /* Counted once its frame's work is done. */
      fail_unless_equals_int (cbf_engine_get_scene_cuts (comp.engine),
          k >= 3 ? 1 : 0);
    }
    rig_clear (&comp);
    rig_clear (&spatial);
  }
}

GST_END_TEST;

/* Whether pixel (@x, @y) of component @c of @info has its centre in the
 * square of @side luma pixels at (@x0, @y0). */
static gboolean
in_square (const GstVideoInfo * info, guint c, gint x, gint y, gint x0,
    gint y0, gint side)
{
  double fx = (double) GST_VIDEO_INFO_WIDTH (info) /
      GST_VIDEO_INFO_COMP_WIDTH (info, c);
  double fy = (double) GST_VIDEO_INFO_HEIGHT (info) /
      GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  double lx = (x + 0.5) * fx - 0.5, ly = (y + 0.5) * fy - 0.5;

  return lx >= x0 && lx < x0 + side && ly >= y0 && ly < y0 + side;
}

/* An object (a square of the texture turned negative, 32 pixels a side)
 * moving 4 pixels a frame over a still background, under fresh noise of 8
 * levels, leaves no trail. Where it was a frame before and is no longer,
 * and its clean picture differed there from the background's by more than
 * three temporal sigmas (where the gate must reject it), the output is
 * pulled towards the object's values ((Y - B) signed towards it) by at
 * most one level on average, in luma and in subsampled chroma (4:2:0,
 * 4:2:2; 8 and 10 bits), whose uncovered strip is one or two pixels wide;
 * the blend without its gate pulls luma by about 50, chroma gated on its
 * own 3 x 3 mean alone by 3 to 5. And the output moves from the spatial
 * result B there no more than twice as much as on still background away
 * from the object plus one level (mean |Y - B|: what the pixels uncovered
 * take from a background warped from beside them, which the gate cannot
 * tell from noise where it is smooth). The blend must move the still
 * background by over half a level, so that the spatial filter alone
 * cannot pass. RGB is left out: its gate sums three channels' differences
 * and at this temporal-sigma keeps the still background almost as the
 * spatial result (a mean |Y - B| of 0.4). */
GST_START_TEST (test_object_leaves_no_trail)
{
  static const Params p = {.diameter = 3,.sigma_color = 30,.sigma_space = 5 };
  const gint w = 160, h = 96, side = 32, step = 4, y0 = 32;
  const gchar *formats[] = { "GRAY8", "NV12", "YUY2", "P010_10LE" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = info_for (formats[f], w, h);
    Channel bg[GST_VIDEO_MAX_COMPONENTS];
    /* Per component: where the object was, and away from it. */
    double left[GST_VIDEO_MAX_COMPONENTS] = { 0 };
    double pull[GST_VIDEO_MAX_COMPONENTS] = { 0 };
    double away[GST_VIDEO_MAX_COMPONENTS] = { 0 };
    guint64 n_left[GST_VIDEO_MAX_COMPONENTS] = { 0 };
    guint64 n_away[GST_VIDEO_MAX_COMPONENTS] = { 0 };
    guint c;
    Rig comp, spatial;
    guint k, n;

    rig_init (&comp, formats[f], w, h, &p, SIGMA, FALSE);
    rig_init (&spatial, formats[f], w, h, &p, SIGMA, TRUE);
    n = make_frame (formats[f], w, h, &still, 0, 1, FALSE, bg);
    for (k = 0; k < 7; k++) {
      Channel in[GST_VIDEO_MAX_COMPONENTS], obj[GST_VIDEO_MAX_COMPONENTS];
      Channel out[GST_VIDEO_MAX_COMPONENTS], b[GST_VIDEO_MAX_COMPONENTS];
      Channel was[GST_VIDEO_MAX_COMPONENTS];
      gint x0 = 16 + step * k;
      Motion m = shift_by (x0 - 300, y0 - 200);
      Motion m_was = shift_by (x0 - step - 300, y0 - 200);

      make_frame (formats[f], w, h, &still, 8, 500 + k, FALSE, in);
      make_frame (formats[f], w, h, &m, 8, 600 + k, FALSE, obj);
      /* The object's clean picture where it was a frame before. */
      make_frame (formats[f], w, h, &m_was, 0, 1, FALSE, was);
      for (c = 0; c < n; c++) {
        gint top = (1 << in[c].bits) - 1, x, y;

        for (y = 0; y < in[c].height; y++)
          for (x = 0; x < in[c].width; x++)
            if (in_square (&info, c, x, y, x0, y0, side))
              in[c].data[y * in[c].width + x] =
                  top - obj[c].data[y * in[c].width + x];
      }
      rig_filter (&comp, in, out);
      rig_filter (&spatial, in, b);
      for (c = 0; c < n && k >= 2; c++) {
        gint top = (1 << in[c].bits) - 1, x, y;
        double fy = (double) h / in[c].height, to_8bit = 255.0 / top;

        for (y = 0; y < in[c].height; y++)
          for (x = 0; x < in[c].width; x++) {
            gint i = y * in[c].width + x;
            double d = abs ((gint) out[c].data[i] - (gint) b[c].data[i]);
            double contrast = ((double) (top - was[c].data[i]) -
                bg[c].data[i]) * to_8bit;
            double ly = (y + 0.5) * fy - 0.5;

            if (in_square (&info, c, x, y, x0 - step, y0, side)
                && !in_square (&info, c, x, y, x0, y0, side)) {
              if (fabs (contrast) > 3 * SIGMA) {
                left[c] += d * to_8bit;
                pull[c] += ((gint) out[c].data[i] - (gint) b[c].data[i]) *
                    (contrast > 0 ? 1 : -1) * to_8bit;
                n_left[c]++;
              }
            } else if (ly < y0 - 16 || ly >= y0 + side + 16) {
              away[c] += d * to_8bit;
              n_away[c]++;
            }
          }
      }
      channels_free (in, n);
      channels_free (obj, n);
      channels_free (was, n);
      channels_free (out, n);
      channels_free (b, n);
    }
    channels_free (bg, n);
    for (c = 0; c < n; c++) {
      fail_unless (n_left[c] >= 50 && n_away[c] > 0, "%s component %u: %"
          G_GUINT64_FORMAT " samples of contrast where the object was",
          formats[f], c, n_left[c]);
      left[c] /= n_left[c];
      pull[c] /= n_left[c];
      away[c] /= n_away[c];
      g_print ("object moving, %s component %u: where it was (%"
          G_GUINT64_FORMAT " samples) pulled towards it by %.2f levels, "
          "mean |Y - B| %.2f; away from it %.2f\n", formats[f], c,
          n_left[c], pull[c], left[c], away[c]);
    }
    for (c = 0; c < n; c++) {
      fail_unless (away[c] > 0.5, "%s component %u: the blend did not move "
          "the still background (mean |Y - B| %.2f)", formats[f], c, away[c]);
      fail_unless (pull[c] <= 1, "%s component %u: "
          "a trail where the object was: the output pulled towards it by "
          "%.2f levels on average", formats[f], c, pull[c]);
      fail_unless (left[c] <= 2 * away[c] + 1,
          "%s component %u: where the "
          "object was, mean |Y - B| %.2f; on still background %.2f", formats[f],
          c, left[c], away[c]);
    }
    fail_unless_equals_int (cbf_engine_get_scene_cuts (comp.engine), 0);
    rig_clear (&comp);
    rig_clear (&spatial);
  }
}

GST_END_TEST;

/* With luma copied (filter-luma=false) there is no luma to find motion
 * in: chroma starts again every frame, the spatial result, rather than
 * blend where things moved; luma passes unchanged. */
GST_START_TEST (test_chroma_without_luma)
{
  static const Params p = {.diameter = 3,.sigma_color = 30,.sigma_space = 5 };
  const gint w = 96, h = 64;
  const gchar *formats[] = { "NV12", "I420", "P010_10LE" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    CbfParams params = engine_params (&p, SIGMA);
    Rig comp, spatial;
    guint k;

    params.luma_unfiltered = TRUE;
    rig_init (&comp, formats[f], w, h, &p, SIGMA, FALSE);
    rig_init (&spatial, formats[f], w, h, &p, SIGMA, TRUE);
    cbf_engine_set_params (comp.engine, &params);
    cbf_engine_set_params (spatial.engine, &params);
    for (k = 0; k < 4; k++) {
      Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
      Channel b[GST_VIDEO_MAX_COMPONENTS];
      Motion m = shift_by (1.5 * k, 0.5 * k);
      gchar *what = g_strdup_printf ("filter-luma=false, frame %u", k);
      guint n, c;

      n = make_frame (formats[f], w, h, &m, 8, 700 + k, FALSE, in);
      rig_filter (&comp, in, out);
      rig_filter (&spatial, in, b);
      assert_channel_matches (&out[0], &in[0], 0, what, formats[f], 0);
      for (c = 1; c < n; c++)
        assert_channel_matches (&out[c], &b[c], 0, what, formats[f], c);
      channels_free (in, n);
      channels_free (out, n);
      channels_free (b, n);
      g_free (what);
    }
    rig_clear (&comp);
    rig_clear (&spatial);
  }
}

GST_END_TEST;

/* GRAY8 frames of astronaut.png under fresh Gaussian noise of @sigma
 * levels, rounded and clipped, through an engine measuring the noise:
 * its estimate after @frames frames. */
static double
measured_noise (double sigma, guint frames)
{
  const gint w = 480, h = 320;
  guint8 *picture = picture_crop ("astronaut.png", 1, 16, 96, w, h);
  static const Params p = {.diameter = 3,.sigma_color = 30,.sigma_space = 5 };
  CbfParams params = engine_params (&p, SIGMA);
  GRand *rand = g_rand_new_with_seed (77);
  double estimate;
  Rig r;
  guint k;

  params.temporal_strength = 0;
  params.noise = CBF_NOISE_MEASURED;
  rig_init (&r, "GRAY8", w, h, &p, SIGMA, FALSE);
  cbf_engine_set_params (r.engine, &params);
  for (k = 0; k < frames; k++) {
    Channel in = channel_new (w, h, 8), out;
    gint i;

    for (i = 0; i < w * h; i++) {
      double u1 = g_rand_double_range (rand, 1e-12, 1);
      double u2 = g_rand_double (rand);
      double v = picture[i] + sigma * sqrt (-2 * log (u1)) *
          cos (2 * G_PI * u2);

      in.data[i] = (guint16) CLAMP (lrint (v), 0, 255);
    }
    rig_filter (&r, &in, &out);
    channels_free (&in, 1);
    channels_free (&out, 1);
  }
  estimate = cbf_engine_get_noise (r.engine);
  rig_clear (&r);
  g_rand_free (rand);
  g_free (picture);
  return estimate;
}

/* Within 10 % of the noise at 8 to 30 levels, within a level at 4. */
GST_START_TEST (test_noise_measured)
{
  const double sigmas[] = { 4, 8, 12, 20, 30 };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (sigmas); k++) {
    double e = measured_noise (sigmas[k], 12);

    g_print ("noise %g: measured %.3f (%+.1f %%)\n", sigmas[k], e,
        100 * (e / sigmas[k] - 1));
    if (sigmas[k] < 8)
      fail_unless (fabs (e - sigmas[k]) <= 1, "noise %g measured %.3f",
          sigmas[k], e);
    else
      fail_unless (fabs (e / sigmas[k] - 1) <= 0.1, "noise %g measured %.3f",
          sigmas[k], e);
  }
}

GST_END_TEST;

/* noise-sigma=10 filters as sigma-color 25 and temporal-sigma 12.3 do
 * (temporal-motion=none: the motion search would take the noise level
 * itself, not temporal-sigma, for the noise it expects). */
GST_START_TEST (test_noise_settings)
{
  static const Params p = {.diameter = 5,.sigma_color = 60,.sigma_space = 5 };
  const gint w = 96, h = 64;
  Rig given, explicit;
  CbfParams params = engine_params (&p, 3);
  guint k, c, n = 0;

  params.temporal_motion = CBF_TEMPORAL_MOTION_NONE;
  params.noise = CBF_NOISE_GIVEN;
  params.noise_sigma = 10;

  rig_init (&given, "NV12", w, h, &p, SIGMA, FALSE);
  cbf_engine_set_params (given.engine, &params);
  rig_init (&explicit, "NV12", w, h, &p, SIGMA, FALSE);
  params.noise = CBF_NOISE_UNSET;
  params.sigma_color = 25;
  params.temporal_sigma = 1.38 * 10 - 1.5;
  cbf_engine_set_params (explicit.engine, &params);
  for (k = 0; k < 3; k++) {
    Channel in[GST_VIDEO_MAX_COMPONENTS], a[GST_VIDEO_MAX_COMPONENTS];
    Channel b[GST_VIDEO_MAX_COMPONENTS];
    Motion m = shift_by (k, 0);

    n = make_frame ("NV12", w, h, &m, 10, 60 + k, FALSE, in);
    rig_filter (&given, in, a);
    rig_filter (&explicit, in, b);
    for (c = 0; c < n; c++)
      assert_channel_matches (&a[c], &b[c], 0, "noise-sigma=10", "NV12", c);
    channels_free (in, n);
    channels_free (a, n);
    channels_free (b, n);
  }
  rig_clear (&given);
  rig_clear (&explicit);
}

GST_END_TEST;

static Suite *
motion_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-motion", 900, &tc);

  tcase_add_test (tc, test_blend_every_format);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_estimator_accuracy);
  tcase_add_test (tc, test_estimator_flat);
  tcase_add_test (tc, test_scene_cut);
  tcase_add_test (tc, test_object_leaves_no_trail);
  tcase_add_test (tc, test_chroma_without_luma);
  tcase_add_test (tc, test_noise_measured);
  tcase_add_test (tc, test_noise_settings);
  return s;
}

TEST_MAIN (motion_suite, TEST_NEEDS_GPU, "pngdec", NULL);
