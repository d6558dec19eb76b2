/* cudabilateral and the pipeline's CUDA context, on a GPU (with
 * GStreamer's CUDA library). Given a context of its own (not the device's
 * primary one), the element does all its work in it: the pinned pool it
 * offers upstream, its own output buffers, its staging; the primary
 * context of device 0 is never created (as it would be on a machine where
 * the context is on device 1). That pool holds at most 16 buffers. And
 * neighbours' context queries, answered from their threads while the
 * element starts and stops, read a context that stays alive. Its own
 * process, since the first test needs a process that has not touched the
 * primary context yet. The two-device tests are test_context_two_gpus.c's.
 * Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <cuda.h>

#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gpu_support.h"

/* The driver's own state of device 0's primary context, read through the
 * driver API so that asking creates nothing. */
static gboolean
primary_context_active (void)
{
  typedef CUresult (*StateFunc) (CUdevice dev, unsigned int *flags,
      int *active);
  StateFunc state =
      (StateFunc) gpu_test_driver_function ("cuDevicePrimaryCtxGetState");
  unsigned int flags = 0;
  int active = 0;

  fail_unless_equals_int (state (0, &flags, &active), CUDA_SUCCESS);
  return active != 0;
}

GST_START_TEST (test_own_context_only)
{
  GstCudaContext *context;
  GstElement *e;
  GstHarness *h;
  GstCaps *caps = caps_for ("RGBA", 64, 48);
  GstQuery *query;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstBuffer *bufs[16], *extra = NULL, *out;
  GstBufferPoolAcquireParams dontwait = { 0, 0, 0,
    GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT, {NULL}
  };
  guint max = 0, i;

  fail_if (primary_context_active (), "the primary context is in use before "
      "the test: it cannot tell who made it");
  fail_unless (gst_cuda_load_library ());
  context = gst_cuda_context_new (0);
  fail_unless (context != NULL);

  e = gst_element_factory_make ("cudabilateral", NULL);
  gst_element_set_context (e, gst_context_new_cuda_context (context));
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_caps (h, gst_caps_ref (caps), gst_caps_ref (caps));

  /* The pool offered upstream: bounded, pinned. */
  query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_params (config, NULL, NULL, NULL,
          &max));
  gst_structure_free (config);
  fail_unless_equals_int (max, 16);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < G_N_ELEMENTS (bufs); i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (bufs[i], 0),
            "CbfPinnedMemory"));
  }
  fail_if (gst_buffer_pool_acquire_buffer (pool, &extra, &dontwait) ==
      GST_FLOW_OK, "a 17th buffer from a pool of 16");

  /* Frames from it through the element, into its own pinned output. */
  for (i = 0; i < G_N_ELEMENTS (bufs); i++) {
    gst_buffer_memset (bufs[i], 0, (guint8) (i * 13), 64 * 48 * 4);
    out = gst_harness_push_and_pull (h, bufs[i]);
    fail_unless (out != NULL, "frame %u lost", i);
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
            "CbfPinnedMemory"));
    gst_buffer_unref (out);
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_harness_teardown (h);
  gst_object_unref (e);

  fail_if (primary_context_active (), "device 0's primary context was made: "
      "some work ran outside the element's context");
  gst_object_unref (context);
  gst_caps_unref (caps);
}

GST_END_TEST;

typedef struct
{
  GstPad *pad;
  gint stop;
  guint answered;
  guint bad;                    /* answers without a live context */
} Querier;

static gpointer
query_context (gpointer data)
{
  Querier *q = data;

  while (!g_atomic_int_get (&q->stop)) {
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);

    if (gst_pad_query (q->pad, query)) {
      GstContext *ctx = NULL;
      GstCudaContext *cuda = NULL;

      gst_query_parse_context (query, &ctx);
      if (ctx && gst_structure_get (gst_context_get_structure (ctx),
              GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, NULL)
          && GST_IS_CUDA_CONTEXT (cuda))
        q->answered++;
      else
        q->bad++;
      gst_clear_object (&cuda);
    }
    gst_query_unref (query);
  }
  return NULL;
}

/* Context queries from another thread while the element starts and stops
 * again and again: each answer holds a live context. */
GST_START_TEST (test_context_query_during_stop)
{
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  Querier q = { gst_element_get_static_pad (e, "src"), 0, 0, 0 };
  GThread *thread = g_thread_new ("querier", query_context, &q);
  guint i;

  for (i = 0; i < 300; i++) {
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  g_atomic_int_set (&q.stop, 1);
  g_thread_join (thread);
  GST_INFO ("%u queries answered during 300 starts and stops", q.answered);
  fail_unless (q.answered > 0, "no query was answered");
  fail_unless_equals_int (q.bad, 0);
  gst_object_unref (q.pad);
  gst_object_unref (e);
}

GST_END_TEST;


static Suite *
context_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-context", 300, &tc);

  tcase_add_test (tc, test_own_context_only);
  tcase_add_test (tc, test_context_query_during_stop);
  return s;
}

TEST_MAIN (context_suite, TEST_NEEDS_GPU, NULL);
