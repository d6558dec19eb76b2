/* cudabilateral when CUDA itself fails during a frame: a kernel of the
 * test's own traps in the CUDA context the element works in (the device's
 * primary context, the driver's, which the plugin's statically linked
 * runtime shares with every other user in the process), so that every
 * later call in that context fails with the launch's error, as after a
 * real launch failure. The element's next frame must then give an element
 * error of domain GST_STREAM_ERROR naming that CUDA error, a failed flow,
 * no crash and no hang, and the element must stop cleanly. The context
 * stays broken for the rest of the process, so this program holds this
 * one test. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "gpu_support.h"

#if CBF_HAVE_CUDA_MEMORY
#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>
#endif

/* A kernel that traps, in PTX, which the driver compiles for the device
 * (no CUDA compiler in the test's build). */
static const char trap_ptx[] =
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry cbf_test_trap ()\n" "{\n" "  trap;\n" "  ret;\n" "}\n";

/* The driver's entry points the test needs, from libcuda.so.1 itself (the
 * tests link no driver library). */
typedef struct
{
  void *lib;
    CUresult (*init) (unsigned int flags);
    CUresult (*device_get) (CUdevice * device, int ordinal);
    CUresult (*primary_retain) (CUcontext * ctx, CUdevice device);
    CUresult (*primary_release) (CUdevice device);
    CUresult (*push) (CUcontext ctx);
    CUresult (*pop) (CUcontext * ctx);
    CUresult (*module_load_data) (CUmodule * module, const void *image);
    CUresult (*module_get_function) (CUfunction * func, CUmodule module,
      const char *name);
    CUresult (*launch) (CUfunction f, unsigned int gx, unsigned int gy,
      unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
      unsigned int shared, CUstream stream, void **params, void **extra);
    CUresult (*synchronize) (void);
} Driver;

static gpointer
driver_symbol (Driver * d, const gchar * name)
{
  gpointer sym = dlsym (d->lib, name);

  fail_unless (sym != NULL, "libcuda.so.1 has no %s", name);
  return sym;
}

static Driver
driver_load (void)
{
  Driver d = { 0 };

  d.lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  fail_unless (d.lib != NULL, "%s", dlerror ());
  d.init = driver_symbol (&d, "cuInit");
  d.device_get = driver_symbol (&d, "cuDeviceGet");
  d.primary_retain = driver_symbol (&d, "cuDevicePrimaryCtxRetain");
  d.primary_release = driver_symbol (&d, "cuDevicePrimaryCtxRelease_v2");
  d.push = driver_symbol (&d, "cuCtxPushCurrent_v2");
  d.pop = driver_symbol (&d, "cuCtxPopCurrent_v2");
  d.module_load_data = driver_symbol (&d, "cuModuleLoadData");
  d.module_get_function = driver_symbol (&d, "cuModuleGetFunction");
  d.launch = driver_symbol (&d, "cuLaunchKernel");
  d.synchronize = driver_symbol (&d, "cuCtxSynchronize");
  return d;
}

/* Traps a kernel in @ctx; returns the error the context is left with. */
static CUresult
break_context (Driver * d, CUcontext ctx)
{
  CUmodule module;
  CUfunction trap;
  CUcontext popped = NULL;
  CUresult err;

  fail_unless_equals_int (d->push (ctx), CUDA_SUCCESS);
  err = d->module_load_data (&module, trap_ptx);
  fail_unless (err == CUDA_SUCCESS, "the driver did not load the test's PTX "
      "(error %d): it needs the driver's PTX compiler", (int) err);
  fail_unless_equals_int (d->module_get_function (&trap, module,
          "cbf_test_trap"), CUDA_SUCCESS);
  fail_unless_equals_int (d->launch (trap, 1, 1, 1, 1, 1, 1, 0, NULL, NULL,
          NULL), CUDA_SUCCESS);
  err = d->synchronize ();
  /* The error stays: the context cannot run anything again. */
  fail_unless (err != CUDA_SUCCESS, "the trap did not fail the context");
  fail_unless_equals_int (d->synchronize (), err);
  fail_unless_equals_int (d->pop (&popped), CUDA_SUCCESS);
  fail_unless (popped == ctx);
  return err;
}

typedef struct
{
  GstHarness *harness;
  GstBuffer *buf;               /* pushed, taken */
  GstFlowReturn flow;
  GstStateChangeReturn stop;
  gboolean done;
  GMutex lock;
  GCond cond;
} Job;

static gpointer
push_frame (gpointer data)
{
  Job *job = data;

  job->flow = gst_harness_push (job->harness, job->buf);
  g_mutex_lock (&job->lock);
  job->done = TRUE;
  g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
  return NULL;
}

static gpointer
stop_element (gpointer data)
{
  Job *job = data;

  job->stop = gst_element_set_state (job->harness->element, GST_STATE_NULL);
  g_mutex_lock (&job->lock);
  job->done = TRUE;
  g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
  return NULL;
}

/* Runs @func (@job) on a thread and fails unless it returns within
 * @seconds: a hang is a failure, not a test that never ends. */
static void
run_within (GThreadFunc func, Job * job, gint seconds, const gchar * what)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_TIME_SPAN_SECOND;
  GThread *thread;
  gboolean done;

  job->done = FALSE;
  thread = g_thread_new (what, func, job);
  g_mutex_lock (&job->lock);
  while (!job->done && g_cond_wait_until (&job->cond, &job->lock, deadline));
  done = job->done;
  g_mutex_unlock (&job->lock);
  fail_unless (done, "%s: still running after %d s", what, seconds);
  g_thread_join (thread);
}

/* A frame filters; the test then breaks the element's CUDA context with a
 * trapping kernel of its own; the next frame fails with one element error
 * of domain STREAM whose message names the CUDA error (its runtime
 * string, the name in the debug string), within 30 s; the element then
 * stops within 30 s. */
GST_START_TEST (test_launch_failure_is_stream_error)
{
  const gchar *format = "RGBA";
  const gint w = 64, h = 48;
  const Params p = {.diameter = 9,.sigma_color = 30,.sigma_space = 3 };
  GstVideoInfo info = info_for (format, w, h);
  GstHarness *harness = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  Driver d = driver_load ();
  Channel in[4], out[4], expected[3];
  Job job = { 0 };
  CUdevice device;
  CUcontext primary = NULL;
  CUresult broken;
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;
  const gchar *err_string, *err_name;
  guint c, n_errors = 0;

  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  job.harness = harness;
  gst_element_set_bus (harness->element, bus);
  params_apply (harness->element, &p);
  gst_harness_set_caps (harness, caps_for (format, w, h), caps_for (format,
          w, h));

  /* The element works, in the primary context of device 0. */
  channels_for_format (format, w, h, 1, in);
  filter_frame (harness, format, w, h, frame_from_channels (format, w, h, in,
          FALSE, 1), out);
  fail_unless_equals_int (channels_reference_for_format (&info, in, &p,
          expected), 3);
  for (c = 0; c < 3; c++)
    assert_channel_matches (&out[c], &expected[c], 1, "before the fault",
        format, c);
  channels_free (out, 4);

  fail_unless_equals_int (d.init (0), CUDA_SUCCESS);
  fail_unless_equals_int (d.device_get (&device, 0), CUDA_SUCCESS);
  fail_unless_equals_int (d.primary_retain (&primary, device), CUDA_SUCCESS);
#if CBF_HAVE_CUDA_MEMORY
  {
    /* The context the element answers a context query with is the one
     * broken here. */
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    GstContext *context = NULL;
    GstCudaContext *ctx = NULL;

    fail_unless (gst_element_query (harness->element, query));
    gst_query_parse_context (query, &context);
    fail_unless (context != NULL);
    fail_unless (gst_structure_get (gst_context_get_structure (context),
            GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &ctx, NULL));
    fail_unless (gst_cuda_context_get_handle (ctx) == (gpointer) primary,
        "the element does not work in device 0's primary context");
    gst_object_unref (ctx);
    gst_query_unref (query);
  }
#endif
  broken = break_context (&d, primary);
  err_string = cudaGetErrorString ((cudaError_t) broken);
  err_name = cudaGetErrorName ((cudaError_t) broken);
  g_print ("context broken: %s (%s, %d)\n", err_string, err_name, (int) broken);

  /* The next frame: a failed flow and a STREAM error, not a hang. */
  job.buf = frame_from_channels (format, w, h, in, FALSE, 2);
  run_within (push_frame, &job, 30, "the frame after the fault");
  fail_if (job.flow == GST_FLOW_OK, "the frame after the fault went "
      "through");
  GST_INFO ("flow %s", gst_flow_get_name (job.flow));
  fail_unless_equals_int (gst_harness_buffers_in_queue (harness), 0);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    if (n_errors++ == 0)
      gst_message_parse_error (msg, &error, &debug);
    gst_message_unref (msg);
  }
  fail_unless (error != NULL, "no element error for the frame");
  g_print ("error: %s (%s), domain %s\n", error->message, debug ? debug :
      "", g_quark_to_string (error->domain));
  fail_unless (error->domain == GST_STREAM_ERROR, "domain %s, not STREAM: "
      "%s", g_quark_to_string (error->domain), error->message);
  fail_unless (strstr (error->message, "CUDA error") != NULL, "%s",
      error->message);
  fail_unless (strstr (error->message, err_string) != NULL, "\"%s\" does "
      "not name %s", error->message, err_string);
  fail_unless (debug && strstr (debug, err_name) != NULL, "debug \"%s\" "
      "does not name %s", debug ? debug : "", err_name);
  fail_unless_equals_int (n_errors, 1);

  /* It stops cleanly. */
  run_within (stop_element, &job, 30, "stopping the element");
  fail_unless_equals_int (job.stop, GST_STATE_CHANGE_SUCCESS);

  g_error_free (error);
  g_free (debug);
  channels_free (in, 4);
  channels_free (expected, 3);
  gst_element_set_bus (harness->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (harness);
  d.primary_release (device);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.cond);
}

GST_END_TEST;

static Suite *
faults_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-faults", 300, &tc);

  tcase_add_test (tc, test_launch_failure_is_stream_error);
  return s;
}

TEST_MAIN (faults_suite, TEST_NEEDS_GPU, NULL);
