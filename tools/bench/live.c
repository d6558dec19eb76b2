/* gst-cudabilateral benchmark: what the element adds to a live preview
 * (bench.h). */

#include "bench.h"

/* ---------------------------------------------------------------------- */
/* Live sources: videotestsrc is-live=true ! element ! fakesink
 * sync=true, the way a camera preview runs. A live source makes frames at
 * its frame rate whatever happens downstream and the sink shows each at
 * its timestamp plus the pipeline's latency, so what a filter costs there
 * is the time a frame spends in it, any latency it declares, any frames it
 * holds back (queueing), and frames that arrive too late to be shown. The
 * same pipeline with identity in the element's place gives the probes' own
 * cost and the pipeline's latency without the element. */

typedef struct
{
  const char *name;
  int diameter;                 /* cudabilateral's; 0: identity */
  int width, height, framerate;
  int frames;                   /* measured (halved with --quick) */
} LiveCase;

/* About 19 s of frames in all (GPU time is scarce). identity at each size:
 * the sink's margin holds the source's time per frame, which grows with
 * the size (see live_pipeline_desc). */
static const LiveCase live_cases[] = {
  {"identity (probe overhead)", 0, 1920, 1080, 60, 180},
  {"cudabilateral d=15", 15, 1920, 1080, 60, 240},
  {"cudabilateral d=5", 5, 1920, 1080, 60, 180},
  {"identity (probe overhead)", 0, 3840, 2160, 30, 90},
  {"cudabilateral d=15", 15, 3840, 2160, 30, 120},
};

/* A video sink's drop threshold (GstVideoSink's max-lateness). */
#define LIVE_MAX_LATENESS (20 * GST_MSECOND)


/* A Probe and what only a live run needs: the sink's QoS jitter per frame,
 * and its count of dropped frames around the measured ones. */
typedef struct
{
  Probe probe;
  int n_in;                     /* frames in so far (probe.lock) */
  guint64 first, last;          /* offsets of the measured frames */
  int drain;                    /* frames to wait for past them if the
                                 * element drops frames */
  double *jitter_ms;            /* per offset */
  gboolean *have_jitter;
  guint64 last_out;             /* offset of the frame last out */
  GstElement *sink;
  guint64 sink_dropped[2];      /* before the first, after the last */
  gboolean have_dropped[2];
} LiveProbe;

/* Frames the sink dropped so far (GstBaseSink's stats). */
static guint64
sink_dropped_so_far (GstElement * sink)
{
  GstStructure *stats = NULL;
  guint64 dropped = 0;

  g_object_get (sink, "stats", &stats, NULL);
  if (stats) {
    gst_structure_get_uint64 (stats, "dropped", &dropped);
    gst_structure_free (stats);
  }
  return dropped;
}

/* probe_in, counting the frames in (for live_frames_done). */
static GstPadProbeReturn
live_probe_in (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer data)
{
  LiveProbe *lp = data;

  record_time (&lp->probe, GST_PAD_PROBE_INFO_BUFFER (info), lp->probe.t_in,
      lp->probe.mem_in);
  g_mutex_lock (&lp->probe.lock);
  lp->n_in++;
  g_mutex_unlock (&lp->probe.lock);
  return GST_PAD_PROBE_OK;
}

/* probe_out, and the sink's drop count as the measured frames start and
 * end: no queue between the element and the sink, so when a frame leaves
 * the element the sink is done with every frame before it. Read after the
 * frame's time, before live_wait learns of it (count_out). */
static GstPadProbeReturn
live_probe_out (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer data)
{
  LiveProbe *lp = data;
  guint64 i = GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info));
  int edge = i > lp->last;

  /* Out once readable, as the sink that reads it next would see it. */
  wait_output_ready (GST_PAD_PROBE_INFO_BUFFER (info));
  record_time (&lp->probe, GST_PAD_PROBE_INFO_BUFFER (info), lp->probe.t_out,
      lp->probe.mem_out);
  lp->last_out = i;
  if (i >= lp->first && !lp->have_dropped[edge]) {
    lp->sink_dropped[edge] = sink_dropped_so_far (lp->sink);
    lp->have_dropped[edge] = TRUE;
  }
  count_out (&lp->probe);
  return GST_PAD_PROBE_OK;
}

/* With qos=true the sink sends a QoS event upstream after each frame it
 * showed or dropped; its jitter is how late (> 0) or early (< 0) the frame
 * reached the sink against the time it was due. The sink sends it from
 * the streaming thread before the next frame comes, so it belongs to the
 * frame that last left the element. */
static GstPadProbeReturn
live_probe_qos (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer data)
{
  LiveProbe *lp = data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstClockTimeDiff jitter;

  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS
      && lp->last_out < (guint64) lp->probe.capacity) {
    gst_event_parse_qos (event, NULL, NULL, &jitter, NULL);
    lp->jitter_ms[lp->last_out] = jitter / 1e6;
    lp->have_jitter[lp->last_out] = TRUE;
  }
  return GST_PAD_PROBE_OK;
}

static double
clock_ms (GstClockTime t)
{
  return GST_CLOCK_TIME_IS_VALID (t) ? t / 1e6 : -1;
}

/* Min and max of a latency @query, answered or not; takes the query. */
static void
latency_of (GstQuery * query, gboolean answered, gboolean * live,
    double *min_ms, double *max_ms)
{
  GstClockTime min = GST_CLOCK_TIME_NONE, max = GST_CLOCK_TIME_NONE;

  if (answered)
    gst_query_parse_latency (query, live, &min, &max);
  *min_ms = clock_ms (min);
  *max_ms = clock_ms (max);
  gst_query_unref (query);
}

/* What the pipeline, the element (its source pad) and upstream of it (the
 * peer of its sink pad) answer to a latency query: the element adds no
 * latency if the latter two agree. */
static void
query_latencies (LiveRow * row, GstElement * pipeline, GstPad * sinkpad,
    GstPad * srcpad)
{
  GstQuery *q;
  gboolean live = FALSE;

  q = gst_query_new_latency ();
  latency_of (q, gst_element_query (pipeline, q), &row->live,
      &row->pipeline_min_ms, &row->pipeline_max_ms);
  q = gst_query_new_latency ();
  latency_of (q, gst_pad_query (srcpad, q), &live, &row->element_min_ms,
      &row->element_max_ms);
  q = gst_query_new_latency ();
  latency_of (q, gst_pad_peer_query (sinkpad, q), &live,
      &row->upstream_min_ms, &row->upstream_max_ms);
}

static void
print_bus_error (const char *name, GstMessage * msg)
{
  GError *error = NULL;
  gchar *debug = NULL;

  gst_message_parse_error (msg, &error, &debug);
  fprintf (stderr, "live %s: %s: %s\n", name,
      GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), error->message);
  if (debug)
    fprintf (stderr, "  (%s)\n", debug);
  g_clear_error (&error);
  g_free (debug);
}

/* Whether the measured frames are done: a frame past them left the
 * element (which passes frames on in order), or, should it drop frames
 * (its QoS) and so never pass one on, lp->drain more frames came in. */
static gboolean
live_frames_done (LiveProbe * lp)
{
  gboolean done;

  g_mutex_lock (&lp->probe.lock);
  done = (guint64) lp->probe.n_out >= lp->last + 2
      || (guint64) lp->n_in >= lp->last + 2 + lp->drain;
  g_mutex_unlock (&lp->probe.lock);
  return done;
}

/* Waits for live_frames_done; FALSE, with the reason on stderr, when an
 * error reached @bus first (a GPU that failed mid-run) or @timeout_s
 * passed. */
static gboolean
live_wait (LiveProbe * lp, GstBus * bus, const char *name, int timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + timeout_s * G_TIME_SPAN_SECOND;

  while (g_get_monotonic_time () < deadline) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 20 * GST_MSECOND,
        GST_MESSAGE_ERROR);

    if (msg) {
      print_bus_error (name, msg);
      gst_message_unref (msg);
      return FALSE;
    }
    if (live_frames_done (lp))
      return TRUE;
  }
  g_mutex_lock (&lp->probe.lock);
  fprintf (stderr, "live %s: stalled (%d frames in, %d out)\n", name,
      lp->n_in, lp->probe.n_out);
  g_mutex_unlock (&lp->probe.lock);
  return FALSE;
}

/* The measured frames' times in the element, the most frames inside it at
 * once, and what became of them: dropped in the element (entered, never
 * left: its QoS), dropped or late at the sink. */
static void
live_stats (LiveRow * row, const LiveProbe * lp)
{
  const Probe *p = &lp->probe;
  double *lat = g_new (double, lp->last - lp->first + 1);
  gint64 t_first = 0, t_last = 0;
  guint64 k;
  int n = 0, j;

  for (k = lp->first; k <= lp->last; k++) {
    int inside = 1;

    if (!p->t_in[k])
      continue;                 /* never made (the source skipped it) */
    row->frames++;
    t_first = t_first ? t_first : p->t_in[k];
    t_last = p->t_in[k];
    if (!p->t_out[k]) {
      row->dropped_element++;
      continue;
    }
    lat[n++] = (p->t_out[k] - p->t_in[k]) / 1000.0;
    /* Frames (warm-up ones too) that had entered and not yet left when
     * this one entered; dropped ones never left and are not counted. */
    for (j = 0; j < p->capacity; j++)
      if ((guint64) j != k && p->t_in[j] && p->t_in[j] <= p->t_in[k]
          && p->t_out[j] > p->t_in[k])
        inside++;
    row->max_in_flight = MAX (row->max_in_flight, inside);
    if (lp->have_jitter[k]) {
      row->late_sink += lp->jitter_ms[k] > 0;
      row->sink_jitter_max_ms = row->have_jitter ?
          MAX (row->sink_jitter_max_ms, lp->jitter_ms[k]) : lp->jitter_ms[k];
      row->have_jitter = TRUE;
    }
  }
  if (row->frames > 1)
    row->fps = (row->frames - 1) / ((t_last - t_first) / 1e6);
  row->dropped_sink = lp->have_dropped[0] && lp->have_dropped[1] ?
      (int) (lp->sink_dropped[1] - lp->sink_dropped[0]) : -1;
  row->latency_median_ms = row->latency_p99_ms = row->latency_max_ms = -1;
  if (n > 0) {
    row->latency_median_ms = percentile (lat, n, 0.5);
    row->latency_p99_ms = percentile (lat, n, 0.99);
    row->latency_max_ms = lat[n - 1];   /* sorted by percentile () */
  }
  g_free (lat);
}

static void
print_live_row (const LiveRow * r)
{
  printf ("live %-26s %4dx%-4d@%d  in->out median %6.3f ms  p99 %6.3f  "
      "max %6.3f  in flight %d  dropped %d+%d late %d of %d  sink jitter "
      "max %6.2f ms  latency %s %.3f ms (element %.3f, upstream %.3f)\n",
      r->name, r->width, r->height, r->framerate, r->latency_median_ms,
      r->latency_p99_ms, r->latency_max_ms, r->max_in_flight,
      r->dropped_element, r->dropped_sink, r->late_sink, r->frames,
      r->have_jitter ? r->sink_jitter_max_ms : NAN,
      r->live ? "live" : "not live", r->pipeline_min_ms, r->element_min_ms,
      r->upstream_min_ms);
  fflush (stdout);
}

/* The pipeline of @c: a checkerboard of 8-pixel squares, edges everywhere,
 * and a sink that syncs, sends QoS and drops frames late by more than
 * LIVE_MAX_LATENESS, as video sinks do. With no queue, source, element and
 * sink share one streaming thread, which waits in the sink until each frame
 * is due; the next frame is drawn after that, so a frame's margin at the
 * sink is about the frame period less the source's drawing and the
 * element's time. Hence a cheap pattern: the filter's cost does not depend
 * on the picture, the source's does (checkers-8 draws several times faster
 * than ball or snow). */
static gchar *
live_pipeline_desc (const LiveCase * c)
{
  gchar *element = c->diameter ? g_strdup_printf ("cudabilateral "
      "diameter=%d sigma-color=%g sigma-space=%g", c->diameter, SIGMA_COLOR,
      SIGMA_SPACE) : g_strdup ("identity");
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true "
      "pattern=checkers-8 ! "
      "video/x-raw,format=RGBA,width=%d,height=%d,framerate=%d/1 ! "
      "%s name=f ! fakesink name=sink sync=true qos=true "
      "max-lateness=%" G_GINT64_FORMAT, c->width, c->height, c->framerate,
      element, (gint64) LIVE_MAX_LATENESS);

  g_free (element);
  return desc;
}

/* Runs @c until its measured frames have passed, after a third of a
 * second of warm-up (the first frames set up CUDA, the pools and the
 * sink's QoS averages); FALSE, with the reason on stderr, if it failed. */
static gboolean
bench_live_case (const LiveCase * c, gboolean quick, LiveRow * row)
{
  int frames = quick ? c->frames / 2 : c->frames;
  int warmup = c->framerate / 3;
  gchar *desc = live_pipeline_desc (c);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *f;
  GstPad *sinkpad, *srcpad, *sink_sinkpad;
  GstBus *bus;
  GstMessage *msg;
  LiveProbe lp;
  gboolean ok = FALSE;

  memset (row, 0, sizeof (*row));
  row->name = c->name;
  row->diameter = c->diameter;
  row->width = c->width;
  row->height = c->height;
  row->framerate = c->framerate;
  if (!pipeline || error) {
    fprintf (stderr, "live %s: %s\n", c->name,
        error ? error->message : "no pipeline");
    g_clear_error (&error);
    if (pipeline)
      gst_object_unref (pipeline);
    g_free (desc);
    return FALSE;
  }

  /* Room for one frame past the measured ones: when it leaves, they are
   * done and the sink's drop count is read. */
  memset (&lp, 0, sizeof (lp));
  probe_init (&lp.probe, warmup + frames + 2);
  lp.first = warmup;
  lp.last = warmup + frames - 1;
  lp.drain = warmup;
  lp.jitter_ms = g_new0 (double, lp.probe.capacity);
  lp.have_jitter = g_new0 (gboolean, lp.probe.capacity);
  lp.last_out = G_MAXUINT64;
  lp.sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  sinkpad = gst_element_get_static_pad (f, "sink");
  srcpad = gst_element_get_static_pad (f, "src");
  sink_sinkpad = gst_element_get_static_pad (lp.sink, "sink");
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER, live_probe_in, &lp,
      NULL);
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, live_probe_out, &lp,
      NULL);
  gst_pad_add_probe (sink_sinkpad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM,
      live_probe_qos, &lp, NULL);

  bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE
      || gst_element_get_state (pipeline, NULL, NULL, 30 * GST_SECOND) !=
      GST_STATE_CHANGE_SUCCESS) {
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      print_bus_error (c->name, msg);
      gst_message_unref (msg);
    } else {
      fprintf (stderr, "live %s: did not start playing\n", c->name);
    }
  } else if (live_wait (&lp, bus, c->name,
          10 + 2 * (warmup + frames) / c->framerate)) {
    query_latencies (row, pipeline, sinkpad, srcpad);
    ok = TRUE;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (ok) {
    live_stats (row, &lp);
    print_live_row (row);
  }

  gst_object_unref (bus);
  gst_object_unref (sinkpad);
  gst_object_unref (srcpad);
  gst_object_unref (sink_sinkpad);
  gst_object_unref (f);
  gst_object_unref (lp.sink);
  gst_object_unref (pipeline);
  probe_clear (&lp.probe);
  g_free (lp.jitter_ms);
  g_free (lp.have_jitter);
  g_free (desc);
  return ok;
}

void
bench_live (GArray * rows, gboolean quick)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (live_cases); i++) {
    LiveRow row;

    if (bench_live_case (&live_cases[i], quick, &row))
      g_array_append_val (rows, row);
  }
}
