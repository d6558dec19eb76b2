/* cudabilateral over the long run, on a GPU: a soak of varied frames with
 * properties changing from another thread on every frame and every 97th
 * frame's output checked against the reference, renegotiation again and
 * again, state cycling, flushing seeks and EOS while frames flow, and
 * eight pipelines at once. Each test asserts; the figures (memory before
 * and after, counts) are printed as "FIGURE name value" lines for
 * docs/reliability.md, and appended to $CBF_FIGURES if set
 * (reliability_support.c). Sizes of the long runs: CBF_SOAK_FRAMES
 * (default 100000), CBF_SOAK_CHECK (a frame checked every 97),
 * CBF_STATE_CYCLES (1000), CBF_RENEGOTIATIONS (200). Bad buffers, huge
 * caps, failures injected and the recovery from them are tested in
 * test_recovery. Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpu_support.h"
#include "reliability_support.h"

static guint
env_count (const gchar * name, guint def)
{
  const gchar *v = g_getenv (name);
  return v ? (guint) g_ascii_strtoull (v, NULL, 10) : def;
}

/* Resident set size of this process, in bytes. */
static gint64
rss_bytes (void)
{
  gchar *text = NULL;
  gint64 pages = 0, resident = 0;

  if (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    sscanf (text, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &pages, &resident);
  g_free (text);
  return resident * sysconf (_SC_PAGESIZE);
}

/* Device memory in use on the current device, in bytes. */
static gint64
gpu_used_bytes (void)
{
  size_t free_bytes = 0, total = 0;

  fail_unless_equals_int (cudaMemGetInfo (&free_bytes, &total), cudaSuccess);
  return (gint64) total - (gint64) free_bytes;
}

static guint
count_entries (const gchar * dir)
{
  DIR *d = opendir (dir);
  guint n = 0;

  fail_unless (d != NULL);
  while (readdir (d))
    n++;
  closedir (d);
  return n;
}

#define MiB (1 << 20)

/* ---------------------------------------------------------------------- */
/* Soak */

typedef struct
{
  GstElement *element;
  GMutex lock;
  GCond cond;
  guint frame;                  /* frames pushed so far */
  gboolean paused;              /* asked to stop changing for now */
  gboolean idle;                /* waiting, no change under way */
  gboolean done;
  guint changes;
} Changer;

/* The changer's parameters for frame count @s: every property the element
 * lets change while PLAYING but the mask, on periods of 3 to 10 frames.
 * The grid comes with sigma-space 8 to 16 only (what it is meant for) and
 * sigma-color 10 or more, so that the grid the soak's first frame makes
 * (sigma-space 8, sigma-color 10) is the largest it asks for: the
 * element's grid grows and never shrinks, and GPU memory must not grow
 * after the baseline. */
static void
set_changer_properties (GstElement * element, guint s)
{
  gboolean grid = s % 5 == 3;

  /* A frame may start between two of these sets: the method leaves the
   * grid first and comes to it last, so that no frame sees the grid with a
   * sigma-space below 8 (a larger grid). */
  if (!grid)
    gst_util_set_object_arg (G_OBJECT (element), "method", "exact");
  g_object_set (element, "sigma-space", grid ? 8.0 + s % 9 : 1.0 + s % 9,
      "sigma-color", 10.0 + 7 * (s % 10), "diameter", 3 + 2 * (s % 7),
      "filter-chroma", (s / 3) % 2 == 0, NULL);
  gst_util_set_object_arg (G_OBJECT (element), "mode",
      s % 4 == 1 ? "gaussian" : "bilateral");
  if (grid)
    gst_util_set_object_arg (G_OBJECT (element), "method", "grid");
}

/* Sets new parameters once per pushed frame, racing the streaming
 * thread, except while paused. */
static gpointer
change_properties (gpointer data)
{
  Changer *c = data;
  guint seen = 0;

  g_mutex_lock (&c->lock);
  while (TRUE) {
    while (!c->done && (c->paused || c->frame == seen)) {
      c->idle = TRUE;
      g_cond_broadcast (&c->cond);
      g_cond_wait (&c->cond, &c->lock);
    }
    if (c->done)
      break;
    c->idle = FALSE;
    seen = c->frame;
    g_mutex_unlock (&c->lock);
    set_changer_properties (c->element, seen);
    c->changes++;
    g_mutex_lock (&c->lock);
  }
  c->idle = TRUE;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  return NULL;
}

/* Stops the changer: on return no change is under way and none comes
 * until changer_resume. */
static void
changer_pause (Changer * c)
{
  g_mutex_lock (&c->lock);
  c->paused = TRUE;
  g_cond_broadcast (&c->cond);
  while (!c->idle)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
}

static void
changer_resume (Changer * c)
{
  g_mutex_lock (&c->lock);
  c->paused = FALSE;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

/* The parameters of a checked frame, each with a reference: the exact
 * filter at a small and a large window (chroma copied in one), a window
 * derived from sigma-space, and the Gaussian (with method=grid, which
 * mode=gaussian ignores). */
static const struct
{
  Params p;
  gboolean filter_chroma;
  const gchar *method;
} soak_checks[] = {
  {{.diameter = 5,.sigma_color = 30,.sigma_space = 3}, TRUE, "exact"},
  {{.diameter = 15,.sigma_color = 60,.sigma_space = 6}, FALSE, "exact"},
  {{.diameter = 9,.sigma_color = 50,.sigma_space = 2,.gaussian = TRUE},
      TRUE, "grid"},
  {{.diameter = 0,.sigma_color = 20,.sigma_space = 4}, TRUE, "exact"},
};

/* Sets all six parameters of checked set @set. */
static void
set_soak_check (GstElement * element, guint set)
{
  const Params *p = &soak_checks[set].p;

  g_object_set (element, "diameter", p->diameter, "sigma-color",
      p->sigma_color, "sigma-space", p->sigma_space, "filter-chroma",
      soak_checks[set].filter_chroma, NULL);
  gst_util_set_object_arg (G_OBJECT (element), "mode",
      p->gaussian ? "gaussian" : "bilateral");
  gst_util_set_object_arg (G_OBJECT (element), "method",
      soak_checks[set].method);
}

#define SOAK_PICTURES 5

/* A frame of @format holding @in, in a buffer of the pool the element
 * proposed to the harness: pinned memory, as from an upstream element. */
static GstBuffer *
soak_picture (GstHarness * h, const GstVideoInfo * info, const Channel * in)
{
  GstBuffer *buf = gst_harness_create_buffer (h, GST_VIDEO_INFO_SIZE (info));
  GstVideoFrame frame;
  guint c;

  fail_unless (buf != NULL);
  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    write_component (&frame, c, &in[c]);
  gst_video_frame_unmap (&frame);
  return buf;
}

/* 720p NV12 frames cycling through five pictures, with every parameter
 * changing from another thread after each frame. Every CBF_SOAK_CHECK
 * (97) frames the changer is paused (no change under way), the frame's
 * parameters are set from the streaming thread, and its output, read
 * from a poisoned pool, must be the reference of those parameters on its
 * picture: the element applies a change from the next frame, and nothing
 * else changes them before it. References are made before the soak (each
 * picture with each checked set), so that the checks cost no CPU filter
 * and no memory during it. RSS and GPU memory are measured after a
 * baseline and at the end, with the largest grid made by a first frame. */
GST_START_TEST (test_soak)
{
  const gchar *format = "NV12";
  const gint w = 1280, h = 720;
  guint n_frames = env_count ("CBF_SOAK_FRAMES", 100000), i;
  guint every = MAX (env_count ("CBF_SOAK_CHECK", 97), 1);
  guint baseline_at = MIN (1000, n_frames / 2), n_checks = 0, pic, set, c;
  GstVideoInfo info = info_for (format, w, h);
  GstHarness *harness = gst_harness_new ("cudabilateral");
  Changer changer = { 0 };
  GThread *thread;
  gint64 rss0 = 0, gpu0 = 0, rss1, gpu1, t0;
  Channel in[SOAK_PICTURES][3];
  Channel expected[SOAK_PICTURES][G_N_ELEMENTS (soak_checks)][3];
  GstBuffer *pictures[SOAK_PICTURES];
  guint set_checked[G_N_ELEMENTS (soak_checks)] = { 0 };

  fail_unless (n_frames >= every, "CBF_SOAK_FRAMES %u is below the check "
      "interval %u: no frame would be checked", n_frames, every);
  changer.element = harness->element;
  g_mutex_init (&changer.lock);
  g_cond_init (&changer.cond);
  gst_harness_set_caps (harness, caps_for (format, w, h), caps_for (format,
          w, h));
  for (pic = 0; pic < SOAK_PICTURES; pic++) {
    channels_for_format (format, w, h, 700 + 10 * pic, in[pic]);
    pictures[pic] = soak_picture (harness, &info, in[pic]);
    for (set = 0; set < G_N_ELEMENTS (soak_checks); set++) {
      fail_unless_equals_int (channels_reference_for_format (&info, in[pic],
              &soak_checks[set].p, expected[pic][set]), 3);
      for (c = 1; c < 3 && !soak_checks[set].filter_chroma; c++)
        memcpy (expected[pic][set][c].data, in[pic][c].data,
            (gsize) in[pic][c].width * in[pic][c].height *
            sizeof (in[pic][c].data[0]));
    }
  }

  /* The largest grid the changer asks for, made before the baseline, and
   * the output pool grown by its poisoning, as at every check. */
  g_object_set (harness->element, "diameter", 9, "sigma-color", 10.0,
      "sigma-space", 8.0, "filter-chroma", TRUE, NULL);
  gst_util_set_object_arg (G_OBJECT (harness->element), "mode", "bilateral");
  gst_util_set_object_arg (G_OBJECT (harness->element), "method", "grid");
  gpu_test_poison_output_pool (harness->element);
  gst_buffer_unref (gst_harness_push_and_pull (harness,
          gst_buffer_copy (pictures[0])));

  t0 = g_get_monotonic_time ();
  thread = g_thread_new ("changer", change_properties, &changer);
  for (i = 0; i < n_frames; i++) {
    GstBuffer *in_buf = gst_buffer_copy (pictures[i % SOAK_PICTURES]), *out;
    gboolean check = (i + 1) % every == 0;

    set = n_checks % G_N_ELEMENTS (soak_checks);
    if (check) {
      changer_pause (&changer);
      set_soak_check (harness->element, set);
      gpu_test_poison_output_pool (harness->element);
    }
    GST_BUFFER_PTS (in_buf) = i * 20 * GST_MSECOND;
    GST_BUFFER_DURATION (in_buf) = 20 * GST_MSECOND;
    GST_BUFFER_OFFSET (in_buf) = i;
    fail_unless_equals_int (gst_harness_push (harness, in_buf), GST_FLOW_OK);
    out = gst_harness_pull (harness);
    fail_unless (out != NULL, "frame %u lost", i);
    /* In order, with the timestamps it came with. */
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * 20 * GST_MSECOND);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 20 * GST_MSECOND);
    if (check) {
      GstVideoFrame frame;
      gchar *what = g_strdup_printf ("soak frame %u (picture %u, checked "
          "set %u)", i, i % SOAK_PICTURES, set);

      fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
      for (c = 0; c < 3; c++) {
        Channel got = read_component (&frame, c);

        assert_channel_matches (&got, &expected[i % SOAK_PICTURES][set][c],
            c > 0 && !soak_checks[set].filter_chroma ? 0 : 1, what, format, c);
        channels_free (&got, 1);
      }
      gst_video_frame_unmap (&frame);
      g_free (what);
      set_checked[set]++;
      n_checks++;
      changer_resume (&changer);
    }
    gst_buffer_unref (out);

    g_mutex_lock (&changer.lock);
    changer.frame = i + 1;
    g_cond_broadcast (&changer.cond);
    g_mutex_unlock (&changer.lock);
    if (i + 1 == baseline_at) {
      rss0 = rss_bytes ();
      gpu0 = gpu_used_bytes ();
    }
  }
  g_mutex_lock (&changer.lock);
  changer.done = TRUE;
  g_cond_broadcast (&changer.cond);
  g_mutex_unlock (&changer.lock);
  g_thread_join (thread);
  fail_unless_equals_int (gst_harness_buffers_in_queue (harness), 0);

  rss1 = rss_bytes ();
  gpu1 = gpu_used_bytes ();
  figure ("soak_frames", n_frames);
  figure ("soak_frames_checked", n_checks);
  figure ("soak_property_changes", changer.changes);
  figure ("soak_seconds_x1000", (g_get_monotonic_time () - t0) / 1000);
  figure ("soak_rss_after_baseline", rss0);
  figure ("soak_rss_at_end", rss1);
  figure ("soak_gpu_used_after_baseline", gpu0);
  figure ("soak_gpu_used_at_end", gpu1);
  fail_unless_equals_int (n_checks, n_frames / every);
  for (set = 0; set < G_N_ELEMENTS (soak_checks) && n_checks >=
      G_N_ELEMENTS (soak_checks); set++)
    fail_unless (set_checked[set] > 0, "checked set %u never ran", set);
  fail_unless (changer.changes > n_frames / 2, "only %u property changes",
      changer.changes);
  fail_unless (ABS (rss1 - rss0) <= MiB, "RSS %" G_GINT64_FORMAT " -> %"
      G_GINT64_FORMAT, rss0, rss1);
  fail_unless (ABS (gpu1 - gpu0) <= MiB, "GPU memory %" G_GINT64_FORMAT
      " -> %" G_GINT64_FORMAT, gpu0, gpu1);

  for (pic = 0; pic < SOAK_PICTURES; pic++) {
    gst_buffer_unref (pictures[pic]);
    channels_free (in[pic], 3);
    for (set = 0; set < G_N_ELEMENTS (soak_checks); set++)
      channels_free (expected[pic][set], 3);
  }
  gst_harness_teardown (harness);
  g_mutex_clear (&changer.lock);
  g_cond_clear (&changer.cond);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Renegotiation */

GST_START_TEST (test_renegotiation_many)
{
  static const gchar *fmts[] = { "RGBA", "NV12", "I420", "GRAY8", "YUY2",
    "RGB", "xBGR", "Y444"
  };
  static const gint sizes[][2] = { {64, 48}, {33, 17}, {1, 1}, {130, 67},
  {7, 300}, {96, 2}
  };
  guint n = env_count ("CBF_RENEGOTIATIONS", 200), i;
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  GstHarness *h = gst_harness_new ("cudabilateral");

  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  for (i = 0; i < n; i++) {
    const gchar *format = fmts[i % G_N_ELEMENTS (fmts)];
    gint w = sizes[(i / 3) % G_N_ELEMENTS (sizes)][0];
    gint height = sizes[(i / 3) % G_N_ELEMENTS (sizes)][1];

    gst_harness_set_caps (h, caps_for (format, w, height),
        caps_for (format, w, height));
    check_one_frame (h, format, w, height, &p, i);
  }
  figure ("renegotiations", n);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* State cycling */

static void
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "no EOS within 30 s");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
}

GST_START_TEST (test_state_cycling)
{
  guint n = env_count ("CBF_STATE_CYCLES", 1000), i;
  guint baseline_at = MIN (50, n / 2);
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=320,height=240 ! cudabilateral ! "
      "fakesink", NULL);
  gint64 rss0 = 0, gpu0 = 0, rss1, gpu1;
  guint fds0 = 0, threads0 = 0, fds1, threads1, idle_threads;

  for (i = 0; i < n; i++) {
    run_to_eos (pipeline);
    if (i + 1 == baseline_at) {
      rss0 = rss_bytes ();
      gpu0 = gpu_used_bytes ();
      fds0 = count_entries ("/proc/self/fd");
      threads0 = count_entries ("/proc/self/task");
    }
  }
  rss1 = rss_bytes ();
  gpu1 = gpu_used_bytes ();
  fds1 = count_entries ("/proc/self/fd");
  threads1 = count_entries ("/proc/self/task");
  figure ("state_cycles", n);
  figure ("cycles_rss_after_baseline", rss0);
  figure ("cycles_rss_at_end", rss1);
  figure ("cycles_gpu_used_after_baseline", gpu0);
  figure ("cycles_gpu_used_at_end", gpu1);
  figure ("cycles_fds_after_baseline", fds0);
  figure ("cycles_fds_at_end", fds1);
  figure ("cycles_threads_after_baseline", threads0);
  figure ("cycles_threads_at_end", threads1);
  fail_unless (ABS (rss1 - rss0) <= MiB, "RSS %" G_GINT64_FORMAT " -> %"
      G_GINT64_FORMAT, rss0, rss1);
  fail_unless (ABS (gpu1 - gpu0) <= MiB, "GPU memory %" G_GINT64_FORMAT
      " -> %" G_GINT64_FORMAT, gpu0, gpu1);
  fail_unless (fds1 <= fds0, "open files %u -> %u", fds0, fds1);
  /* GStreamer's streaming threads come from GLib's shared thread pool,
   * which keeps up to max_unused_threads idle threads alive for a while
   * after their task ends, so the count at any moment varies by that much
   * (seen: 7 -> 8 on the GPU machine). A leak of one thread per cycle
   * would add hundreds here. */
  idle_threads = MAX (g_thread_pool_get_max_unused_threads (), 0);
  fail_unless (threads1 <= threads0 + idle_threads, "threads %u -> %u "
      "(%u idle pool threads allowed)", threads0, threads1, idle_threads);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Flushing seeks and EOS while frames flow */

/* The PTS of the next sample, or GST_CLOCK_TIME_NONE at EOS. */
static GstClockTime
next_pts (GstElement * sink)
{
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      10 * GST_SECOND);
  GstClockTime pts;

  if (!s) {
    fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)),
        "no frame within 10 s and no EOS");
    return GST_CLOCK_TIME_NONE;
  }
  pts = GST_BUFFER_PTS (gst_sample_get_buffer (s));
  gst_sample_unref (s);
  return pts;
}

GST_START_TEST (test_seek_and_eos)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc name=src "
      "num-buffers=400 ! video/x-raw,format=I420,width=640,height=360,"
      "framerate=100/1 ! cudabilateral ! appsink name=sink sync=false "
      "max-buffers=4", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstClockTime frame = GST_SECOND / 100, pts, last = 0;
  guint seek, i, seeks = 0;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (seek = 0; seek < 5; seek++) {
    GstClockTime target = (seek * 37 % 300) * frame;

    /* Frames are in flight (appsink holds up to 4, the element one). */
    for (i = 0; i < 10; i++)
      fail_unless (GST_CLOCK_TIME_IS_VALID (next_pts (sink)));
    fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, target));
    seeks++;
    /* After a flushing seek the stream restarts at the target: no frame
     * of before, none twice. */
    last = target;
    pts = next_pts (sink);
    fail_unless_equals_uint64 (pts, target);
    for (i = 0; i < 20; i++) {
      pts = next_pts (sink);
      fail_unless_equals_uint64 (pts, last + frame);
      last = pts;
    }
  }
  /* EOS while frames flow: it arrives, after the frames before it. */
  fail_unless (gst_element_send_event (pipeline, gst_event_new_eos ()));
  for (i = 0; i < 1000; i++) {
    pts = next_pts (sink);
    if (!GST_CLOCK_TIME_IS_VALID (pts))
      break;
    fail_unless_equals_uint64 (pts, last + frame);
    last = pts;
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  figure ("flushing_seeks", seeks);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Eight pipelines at once */

typedef struct
{
  guint index;
  guint frames;
} Worker;

static gpointer
run_worker (gpointer data)
{
  Worker *wk = data;
  static const gchar *fmts[] = { "RGBA", "NV12", "I420", "YUY2" };
  const gchar *format = fmts[wk->index % G_N_ELEMENTS (fmts)];
  Params p = {.diameter = 3 + 2 * wk->index,.sigma_color =
        20.0 + 5 * wk->index,.sigma_space = 2.0 + wk->index
  };
  GstHarness *h = gst_harness_new ("cudabilateral");
  guint i;

  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  gst_harness_set_caps (h, caps_for (format, 160 + wk->index, 90),
      caps_for (format, 160 + wk->index, 90));
  for (i = 0; i < wk->frames; i++)
    check_one_frame (h, format, 160 + wk->index, 90, &p, 100 * wk->index + i);
  gst_harness_teardown (h);
  return NULL;
}

GST_START_TEST (test_eight_pipelines)
{
  Worker workers[8];
  GThread *threads[8];
  guint i;

  for (i = 0; i < 8; i++) {
    workers[i] = (Worker) {
    i, 30};
    threads[i] = g_thread_new ("worker", run_worker, &workers[i]);
  }
  for (i = 0; i < 8; i++)
    g_thread_join (threads[i]);
  figure ("concurrent_pipelines", 8);
}

GST_END_TEST;

static Suite *
reliability_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-reliability", 1800, &tc);

  tcase_add_test (tc, test_renegotiation_many);
  tcase_add_test (tc, test_seek_and_eos);
  tcase_add_test (tc, test_eight_pipelines);
  tcase_add_test (tc, test_state_cycling);
  tcase_add_test (tc, test_soak);
  return s;
}

TEST_MAIN (reliability_suite, TEST_NEEDS_GPU, NULL);
