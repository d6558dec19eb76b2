/* cudabilateral on a GPU: regions (regions, region-types, region-padding,
 * region-feather) against the C reference. Each output sample is the
 * reference's blend of the input with the whole frame filtered by the
 * reference, by cbf_reference_region_weight at the sample's plane (boxes
 * grown and clipped here, independently of the element); where the weight
 * is 0 the input must come out bit for bit, where it is 255 within the
 * format's tolerance of the filter, between within one more and what a
 * weight one level off moves (the weight's float and double roundings may
 * differ by a level). Boxes overlap, reach
 * outside the frame, are tiny, and of a type region-types leaves out;
 * inside and outside, every format, the kernel families' radii,
 * mode=gaussian, method=grid, the strength mask, the temporal filter, no
 * box at all, the wrapping border, region-padding and region-feather
 * driven by a controller (each frame takes its own values), and CUDA
 * memory (regions attached after cudaupload, which drops them: that is
 * checked too). Soft edges must blend some samples (counted), hard ones
 * none. The temporal filter runs five frames, each against the reference
 * given the element's previous output. The output keeps the metas. On
 * GStreamer 1.26, a segmentation mask's cells of the types asked for
 * weigh as boxes beside the boxes (the reference takes each cell a box).
 * Output pools are poisoned first. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <gst/controller/controller.h>
#if CBF_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include "gpu_support.h"
#include "reference.h"
#include "regions_support.h"

#define PADDING 2
#define FEATHER 5.5

typedef struct
{
  const gchar *type;
  gint x, y, w, h;
} Box;

/* Overlapping faces, one reaching past the frame's right and bottom
 * edges, a one-pixel one, one far outside, and a plate (left out by
 * region-types=face). */
static const Box boxes[] = {
  {"face", 10, 8, 20, 16}, {"face", 24, 14, 18, 12}, {"face", 60, 34, 20, 30},
  {"face", 4, 40, 1, 1}, {"face", 100000, 5, 10, 10}, {"plate", 44, 30, 12, 8}
};

static void
attach_boxes (GstBuffer * buf, const Box * b, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    gst_buffer_add_video_region_of_interest_meta (buf, b[i].type, b[i].x,
        b[i].y, b[i].w, b[i].h);
}

/* The boxes of @type (NULL: all) grown by @padding and clipped, as
 * x0, y0, x1, y1; returns how many are left. */
static gint
reference_boxes (const Box * b, guint n, const gchar * type, gint padding,
    int (*out)[4])
{
  gint k = 0;
  guint i;

  for (i = 0; i < n; i++) {
    gint x0 = CLAMP (b[i].x - padding, 0, W), y0 = CLAMP (b[i].y - padding,
        0, H), x1 = CLAMP (b[i].x + b[i].w + padding, 0, W),
        y1 = CLAMP (b[i].y + b[i].h + padding, 0, H);

    if ((type && strcmp (type, b[i].type)) || x1 <= x0 || y1 <= y0)
      continue;
    out[k][0] = x0;
    out[k][1] = y0;
    out[k][2] = x1;
    out[k][3] = y1;
    k++;
  }
  return k;
}

/* Filters a frame of @format with @p and the regions' settings, boxes
 * attached, and checks it. */
static void
check_format (const gchar * format, const Params * p, gboolean grid,
    const gchar * mode, const gchar * types, gint padding, gdouble feather,
    guint32 seed)
{
  GstVideoInfo info = info_for (format, W, H);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel filtered[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format (format, W, H, seed, in), n_filtered, c;
  guint between;
  GstHarness *h = filter_harness_new (format, W, H, p);
  GstBuffer *buf = frame_from_channels (format, W, H, in, seed % 2, seed);
  int rb[G_N_ELEMENTS (boxes)][4];
  gint n_boxes = reference_boxes (boxes, G_N_ELEMENTS (boxes),
      types && *types ? types : NULL, padding, rb);
  gchar *what = g_strdup_printf ("regions=%s types=%s padding %d feather %g "
      "d=%d%s%s", mode, types, padding, feather, p->diameter,
      p->gaussian ? " gaussian" : "", grid ? " grid" : "");

  gst_util_set_object_arg (G_OBJECT (h->element), "regions", mode);
  g_object_set (h->element, "region-types", types, "region-padding", padding,
      "region-feather", feather, NULL);
  if (grid)
    gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
  attach_boxes (buf, boxes, G_N_ELEMENTS (boxes));
  filter_frame (h, format, W, H, buf, out);
  n_filtered = grid ? channels_reference_grid_for_format (&info, in, p,
      filtered) : channels_reference_for_format (&info, in, p, filtered);
  between = check_regions (&info, in, filtered, out, n_filtered, rb, n_boxes,
      feather, !strcmp (mode, "outside"), NULL, what);
  /* A soft edge blends the samples along it; a hard one none. */
  if (feather > 0 && n_boxes > 0)
    fail_unless (between > 0, "%s: no sample between the input and the "
        "filter", what);
  else
    fail_unless_equals_int (between, 0);
  for (c = n_filtered; c < n; c++)
    assert_channel_matches (&out[c], &in[c], 0, "alpha", format, c);
  channels_free (filtered, n_filtered);
  channels_free (out, n);
  channels_free (in, n);
  filter_harness_free (h);
  g_free (what);
}

static const gchar *all_formats[] = { GPU_TEST_ALL_FORMATS };

/* Every format, inside and outside, the plate left out. */
GST_START_TEST (test_regions_every_format)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    check_format (all_formats[f], &p, FALSE, "inside", "face", PADDING,
        FEATHER, 10 + f);
    check_format (all_formats[f], &p, FALSE, "outside", "face", PADDING,
        FEATHER, 60 + f);
  }
}

GST_END_TEST;

/* The kernel families' radii (fast, wide, generic), mode=gaussian,
 * method=grid (whole frame), every type, a hard edge, a shrinking
 * padding. */
GST_START_TEST (test_regions_radii_and_modes)
{
  static const gchar *fmts[] = { "RGBA", "RGB", "GRAY8", "NV12", "YUY2",
    "P010_10LE", "Y444_16LE"
  };
  static const gint diameters[] = { 3, 9, 31, 71 };
  guint f, d;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    for (d = 0; d < G_N_ELEMENTS (diameters); d++) {
      Params p = {.diameter = diameters[d],.sigma_color = 40,
        .sigma_space = 6
      };

      check_format (fmts[f], &p, FALSE, "inside", "", d == 1 ? -2 : 0,
          d == 2 ? 0 : 3, 100 + d);
    }
    {
      Params g = {.diameter = 9,.sigma_space = 2,.gaussian = TRUE };
      Params grid = {.diameter = 9,.sigma_color = 30,.sigma_space = 8 };

      check_format (fmts[f], &g, FALSE, "inside", "face", PADDING, FEATHER,
          120);
      check_format (fmts[f], &grid, TRUE, "inside", "face", PADDING,
          FEATHER, 121);
    }
  }
}

GST_END_TEST;

/* No box (regions=inside): the input, bit for bit; regions=outside: the
 * whole frame filtered. Changed while the harness runs. */
GST_START_TEST (test_regions_no_box)
{
  static const Params p = {.diameter = 7,.sigma_color = 30,.sigma_space = 3 };
  static const gchar *fmts[] = { "RGBA", "NV12", "I420_10LE" };
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel filtered[GST_VIDEO_MAX_COMPONENTS];
    guint n = channels_for_format (fmts[f], W, H, 7, in), n_filtered;
    GstHarness *h = filter_harness_new (fmts[f], W, H, &p);

    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
    filter_frame (h, fmts[f], W, H, frame_from_channels (fmts[f], W, H, in,
            FALSE, 1), out);
    for (c = 0; c < n; c++)
      assert_channel_matches (&out[c], &in[c], 0, "inside, no box", fmts[f], c);
    channels_free (out, n);
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "outside");
    filter_frame (h, fmts[f], W, H, frame_from_channels (fmts[f], W, H, in,
            FALSE, 2), out);
    n_filtered = channels_reference_for_format (&info, in, &p, filtered);
    for (c = 0; c < n_filtered; c++)
      assert_channel_matches (&out[c], &filtered[c],
          format_tolerance (GST_VIDEO_INFO_FORMAT (&info)), "outside, no box",
          fmts[f], c);
    channels_free (filtered, n_filtered);
    channels_free (out, n);
    channels_free (in, n);
    filter_harness_free (h);
  }
}

GST_END_TEST;

/* A strength mask multiplies the weights: 0 on the left third, 255 on
 * the right third, 128 between. */
GST_START_TEST (test_regions_with_mask)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  static const gchar *fmts[] = { "RGBA", "GRAY8", "NV12", "P010_10LE" };
  gchar *dir = g_dir_make_tmp ("cbf-regions-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "mask.png", NULL);
  guint8 *mask = g_malloc (W * H);
  gint x, y;
  guint f;

  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      mask[y * W + x] = x < W / 3 ? 0 : x < 2 * W / 3 ? 128 : 255;
  write_gray_png (path, mask, W, H);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel filtered[GST_VIDEO_MAX_COMPONENTS];
    guint n = channels_for_format (fmts[f], W, H, 9, in), n_filtered;
    GstHarness *h = filter_harness_new (fmts[f], W, H, &p);
    GstBuffer *buf = frame_from_channels (fmts[f], W, H, in, FALSE, 3);
    int rb[G_N_ELEMENTS (boxes)][4];
    gint n_boxes = reference_boxes (boxes, G_N_ELEMENTS (boxes), NULL, 0, rb);

    g_object_set (h->element, "mask-location", path, "region-feather",
        FEATHER, NULL);
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
    attach_boxes (buf, boxes, G_N_ELEMENTS (boxes));
    filter_frame (h, fmts[f], W, H, buf, out);
    n_filtered = channels_reference_for_format (&info, in, &p, filtered);
    fail_unless (check_regions (&info, in, filtered, out, n_filtered, rb,
            n_boxes, FEATHER, FALSE, mask, "with a mask") > 0,
        "%s with a mask: no sample between the input and the filter", fmts[f]);
    channels_free (filtered, n_filtered);
    channels_free (out, n);
    channels_free (in, n);
    filter_harness_free (h);
  }
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_free (mask);
}

GST_END_TEST;

/* @ch with fresh noise of up to +-3 8-bit levels (scaled to its bits). */
static void
renoise (Channel * ch, guint n, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint c;
  gint i;

  for (c = 0; c < n; c++) {
    gint top = (1 << ch[c].bits) - 1;

    for (i = 0; i < ch[c].width * ch[c].height; i++) {
      gint v = ch[c].data[i] + g_rand_int_range (rand, -3, 4) * top / 255;

      ch[c].data[i] = (guint16) CLAMP (v, 0, top);
    }
  }
  g_rand_free (rand);
}

/* With the temporal filter the whole frame runs it (its state is the
 * whole frame's): a picture, then the same under fresh noise, five frames.
 * Where the weight is 255 each output is the state, and there each frame's
 * output from the second on must be the temporal reference's given the
 * element's previous output (which must differ from the spatial result
 * somewhere, so that the check can tell; and from the third frame on a
 * state kept as the spatial result instead of the output would differ
 * too); where the weight is 0, the input. */
#define TEMPORAL_FRAMES 5
GST_START_TEST (test_regions_temporal)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  static const gchar *fmts[] = { "RGBA", "GRAY8", "NV12", "Y444_16LE" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    Channel in[TEMPORAL_FRAMES][GST_VIDEO_MAX_COMPONENTS];
    Channel out[TEMPORAL_FRAMES][GST_VIDEO_MAX_COMPONENTS];
    GstHarness *h = filter_harness_new (fmts[f], W, H, &p);
    int rb[G_N_ELEMENTS (boxes)][4];
    gint n_boxes = reference_boxes (boxes, G_N_ELEMENTS (boxes), NULL, 0, rb);
    guint n = 0, k, c, n_filtered = 0, moved = 0, apart_from_spatial_state = 0;
    gint tol = format_tolerance (GST_VIDEO_INFO_FORMAT (&info));

    g_object_set (h->element, "temporal-strength", 0.8, "temporal-sigma",
        20.0, NULL);
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
    for (k = 0; k < TEMPORAL_FRAMES; k++) {
      Channel expected[GST_VIDEO_MAX_COMPONENTS];
      Channel spatial[GST_VIDEO_MAX_COMPONENTS];
      Channel from_spatial[GST_VIDEO_MAX_COMPONENTS];
      Channel prev_spatial[GST_VIDEO_MAX_COMPONENTS];
      GstBuffer *buf;

      n = channels_for_format (fmts[f], W, H, 5, in[k]);
      if (k > 0)
        renoise (in[k], n, 77 + k);
      buf = frame_from_channels (fmts[f], W, H, in[k], FALSE, 20 + k);
      attach_boxes (buf, boxes, G_N_ELEMENTS (boxes));
      filter_frame (h, fmts[f], W, H, buf, out[k]);
      if (k == 0)
        continue;
      n_filtered = channels_temporal_for_format (&info, in[k], out[k - 1],
          &p, FALSE, 0.8, 20.0, expected);
      channels_temporal_for_format (&info, in[k], NULL, &p, FALSE, 0.8, 20.0,
          spatial);
      /* What a state that kept the previous frame's spatial result would
       * give. */
      channels_temporal_for_format (&info, in[k - 1], NULL, &p, FALSE, 0.8,
          20.0, prev_spatial);
      channels_temporal_for_format (&info, in[k], prev_spatial, &p, FALSE,
          0.8, 20.0, from_spatial);
      for (c = 0; c < n_filtered; c++) {
        gint fx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
        gint fy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
        gint w = out[k][c].width, x, y;

        if (n_filtered == 3 && !GST_VIDEO_INFO_IS_YUV (&info))
          fx = fy = 1;
        for (y = 0; y < out[k][c].height; y++)
          for (x = 0; x < w; x++) {
            gint m = cbf_reference_region_weight (rb, n_boxes, 0, FALSE, fx,
                fy, x, y), i = y * w + x, got = out[k][c].data[i];

            if (m == 0) {
              fail_unless (got == in[k][c].data[i], "%s frame %u (%d, %d): "
                  "%d, the input %d", fmts[f], k, x, y, got, in[k][c].data[i]);
              continue;
            }
            fail_unless (ABS (got - (gint) expected[c].data[i]) <= tol,
                "%s temporal frame %u component %u (%d, %d): %d, expected "
                "%d", fmts[f], k, c, x, y, got, expected[c].data[i]);
            moved += ABS ((gint) expected[c].data[i] -
                spatial[c].data[i]) > tol;
            if (k >= 2)
              apart_from_spatial_state += ABS ((gint) expected[c].data[i] -
                  from_spatial[c].data[i]) > tol;
          }
      }
      channels_free (expected, n_filtered);
      channels_free (spatial, n_filtered);
      channels_free (prev_spatial, n_filtered);
      channels_free (from_spatial, n_filtered);
    }
    fail_unless (moved > 0, "%s: the temporal reference equals the spatial "
        "one in the regions: the check cannot tell", fmts[f]);
    fail_unless (apart_from_spatial_state > 0, "%s: a state kept as the "
        "spatial result gives the expected outputs: the check cannot tell",
        fmts[f]);
    for (k = 0; k < TEMPORAL_FRAMES; k++) {
      channels_free (in[k], n);
      channels_free (out[k], n);
    }
    filter_harness_free (h);
  }
}

GST_END_TEST;

/* region-padding and region-feather driven by a controller (GstController,
 * a value that steps at 1 s): the frame at 1 s takes the new values, not
 * the previous frame's. */
GST_START_TEST (test_regions_controlled)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  static const gchar *fmts[] = { "RGBA", "NV12" };
  guint f, k;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    GstHarness *h = filter_harness_new (fmts[f], W, H, &p);
    GstControlSource *padding = gst_interpolation_control_source_new ();
    GstControlSource *feather = gst_interpolation_control_source_new ();
    GstTimedValueControlSource *tv;
    GstSegment segment;
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel filtered[GST_VIDEO_MAX_COMPONENTS];
    guint n = channels_for_format (fmts[f], W, H, 31, in), n_filtered;

    g_object_set (padding, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
    g_object_set (feather, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
    tv = GST_TIMED_VALUE_CONTROL_SOURCE (padding);
    fail_unless (gst_timed_value_control_source_set (tv, 0, 0));
    fail_unless (gst_timed_value_control_source_set (tv, GST_SECOND, 6));
    tv = GST_TIMED_VALUE_CONTROL_SOURCE (feather);
    fail_unless (gst_timed_value_control_source_set (tv, 0, 0));
    fail_unless (gst_timed_value_control_source_set (tv, GST_SECOND, 4.5));
    fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
            gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
                "region-padding", padding)));
    fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
            gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
                "region-feather", feather)));
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
    n_filtered = channels_reference_for_format (&info, in, &p, filtered);
    for (k = 0; k < 2; k++) {
      GstBuffer *buf = frame_from_channels (fmts[f], W, H, in, FALSE, 40 + k);
      gint pad = k ? 6 : 0;
      gdouble soft = k ? 4.5 : 0;
      int rb[G_N_ELEMENTS (boxes)][4];
      gint n_boxes = reference_boxes (boxes, G_N_ELEMENTS (boxes), NULL, pad,
          rb);
      gchar *what = g_strdup_printf ("controlled, at %u s: padding %d "
          "feather %g", k, pad, soft);

      GST_BUFFER_PTS (buf) = k * GST_SECOND;
      attach_boxes (buf, boxes, G_N_ELEMENTS (boxes));
      filter_frame (h, fmts[f], W, H, buf, out);
      check_regions (&info, in, filtered, out, n_filtered, rb, n_boxes, soft,
          FALSE, NULL, what);
      channels_free (out, n);
      g_free (what);
    }
    channels_free (filtered, n_filtered);
    channels_free (in, n);
    gst_object_unref (padding);
    gst_object_unref (feather);
    filter_harness_free (h);
  }
}

GST_END_TEST;

/* The output buffer keeps the regions' metas (the frame keeps its size). */
GST_START_TEST (test_regions_meta_kept)
{
  GstHarness *h = filter_harness_new ("RGBA", W, H, NULL);
  Channel in[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format ("RGBA", W, H, 3, in);
  GstBuffer *buf = frame_from_channels ("RGBA", W, H, in, FALSE, 1), *out;
  GstVideoRegionOfInterestMeta *roi;

  gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
  attach_boxes (buf, boxes, 1);
  out = gst_harness_push_and_pull (h, buf);
  fail_unless (out != NULL);
  roi = gst_buffer_get_video_region_of_interest_meta (out);
  fail_unless (roi != NULL, "the output lost the region of interest meta");
  fail_unless (roi->x == 10 && roi->y == 8 && roi->w == 20 && roi->h == 16);
  gst_buffer_unref (out);
  channels_free (in, n);
  filter_harness_free (h);
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
/* Adds the boxes to each buffer reaching the filter in CUDA memory, where
 * cudaupload left none; counts the buffers that still had them. */
static GstPadProbeReturn
add_boxes_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint *kept = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  (void) pad;
  if (gst_buffer_get_video_region_of_interest_meta (buf)) {
    (*kept)++;
    return GST_PAD_PROBE_OK;
  }
  buf = gst_buffer_make_writable (buf);
  attach_boxes (buf, boxes, G_N_ELEMENTS (boxes));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* CUDA memory in and out: cudaupload ! cudabilateral ! cudadownload, the
 * boxes on the filter's input. GStreamer's CUDA elements keep only metas
 * tagged "video" alone, so cudaupload drops the ones attached before it
 * (the user guide says so): checked, and told if that changes. */
GST_START_TEST (test_regions_cuda_memory)
{
  static const Params p = {.diameter = 9,.sigma_color = 30,.sigma_space = 3 };
  static const gchar *fmts[] = { "RGBA", "NV12", "I420", "P010_10LE" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel filtered[GST_VIDEO_MAX_COMPONENTS];
    guint n = channels_for_format (fmts[f], W, H, 6, in), n_filtered;
    gchar *desc = g_strdup_printf ("cudaupload ! video/x-raw(memory:"
        "CUDAMemory),format=%s ! cudabilateral name=f regions=inside "
        "region-types=face region-padding=%d region-feather=%g diameter=%d "
        "sigma-color=%g sigma-space=%g ! video/x-raw(memory:CUDAMemory) ! "
        "cudadownload", fmts[f], PADDING, FEATHER, p.diameter, p.sigma_color,
        p.sigma_space);
    GstHarness *h = gst_harness_new_parse (desc);
    GstElement *filter = gst_bin_get_by_name (GST_BIN (h->element), "f");
    GstPad *sink = gst_element_get_static_pad (filter, "sink");
    GstBuffer *buf = frame_from_channels (fmts[f], W, H, in, FALSE, 6);
    int rb[G_N_ELEMENTS (boxes)][4];
    gint n_boxes = reference_boxes (boxes, G_N_ELEMENTS (boxes), "face",
        PADDING, rb);
    guint kept = 0;

    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, add_boxes_probe,
        &kept, NULL);
    gst_harness_set_caps (h, caps_for (fmts[f], W, H), caps_for (fmts[f], W,
            H));
    attach_boxes (buf, boxes, G_N_ELEMENTS (boxes));
    push_and_read_channels (h, fmts[f], W, H, buf, out);
    if (kept)
      g_print ("cudaupload kept the regions' metas\n");
    n_filtered = channels_reference_for_format (&info, in, &p, filtered);
    fail_unless (check_regions (&info, in, filtered, out, n_filtered, rb,
            n_boxes, FEATHER, FALSE, NULL, "CUDA memory") > 0,
        "%s in CUDA memory: no sample between the input and the filter",
        fmts[f]);
    channels_free (filtered, n_filtered);
    channels_free (out, n);
    channels_free (in, n);
    gst_object_unref (sink);
    gst_object_unref (filter);
    gst_harness_teardown (h);
    g_free (desc);
  }
}

GST_END_TEST;
#endif

#if CBF_HAVE_ANALYTICS
/* GStreamer 1.24's analytics metadata: object detections by label, one
 * reaching past the left edge (their coordinates are signed). */
GST_START_TEST (test_regions_analytics)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  static const gchar *fmts[] = { "RGBA", "NV12" };
  static const Box detections[] = {
    {"face", 10, 8, 20, 16}, {"plate", 44, 30, 12, 8}, {"plate", -6, 20, 20,
        10}
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel filtered[GST_VIDEO_MAX_COMPONENTS];
    guint n = channels_for_format (fmts[f], W, H, 4, in), n_filtered, i;
    GstHarness *h = filter_harness_new (fmts[f], W, H, &p);
    GstBuffer *buf = frame_from_channels (fmts[f], W, H, in, FALSE, 4);
    GstAnalyticsRelationMeta *rmeta =
        gst_buffer_add_analytics_relation_meta (buf);
    int rb[G_N_ELEMENTS (detections)][4];
    gint n_boxes = reference_boxes (detections, G_N_ELEMENTS (detections),
        "plate", PADDING, rb);

    for (i = 0; i < G_N_ELEMENTS (detections); i++) {
      GstAnalyticsODMtd od;

      fail_unless (gst_analytics_relation_meta_add_od_mtd (rmeta,
              g_quark_from_string (detections[i].type), detections[i].x,
              detections[i].y, detections[i].w, detections[i].h, 0.9f, &od));
    }
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
    g_object_set (h->element, "region-types", "plate", "region-padding",
        PADDING, "region-feather", FEATHER, NULL);
    filter_frame (h, fmts[f], W, H, buf, out);
    n_filtered = channels_reference_for_format (&info, in, &p, filtered);
    fail_unless (n_boxes == 2);
    fail_unless (check_regions (&info, in, filtered, out, n_filtered, rb,
            n_boxes, FEATHER, FALSE, NULL, "analytics") > 0,
        "%s analytics: no sample between the input and the filter", fmts[f]);
    channels_free (filtered, n_filtered);
    channels_free (out, n);
    channels_free (in, n);
    filter_harness_free (h);
  }
}

GST_END_TEST;
#endif

#if CBF_HAVE_ANALYTICS && GST_CHECK_VERSION (1, 26, 0)
/* A segmentation mask of 14 x 10 cells over the frame's columns [5, 61)
 * and rows [3, 41) (cells of 4 x 3.8 pixels), region ids 0, 1 and 2
 * classified background, person and car: a block of persons, persons
 * scattered, cars in a corner. */
#define SEG_X 5
#define SEG_Y 3
#define SEG_W 56
#define SEG_H 38

static guint
segment_id (guint i, guint j, guint cols)
{
  if (i >= 3 && i <= 6 && j >= 2 && j <= 6)
    return 1;
  if ((i * 5 + j * 3) % 11 == 0)
    return 1;
  return i + 4 >= cols && j <= 2 ? 2 : 0;
}

static void
attach_segmentation (GstBuffer * buf, guint cols, guint rows)
{
  static const gchar *classes[] = { "background", "person", "car" };
  static guint region_ids[] = { 0, 1, 2 };
  GstAnalyticsRelationMeta *rmeta =
      gst_buffer_add_analytics_relation_meta (buf);
  GstBuffer *mask = gst_buffer_new_allocate (NULL, cols * rows, NULL);
  GstAnalyticsSegmentationMtd seg;
  GstAnalyticsClsMtd cls;
  GQuark quarks[3];
  gfloat levels[3] = { -1, -1, -1 };
  GstMapInfo map;
  guint i, j;

  gst_buffer_map (mask, &map, GST_MAP_WRITE);
  for (j = 0; j < rows; j++)
    for (i = 0; i < cols; i++)
      map.data[j * cols + i] = segment_id (i, j, cols);
  gst_buffer_unmap (mask, &map);
  {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { (gint) cols };

    gst_buffer_add_video_meta_full (mask, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_GRAY8, cols, rows, 1, offset, stride);
  }
  fail_unless (gst_analytics_relation_meta_add_segmentation_mtd (rmeta, mask,
          GST_SEGMENTATION_TYPE_SEMANTIC, 3, region_ids, SEG_X, SEG_Y, SEG_W,
          SEG_H, &seg));
  for (i = 0; i < 3; i++)
    quarks[i] = g_quark_from_string (classes[i]);
  fail_unless (gst_analytics_relation_meta_add_cls_mtd (rmeta, 3, levels,
          quarks, &cls));
  fail_unless (gst_analytics_relation_meta_set_relation (rmeta,
          GST_ANALYTICS_REL_TYPE_RELATE_TO, seg.id, cls.id));
}

/* The cells of region id @id of a @cols x @rows mask as boxes grown by
 * @padding, after the @n boxes already in @out (room for 512); returns
 * the count. A cell's edges: nearest-neighbour scaling's. */
static gint
reference_cells (guint cols, guint rows, guint id, gint padding, gint n,
    int (*out)[4])
{
  guint i, j;

  for (j = 0; j < rows; j++)
    for (i = 0; i < cols; i++) {
      if (segment_id (i, j, cols) != id)
        continue;
      fail_unless (n < 512);
      out[n][0] = SEG_X + (gint) (i * SEG_W / cols) - padding;
      out[n][1] = SEG_Y + (gint) (j * SEG_H / rows) - padding;
      out[n][2] = SEG_X + (gint) ((i + 1) * SEG_W / cols) + padding;
      out[n][3] = SEG_Y + (gint) ((j + 1) * SEG_H / rows) + padding;
      n++;
    }
  return n;
}

static const Box seg_boxes[] = {
  {"person", 40, 30, 10, 8}, {"face", 2, 30, 12, 12}
};

/* In CUDA memory: the mask (14 x 10 cells) and the boxes on the filter's
 * input, after cudaupload, which drops metas. */
static GstPadProbeReturn
add_segmentation_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));

  (void) pad;
  (void) user_data;
  attach_segmentation (buf, 14, 10);
  attach_boxes (buf, seg_boxes, G_N_ELEMENTS (seg_boxes));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* A frame of @format with the mask (@cols x @rows cells; 0: none) and
 * boxes attached, through @h (NULL: cudaupload, the element and
 * cudadownload, the metas attached after cudaupload), checked against the
 * reference's blend by the persons' cells and boxes. */
static void
check_segmented (GstHarness * h, const gchar * format, guint cols,
    guint rows, gboolean outside, guint32 seed)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  GstVideoInfo info = info_for (format, W, H);
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel filtered[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format (format, W, H, seed, in), n_filtered, c;
  GstBuffer *buf = frame_from_channels (format, W, H, in, FALSE, seed);
  int rb[512][4];
  gint n_boxes = reference_boxes (seg_boxes, G_N_ELEMENTS (seg_boxes),
      "person", PADDING, rb);
  gchar *what = g_strdup_printf ("segmentation %u x %u %s", cols, rows,
      outside ? "outside" : "inside");

  if (cols > 0)
    n_boxes = reference_cells (cols, rows, 1, PADDING, n_boxes, rb);
  if (h) {
    if (cols > 0)
      attach_segmentation (buf, cols, rows);
    attach_boxes (buf, seg_boxes, G_N_ELEMENTS (seg_boxes));
    filter_frame (h, format, W, H, buf, out);
  } else {
    gchar *desc = g_strdup_printf ("cudaupload ! video/x-raw(memory:"
        "CUDAMemory),format=%s ! cudabilateral name=f regions=%s "
        "region-types=person region-padding=%d region-feather=%g "
        "diameter=%d sigma-color=%g sigma-space=%g ! "
        "video/x-raw(memory:CUDAMemory) ! cudadownload", format,
        outside ? "outside" : "inside", PADDING, FEATHER, p.diameter,
        p.sigma_color, p.sigma_space);
    GstHarness *cuda = gst_harness_new_parse (desc);
    GstElement *filter = gst_bin_get_by_name (GST_BIN (cuda->element), "f");
    GstPad *sink = gst_element_get_static_pad (filter, "sink");

    fail_unless (cols == 14 && rows == 10);
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER,
        add_segmentation_probe, NULL, NULL);
    gst_harness_set_caps (cuda, caps_for (format, W, H), caps_for (format, W,
            H));
    push_and_read_channels (cuda, format, W, H, buf, out);
    gst_object_unref (sink);
    gst_object_unref (filter);
    gst_harness_teardown (cuda);
    g_free (desc);
  }
  n_filtered = channels_reference_for_format (&info, in, &p, filtered);
  fail_unless (check_regions (&info, in, filtered, out, n_filtered, rb,
          n_boxes, FEATHER, outside, NULL, what) > 0,
      "%s %s: no sample between the input and the filter", what, format);
  for (c = n_filtered; c < n; c++)
    assert_channel_matches (&out[c], &in[c], 0, "alpha", format, c);
  channels_free (filtered, n_filtered);
  channels_free (out, n);
  channels_free (in, n);
  g_free (what);
}

/* Regions from a segmentation mask's cells of the types asked for (the
 * persons), beside the boxes, in every format, inside and outside; then,
 * through one element, a frame without a mask (its cells gone), and a
 * larger mask (its buffers grown); and in CUDA memory. */
GST_START_TEST (test_regions_segmentation)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  guint f, outside;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++)
    for (outside = 0; outside < 2; outside++) {
      GstHarness *h = filter_harness_new (all_formats[f], W, H, &p);

      gst_util_set_object_arg (G_OBJECT (h->element), "regions",
          outside ? "outside" : "inside");
      g_object_set (h->element, "region-types", "person", "region-padding",
          PADDING, "region-feather", FEATHER, NULL);
      check_segmented (h, all_formats[f], 14, 10, outside, 300 + f);
      if (f == 0 && !outside) {
        check_segmented (h, all_formats[f], 0, 0, FALSE, 400);
        check_segmented (h, all_formats[f], 28, 19, FALSE, 401);
        check_segmented (h, all_formats[f], 14, 10, FALSE, 402);
      }
      filter_harness_free (h);
    }
#if CBF_HAVE_CUDA_MEMORY
  check_segmented (NULL, "NV12", 14, 10, FALSE, 403);
  check_segmented (NULL, "RGBA", 14, 10, TRUE, 404);
#endif
}

GST_END_TEST;
#endif

/* border=wrap: windows at the frame's edges must read its far edges, as
 * the whole frame does: against the reference with the wrapping border,
 * blended by the reference's weights. Boxes touch every edge. */
GST_START_TEST (test_regions_wrap)
{
  static const Box edge_boxes[] = {
    {"face", 0, 0, 12, 10}, {"face", 62, 40, 20, 20}, {"face", 0, 30, 6, 6}
  };
  static const gchar *fmts[] = { "RGBA", "NV12", "GRAY8", "P010_10LE" };
  static const Params p = {.diameter = 9,.sigma_color = 40,.sigma_space = 4 };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel filtered[GST_VIDEO_MAX_COMPONENTS];
    guint n = channels_for_format (fmts[f], W, H, 200 + f, in), n_filtered;
    GstHarness *h = filter_harness_new (fmts[f], W, H, &p);
    int rb[G_N_ELEMENTS (edge_boxes)][4];
    gint n_boxes = reference_boxes (edge_boxes, G_N_ELEMENTS (edge_boxes),
        NULL, 0, rb);
    GstBuffer *buf;

    gst_util_set_object_arg (G_OBJECT (h->element), "border", "wrap");
    n_filtered = channels_reference_border_for_format (&info, in, &p, "wrap",
        0, filtered);
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", "inside");
    g_object_set (h->element, "region-feather", 3.0, NULL);
    buf = frame_from_channels (fmts[f], W, H, in, FALSE, 200 + f);
    attach_boxes (buf, edge_boxes, G_N_ELEMENTS (edge_boxes));
    filter_frame (h, fmts[f], W, H, buf, out);
    fail_unless (check_regions (&info, in, filtered, out, n_filtered, rb,
            n_boxes, 3.0, FALSE, NULL, "border=wrap") > 0,
        "%s border=wrap: no sample between the input and the filter", fmts[f]);
    channels_free (filtered, n_filtered);
    channels_free (out, n);
    channels_free (in, n);
    filter_harness_free (h);
  }
}

GST_END_TEST;

static Suite *
regions_gpu_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-regions-gpu", 600, &tc);

  tcase_add_test (tc, test_regions_every_format);
  tcase_add_test (tc, test_regions_radii_and_modes);
  tcase_add_test (tc, test_regions_no_box);
  tcase_add_test (tc, test_regions_with_mask);
  tcase_add_test (tc, test_regions_temporal);
  tcase_add_test (tc, test_regions_controlled);
  tcase_add_test (tc, test_regions_meta_kept);
  tcase_add_test (tc, test_regions_wrap);
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_regions_cuda_memory);
#endif
#if CBF_HAVE_ANALYTICS
  tcase_add_test (tc, test_regions_analytics);
#endif
#if CBF_HAVE_ANALYTICS && GST_CHECK_VERSION (1, 26, 0)
  tcase_add_test (tc, test_regions_segmentation);
#endif
  return s;
}

TEST_MAIN (regions_gpu_suite, TEST_NEEDS_GPU, "pngenc", "pngdec",
    "cudaupload", "cudadownload", NULL);
