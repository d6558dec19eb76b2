/* cudabilateral on a GPU: the temporal filter (temporal-strength,
 * temporal-sigma) against the C reference, frame by frame: each output
 * within the format's tolerance of cbf_reference_temporal given the spatial
 * result before rounding (cbf_reference_values) and the element's own
 * previous output, so that no error carries from one frame to the next.
 * Sequences hold a still picture under fresh noise, motion, a scene cut
 * and a flush; every format, the kernel families' radii, mode=gaussian,
 * method=grid and sigmas that pass the filter through. A step much larger
 * than temporal-sigma passes within one frame; each reset rule (a flush,
 * a new segment, a discontinuity, new caps, the filter turned off and on)
 * gives the spatial result for the next frame; temporal-strength 0 gives
 * the very samples of an element that never had it set; a strength mask
 * blends the input with the temporal result. Each check that the temporal
 * filter moved an output is made only where the expected output differs
 * from the spatial one, and the test asserts that such outputs exist, so
 * that an element that ignored the previous frame fails. Output pools are
 * poisoned first. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

#include "gpu_support.h"

#define STRENGTH 0.8
#define SIGMA 10.0
#define W 64
#define H 48

static const gchar *all_formats[] = { GPU_TEST_ALL_FORMATS };

/* Frame @k of a sequence: picture @picture (channels_for_format's, of
 * @format) moved @shift pixels right (wrapping; chroma by its share), with
 * noise of up to +-20 8-bit levels (scaled to the depth) drawn anew from
 * @k, alpha as it is. Returns the components. */
static guint
sequence_frame (const gchar * format, guint32 picture, gint shift, guint32 k,
    Channel * ch)
{
  GstVideoInfo info = info_for (format, W, H);
  Channel base[GST_VIDEO_MAX_COMPONENTS];
  guint n = channels_for_format (format, W, H, picture, base), c;
  GRand *rand = g_rand_new_with_seed (1000 + k);

  for (c = 0; c < n; c++) {
    gint w = base[c].width, h = base[c].height, x, y;
    gint top = (1 << base[c].bits) - 1, s = shift * w / W;
    gboolean alpha = GST_VIDEO_INFO_HAS_ALPHA (&info) && c == GST_VIDEO_COMP_A;

    ch[c] = channel_new (w, h, base[c].bits);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        gint v = base[c].data[y * w + ((x - s) % w + w) % w];

        if (!alpha)
          v += g_rand_int_range (rand, -20, 21) * top / 255;
        ch[c].data[y * w + x] = (guint16) CLAMP (v, 0, top);
      }
  }
  channels_free (base, n);
  g_rand_free (rand);
  return n;
}

/* The tolerance of a temporal output: the format's, and half again for
 * 16-bit samples, whose spatial error (up to 16) the blend can grow by up
 * to 1.42 times (1 + a g (x^2 - 1) at x^2 = 3). */
static gint
temporal_tolerance (const gchar * format)
{
  GstVideoFormat f = gst_video_format_from_string (format);

  return format_bits (f) == 16 ? format_tolerance (f) * 3 / 2 :
      format_tolerance (f);
}

/* A sequence being filtered: the harness, what it filters with, and the
 * element's previous output. */
typedef struct
{
  GstHarness *h;
  const gchar *format;
  Params p;
  gboolean grid;
  gdouble strength;
  Channel prev[GST_VIDEO_MAX_COMPONENTS];
  guint n_prev;                 /* 0: the next frame has no previous one */
  guint moved;                  /* outputs the temporal filter moved */
  guint frames;
} Sequence;

static void
sequence_init (Sequence * s, const gchar * format, const Params * p,
    gboolean grid)
{
  memset (s, 0, sizeof (*s));
  s->format = format;
  s->p = *p;
  s->grid = grid;
  s->strength = STRENGTH;
  s->h = filter_harness_new (format, W, H, p);
  g_object_set (s->h->element, "temporal-strength", STRENGTH,
      "temporal-sigma", SIGMA, NULL);
  if (grid)
    gst_util_set_object_arg (G_OBJECT (s->h->element), "method", "grid");
}

static void
sequence_clear (Sequence * s)
{
  channels_free (s->prev, s->n_prev);
  filter_harness_free (s->h);
}

/* Filters @in (with a buffer @flags) and checks the output: within the
 * tolerance of the temporal reference given the previous output (none
 * where the sequence was reset), alpha unchanged. Counts the outputs that
 * the temporal filter moved beyond the tolerance from the spatial result,
 * and returns how many of them there were in this frame. */
static guint
sequence_check (Sequence * s, const Channel * in, GstBufferFlags flags,
    const gchar * what)
{
  GstVideoInfo info = info_for (s->format, W, H);
  guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), c, n_filtered;
  Channel out[GST_VIDEO_MAX_COMPONENTS], expected[GST_VIDEO_MAX_COMPONENTS];
  Channel spatial[GST_VIDEO_MAX_COMPONENTS];
  GstBuffer *buf = frame_from_channels (s->format, W, H, in, s->frames % 2,
      s->frames);
  gint tol = temporal_tolerance (s->format);
  gchar *label = g_strdup_printf ("%s, frame %u, d=%d%s%s", what, s->frames,
      s->p.diameter, s->p.gaussian ? " gaussian" : "", s->grid ? " grid" : "");
  guint moved = 0;
  gsize k;

  GST_BUFFER_FLAG_SET (buf, flags);
  filter_frame (s->h, s->format, W, H, buf, out);
  n_filtered = channels_temporal_for_format (&info, in,
      s->n_prev ? s->prev : NULL, &s->p, s->grid, s->strength, SIGMA, expected);
  channels_temporal_for_format (&info, in, NULL, &s->p, s->grid, s->strength,
      SIGMA, spatial);
  for (c = 0; c < n_filtered; c++) {
    assert_channel_matches (&out[c], &expected[c], tol, label, s->format, c);
    for (k = 0; k < (gsize) W * H && k < (gsize) out[c].width *
        out[c].height; k++)
      moved += ABS ((gint) expected[c].data[k] - spatial[c].data[k]) > tol;
  }
  for (c = n_filtered; c < n; c++)
    assert_channel_matches (&out[c], &in[c], 0, "alpha", s->format, c);
  channels_free (expected, n_filtered);
  channels_free (spatial, n_filtered);
  channels_free (s->prev, s->n_prev);
  memcpy (s->prev, out, sizeof (Channel) * n);
  s->n_prev = n;
  s->moved += moved;
  s->frames++;
  g_free (label);
  return moved;
}

/* The next frame follows no previous one. */
static void
sequence_reset (Sequence * s)
{
  channels_free (s->prev, s->n_prev);
  s->n_prev = 0;
}

static void
push_segment (GstHarness * h)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

/* A flush alone: the segment after it is the one in force, which on its
 * own starts nothing again. */
static void
push_flush (GstHarness * h)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  push_segment (h);
}

/* A still picture under fresh noise, motion, a scene cut, a flush: every
 * format. */
GST_START_TEST (test_temporal_sequence_every_format)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (all_formats); f++) {
    static const struct
    {
      guint32 picture;
      gint shift;
    } frames[] = { {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 3}, {1, 6}, {2, 6} };
    Sequence s;
    Channel in[GST_VIDEO_MAX_COMPONENTS];
    guint i, n, still = 0;

    sequence_init (&s, all_formats[f], &p, FALSE);
    for (i = 0; i < G_N_ELEMENTS (frames); i++) {
      n = sequence_frame (all_formats[f], frames[i].picture, frames[i].shift,
          i, in);
      if (i >= 1 && i <= 3)
        still += sequence_check (&s, in, 0, "sequence");
      else
        sequence_check (&s, in, 0, "sequence");
      channels_free (in, n);
    }
    /* Averaging through time happens where the picture holds still. */
    fail_unless (still > 0, "%s: the still frames' expected outputs are the "
        "spatial ones: the check cannot tell a temporal filter",
        all_formats[f]);

    /* A flush (and the segment after it): the next frame starts again. */
    push_flush (s.h);
    sequence_reset (&s);
    for (i = 0; i < 2; i++) {
      n = sequence_frame (all_formats[f], 2, 6, 20 + i, in);
      sequence_check (&s, in, 0, "after a flush");
      channels_free (in, n);
    }
    sequence_clear (&s);
  }
}

GST_END_TEST;

/* Runs @frames frames of a still picture under noise through a new
 * sequence of @format with @p; fails unless the filter moved outputs. */
static void
check_still (const gchar * format, const Params * p, gboolean grid,
    guint frames, const gchar * what)
{
  Sequence s;
  Channel in[GST_VIDEO_MAX_COMPONENTS];
  guint i, n;

  sequence_init (&s, format, p, grid);
  for (i = 0; i < frames; i++) {
    n = sequence_frame (format, 3, 0, 40 + i, in);
    sequence_check (&s, in, 0, what);
    channels_free (in, n);
  }
  fail_unless (s.moved > 0, "%s %s: no output moved by the temporal filter "
      "in the reference: the check cannot tell one", what, format);
  sequence_clear (&s);
}

/* Every kernel family: the streaming kernel (colour, radius 1), the
 * specialised (up to 8), the wide (9 to 30) and the generic (beyond). */
GST_START_TEST (test_temporal_radii)
{
  static const gchar *fmts[] = { "RGBA", "RGB", "GRAY8", "NV12",
    "I420_10LE", "P010_10LE", "RGBA64_LE", "Y444_16LE"
  };
  static const gint diameters[] = { 3, 9, 31, 71 };
  guint f, d;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (d = 0; d < G_N_ELEMENTS (diameters); d++) {
      Params p = {.diameter = diameters[d],.sigma_color = 25,
        .sigma_space = 12
      };

      check_still (fmts[f], &p, FALSE, 3, "radii");
    }
}

GST_END_TEST;

/* mode=gaussian (its streaming kernel at radius 1 and 2 too), method=grid,
 * and sigmas that pass the bilateral filter through: B is then the input
 * itself. */
GST_START_TEST (test_temporal_modes)
{
  static const gchar *fmts[] = { "RGBA", "NV12", "I420", "P010_10LE",
    "GRAY16_LE", "BGR10A2_LE"
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    Params gauss3 = {.diameter = 3,.sigma_space = 1,.gaussian = TRUE };
    Params gauss9 = {.diameter = 9,.sigma_space = 2,.gaussian = TRUE };
    Params grid = {.diameter = 5,.sigma_color = 30,.sigma_space = 8 };
    Params color0 = {.diameter = 9,.sigma_color = 0,.sigma_space = 3 };
    Params space0 = {.diameter = 9,.sigma_color = 30,.sigma_space = 0 };

    check_still (fmts[f], &gauss3, FALSE, 3, "gaussian");
    check_still (fmts[f], &gauss9, FALSE, 3, "gaussian");
    check_still (fmts[f], &grid, TRUE, 3, "grid");
    check_still (fmts[f], &color0, FALSE, 3, "sigma-color 0");
    check_still (fmts[f], &space0, FALSE, 3, "sigma-space 0");
  }
}

GST_END_TEST;

/* Each reset rule, on its own: after two frames (the second blended), the
 * event, then a frame whose output must be the spatial one, though the
 * previous frame would have moved it. A segment sent again unchanged is no
 * reset (so that the flush's own reset is what the flush case checks). */
typedef enum
{
  RESET_SEGMENT,
  RESET_FLUSH,
  RESET_DISCONT,
  RESET_CAPS,
  RESET_CAPS_SAME_SIZE,
  RESET_OFF_AND_ON,
  RESET_NONE,
  RESET_SAME_SEGMENT,
} Reset;

static void
check_reset (const gchar * format, Reset reset)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  static const gchar *names[] = { "a new segment", "a flush",
    "a discontinuity", "new caps", "new caps of the same size",
    "off and on", "nothing", "the same segment again"
  };
  Sequence s;
  Channel in[GST_VIDEO_MAX_COMPONENTS];
  GstBufferFlags flags = 0;
  guint i, n, moved;

  sequence_init (&s, format, &p, FALSE);
  for (i = 0; i < 2; i++) {
    n = sequence_frame (format, 4, 0, 60 + i, in);
    sequence_check (&s, in, 0, "before the reset");
    channels_free (in, n);
  }
  switch (reset) {
    case RESET_SEGMENT:{
      GstSegment segment;

      /* Another segment: a jump in the stream. */
      gst_segment_init (&segment, GST_FORMAT_TIME);
      segment.base = 10 * GST_SECOND;
      fail_unless (gst_harness_push_event (s.h,
              gst_event_new_segment (&segment)));
      break;
    }
    case RESET_FLUSH:
      push_flush (s.h);
      break;
    case RESET_SAME_SEGMENT:
      push_segment (s.h);
      break;
    case RESET_CAPS_SAME_SIZE:{
      /* Only the frame rate changes: the state keeps its size, and a
       * state the gate accepts is at hand. */
      GstCaps *caps = caps_for (format, W, H);

      gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 25, 1, NULL);
      gst_harness_set_caps (s.h, gst_caps_ref (caps), caps);
      break;
    }
    case RESET_DISCONT:
      flags = GST_BUFFER_FLAG_DISCONT;
      break;
    case RESET_CAPS:
      /* Another size and back: the frame after both follows none. */
      gst_harness_set_caps (s.h, caps_for (format, W + 2, H + 2),
          caps_for (format, W + 2, H + 2));
      {
        GstVideoInfo other = info_for (format, W + 2, H + 2);
        GstBuffer *out = gst_harness_push_and_pull (s.h,
            gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&other),
                NULL));

        fail_unless (out != NULL, "no output at the other size");
        gst_buffer_unref (out);
      }
      gst_harness_set_caps (s.h, caps_for (format, W, H), caps_for (format, W,
              H));
      break;
    case RESET_OFF_AND_ON:
      g_object_set (s.h->element, "temporal-strength", 0.0, NULL);
      s.strength = 0;
      n = sequence_frame (format, 4, 0, 62, in);
      sequence_check (&s, in, 0, "turned off");
      channels_free (in, n);
      g_object_set (s.h->element, "temporal-strength", STRENGTH, NULL);
      s.strength = STRENGTH;
      break;
    case RESET_NONE:
      break;
  }
  if (reset != RESET_NONE && reset != RESET_SAME_SEGMENT)
    sequence_reset (&s);
  n = sequence_frame (format, 4, 0, 63, in);
  moved = sequence_check (&s, in, flags, names[reset]);
  channels_free (in, n);
  /* Without a reset the frame is moved: the check above would fail an
   * element that ignored the reset. */
  if (reset == RESET_NONE || reset == RESET_SAME_SEGMENT)
    fail_unless (moved > 0, "%s: no output moved after %s", format,
        names[reset]);
  sequence_clear (&s);
}

GST_START_TEST (test_temporal_resets)
{
  static const gchar *fmts[] = { "GRAY8", "NV12", "RGBA", "P010_10LE" };
  guint f;
  Reset r;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (r = RESET_SEGMENT; r <= RESET_SAME_SEGMENT; r++)
      check_reset (fmts[f], r);
}

GST_END_TEST;

/* A step of five temporal-sigma on a still, noiseless picture passes
 * within one frame: the stepped half is the spatial result (the flat
 * level), no trail of the previous frame left in it. */
GST_START_TEST (test_temporal_step_passes)
{
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  Sequence s;
  Channel in = channel_new (W, H, 8);
  gint x, y, i;

  sequence_init (&s, "GRAY8", &p, FALSE);
  for (i = 0; i < 5; i++) {
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++)
        in.data[y * W + x] = i < 4 || x < W / 2 ? 80 : 80 + 5 * SIGMA;
    sequence_check (&s, &in, 0, "step");
  }
  /* Away from the edge by the radius: flat on either side. */
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      gint v = s.prev[0].data[y * W + x];

      if (x >= W / 2 + 2)
        fail_unless (ABS (v - (80 + 5 * (gint) SIGMA)) <= 1, "a trail at "
            "%d,%d: %d", x, y, v);
      else if (x < W / 2 - 2)
        fail_unless (v == 80, "the still half changed at %d,%d: %d", x, y, v);
    }
  channels_free (&in, 1);
  sequence_clear (&s);
}

GST_END_TEST;

/* temporal-strength 0 is today's element: the same samples as an element
 * that never had it set, whatever temporal-sigma says, and from the frame
 * it is turned off on. */
GST_START_TEST (test_temporal_strength_zero)
{
  static const gchar *fmts[] = { "RGBA", "NV12", "P010_10LE", "Y444_16LE" };
  static const Params p = {.diameter = 9,.sigma_color = 30,.sigma_space = 4 };
  guint f, i, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *plain = filter_harness_new (fmts[f], W, H, &p);
    GstHarness *zero = filter_harness_new (fmts[f], W, H, &p);
    GstHarness *off = filter_harness_new (fmts[f], W, H, &p);

    g_object_set (zero->element, "temporal-strength", 0.0, "temporal-sigma",
        3.0, NULL);
    g_object_set (off->element, "temporal-strength", STRENGTH, NULL);
    for (i = 0; i < 5; i++) {
      Channel in[GST_VIDEO_MAX_COMPONENTS];
      Channel a[GST_VIDEO_MAX_COMPONENTS], b[GST_VIDEO_MAX_COMPONENTS];
      Channel o[GST_VIDEO_MAX_COMPONENTS];
      guint n = sequence_frame (fmts[f], 5, 0, 80 + i, in);

      if (i == 2)
        g_object_set (off->element, "temporal-strength", 0.0, NULL);
      filter_frame (plain, fmts[f], W, H, frame_from_channels (fmts[f], W, H,
              in, FALSE, i), a);
      filter_frame (zero, fmts[f], W, H, frame_from_channels (fmts[f], W, H,
              in, TRUE, i), b);
      filter_frame (off, fmts[f], W, H, frame_from_channels (fmts[f], W, H,
              in, FALSE, i), o);
      for (c = 0; c < n; c++) {
        assert_channel_matches (&b[c], &a[c], 0, "temporal-strength 0",
            fmts[f], c);
        if (i >= 2)
          assert_channel_matches (&o[c], &a[c], 0, "temporal-strength "
              "turned to 0", fmts[f], c);
      }
      channels_free (in, n);
      channels_free (a, n);
      channels_free (b, n);
      channels_free (o, n);
    }
    filter_harness_free (plain);
    filter_harness_free (zero);
    filter_harness_free (off);
  }
}

GST_END_TEST;

/* A strength mask of 0 on the left half and 255 on the right: the left
 * is the input, the right the temporal result of an element without the
 * mask (the temporal filter runs before the mask's blend). Columns near
 * the mask's edge, where chroma's scaled mask blends, are left out. */
GST_START_TEST (test_temporal_with_mask)
{
  static const gchar *fmts[] = { "RGBA", "NV12" };
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  gchar *dir = g_dir_make_tmp ("cbf-temporal-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "mask.png", NULL);
  guint8 *mask = g_malloc (W * H);
  guint f, i, c;
  gint x, y;

  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      mask[y * W + x] = x < W / 2 ? 0 : 255;
  write_gray_png (path, mask, W, H);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstHarness *masked = gst_harness_new ("cudabilateral");
    Sequence s;

    params_apply (masked->element, &p);
    g_object_set (masked->element, "temporal-strength", STRENGTH,
        "temporal-sigma", SIGMA, "mask-location", path, NULL);
    gst_harness_set_caps (masked, caps_for (fmts[f], W, H),
        caps_for (fmts[f], W, H));
    sequence_init (&s, fmts[f], &p, FALSE);
    for (i = 0; i < 4; i++) {
      Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
      guint n = sequence_frame (fmts[f], 6, 0, 100 + i, in);

      filter_frame (masked, fmts[f], W, H, frame_from_channels (fmts[f], W, H,
              in, FALSE, i), out);
      sequence_check (&s, in, 0, "without the mask");
      for (c = 0; c < n; c++) {
        gint cw = out[c].width, edge = cw / 2;

        for (y = 0; y < out[c].height; y++)
          for (x = 0; x < cw; x++) {
            gsize k = (gsize) y * cw + x;

            if (x < edge - 2)
              fail_unless (out[c].data[k] == in[c].data[k], "%s component "
                  "%u at %d,%d, frame %u: %u where the mask is 0, the input "
                  "%u", fmts[f], c, x, y, i, out[c].data[k], in[c].data[k]);
            else if (x >= edge + 2)
              fail_unless (out[c].data[k] == s.prev[c].data[k], "%s "
                  "component %u at %d,%d, frame %u: %u where the mask is 255, "
                  "the temporal result %u", fmts[f], c, x, y, i,
                  out[c].data[k], s.prev[c].data[k]);
          }
      }
      channels_free (in, n);
      channels_free (out, n);
    }
    fail_unless (s.moved > 0);
    sequence_clear (&s);
    gst_harness_teardown (masked);
  }
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_free (mask);
}

GST_END_TEST;

/* Whether @a and @b differ by more than @tol somewhere. */
static gboolean
channels_apart (const Channel * a, const Channel * b, gint tol)
{
  gsize k;

  for (k = 0; k < (gsize) a->width * a->height; k++)
    if (ABS ((gint) a->data[k] - (gint) b->data[k]) > tol)
      return TRUE;
  return FALSE;
}

/* filter-luma=false with the temporal filter copies luma, bit for bit,
 * frame after frame, while chroma follows the temporal reference; and
 * filter-chroma turned off for two frames, then on again: chroma starts
 * again from the spatial result (its state was last written frames ago),
 * while luma goes on blending. Each check asserts that the outputs it
 * rules out differ from the expected ones. */
GST_START_TEST (test_temporal_plane_switches)
{
  static const gchar *fmts[] = { "NV12", "I420", "P010_10LE", "YUY2" };
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  guint f, i, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    gint tol = temporal_tolerance (fmts[f]);
    Sequence s;
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel expected[GST_VIDEO_MAX_COMPONENTS];
    Channel prev[GST_VIDEO_MAX_COMPONENTS],
        chroma_state[GST_VIDEO_MAX_COMPONENTS];
    guint n = 0, moved = 0, stale_apart = 0;

    /* Luma copied: four frames of a still picture. */
    sequence_init (&s, fmts[f], &p, FALSE);
    g_object_set (s.h->element, "filter-luma", FALSE, NULL);
    for (i = 0; i < 4; i++) {
      n = sequence_frame (fmts[f], 7, 0, 140 + i, in);
      filter_frame (s.h, fmts[f], W, H, frame_from_channels (fmts[f], W, H,
              in, i % 2, i), out);
      assert_channel_matches (&out[0], &in[0], 0, "filter-luma=false with "
          "the temporal filter", fmts[f], 0);
      channels_temporal_for_format (&info, in, i ? prev : NULL, &p, FALSE,
          STRENGTH, SIGMA, expected);
      for (c = 1; c < n; c++)
        assert_channel_matches (&out[c], &expected[c], tol,
            "chroma with filter-luma=false", fmts[f], c);
      if (i) {
        /* Luma given unchanged to the temporal filter, as a plane whose
         * sigmas pass the filter through is: what a copy must not be. */
        Params through = p;
        Channel blended[GST_VIDEO_MAX_COMPONENTS];

        through.sigma_color = 0;
        channels_temporal_for_format (&info, in, prev, &through, FALSE,
            STRENGTH, SIGMA, blended);
        moved += channels_apart (&blended[0], &in[0], 0);
        channels_free (blended, n);
      }
      channels_free (expected, n);
      if (i)
        channels_free (prev, n);
      memcpy (prev, out, sizeof (Channel) * n);
      channels_free (in, n);
    }
    fail_unless (moved > 0, "%s: luma's temporal result equals the input: "
        "the check cannot tell a copy", fmts[f]);
    channels_free (prev, n);
    sequence_clear (&s);

    /* Chroma off for frames 2 and 3, on again at frame 4. */
    sequence_init (&s, fmts[f], &p, FALSE);
    for (i = 0; i < 5; i++) {
      Channel spatial[GST_VIDEO_MAX_COMPONENTS];
      Channel stale[GST_VIDEO_MAX_COMPONENTS];

      if (i == 2 || i == 4)
        g_object_set (s.h->element, "filter-chroma", i == 4, NULL);
      n = sequence_frame (fmts[f], 8, 0, 160 + i, in);
      filter_frame (s.h, fmts[f], W, H, frame_from_channels (fmts[f], W, H,
              in, i % 2, 10 + i), out);
      channels_temporal_for_format (&info, in, i ? prev : NULL, &p, FALSE,
          STRENGTH, SIGMA, expected);
      channels_temporal_for_format (&info, in, NULL, &p, FALSE, STRENGTH,
          SIGMA, spatial);
      assert_channel_matches (&out[0], &expected[0], tol, "luma while "
          "filter-chroma changes", fmts[f], 0);
      for (c = 1; c < n; c++) {
        if (i == 2 || i == 3)
          assert_channel_matches (&out[c], &in[c], 0, "filter-chroma=false",
              fmts[f], c);
        else if (i == 4)
          assert_channel_matches (&out[c], &spatial[c], tol, "chroma turned "
              "on again: no previous frame", fmts[f], c);
        else
          assert_channel_matches (&out[c], &expected[c], tol, "chroma "
              "before filter-chroma=false", fmts[f], c);
      }
      if (i == 4) {
        /* What blending with the state chroma last wrote would give. */
        channels_temporal_for_format (&info, in, chroma_state, &p, FALSE,
            STRENGTH, SIGMA, stale);
        for (c = 1; c < n; c++)
          stale_apart += channels_apart (&stale[c], &spatial[c], tol);
        channels_free (stale, n);
      }
      channels_free (expected, n);
      channels_free (spatial, n);
      /* Frame 1's output is the state chroma last wrote. */
      if (i == 2)
        memcpy (chroma_state, prev, sizeof (Channel) * n);
      else if (i)
        channels_free (prev, n);
      memcpy (prev, out, sizeof (Channel) * n);
      channels_free (in, n);
    }
    fail_unless (stale_apart > 0, "%s: chroma's stale state would give the "
        "spatial result anyway: the check cannot tell", fmts[f]);
    channels_free (chroma_state, n);
    channels_free (prev, n);
    sequence_clear (&s);
  }
}

GST_END_TEST;

/* The element's error on @h's bus, which must name @what. */
static void
assert_error_names (GstHarness * h, const gchar * what)
{
  GstBus *bus = gst_element_get_bus (h->element);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;

  fail_unless (msg != NULL, "no element error (expected one naming %s)", what);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, what) != NULL, "\"%s\" does not "
      "name %s", error->message, what);
  g_error_free (error);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

/* A frame that fails after the temporal filter's part of its preparation
 * (here its strength mask cannot be uploaded, the device out of memory):
 * the next frame has no previous one, though the frames before the failed
 * one would have moved it; and the mask that failed is uploaded by that
 * next frame (0 on the left half: the input; 255 on the right: the
 * filter). After a flush, so that the state holds frames the next one
 * must not see. */
GST_START_TEST (test_temporal_failed_frame)
{
  static const gchar *fmts[] = { "NV12", "RGBA" };
  static const Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  /* Larger than the frames, so that its upload needs memory. */
  const gint mw = 640, mh = 480;
  gchar *dir = g_dir_make_tmp ("cbf-temporal-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "mask.png", NULL);
  guint8 *mask = g_malloc (mw * mh);
  guint f, c;
  gint x, y;

  for (y = 0; y < mh; y++)
    for (x = 0; x < mw; x++)
      mask[y * mw + x] = x < mw / 2 ? 0 : 255;
  write_gray_png (path, mask, mw, mh);
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], W, H);
    gint tol = temporal_tolerance (fmts[f]);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel spatial[GST_VIDEO_MAX_COMPONENTS];
    Channel blended[GST_VIDEO_MAX_COMPONENTS];
    Sequence s;
    GPtrArray *hog;
    guint n, i, n_filtered, blended_apart = 0, filtered_apart = 0;

    sequence_init (&s, fmts[f], &p, FALSE);
    for (i = 0; i < 2; i++) {
      n = sequence_frame (fmts[f], 9, 0, 180 + i, in);
      sequence_check (&s, in, 0, "before the failed frame");
      channels_free (in, n);
    }
    push_flush (s.h);

    hog = gpu_test_hog_memory ();
    g_object_set (s.h->element, "mask-location", path, NULL);
    n = sequence_frame (fmts[f], 9, 0, 182, in);
    fail_if (gst_harness_push (s.h, frame_from_channels (fmts[f], W, H, in,
                FALSE, 182)) == GST_FLOW_OK, "%s: a frame went through "
        "without its mask's memory", fmts[f]);
    gpu_test_free_hog (hog);
    assert_error_names (s.h, "uploading the strength mask");
    channels_free (in, n);

    n = sequence_frame (fmts[f], 9, 0, 183, in);
    filter_frame (s.h, fmts[f], W, H, frame_from_channels (fmts[f], W, H, in,
            FALSE, 183), out);
    n_filtered = channels_temporal_for_format (&info, in, NULL, &p, FALSE,
        STRENGTH, SIGMA, spatial);
    channels_temporal_for_format (&info, in, s.prev, &p, FALSE, STRENGTH,
        SIGMA, blended);
    for (c = 0; c < n_filtered; c++) {
      gint cw = out[c].width, edge = cw / 2;

      for (y = 0; y < out[c].height; y++)
        for (x = 0; x < cw; x++) {
          gsize k = (gsize) y * cw + x;
          gint got = out[c].data[k];

          if (x < edge - 2) {
            fail_unless (got == in[c].data[k], "%s component %u (%d, %d): "
                "%d where the mask is 0, the input %d (the mask was not "
                "uploaded again)", fmts[f], c, x, y, got, in[c].data[k]);
            filtered_apart += ABS ((gint) spatial[c].data[k] -
                in[c].data[k]) > 0;
          } else if (x >= edge + 2) {
            fail_unless (ABS (got - (gint) spatial[c].data[k]) <= tol,
                "%s component %u (%d, %d): %d, the spatial result %d "
                "(blended with the frames before the failed one: %d)",
                fmts[f], c, x, y, got, spatial[c].data[k], blended[c].data[k]);
            blended_apart += ABS ((gint) blended[c].data[k] -
                spatial[c].data[k]) > tol;
          }
        }
    }
    fail_unless (blended_apart > 0 && filtered_apart > 0, "%s: the check "
        "cannot tell (%u samples blended apart, %u filtered apart)", fmts[f],
        blended_apart, filtered_apart);
    channels_free (spatial, n_filtered);
    channels_free (blended, n_filtered);
    channels_free (in, n);
    channels_free (out, n);
    sequence_clear (&s);
  }
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_free (mask);
}

GST_END_TEST;

static Suite *
temporal_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-temporal", 900, &tc);

  tcase_add_test (tc, test_temporal_sequence_every_format);
  tcase_add_test (tc, test_temporal_radii);
  tcase_add_test (tc, test_temporal_modes);
  tcase_add_test (tc, test_temporal_resets);
  tcase_add_test (tc, test_temporal_step_passes);
  tcase_add_test (tc, test_temporal_strength_zero);
  tcase_add_test (tc, test_temporal_with_mask);
  tcase_add_test (tc, test_temporal_plane_switches);
  tcase_add_test (tc, test_temporal_failed_frame);
  return s;
}

TEST_MAIN (temporal_suite, TEST_NEEDS_GPU, "pngenc", "pngdec", NULL);
