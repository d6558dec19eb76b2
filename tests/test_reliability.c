/* cudabilateral over the long run and under abuse, on a GPU: a soak of
 * varied frames with properties changing from another thread on every
 * frame and every 97th frame's output checked against the reference,
 * renegotiation again and again, state cycling, flushing seeks and EOS
 * while frames flow, bad buffers, and eight pipelines at once. Each test
 * asserts; the figures (memory before and after, counts) are printed as
 * "FIGURE name value" lines for docs/reliability.md, and appended to
 * $CBF_FIGURES if set. Sizes of the long runs: CBF_SOAK_FRAMES (default
 * 100000), CBF_SOAK_CHECK (a frame checked every 97), CBF_STATE_CYCLES
 * (1000), CBF_RENEGOTIATIONS (200). Exits 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <dirent.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpu_support.h"

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

/* A figure for docs/reliability.md: printed, and appended to the file
 * $CBF_FIGURES when set (test runners may swallow the output). */
static void
figure (const gchar * name, gint64 value)
{
  const gchar *path = g_getenv ("CBF_FIGURES");
  gchar *line = g_strdup_printf ("FIGURE %s %" G_GINT64_FORMAT "\n", name,
      value);

  g_print ("%s", line);
  if (path) {
    FILE *f = fopen (path, "a");

    if (f) {
      fputs (line, f);
      fclose (f);
    }
  }
  g_free (line);
}

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

/* One frame of @format, @w x @h, through @h's element against the
 * reference. */
static void
check_one_frame (GstHarness * h, const gchar * format, gint w, gint height,
    const Params * p, guint32 seed)
{
  GstVideoInfo info = info_for (format, w, height);
  guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), n_expected, c;
  Channel in[GST_VIDEO_MAX_COMPONENTS], out[GST_VIDEO_MAX_COMPONENTS];
  Channel expected[GST_VIDEO_MAX_COMPONENTS];

  channels_for_format (format, w, height, seed, in);
  filter_frame (h, format, w, height,
      frame_from_channels (format, w, height, in, seed % 2, seed), out);
  n_expected = channels_reference_for_format (&info, in, p, expected);
  for (c = 0; c < n_expected; c++)
    assert_channel_matches (&out[c], &expected[c], 1, "renegotiated", format,
        c);
  channels_free (expected, n_expected);
  channels_free (in, n);
  channels_free (out, n);
}

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
/* Bad buffers */

/* The first error message on @bus, or fails. */
static gchar *
pop_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;
  gchar *text, *debug = NULL;

  fail_unless (msg != NULL, "no element error");
  gst_message_parse_error (msg, &error, &debug);
  text = g_strdup_printf ("%s (%s)", error->message, debug ? debug : "");
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  return text;
}

GST_START_TEST (test_bad_buffers)
{
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info = info_for ("NV12", 64, 48);
  GstBuffer *buf;
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  gchar *error;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  gst_harness_set_caps (h, caps_for ("NV12", 64, 48), caps_for ("NV12", 64,
          48));

  /* Smaller than the caps say, no video meta: refused, nothing read past
   * its end (compute-sanitizer and valgrind would see it). */
  buf = gst_buffer_new_allocate (NULL, info.size / 2, NULL);
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  error = pop_error (bus);
  GST_INFO ("short buffer: %s", error);
  fail_unless (strstr (error, "caps need") != NULL, "%s", error);
  g_free (error);

  /* A video meta whose planes reach past the buffer: refused too. */
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0, 64 * 48 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 4096, 4096 };

    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_NV12, 64, 48, 2, offset, stride);
  }
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  error = pop_error (bus);
  GST_INFO ("meta past the end: %s", error);
  fail_unless (strstr (error, "plane 0") != NULL, "%s", error);
  g_free (error);

  /* After both, a good frame (no meta, default layout) is filtered right:
   * the element kept running. */
  gst_harness_set_caps (h, caps_for ("NV12", 64, 48), caps_for ("NV12", 64,
          48));
  check_one_frame (h, "NV12", 64, 48, &p, 5);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Caps no frame can satisfy. Zero size is refused by the caps. A frame too
 * large for the GPU (2^17 x 2^17 RGBA, 64 GiB) is an element error naming
 * the cause, or caps GStreamer itself refuses (2^20 x 2^20 overflows
 * GstVideoInfo); either way no crash, and the element then works with sane
 * caps. */
static void
push_huge (GstHarness * h, GstBus * bus, gint side)
{
  GstFlowReturn flow;
  GstMessage *msg;

  gst_harness_set_caps (h, caps_for ("RGBA", side, side),
      caps_for ("RGBA", side, side));
  flow = gst_harness_push (h, gst_buffer_new_allocate (NULL, 64, NULL));
  fail_if (flow == GST_FLOW_OK, "a %dx%d frame was filtered", side, side);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *error = NULL;

    gst_message_parse_error (msg, &error, NULL);
    GST_INFO ("%dx%d: %s", side, side, error->message);
    fail_unless (strstr (error->message, "Out of memory") != NULL
        || strstr (error->message, "caps need") != NULL, "%s", error->message);
    g_error_free (error);
    gst_message_unref (msg);
  } else {
    fail_unless_equals_int (flow, GST_FLOW_NOT_NEGOTIATED);
    GST_INFO ("%dx%d: caps refused", side, side);
  }
  figure (side == 1 << 17 ? "huge_caps_2e17_flow" : "huge_caps_2e20_flow",
      flow);
}

GST_START_TEST (test_huge_caps)
{
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");
  GstCaps *zero = caps_for ("RGBA", 0, 480);
  GstBus *bus = gst_bus_new ();
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };

  fail_if (gst_pad_query_accept_caps (sink, zero));
  gst_caps_unref (zero);
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  push_huge (h, bus, 1 << 17);
  push_huge (h, bus, 1 << 20);

  gst_harness_set_caps (h, caps_for ("RGBA", 40, 30), caps_for ("RGBA", 40,
          30));
  check_one_frame (h, "RGBA", 40, 30, &p, 9);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A pipeline that fails for a bad cuda-device-id, then a good one in the
 * same process: the failure leaves nothing behind that breaks the next. */
GST_START_TEST (test_fault_then_recovery)
{
  GstElement *bad = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudabilateral "
      "cuda-device-id=99 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (bad);
  GstMessage *msg;
  GstHarness *h;
  Params p = {.diameter = 7,.sigma_color = 30,.sigma_space = 3 };

  gst_element_set_state (bad, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_ERROR
      | GST_MESSAGE_EOS);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (bad, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (bad);

  h = gst_harness_new ("cudabilateral");
  g_object_set (h->element, "diameter", p.diameter, "sigma-color",
      p.sigma_color, "sigma-space", p.sigma_space, NULL);
  gst_harness_set_caps (h, caps_for ("RGBA", 64, 48), caps_for ("RGBA", 64,
          48));
  check_one_frame (h, "RGBA", 64, 48, &p, 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Allocation failures, then recovery */

/* The frame pushed into @h fails, with an element error that names
 * @site. */
static void
push_fails_at (GstHarness * h, GstBus * bus, const gchar * format, gint w,
    gint height, const gchar * site)
{
  Channel in[GST_VIDEO_MAX_COMPONENTS];
  GstVideoInfo info = info_for (format, w, height);
  gchar *error;

  channels_for_format (format, w, height, 1, in);
  fail_if (gst_harness_push (h, frame_from_channels (format, w, height, in,
              FALSE, 1)) == GST_FLOW_OK, "a frame went through without %s",
      site);
  error = pop_error (bus);
  GST_INFO ("%s: %s", site, error);
  fail_unless (strstr (error, site) != NULL, "\"%s\" does not name %s",
      error, site);
  fail_unless (strstr (error, "Out of memory") != NULL, "%s", error);
  g_free (error);
  channels_free (in, GST_VIDEO_INFO_N_COMPONENTS (&info));
}

/* A flushing seek as it reaches the element: flush, then a new segment. */
static void
flush (GstHarness * h)
{
  GstSegment segment;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

/* Each allocation a frame may make after a change (the weight tables at
 * the first frame, the grid's cells when method=grid comes, the mask's
 * planes when a mask comes) fails once the device is out of memory: an
 * element error naming it, for that frame. Once the cause is gone (memory
 * freed, the property changed back, after a flushing seek) the next frame
 * is right. */
GST_START_TEST (test_allocation_failures)
{
  const gchar *fmt = "NV12";
  const gint w = 640, height = 480;
  Params p = {.diameter = 7,.sigma_color = 30,.sigma_space = 3 };
  GstHarness *h = gst_harness_new ("cudabilateral");
  GstBus *bus = gst_bus_new ();
  gchar *mask_path = g_build_filename (g_get_tmp_dir (),
      "cbf-reliability-mask.png", NULL);
  guint8 *mask = g_malloc (w * height);
  GPtrArray *hog;
  GstHarness *grid_h;
  Channel in[3], grid_out[3], out[3];
  guint c;

  memset (mask, 255, w * height);
  write_gray_png (mask_path, mask, w, height);
  gst_element_set_bus (h->element, bus);
  params_apply (h->element, &p);
  gst_harness_set_caps (h, caps_for (fmt, w, height), caps_for (fmt, w,
          height));

  /* The weight tables, made by the first frame: fail, then after the
   * memory is freed, a right frame. */
  hog = gpu_test_hog_memory ();
  push_fails_at (h, bus, fmt, w, height, "allocating the weight tables");
  gpu_test_free_hog (hog);
  check_one_frame (h, fmt, w, height, &p, 11);

  /* The grid: fails; method back to exact (memory still short): right;
   * memory freed and method=grid again: the same frame as an element
   * that never failed. */
  hog = gpu_test_hog_memory ();
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
  push_fails_at (h, bus, fmt, w, height, "allocating the bilateral grid");
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "exact");
  check_one_frame (h, fmt, w, height, &p, 12);
  gpu_test_free_hog (hog);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "grid");
  grid_h = gst_harness_new ("cudabilateral");
  params_apply (grid_h->element, &p);
  gst_util_set_object_arg (G_OBJECT (grid_h->element), "method", "grid");
  gst_harness_set_caps (grid_h, caps_for (fmt, w, height), caps_for (fmt, w,
          height));
  channels_for_format (fmt, w, height, 13, in);
  filter_frame (grid_h, fmt, w, height, frame_from_channels (fmt, w, height,
          in, FALSE, 13), grid_out);
  filter_frame (h, fmt, w, height, frame_from_channels (fmt, w, height, in,
          TRUE, 13), out);
  {
    GstVideoInfo info = info_for (fmt, w, height);
    Channel expected[3];
    guint n = channels_reference_grid_for_format (&info, in, &p, expected);

    for (c = 0; c < 3; c++)
      assert_channel_matches (&out[c], &grid_out[c], 0,
          "grid after recovery, against a fresh element", fmt, c);
    for (c = 0; c < n; c++)
      assert_channel_matches (&out[c], &expected[c], 1,
          "grid after recovery, against the reference grid", fmt, c);
    channels_free (expected, n);
  }
  channels_free (in, 3);
  channels_free (out, 3);
  channels_free (grid_out, 3);
  gst_harness_teardown (grid_h);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", "exact");

  /* The mask's planes: fail; memory freed, a flushing seek, then the mask
   * (all 255: the plain filter) applies. */
  hog = gpu_test_hog_memory ();
  g_object_set (h->element, "mask-location", mask_path, NULL);
  push_fails_at (h, bus, fmt, w, height, "uploading the strength mask");
  gpu_test_free_hog (hog);
  flush (h);
  check_one_frame (h, fmt, w, height, &p, 14);

  figure ("allocation_failures_recovered", 3);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_unlink (mask_path);
  g_free (mask_path);
  g_free (mask);
}

GST_END_TEST;

/* A start that fails leaves a stopped element: the same element then
 * starts and filters right. */
GST_START_TEST (test_failed_start_then_start)
{
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  GstHarness *h;

  g_object_set (e, "cuda-device-id", 4096, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (e, "cuda-device-id", -1, NULL);
  params_apply (e, &p);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_caps (h, caps_for ("I420", 64, 48), caps_for ("I420", 64,
          48));
  check_one_frame (h, "I420", 64, 48, &p, 31);
  gst_harness_teardown (h);
  gst_object_unref (e);
}

GST_END_TEST;

/* The tallest frame the README promises, the kernels' launch limit. */
#define MAX_HEIGHT 65535

/* Frames taller than MAX_HEIGHT rows, which no kernel can launch for:
 * refused at negotiation with one warning naming the limit, in every mode
 * and method; frames then pushed are not negotiated, and no error is
 * posted for them. The tallest frame and a very wide one are filtered. */
GST_START_TEST (test_launch_limits)
{
  static const gchar *setups[][2] = { {"bilateral", "exact"},
  {"gaussian", "exact"}, {"bilateral", "grid"}
  };
  static const gint fine[][2] = { {1, MAX_HEIGHT}, {600000, 1} };
  Params p = {.diameter = 5,.sigma_color = 30,.sigma_space = 3 };
  guint s, i;

  for (s = 0; s < G_N_ELEMENTS (setups); s++) {
    GstHarness *h = gst_harness_new ("cudabilateral");
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *warning = NULL;

    gst_element_set_bus (h->element, bus);
    params_apply (h->element, &p);
    gst_util_set_object_arg (G_OBJECT (h->element), "mode", setups[s][0]);
    gst_util_set_object_arg (G_OBJECT (h->element), "method", setups[s][1]);
    {
      GstCaps *tall = caps_for ("GRAY8", 1, 600000);
      GstPad *sink = gst_element_get_static_pad (h->element, "sink");
      GstSegment segment;

      fail_if (gst_pad_query_accept_caps (sink, tall), "1x600000 accepted");
      /* Sticky: pushing it succeeds, sending it fails with each frame. */
      gst_pad_push_event (h->srcpad, gst_event_new_caps (tall));
      gst_segment_init (&segment, GST_FORMAT_TIME);
      gst_pad_push_event (h->srcpad, gst_event_new_segment (&segment));
      gst_object_unref (sink);
    }
    for (i = 0; i < 3; i++)
      fail_unless_equals_int (gst_harness_push (h,
              gst_buffer_new_allocate (NULL, 600000, NULL)),
          GST_FLOW_NOT_NEGOTIATED);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "no message for the refused caps");
    gst_message_parse_warning (msg, &warning, NULL);
    GST_INFO ("%s %s: %s", setups[s][0], setups[s][1], warning->message);
    fail_unless (strstr (warning->message, "65535") != NULL, "%s",
        warning->message);
    g_error_free (warning);
    gst_message_unref (msg);
    fail_if (gst_bus_have_pending (bus), "more messages than one warning "
        "for the refused caps and three frames");

    for (i = 0; i < G_N_ELEMENTS (fine); i++) {
      GstVideoInfo info = info_for ("GRAY8", fine[i][0], fine[i][1]);
      Params q = p;

      q.gaussian = g_str_equal (setups[s][0], "gaussian");
      gst_harness_set_caps (h, caps_for ("GRAY8", fine[i][0], fine[i][1]),
          caps_for ("GRAY8", fine[i][0], fine[i][1]));
      if (g_str_equal (setups[s][1], "grid")) {
        Channel in[1], out[1], expected[1];

        channels_for_format ("GRAY8", fine[i][0], fine[i][1], i, in);
        filter_frame (h, "GRAY8", fine[i][0], fine[i][1],
            frame_from_channels ("GRAY8", fine[i][0], fine[i][1], in, FALSE,
                i), out);
        fail_unless_equals_int (channels_reference_grid_for_format (&info,
                in, &q, expected), 1);
        assert_channel_matches (&out[0], &expected[0], 1, "grid at the limit",
            "GRAY8", 0);
        channels_free (in, 1);
        channels_free (out, 1);
        channels_free (expected, 1);
      } else {
        check_one_frame (h, "GRAY8", fine[i][0], fine[i][1], &q, 40 + i);
      }
      fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL,
          "%dx%d: an error", GST_VIDEO_INFO_WIDTH (&info),
          GST_VIDEO_INFO_HEIGHT (&info));
    }
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
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

  tcase_add_test (tc, test_bad_buffers);
  tcase_add_test (tc, test_huge_caps);
  tcase_add_test (tc, test_fault_then_recovery);
  tcase_add_test (tc, test_allocation_failures);
  tcase_add_test (tc, test_failed_start_then_start);
  tcase_add_test (tc, test_launch_limits);
  tcase_add_test (tc, test_renegotiation_many);
  tcase_add_test (tc, test_seek_and_eos);
  tcase_add_test (tc, test_eight_pipelines);
  tcase_add_test (tc, test_state_cycling);
  tcase_add_test (tc, test_soak);
  return s;
}

TEST_MAIN (reliability_suite, TEST_NEEDS_GPU, NULL);
