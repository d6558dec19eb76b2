/* gst-cudabilateral benchmark: kernel times (CUDA events) for our kernels,
 * the generic one-pixel-per-thread kernel and NVIDIA NPP's bilateral filter,
 * frames/s and per-frame latency through real GStreamer pipelines (our
 * element, and GStreamer's own cudaupload ! cudadownload round trip), and
 * what the element adds to a live preview (a live source, a syncing sink).
 *
 *   cbf-bench [--image astronaut.png] [--out results.json] [--commit HASH]
 *             [--clip clip.mp4] [--quick] [--live] [--kernel-table]
 *             [--latency-log DIR] [--format-table [--format F]]
 *             [--chroma-quality [--chroma-dump DIR]]
 *
 * The image and the clip default to the repository's data/astronaut.png
 * and data/sample-720p.mp4.
 *
 * --live: only the live-source rows (about 20 s); --no-pipelines skips
 * them with the other pipelines; --kernel-table: the bilateral kernel rows
 * alone; --format-table: the per-format frame rows (with, for YUV at
 * d = 15, the regions' and the chroma guide's); --chroma-quality: the
 * PSNR of chroma with and without the luma guide, and on a picture of each
 * chroma siting (jpeg, mpeg2, cosited) with the guide sited as the caps say
 * and centred.
 *
 * Writes its measurements as JSON (tools/bench/report.py turns them into
 * docs/performance.md and a plot) and prints a short table. Not a test: it
 * asserts nothing, it measures. */

#include "bench.h"

/* ---------------------------------------------------------------------- */

/* One "live" row; the jitter is null where the sink sent no QoS event. */
static void
write_live_row (FILE * f, const LiveRow * r, gboolean last)
{
  gchar jitter[32] = "null";

  if (r->have_jitter)
    g_snprintf (jitter, sizeof (jitter), "%.3f", r->sink_jitter_max_ms);
  fprintf (f, "    {\"name\": \"%s\", \"diameter\": %d, \"width\": %d, "
      "\"height\": %d, \"framerate\": %d, \"frames\": %d, \"fps\": %.2f,\n"
      "     \"latency_median_ms\": %.4f, \"latency_p99_ms\": %.4f, "
      "\"latency_max_ms\": %.4f, \"max_in_flight\": %d,\n"
      "     \"dropped_element\": %d, \"dropped_sink\": %d, \"late_sink\": %d, "
      "\"sink_jitter_max_ms\": %s,\n     \"live\": %s, "
      "\"pipeline_latency_min_ms\": %.3f, \"pipeline_latency_max_ms\": %.3f,\n"
      "     \"element_latency_min_ms\": %.3f, "
      "\"element_latency_max_ms\": %.3f, "
      "\"upstream_latency_min_ms\": %.3f, \"upstream_latency_max_ms\": %.3f}"
      "%s\n", r->name, r->diameter, r->width, r->height, r->framerate,
      r->frames, r->fps, r->latency_median_ms, r->latency_p99_ms,
      r->latency_max_ms, r->max_in_flight, r->dropped_element,
      r->dropped_sink, r->late_sink, jitter, r->live ? "true" : "false",
      r->pipeline_min_ms, r->pipeline_max_ms, r->element_min_ms,
      r->element_max_ms, r->upstream_min_ms, r->upstream_max_ms,
      last ? "" : ",");
}

static void
write_json (const char *path, const char *commit, GArray * kernels,
    GArray * gaussian, GArray * grid_psnr, GArray * grid_time,
    GArray * frames, GArray * chroma_time, GArray * chroma_psnr,
    GArray * pipelines, GArray * live)
{
  FILE *f = fopen (path, "w");
  struct cudaDeviceProp prop;
  int driver = 0, runtime = 0, clock_khz = 0, mem_clock_khz = 0;
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *date = g_date_time_format_iso8601 (now);
  guint i;

  CHECK (cudaGetDeviceProperties (&prop, 0));
  cudaDriverGetVersion (&driver);
  cudaRuntimeGetVersion (&runtime);
  cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute (&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  fprintf (f, "{\n  \"gpu\": \"%s\", \"sm_count\": %d, \"cc\": \"%d.%d\",\n"
      "  \"driver\": %d, \"runtime\": %d, \"max_sm_clock_mhz\": %d, "
      "\"max_mem_clock_mhz\": %d,\n  \"npp\": \"%s\", \"commit\": \"%s\", "
      "\"date\": \"%s\",\n  \"sigma_color\": %g, \"sigma_space\": %g, "
      "\"runs\": %d,\n  \"kernels\": [\n", prop.name,
      prop.multiProcessorCount, prop.major, prop.minor, driver, runtime,
      clock_khz / 1000, mem_clock_khz / 1000, npp_version, commit, date,
      kernel_sigma_color, kernel_sigma_space, n_runs);
  for (i = 0; i < kernels->len; i++) {
    KernelRow *r = &g_array_index (kernels, KernelRow, i);
    fprintf (f, "    {\"format\": \"%s\", \"width\": %d, \"height\": %d, "
        "\"diameter\": %d, \"ours_ms\": %.5f, \"generic_ms\": %.5f, "
        "\"npp_ms\": %.5f, \"temporal_ms\": %.5f, \"walk_radius\": %d, "
        "\"full_ms\": %.5f}%s\n", r->format, r->width, r->height,
        r->diameter, r->ours_ms, r->generic_ms, r->npp_ms, r->temporal_ms,
        r->walk_radius, r->full_ms, i + 1 < kernels->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"gaussian\": [\n");
  for (i = 0; i < gaussian->len; i++) {
    GaussianRow *r = &g_array_index (gaussian, GaussianRow, i);
    fprintf (f, "    {\"format\": \"RGBA\", \"width\": %d, \"height\": %d, "
        "\"diameter\": %d, \"ms\": %.5f, \"npp_ms\": %.5f}%s\n", r->width,
        r->height, r->diameter, r->ms, r->npp_ms,
        i + 1 < gaussian->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"grid_psnr\": [\n");
  for (i = 0; i < grid_psnr->len; i++) {
    GridPsnrRow *r = &g_array_index (grid_psnr, GridPsnrRow, i);
    fprintf (f, "    {\"image\": \"%s\", \"format\": \"%s\", "
        "\"sigma_space\": %g, \"sigma_color\": %g, \"psnr_db\": %.3f}%s\n",
        r->image, r->format, r->sigma_space, r->sigma_color, r->psnr_db,
        i + 1 < grid_psnr->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"grid_time\": [\n");
  for (i = 0; i < grid_time->len; i++) {
    GridTimeRow *r = &g_array_index (grid_time, GridTimeRow, i);
    fprintf (f, "    {\"format\": \"RGBA\", \"width\": %d, \"height\": %d, "
        "\"sigma_space\": %g, \"grid_ms\": %.5f, \"exact_ms\": %.5f, "
        "\"npp_ms\": %.5f}%s\n", r->width, r->height, r->sigma_space,
        r->grid_ms, r->exact_ms, r->npp_ms, i + 1 < grid_time->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"frames\": [\n");
  for (i = 0; i < frames->len; i++) {
    FormatRow *r = &g_array_index (frames, FormatRow, i);
    fprintf (f, "    {\"format\": \"%s\", \"width\": %d, \"height\": %d, "
        "\"diameter\": %d, \"ms\": %.5f, \"regions\": \"%s\", "
        "\"temporal\": \"%s\"}%s\n", r->format, r->width, r->height,
        r->diameter, r->ms, r->regions ? r->regions : "none",
        r->temporal ? r->temporal : "off", i + 1 < frames->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"chroma_time\": [\n");
  for (i = 0; i < chroma_time->len; i++) {
    ChromaTimeRow *r = &g_array_index (chroma_time, ChromaTimeRow, i);
    fprintf (f, "    {\"format\": \"%s\", \"width\": %d, \"height\": %d, "
        "\"diameter\": %d, \"unguided_ms\": %.5f, \"guided_ms\": %.5f, "
        "\"guide_ms\": %.5f, \"frame_ms\": %.5f, "
        "\"frame_guided_ms\": %.5f}%s\n", r->format, r->width, r->height,
        r->diameter, r->unguided_ms, r->guided_ms, r->guide_ms, r->frame_ms,
        r->frame_guided_ms, i + 1 < chroma_time->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"chroma_psnr\": [\n");
  for (i = 0; i < chroma_psnr->len; i++) {
    ChromaPsnrRow *r = &g_array_index (chroma_psnr, ChromaPsnrRow, i);
    fprintf (f, "    {\"name\": \"%s\", \"chroma_diameter\": %d, "
        "\"chroma_sigma_color\": %g, \"chroma_sigma_space\": %g, "
        "\"guided\": %s, \"psnr_y\": %.3f, \"psnr_u\": %.3f, "
        "\"psnr_v\": %.3f}%s\n", r->name, r->chroma_diameter,
        r->chroma_sigma_color, r->chroma_sigma_space,
        r->guided ? "true" : "false", r->psnr_y, r->psnr_u, r->psnr_v,
        i + 1 < chroma_psnr->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"pipelines\": [\n");
  for (i = 0; i < pipelines->len; i++) {
    PipelineRow *r = &g_array_index (pipelines, PipelineRow, i);
    fprintf (f, "    {\"name\": \"%s\", \"width\": %d, \"height\": %d, "
        "\"frames\": %d, \"fps\": %.2f, \"latency_median_ms\": %.4f, "
        "\"latency_p99_ms\": %.4f, \"streams\": %d, "
        "\"min_stream_fps\": %.2f, \"cpu_ms_per_frame\": %.4f, "
        "\"faults_per_frame\": %.2f, \"ceiling_share\": %.4f}%s\n", r->name,
        r->width, r->height, r->frames, r->fps, r->latency_median_ms,
        r->latency_p99_ms, r->streams, r->min_stream_fps,
        r->cpu_ms_per_frame, r->faults_per_frame, r->ceiling_share,
        i + 1 < pipelines->len ? "," : "");
  }
  fprintf (f, "  ],\n  \"live\": [\n");
  for (i = 0; i < live->len; i++)
    write_live_row (f, &g_array_index (live, LiveRow, i), i + 1 == live->len);
  fprintf (f, "  ]\n}\n");
  fclose (f);
  g_free (date);
  g_date_time_unref (now);
}

int
main (int argc, char **argv)
{
  gchar *image = NULL, *out = NULL, *commit = NULL, *clip = NULL;
  gboolean quick = FALSE, no_pipelines = FALSE, no_kernels = FALSE;
  gboolean live_only = FALSE, kernel_table_only = FALSE;
  gboolean format_table_only = FALSE, chroma_quality_only = FALSE;
  GOptionEntry entries[] = {
    {"image", 0, 0, G_OPTION_ARG_FILENAME, &image, "PNG to scale and noise",
        "PATH"},
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out, "JSON results", "PATH"},
    {"commit", 0, 0, G_OPTION_ARG_STRING, &commit, "commit measured", "HASH"},
    {"runs", 0, 0, G_OPTION_ARG_INT, &n_runs, "timed runs per kernel", "N"},
    {"clip", 0, 0, G_OPTION_ARG_FILENAME, &clip, "H.264 MP4 for the decoder "
          "pipelines", "PATH"},
    {"quick", 0, 0, G_OPTION_ARG_NONE, &quick, "fewer cases", NULL},
    {"no-pipelines", 0, 0, G_OPTION_ARG_NONE, &no_pipelines, NULL, NULL},
    {"no-kernels", 0, 0, G_OPTION_ARG_NONE, &no_kernels, NULL, NULL},
    {"kernel-table", 0, 0, G_OPTION_ARG_NONE, &kernel_table_only,
        "only the bilateral kernel rows (no formats, Gaussian, grid, "
          "pipelines or live source)", NULL},
    {"format-table", 0, 0, G_OPTION_ARG_NONE, &format_table_only,
        "only the per-format frame rows", NULL},
    {"format", 0, 0, G_OPTION_ARG_STRING, &format_filter, "only the frame "
          "rows of this format", "FORMAT"},
    {"diameter", 0, 0, G_OPTION_ARG_INT, &diameter_filter, "only the "
          "bilateral kernel rows of this diameter", "D"},
    {"sigma-color", 0, 0, G_OPTION_ARG_DOUBLE, &kernel_sigma_color,
        "the bilateral kernel rows' sigma-color (30)", "S"},
    {"sigma-space", 0, 0, G_OPTION_ARG_DOUBLE, &kernel_sigma_space,
        "the bilateral kernel rows' sigma-space (5)", "S"},
    {"chroma-quality", 0, 0, G_OPTION_ARG_NONE, &chroma_quality_only,
          "only the chroma quality rows (PSNR with and without chroma-guide)",
        NULL},
    {"chroma-dump", 0, 0, G_OPTION_ARG_FILENAME, &chroma_dump_dir, "write "
          "the chroma quality rows' first frames (raw I420) into DIR", "DIR"},
    {"live", 0, 0, G_OPTION_ARG_NONE, &live_only, "only the live-source "
          "pipelines (about 20 s)", NULL},
    {"pipeline", 0, 0, G_OPTION_ARG_STRING, &pipeline_filter, "only the "
          "pipeline rows whose name holds this (no live-source rows)",
        "TEXT"},
    {"latency-log", 0, 0, G_OPTION_ARG_FILENAME, &latency_log_dir,
        "write each pipeline's per-frame latencies as CSV into DIR", "DIR"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- cudabilateral benchmark");
  GError *error = NULL;
  GArray *kernels = g_array_new (FALSE, TRUE, sizeof (KernelRow));
  GArray *frames = g_array_new (FALSE, TRUE, sizeof (FormatRow));
  GArray *gaussian = g_array_new (FALSE, TRUE, sizeof (GaussianRow));
  GArray *grid_psnr = g_array_new (FALSE, TRUE, sizeof (GridPsnrRow));
  GArray *grid_time = g_array_new (FALSE, TRUE, sizeof (GridTimeRow));
  GArray *chroma_time = g_array_new (FALSE, TRUE, sizeof (ChromaTimeRow));
  GArray *chroma_psnr = g_array_new (FALSE, TRUE, sizeof (ChromaPsnrRow));
  GArray *pipelines = g_array_new (FALSE, TRUE, sizeof (PipelineRow));
  GArray *live = g_array_new (FALSE, TRUE, sizeof (LiveRow));
  int n_devices = 0;
  cudaError_t cuda_error;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  cuda_error = cudaGetDeviceCount (&n_devices);
  if (cuda_error != cudaSuccess || n_devices == 0) {
    fprintf (stderr, "No CUDA device (%s): the benchmark measures on an "
        "NVIDIA GPU.\n", cuda_error != cudaSuccess ?
        cudaGetErrorString (cuda_error) : "none found");
    return 1;
  }
  if (!image)
    image = g_build_filename (CBF_DATA_DIR, "astronaut.png", NULL);
  if (!clip)
    clip = g_build_filename (CBF_DATA_DIR, "sample-720p.mp4", NULL);
  load_npp ();
  if (live_only)
    no_kernels = TRUE;
  if (kernel_table_only)
    no_pipelines = TRUE;
  if (chroma_quality_only) {
    no_pipelines = TRUE;
    bench_chroma_quality (image, chroma_psnr);
  } else if (format_table_only) {
    no_pipelines = TRUE;
    bench_formats (image, frames, chroma_time);
  } else if (!no_kernels) {
    bench_kernels (image, kernels, quick);
    if (!kernel_table_only) {
      bench_formats (image, frames, chroma_time);
      bench_chroma_quality (image, chroma_psnr);
      bench_gaussian (image, gaussian);
      bench_grid (image, grid_psnr, grid_time);
    }
  }
  if (!no_pipelines && !live_only)
    bench_pipelines (pipelines, quick, clip);
  if ((!no_pipelines && !pipeline_filter) || live_only)
    bench_live (live, quick);
  write_json (out ? out : "bench.json", commit ? commit : "unknown", kernels,
      gaussian, grid_psnr, grid_time, frames, chroma_time, chroma_psnr,
      pipelines, live);
  return 0;
}
