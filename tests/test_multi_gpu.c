/* cudabilateral on a machine with two GPUs: cuda-device-id=1 filters on
 * the second device and gives the bytes the first gives; frames in CUDA
 * memory of the second device (cudaupload cuda-device-id=1) are filtered
 * there by an element left at cuda-device-id=-1, which follows upstream's
 * context although it starts before its upstream, one filter or two; an
 * element told another device refuses such frames with one clear error
 * before any frame. Exits 77 with fewer than two CUDA devices. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gpu_support.h"

#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>

#define CUDA_CAPS "video/x-raw(memory:CUDAMemory),format=NV12"

static const Params params = { 9, 30, 3, FALSE };

/* The device of the CUDA context @element answers a context query with. */
static gint
device_of (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *ctx = NULL;
  GstContext *context = NULL;
  guint device = 0;

  fail_unless (gst_element_query (element, query), "%s has no CUDA context",
      GST_ELEMENT_NAME (element));
  gst_query_parse_context (query, &context);
  fail_unless (context != NULL);
  fail_unless (gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &ctx, NULL));
  g_object_get (ctx, "cuda-device-id", &device, NULL);
  gst_object_unref (ctx);
  gst_query_unref (query);
  return (gint) device;
}

/* System memory: device 1 gives the bytes device 0 gives, and runs there. */
GST_START_TEST (test_second_device_same_bytes)
{
  const gint w = 161, h = 97;
  Channel in[3], out[2][3];
  guint d, c;

  channels_for_format ("NV12", w, h, 11, in);
  for (d = 0; d < 2; d++) {
    GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
    GstHarness *harness;

    /* Read at start, which the harness does. */
    g_object_set (e, "cuda-device-id", d, NULL);
    harness = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
    params_apply (harness->element, &params);
    gst_harness_set_caps (harness, caps_for ("NV12", w, h),
        caps_for ("NV12", w, h));
    filter_frame (harness, "NV12", w, h,
        frame_from_channels ("NV12", w, h, in, TRUE, 5), out[d]);
    fail_unless_equals_int (device_of (harness->element), d);
    gst_harness_teardown (harness);
  }
  for (c = 0; c < 3; c++)
    assert_channel_matches (&out[1][c], &out[0][c], 0, "device 1 against 0",
        "NV12", c);
  channels_free (in, 3);
  channels_free (out[0], 3);
  channels_free (out[1], 3);
}

GST_END_TEST;

/* cudaupload cuda-device-id=1 ! @filters ! cudadownload: the filters
 * named f0, f1, ... run on device 1 and give the reference, applied once
 * per filter. */
static void
check_upstream_on_second_device (guint n_filters, const gchar * filter_props)
{
  const gint w = 130, h = 67;
  GString *desc = g_string_new ("cudaupload cuda-device-id=1 ! " CUDA_CAPS);
  GstHarness *harness;
  Channel in[3], out[3];
  guint f, c;

  for (f = 0; f < n_filters; f++)
    g_string_append_printf (desc, " ! cudabilateral name=f%u diameter=%d "
        "sigma-color=%g sigma-space=%g %s ! " CUDA_CAPS, f, params.diameter,
        params.sigma_color, params.sigma_space, filter_props);
  g_string_append (desc, " ! cudadownload");
  harness = gst_harness_new_parse (desc->str);
  gst_harness_set_caps (harness, caps_for ("NV12", w, h),
      caps_for ("NV12", w, h));
  channels_for_format ("NV12", w, h, 21, in);
  push_and_read_channels (harness, "NV12", w, h,
      frame_from_channels ("NV12", w, h, in, FALSE, 3), out);
  for (f = 0; f < n_filters; f++) {
    gchar *name = g_strdup_printf ("f%u", f);
    GstElement *e = gst_bin_get_by_name (GST_BIN (harness->element), name);

    fail_unless (e != NULL);
    fail_unless_equals_int (device_of (e), 1);
    gst_object_unref (e);
    g_free (name);
  }
  for (c = 0; c < 3; c++) {
    Channel cur = channel_reference (&in[c], &params, c > 0);

    for (f = 1; f < n_filters; f++) {
      Channel next = channel_reference (&cur, &params, c > 0);

      channels_free (&cur, 1);
      cur = next;
    }
    /* Within 1, as this check has held since it was written (n rounds of
     * +-1 could add up to n, but the 8-bit comparison it was written with
     * allowed no value off by more than 1). */
    assert_channel_matches (&out[c], &cur, 1, desc->str, "NV12", c);
    channels_free (&cur, 1);
  }
  channels_free (in, 3);
  channels_free (out, 3);
  gst_harness_teardown (harness);
  g_string_free (desc, TRUE);
}

GST_START_TEST (test_follows_upstream_device)
{
  check_upstream_on_second_device (1, "");
  check_upstream_on_second_device (2, "");
  check_upstream_on_second_device (1, "cuda-device-id=1");
}

GST_END_TEST;

/* Counts the buffers that pass a pad. */
static GstPadProbeReturn
count_buffer (G_GNUC_UNUSED GstPad * pad,
    G_GNUC_UNUSED GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

/* An element told device 0 with frames on device 1: one error, at
 * negotiation, that says what to change; no frame is filtered. */
GST_START_TEST (test_named_other_device_refused)
{
  GError *error = NULL;
  gchar *debug = NULL;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=5 ! "
      "video/x-raw,format=NV12,width=160,height=90 ! "
      "cudaupload cuda-device-id=1 ! cudabilateral name=f cuda-device-id=0 ! "
      "cudadownload ! fakesink", &error);
  GstElement *f;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  gint filtered = 0;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  pad = gst_element_get_static_pad (f, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, &filtered,
      NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "no error and no EOS in 30 s");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (f), "the error is %s's",
      GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (strstr (error->message, "CUDA memory of device 1") &&
      strstr (error->message, "cuda-device-id is 0"), "%s", error->message);
  fail_unless (debug && strstr (debug, "cuda-device-id to -1"), "%s", debug);
  fail_unless_equals_int (g_atomic_int_get (&filtered), 0);
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (f);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
multi_gpu_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-multi-gpu", 300, &tc);

  tcase_add_test (tc, test_second_device_same_bytes);
  tcase_add_test (tc, test_follows_upstream_device);
  tcase_add_test (tc, test_named_other_device_refused);
  return s;
}

TEST_MAIN (multi_gpu_suite, TEST_NEEDS_TWO_GPUS, "cudaupload", "cudadownload",
    NULL);
