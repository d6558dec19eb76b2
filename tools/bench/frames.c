/* gst-cudabilateral benchmark: a whole frame per format through the engine,
 * with regions and the temporal filter (bench.h). */

#include "bench.h"

/* ---------------------------------------------------------------------- */
/* Kernel time of a whole frame per format: the element's engine, with the
 * parameters set and prepared as the element does, run on a frame
 * (cbf_engine_run: every launch the element makes for it, luma and both
 * chroma channels for YUV), on device planes laid out as the element's. */

static const char *frame_formats[] = { "GRAY8", "RGBA", "RGB", "NV12", "I420",
  "YUY2", "Y444", "GRAY16_LE", "P010_10LE", "P016_LE", "I420_10LE",
  "Y444_16LE", "RGBA64_LE", "BGR10A2_LE"
};



void
run_frame (void *p, int input, cudaStream_t stream)
{
  FrameCtx *c = p;
  CHECK (cbf_engine_run (c->engine, c->in[input], c->out, 0,
          c->out[0].height, stream));
}

/* A frame as the element runs it: prepared, then filtered, so that the
 * temporal filter blends with the frame before (and compensated, finds
 * its motion) in every timed run. */
static void
run_frame_prepared (void *p, int input, cudaStream_t stream)
{
  FrameCtx *c = p;
  const gchar *what = NULL;
  gint halo_rows;

  CHECK (cbf_engine_prepare (c->engine, stream, &halo_rows, &what));
  run_frame (p, input, stream);
}

/* Noise of +-20 8-bit levels on 16-bit samples of @bits bits, @shift bits
 * above the container's low end (kept within them, the bits below zero). */
static void
add_sample_noise (guint16 * samples, gsize n, int bits, int shift, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  int max = (1 << bits) - 1;
  gsize i;

  for (i = 0; i < n; i++) {
    int v =
        (samples[i] >> shift) + g_rand_int_range (rand, -20, 21) * max / 255;
    samples[i] = CLAMP (v, 0, max) << shift;
  }
  g_rand_free (rand);
}

/* Device planes of @info's frame (as the base class makes them), holding
 * @frame's pixels plus noise of +-20 levels on every byte, or on every
 * sample of the 10- and 12-bit formats (@bits), whose bytes' noise would
 * leave their depth. */
static void
upload_noisy_frame (const GstVideoInfo * info, GstVideoFrame * frame,
    CbfPlane * planes, int bits, guint32 seed)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize row_bytes = cbf_plane_row_bytes (info, p);
    gint height, y;
    guint8 *noisy;

    gst_video_format_info_component (info->finfo, p, comp);
    height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    noisy = g_malloc (row_bytes * height);
    for (y = 0; y < height; y++)
      memcpy (noisy + y * row_bytes,
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, p), row_bytes);
    if (bits == 10 || bits == 12)
      add_sample_noise ((guint16 *) noisy, row_bytes * height / 2, bits,
          GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, comp[0]), seed + p);
    else
      add_noise (noisy, row_bytes * height, 1, seed + p);
    planes[p].width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    planes[p].height = height;
    planes[p].pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    CHECK (cudaMallocPitch ((void **) &planes[p].data, &planes[p].pitch_bytes,
            row_bytes, height));
    CHECK (cudaMemcpy2D (planes[p].data, planes[p].pitch_bytes, noisy,
            row_bytes, row_bytes, height, cudaMemcpyHostToDevice));
    g_free (noisy);
  }
}

/* The frame of @whole's row with regions=inside: one face-sized box at the
 * frame's centre, with a hard and a soft edge, and no box at all (the
 * frame's copy alone): every launch and copy the element makes for it. */
static void
bench_regions (FrameCtx * c, const FormatRow * whole, cudaStream_t stream,
    GArray * rows)
{
  static const struct
  {
    const char *name;
    int n;
    float feather;
  } cases[] = {
    {"inside, one 256x256 box", 1, 0.f},
    {"inside, one 256x256 box, feather 32", 1, 32.f},
    {"inside, no box", 0, 0.f},
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (cases); k++) {
    CbfRegionSet set = {.n = cases[k].n,.feather = cases[k].feather };
    FormatRow row = *whole;
    const gchar *what = NULL;
    gint halo_rows;
    cudaError_t err;

    set.boxes[0].x0 = whole->width / 2 - 128;
    set.boxes[0].y0 = whole->height / 2 - 128;
    set.boxes[0].x1 = set.boxes[0].x0 + 256;
    set.boxes[0].y1 = set.boxes[0].y0 + 256;
    cbf_engine_set_regions (c->engine, &set);
    err = cbf_engine_prepare (c->engine, stream, &halo_rows, &what);
    if (err != cudaSuccess) {
      fprintf (stderr, "%s: %s\n", what, cudaGetErrorString (err));
      exit (1);
    }
    row.regions = cases[k].name;
    row.ms = time_kernel (run_frame, c, stream);
    g_array_append_val (rows, row);
    printf ("frame  %-10s %4dx%-4d d=%-2d  %8.3f ms  %.1f %% of the whole "
        "frame (regions %s)\n", row.format, row.width, row.height,
        row.diameter, row.ms, 100 * row.ms / whole->ms, row.regions);
    fflush (stdout);
  }
  cbf_engine_set_regions (c->engine, NULL);
}

/* The frame of @whole's row (@params) with the temporal filter on,
 * strength 0.9 and temporal-sigma 12, temporal-motion none and
 * compensated; each frame the one before's successor, the inputs taking
 * turns (their noise differs, their picture does not). */
static void
bench_temporal (FrameCtx * c, const FormatRow * whole, const CbfParams * params,
    cudaStream_t stream, GArray * rows)
{
  static const struct
  {
    const char *name;
    CbfTemporalMotion motion;
  } cases[] = {
    {"none", CBF_TEMPORAL_MOTION_NONE},
    {"compensated", CBF_TEMPORAL_MOTION_COMPENSATED},
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (cases); k++) {
    CbfParams p = *params;
    FormatRow row = *whole;

    p.temporal_strength = 0.9;
    p.temporal_sigma = 12;
    p.temporal_motion = cases[k].motion;
    cbf_engine_set_params (c->engine, &p);
    cbf_engine_reset (c->engine);
    row.temporal = cases[k].name;
    row.ms = time_kernel (run_frame_prepared, c, stream);
    g_array_append_val (rows, row);
    printf ("frame  %-10s %4dx%-4d d=%-2d  %8.3f ms  +%.3f ms over spatial "
        "(temporal-motion=%s)\n", row.format, row.width, row.height,
        row.diameter, row.ms, row.ms - whole->ms, row.temporal);
    fflush (stdout);
  }
  cbf_engine_set_params (c->engine, params);
  run_frame_prepared (c, 0, stream);
  CHECK (cudaStreamSynchronize (stream));
}

/* --format: only the frame rows of this format (NULL: all). */
const char *format_filter;

void
bench_formats (const char *image, GArray * rows, GArray * chroma_rows)
{
  static const int frame_diameters[] = { 5, 15, 21, 31 };
  cudaStream_t stream;
  guint s, f, d, i, p;

  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (f = 0; f < G_N_ELEMENTS (frame_formats); f++) {
      int w = sizes[s][0], h = sizes[s][1];
      GstBuffer *buf;
      GstVideoInfo info;
      GstVideoFrame frame;
      const CbfFramePlan *plan;
      GError *error = NULL;
      FrameCtx c;

      if (format_filter && strcmp (format_filter, frame_formats[f]))
        continue;
      buf = load_buffer (image, frame_formats[f], w, h);
      memset (&c, 0, sizeof (c));
      gst_video_info_set_format (&info,
          gst_video_format_from_string (frame_formats[f]), w, h);
      c.engine = cbf_engine_new (&info, &error);
      if (!c.engine) {
        fprintf (stderr, "no frame plan for %s: %s\n", frame_formats[f],
            error->message);
        exit (1);
      }
      plan = cbf_engine_get_plan (c.engine);
      if (!gst_video_frame_map (&frame, &info, buf, GST_MAP_READ)) {
        fprintf (stderr, "cannot map the %s frame\n", frame_formats[f]);
        exit (1);
      }
      for (i = 0; i < N_INPUTS; i++)
        upload_noisy_frame (&info, &frame, c.in[i], plan->bits, 200 + i);
      upload_noisy_frame (&info, &frame, c.out, plan->bits, 300);
      gst_video_frame_unmap (&frame);
      gst_buffer_unref (buf);

      for (d = 0; d < G_N_ELEMENTS (frame_diameters); d++) {
        FormatRow row = { frame_formats[f], w, h, frame_diameters[d], 0,
          NULL, NULL
        };
        CbfParams params = {.diameter = frame_diameters[d],
          .sigma_color = SIGMA_COLOR,.sigma_space = SIGMA_SPACE,
          .filter_chroma = TRUE,.mode = CBF_MODE_BILATERAL,
          .method = CBF_METHOD_EXACT,.chroma_diameter = CBF_PARAMS_DERIVED,
          .chroma_sigma_color = CBF_PARAMS_DERIVED,
          .chroma_sigma_space = CBF_PARAMS_DERIVED
        };
        const gchar *what = NULL;
        gint halo_rows;
        cudaError_t err;

        cbf_engine_set_params (c.engine, &params);
        err = cbf_engine_prepare (c.engine, stream, &halo_rows, &what);
        if (err != cudaSuccess) {
          fprintf (stderr, "%s: %s\n", what, cudaGetErrorString (err));
          exit (1);
        }
        row.ms = time_kernel (run_frame, &c, stream);
        g_array_append_val (rows, row);
        printf ("frame  %-10s %4dx%-4d d=%-2d  %8.3f ms  (%u launches)\n",
            row.format, w, h, row.diameter, row.ms, plan->n_passes);
        fflush (stdout);
        if (frame_diameters[d] == 5)
          bench_temporal (&c, &row, &params, stream, rows);
        if (frame_diameters[d] == 15) {
          bench_regions (&c, &row, stream, rows);
          bench_chroma_time (&c, row.format, row.diameter, row.ms, stream,
              chroma_rows);
        }
      }
      for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
        for (i = 0; i < N_INPUTS; i++)
          cudaFree (c.in[i][p].data);
        cudaFree (c.out[p].data);
      }
      cbf_engine_free (c.engine);
    }
  }
  cudaStreamDestroy (stream);
}
