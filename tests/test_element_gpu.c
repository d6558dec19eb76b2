/* cudabilateral on a GPU, the element in a stream beyond the filter's
 * arithmetic (the packed 8-bit formats, against the C reference within
 * +-1): upstream that takes the pool the element proposes gets pinned
 * memory and its frames are filtered as well; a property change while
 * PLAYING, the mode switched both ways, applies from the next frame; new
 * caps mid-stream (size and format); a frame that does not fit in the
 * GPU's free memory is an element error naming the cause, and the element
 * works again once memory is free; filter-luma=false leaves RGB and GRAY
 * frames filtered. Output buffers are poisoned before each
 * checked frame. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cuda_runtime_api.h>

#include "gpu_support.h"
#include "packed_image.h"

/* Upstream that uses the element's proposed pool gets pinned memory, and
 * frames from it are filtered as well. */
GST_START_TEST (test_pinned_pool_input)
{
  Params p = { 9, 40, 4, FALSE };
  Image in = image_random (&packed_formats[1], 320, 240, 0, 77);
  Image expected = image_reference (&in, &p);
  GstHarness *h = image_harness_new (&in, &p);
  GstCaps *caps = image_caps (&in);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstBuffer *buf;
  Image out;

  /* Negotiate first, as upstream would before asking. */
  out = image_filter (h, &in);
  image_free (&out);

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL, "no pool proposed");
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
          "CbfPinnedMemory"), "proposed pool is not pinned");
  image_fill_buffer (buf, &in);

  out = image_filter_buffer (h, &in, buf);
  image_assert_matches (&out, &expected, &in, "pinned input");

  image_free (&out);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  image_free (&in);
  image_free (&expected);
}

GST_END_TEST;

/* A property change while PLAYING applies from the next frame. */
GST_START_TEST (test_property_change_while_playing)
{
  Params a = { 5, 20, 3, FALSE }, b = { 15, 80, 6, FALSE };
  Params c = { 0, 10, 20, FALSE };
  Params g = { 9, 20, 3, TRUE }, g2 = { 0, 20, 2.5, TRUE };
  Image in = image_random (&packed_formats[4], 97, 61, 4, 5);
  GstHarness *h = image_harness_new (&in, &a);
  /* The mode switched both ways too. */
  const Params *steps[] = { &a, &b, &g, &c, &g2, &g, &a };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    const Params *p = steps[i];

    params_apply (h->element, p);
    fail_unless_equals_int (GST_STATE (h->element), GST_STATE_PLAYING);
    image_check_filtered (h, &in, p, "after a property change");
  }
  gst_harness_teardown (h);
  image_free (&in);
}

GST_END_TEST;

/* New caps mid-stream: new size and format, still exact. */
GST_START_TEST (test_renegotiation)
{
  Params p = { 7, 35, 3, FALSE };
  Image first = image_random (&packed_formats[0], 64, 48, 0, 9);
  Image second = image_random (PACKED_GRAY8, 45, 101, 3, 10);
  GstHarness *h = image_harness_new (&first, &p);

  image_check_filtered (h, &first, &p, "before renegotiation");
  gst_harness_set_caps (h, image_caps (&second), image_caps (&second));
  image_check_filtered (h, &second, &p, "after renegotiation");

  gst_harness_teardown (h);
  image_free (&first);
  image_free (&second);
}

GST_END_TEST;

/* A frame that does not fit in the GPU's free memory: an element error
 * naming the cause, no crash, and the element works again once memory is
 * free. The test takes nearly all free memory itself first. */
GST_START_TEST (test_out_of_memory)
{
  Params p = { 5, 30, 5, FALSE };
  Image big = { &packed_formats[0], 12000, 12000, 12000 * 4, NULL };
  Image small = image_random (&packed_formats[0], 40, 30, 0, 3);
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  size_t free_bytes = 0, total_bytes = 0;
  void *hog = NULL;
  GstMessage *msg;
  GError *error = NULL;

  fail_unless_equals_int (cudaMemGetInfo (&free_bytes, &total_bytes),
      cudaSuccess);
  /* Leave 256 MiB: less than one 576 MB frame buffer. */
  fail_unless_equals_int (cudaMalloc (&hog, free_bytes - (256 << 20)),
      cudaSuccess);

  /* The bus first: the caps event already makes the element allocate. */
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  gst_harness_set_caps (h, image_caps (&big), image_caps (&big));
  fail_if (gst_harness_push (h, gst_buffer_new_allocate (NULL, 64, NULL)) ==
      GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no element error when out of GPU memory");
  gst_message_parse_error (msg, &error, NULL);
  GST_INFO ("error: %s", error->message);
  fail_unless (error->domain == GST_RESOURCE_ERROR, "%s", error->message);
  fail_unless (strstr (error->message, "Out of memory on CUDA device") !=
      NULL, "%s", error->message);
  g_error_free (error);
  gst_message_unref (msg);

  fail_unless_equals_int (cudaFree (hog), cudaSuccess);
  gst_harness_set_caps (h, image_caps (&small), image_caps (&small));
  image_check_filtered (h, &small, &p, "after running out of memory");

  image_free (&small);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* filter-luma is YUV's: RGB and GRAY frames are filtered whatever it says
 * (the property's documentation). */
GST_START_TEST (test_filter_luma_ignored)
{
  static const gchar *fmts[] = { "RGBA", "RGB", "GRAY8", "GRAY16_LE" };
  static const Params p = { 9, 40, 4, FALSE };
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], 64, 48);
    GstHarness *h = filter_harness_new (fmts[f], 64, 48, &p);
    Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
    Channel expected[GST_VIDEO_MAX_COMPONENTS];
    guint n = channels_for_format (fmts[f], 64, 48, 9, in), n_expected;

    g_object_set (h->element, "filter-luma", FALSE, NULL);
    filter_frame (h, fmts[f], 64, 48, frame_from_channels (fmts[f], 64, 48,
            in, FALSE, 9), out);
    n_expected = channels_reference_for_format (&info, in, &p, expected);
    for (c = 0; c < n_expected; c++)
      assert_channel_matches (&out[c], &expected[c],
          format_tolerance (GST_VIDEO_INFO_FORMAT (&info)),
          "filter-luma=false", fmts[f], c);
    channels_free (in, n);
    channels_free (out, n);
    channels_free (expected, n_expected);
    filter_harness_free (h);
  }
}

GST_END_TEST;

static Suite *
element_gpu_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-element-gpu", 600, &tc);

  tcase_add_test (tc, test_pinned_pool_input);
  tcase_add_test (tc, test_property_change_while_playing);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_out_of_memory);
  tcase_add_test (tc, test_filter_luma_ignored);
  return s;
}

TEST_MAIN (element_gpu_suite, TEST_NEEDS_GPU, NULL);
