/* cudabilateral on what a hardware decoder hands out: the H.264 test clip
 * decoded by nvh264dec and downloaded as NV12 into system memory, filtered,
 * and each frame's luma and chroma compared with the C reference (itself
 * checked against OpenCV) run on the same decoded planes; and filtered in
 * the decoder's CUDA memory before cudadownload, which must give the same
 * frames.
 *
 * The clip is $CBF_TEST_CLIP, by default the repository's
 * data/sample-720p.mp4. Exits 77 (skipped) without a CUDA device, without
 * the clip, or without GStreamer's nvcodec elements. */

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "golden.h"
#include "gpu_support.h"
#include "reference.h"
#include "bilateral.h"

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

/* Input frames as they reach the filter, in order. */
static GstPadProbeReturn
keep_input (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  g_async_queue_push ((GAsyncQueue *) user_data,
      gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

/* Component @c of @out against the reference run on @in's. */
static void
check_component (GstVideoFrame * in, GstVideoFrame * out, guint c,
    guint frame_no)
{
  gint w = GST_VIDEO_FRAME_COMP_WIDTH (in, c);
  gint h = GST_VIDEO_FRAME_COMP_HEIGHT (in, c);
  guint8 *src = read_component (in, c).data;
  guint8 *got = read_component (out, c).data;
  guint8 *expected = g_malloc ((gsize) w * h);
  gint diameter = DIAMETER;
  gdouble sigma_space = SIGMA_SPACE;
  gint max_diff, fx, fy;
  guint bad;

  if (c > 0)
    cbf_bilateral_chroma_params (DIAMETER, SIGMA_SPACE, 2, &diameter,
        &sigma_space);
  cbf_reference_bilateral (src, w, expected, w, w, h, 1, 0, 1, diameter,
      SIGMA_COLOR, sigma_space);
  bad = images_diff_beyond_one (got, w, expected, w, w, h, 1, 0, 1, 0, 1,
      &max_diff, &fx, &fy);
  fail_unless (bad == 0, "frame %u component %u: %u values off by more than "
      "1 (max %d, first at %d,%d)", frame_no, c, bad, max_diff, fx, fy);
  GST_INFO ("frame %u component %u (%dx%d): max difference %d", frame_no, c,
      w, h, max_diff);
  g_free (src);
  g_free (got);
  g_free (expected);
}

GST_START_TEST (test_decoded_nv12)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h264parse ! nvh264dec ! cudadownload ! video/x-raw,format=NV12 ! "
      "cudabilateral name=filter diameter=%d sigma-color=%g sigma-space=%g ! "
      "appsink name=sink sync=false max-buffers=2", clip_path (), DIAMETER,
      SIGMA_COLOR, SIGMA_SPACE);
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
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        30 * GST_SECOND);
    GstBuffer *in;
    GstVideoInfo info;
    GstVideoFrame in_frame, out_frame;

    fail_unless (sample != NULL, "no frame %u within 30 s", i);
    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info),
        GST_VIDEO_FORMAT_NV12);
    in = g_async_queue_timeout_pop (inputs, 10 * G_USEC_PER_SEC);
    fail_unless (in != NULL, "no input for frame %u", i);
    fail_unless (gst_video_frame_map (&in_frame, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&out_frame, &info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
      check_component (&in_frame, &out_frame, c, i);
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
  g_free (desc);
}

GST_END_TEST;

#if CBF_HAVE_CUDA_MEMORY
/* The first N_FRAMES frames @desc's appsink "sink" receives, mapped
 * channels of each. */
static void
pull_frames (const gchar * desc, guint8 * frames[N_FRAMES][3],
    GstVideoInfo * info)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  guint i, c;

  fail_unless (pipeline != NULL, "%s", error ? error->message : desc);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < N_FRAMES; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        30 * GST_SECOND);
    GstVideoFrame frame;

    fail_unless (sample != NULL, "%s: no frame %u within 30 s", desc, i);
    fail_unless (gst_video_info_from_caps (info, gst_sample_get_caps (sample)));
    fail_unless (gst_video_frame_map (&frame, info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
      frames[i][c] = read_component (&frame, c).data;
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
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
  guint8 *a[N_FRAMES][3] = { {NULL}
  }, *b[N_FRAMES][3] = { {NULL}
  };
  GstVideoInfo info_a, info_b;
  guint i, c;

  pull_frames (on_gpu, a, &info_a);
  pull_frames (on_host, b, &info_b);
  fail_unless (gst_video_info_is_equal (&info_a, &info_b));
  for (i = 0; i < N_FRAMES; i++)
    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info_a); c++) {
      gint w = GST_VIDEO_INFO_COMP_WIDTH (&info_a, c);
      gint h = GST_VIDEO_INFO_COMP_HEIGHT (&info_a, c);
      gint max_diff, fx, fy;
      guint bad = images_diff_beyond_one (a[i][c], w, b[i][c], w, w, h, 1, 0,
          1, 0, 1, &max_diff, &fx, &fy);

      fail_unless (bad == 0, "frame %u component %u: %u values differ by "
          "more than 1 (max %d, first at %d,%d)", i, c, bad, max_diff, fx, fy);
      GST_INFO ("frame %u component %u: max difference %d", i, c, max_diff);
      g_free (a[i][c]);
      g_free (b[i][c]);
    }
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
#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_decoded_cuda_memory);
#endif
  return s;
}

int
main (int argc, char **argv)
{
  static const gchar *const elements[] = { "qtdemux", "h264parse",
    "nvh264dec", "cudadownload", NULL
  };

  if (!g_file_test (clip_path (), G_FILE_TEST_EXISTS)) {
    g_print ("SKIP: no test clip at %s (set CBF_TEST_CLIP)\n", clip_path ());
    return 77;
  }
  return test_main (argc, argv, TEST_NEEDS_GPU, elements, decode_suite,
      __FILE__);
}
