/* cudabilateral on what a hardware decoder hands out: the H.264 test clip
 * decoded by nvh264dec and downloaded as NV12 into system memory, filtered,
 * and each frame's luma and chroma compared with the C reference (itself
 * checked against OpenCV) run on the same decoded planes; and filtered in
 * the decoder's CUDA memory before cudadownload, which must give the same
 * frames. The same for the HEVC Main 10 clip decoded by nvh265dec, in the
 * 10-bit format it negotiates (none is forced; P010_10LE as a rule),
 * against the deep reference.
 *
 * The clips are $CBF_TEST_CLIP and $CBF_TEST_MAIN10_CLIP, by default the
 * repository's data/sample-720p.mp4 and data/sample-720p-main10.mp4. Exits
 * 77 (skipped) without a CUDA device; on a machine with one, a missing clip
 * or element (nvcodec's decoders, h264parse, h265parse) is a failure. */

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "gpu_support.h"

#define N_FRAMES 4
#define DIAMETER 9
#define SIGMA_COLOR 30.0
#define SIGMA_SPACE 4.0

static const gchar *
clip_path (void)
{
  const gchar *env = g_getenv ("CBF_TEST_CLIP");
  return env ? env : CBF_DEFAULT_CLIP;
}

static const gchar *
main10_clip_path (void)
{
  const gchar *env = g_getenv ("CBF_TEST_MAIN10_CLIP");
  return env ? env : CBF_MAIN10_CLIP;
}

/* Input frames as they reach the filter, in order. */
static GstPadProbeReturn
keep_input (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  g_async_queue_push ((GAsyncQueue *) user_data,
      gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

/* Component @c of @out against the reference run on @in's, at the
 * format's bits: within 1, 16 for 16-bit samples. */
static void
check_component (GstVideoFrame * in, GstVideoFrame * out, guint c,
    guint frame_no)
{
  const Params p = { DIAMETER, SIGMA_COLOR, SIGMA_SPACE, FALSE };
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (in);
  Channel src = read_component (in, c);
  Channel got = read_component (out, c);
  Channel expected = channel_reference (&src, &p, c > 0);
  gchar *what = g_strdup_printf ("frame %u", frame_no);

  assert_channel_matches (&got, &expected, format_tolerance (format), what,
      gst_video_format_to_string (format), c);
  channels_free (&src, 1);
  channels_free (&got, 1);
  channels_free (&expected, 1);
  g_free (what);
}

/* The next sample of @sink within 30 s; fails the test with @pipeline's
 * error, where it posted one, if none comes, the pipeline stopped first
 * (check's cleanup would wait for its threads forever). */
static GstSample *
pull_sample_or_fail (GstElement * pipeline, GstElement * sink, guint frame_no)
{
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      30 * GST_SECOND);

  if (!sample) {
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *error = NULL;
    gchar *debug = NULL;

    if (msg)
      gst_message_parse_error (msg, &error, &debug);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    fail ("no frame %u within 30 s: %s (%s)", frame_no,
        error ? error->message : "no error posted", debug ? debug : "");
  }
  return sample;
}

/* Runs @desc (a decoder, then cudabilateral "filter" and appsink "sink")
 * for N_FRAMES frames: @check_format on each output's video info, then
 * @check on each component, against the buffer that entered the filter. */
static void
check_decoded (const gchar * desc,
    void (*check_format) (const GstVideoInfo * info, guint frame_no),
    void (*check) (GstVideoFrame * in, GstVideoFrame * out, guint c,
        guint frame_no))
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *filter, *sink;
  GAsyncQueue *inputs = g_async_queue_new ();
  GstPad *pad;
  guint i, c;

  fail_unless (pipeline != NULL, "%s", error ? error->message : desc);
  filter = gst_bin_get_by_name (GST_BIN (pipeline), "filter");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (filter, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_input, inputs, NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  for (i = 0; i < N_FRAMES; i++) {
    GstSample *sample = pull_sample_or_fail (pipeline, sink, i);
    GstBuffer *in;
    GstVideoInfo info;
    GstVideoFrame in_frame, out_frame;

    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    check_format (&info, i);
    in = g_async_queue_timeout_pop (inputs, 10 * G_USEC_PER_SEC);
    fail_unless (in != NULL, "no input for frame %u", i);
    fail_unless (gst_video_frame_map (&in_frame, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&out_frame, &info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
      check (&in_frame, &out_frame, c, i);
    gst_video_frame_unmap (&in_frame);
    gst_video_frame_unmap (&out_frame);
    gst_buffer_unref (in);
    gst_sample_unref (sample);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (filter);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  while (g_async_queue_length (inputs) > 0)
    gst_buffer_unref (g_async_queue_pop (inputs));
  g_async_queue_unref (inputs);
}

static void
assert_nv12 (const GstVideoInfo * info, G_GNUC_UNUSED guint frame_no)
{
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_FORMAT_NV12);
}

GST_START_TEST (test_decoded_nv12)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h264parse ! nvh264dec ! cudadownload ! video/x-raw,format=NV12 ! "
      "cudabilateral name=filter diameter=%d sigma-color=%g sigma-space=%g ! "
      "appsink name=sink sync=false max-buffers=2", clip_path (), DIAMETER,
      SIGMA_COLOR, SIGMA_SPACE);

  check_decoded (desc, assert_nv12, check_component);
  g_free (desc);
}

GST_END_TEST;

/* The 10-bit format nvh265dec gives, 4:2:0 YUV whose planes the element
 * filters each on its own. */
static void
assert_decoded_deep_yuv (const GstVideoInfo * info, guint frame_no)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);

  fail_unless (format_bits (format) > 8 && GST_VIDEO_INFO_IS_YUV (info)
      && GST_VIDEO_INFO_N_COMPONENTS (info) == 3
      && GST_VIDEO_INFO_COMP_WIDTH (info, 1) < GST_VIDEO_INFO_WIDTH (info),
      "the Main 10 clip decoded as %s, not subsampled deep YUV",
      gst_video_format_to_string (format));
  if (frame_no == 0)
    g_print ("Main 10 clip decoded as %s\n",
        gst_video_format_to_string (format));
}

/* The Main 10 clip decoded and downloaded in the format the decoder
 * chooses (no format forced), filtered in system memory: each plane
 * against the deep reference on the decoded plane. */
GST_START_TEST (test_decoded_main10)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h265parse ! nvh265dec ! cudadownload ! video/x-raw ! "
      "cudabilateral name=filter diameter=%d sigma-color=%g sigma-space=%g ! "
      "appsink name=sink sync=false max-buffers=2", main10_clip_path (),
      DIAMETER, SIGMA_COLOR, SIGMA_SPACE);

  check_decoded (desc, assert_decoded_deep_yuv, check_component);
  g_free (desc);
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
/* Runs @desc for the first N_FRAMES frames its appsink "sink" receives,
 * each mapped and handed to @read with its number and @data; @info is
 * the frames' video info. */
static void
pull_frames (const gchar * desc, GstVideoInfo * info,
    void (*read) (GstVideoFrame * frame, guint frame_no, gpointer data),
    gpointer data)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  guint i;

  fail_unless (pipeline != NULL, "%s", error ? error->message : desc);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < N_FRAMES; i++) {
    GstSample *sample = pull_sample_or_fail (pipeline, sink, i);
    GstVideoFrame frame;

    fail_unless (gst_video_info_from_caps (info, gst_sample_get_caps (sample)));
    fail_unless (gst_video_frame_map (&frame, info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    read (&frame, i, data);
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

/* pull_frames' @read: the components, into @data's
 * Channel [N_FRAMES][GST_VIDEO_MAX_COMPONENTS]. */
static void
read_channels (GstVideoFrame * frame, guint frame_no, gpointer data)
{
  Channel (*frames)[GST_VIDEO_MAX_COMPONENTS] = data;
  guint c;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (frame); c++)
    frames[frame_no][c] = read_component (frame, c);
}

/* The frames of @on_gpu (the filter in the decoder's CUDA memory) and of
 * @on_host (in its downloaded frames): the same format (@check_format on
 * it, where not NULL) and, plane by plane, the same frames within 1: the
 * same kernels on the same samples either way. */
static void
check_same_frames (const gchar * on_gpu, const gchar * on_host,
    void (*check_format) (const GstVideoInfo * info, guint frame_no))
{
  Channel a[N_FRAMES][GST_VIDEO_MAX_COMPONENTS];
  Channel b[N_FRAMES][GST_VIDEO_MAX_COMPONENTS];
  GstVideoInfo info_a, info_b;
  guint i, c;

  pull_frames (on_gpu, &info_a, read_channels, a);
  pull_frames (on_host, &info_b, read_channels, b);
  fail_unless (gst_video_info_is_equal (&info_a, &info_b));
  if (check_format)
    check_format (&info_a, 0);
  for (i = 0; i < N_FRAMES; i++)
    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info_a); c++) {
      gchar *what = g_strdup_printf ("frame %u in CUDA memory against "
          "system memory", i);

      assert_channel_matches (&a[i][c], &b[i][c], 1, what,
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info_a)), c);
      channels_free (&a[i][c], 1);
      channels_free (&b[i][c], 1);
      g_free (what);
    }
}

/* Filtering the decoder's CUDA memory in place of its downloaded frames
 * changes nothing: the same frames, whichever side of cudadownload the
 * filter is on. */
GST_START_TEST (test_decoded_cuda_memory)
{
  gchar *on_gpu = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory) ! "
      "cudabilateral diameter=%d sigma-color=%g sigma-space=%g ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false", clip_path (),
      DIAMETER, SIGMA_COLOR, SIGMA_SPACE);
  gchar *on_host = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h264parse ! nvh264dec ! cudadownload ! video/x-raw,format=NV12 ! "
      "cudabilateral diameter=%d sigma-color=%g sigma-space=%g ! "
      "appsink name=sink sync=false", clip_path (), DIAMETER, SIGMA_COLOR,
      SIGMA_SPACE);

  check_same_frames (on_gpu, on_host, NULL);
  g_free (on_gpu);
  g_free (on_host);
}

GST_END_TEST;

/* test_decoded_cuda_memory for the Main 10 clip: nvh265dec's 10-bit frames
 * filtered in its CUDA memory give what filtering its downloaded frames
 * gives, plane by plane, whatever 10-bit format it negotiates. */
GST_START_TEST (test_decoded_main10_cuda_memory)
{
  gchar *on_gpu = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h265parse ! nvh265dec ! video/x-raw(memory:CUDAMemory) ! "
      "cudabilateral diameter=%d sigma-color=%g sigma-space=%g ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! "
      "appsink name=sink sync=false", main10_clip_path (), DIAMETER,
      SIGMA_COLOR, SIGMA_SPACE);
  gchar *on_host = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h265parse ! nvh265dec ! cudadownload ! video/x-raw ! "
      "cudabilateral diameter=%d sigma-color=%g sigma-space=%g ! "
      "appsink name=sink sync=false", main10_clip_path (), DIAMETER,
      SIGMA_COLOR, SIGMA_SPACE);

  check_same_frames (on_gpu, on_host, assert_decoded_deep_yuv);
  g_free (on_gpu);
  g_free (on_host);
}

GST_END_TEST;
#endif

static Suite *
decode_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-decode", 300, &tc);

  tcase_add_test (tc, test_decoded_nv12);
  tcase_add_test (tc, test_decoded_main10);
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_decoded_cuda_memory);
  tcase_add_test (tc, test_decoded_main10_cuda_memory);
#endif
  return s;
}

/* The clips are the repository's: one that is missing is a failure, with
 * or without a GPU. */
int
main (int argc, char **argv)
{
  static const gchar *const elements[] = { "qtdemux", "h264parse",
    "nvh264dec", "h265parse", "nvh265dec", "cudadownload", NULL
  };
  const gchar *clips[] = { clip_path (), main10_clip_path () };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (clips); i++)
    if (!g_file_test (clips[i], G_FILE_TEST_EXISTS)) {
      g_print ("FAIL: no test clip at %s (CBF_TEST_CLIP, "
          "CBF_TEST_MAIN10_CLIP)\n", clips[i]);
      return 1;
    }
  return test_main (argc, argv, TEST_NEEDS_GPU, elements, decode_suite,
      __FILE__);
}
