/* gst-cudabilateral benchmark: the input pictures (scaled with GStreamer,
 * deterministic noise) and the kernel timer (bench.h). */

#include "bench.h"

const int diameters[] = { 3, 5, 9, 15, 21, 31, 45, 61 };
const int sizes[][2] = { {1920, 1080}, {3840, 2160} };

int n_runs = 50;
/* --latency-log: a CSV a pipeline row, each frame's latency and the memory
 * it came in and went out in, to trace where slow frames come from. */
gchar *latency_log_dir = NULL;

int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
percentile (double *v, int n, double q)
{
  qsort (v, n, sizeof (double), cmp_double);
  return v[(int) fmin (n - 1, floor (q * (n - 1) + 0.5))];
}

/* ---------------------------------------------------------------------- */
/* Input: the picture scaled with GStreamer, plus deterministic noise. */

/* One frame of @format, tightly laid out as GstVideoInfo makes it. */
GstBuffer *
load_buffer (const char *path, const char *format, int width, int height)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! pngdec ! "
      "videoconvert ! videoscale ! video/x-raw,format=%s,width=%d,height=%d "
      "! appsink name=sink", path, format, width, height);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstSample *sample = NULL;
  GstBuffer *buf;

  if (!pipeline) {
    fprintf (stderr, "%s\n", error->message);
    exit (1);
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  if (!sample) {
    fprintf (stderr, "could not decode %s\n", path);
    exit (1);
  }
  buf = gst_buffer_ref (gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return buf;
}

/* A one-plane frame of @format, rows packed: @stride bytes each. */
guint8 *
load_image (const char *path, const char *format, int width, int height,
    int *stride)
{
  GstBuffer *buf = load_buffer (path, format, width, height);
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *pixels;
  int y;

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  gst_video_frame_map (&frame, &info, buf, GST_MAP_READ);
  *stride = width * GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
  pixels = g_malloc ((gsize) * stride * height);
  for (y = 0; y < height; y++)
    memcpy (pixels + (gsize) y * *stride,
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), *stride);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  return pixels;
}

/* Noise of +-20 levels on the colour bytes, different per @seed. */
void
add_noise (guint8 * pixels, gsize n_bytes, int bpp, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  gsize i;

  for (i = 0; i < n_bytes; i++) {
    int v;
    if (bpp == 4 && i % 4 == 3)
      continue;
    v = pixels[i] + g_rand_int_range (rand, -20, 21);
    pixels[i] = CLAMP (v, 0, 255);
  }
  g_rand_free (rand);
}


/* Median of @n_runs CUDA-event timings of @run, after a warm-up. */
double
time_kernel (RunFunc run, void *ctx, cudaStream_t stream)
{
  cudaEvent_t start, stop;
  double *ms = g_new (double, n_runs);
  double median;
  int i;

  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&stop));
  for (i = 0; i < 5; i++)
    run (ctx, i % N_INPUTS, stream);
  CHECK (cudaStreamSynchronize (stream));
  for (i = 0; i < n_runs; i++) {
    float t;
    CHECK (cudaEventRecord (start, stream));
    run (ctx, i % N_INPUTS, stream);
    CHECK (cudaEventRecord (stop, stream));
    CHECK (cudaEventSynchronize (stop));
    CHECK (cudaEventElapsedTime (&t, start, stop));
    ms[i] = t;
  }
  CHECK (cudaGetLastError ());
  median = percentile (ms, n_runs, 0.5);
  g_free (ms);
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  return median;
}
