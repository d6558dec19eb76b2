/* gst-cudabilateral benchmark: frames/s and latency through GStreamer
 * pipelines (bench.h). */

#include "bench.h"

/* ---------------------------------------------------------------------- */
/* Pipelines */

typedef struct
{
  GstAppSink *sink;
  Probe *probe;
  gint stop;
} SinkReader;

/* An application's thread pulling the frames of "appsink name=sink": each
 * counts out once read (mapped), in the reader's own thread, as an
 * application's frames do. Until told to stop: the sink gives nothing
 * before it starts, and may hold frames past the last one counted. */
static gpointer
read_sink (gpointer data)
{
  SinkReader *r = data;

  while (!g_atomic_int_get (&r->stop)) {
    GstSample *sample = gst_app_sink_try_pull_sample (r->sink,
        10 * GST_MSECOND);
    GstBuffer *buf;

    if (!sample) {
      g_usleep (100);
      continue;
    }
    buf = gst_sample_get_buffer (sample);

    wait_output_ready (buf);
    record_time (r->probe, buf, r->probe->t_out, r->probe->mem_out);
    count_out (r->probe);
    gst_sample_unref (sample);
  }
  return NULL;
}

/* Arrival times at a sink, in order. */
static GstPadProbeReturn
probe_decoded (GstPad * pad G_GNUC_UNUSED,
    GstPadProbeInfo * info G_GNUC_UNUSED, gpointer data)
{
  Probe *p = data;

  if (p->n_out < p->capacity)
    p->t_out[p->n_out++] = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

/* A small number per distinct memory in @mems[0 .. n - 1], in order of
 * first appearance. */
static int
memory_index (GPtrArray * seen, gconstpointer mem)
{
  guint i;

  for (i = 0; i < seen->len; i++)
    if (g_ptr_array_index (seen, i) == mem)
      return i;
  g_ptr_array_add (seen, (gpointer) mem);
  return seen->len - 1;
}

/* Writes latency_log_dir/NAME-WxH.csv: frame (from @first), latency in ms
 * and the numbers of the input and output memory of each of @n frames. */
static void
write_latency_log (const char *name, int width, int height, int first,
    int n, const double *lat, const int *in_memory, const int *out_memory)
{
  gchar *base = g_strdup_printf ("%s-%dx%d.csv", name, width, height);
  gchar *path;
  FILE *f;
  int i;

  g_strcanon (base, G_CSET_a_2_z G_CSET_A_2_Z G_CSET_DIGITS ".-", '_');
  path = g_build_filename (latency_log_dir, base, NULL);
  f = fopen (path, "w");
  if (f) {
    fprintf (f, "frame,latency_ms,in_memory,out_memory\n");
    for (i = 0; i < n; i++)
      fprintf (f, "%d,%.4f,%d,%d\n", first + i, lat[i], in_memory[i],
          out_memory[i]);
    fclose (f);
  } else {
    fprintf (stderr, "%s: cannot write\n", path);
  }
  g_free (path);
  g_free (base);
}

/* A pipeline row's latency figures from its frames' @lat (sorted on
 * return), printed. */
/* --pipeline: only the pipeline rows whose name holds this. */
const char *pipeline_filter;

static gboolean
row_wanted (const char *name)
{
  return !pipeline_filter || strstr (name, pipeline_filter) != NULL;
}

/* The copy ceiling (bench_transfers' frames/s) of the size being run,
 * while the system-memory rows that are read against it run; else 0. */
static double copy_ceiling_fps;

/* The regions rows: a 256 x 256 "face" box at the frame's centre on every
 * frame whose number is a multiple of this (0: no box). */
static int box_every;

/* What a bench function returns for a row it did not run. */
static const PipelineRow not_run;

/* Appends @row unless it was not run (row_wanted). */
static void
append_row (GArray * rows, const PipelineRow * row)
{
  if (row->name)
    g_array_append_vals (rows, row, 1);
}

static void
finish_pipeline_row (PipelineRow * row, double *lat)
{
  row->streams = 1;
  row->min_stream_fps = row->fps;
  row->latency_median_ms = percentile (lat, row->frames, 0.5);
  row->latency_p99_ms = percentile (lat, row->frames, 0.99);
  row->ceiling_share = copy_ceiling_fps > 0 ? row->fps / copy_ceiling_fps : 0;
  printf ("pipeline %-44s %4dx%-4d %8.1f frames/s  latency median %6.3f ms"
      "  p99 %6.3f ms", row->name, row->width, row->height, row->fps,
      row->latency_median_ms, row->latency_p99_ms);
  if (row->ceiling_share > 0)
    printf ("  %.0f %% of the copy ceiling", 100 * row->ceiling_share);
  if (row->cpu_ms_per_frame >= 0)
    printf ("  CPU %.3f ms, %.1f page faults a frame", row->cpu_ms_per_frame,
        row->faults_per_frame);
  printf ("\n");
  fflush (stdout);
}

/* Pipelines bench_streams is running at once (0 when none). */
static gint concurrent_pipelines;

/* User and system CPU time in @use, in seconds. */
static double
cpu_seconds (const struct rusage *use)
{
  return use->ru_utime.tv_sec + use->ru_stime.tv_sec
      + (use->ru_utime.tv_usec + use->ru_stime.tv_usec) / 1e6;
}

static void
wait_frames (Probe * p, int n)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  g_mutex_lock (&p->lock);
  while (p->n_out < n)
    if (!g_cond_wait_until (&p->cond, &p->lock, deadline)) {
      fprintf (stderr, "pipeline stalled at %d of %d frames\n", p->n_out, n);
      exit (1);
    }
  g_mutex_unlock (&p->lock);
}

/* Where the frames pushed into a benchmarked pipeline live. */
typedef enum
{
  FRAMES_RECYCLED,              /* N_POOL_FRAMES pageable system-memory
                                 * frames, pushed in turn, as a pool of
                                 * upstream's would */
  FRAMES_FRESH,                 /* pageable memory new every frame (a
                                 * GstMemory wrapping one of N_POOL_FRAMES
                                 * areas), as an appsrc application that
                                 * wraps its own memory gives */
  FRAMES_POOL,                  /* frames from the pool @first proposes:
                                 * pinned memory for cudabilateral */
  FRAMES_CUDA_POOL,             /* CUDA memory (caps memory:CUDAMemory)
                                 * from the CUDA pool @first proposes */
} FrameSource;

#define N_POOL_FRAMES 6

/* Activates @pool for @caps and fills N_POOL_FRAMES of its buffers once
 * (a mid-grey picture; the filter's cost does not depend on content). */
static void
fill_pool_frames (GstBufferPool * pool, GstCaps * caps, guint size,
    GstBuffer ** frames)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  int i;

  gst_buffer_pool_config_set_params (config, caps, size, N_POOL_FRAMES,
      N_POOL_FRAMES);
  gst_buffer_pool_set_config (pool, config);
  gst_buffer_pool_set_active (pool, TRUE);
  for (i = 0; i < N_POOL_FRAMES; i++) {
    gst_buffer_pool_acquire_buffer (pool, &frames[i], NULL);
    gst_buffer_memset (frames[i], 0, 0x80, gst_buffer_get_size (frames[i]));
  }
}

/* The pool @src's peer proposes for @caps (asked once negotiated). */
static GstBufferPool *
proposed_pool (GstElement * src, GstCaps * caps, guint * size)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstPad *srcpad = gst_element_get_static_pad (src, "src");
  GstBufferPool *pool = NULL;

  if (gst_pad_peer_query (srcpad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, size, NULL, NULL);
  gst_object_unref (srcpad);
  gst_query_unref (query);
  return pool;
}

/* A pool of CUDA memory in the CUDA context @element works in, so that its
 * frames reach it without a transfer. */
static GstBufferPool *
cuda_pool_of (G_GNUC_UNUSED GstElement * element)
{
#if CBF_HAVE_CUDA_MEMORY
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstContext *context = NULL;
  GstCudaContext *cuda = NULL;
  GstBufferPool *pool = NULL;

  if (gst_element_query (element, query)) {
    gst_query_parse_context (query, &context);
    if (context && gst_structure_get (gst_context_get_structure (context),
            GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, NULL)) {
      pool = gst_cuda_buffer_pool_new (cuda);
      gst_object_unref (cuda);
    }
  }
  gst_query_unref (query);
  return pool;
#else
  return NULL;
#endif
}

/* Runs @desc (appsrc name=src ! … ! fakesink), timing buffers from the sink
 * pad of element @first to the source pad of element @last, RGBA frames
 * from @frames; a frame is out once readable (probe_out). Where @desc ends
 * in "appsink name=sink", a frame is out once the application's thread
 * has read it (read_sink) instead. */
static PipelineRow
bench_pipeline (const char *name, const char *desc, const char *first,
    const char *last, int width, int height, int frames,
    FrameSource frame_source)
{
  PipelineRow row = { name, width, height, frames, 0, 0, 0, 1, 0, -1, -1, 0 };
  GError *error = NULL;
  GstElement *pipeline;
  GstElement *src, *e_first, *e_last;
  GstPad *pad_in, *pad_out;
  GstCaps *caps;
  GstVideoInfo info;
  GstBuffer *pushed[N_POOL_FRAMES] = { NULL };
  GstBufferPool *pool = NULL;
  Probe probe;
  GstElement *sink;
  SinkReader reader;
  GThread *reader_thread = NULL;
  double *lat;
  gint64 t0 = 0, t1;
  struct rusage use0 = { 0 }, use1;
  int i, first_offset = 0, n_pushed = N_POOL_FRAMES, warmup = 20;

  /* The pipelines of a many-streams row run whatever their own name. */
  if (!row_wanted (name) && !g_atomic_int_get (&concurrent_pipelines))
    return not_run;
  pipeline = gst_parse_launch (desc, &error);
  lat = g_new (double, frames);

  if (!pipeline) {
    fprintf (stderr, "%s: %s\n", desc, error->message);
    row.fps = -1;
    return row;
  }
  probe_init (&probe, frames + warmup + 1);

  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  e_first = gst_bin_get_by_name (GST_BIN (pipeline), first);
  e_last = gst_bin_get_by_name (GST_BIN (pipeline), last);
  pad_in = gst_element_get_static_pad (e_first, "sink");
  pad_out = gst_element_get_static_pad (e_last, "src");
  gst_pad_add_probe (pad_in, GST_PAD_PROBE_TYPE_BUFFER, probe_in, &probe, NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (sink && GST_IS_APP_SINK (sink)) {
    reader.sink = GST_APP_SINK (sink);
    reader.probe = &probe;
    reader.stop = 0;
    reader_thread = g_thread_new ("bench-reader", read_sink, &reader);
  } else {
    gst_pad_add_probe (pad_out, GST_PAD_PROBE_TYPE_BUFFER, probe_out, &probe,
        NULL);
  }

  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "RGBA",
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, "framerate",
      GST_TYPE_FRACTION, 0, 1, NULL);
  gst_video_info_from_caps (&info, caps);
  if (frame_source == FRAMES_CUDA_POOL)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, "block", TRUE,
      "max-buffers", (guint64) 2, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  if (frame_source == FRAMES_CUDA_POOL) {
    pool = cuda_pool_of (e_first);
    if (pool)
      fill_pool_frames (pool, caps, info.size, pushed);
  } else {
    /* The pool's first frame negotiates, from memory of its own. */
    for (i = 0; i < (frame_source == FRAMES_POOL ? 1 : N_POOL_FRAMES); i++) {
      pushed[i] = gst_buffer_new_allocate (NULL, info.size, NULL);
      gst_buffer_memset (pushed[i], 0, 0x80, info.size);
    }
  }
  if (frame_source == FRAMES_POOL) {
    guint size = info.size;

    /* The first frame negotiates; then the allocation query is answered. */
    GST_BUFFER_OFFSET (pushed[0]) = 0;
    gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (pushed[0]));
    wait_frames (&probe, 1);
    first_offset = 1;
    gst_buffer_unref (pushed[0]);
    pool = proposed_pool (src, caps, &size);
    if (pool)
      fill_pool_frames (pool, caps, MAX (size, info.size), pushed);
  }
  if (frame_source == FRAMES_POOL || frame_source == FRAMES_CUDA_POOL) {
    if (!pool) {
      fprintf (stderr, "%s: no pool\n", name);
      exit (1);
    }
  }

  for (i = first_offset; i <= frames + warmup; i++) {
    GstBuffer *buf;

    if (frame_source == FRAMES_FRESH) {
      /* A new memory on one of the areas: no copy of pixels, but a memory
       * the element has not seen. */
      GstMapInfo map;

      gst_buffer_map (pushed[i % n_pushed], &map, GST_MAP_READ);
      buf = gst_buffer_new ();
      gst_buffer_append_memory (buf, gst_memory_new_wrapped (0, map.data,
              map.size, 0, map.size, NULL, NULL));
      gst_buffer_unmap (pushed[i % n_pushed], &map);
    } else {
      /* A new buffer on the same memory: no copy of pixels. */
      buf = gst_buffer_copy (pushed[i % n_pushed]);
    }

    if (i == warmup + 1) {
      wait_frames (&probe, warmup + 1);
      t0 = g_get_monotonic_time ();
      getrusage (RUSAGE_SELF, &use0);
    }
    GST_BUFFER_OFFSET (buf) = i;
    GST_BUFFER_PTS (buf) = i * GST_MSECOND;
    if (box_every > 0 && i % box_every == 0)
      gst_buffer_add_video_region_of_interest_meta (buf, "face",
          (width - 256) / 2, (height - 256) / 2, 256, 256);
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  }
  wait_frames (&probe, frames + warmup + 1);
  t1 = g_get_monotonic_time ();
  getrusage (RUSAGE_SELF, &use1);
  row.fps = frames / ((t1 - t0) / 1e6);
  /* The process's use is this pipeline's only when it runs alone. */
  if (!g_atomic_int_get (&concurrent_pipelines)) {
    row.cpu_ms_per_frame = (cpu_seconds (&use1) - cpu_seconds (&use0)) * 1e3
        / frames;
    row.faults_per_frame = (double) (use1.ru_minflt - use0.ru_minflt) / frames;
  }
  for (i = 0; i < frames; i++) {
    int k = warmup + 1 + i;
    lat[i] = (probe.t_out[k] - probe.t_in[k]) / 1000.0;
  }
  if (latency_log_dir) {
    GPtrArray *seen_in = g_ptr_array_new (), *seen_out = g_ptr_array_new ();
    int *in_memory = g_new (int, frames), *out_memory = g_new (int, frames);

    for (i = 0; i < frames; i++) {
      in_memory[i] = memory_index (seen_in, probe.mem_in[warmup + 1 + i]);
      out_memory[i] = memory_index (seen_out, probe.mem_out[warmup + 1 + i]);
    }
    write_latency_log (name, width, height, warmup + 1, frames, lat,
        in_memory, out_memory);
    g_free (in_memory);
    g_free (out_memory);
    g_ptr_array_free (seen_in, TRUE);
    g_ptr_array_free (seen_out, TRUE);
  }
  finish_pipeline_row (&row, lat);

  if (reader_thread) {
    g_atomic_int_set (&reader.stop, 1);
    g_thread_join (reader_thread);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (sink)
    gst_object_unref (sink);
  for (i = 0; i < n_pushed; i++)
    gst_buffer_unref (pushed[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_caps_unref (caps);
  gst_object_unref (pad_in);
  gst_object_unref (pad_out);
  gst_object_unref (e_first);
  gst_object_unref (e_last);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  probe_clear (&probe);
  g_free (lat);
  return row;
}

/* One of the pipelines bench_streams runs at once. */
typedef struct
{
  const char *desc;
  int width, height, frames;
  FrameSource source;
  PipelineRow row;
} StreamJob;

static gpointer
stream_job_main (gpointer data)
{
  StreamJob *job = data;

  job->row = bench_pipeline ("  one of them", job->desc, "f", "f",
      job->width, job->height, job->frames, job->source);
  return NULL;
}

/* @n pipelines @desc at once, each with its own element and its own
 * pushing thread, as many streams on one GPU: their frames/s summed, the
 * slowest one's, and the highest latencies. */
static PipelineRow
bench_streams (const char *name, const char *desc, int n, int width,
    int height, int frames, FrameSource source)
{
  PipelineRow row =
      { name, width, height, frames * n, 0, 0, 0, n, 0, -1, -1, 0 };
  StreamJob *jobs;
  GThread **threads;
  int i;

  if (!row_wanted (name))
    return not_run;
  jobs = g_new0 (StreamJob, n);
  threads = g_new0 (GThread *, n);
  g_atomic_int_set (&concurrent_pipelines, n);

  for (i = 0; i < n; i++) {
    jobs[i].desc = desc;
    jobs[i].width = width;
    jobs[i].height = height;
    jobs[i].frames = frames;
    jobs[i].source = source;
    threads[i] = g_thread_new ("stream", stream_job_main, &jobs[i]);
  }
  for (i = 0; i < n; i++) {
    const PipelineRow *r = &jobs[i].row;

    g_thread_join (threads[i]);
    row.fps += r->fps;
    row.min_stream_fps = i == 0 ? r->fps : MIN (row.min_stream_fps, r->fps);
    row.latency_median_ms = MAX (row.latency_median_ms, r->latency_median_ms);
    row.latency_p99_ms = MAX (row.latency_p99_ms, r->latency_p99_ms);
  }
  printf ("pipeline %-44s %4dx%-4d %8.1f frames/s  (%d streams, slowest "
      "%.1f)  latency median %6.3f ms  p99 %6.3f ms (highest)\n", name,
      width, height, row.fps, n, row.min_stream_fps, row.latency_median_ms,
      row.latency_p99_ms);
  fflush (stdout);
  g_atomic_int_set (&concurrent_pipelines, 0);
  g_free (threads);
  g_free (jobs);
  return row;
}

/* Frames/s of a whole decoding pipeline (@desc ends in "fakesink
 * name=sink"): frames over the time from the first to the last frame
 * reaching the sink. */
static PipelineRow
bench_decode (const char *name, const char *desc)
{
  PipelineRow row = { name, 0, 0, 0, -1, -1, -1, 1, -1, -1, -1, 0 };
  GError *error = NULL;
  GstElement *pipeline;
  GstElement *sink;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  Probe probe;

  if (!row_wanted (name))
    return not_run;
  pipeline = gst_parse_launch (desc, &error);

  if (!pipeline) {
    fprintf (stderr, "%s: %s\n", desc, error->message);
    return row;
  }
  probe_init (&probe, 1 << 16);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, probe_decoded, &probe,
      NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS && probe.n_out > 1) {
    GstVideoInfo info;
    GstCaps *caps = gst_pad_get_current_caps (pad);

    gst_video_info_from_caps (&info, caps);
    gst_caps_unref (caps);
    row.width = GST_VIDEO_INFO_WIDTH (&info);
    row.height = GST_VIDEO_INFO_HEIGHT (&info);
    row.frames = probe.n_out;
    row.fps = (probe.n_out - 1) / ((probe.t_out[probe.n_out - 1] -
            probe.t_out[0]) / 1e6);
    printf ("pipeline %-44s %4dx%-4d %8.1f frames/s  (%d frames)\n", name,
        row.width, row.height, row.fps, row.frames);
  } else {
    fprintf (stderr, "%s: did not run to the end\n", name);
  }
  fflush (stdout);
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  probe_clear (&probe);
  return row;
}

/* The bytes of a frame up and down at once with cudaMemcpyAsync alone
 * (pinned memory, two streams, no GStreamer, no kernel), timed per frame
 * as the pipelines are: how fast the host link itself is, at the same
 * moment of the run, for the element's latency to be read against. The
 * host link can have episodes of tens of milliseconds in which such
 * copies take twice as long or more. */
static PipelineRow
bench_transfers (const char *name, int width, int height, int frames,
    gboolean needed)
{
  PipelineRow row = { name, width, height, frames, 0, 0, 0, 1, 0, -1, -1, 0 };
  const size_t size = (size_t) width * height * 4;
  const int warmup = 20, n_out = 2;
  guint8 *host_in[N_POOL_FRAMES], *host_out[2], *dev_in, *dev_out;
  double *lat;
  cudaStream_t up, down;
  gint64 t0 = 0;
  int i;

  if (!row_wanted (name) && !needed)
    return not_run;
  lat = g_new (double, frames);

  for (i = 0; i < N_POOL_FRAMES; i++)
    CHECK (cudaHostAlloc ((void **) &host_in[i], size, cudaHostAllocDefault));
  for (i = 0; i < n_out; i++)
    CHECK (cudaHostAlloc ((void **) &host_out[i], size, cudaHostAllocDefault));
  CHECK (cudaMalloc ((void **) &dev_in, size));
  CHECK (cudaMalloc ((void **) &dev_out, size));
  CHECK (cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking));
  for (i = -warmup; i < frames; i++) {
    gint64 begin = g_get_monotonic_time ();
    int slot = (i + warmup) % N_POOL_FRAMES, out_slot = (i + warmup) % n_out;

    if (i == 0)
      t0 = begin;
    CHECK (cudaMemcpyAsync (dev_in, host_in[slot], size,
            cudaMemcpyHostToDevice, up));
    CHECK (cudaMemcpyAsync (host_out[out_slot], dev_out, size,
            cudaMemcpyDeviceToHost, down));
    CHECK (cudaStreamSynchronize (up));
    CHECK (cudaStreamSynchronize (down));
    if (i >= 0)
      lat[i] = (g_get_monotonic_time () - begin) / 1000.0;
  }
  row.fps = frames / ((g_get_monotonic_time () - t0) / 1e6);
  if (latency_log_dir) {
    int *in_memory = g_new (int, frames), *out_memory = g_new (int, frames);

    for (i = 0; i < frames; i++) {
      in_memory[i] = (i + warmup) % N_POOL_FRAMES;
      out_memory[i] = (i + warmup) % n_out;
    }
    write_latency_log (name, width, height, 0, frames, lat, in_memory,
        out_memory);
    g_free (in_memory);
    g_free (out_memory);
  }
  finish_pipeline_row (&row, lat);

  CHECK (cudaStreamDestroy (up));
  CHECK (cudaStreamDestroy (down));
  CHECK (cudaFree (dev_in));
  CHECK (cudaFree (dev_out));
  for (i = 0; i < N_POOL_FRAMES; i++)
    CHECK (cudaFreeHost (host_in[i]));
  for (i = 0; i < n_out; i++)
    CHECK (cudaFreeHost (host_out[i]));
  g_free (lat);
  return row;
}

void
bench_pipelines (GArray * rows, gboolean quick, const char *clip)
{
  const char *filter = "cudabilateral name=f diameter=15 sigma-color=30 "
      "sigma-space=5";
  /* CUDA-memory rows need nvcodec and a plugin built with CUDA memory. */
  gboolean have_nvcodec = CBF_HAVE_CUDA_MEMORY &&
      gst_element_factory_find ("cudaupload") != NULL;
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], h = sizes[s][1];
    int frames = quick ? 100 : (w > 2000 ? 1000 : 3000);
    gchar *desc = g_strdup_printf ("appsrc name=src ! %s ! fakesink "
        "sync=false", filter);
    /* Frames in system memory go to an application, which reads them in a
     * thread of its own. */
    gchar *app_desc = g_strdup_printf ("appsrc name=src ! %s ! appsink "
        "name=sink sync=false max-buffers=4", filter);
    PipelineRow row;

    static const char *const system_rows[] = {
      "cudabilateral d=15, pinned input (pool)",
      "cudabilateral d=15, pageable input, recycled",
      "cudabilateral d=15, pageable input, fresh"
    };
    gboolean any_system = row_wanted (system_rows[0])
        || row_wanted (system_rows[1]) || row_wanted (system_rows[2]);

    /* The copy ceiling first, which the system-memory rows are read
     * against, measured in the same run whenever one of them runs. */
    row = bench_transfers ("cudaMemcpy up and down, pinned (no GStreamer)",
        w, h, frames, any_system);
    if (row.name && row_wanted (row.name))
      append_row (rows, &row);
    copy_ceiling_fps = row.name ? row.fps : 0;
    row = bench_pipeline (system_rows[0], app_desc, "f", "f", w, h, frames,
        FRAMES_POOL);
    append_row (rows, &row);
    row = bench_pipeline (system_rows[1], app_desc, "f", "f", w, h, frames,
        FRAMES_RECYCLED);
    append_row (rows, &row);
    row = bench_pipeline (system_rows[2], app_desc, "f", "f", w, h,
        frames / 2, FRAMES_FRESH);
    append_row (rows, &row);
    copy_ceiling_fps = 0;
    if (have_nvcodec) {
      /* Frames already in CUDA memory (the element's proposed CUDA pool,
       * filled once): the element alone, no transfer. */
      row = bench_pipeline ("cudabilateral d=15, CUDA memory in and out",
          desc, "f", "f", w, h, frames, FRAMES_CUDA_POOL);
      append_row (rows, &row);
      {
        /* The same with the temporal filter on. */
        gchar *temporal = g_strdup_printf ("appsrc name=src ! %s "
            "temporal-strength=%g temporal-sigma=%g ! fakesink sync=false",
            filter, TEMPORAL_STRENGTH, TEMPORAL_SIGMA);

        row = bench_pipeline ("cudabilateral d=15 temporal, CUDA memory in "
            "and out", temporal, "f", "f", w, h, frames, FRAMES_CUDA_POOL);
        append_row (rows, &row);
        g_free (temporal);
        /* And following motion (the same frames taking turns: its search
         * runs on every frame). */
        temporal = g_strdup_printf ("appsrc name=src ! %s "
            "temporal-strength=%g temporal-sigma=%g "
            "temporal-motion=compensated ! fakesink sync=false", filter,
            TEMPORAL_STRENGTH, TEMPORAL_SIGMA);
        row = bench_pipeline ("cudabilateral d=15 temporal compensated, CUDA "
            "memory in and out", temporal, "f", "f", w, h, frames,
            FRAMES_CUDA_POOL);
        append_row (rows, &row);
        g_free (temporal);
      }
      {
        /* regions=inside with one box seen on every frame, against one
         * seen every other frame and held (region-hold) in the others, and
         * not held: a held box should cost what a seen one does; and a
         * window sized by region-size-scale. */
        static const struct
        {
          const char *name, *props;
          int every;
        } boxes[] = {
          {"cudabilateral d=15 regions, box seen every frame, CUDA memory",
              "", 1},
          {"cudabilateral d=15 regions, box every other frame held, CUDA "
                "memory", "region-hold=1 region-hold-growth=0", 2},
          {"cudabilateral d=15 regions, box every other frame, CUDA memory",
              "", 2},
          /* a window sized to the box against the element's own of that
           * diameter: the same cost */
          {"cudabilateral regions, region-size-scale=0.12 (d=31), CUDA "
                "memory", "region-size-scale=0.12", 1},
          {"cudabilateral d=31 regions, CUDA memory", "diameter=31", 1}
        };
        guint b;

        for (b = 0; b < G_N_ELEMENTS (boxes); b++) {
          gchar *regions = g_strdup_printf ("appsrc name=src ! %s "
              "regions=inside %s ! fakesink sync=false", filter,
              boxes[b].props);

          box_every = boxes[b].every;
          row = bench_pipeline (boxes[b].name, regions, "f", "f", w, h,
              frames, FRAMES_CUDA_POOL);
          append_row (rows, &row);
          box_every = 0;
          g_free (regions);
        }
      }
      row = bench_pipeline ("cudaupload ! cudadownload (GStreamer)",
          "appsrc name=src ! cudaupload name=up ! "
          "video/x-raw(memory:CUDAMemory) ! cudadownload name=down ! "
          "fakesink sync=false", "up", "down", w, h, frames / 2, FRAMES_FRESH);
      append_row (rows, &row);
      /* What a user of GStreamer's own elements would write for pageable
       * frames. */
      row = bench_pipeline ("cudaupload ! cudabilateral ! cudadownload, "
          "pageable input, fresh", "appsrc name=src ! cudaupload name=up ! "
          "video/x-raw(memory:CUDAMemory) ! cudabilateral diameter=15 "
          "sigma-color=30 sigma-space=5 ! cudadownload name=down ! "
          "fakesink sync=false", "up", "down", w, h, frames / 2, FRAMES_FRESH);
      append_row (rows, &row);
    }
    g_free (desc);
    g_free (app_desc);
  }

  /* Many streams on one GPU: 1080p, each pipeline its own element. */
  {
    static const int counts[] = { 1, 4, 16 };
    gchar *desc = g_strdup_printf ("appsrc name=src ! %s ! fakesink "
        "sync=false", filter);
    int frames = quick ? 100 : 1000;

    for (s = 0; s < G_N_ELEMENTS (counts); s++) {
      PipelineRow row;

      if (have_nvcodec) {
        row = bench_streams (g_strdup_printf ("%d x cudabilateral d=15, "
                "CUDA memory", counts[s]), desc, counts[s], 1920, 1080,
            frames, FRAMES_CUDA_POOL);
        append_row (rows, &row);
      }
      row = bench_streams (g_strdup_printf ("%d x cudabilateral d=15, "
              "pinned input (pool)", counts[s]), desc, counts[s], 1920, 1080,
          frames, FRAMES_POOL);
      append_row (rows, &row);
    }
    g_free (desc);
  }

  if (have_nvcodec && clip && gst_element_factory_find ("nvh264dec")) {
    const char *decode = "qtdemux ! h264parse ! nvh264dec ! "
        "video/x-raw(memory:CUDAMemory)";
    gchar *plain = g_strdup_printf ("filesrc location=\"%s\" ! %s ! "
        "fakesink name=sink sync=false", clip, decode);
    gchar *filtered = g_strdup_printf ("filesrc location=\"%s\" ! %s ! %s ! "
        "fakesink name=sink sync=false", clip, decode, filter);
    PipelineRow row;

    row = bench_decode ("nvh264dec, CUDA memory (decode only)", plain);
    append_row (rows, &row);
    row = bench_decode ("nvh264dec ! cudabilateral d=15, CUDA memory",
        filtered);
    append_row (rows, &row);
    g_free (plain);
    g_free (filtered);
  }
}
