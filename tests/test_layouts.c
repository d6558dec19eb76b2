/* cudabilateral on a GPU, frames in every layout real elements hand over:
 * every supported format with input buffers without a video meta (an
 * appsrc application's gst_buffer_new_wrapped), with a meta of padded
 * strides and moved planes, of one memory per plane, of several memories
 * across a plane, read-only and shared; output into the element's own
 * buffers, into a plain GstBufferPool that downstream proposes (with and
 * without video meta support) and into a downstream video pool whose
 * buffers are padded (GstVideoAlignment). Sizes from 1x1 to 4K. Each
 * output channel is compared with the C reference within +-1, alpha must
 * pass unchanged, the input must be untouched, and the output must come
 * from the pool it should. The 10- to 16-bit formats go through the same
 * matrix, against the double-precision deep reference (within 1 at 10
 * and 12 bits, 16 at 16 bits). Output pools are poisoned first. Also: the
 * errors for buffers that really are too small. Exits 77 without a CUDA
 * device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideopool.h>

#include "gpu_support.h"

/* The formats of 8 bits, compared with the 8-bit reference. */
static const gchar *formats[] = { GPU_TEST_8BIT_FORMATS };

/* The formats of 10 to 16 bits, compared with the double-precision deep
 * reference. */
static const gchar *deep_formats[] = { GPU_TEST_DEEP_FORMATS };

typedef enum
{
  IN_NO_META,                   /* default layout, no video meta */
  IN_META_PADDED,               /* padded strides, planes moved */
  IN_PLANE_MEMORIES,            /* padded, one memory per plane */
  IN_SPLIT_MEMORIES,            /* default layout in pieces across planes */
  IN_READONLY_SHARED,           /* read-only memory, buffer ref'd twice */
  N_IN_LAYOUTS
} InLayout;

static const gchar *in_names[] = { "no meta", "padded meta",
  "memory per plane", "split memories", "read-only shared"
};

typedef enum
{
  OUT_OWN,                      /* the element's pool */
  OUT_PLAIN_META,               /* downstream's GstBufferPool, meta known */
  OUT_PLAIN_NO_META,            /* the same, no video meta support */
  OUT_PADDED_POOL,              /* downstream's video pool, padded */
  N_OUT_LAYOUTS
} OutLayout;

static const gchar *out_names[] = { "own pool", "plain pool with meta",
  "plain pool without meta", "padded video pool"
};

static const gint sizes[][2] = { {1, 1}, {1, 23}, {23, 1}, {33, 17},
{97, 61}, {129, 63}, {255, 257}
};

static const Params params = {.diameter = 5,.sigma_color = 30,
  .sigma_space = 3
};

/* The layout of a frame: @info's own (default) or padded. */
static GstVideoInfo
layout_info (const GstVideoInfo * base, gboolean padded)
{
  return padded ? padded_info (base, 3, 1, 8, 24) :
      padded_info (base, 0, 0, 0, 0);
}

/* @in's components in a @layout frame, its bytes elsewhere random. */
static guint8 *
frame_bytes (const GstVideoInfo * base, const GstVideoInfo * layout,
    const Channel * in, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, layout->size, NULL);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFrame frame;
  GstMapInfo map;
  guint8 *bytes;
  gsize i;
  guint c;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++)
    map.data[i] = g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (base), GST_VIDEO_INFO_WIDTH (base),
      GST_VIDEO_INFO_HEIGHT (base), GST_VIDEO_INFO_N_PLANES (layout),
      (gsize *) layout->offset, (gint *) layout->stride);
  fail_unless (gst_video_frame_map (&frame, base, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (base); c++)
    write_component (&frame, c, &in[c]);
  gst_video_frame_unmap (&frame);
  bytes = g_malloc (layout->size);
  gst_buffer_extract (buf, 0, bytes, layout->size);
  gst_buffer_unref (buf);
  return bytes;
}

/* A buffer of @size bytes copied from @bytes, in memories that end at the
 * offsets @cuts (ascending, inside the buffer). */
static GstBuffer *
buffer_in_pieces (const guint8 * bytes, gsize size, const gsize * cuts,
    guint n_cuts)
{
  GstBuffer *buf = gst_buffer_new ();
  gsize start = 0;
  guint i;

  for (i = 0; i <= n_cuts; i++) {
    gsize end = i < n_cuts ? cuts[i] : size;
    guint8 *piece;

    if (end <= start)
      continue;
    piece = g_memdup2 (bytes + start, end - start);
    gst_buffer_append_memory (buf, gst_memory_new_wrapped (0, piece,
            end - start, 0, end - start, piece, g_free));
    start = end;
  }
  return buf;
}

static void
add_meta (GstBuffer * buf, const GstVideoInfo * base,
    const GstVideoInfo * layout)
{
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (base), GST_VIDEO_INFO_WIDTH (base),
      GST_VIDEO_INFO_HEIGHT (base), GST_VIDEO_INFO_N_PLANES (layout),
      (gsize *) layout->offset, (gint *) layout->stride);
}

/* The input buffer of @layout holding @in; *@bytes and *@size: what it
 * holds, to check it is left untouched. */
static GstBuffer *
input_buffer (InLayout layout, const GstVideoInfo * base, const Channel * in,
    guint32 seed, guint8 ** bytes, gsize * size)
{
  GstVideoInfo info = layout_info (base, layout == IN_META_PADDED
      || layout == IN_PLANE_MEMORIES);
  GstBuffer *buf = NULL;
  guint8 *data = frame_bytes (base, &info, in, seed);
  gsize cuts[GST_VIDEO_MAX_PLANES + 8];
  guint n = 0, p;

  *size = info.size;
  *bytes = g_memdup2 (data, info.size);
  switch (layout) {
    case IN_NO_META:
      buf = gst_buffer_new_wrapped (data, info.size);
      data = NULL;
      break;
    case IN_META_PADDED:
      buf = gst_buffer_new_wrapped (data, info.size);
      data = NULL;
      add_meta (buf, base, &info);
      break;
    case IN_PLANE_MEMORIES:
      for (p = 1; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
        cuts[n++] = info.offset[p];
      buf = buffer_in_pieces (data, info.size, cuts, n);
      add_meta (buf, base, &info);
      break;
    case IN_SPLIT_MEMORIES:
      /* Pieces of an odd size, so that rows and planes straddle them. */
      for (n = 0; n < 7 && (n + 1) * (info.size / 7 + 3) < info.size; n++)
        cuts[n] = (n + 1) * (info.size / 7 + 3);
      buf = buffer_in_pieces (data, info.size, cuts, n);
      break;
    case IN_READONLY_SHARED:
      buf = gst_buffer_new ();
      gst_buffer_append_memory (buf,
          gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, data, info.size,
              0, info.size, data, g_free));
      data = NULL;
      break;
    default:
      g_assert_not_reached ();
  }
  g_free (data);
  return buf;
}

/* The pool downstream offers for @out, or NULL. */
static GstBufferPool *
downstream_pool (OutLayout out, const GstVideoInfo * info, GstCaps * caps)
{
  GstBufferPool *pool;
  GstStructure *config;

  if (out == OUT_OWN)
    return NULL;
  if (out != OUT_PADDED_POOL) {
    pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, info->size, 0, 0);
  } else {
    GstVideoAlignment align;
    GstVideoInfo padded = layout_info (info, TRUE);

    pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, padded.size, 0, 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    gst_video_alignment_reset (&align);
    align.padding_left = 16;
    align.padding_right = 48;
    align.padding_bottom = 2;
    gst_buffer_pool_config_set_video_alignment (config, &align);
  }
  fail_unless (gst_buffer_pool_set_config (pool, config));
  return pool;
}

/* The output components of @result, a frame of @info, against the
 * reference of @in: colour within the format's tolerance (+-1; the 16-bit
 * formats within 16), alpha exact. */
static void
check_output (const GstVideoInfo * info, GstBuffer * result,
    const Channel * in, const gchar * format, const gchar * what)
{
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), n_expected, c;
  gint tolerance = format_tolerance (GST_VIDEO_INFO_FORMAT (info));
  Channel out[GST_VIDEO_MAX_COMPONENTS];
  Channel expected[GST_VIDEO_MAX_COMPONENTS];
  GstVideoFrame frame;

  fail_unless (gst_video_frame_map (&frame, info, result, GST_MAP_READ));
  for (c = 0; c < n; c++)
    out[c] = read_component (&frame, c);
  n_expected = channels_reference_for_format (info, in, &params, expected);
  fail_unless_equals_int (n_expected, GST_VIDEO_INFO_HAS_ALPHA (info) ?
      n - 1 : n);
  for (c = 0; c < n_expected; c++)
    assert_channel_matches (&out[c], &expected[c], tolerance, what, format, c);
  for (c = n_expected; c < n; c++)      /* alpha */
    assert_channel_matches (&out[c], &in[c], 0, what, format, c);
  channels_free (out, n);
  channels_free (expected, n_expected);
  gst_video_frame_unmap (&frame);
}

/* One frame: @format (8-bit or deep) at @w x @h, input @in_layout, output
 * @out_layout. */
static void
check_layout (const gchar * format, gint w, gint h, InLayout in_layout,
    OutLayout out_layout, guint32 seed)
{
  GstVideoInfo info = info_for (format, w, h);
  GstCaps *caps = caps_for (format, w, h);
  GstHarness *harness = gst_harness_new ("cudabilateral");
  GstBufferPool *pool = downstream_pool (out_layout, &info, caps);
  Channel in[GST_VIDEO_MAX_COMPONENTS];
  guint n = GST_VIDEO_INFO_N_COMPONENTS (&info);
  GstBuffer *buf, *result;
  GstMapInfo map;
  guint8 *bytes;
  gsize size;
  gchar *what = g_strdup_printf ("%dx%d, %s in, %s out", w, h,
      in_names[in_layout], out_names[out_layout]);

  params_apply (harness->element, &params);
  if (pool)
    gpu_test_offer_pool (harness, pool);
  if (out_layout == OUT_PLAIN_META || out_layout == OUT_PADDED_POOL)
    gst_harness_add_propose_allocation_meta (harness, GST_VIDEO_META_API_TYPE,
        NULL);
  gst_harness_set_caps (harness, gst_caps_ref (caps), gst_caps_ref (caps));

  fail_unless_equals_int (channels_for_format (format, w, h, seed, in), n);
  buf = input_buffer (in_layout, &info, in, seed, &bytes, &size);
  if (in_layout == IN_READONLY_SHARED)
    gst_buffer_ref (buf);       /* shared with another branch, say */
  gpu_test_poison_output_pool (harness->element);
  result = gst_harness_push_and_pull (harness, in_layout == IN_READONLY_SHARED
      ? buf : gst_buffer_ref (buf));
  fail_unless (result != NULL, "%s %s: no output buffer", format, what);

  /* Where the output went. */
  if (pool)
    fail_unless (result->pool == pool, "%s %s: output not from downstream's "
        "pool", format, what);
  else
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (result, 0),
            "CbfPinnedMemory"), "%s %s: output not pinned", format, what);
  if (out_layout == OUT_PADDED_POOL) {
    GstVideoMeta *meta = gst_buffer_get_video_meta (result);

    fail_unless (meta && meta->stride[0] > GST_VIDEO_INFO_PLANE_STRIDE (&info,
            0), "%s %s: output not padded", format, what);
  }

  check_output (&info, result, in, format, what);

  /* The input is as it was. */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.size == size && memcmp (map.data, bytes, size) == 0,
      "%s %s: the input buffer was changed", format, what);
  gst_buffer_unmap (buf, &map);

  GST_INFO ("%s %s: ok", format, what);
  gst_buffer_unref (buf);
  gst_buffer_unref (result);
  channels_free (in, n);
  g_free (bytes);
  g_free (what);
  gst_harness_teardown (harness);
  if (pool)
    gst_object_unref (pool);
  gst_caps_unref (caps);
}

/* Every format meets every input layout, and with it an output layout
 * and a size, so that every format meets every output layout too and
 * every layout every size. */
GST_START_TEST (test_every_layout)
{
  guint f, l, n_checked = 0;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (l = 0; l < N_IN_LAYOUTS; l++) {
      const gint *size = sizes[(f * N_IN_LAYOUTS + l) % G_N_ELEMENTS (sizes)];

      check_layout (formats[f], size[0], size[1], l, (f + l) % N_OUT_LAYOUTS,
          f * 100 + l);
      n_checked++;
    }
  fail_unless_equals_int (n_checked, G_N_ELEMENTS (formats) * N_IN_LAYOUTS);
}

GST_END_TEST;

/* The same matrix for the deep formats: every one meets every input
 * layout (three of them without a video meta), and with it an output
 * layout and a size, in another order than the 8-bit formats', so that
 * each deep format meets every output layout too. */
GST_START_TEST (test_every_layout_deep)
{
  guint f, l, n_checked = 0;

  for (f = 0; f < G_N_ELEMENTS (deep_formats); f++)
    for (l = 0; l < N_IN_LAYOUTS; l++) {
      const gint *size = sizes[(f * N_IN_LAYOUTS + l + 3) %
          G_N_ELEMENTS (sizes)];

      check_layout (deep_formats[f], size[0], size[1], l,
          (f + 2 * l) % N_OUT_LAYOUTS, 9000 + f * 100 + l);
      n_checked++;
    }
  fail_unless_equals_int (n_checked, G_N_ELEMENTS (deep_formats) *
      N_IN_LAYOUTS);
}

GST_END_TEST;

/* One frame of a format and size through an input and an output layout. */
typedef struct
{
  const gchar *format;
  gint w, h;
  InLayout in;
  OutLayout out;
} LayoutCase;

static void
check_layout_cases (const LayoutCase * cases, guint n, guint32 seed)
{
  guint i;

  for (i = 0; i < n; i++)
    check_layout (cases[i].format, cases[i].w, cases[i].h, cases[i].in,
        cases[i].out, seed + i);
}

/* Larger deep frames without a video meta: 720p P010 (the HEVC Main 10
 * decoders' format) into a plain pool, and odd sizes in pieces and
 * read-only. */
GST_START_TEST (test_deep_large_without_meta)
{
  static const LayoutCase cases[] = {
    {"P010_10LE", 1280, 720, IN_NO_META, OUT_PLAIN_NO_META},
    {"RGBA64_LE", 641, 359, IN_SPLIT_MEMORIES, OUT_PADDED_POOL},
    {"I422_12LE", 333, 191, IN_READONLY_SHARED, OUT_OWN},
    {"BGR10A2_LE", 257, 131, IN_NO_META, OUT_PLAIN_META},
  };

  check_layout_cases (cases, G_N_ELEMENTS (cases), 9900);
}

GST_END_TEST;

/* 4K, and prime and odd sizes of the other kinds of format. */
GST_START_TEST (test_large_and_prime)
{
  static const LayoutCase cases[] = {
    {"I420", 3840, 2160, IN_NO_META, OUT_PLAIN_NO_META},
    {"NV12", 3840, 2160, IN_SPLIT_MEMORIES, OUT_OWN},
    {"RGBA", 3840, 2160, IN_META_PADDED, OUT_PADDED_POOL},
    {"YUY2", 3840, 2160, IN_READONLY_SHARED, OUT_PLAIN_META},
    {"Y444", 1917, 1079, IN_PLANE_MEMORIES, OUT_OWN},
    {"NV21", 127, 131, IN_NO_META, OUT_PADDED_POOL},
    {"RGB", 257, 1, IN_SPLIT_MEMORIES, OUT_PLAIN_NO_META},
    {"GRAY8", 1, 1031, IN_META_PADDED, OUT_PLAIN_META},
  };

  check_layout_cases (cases, G_N_ELEMENTS (cases), 7000);
}

GST_END_TEST;

/* The first element error on @bus, whose message must contain @text. */
static void
assert_error_says (GstBus * bus, const gchar * text)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;

  fail_unless (msg != NULL, "no element error");
  gst_message_parse_error (msg, &error, NULL);
  GST_INFO ("error: %s", error->message);
  fail_unless (strstr (error->message, text) != NULL, "\"%s\" does not say "
      "\"%s\"", error->message, text);
  g_error_free (error);
  gst_message_unref (msg);
}

/* Buffers that really are too small: without a meta the error gives the
 * buffer's and the caps' sizes, with one the plane that lies outside. */
GST_START_TEST (test_too_small)
{
  GstVideoInfo info = info_for ("I420", 64, 48);
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  GstBuffer *buf;
  gchar *text;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_caps (h, caps_for ("I420", 64, 48), caps_for ("I420", 64,
          48));

  buf = gst_buffer_new_allocate (NULL, info.size - 1, NULL);
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  text = g_strdup_printf ("buffer of %" G_GSIZE_FORMAT " bytes, caps need %"
      G_GSIZE_FORMAT, info.size - 1, info.size);
  assert_error_says (bus, text);
  g_free (text);

  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0, 64 * 48, 64 * 48 + 32 * 30 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 64, 32, 32 };

    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_I420, 64, 48, 3, offset, stride);
  }
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  assert_error_says (bus, "plane 2");

  /* The element goes on: a good frame, in the default layout. */
  check_layout ("I420", 64, 48, IN_NO_META, OUT_OWN, 5);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
layouts_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-layouts", 900, &tc);

  tcase_add_test (tc, test_every_layout);
  tcase_add_test (tc, test_every_layout_deep);
  tcase_add_test (tc, test_deep_large_without_meta);
  tcase_add_test (tc, test_large_and_prime);
  tcase_add_test (tc, test_too_small);
  return s;
}

TEST_MAIN (layouts_suite, TEST_NEEDS_GPU, NULL);
