/* The element's CUDA context on a machine with two GPUs, in every build
 * (with GStreamer's CUDA library or without, as GStreamer 1.20 has it):
 * pushed and popped (nested, on threads using either device or none), it
 * leaves each thread's current device and context as they were; a thread
 * that frees memory the element on device 1 page-locked keeps its device
 * 0. Exits 77 with fewer than two CUDA devices. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#if CBF_HAVE_CUDA_MEMORY
#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudaloader.h>
#endif

#include <string.h>

#include "cbfcontext.h"
#include "gpu_support.h"

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
  get_context = (GetContextFunc) gpu_test_driver_function ("cuCtxGetCurrent");
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

  get_context = (GetContextFunc) gpu_test_driver_function ("cuCtxGetCurrent");
  for (start = 0; start >= -1; start--) {
    guint8 *area = g_aligned_alloc (size, 1, 4096);
    GstBuffer *frame = gst_buffer_new ();
    GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
    GstHarness *harness;
    Freer f = { frame, start, FALSE, -1, -1, NULL, NULL };
    gint i;

    memset (area, 0x40, size);
    gst_buffer_append_memory (frame, gst_memory_new_wrapped (0, area, size,
            0, size, area, g_aligned_free));
    /* Read at start, which the harness does. */
    g_object_set (e, "cuda-device-id", 1, NULL);
    harness = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
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
context_two_gpus_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-context-two-gpus", 300, &tc);

  tcase_add_test (tc, test_push_pop_restore);
  tcase_add_test (tc, test_free_keeps_thread_device);
  return s;
}

TEST_MAIN (context_two_gpus_suite, TEST_NEEDS_TWO_GPUS, NULL);
