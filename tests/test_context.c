/* cudabilateral and the pipeline's CUDA context, on a GPU. Given a context
 * of its own (not the device's primary one), the element does all its
 * work in it: the pinned pool it offers upstream, its own output buffers,
 * its staging; the primary context of device 0 is never created (as it
 * would be on a machine where the context is on device 1). That pool holds
 * at most 16 buffers. And neighbours' context queries, answered from their
 * threads while the element starts and stops, read a context that stays
 * alive. Its own process, since the first test needs a process that has
 * not touched the primary context yet. Those need GStreamer's CUDA
 * library; in every build, with two devices: the element's context pushed
 * and popped (nested, on threads using either device or none) leaves each
 * thread's current device and context as they were, and a thread that
 * frees memory the element on device 1 page-locked keeps its device 0.
 * Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#if CBF_HAVE_CUDA_MEMORY
#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include <dlfcn.h>
#include <string.h>

#include "bilateral.h"
#include "cbfcontext.h"
#include "gpu_support.h"

/* A function of the driver API, from libcuda itself, so that calling it
 * goes through no runtime state. */
static gpointer
driver_function (const gchar * name)
{
  typedef CUresult (*InitFunc) (unsigned int flags);
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  InitFunc init;
  gpointer func;

  fail_unless (lib != NULL, "%s", dlerror ());
  init = (InitFunc) dlsym (lib, "cuInit");
  func = dlsym (lib, name);
  fail_unless (init && func, "no %s in libcuda", name);
  fail_unless_equals_int (init (0), CUDA_SUCCESS);
  /* libcuda stays loaded: the runtime holds it too */
  dlclose (lib);
  return func;
}

#if CBF_HAVE_CUDA_MEMORY
/* The driver's own state of device 0's primary context, read through the
 * driver API so that asking creates nothing. */
static gboolean
primary_context_active (void)
{
  typedef CUresult (*StateFunc) (CUdevice dev, unsigned int *flags,
      int *active);
  StateFunc state = (StateFunc) driver_function ("cuDevicePrimaryCtxGetState");
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

#endif

/* The driver's cuCtxGetCurrent, looked up by the test's own thread before
 * others use it: they check nothing themselves (a failed check must end
 * the test from its own thread), they record what they saw. */
typedef CUresult (*GetContextFunc) (CUcontext * ctx);
static GetContextFunc get_context;

/* An address no context has, for a driver call that failed. */
static gchar no_context;

/* The context current on the calling thread, as the driver has it. */
static CUcontext
current_context (void)
{
  CUcontext ctx = NULL;

  if (get_context (&ctx) != CUDA_SUCCESS)
    return (CUcontext) & no_context;
  return ctx;
}

/* The calling thread's device as the runtime has it, -1 on error. */
static gint
current_device (void)
{
  gint device = -1;

  if (cudaGetDevice (&device) != cudaSuccess) {
    cudaGetLastError ();
    return -1;
  }
  return device;
}

/* Makes @device the thread's, as an application working on it does. */
static gboolean
use_device (gint device)
{
  return cudaSetDevice (device) == cudaSuccess && cudaFree (NULL) ==
      cudaSuccess;
}

/* What a thread saw around nested pushes of the element's contexts. */
typedef struct
{
  CbfContext *contexts[2];      /* on devices 0 and 1 */
  gint start_device;            /* -1: the thread has used no CUDA */
  gboolean started, pushed;
  gint before, outer, inner, between, after;
  CUcontext ctx_before, ctx_after;
  cudaError_t work;
} Nesting;

static gpointer
nest_contexts (gpointer data)
{
  Nesting *n = data;
  gint outer = 1 - MAX (n->start_device, 0);
  void *mem = NULL;

  n->started = n->start_device < 0 || use_device (n->start_device);
  n->before = current_device ();
  n->ctx_before = current_context ();
  /* the other device, then the thread's own inside it */
  if (!cbf_context_push (n->contexts[outer]))
    return NULL;
  n->outer = current_device ();
  n->work = cudaMalloc (&mem, 4096);
  if (n->work == cudaSuccess)
    n->work = cudaFree (mem);
  if (cbf_context_push (n->contexts[1 - outer])) {
    n->pushed = TRUE;
    n->inner = current_device ();
    cbf_context_pop ();
  }
  n->between = current_device ();
  cbf_context_pop ();
  n->after = current_device ();
  n->ctx_after = current_context ();
  return NULL;
}

/* Pushes nest and pops restore: on a thread working on device 0, one on
 * device 1 and one that has used no CUDA (no context, device 0 by
 * default). Built without GStreamer's CUDA library, push once set the
 * device and pop restored nothing. */
GST_START_TEST (test_push_pop_restore)
{
  static const gint starts[] = { 0, 1, -1 };
  CbfContext *contexts[2];
  cudaError_t err;
  gint d, caller;
  guint i;

#if CBF_HAVE_CUDA_MEMORY
  fail_unless (gst_cuda_load_library ());
#endif
  get_context = (GetContextFunc) driver_function ("cuCtxGetCurrent");
  caller = current_device ();
  for (d = 0; d < 2; d++) {
    contexts[d] = cbf_context_new_primary (d, &err);
    fail_unless (contexts[d] != NULL, "%s", cudaGetErrorString (err));
    fail_unless_equals_int (cbf_context_device (contexts[d]), d);
  }
  fail_unless_equals_int (current_device (), caller);

  for (i = 0; i < G_N_ELEMENTS (starts); i++) {
    Nesting n = { {contexts[0], contexts[1]}, starts[i], FALSE, FALSE, -1,
    -1, -1, -1, -1, NULL, NULL, cudaErrorUnknown
    };
    gint outer = 1 - MAX (starts[i], 0);

    g_thread_join (g_thread_new ("nesting", nest_contexts, &n));
    GST_INFO ("thread on %d: %d, pushed %d, %d, popped %d, %d (context %p, "
        "%p)", starts[i], n.before, n.outer, n.inner, n.between, n.after,
        n.ctx_before, n.ctx_after);
    fail_unless (n.started, "cannot use device %d", starts[i]);
    fail_unless_equals_int (n.before, MAX (starts[i], 0));
    fail_unless_equals_int (n.outer, outer);
    fail_unless (n.pushed, "the inner push failed");
    fail_unless_equals_int (n.work, cudaSuccess);
    fail_unless_equals_int (n.inner, 1 - outer);
    fail_unless_equals_int (n.between, outer);
    fail_unless_equals_int (n.after, n.before);
    fail_unless (n.ctx_after == n.ctx_before, "thread on %d: context %p "
        "after, %p before", starts[i], n.ctx_after, n.ctx_before);
  }
  cbf_context_unref (contexts[0]);
  cbf_context_unref (contexts[1]);
}

GST_END_TEST;

/* Whether the driver holds @data as page-locked. */
static gboolean
is_page_locked (const void *data)
{
  struct cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, data) != cudaSuccess) {
    cudaGetLastError ();
    return FALSE;
  }
  return attr.type == cudaMemoryTypeHost;
}

typedef struct
{
  GstBuffer *buffer;            /* its last reference */
  gint start_device;
  gboolean started;
  gint before, after;
  CUcontext ctx_before, ctx_after;
} Freer;

static gpointer
free_buffer (gpointer data)
{
  Freer *f = data;

  f->started = f->start_device < 0 || use_device (f->start_device);
  f->before = current_device ();
  f->ctx_before = current_context ();
  gst_buffer_unref (f->buffer);
  f->after = current_device ();
  f->ctx_after = current_context ();
  return NULL;
}

/* The element on device 1 page-locks a memory that comes back; the memory
 * is freed later on a thread of the application that works on device 0
 * (then on one that has used no CUDA): the unregistration runs there in
 * the element's context, and the thread keeps its device and context. */
GST_START_TEST (test_free_keeps_thread_device)
{
  const gint w = 320, h = 240;
  const gsize size = (gsize) w * h * 4;
  gint start;

  get_context = (GetContextFunc) driver_function ("cuCtxGetCurrent");
  for (start = 0; start >= -1; start--) {
    guint8 *area = g_aligned_alloc (size, 1, 4096);
    GstBuffer *frame = gst_buffer_new ();
    GstHarness *harness = gst_harness_new ("cudabilateral");
    Freer f = { frame, start, FALSE, -1, -1, NULL, NULL };
    gint i;

    memset (area, 0x40, size);
    gst_buffer_append_memory (frame, gst_memory_new_wrapped (0, area, size,
            0, size, area, g_aligned_free));
    g_object_set (harness->element, "cuda-device-id", 1, NULL);
    gst_harness_set_caps (harness, caps_for ("RGBA", w, h),
        caps_for ("RGBA", w, h));
    for (i = 0; i < 2; i++) {
      GstBuffer *out = gst_harness_push_and_pull (harness,
          gst_buffer_copy (frame));

      fail_unless (out != NULL);
      gst_buffer_unref (out);
    }
    fail_unless (is_page_locked (area), "not page-locked by its second "
        "frame: the test would prove nothing");
    gst_harness_teardown (harness);

    g_thread_join (g_thread_new ("freer", free_buffer, &f));
    GST_INFO ("freeing thread on %d: %d -> %d, context %p -> %p", start,
        f.before, f.after, f.ctx_before, f.ctx_after);
    fail_unless (f.started, "cannot use device %d", start);
    fail_unless_equals_int (f.before, MAX (start, 0));
    fail_unless_equals_int (f.after, f.before);
    fail_unless (f.ctx_after == f.ctx_before, "context %p after, %p before",
        f.ctx_after, f.ctx_before);
  }
}

GST_END_TEST;

static Suite *
context_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-context", 300, &tc);
  gint devices = cbf_cuda_device_count (NULL);

#if CBF_HAVE_CUDA_MEMORY
  tcase_add_test (tc, test_own_context_only);
  tcase_add_test (tc, test_context_query_during_stop);
#endif
  /* last: they make both devices' primary contexts */
  if (devices >= 2) {
    tcase_add_test (tc, test_push_pop_restore);
    tcase_add_test (tc, test_free_keeps_thread_device);
  } else {
    g_print ("SKIP: two-device tests: %d CUDA device(s)\n", devices);
  }
  return s;
}

TEST_MAIN (context_suite, TEST_NEEDS_GPU, NULL);
