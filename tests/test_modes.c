/* cudabilateral on a GPU: the README's and the user guide's claims about
 * the method property, controlled properties, colour masks and
 * filter-chroma. method: exact by default (a fresh element gives the exact
 * filter, not the grid), ignored in mode=gaussian (the Gaussian's output,
 * byte for byte), diameter not used by the grid (any diameter, the same
 * bytes). A control binding (GstInterpolationControlSource through a
 * direct binding) drives sigma-color: each frame is filtered with the
 * value the control source gives at that frame's stream time. A colour
 * mask picture (an RGB PNG) applies as the gray GStreamer's videoconvert
 * makes of it (BT.601 luma, full range). filter-chroma=false on YV12,
 * NV21 and the 10- to 16-bit 4:2:0 and 4:2:2 formats: luma filtered as
 * the reference, chroma byte for byte the input's. Output pools are
 * poisoned first. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <math.h>
#include <unistd.h>

#include "gpu_support.h"

/* How many values of @a differ from @b's by more than @tolerance. */
static guint
count_beyond (const Channel * a, const Channel * b, gint tolerance)
{
  guint n = 0;
  gsize k;

  fail_unless (a->width == b->width && a->height == b->height);
  for (k = 0; k < (gsize) a->width * a->height; k++)
    n += ABS ((gint) a->data[k] - (gint) b->data[k]) > tolerance;
  return n;
}

/* One frame of @in through @h, the element's output components in @out. */
static void
filter_channels (GstHarness * h, const gchar * format, gint w, gint height,
    const Channel * in, guint32 seed, Channel * out)
{
  filter_frame (h, format, w, height, frame_from_channels (format, w, height,
          in, seed % 2, seed), out);
}

/* The formats the method tests run on: one channel, colour, and 4:2:0
 * (luma and chroma each on their own grid). */
static const gchar *method_formats[] = { "GRAY8", "RGBA", "NV12" };

/* ---------------------------------------------------------------------- */
/* method */

/* A fresh element filters with method=exact: its output is the exact
 * filter's (the reference), and it is not the grid's, which on this
 * picture differs from the exact filter. The parameters are set one by
 * one, never the method. */
GST_START_TEST (test_method_default_is_exact)
{
  const Params p = {.diameter = 15,.sigma_color = 30,.sigma_space = 12 };
  const gint w = 96, h = 72;
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (method_formats); f++) {
    const gchar *format = method_formats[f];
    GstVideoInfo info = info_for (format, w, h);
    guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), n_expected;
    GstHarness *fresh = filter_harness_new (format, w, h, NULL);
    GstHarness *grid = filter_harness_new (format, w, h, NULL);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel grid_out[GST_VIDEO_MAX_COMPONENTS];
    Channel expected[GST_VIDEO_MAX_COMPONENTS];
    guint grid_differs = 0;

    g_object_set (fresh->element, "diameter", p.diameter, "sigma-color",
        p.sigma_color, "sigma-space", p.sigma_space, NULL);
    g_object_set (grid->element, "diameter", p.diameter, "sigma-color",
        p.sigma_color, "sigma-space", p.sigma_space, NULL);
    gst_util_set_object_arg (G_OBJECT (grid->element), "method", "grid");
    channels_for_format (format, w, h, 10 + f, in);
    filter_channels (fresh, format, w, h, in, 10 + f, out);
    filter_channels (grid, format, w, h, in, 10 + f, grid_out);
    n_expected = channels_reference_for_format (&info, in, &p, expected);
    for (c = 0; c < n_expected; c++) {
      assert_channel_matches (&out[c], &expected[c], 1,
          "default method against the exact reference", format, c);
      grid_differs += count_beyond (&grid_out[c], &expected[c], 1);
    }
    g_print ("%s: the grid differs from the exact filter in %u values\n",
        format, grid_differs);
    fail_unless (grid_differs > 0, "%s: the grid gives the exact filter's "
        "output here, so this picture cannot tell the methods apart", format);
    channels_free (in, n);
    channels_free (out, n);
    channels_free (grid_out, n);
    channels_free (expected, n_expected);
    filter_harness_free (fresh);
    filter_harness_free (grid);
  }
}

GST_END_TEST;

/* method=grid is ignored in mode=gaussian: the output is the Gaussian's
 * (the reference within +-1, and byte for byte what method=exact gives),
 * not the grid's, which differs from it on this picture. */
GST_START_TEST (test_method_ignored_in_gaussian)
{
  const Params gauss = {.diameter = 9,.sigma_space = 3,.gaussian = TRUE };
  const Params bilateral = {.diameter = 9,.sigma_color = 30,
    .sigma_space = 12
  };
  const gint w = 96, h = 72;
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (method_formats); f++) {
    const gchar *format = method_formats[f];
    GstVideoInfo info = info_for (format, w, h);
    guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), n_expected;
    GstHarness *with_grid = filter_harness_new (format, w, h, &gauss);
    GstHarness *with_exact = filter_harness_new (format, w, h, &gauss);
    GstHarness *grid = filter_harness_new (format, w, h, &bilateral);
    Channel in[GST_VIDEO_MAX_COMPONENTS];
    Channel out_grid[GST_VIDEO_MAX_COMPONENTS];
    Channel out_exact[GST_VIDEO_MAX_COMPONENTS];
    Channel out_bilateral_grid[GST_VIDEO_MAX_COMPONENTS];
    Channel expected[GST_VIDEO_MAX_COMPONENTS];
    guint grid_differs = 0;

    gst_util_set_object_arg (G_OBJECT (with_grid->element), "method", "grid");
    gst_util_set_object_arg (G_OBJECT (with_exact->element), "method", "exact");
    gst_util_set_object_arg (G_OBJECT (grid->element), "method", "grid");
    channels_for_format (format, w, h, 20 + f, in);
    filter_channels (with_grid, format, w, h, in, 20 + f, out_grid);
    filter_channels (with_exact, format, w, h, in, 21 + f, out_exact);
    filter_channels (grid, format, w, h, in, 20 + f, out_bilateral_grid);
    n_expected = channels_reference_for_format (&info, in, &gauss, expected);
    for (c = 0; c < n_expected; c++) {
      assert_channel_matches (&out_grid[c], &expected[c], 1,
          "gaussian with method=grid against the Gaussian reference", format,
          c);
      grid_differs += count_beyond (&out_bilateral_grid[c], &expected[c], 1);
    }
    for (c = 0; c < n; c++)
      assert_channel_matches (&out_grid[c], &out_exact[c], 0,
          "gaussian with method=grid against method=exact", format, c);
    fail_unless (grid_differs > 0, "%s: the grid gives the Gaussian's "
        "output here, so this picture cannot tell them apart", format);
    channels_free (in, n);
    channels_free (out_grid, n);
    channels_free (out_exact, n);
    channels_free (out_bilateral_grid, n);
    channels_free (expected, n_expected);
    filter_harness_free (with_grid);
    filter_harness_free (with_exact);
    filter_harness_free (grid);
  }
}

GST_END_TEST;

/* The grid does not use diameter: diameters -1, 0, 5, 31 and 255 give the
 * same bytes, where the exact filter's output changes between 5 and 31. */
GST_START_TEST (test_grid_ignores_diameter)
{
  static const gint diameters[] = { 5, -1, 0, 31, 255 };
  const gint w = 96, h = 72;
  guint f, d, c;

  for (f = 0; f < G_N_ELEMENTS (method_formats); f++) {
    const gchar *format = method_formats[f];
    GstVideoInfo info = info_for (format, w, h);
    guint n = GST_VIDEO_INFO_N_COMPONENTS (&info);
    Channel in[GST_VIDEO_MAX_COMPONENTS], first[GST_VIDEO_MAX_COMPONENTS];
    Channel exact_small[GST_VIDEO_MAX_COMPONENTS];
    Channel exact_large[GST_VIDEO_MAX_COMPONENTS];
    Params small = {.diameter = 5,.sigma_color = 30,.sigma_space = 12 };
    Params large = small;
    guint exact_differs = 0;

    large.diameter = 31;
    channels_for_format (format, w, h, 30 + f, in);
    for (d = 0; d < G_N_ELEMENTS (diameters); d++) {
      Params p = small;
      GstHarness *grid;
      Channel out[GST_VIDEO_MAX_COMPONENTS];
      gchar *what = g_strdup_printf ("grid, diameter %d against diameter %d",
          diameters[d], diameters[0]);

      p.diameter = diameters[d];
      grid = filter_harness_new (format, w, h, &p);
      gst_util_set_object_arg (G_OBJECT (grid->element), "method", "grid");
      filter_channels (grid, format, w, h, in, 30 + f + d, d ? out : first);
      for (c = 0; d && c < n; c++)
        assert_channel_matches (&out[c], &first[c], 0, what, format, c);
      if (d)
        channels_free (out, n);
      filter_harness_free (grid);
      g_free (what);
    }
    /* The exact filter on the same picture does change with diameter. */
    {
      GstHarness *hs = filter_harness_new (format, w, h, &small);
      GstHarness *hl = filter_harness_new (format, w, h, &large);

      gst_util_set_object_arg (G_OBJECT (hs->element), "method", "exact");
      gst_util_set_object_arg (G_OBJECT (hl->element), "method", "exact");
      filter_channels (hs, format, w, h, in, 40 + f, exact_small);
      filter_channels (hl, format, w, h, in, 40 + f, exact_large);
      for (c = 0; c < n; c++)
        exact_differs += count_beyond (&exact_small[c], &exact_large[c], 1);
      fail_unless (exact_differs > 0, "%s: the exact filter gives the same "
          "output at diameters 5 and 31 here", format);
      channels_free (exact_small, n);
      channels_free (exact_large, n);
      filter_harness_free (hs);
      filter_harness_free (hl);
    }
    channels_free (in, n);
    channels_free (first, n);
  }
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Control binding */

/* sigma-color driven by a linear GstInterpolationControlSource through a
 * direct binding, over frames whose stream time is not their PTS (a
 * segment that starts at 5 s with stream time 100 s): each frame's output
 * is the reference of the value the binding gives at that frame's stream
 * time, which before_transform sets (the property reads it back after the
 * frame). The values at the frames' PTS would be none (before the first
 * control point), and the element's value before the first frame (the
 * default, 75) is none of them, so a filter that synced at the PTS, or not
 * at all, fails. */
GST_START_TEST (test_control_binding)
{
  const gchar *format = "GRAY8";
  const gint w = 80, h = 60, n_frames = 5;
  const GstClockTime start = 5 * GST_SECOND, time = 100 * GST_SECOND;
  const GstClockTime step = 250 * GST_MSECOND;
  Params p = {.diameter = 9,.sigma_color = 75,.sigma_space = 3 };
  GstHarness *harness = filter_harness_new (format, w, h, &p);
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstControlBinding *binding;
  GstSegment segment;
  Channel in, previous = { 0, 0, 0, NULL };
  gdouble previous_sigma = -1;
  gint i;

  /* Control values are the property's range mapped to [0, 1]: 0..1000. */
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  fail_unless (gst_timed_value_control_source_set
      (GST_TIMED_VALUE_CONTROL_SOURCE (cs), time, 0.010));
  fail_unless (gst_timed_value_control_source_set
      (GST_TIMED_VALUE_CONTROL_SOURCE (cs), time + GST_SECOND, 0.090));
  binding = gst_direct_control_binding_new (GST_OBJECT (harness->element),
      "sigma-color", cs);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (harness->element),
          gst_object_ref (binding)));

  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.start = start;
  segment.time = time;
  segment.position = start;
  fail_unless (gst_harness_push_event (harness,
          gst_event_new_segment (&segment)));

  in = channel_random (w, h, 50);
  for (i = 0; i < n_frames; i++) {
    GstClockTime pts = start + i * step;
    GstClockTime stream_time = gst_segment_to_stream_time (&segment,
        GST_FORMAT_TIME, pts);
    GValue *value = gst_control_binding_get_value (binding, stream_time);
    GValue *at_pts = gst_control_binding_get_value (binding, pts);
    GstBuffer *buf = frame_from_channels (format, w, h, &in, i % 2, 60 + i);
    Params q = p;
    Channel out, expected;
    gdouble now;
    gchar *what;

    fail_unless_equals_uint64 (stream_time, time + i * step);
    fail_unless (value != NULL, "no control value at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (stream_time));
    fail_unless (at_pts == NULL, "a control value at the PTS too");
    q.sigma_color = g_value_get_double (value);
    fail_unless (fabs (q.sigma_color - (10 + 80.0 * i / (n_frames - 1))) <
        1e-6, "frame %d: sigma-color %g from the control source", i,
        q.sigma_color);
    g_value_unset (value);
    g_free (value);

    GST_BUFFER_PTS (buf) = pts;
    GST_BUFFER_DURATION (buf) = step;
    filter_frame (harness, format, w, h, buf, &out);
    g_object_get (harness->element, "sigma-color", &now, NULL);
    fail_unless (now == q.sigma_color, "frame %d: sigma-color %g after the "
        "frame, the control source gave %g", i, now, q.sigma_color);
    fail_unless (now != previous_sigma);

    what = g_strdup_printf ("frame %d (stream time %" GST_TIME_FORMAT
        ", sigma-color %g)", i, GST_TIME_ARGS (stream_time), q.sigma_color);
    expected = channel_reference (&in, &q, FALSE);
    assert_channel_matches (&out, &expected, 1, what, format, 0);
    /* Same picture, another sigma-color: another output. */
    if (previous.data)
      fail_unless (count_beyond (&out, &previous, 1) > 0, "%s: the same "
          "output as the frame before", what);
    channels_free (&previous, 1);
    channels_free (&expected, 1);
    previous = out;
    previous_sigma = now;
    g_free (what);
  }
  channels_free (&previous, 1);
  channels_free (&in, 1);
  gst_object_unref (binding);
  gst_object_unref (cs);
  filter_harness_free (harness);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Colour mask */

/* The PNG at @path as GStreamer decodes it to GRAY8: pngdec ! videoconvert
 * ! GRAY8, the elements and caps the element's mask loader uses, so that
 * the gray here is the one the element reads, without restating
 * videoconvert's arithmetic. */
static Channel
read_png_as_gray (const gchar * path)
{
  GstElement *pipeline = gst_parse_launch ("filesrc name=src ! pngdec ! "
      "videoconvert ! video/x-raw,format=GRAY8 ! appsink name=sink", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstSample *sample;
  GstVideoInfo info;
  GstVideoFrame frame;
  Channel gray;

  g_object_set (src, "location", path, NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  fail_unless (sample != NULL, "%s: no picture decoded", path);
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  fail_unless_equals_string (GST_VIDEO_INFO_NAME (&info), "GRAY8");
  fail_unless (gst_video_frame_map (&frame, &info,
          gst_sample_get_buffer (sample), GST_MAP_READ));
  gray = read_component (&frame, 0);
  gst_video_frame_unmap (&frame);
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return gray;
}

/* The blend the README documents: in + (filtered - in) m / 255, rounded to
 * the nearest (255 is odd: no value lies halfway). */
static guint8
blend (guint8 in, guint8 filtered, guint8 m)
{
  return (guint8) ((gint) in + (gint) lround (((gint) filtered - (gint) in) *
          m / 255.0));
}

/* A colour picture as the mask (an RGB PNG of the frame's size, so that
 * the mask is not scaled and each pixel's level is the picture's gray):
 * the mask that applies is the gray videoconvert makes of it, BT.601 luma
 * in full range (GRAY8's colorimetry 1:4:7:1), 0.299 R + 0.587 G + 0.114 B
 * within 1.5 (its 8-bit fixed point rounds down: in GStreamer 1.22 it is
 * (77 R + 150 G + 29 B) >> 8 exactly). The masked output is exactly the
 * blend of the input and the unmasked output (itself the reference within
 * +-1) by that gray; alpha passes unchanged. The picture's channels
 * differ, so a mask read from one channel, or their mean, gives another
 * blend. */
GST_START_TEST (test_color_mask)
{
  static const gchar *fmts[] = { "GRAY8", "RGBA" };
  const Params p = {.diameter = 9,.sigma_color = 40,.sigma_space = 4 };
  const gint w = 96, h = 72;
  guint8 *rgb = g_malloc ((gsize) w * h * 3);
  gchar *name = g_strdup_printf ("cbf-modes-colour-mask-%d.png",
      (int) getpid ());
  gchar *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  Channel gray;
  guint f, c, off_red = 0, off_mean = 0, zeros = 0, full = 0;
  gint x, y;
  gsize k;

  /* Each channel its own pattern; black and white corners for 0 and 255. */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint8 *px = rgb + ((gsize) y * w + x) * 3;

      px[0] = (guint8) (x * 255 / (w - 1));
      px[1] = (guint8) (y * 255 / (h - 1));
      px[2] = (guint8) ((x * 7 + y * 13) % 256);
      if (x < 4 && y < 4)
        px[0] = px[1] = px[2] = 0;
      if (x >= w - 4 && y >= h - 4)
        px[0] = px[1] = px[2] = 255;
    }
  write_png (path, "RGB", rgb, w, h);
  gray = read_png_as_gray (path);
  fail_unless (gray.width == w && gray.height == h);
  for (k = 0; k < (gsize) w * h; k++) {
    const guint8 *px = rgb + k * 3;
    gdouble luma = 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
    gint mean = (px[0] + px[1] + px[2] + 1) / 3;

    fail_unless (fabs (gray.data[k] - luma) <= 1.5, "pixel %" G_GSIZE_FORMAT
        " (%u, %u, %u): gray %u, BT.601 luma %.2f", k, px[0], px[1], px[2],
        gray.data[k], luma);
    off_red += ABS ((gint) gray.data[k] - px[0]) > 1;
    off_mean += ABS ((gint) gray.data[k] - mean) > 1;
    zeros += gray.data[k] == 0;
    full += gray.data[k] == 255;
  }
  fail_unless (off_red > 0 && off_mean > 0 && zeros > 0 && full > 0,
      "the picture does not tell the gray conversions apart (%u %u %u %u)",
      off_red, off_mean, zeros, full);

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), n_expected;
    GstHarness *plain = filter_harness_new (fmts[f], w, h, &p);
    GstHarness *masked = filter_harness_new (fmts[f], w, h, &p);
    Channel in[GST_VIDEO_MAX_COMPONENTS], plain_out[GST_VIDEO_MAX_COMPONENTS];
    Channel masked_out[GST_VIDEO_MAX_COMPONENTS];
    Channel expected[GST_VIDEO_MAX_COMPONENTS];
    guint by_red_differs = 0;

    g_object_set (masked->element, "mask-location", path, NULL);
    channels_for_format (fmts[f], w, h, 70 + f, in);
    filter_channels (plain, fmts[f], w, h, in, 70 + f, plain_out);
    filter_channels (masked, fmts[f], w, h, in, 71 + f, masked_out);
    n_expected = channels_reference_for_format (&info, in, &p, expected);
    for (c = 0; c < n_expected; c++) {
      Channel blended = channel_new (w, h, 8);

      assert_channel_matches (&plain_out[c], &expected[c], 1,
          "unmasked, against the reference", fmts[f], c);
      for (k = 0; k < (gsize) w * h; k++) {
        blended.data[k] = blend (in[c].data[k], plain_out[c].data[k],
            gray.data[k]);
        by_red_differs += blend (in[c].data[k], plain_out[c].data[k],
            rgb[k * 3]) != blended.data[k];
      }
      assert_channel_matches (&masked_out[c], &blended, 0,
          "masked by the colour picture's gray", fmts[f], c);
      channels_free (&blended, 1);
    }
    for (c = n_expected; c < n; c++)
      assert_channel_matches (&masked_out[c], &in[c], 0, "masked, alpha",
          fmts[f], c);
    fail_unless (by_red_differs > 0, "%s: the picture's red channel as the "
        "mask would give the same output", fmts[f]);
    channels_free (in, n);
    channels_free (plain_out, n);
    channels_free (masked_out, n);
    channels_free (expected, n_expected);
    filter_harness_free (plain);
    filter_harness_free (masked);
  }
  channels_free (&gray, 1);
  g_unlink (path);
  g_free (path);
  g_free (name);
  g_free (rgb);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* filter-chroma=false */

/* Pushes @buf (a reference is kept by the caller) through @h, its output
 * pool poisoned first; returns the output buffer. */
static GstBuffer *
push_kept (GstHarness * h, GstBuffer * buf, const gchar * format)
{
  GstBuffer *out;

  gpu_test_poison_output_pool (h->element);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (buf));
  if (!out) {
    GstBus *bus = gst_element_get_bus (h->element);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *error = NULL;

    if (msg)
      gst_message_parse_error (msg, &error, NULL);
    fail ("%s: no output buffer: %s", format, error ? error->message :
        "no error posted");
  }
  return out;
}

/* The bytes of the samples of every chroma plane of @a and @b, row by row
 * (padding and the bytes between rows left out): the same. */
static void
assert_chroma_planes_equal (GstVideoFrame * a, GstVideoFrame * b,
    const gchar * what)
{
  const GstVideoFormatInfo *finfo = a->info.finfo;
  guint plane, compared = 0;

  for (plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (a); plane++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize row_bytes;
    gint y, rows;

    gst_video_format_info_component (finfo, plane, comp);
    if (comp[0] == GST_VIDEO_COMP_Y)
      continue;
    row_bytes = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (a, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (a, comp[0]);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (a, comp[0]);
    for (y = 0; y < rows; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (a,
          plane) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (a, plane);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (b,
          plane) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (b, plane);

      fail_unless (memcmp (ra, rb, row_bytes) == 0, "%s %s: chroma plane %u "
          "row %d differs from the input", what, GST_VIDEO_INFO_NAME
          (&a->info), plane, y);
    }
    compared++;
  }
  fail_unless (compared > 0, "%s: no chroma plane compared", what);
}

/* filter-chroma=false on the subsampled formats the other tests leave
 * out: luma is the reference's (8-bit: within +-1; deep: within the
 * format's tolerance), every chroma byte is the input's, although
 * filtering (the reference's chroma) would change chroma on this picture.
 * An odd size (chroma rounded up), padded and unpadded input. */
GST_START_TEST (test_filter_chroma_off)
{
  static const gchar *fmts[] = { "YV12", "NV21", "I420_10LE", "I422_10LE",
    "I420_12LE", "I422_12LE", "P010_10LE", "P012_LE", "P016_LE"
  };
  const Params p = {.diameter = 9,.sigma_color = 30,.sigma_space = 4 };
  const gint w = 97, h = 61;
  guint f, c, pad;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (pad = 0; pad < 2; pad++) {
      const gchar *format = fmts[f];
      GstVideoInfo info = info_for (format, w, h);
      gint tolerance = format_tolerance (GST_VIDEO_INFO_FORMAT (&info));
      guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), chroma_differs = 0;
      GstHarness *harness = filter_harness_new (format, w, h, &p);
      Channel in[GST_VIDEO_MAX_COMPONENTS];
      Channel expected[GST_VIDEO_MAX_COMPONENTS], luma;
      GstVideoFrame in_frame, out_frame;
      GstBuffer *buf, *out;
      gchar *what = g_strdup_printf ("filter-chroma=false%s",
          pad ? ", padded" : "");

      fail_unless_equals_int (n, 3);
      g_object_set (harness->element, "filter-chroma", FALSE, NULL);
      channels_for_format (format, w, h, 80 + f, in);
      buf = frame_from_channels (format, w, h, in, pad, 80 + f);
      out = push_kept (harness, buf, format);
      fail_unless (gst_video_frame_map (&in_frame, &info, buf, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&out_frame, &info, out, GST_MAP_READ));

      /* Luma the reference's; each plane on its own, chroma with chroma's
       * parameters. */
      luma = read_component (&out_frame, 0);
      fail_unless_equals_int (channels_reference_for_format (&info, in, &p,
              expected), n);
      assert_channel_matches (&luma, &expected[0], tolerance, what, format, 0);
      for (c = 1; c < n; c++)
        chroma_differs += count_beyond (&expected[c], &in[c], tolerance);
      channels_free (&luma, 1);
      channels_free (expected, n);
      channels_free (in, n);
      fail_unless (chroma_differs > 0, "%s: filtering would leave chroma "
          "as it is on this picture", format);
      assert_chroma_planes_equal (&in_frame, &out_frame, what);

      gst_video_frame_unmap (&in_frame);
      gst_video_frame_unmap (&out_frame);
      gst_buffer_unref (buf);
      gst_buffer_unref (out);
      filter_harness_free (harness);
      g_free (what);
    }
}

GST_END_TEST;

static Suite *
modes_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-modes", 600, &tc);

  tcase_add_test (tc, test_method_default_is_exact);
  tcase_add_test (tc, test_method_ignored_in_gaussian);
  tcase_add_test (tc, test_grid_ignores_diameter);
  tcase_add_test (tc, test_control_binding);
  tcase_add_test (tc, test_color_mask);
  tcase_add_test (tc, test_filter_chroma_off);
  return s;
}

TEST_MAIN (modes_suite, TEST_NEEDS_GPU, "pngenc", "pngdec", "videoconvert",
    "appsrc", "appsink", NULL);
