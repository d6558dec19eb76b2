/* cudabilateral on frames in CUDA memory (memory:CUDAMemory, GStreamer's
 * GstCudaMemory): cudaupload ! cudabilateral ! cudadownload gives the very
 * bytes the system-memory path gives, and the C reference within +-1; two
 * cudabilateral in a row share one CUDA context with cudaupload; without
 * a capsfilter, cudaupload ! cudabilateral ! cudadownload, two filters in
 * a row and nvh264dec ! cudabilateral negotiate CUDA memory; since
 * GStreamer 1.24, a frame whose producer's work is still pending on the
 * producer's own stream is waited for; CUDA memory shorter than its frame
 * is refused; and a cuda-device-id that does not exist is a clear error.
 * The element's modes, mask, filter-chroma and temporal filter in CUDA
 * memory are tested in test_cuda_memory_features, with the helpers of
 * cuda_memory_support.c. Exits 77 without a CUDA device or without
 * GStreamer's nvcodec elements. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <cuda_runtime_api.h>

#include "cuda_memory_support.h"
#include "gpu_support.h"

#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/video/video.h>

#include "reference.h"

static GstElement *
first_by_factory (GstHarness * h, const gchar * factory)
{
  GstIterator *it = gst_bin_iterate_all_by_element_factory_name (GST_BIN
      (h->element), factory);
  GValue item = G_VALUE_INIT;
  GstElement *e;

  fail_unless (gst_iterator_next (it, &item) == GST_ITERATOR_OK, "no %s",
      factory);
  e = g_value_dup_object (&item);
  g_value_unset (&item);
  gst_iterator_free (it);
  return e;
}

/* Whether the GStreamer running the test allocates CUDA memory for NV21
 * of odd height one chroma row short (1.24 and later), so that cudaupload
 * fails to upload such frames. */
static gboolean
cuda_nv21_odd_height_broken (void)
{
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  return major > 1 || minor >= 24;
}

/* Every format cudaupload takes, odd sizes, luma and chroma radii in the
 * specialised and generic kernels: each channel against the reference. */
GST_START_TEST (test_cuda_memory_equals_reference)
{
  static const gchar *fmts[] = { "RGBA", "BGRx", "ARGB", "RGB", "BGR", "Y444",
    "I420", "YV12", "NV12", "NV21", "YUY2", "UYVY"
  };
  static const Params params[] = {
    {.diameter = 9,.sigma_color = 30,.sigma_space = 4},
    {.diameter = 71,.sigma_color = 25,.sigma_space = 12}
  };
  /* Odd widths except for YUY2 and UYVY: GStreamer 1.22's CUDA copies
   * (gst_cuda_buffer_copy, used by cudaupload and cudadownload) copy
   * width x 2 bytes of their rows, losing the V of an odd width's last
   * macro-pixel both ways. */
  static const gint sizes[][2] = { {97, 61}, {320, 240} };
  static const gint sizes_422[][2] = { {98, 61}, {320, 240} };
  guint f, p, s, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (p = 0; p < G_N_ELEMENTS (params); p++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
        GstVideoInfo info = info_for (fmts[f], 2, 2);
        gboolean is_422 = GST_VIDEO_INFO_N_PLANES (&info) == 1
            && GST_VIDEO_INFO_IS_YUV (&info);
        gint w = is_422 ? sizes_422[s][0] : sizes[s][0];
        gint h = is_422 ? sizes_422[s][1] : sizes[s][1];
        GstHarness *harness;
        Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
        Channel expected[GST_VIDEO_MAX_COMPONENTS];
        GstElement *filter;
        guint n_comp;

        if (h % 2 && g_str_equal (fmts[f], "NV21") &&
            cuda_nv21_odd_height_broken ())
          h++;
        harness = cuda_harness_new (fmts[f], w, h, &params[p],
            "cudabilateral name=f");
        info = info_for (fmts[f], w, h);
        n_comp = GST_VIDEO_INFO_N_COMPONENTS (&info);

        channels_for_format (fmts[f], w, h, 7 * f + p, in);
        push_and_read_channels (harness, fmts[f], w, h,
            frame_from_channels (fmts[f], w, h, in, s % 2, f), out);
        filter = filter_named (harness, "f");
        assert_cuda_caps (filter);
        gst_object_unref (filter);

        fail_unless_equals_int (channels_reference_for_format (&info, in,
                &params[p], expected), 3);
        for (c = 0; c < 3; c++)
          assert_channel_matches (&out[c], &expected[c], 1,
              "cudaupload ! cudabilateral ! cudadownload", fmts[f], c);
        /* Alpha passes unchanged. */
        for (c = 3; c < n_comp; c++)
          assert_channel_matches (&out[c], &in[c], 0, "alpha", fmts[f], c);
        /* And the system-memory path gives the very same bytes. */
        {
          GstHarness *sys = gst_harness_new ("cudabilateral");
          Channel sys_out[GST_VIDEO_MAX_COMPONENTS];

          g_object_set (sys->element, "diameter", params[p].diameter,
              "sigma-color", params[p].sigma_color, "sigma-space",
              params[p].sigma_space, NULL);
          gst_harness_set_caps (sys, caps_for (fmts[f], w, h),
              caps_for (fmts[f], w, h));
          filter_frame (sys, fmts[f], w, h,
              frame_from_channels (fmts[f], w, h, in, s % 2, f), sys_out);
          for (c = 0; c < n_comp; c++)
            assert_channel_matches (&out[c], &sys_out[c], 0,
                "CUDA memory against system memory", fmts[f], c);
          channels_free (sys_out, n_comp);
          gst_harness_teardown (sys);
        }
        channels_free (in, n_comp);
        channels_free (out, n_comp);
        channels_free (expected, 3);
        gst_harness_teardown (harness);
      }
}

GST_END_TEST;

/* The CUDA context an element answers a context query with. */
static GstCudaContext *
context_of (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *ctx = NULL;
  GstContext *context = NULL;

  fail_unless (gst_element_query (element, query), "%s has no CUDA context",
      GST_ELEMENT_NAME (element));
  gst_query_parse_context (query, &context);
  fail_unless (context != NULL);
  fail_unless (gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &ctx, NULL));
  gst_query_unref (query);
  return ctx;
}

/* A CUDA pool of @ctx for frames of @caps, active. */
static GstBufferPool *
active_cuda_pool (GstCudaContext * ctx, GstCaps * caps)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

/* Two filters in a row on CUDA memory: one context for the three CUDA
 * elements, and the output is the reference applied twice. */
GST_START_TEST (test_two_filters_share_a_context)
{
  Params p = {.diameter = 7,.sigma_color = 35,.sigma_space = 3 };
  gint w = 130, h = 67;
  GstHarness *harness = cuda_harness_new ("NV12", w, h, &p,
      "cudabilateral name=a ! " CUDA_CAPS ("NV12") " ! cudabilateral name=b");
  GstElement *a, *b, *upload;
  GstCudaContext *ctx_a, *ctx_b, *ctx_upload;
  Channel in[3], out[3];
  guint c;

  channels_for_format ("NV12", w, h, 3, in);
  push_and_read_channels (harness, "NV12", w, h,
      frame_from_channels ("NV12", w, h, in, TRUE, 3), out);
  a = filter_named (harness, "a");
  b = filter_named (harness, "b");
  assert_cuda_caps (a);
  assert_cuda_caps (b);
  upload = first_by_factory (harness, "cudaupload");
  ctx_a = context_of (a);
  ctx_b = context_of (b);
  ctx_upload = context_of (upload);
  fail_unless (ctx_a == ctx_b, "the two filters have different contexts");
  fail_unless (ctx_a == ctx_upload, "cudaupload has another context");

  for (c = 0; c < 3; c++) {
    Channel once = channel_reference (&in[c], &p, c > 0);
    Channel twice = channel_reference (&once, &p, c > 0);

    /* Within 1, as this check has held since it was written (two rounds
     * of +-1 could add up to 2, but the 8-bit comparison it was written
     * with allowed no value off by more than 1). */
    assert_channel_matches (&out[c], &twice, 1, "two filters", "NV12", c);
    channels_free (&once, 1);
    channels_free (&twice, 1);
  }
  gst_object_unref (ctx_a);
  gst_object_unref (ctx_b);
  gst_object_unref (ctx_upload);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (upload);
  channels_free (in, 3);
  channels_free (out, 3);
  gst_harness_teardown (harness);
}

GST_END_TEST;

/* A CUDA-memory frame from @pool holding @in, uploaded and finished. */
static GstBuffer *
cuda_frame_from_channels (GstBufferPool * pool, const gchar * format,
    gint width, gint height, const Channel * in)
{
  GstVideoInfo info = info_for (format, width, height);
  GstVideoFrame frame;
  GstBuffer *buf;
  guint c;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
    write_component (&frame, c, &in[c]);
  gst_video_frame_unmap (&frame);
  /* A device map uploads what the host map wrote, synchronously for memory
   * without a stream of its own. */
  fail_unless (gst_video_frame_map (&frame, &info, buf,
          GST_MAP_READ | GST_MAP_CUDA));
  gst_video_frame_unmap (&frame);
  return buf;
}

/* Filters in a row on CUDA memory over hundreds of frames that differ from
 * one frame to the next, pushed as fast as the elements take them and read
 * back only at the end, so that every element's work is still queued when
 * the next frame comes: each filter writes into buffers the next one may
 * still be reading (the next one's pool), and each output must be the
 * reference of filtering as many times, never a mix of frames. */
static void
check_filters_in_a_row (guint n_filters)
{
  const gint w = 320, h = 180, n_inputs = 6, n_frames = 300;
  Params p = {.diameter = 9,.sigma_color = 30,.sigma_space = 3 };
  GString *desc = g_string_new (NULL);
  GstHarness *harness;
  GstCaps *caps = caps_for ("NV12", w, h);
  GstElement *first;
  GstCudaContext *ctx;
  GstBufferPool *pool;
  GstBuffer *inputs[6];
  Channel in[6][3], expected[6][3];
  gint i, k;
  guint f, c;

  for (f = 0; f < n_filters; f++)
    g_string_append_printf (desc, "%scudabilateral name=f%u diameter=%d "
        "sigma-color=%g sigma-space=%g", f ? " ! " CUDA_CAPS ("NV12") " ! " :
        "", f, p.diameter, p.sigma_color, p.sigma_space);
  harness = gst_harness_new_parse (desc->str);
  gst_caps_set_features (caps, 0, gst_caps_features_new ("memory:CUDAMemory",
          NULL));
  gst_harness_set_caps (harness, gst_caps_ref (caps), gst_caps_ref (caps));
  first = filter_named (harness, "f0");
  ctx = context_of (first);
  pool = active_cuda_pool (ctx, caps);
  for (i = 0; i < n_inputs; i++) {
    channels_for_format ("NV12", w, h, 300 + i, in[i]);
    inputs[i] = cuda_frame_from_channels (pool, "NV12", w, h, in[i]);
    for (c = 0; c < 3; c++) {
      Channel cur = channel_reference (&in[i][c], &p, c > 0);

      for (f = 1; f < n_filters; f++) {
        Channel next = channel_reference (&cur, &p, c > 0);

        channels_free (&cur, 1);
        cur = next;
      }
      expected[i][c] = cur;
    }
  }

  /* (The frame picked before the check: a '%' in the macro's argument
   * would become part of its message's format.) */
  for (k = 0; k < n_frames; k++) {
    GstBuffer *frame = gst_buffer_ref (inputs[k % n_inputs]);
    GstFlowReturn ret = gst_harness_push (harness, frame);

    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  for (k = 0; k < n_frames; k++) {
    GstBuffer *out = gst_harness_pull (harness);
    GstVideoInfo info = info_for ("NV12", w, h);
    GstVideoFrame frame;
    gchar *what = g_strdup_printf ("frame %d of %d through %u filters", k,
        n_frames, n_filters);

    fail_unless (out != NULL, "%s: no output", what);
    fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
    for (c = 0; c < 3; c++) {
      Channel got = read_component (&frame, c);

      /* Within 1, as this check has held since it was written (n rounds of
       * +-1 could add up to n, but the 8-bit comparison it was written with
       * allowed no value off by more than 1). */
      assert_channel_matches (&got, &expected[k % n_inputs][c], 1, what,
          "NV12", c);
      channels_free (&got, 1);
    }
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
    g_free (what);
  }

  for (i = 0; i < n_inputs; i++) {
    gst_buffer_unref (inputs[i]);
    channels_free (in[i], 3);
    channels_free (expected[i], 3);
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_object_unref (ctx);
  gst_object_unref (first);
  gst_caps_unref (caps);
  gst_harness_teardown (harness);
  g_string_free (desc, TRUE);
}

GST_START_TEST (test_filters_in_a_row)
{
  check_filters_in_a_row (2);
  check_filters_in_a_row (3);
}

GST_END_TEST;

/* Runs @description to EOS and checks that the element(s) named in @names
 * negotiated CUDA memory. */
static void
assert_pipeline_in_cuda_memory (const gchar * description,
    const gchar * const *names)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstBus *bus;
  GstMessage *msg;
  guint i;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: no EOS in 60 s", description);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    fail ("%s: %s", description, error->message);
  }
  gst_message_unref (msg);
  for (i = 0; names[i]; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), names[i]);

    fail_unless (e != NULL);
    assert_cuda_caps (e);
    gst_object_unref (e);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

/* Where the user means the GPU, frames stay on it without a capsfilter:
 * the element answers caps queries with CUDA memory first. */
GST_START_TEST (test_negotiates_cuda_memory)
{
  static const gchar *one[] = { "f", NULL }, *two[] = { "a", "b", NULL };
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h264parse ! nvh264dec ! cudabilateral name=f ! cudadownload ! "
      "fakesink", CBF_DEFAULT_CLIP);

  assert_pipeline_in_cuda_memory ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=160,height=90 ! cudaupload ! "
      "cudabilateral name=f ! cudadownload ! fakesink", one);
  assert_pipeline_in_cuda_memory ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=160,height=90 ! cudaupload ! "
      "cudabilateral name=a ! cudabilateral name=b ! cudadownload ! "
      "videoconvert ! fakesink", two);
  fail_unless (g_file_test (CBF_DEFAULT_CLIP, G_FILE_TEST_EXISTS),
      "no clip at %s", CBF_DEFAULT_CLIP);
  assert_pipeline_in_cuda_memory (desc, one);
  g_free (desc);
}

GST_END_TEST;

#if GST_CHECK_VERSION (1, 24, 0)
/* An upstream that leaves its work pending on a stream of its own, as
 * GStreamer 1.24's CUDA elements do: its frame is written by a copy queued
 * behind about 20 ms of other work on that stream, and pushed at once
 * (TRANSFER_NEED_SYNC). The element must wait for it: the output is the
 * reference of the frame, not of the zeros the memory held before. A frame
 * goes through first, so that the element's first-frame allocations
 * (which synchronise the device) are done. */
GST_START_TEST (test_waits_for_upstream_stream)
{
  const gint w = 1920, h = 1080;
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  GstCaps *caps = caps_for ("RGBA", w, h);
  GstHarness *harness = gst_harness_new ("cudabilateral");
  GstCudaContext *ctx;
  GstCudaStream *stream;
  GstBufferPool *pool;
  GstStructure *config;
  GstBuffer *buf, *out;
  GstVideoInfo info;
  GstVideoFrame frame;
  Channel in[4], result[4], expected[3];
  guint8 *host, *busy;
  cudaStream_t s;
  gint x, y, i;
  guint c;

  gst_caps_set_features (caps, 0, gst_caps_features_new ("memory:CUDAMemory",
          NULL));
  params_apply (harness->element, &p);
  gst_harness_set_caps (harness, gst_caps_ref (caps), gst_caps_ref (caps));
  ctx = context_of (harness->element);

  /* Upstream: a pool of the element's context on a stream of its own. */
  stream = gst_cuda_stream_new (ctx);
  fail_unless (stream != NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  pool = gst_cuda_buffer_pool_new (ctx);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_set_cuda_stream (config, stream);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  {
    GstBuffer *warm;

    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &warm,
            NULL), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_push_and_pull (harness, warm));
  }
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);

  channels_for_format ("RGBA", w, h, 77, in);
  fail_unless (cudaMallocHost ((void **) &host, (gsize) w * h * 4) ==
      cudaSuccess);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (c = 0; c < 4; c++)
        host[((gsize) y * w + x) * 4 + c] = in[c].data[(gsize) y * w + x];

  fail_unless (gst_cuda_context_push (ctx));
  s = (cudaStream_t) gst_cuda_stream_get_handle (stream);
  fail_unless (cudaMalloc ((void **) &busy, 1 << 30) == cudaSuccess);
  fail_unless (gst_video_frame_map (&frame, &info, buf,
          GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (cudaMemset2D (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), 0, (gsize) w * 4, h) ==
      cudaSuccess);
  for (i = 0; i < 60; i++)
    fail_unless (cudaMemsetAsync (busy, i, 1 << 30, s) == cudaSuccess);
  fail_unless (cudaMemcpy2DAsync (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
          GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), host, (gsize) w * 4,
          (gsize) w * 4, h, cudaMemcpyHostToDevice, s) == cudaSuccess);
  gst_video_frame_unmap (&frame);
  gst_cuda_context_pop (NULL);
  fail_unless (GST_MEMORY_FLAG_IS_SET (gst_buffer_peek_memory (buf, 0),
          GST_CUDA_MEMORY_TRANSFER_NEED_SYNC));

  out = gst_harness_push_and_pull (harness, buf);
  fail_unless (out != NULL);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (c = 0; c < 4; c++)
    result[c] = read_component (&frame, c);
  gst_video_frame_unmap (&frame);
  fail_unless_equals_int (channels_reference_for_format (&info, in, &p,
          expected), 3);
  for (c = 0; c < 3; c++)
    assert_channel_matches (&result[c], &expected[c], 1,
        "a frame still being written upstream", "RGBA", c);

  gst_buffer_unref (out);
  fail_unless (gst_cuda_context_push (ctx));
  cudaStreamSynchronize (s);
  cudaFree (busy);
  cudaFreeHost (host);
  gst_cuda_context_pop (NULL);
  channels_free (in, 4);
  channels_free (result, 4);
  channels_free (expected, 3);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_cuda_stream_unref (stream);
  gst_object_unref (ctx);
  gst_caps_unref (caps);
  gst_harness_teardown (harness);
}

GST_END_TEST;

/* A downstream that reads its input on a stream of its own and returns at
 * once, as GStreamer 1.24's CUDA elements do, and proposed its pool (whose
 * buffers carry that stream): the buffer it read goes back to the pool with
 * the read still queued. The element's next frame takes that buffer again
 * (a pool of one) and must not write it before the read is done: the read
 * is queued behind about 20 ms of other work, and must see the first
 * frame's output, not the second's. */
GST_START_TEST (test_waits_for_downstream_reader)
{
  const gint w = 640, h = 360;
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  GstCaps *caps = caps_for ("RGBA", w, h);
  GstVideoInfo sys = info_for ("RGBA", w, h);
  GstHarness *harness = gst_harness_new ("cudabilateral");
  GstCudaContext *ctx = context_of (harness->element);
  GstCudaStream *stream = gst_cuda_stream_new (ctx);
  GstBufferPool *down_pool, *up_pool;
  GstStructure *config;
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *out, *host, *inputs[2];
  GstMapInfo map;
  Channel in[2][4], expected[2][3], seen[4], second[4];
  guint8 *busy, *copy;
  gsize row = (gsize) w * 4;
  cudaStream_t s;
  gint i, f;
  guint c;

  fail_unless (stream != NULL);
  gst_caps_set_features (caps, 0, gst_caps_features_new ("memory:CUDAMemory",
          NULL));
  fail_unless (gst_video_info_from_caps (&info, caps));
  params_apply (harness->element, &p);
  down_pool = gst_cuda_buffer_pool_new (ctx);
  config = gst_buffer_pool_get_config (down_pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, info.size, 1, 1);
  gst_buffer_pool_config_set_cuda_stream (config, stream);
  fail_unless (gst_buffer_pool_set_config (down_pool, config));
  gpu_test_offer_pool (harness, down_pool);
  gst_harness_set_caps (harness, gst_caps_ref (caps), gst_caps_ref (caps));
  up_pool = active_cuda_pool (ctx, caps);

  /* Both inputs uploaded first: an upload waits for the legacy default
   * stream, which waits for downstream's (blocking) stream, and would
   * finish its read before the second frame. */
  for (f = 0; f < 2; f++) {
    channels_for_format ("RGBA", w, h, 500 + f, in[f]);
    fail_unless_equals_int (channels_reference_for_format (&sys, in[f], &p,
            expected[f]), 3);
    inputs[f] = cuda_frame_from_channels (up_pool, "RGBA", w, h, in[f]);
  }
  fail_unless (gst_cuda_context_push (ctx));
  s = (cudaStream_t) gst_cuda_stream_get_handle (stream);
  fail_unless (cudaMalloc ((void **) &busy, 1 << 30) == cudaSuccess);
  fail_unless (cudaMalloc ((void **) &copy, row * h) == cudaSuccess);
  gst_cuda_context_pop (NULL);

  out = gst_harness_push_and_pull (harness, inputs[0]);
  fail_unless (out != NULL);
  fail_unless (out->pool == down_pool, "the output is not from the pool "
      "downstream proposed");
  /* Downstream's read, queued on its stream behind other work. */
  fail_unless (gst_video_frame_map (&frame, &info, out,
          GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (ctx));
  for (i = 0; i < 60; i++)
    fail_unless (cudaMemsetAsync (busy, i, 1 << 30, s) == cudaSuccess);
  fail_unless (cudaMemcpy2DAsync (copy, row, GST_VIDEO_FRAME_PLANE_DATA
          (&frame, 0), GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), row, h,
          cudaMemcpyDeviceToDevice, s) == cudaSuccess);
  gst_cuda_context_pop (NULL);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);

  out = gst_harness_push_and_pull (harness, inputs[1]);
  fail_unless (out != NULL);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (c = 0; c < 4; c++)
    second[c] = read_component (&frame, c);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);

  /* What downstream's read saw. */
  host = gst_buffer_new_allocate (NULL, row * h, NULL);
  fail_unless (gst_buffer_map (host, &map, GST_MAP_WRITE));
  fail_unless (gst_cuda_context_push (ctx));
  fail_unless (cudaStreamSynchronize (s) == cudaSuccess);
  fail_unless (cudaMemcpy (map.data, copy, row * h,
          cudaMemcpyDeviceToHost) == cudaSuccess);
  gst_cuda_context_pop (NULL);
  gst_buffer_unmap (host, &map);
  fail_unless (gst_video_frame_map (&frame, &sys, host, GST_MAP_READ));
  for (c = 0; c < 4; c++)
    seen[c] = read_component (&frame, c);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (host);
  for (c = 0; c < 3; c++) {
    assert_channel_matches (&seen[c], &expected[0][c], 1,
        "downstream's queued read of the first frame", "RGBA", c);
    assert_channel_matches (&second[c], &expected[1][c], 1,
        "the second frame", "RGBA", c);
  }

  fail_unless (gst_cuda_context_push (ctx));
  cudaFree (busy);
  cudaFree (copy);
  gst_cuda_context_pop (NULL);
  for (f = 0; f < 2; f++) {
    channels_free (in[f], 4);
    channels_free (expected[f], 3);
  }
  channels_free (seen, 4);
  channels_free (second, 4);
  gst_buffer_pool_set_active (up_pool, FALSE);
  gst_object_unref (up_pool);
  gst_harness_teardown (harness);
  gst_object_unref (down_pool);
  gst_cuda_stream_unref (stream);
  gst_object_unref (ctx);
  gst_caps_unref (caps);
}

GST_END_TEST;
#endif

/* CUDA memory that ends before the frame its caps and meta describe (as
 * GStreamer 1.24's allocator makes NV21 of odd height, a chroma row short)
 * is an element error naming the plane, never read past its end; memory a
 * row taller than the caps, described so by its meta, is filtered, into
 * the element's own pool, which it makes a row taller for such frames. */
GST_START_TEST (test_short_cuda_memory_refused)
{
  GstCaps *caps = caps_for ("NV21", 97, 61);
  GstCaps *small_caps = caps_for ("NV21", 97, 31);
  GstCaps *tall_caps = caps_for ("NV21", 97, 62);
  GstHarness *harness = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  GstCudaContext *ctx;
  GstBufferPool *small, *tall;
  GstBuffer *pooled, *buf, *out;
  GstVideoMeta *meta;
  GstMessage *msg;
  GError *error = NULL;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0, };

  gst_caps_set_features (caps, 0, gst_caps_features_new ("memory:CUDAMemory",
          NULL));
  gst_element_set_bus (harness->element, bus);
  gst_harness_set_caps (harness, gst_caps_ref (caps), gst_caps_ref (caps));
  ctx = context_of (harness->element);

  /* Memory of a 97x31 frame, its meta claiming 97x61 at the same pitch. */
  small = active_cuda_pool (ctx, small_caps);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (small, &pooled,
          NULL), GST_FLOW_OK);
  meta = gst_buffer_get_video_meta (pooled);
  fail_unless (meta != NULL);
  stride[0] = stride[1] = meta->stride[0];
  offset[1] = (gsize) stride[0] * 61;
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, gst_memory_ref (gst_buffer_peek_memory
          (pooled, 0)));
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_NV21, 97, 61, 2, offset, stride);
  fail_if (gst_harness_push (harness, buf) == GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no element error");
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "Input buffer cannot be filtered")
      && strstr (error->message, "outside the buffer"), "%s", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_buffer_unref (pooled);

  /* A frame in memory a row taller than the caps goes through. */
  tall = active_cuda_pool (ctx, tall_caps);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (tall, &buf, NULL),
      GST_FLOW_OK);
  out = gst_harness_push_and_pull (harness, buf);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    gst_message_parse_error (msg, &error, NULL);
    fail ("a frame in taller memory: %s", error->message);
  }
  fail_unless (out != NULL, "no output for a frame in taller memory");
  gst_buffer_unref (out);

  gst_buffer_pool_set_active (small, FALSE);
  gst_buffer_pool_set_active (tall, FALSE);
  gst_object_unref (small);
  gst_object_unref (tall);
  gst_object_unref (ctx);
  gst_caps_unref (caps);
  gst_caps_unref (small_caps);
  gst_caps_unref (tall_caps);
  gst_element_set_bus (harness->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (harness);
}

GST_END_TEST;

/* A device that does not exist, on the CUDA-memory path too: an element
 * error that names it, and no hang. */
GST_START_TEST (test_bad_device_id)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! cudaupload ! "
      CUDA_CAPS ("NV12") " ! cudabilateral cuda-device-id=77 ! "
      "cudadownload ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *error = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "no error and no EOS in 30 s");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "cuda-device-id 77 does not exist")
      != NULL, "%s", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
cuda_memory_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-cuda-memory", 600, &tc);

  tcase_add_test (tc, test_cuda_memory_equals_reference);
  tcase_add_test (tc, test_two_filters_share_a_context);
  tcase_add_test (tc, test_filters_in_a_row);
  tcase_add_test (tc, test_negotiates_cuda_memory);
#if GST_CHECK_VERSION (1, 24, 0)
  tcase_add_test (tc, test_waits_for_upstream_stream);
  tcase_add_test (tc, test_waits_for_downstream_reader);
#endif
  tcase_add_test (tc, test_short_cuda_memory_refused);
  tcase_add_test (tc, test_bad_device_id);
  return s;
}

TEST_MAIN (cuda_memory_suite, TEST_NEEDS_GPU, "cudaupload", "cudadownload",
    "qtdemux", "h264parse", "nvh264dec", NULL);
