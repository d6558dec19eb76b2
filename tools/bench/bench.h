/* gst-cudabilateral benchmark: what its parts share. cbf-bench.c holds
 * the options, the JSON and main; common.c the input pictures and the
 * kernel timer; kernels.c the kernel rows (ours, the generic kernel,
 * NPP's, the Gaussian and the grid); frames.c a whole frame per format;
 * chroma.c the chroma guide's cost and quality; pipelines.c the rows
 * through GStreamer; live.c the live source's. */

#ifndef CBF_BENCH_H
#define CBF_BENCH_H

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bilateral.h"
#include "cbfengine.h"
#include "temporal.h"

#if CBF_HAVE_CUDA_MEMORY
#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif

#define SIGMA_COLOR 30.0
/* The temporal filter's settings in the rows that time it. */
#define TEMPORAL_STRENGTH 0.8
#define TEMPORAL_SIGMA 10.0
#define SIGMA_SPACE 5.0
#define N_INPUTS 3              /* rotated, so repeated runs do not time L2 */
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (e_)); exit (1); } } while (0)

/* What the options set (cbf-bench.c) and the sizes most rows run at. */
extern const int diameters[8];
extern const int sizes[2][2];
extern int n_runs;
extern gchar *latency_log_dir;
extern const char *format_filter;
extern const char *pipeline_filter;
extern int diameter_filter;
extern double kernel_sigma_color, kernel_sigma_space;
extern const char *chroma_dump_dir;
extern char npp_version[64];

typedef struct
{
  int width, height, diameter;
  double ms, npp_ms;
} GaussianRow;

typedef struct
{
  const char *image;
  const char *format;
  double sigma_space, sigma_color, psnr_db;
} GridPsnrRow;

typedef struct
{
  int width, height;
  double sigma_space;
  double exact_ms, grid_ms, npp_ms;
} GridTimeRow;

typedef struct
{
  const char *format;           /* RGBA or GRAY8 */
  int width, height, diameter;
  double ours_ms, generic_ms, npp_ms;
  double temporal_ms;           /* ours with the temporal filter on */
  int walk_radius;              /* cbf_bilateral_walk_radius: the radius
                                 * ours walks */
  double full_ms;               /* ours walking the whole window */
} KernelRow;

typedef struct
{
  const char *format;
  int width, height, diameter;
  double ms;
  const char *regions;          /* NULL: the whole frame */
  const char *temporal;         /* temporal-motion (NULL: no temporal
                                 * filter) */
} FormatRow;

typedef struct
{
  CbfEngine *engine;
  CbfPlane in[N_INPUTS][GST_VIDEO_MAX_PLANES], out[GST_VIDEO_MAX_PLANES];
} FrameCtx;

typedef struct
{
  const char *format;
  int width, height, diameter;
  double unguided_ms, guided_ms;        /* the chroma pass alone */
  double guide_ms;              /* the guide's part of guided_ms */
  double frame_ms, frame_guided_ms;     /* the whole frame (engine) */
} ChromaTimeRow;

typedef struct
{
  const char *name;
  int chroma_diameter;          /* CBF_PARAMS_DERIVED: from luma's */
  double chroma_sigma_color, chroma_sigma_space;
  gboolean guided;
  double psnr_y, psnr_u, psnr_v;
} ChromaPsnrRow;

typedef struct
{
  const char *name;
  int width, height;
  int frames;
  double fps, latency_median_ms, latency_p99_ms;
  /* Pipelines run at once (bench_streams), their slowest one's frames/s;
   * fps is then their sum, the latencies the highest of theirs. */
  int streams;
  double min_stream_fps;
  /* The whole process's CPU time (user and system) and minor page faults
   * over the timed frames, a frame (bench_pipeline's rows; else -1). */
  double cpu_ms_per_frame, faults_per_frame;
  /* A system-memory row's frames/s over the copy ceiling measured just
   * before it at its size (bench_transfers), else 0. */
  double ceiling_share;
} PipelineRow;

typedef struct
{
  GMutex lock;
  GCond cond;
  int n_out;
  gint64 *t_in, *t_out;         /* per frame, indexed by offset */
  gconstpointer *mem_in, *mem_out;      /* the buffers' first memory */
  int capacity;
} Probe;

typedef struct
{
  const char *name;
  int diameter, width, height, framerate;
  int frames;                   /* measured frames that entered the element */
  double fps;                   /* at which they entered */
  double latency_median_ms, latency_p99_ms, latency_max_ms;
  int max_in_flight;            /* most frames inside the element at once */
  int dropped_element, dropped_sink, late_sink;
  gboolean have_jitter;
  double sink_jitter_max_ms;    /* QoS jitter at the sink; < 0: early */
  gboolean live;                /* the pipeline's answer to a latency query */
  double pipeline_min_ms, pipeline_max_ms;
  /* The same query at the element's source pad (upstream's latency plus
   * what the element declares) and at the peer of its sink pad (upstream's
   * alone). Max -1: unbounded. */
  double element_min_ms, element_max_ms, upstream_min_ms, upstream_max_ms;
} LiveRow;

typedef void (*RunFunc) (void *ctx, int input, cudaStream_t stream);

/* common.c */
void
add_noise (guint8 * pixels, gsize n_bytes, int bpp, guint32 seed);

int
cmp_double (const void *a, const void *b);

GstBuffer *
load_buffer (const char *path, const char *format, int width, int height);

guint8 *
load_image (const char *path, const char *format, int width, int height,
    int *stride);

double
percentile (double *v, int n, double q);

double
time_kernel (RunFunc run, void *ctx, cudaStream_t stream);

/* kernels.c */
void
bench_gaussian (const char *image, GArray * rows);

void
bench_grid (const char *image, GArray * psnr_rows, GArray * time_rows);

void
bench_kernels (const char *image, GArray * rows, gboolean quick);

void
load_npp (void);

/* frames.c */
void
bench_formats (const char *image, GArray * rows, GArray * chroma_rows);

void
run_frame (void *p, int input, cudaStream_t stream);

/* chroma.c */
void
bench_chroma_quality (const char *image, GArray * rows);

void
bench_chroma_time (FrameCtx * c, const char *format, int diameter,
    double frame_ms, cudaStream_t stream, GArray * rows);

/* pipelines.c */
void
bench_pipelines (GArray * rows, gboolean quick, const char *clip);

void
count_out (Probe * p);

void
probe_clear (Probe * p);

GstPadProbeReturn
probe_in (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data);

void
probe_init (Probe * p, int capacity);

GstPadProbeReturn
probe_out (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data);

void
record_time (Probe * p, GstBuffer * buf, gint64 * times, gconstpointer * mems);

void
wait_output_ready (GstBuffer * buf);

/* live.c */
void
bench_live (GArray * rows, gboolean quick);

#endif /* CBF_BENCH_H */
