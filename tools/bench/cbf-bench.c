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

#include <gst/gst.h>
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

static const int diameters[] = { 3, 5, 9, 15, 21, 31, 45, 61 };
static const int sizes[][2] = { {1920, 1080}, {3840, 2160} };

static int n_runs = 50;
/* --latency-log: a CSV a pipeline row, each frame's latency and the memory
 * it came in and went out in, to trace where slow frames come from. */
static gchar *latency_log_dir = NULL;

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (e_)); exit (1); } } while (0)

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
percentile (double *v, int n, double q)
{
  qsort (v, n, sizeof (double), cmp_double);
  return v[(int) fmin (n - 1, floor (q * (n - 1) + 0.5))];
}

/* ---------------------------------------------------------------------- */
/* Input: the picture scaled with GStreamer, plus deterministic noise. */

/* One frame of @format, tightly laid out as GstVideoInfo makes it. */
static GstBuffer *
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
static guint8 *
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
static void
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

/* ---------------------------------------------------------------------- */
/* NVIDIA NPP, loaded at run time where the library is installed. The
 * declarations follow nppdefs.h / nppi_filtering_functions.h. */

typedef struct
{
  int width, height;
} NppiSize;
typedef struct
{
  int x, y;
} NppiPoint;
typedef struct
{
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
} NppStreamContext;
#define NPP_BORDER_REPLICATE 2

typedef int (*NppBilateralFunc) (const guint8 * src, int src_step,
    NppiSize src_size, NppiPoint src_offset, guint8 * dst, int dst_step,
    NppiSize roi, int radius, int step_between_src_pixels,
    float val_square_sigma, float pos_square_sigma, int border,
    NppStreamContext ctx);

static NppBilateralFunc npp_c1, npp_c3;

/* nppiFilterGaussBorder_8u_C4R_Ctx: NPP's Gaussian with fixed masks of 3 to
 * 15 (NppiMaskSize values from nppdefs.h), for the Gaussian rows. */
typedef int (*NppGaussFunc) (const guint8 * src, int src_step,
    NppiSize src_size, NppiPoint src_offset, guint8 * dst, int dst_step,
    NppiSize roi, int mask_size, int border, NppStreamContext ctx);
static NppGaussFunc npp_gauss_c4;

static int
npp_mask_size (int diameter)
{
  switch (diameter) {
    case 3:
      return 200;
    case 5:
      return 201;
    case 7:
      return 400;
    case 9:
      return 500;
    case 11:
      return 600;
    case 13:
      return 700;
    case 15:
      return 800;
    default:
      return -1;
  }
}

static char npp_version[64] = "not found";

static void
load_npp (void)
{
  const char *names[] = { "libnppif.so", "libnppif.so.13", "libnppif.so.12",
    "/usr/local/cuda/lib64/libnppif.so"
  };
  void *lib = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names) && !lib; i++)
    lib = dlopen (names[i], RTLD_NOW | RTLD_GLOBAL);
  if (!lib)
    return;
  npp_c1 = (NppBilateralFunc) dlsym (lib,
      "nppiFilterBilateralGaussBorder_8u_C1R_Ctx");
  npp_c3 = (NppBilateralFunc) dlsym (lib,
      "nppiFilterBilateralGaussBorder_8u_C3R_Ctx");
  npp_gauss_c4 = (NppGaussFunc) dlsym (lib, "nppiFilterGaussBorder_8u_C4R_Ctx");
  {
    typedef const struct
    {
      int major, minor, build;
    } *(*VersionFunc) (void);
    /* In libnppc, which the handle's dependency search reaches. */
    VersionFunc version = (VersionFunc) dlsym (lib, "nppGetLibVersion");
    if (version) {
      g_snprintf (npp_version, sizeof (npp_version), "%d.%d.%d",
          version ()->major, version ()->minor, version ()->build);
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Kernel timing */

/* Gaussian mode: RGBA, kernel sizes 3 to 63, sigma derived from
 * the size as OpenCV does (sigma-space 0). */
static const int gaussian_diameters[] = { 3, 5, 9, 15, 31, 63 };
static const int gaussian_sizes[][2] = { {1920, 1080}, {3840, 2160},
{9984, 6400}
};

typedef struct
{
  int width, height, diameter;
  double ms, npp_ms;
} GaussianRow;

/* method=grid: its error against the exact filter on the shared
 * images as they are, and its time against the exact kernel and NPP. */
static const double grid_sigma_space[] = { 8, 16, 32 };
static const double grid_sigma_color[] = { 10, 30, 60 };

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
} KernelRow;

typedef void (*RunFunc) (void *ctx, int input, cudaStream_t stream);

/* Median of @n_runs CUDA-event timings of @run, after a warm-up. */
static double
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

typedef struct
{
  CbfPlane in[N_INPUTS], out;
  CbfFilterParams weights;
  CbfFilterFunc func;
  /* NPP: packed 3-channel copies for C3R */
  guint8 *npp_in[N_INPUTS], *npp_out;
  size_t npp_in_pitch, npp_out_pitch;
  int npp_channels, radius;
  NppStreamContext npp_ctx;
  /* The temporal filter's state for out (one word a pixel). */
  uint8_t *state;
  size_t state_pitch;
} KernelCtx;

static void
run_ours (void *p, int input, cudaStream_t stream)
{
  KernelCtx *c = p;
  CHECK (c->func (&c->in[input], &c->out, 0, c->out.height, &c->weights,
          stream));
}

/* NPP's bilateral with sigma-space npp_sigma_space; a failure (a radius
 * NPP does not take, say) is kept in npp_failed for the caller. */
static double npp_sigma_space = SIGMA_SPACE;
static int npp_failed;

static void
run_npp (void *p, int input, cudaStream_t stream)
{
  KernelCtx *c = p;
  NppiSize size = { c->out.width, c->out.height };
  NppiPoint origin = { 0, 0 };
  NppBilateralFunc f = c->npp_channels == 1 ? npp_c1 : npp_c3;
  int status;

  c->npp_ctx.hStream = stream;
  status = f (c->npp_in[input], (int) c->npp_in_pitch, size, origin,
      c->npp_out, (int) c->npp_out_pitch, size, c->radius, 1,
      SIGMA_COLOR * SIGMA_COLOR, npp_sigma_space * npp_sigma_space,
      NPP_BORDER_REPLICATE, c->npp_ctx);
  if (status != 0)
    npp_failed = status;
}

/* NPP's stream context for device 0 (the stream is set per call). */
static void
npp_context_init (NppStreamContext * ctx)
{
  struct cudaDeviceProp prop;

  CHECK (cudaGetDeviceProperties (&prop, 0));
  memset (ctx, 0, sizeof (*ctx));
  ctx->nCudaDeviceId = 0;
  ctx->nMultiProcessorCount = prop.multiProcessorCount;
  ctx->nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx->nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx->nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx->nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx->nCudaDevAttrComputeCapabilityMinor = prop.minor;
  ctx->nStreamFlags = cudaStreamNonBlocking;
}

/* The inputs of a kernel timing in device memory: N_INPUTS copies of
 * @pixels (@width x @height, @bpp bytes a pixel, rows @stride apart), each
 * with its own noise (seeds from @seed), an output frame, and for NPP's
 * bilateral (@npp_channels 1 or 3; 0: none) the same channel bytes packed,
 * with an output of their own. */
static void
kernel_ctx_init (KernelCtx * c, const guint8 * pixels, int stride, int width,
    int height, int bpp, int npp_channels, guint32 seed)
{
  gsize n_bytes = (gsize) stride * height;
  size_t npp_row = (size_t) width * npp_channels;
  int i;

  memset (c, 0, sizeof (*c));
  c->npp_channels = npp_channels;
  npp_context_init (&c->npp_ctx);
  for (i = 0; i < N_INPUTS; i++) {
    guint8 *noisy = g_memdup2 (pixels, n_bytes);

    add_noise (noisy, n_bytes, bpp, seed + i);
    c->in[i] = (CbfPlane) {
    .pixel_bytes = bpp,.width = width,.height = height};
    CHECK (cudaMallocPitch ((void **) &c->in[i].data, &c->in[i].pitch_bytes,
            stride, height));
    CHECK (cudaMemcpy2D (c->in[i].data, c->in[i].pitch_bytes, noisy, stride,
            stride, height, cudaMemcpyHostToDevice));
    if (npp_channels) {
      guint8 *packed = g_malloc (npp_row * height);
      gsize px;

      for (px = 0; px < (gsize) width * height; px++)
        memcpy (packed + px * npp_channels, noisy + px * bpp, npp_channels);
      CHECK (cudaMallocPitch ((void **) &c->npp_in[i], &c->npp_in_pitch,
              npp_row, height));
      CHECK (cudaMemcpy2D (c->npp_in[i], c->npp_in_pitch, packed, npp_row,
              npp_row, height, cudaMemcpyHostToDevice));
      g_free (packed);
    }
    g_free (noisy);
  }
  c->out = c->in[0];
  CHECK (cudaMallocPitch ((void **) &c->out.data, &c->out.pitch_bytes,
          stride, height));
  CHECK (cudaMallocPitch ((void **) &c->state, &c->state_pitch,
          (size_t) width * cbf_temporal_state_bytes (bpp == 1 ? 1 : 3, 8),
          height));
  CHECK (cudaMemset2D (c->state, c->state_pitch, 0, (size_t) width *
          cbf_temporal_state_bytes (bpp == 1 ? 1 : 3, 8), height));
  if (npp_channels)
    CHECK (cudaMallocPitch ((void **) &c->npp_out, &c->npp_out_pitch,
            npp_row, height));
}

static void
kernel_ctx_free (KernelCtx * c)
{
  int i;

  for (i = 0; i < N_INPUTS; i++) {
    cudaFree (c->in[i].data);
    cudaFree (c->npp_in[i]);
  }
  cudaFree (c->out.data);
  cudaFree (c->npp_out);
  cudaFree (c->state);
}

static void
bench_kernels (const char *image, GArray * rows, gboolean quick)
{
  cudaStream_t stream;
  float *host_tables = g_malloc (cbf_bilateral_tables_max_len () *
      sizeof (float));
  float *dev_tables;
  guint s, d, f;

  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CHECK (cudaMalloc ((void **) &dev_tables,
          cbf_bilateral_tables_max_len () * sizeof (float)));

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (f = 0; f < 2; f++) {
      const char *format = f == 0 ? "RGBA" : "GRAY8";
      int w = sizes[s][0], h = sizes[s][1], stride, bpp = f == 0 ? 4 : 1;
      guint8 *pixels = load_image (image, format, w, h, &stride);
      KernelCtx c;

      kernel_ctx_init (&c, pixels, stride, w, h, bpp, f == 0 ? 3 : 1, 100);

      for (d = 0; d < G_N_ELEMENTS (diameters); d++) {
        KernelRow row = { format, w, h, diameters[d], 0, 0, -1, 0 };
        c.radius = cbf_bilateral_radius (diameters[d], SIGMA_SPACE);
        if (quick && diameters[d] != 15 && diameters[d] != 5)
          continue;
        cbf_bilateral_tables_fill (host_tables, c.radius, SIGMA_COLOR,
            SIGMA_SPACE);
        CHECK (cudaMemcpy (dev_tables, host_tables,
                cbf_bilateral_tables_len (c.radius) * sizeof (float),
                cudaMemcpyHostToDevice));
        cbf_bilateral_weights_init (&c.weights, c.radius, host_tables,
            dev_tables);

        c.func = f == 0 ? cbf_bilateral_colour_first : cbf_bilateral_channel;
        row.ours_ms = time_kernel (run_ours, &c, stream);
        /* The same launch with the temporal filter on: each run blends
         * with the state the last one left, of another noisy input. */
        c.out.state = c.state;
        c.out.state_pitch = c.state_pitch;
        c.weights.temporal_gain = TEMPORAL_STRENGTH;
        c.weights.temporal_gate = cbf_temporal_gate (TEMPORAL_SIGMA, 8);
        row.temporal_ms = time_kernel (run_ours, &c, stream);
        c.out.state = NULL;
        c.weights.temporal_gain = 0;
        c.func = f == 0 ? cbf_bilateral_colour_first_generic :
            cbf_bilateral_channel_generic;
        row.generic_ms = time_kernel (run_ours, &c, stream);
        npp_sigma_space = SIGMA_SPACE;
        npp_failed = 0;
        if ((f == 0 && npp_c3) || (f == 1 && npp_c1))
          row.npp_ms = time_kernel (run_npp, &c, stream);
        if (npp_failed) {
          /* a radius NPP does not take: the row goes without NPP */
          fprintf (stderr, "NPP bilateral returned %d at d=%d\n", npp_failed,
              diameters[d]);
          row.npp_ms = -1;
        }
        g_array_append_val (rows, row);
        printf ("kernel %-5s %4dx%-4d d=%-2d  ours %8.3f ms  generic %8.3f ms"
            "  NPP %8.3f ms  (%.1fx NPP)  temporal %8.3f ms (%.2fx)\n", format,
            w, h, diameters[d], row.ours_ms, row.generic_ms, row.npp_ms,
            row.npp_ms > 0 ? row.npp_ms / row.ours_ms : 0, row.temporal_ms,
            row.temporal_ms / row.ours_ms);
        fflush (stdout);
      }
      kernel_ctx_free (&c);
      g_free (pixels);
    }
  }
  cudaFree (dev_tables);
  g_free (host_tables);
  cudaStreamDestroy (stream);
}

/* The bilateral weights for radius cbf_bilateral_radius (0, @sigma_space)
 * (OpenCV's derived window) in @dev_tables, and for method=grid the grid
 * scratch for a @width x @height view of @channels. */
static void
grid_weights (double sigma_space, double sigma_color, int width, int height,
    int channels, float *host_tables, float *dev_tables,
    CbfFilterParams * exact, CbfFilterParams * grid, CbfGridScratch * scratch)
{
  int radius = cbf_bilateral_radius (0, sigma_space);
  size_t floats;

  cbf_bilateral_tables_fill (host_tables, radius, sigma_color, sigma_space);
  CHECK (cudaMemcpy (dev_tables, host_tables,
          cbf_bilateral_tables_len (radius) * sizeof (float),
          cudaMemcpyHostToDevice));
  cbf_bilateral_weights_init (exact, radius, host_tables, dev_tables);
  cbf_grid_cells (sigma_space, sigma_color, channels, 8, scratch);
  floats = cbf_grid_floats (width, height, channels, 1, scratch);
  if (floats > scratch->capacity) {
    cudaFree (scratch->cells[0]);
    cudaFree (scratch->cells[1]);
    CHECK (cudaMalloc ((void **) &scratch->cells[0], floats * sizeof (float)));
    CHECK (cudaMalloc ((void **) &scratch->cells[1], floats * sizeof (float)));
    scratch->capacity = floats;
  }
  /* the grid entry also reads the border and the temporal fields, which
   * cbf_grid_weights_init leaves as they are */
  memset (grid, 0, sizeof (*grid));
  cbf_grid_weights_init (grid, scratch);
}

/* PSNR of @b against @a over the first @channels bytes of each pixel. */
static double
psnr (const guint8 * a, const guint8 * b, gsize n_pixels, int pixel_bytes,
    int channels)
{
  double se = 0;
  gsize i;
  int c;

  for (i = 0; i < n_pixels; i++)
    for (c = 0; c < channels; c++) {
      double d = (double) a[i * pixel_bytes + c] - b[i * pixel_bytes + c];
      se += d * d;
    }
  if (se == 0)
    return INFINITY;
  return 10 * log10 (255.0 * 255.0 * n_pixels * channels / se);
}

static void
bench_grid (const char *image, GArray * psnr_rows, GArray * time_rows)
{
  gchar *dir = g_path_get_dirname (image);
  struct
  {
    gchar *path;
    const char *format;
  } images[] = {
    {g_strdup (image), "RGBA"}, {g_build_filename (dir, "camera.png", NULL),
        "GRAY8"}
  };
  float *host_tables = g_malloc (cbf_bilateral_tables_max_len () *
      sizeof (float));
  float *dev_tables;
  CbfGridScratch scratch = { {NULL, NULL}, 0, 0, 0, 0, 0 };
  cudaStream_t stream;
  guint im, i, j, s;

  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CHECK (cudaMalloc ((void **) &dev_tables,
          cbf_bilateral_tables_max_len () * sizeof (float)));

  /* Error: the images at their own size (512 x 512), no noise. */
  for (im = 0; im < G_N_ELEMENTS (images); im++) {
    const char *format = images[im].format;
    int bpp = strcmp (format, "RGBA") == 0 ? 4 : 1, channels = bpp == 4 ? 3 : 1;
    int w = 512, h = 512, stride;
    guint8 *pixels, *exact_out, *grid_out;
    CbfPlane in = {.pixel_bytes = bpp,.width = w,.height = h }, out;
    CbfFilterFunc exact_f = bpp == 4 ? cbf_bilateral_colour_first :
        cbf_bilateral_channel;
    CbfFilterFunc grid_f = bpp == 4 ? cbf_grid_colour_first : cbf_grid_channel;

    if (!g_file_test (images[im].path, G_FILE_TEST_EXISTS)) {
      fprintf (stderr, "grid PSNR: %s not found, skipped\n", images[im].path);
      continue;
    }
    pixels = load_image (images[im].path, format, w, h, &stride);
    exact_out = g_malloc ((gsize) stride * h);
    grid_out = g_malloc ((gsize) stride * h);
    CHECK (cudaMallocPitch ((void **) &in.data, &in.pitch_bytes, stride, h));
    CHECK (cudaMemcpy2D (in.data, in.pitch_bytes, pixels, stride, stride, h,
            cudaMemcpyHostToDevice));
    out = in;
    CHECK (cudaMallocPitch ((void **) &out.data, &out.pitch_bytes, stride, h));
    for (i = 0; i < G_N_ELEMENTS (grid_sigma_space); i++)
      for (j = 0; j < G_N_ELEMENTS (grid_sigma_color); j++) {
        GridPsnrRow row = { bpp == 4 ? "astronaut.png" : "camera.png", format,
          grid_sigma_space[i], grid_sigma_color[j], 0
        };
        CbfFilterParams exact, grid;

        grid_weights (row.sigma_space, row.sigma_color, w, h, channels,
            host_tables, dev_tables, &exact, &grid, &scratch);
        CHECK (exact_f (&in, &out, 0, h, &exact, stream));
        CHECK (cudaMemcpy2DAsync (exact_out, stride, out.data,
                out.pitch_bytes, stride, h, cudaMemcpyDeviceToHost, stream));
        CHECK (grid_f (&in, &out, 0, h, &grid, stream));
        CHECK (cudaMemcpy2DAsync (grid_out, stride, out.data,
                out.pitch_bytes, stride, h, cudaMemcpyDeviceToHost, stream));
        CHECK (cudaStreamSynchronize (stream));
        row.psnr_db = psnr (exact_out, grid_out, (gsize) w * h, bpp, channels);
        g_array_append_val (psnr_rows, row);
        printf ("grid PSNR %-13s %-5s sigma-space %2.0f sigma-color %2.0f  "
            "%6.2f dB\n", row.image, format, row.sigma_space, row.sigma_color,
            row.psnr_db);
      }
    cudaFree (in.data);
    cudaFree (out.data);
    g_free (pixels);
    g_free (exact_out);
    g_free (grid_out);
  }

  /* Time: RGBA, sigma-space 8, 16, 32 (exact diameters 25, 49, 97),
   * sigma-color 30, noised input. */
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], h = sizes[s][1], stride;
    guint8 *pixels = load_image (image, "RGBA", w, h, &stride);
    KernelCtx c;

    kernel_ctx_init (&c, pixels, stride, w, h, 4, 3, 300);
    for (i = 0; i < G_N_ELEMENTS (grid_sigma_space); i++) {
      GridTimeRow row = { w, h, grid_sigma_space[i], 0, 0, -1 };
      CbfFilterParams exact, grid;

      grid_weights (row.sigma_space, SIGMA_COLOR, w, h, 3, host_tables,
          dev_tables, &exact, &grid, &scratch);
      c.radius = exact.radius;
      c.weights = exact;
      c.func = cbf_bilateral_colour_first;
      row.exact_ms = time_kernel (run_ours, &c, stream);
      c.weights = grid;
      c.func = cbf_grid_colour_first;
      row.grid_ms = time_kernel (run_ours, &c, stream);
      npp_sigma_space = row.sigma_space;
      npp_failed = 0;
      if (npp_c3)
        row.npp_ms = time_kernel (run_npp, &c, stream);
      if (npp_failed) {
        fprintf (stderr, "NPP bilateral returned %d for radius %d\n",
            npp_failed, c.radius);
        row.npp_ms = -1;
      }
      g_array_append_val (time_rows, row);
      printf ("grid time RGBA %4dx%-4d sigma-space %2.0f (exact d=%d)  grid "
          "%7.3f ms  exact %8.3f ms  NPP %8.3f ms\n", w, h, row.sigma_space,
          2 * c.radius + 1, row.grid_ms, row.exact_ms, row.npp_ms);
      fflush (stdout);
    }
    kernel_ctx_free (&c);
    g_free (pixels);
  }
  cudaFree (scratch.cells[0]);
  cudaFree (scratch.cells[1]);
  cudaFree (dev_tables);
  g_free (host_tables);
  for (im = 0; im < G_N_ELEMENTS (images); im++)
    g_free (images[im].path);
  g_free (dir);
  cudaStreamDestroy (stream);
}

static int npp_gauss_mask, npp_gauss_status;

/* NPP's Gaussian on the RGBA frame (all four channels: C4R). */
static void
run_npp_gauss (void *p, int input, cudaStream_t stream)
{
  KernelCtx *c = p;
  NppiSize size = { c->out.width, c->out.height };
  NppiPoint origin = { 0, 0 };
  int status;

  c->npp_ctx.hStream = stream;
  status = npp_gauss_c4 (c->in[input].data, (int) c->in[input].pitch_bytes,
      size, origin, c->out.data, (int) c->out.pitch_bytes, size,
      npp_gauss_mask, NPP_BORDER_REPLICATE, c->npp_ctx);
  if (status != 0)
    npp_gauss_status = status;
}

/* mode=gaussian's kernel, RGBA (cbf_gaussian_colour_first: what the element
 * launches for RGBA), one input and one output frame in device memory;
 * NPP's fixed-mask Gaussian beside it where it has the size. */
static void
bench_gaussian (const char *image, GArray * rows)
{
  cudaStream_t stream;
  float coeffs[CBF_GAUSSIAN_MAX_KSIZE], *dev_coeffs;
  guint s, d;

  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CHECK (cudaMalloc ((void **) &dev_coeffs, sizeof (coeffs)));
  for (s = 0; s < G_N_ELEMENTS (gaussian_sizes); s++) {
    int w = gaussian_sizes[s][0], h = gaussian_sizes[s][1], stride;
    guint8 *pixels = load_image (image, "RGBA", w, h, &stride);
    KernelCtx c;

    /* NPP's Gaussian reads the RGBA inputs themselves: no packed copy. */
    kernel_ctx_init (&c, pixels, stride, w, h, 4, 0, 200);
    c.func = cbf_gaussian_colour_first;
    for (d = 0; d < G_N_ELEMENTS (gaussian_diameters); d++) {
      GaussianRow row = { w, h, gaussian_diameters[d], 0, -1 };
      int ksize;
      double sigma;

      cbf_gaussian_params (row.diameter, 0, &ksize, &sigma);
      cbf_gaussian_kernel_fill (coeffs, ksize, sigma);
      CHECK (cudaMemcpy (dev_coeffs, coeffs, ksize * sizeof (float),
              cudaMemcpyHostToDevice));
      cbf_gaussian_weights_init (&c.weights, ksize, dev_coeffs);
      row.ms = time_kernel (run_ours, &c, stream);
      npp_gauss_mask = npp_mask_size (row.diameter);
      npp_gauss_status = 0;
      if (npp_gauss_c4 && npp_gauss_mask >= 0) {
        row.npp_ms = time_kernel (run_npp_gauss, &c, stream);
        if (npp_gauss_status != 0) {
          fprintf (stderr, "NPP Gaussian returned %d\n", npp_gauss_status);
          row.npp_ms = -1;
        }
      }
      g_array_append_val (rows, row);
      printf ("gaussian RGBA %5dx%-4d d=%-2d  %8.3f ms  %8.0f MP/s  NPP %8.3f "
          "ms\n", w, h, row.diameter, row.ms, w * (double) h / row.ms / 1e3,
          row.npp_ms);
      fflush (stdout);
    }
    kernel_ctx_free (&c);
    g_free (pixels);
  }
  cudaFree (dev_coeffs);
  cudaStreamDestroy (stream);
}

/* ---------------------------------------------------------------------- */
/* Kernel time of a whole frame per format: the element's engine, with the
 * parameters set and prepared as the element does, run on a frame
 * (cbf_engine_run: every launch the element makes for it, luma and both
 * chroma channels for YUV), on device planes laid out as the element's. */

static const char *frame_formats[] = { "GRAY8", "RGBA", "NV12", "I420",
  "YUY2", "Y444", "GRAY16_LE", "P010_10LE", "P016_LE", "I420_10LE",
  "Y444_16LE", "RGBA64_LE", "BGR10A2_LE"
};

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

static void
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
static const char *format_filter;

static void bench_chroma_time (FrameCtx * c, const char *format,
    int diameter, double frame_ms, cudaStream_t stream, GArray * rows);

static void
bench_formats (const char *image, GArray * rows, GArray * chroma_rows)
{
  static const int frame_diameters[] = { 5, 15, 31 };
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

/* ---------------------------------------------------------------------- */
/* Chroma guided by luma: what its chroma pass costs beside the unguided
 * one (the guide and the guided filter, against the filter alone, on a
 * frame's chroma; and the whole frame through the engine), and what it
 * gives: the PSNR of U and V against the clean picture, on frames of it
 * with chroma noise stronger than luma's, as camera noise is. */

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
  CbfPlane src[N_INPUTS][3], dst[2], luma[N_INPUTS], guide;
  CbfFilterParams weights;
  CbfFilterFunc plain, guided;
  int sub_x, sub_y, site;
  gboolean with_guide, guide_only;
} ChromaCtx;

static void
run_chroma (void *p, int input, cudaStream_t stream)
{
  ChromaCtx *c = p;

  if (c->with_guide)
    CHECK (cbf_chroma_guide (&c->luma[input], &c->guide, c->sub_x, c->sub_y,
            c->site, 0, c->guide.height, stream));
  if (c->guide_only)
    return;
  CHECK ((c->with_guide ? c->guided : c->plain) (c->src[input], c->dst, 0,
          c->dst[0].height, &c->weights, stream));
}

/* View @v of @pass on @planes, as the frame plan makes it. */
static CbfPlane
bench_view (const CbfPlane * planes, const CbfPass * pass, guint v)
{
  CbfPlane view = planes[pass->plane[v]];

  view.data += pass->offset[v];
  view.pixel_bytes = pass->pixel_bytes;
  view.sample_shift = pass->sample_shift;
  view.sample_bits = pass->sample_bits;
  view.width = pass->width;
  view.height = pass->height;
  return view;
}

/* The rows of @c's YUV frame at @diameter (its engine set to it, the
 * whole frame's time @frame_ms) with chroma guided by luma. */
static void
bench_chroma_time (FrameCtx * c, const char *format, int diameter,
    double frame_ms, cudaStream_t stream, GArray * rows)
{
  const CbfFramePlan *plan = cbf_engine_get_plan (c->engine);
  const CbfPass *pass = &plan->passes[plan->n_passes - 1];
  ChromaTimeRow row = { format, plan->width, plan->height, diameter, 0, 0,
    0, frame_ms, 0
  };
  CbfParams params = {.diameter = diameter,.sigma_color = SIGMA_COLOR,
    .sigma_space = SIGMA_SPACE,.filter_chroma = TRUE,
    .mode = CBF_MODE_BILATERAL,.method = CBF_METHOD_EXACT,
    .chroma_diameter = CBF_PARAMS_DERIVED,
    .chroma_sigma_color = CBF_PARAMS_DERIVED,
    .chroma_sigma_space = CBF_PARAMS_DERIVED,
    .chroma_guide = CBF_CHROMA_GUIDE_LUMA
  };
  gsize tables_floats = cbf_bilateral_tables_max_len ();
  float *host_tables, *dev_tables;
  int chroma_diameter, radius, sample_bytes = plan->bits > 8 ? 2 : 1;
  double chroma_sigma_space;
  const gchar *what = NULL;
  gint halo_rows, i;
  ChromaCtx x;

  if (!pass->chroma || !pass->guided)
    return;
  memset (&x, 0, sizeof (x));
  cbf_bilateral_chroma_params (diameter, SIGMA_SPACE, plan->chroma_factor,
      &chroma_diameter, &chroma_sigma_space);
  radius = cbf_bilateral_radius (chroma_diameter, chroma_sigma_space);
  host_tables = g_new (float, tables_floats);
  CHECK (cudaMalloc ((void **) &dev_tables, tables_floats * sizeof (float)));
  if (plan->bits > 8) {
    cbf_deep_tables_fill (host_tables, radius, plan->bits, 1, SIGMA_COLOR,
        chroma_sigma_space);
    cbf_deep_weights_init (&x.weights, radius, plan->bits, SIGMA_COLOR,
        host_tables, dev_tables);
  } else {
    cbf_bilateral_tables_fill (host_tables, radius, SIGMA_COLOR,
        chroma_sigma_space);
    cbf_bilateral_weights_init (&x.weights, radius, host_tables, dev_tables);
  }
  CHECK (cudaMemcpy (dev_tables, host_tables, tables_floats * sizeof (float),
          cudaMemcpyHostToDevice));
  x.plain = pass->process[CBF_KERNEL_BILATERAL];
  x.guided = pass->guided;
  x.sub_x = pass->sub_x;
  x.sub_y = pass->sub_y;
  x.site = pass->guide_site;
  x.guide.width = pass->width;
  x.guide.height = pass->height;
  x.guide.pixel_bytes = sample_bytes;
  CHECK (cudaMallocPitch ((void **) &x.guide.data, &x.guide.pitch_bytes,
          (size_t) pass->width * sample_bytes, pass->height));
  for (i = 0; i < N_INPUTS; i++) {
    x.src[i][0] = bench_view (c->in[i], pass, 0);
    x.src[i][1] = bench_view (c->in[i], pass, 1);
    x.src[i][2] = x.guide;
    x.luma[i] = bench_view (c->in[i], &plan->passes[0], 0);
  }
  x.dst[0] = bench_view (c->out, pass, 0);
  x.dst[1] = bench_view (c->out, pass, 1);

  row.unguided_ms = time_kernel (run_chroma, &x, stream);
  x.with_guide = TRUE;
  row.guided_ms = time_kernel (run_chroma, &x, stream);
  x.guide_only = TRUE;
  row.guide_ms = time_kernel (run_chroma, &x, stream);

  cbf_engine_set_params (c->engine, &params);
  if (cbf_engine_prepare (c->engine, stream, &halo_rows, &what) != cudaSuccess) {
    fprintf (stderr, "%s\n", what);
    exit (1);
  }
  row.frame_guided_ms = time_kernel (run_frame, c, stream);
  g_array_append_val (rows, row);
  printf ("chroma %-10s %4dx%-4d d=%-2d  unguided %7.3f ms  guided %7.3f ms "
      "(%.2fx; guide %.3f ms)  frame %7.3f -> %7.3f ms\n", format,
      row.width, row.height, diameter, row.unguided_ms, row.guided_ms,
      row.guided_ms / row.unguided_ms, row.guide_ms, row.frame_ms,
      row.frame_guided_ms);
  fflush (stdout);
  cudaFree (x.guide.data);
  cudaFree (dev_tables);
  g_free (host_tables);
}

typedef struct
{
  const char *name;
  int chroma_diameter;          /* CBF_PARAMS_DERIVED: from luma's */
  double chroma_sigma_color, chroma_sigma_space;
  gboolean guided;
  double psnr_y, psnr_u, psnr_v;
} ChromaPsnrRow;

/* Luma's parameters in the quality rows, and the noise (standard
 * deviations in 8-bit levels) of the frames. */
#define CHROMA_Q_DIAMETER 5
#define CHROMA_Q_SIGMA_COLOR 20.0
#define CHROMA_Q_SIGMA_SPACE 3.0
#define CHROMA_Q_NOISE_Y 6.0
#define CHROMA_Q_NOISE_C 12.0
#define CHROMA_Q_FRAMES 8

/* Gaussian noise of @sigma on @n bytes. */
static void
add_gaussian_noise (guint8 * p, gsize n, double sigma, GRand * rand)
{
  gsize i;

  for (i = 0; i < n; i++) {
    double u = g_rand_double (rand), v = g_rand_double (rand);
    double g = sqrt (-2 * log (1 - u)) * cos (2 * G_PI * v);
    int s = (int) lround (p[i] + sigma * g);

    p[i] = CLAMP (s, 0, 255);
  }
}

static double
plane_se (const guint8 * a, const guint8 * b, gsize n)
{
  double se = 0;
  gsize i;

  for (i = 0; i < n; i++)
    se += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
  return se;
}

static double
se_psnr (double se, gsize n)
{
  return se > 0 ? 10 * log10 (255.0 * 255.0 * n / se) : INFINITY;
}

/* The PSNR of Y, U and V over CHROMA_Q_FRAMES noisy I420 frames of
 * @image filtered with @row's chroma settings (a NULL engine: the noisy
 * frames themselves); frame 0's output written to @dump (NULL: not). */
static void
chroma_quality_run (CbfEngine * engine, const GstVideoInfo * info,
    const guint8 * clean, CbfPlane * dev, ChromaPsnrRow * row,
    cudaStream_t stream, const char *dump)
{
  gsize size = GST_VIDEO_INFO_SIZE (info);
  gsize y_n = (gsize) info->width * info->height;
  gsize c_n = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, 1) *
      GST_VIDEO_INFO_COMP_HEIGHT (info, 1);
  guint8 *noisy = g_malloc (size), *out = g_malloc (size);
  double se[3] = { 0, 0, 0 };
  GRand *rand = g_rand_new_with_seed (4242);
  int f, p;

  if (engine) {
    CbfParams params = {.diameter = CHROMA_Q_DIAMETER,
      .sigma_color = CHROMA_Q_SIGMA_COLOR,.sigma_space = CHROMA_Q_SIGMA_SPACE,
      .filter_chroma = TRUE,.mode = CBF_MODE_BILATERAL,
      .method = CBF_METHOD_EXACT,.chroma_diameter = row->chroma_diameter,
      .chroma_sigma_color = row->chroma_sigma_color,
      .chroma_sigma_space = row->chroma_sigma_space,
      .chroma_guide = row->guided ? CBF_CHROMA_GUIDE_LUMA :
          CBF_CHROMA_GUIDE_NONE
    };
    const gchar *what = NULL;
    gint halo_rows;

    cbf_engine_set_params (engine, &params);
    if (cbf_engine_prepare (engine, stream, &halo_rows, &what) != cudaSuccess) {
      fprintf (stderr, "%s\n", what);
      exit (1);
    }
  }
  for (f = 0; f < CHROMA_Q_FRAMES; f++) {
    memcpy (noisy, clean, size);
    add_gaussian_noise (noisy, y_n, CHROMA_Q_NOISE_Y, rand);
    add_gaussian_noise (noisy + y_n, 2 * c_n, CHROMA_Q_NOISE_C, rand);
    memcpy (out, noisy, size);
    if (engine) {
      for (p = 0; p < 3; p++)
        CHECK (cudaMemcpy (dev[p].data, noisy + info->offset[p],
                (p ? c_n : y_n), cudaMemcpyHostToDevice));
      CHECK (cbf_engine_run (engine, dev, dev + 3, 0, info->height, stream));
      CHECK (cudaStreamSynchronize (stream));
      for (p = 0; p < 3; p++)
        CHECK (cudaMemcpy (out + info->offset[p], dev[3 + p].data,
                (p ? c_n : y_n), cudaMemcpyDeviceToHost));
    }
    for (p = 0; p < 3; p++)
      se[p] += plane_se (clean + info->offset[p], out + info->offset[p],
          p ? c_n : y_n);
    if (f == 0 && dump) {
      FILE *file = fopen (dump, "wb");

      if (!file || fwrite (out, 1, size, file) != size) {
        fprintf (stderr, "cannot write %s\n", dump);
        exit (1);
      }
      fclose (file);
    }
  }
  row->psnr_y = se_psnr (se[0], y_n * CHROMA_Q_FRAMES);
  row->psnr_u = se_psnr (se[1], c_n * CHROMA_Q_FRAMES);
  row->psnr_v = se_psnr (se[2], c_n * CHROMA_Q_FRAMES);
  g_rand_free (rand);
  g_free (noisy);
  g_free (out);
}

/* --chroma-dump: where the quality rows' first frames go (raw I420). */
static const char *chroma_dump_dir;

static void
chroma_quality_add (CbfEngine * engine, const GstVideoInfo * info,
    const guint8 * clean, CbfPlane * dev, ChromaPsnrRow * row,
    cudaStream_t stream, const char *key, GArray * rows)
{
  gchar *dump = chroma_dump_dir ? g_strdup_printf ("%s/%s.i420",
      chroma_dump_dir, key) : NULL;

  chroma_quality_run (engine, info, clean, dev, row, stream, dump);
  g_array_append_val (rows, *row);
  printf ("chroma quality %-44s Y %6.2f dB  U %6.2f dB  V %6.2f dB\n",
      row->name, row->psnr_y, row->psnr_u, row->psnr_v);
  fflush (stdout);
  g_free (dump);
}

/* The siting rows: what following the caps' chroma-site buys. The
 * picture made 4:2:0 with each siting's filter, here on its own 4:4:4
 * chroma (videoconvert's Y444; guide.h's definition of the guide, which is
 * this filter on luma: [1 1] / 2 centred, [1 2 1] / 4 cosited, clamped at
 * the edges, one rounding half up; videoconvert itself has no vertical
 * cositing), under the quality rows' noise, its chroma filtered unguided
 * with luma's parameters derived, then guided as the caps' chroma-site
 * says and guided centred (the jpeg guide, the element's before it read
 * chroma-site; for the jpeg picture the same as the caps'), each with
 * luma's parameters derived and with the best guided per-plane parameters
 * of the quality rows' sweep. */
#define SITING_ROWS(s) { "siting " s ": unguided", \
    "siting " s ": derived + chroma-guide=luma, guide " s " (the caps')", \
    "siting " s ": derived + chroma-guide=luma, guide centred (jpeg)", \
    "siting " s ": per-plane + chroma-guide=luma (best of sweep), guide " s \
        " (the caps')", \
    "siting " s ": per-plane + chroma-guide=luma (best of sweep), guide " \
        "centred (jpeg)" }
static const struct
{
  const char *name;
  GstVideoChromaSite site;
  /* unguided; derived: guide as the caps, centred; per-plane: the same */
  const char *rows[5];
} chroma_sitings[] = {
  {"jpeg", GST_VIDEO_CHROMA_SITE_JPEG, SITING_ROWS ("jpeg")},
  {"mpeg2", GST_VIDEO_CHROMA_SITE_MPEG2, SITING_ROWS ("mpeg2")},
  {"cosited", GST_VIDEO_CHROMA_SITE_COSITED, SITING_ROWS ("cosited")},
};

/* @src (@width x @height, rows @stride bytes apart) subsampled by 2 each
 * way into @dst (rows @dst_stride bytes apart), chroma sited as @site. */
static void
subsample_sited (const guint8 * src, int stride, int width, int height,
    GstVideoChromaSite site, guint8 * dst, int dst_stride)
{
  static const int centred[3] = { 0, 1, 1 }, cosited[3] = { 1, 2, 1 };
  gboolean h_cosited = (site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
  gboolean v_cosited = (site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
  const int *wx = h_cosited ? cosited : centred;
  const int *wy = v_cosited ? cosited : centred;
  int total = (h_cosited ? 4 : 2) * (v_cosited ? 4 : 2), x, y, i, j;

  for (y = 0; y < (height + 1) / 2; y++)
    for (x = 0; x < (width + 1) / 2; x++) {
      int sum = 0;

      for (j = -1; j <= 1; j++)
        for (i = -1; i <= 1; i++) {
          int row = CLAMP (2 * y + j, 0, height - 1);
          int col = CLAMP (2 * x + i, 0, width - 1);

          sum += wy[j + 1] * wx[i + 1] * src[(gsize) row * stride + col];
        }
      dst[(gsize) y * dst_stride + x] = (guint8) ((sum + total / 2) / total);
    }
}

/* The quality rows' device planes: an I420 frame of @info in and one out
 * (dev[0..2], dev[3..5]), packed. */
static void
i420_planes_alloc (const GstVideoInfo * info, CbfPlane dev[6])
{
  int p;

  for (p = 0; p < 6; p++) {
    memset (&dev[p], 0, sizeof (CbfPlane));
    dev[p].width = GST_VIDEO_INFO_COMP_WIDTH (info, p % 3);
    dev[p].height = GST_VIDEO_INFO_COMP_HEIGHT (info, p % 3);
    dev[p].pixel_bytes = 1;
    dev[p].pitch_bytes = dev[p].width;
    CHECK (cudaMalloc ((void **) &dev[p].data,
            (size_t) dev[p].width * dev[p].height));
  }
}

static void
i420_planes_free (CbfPlane dev[6])
{
  int p;

  for (p = 0; p < 6; p++)
    cudaFree (dev[p].data);
}

static void
bench_chroma_siting (const char *image, const ChromaPsnrRow * tuned,
    GArray * rows)
{
  int w = 512, h = 512, p, k;
  guint s;
  GstBuffer *buf = load_buffer (image, "Y444", w, h);
  GstVideoInfo info444, info;
  GstVideoFrame frame;
  guint8 *clean;
  CbfPlane dev[6];
  cudaStream_t stream;

  gst_video_info_set_format (&info444, GST_VIDEO_FORMAT_Y444, w, h);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, w, h);
  if (!gst_video_frame_map (&frame, &info444, buf, GST_MAP_READ)) {
    fprintf (stderr, "cannot map the Y444 picture\n");
    exit (1);
  }
  clean = g_malloc (GST_VIDEO_INFO_SIZE (&info));
  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  i420_planes_alloc (&info, dev);
  for (s = 0; s < G_N_ELEMENTS (chroma_sitings); s++) {
    GstVideoInfo sited = info, centred = info;
    CbfEngine *engines[2];
    ChromaPsnrRow r[5];
    GError *error = NULL;

    /* Tightly laid out, as chroma_quality_run reads it. */
    for (k = 0; k < h; k++)
      memcpy (clean + info.offset[0] + (gsize) k * w,
          (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
          (gsize) k * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), w);
    for (p = 1; p < 3; p++)
      subsample_sited (GST_VIDEO_FRAME_PLANE_DATA (&frame, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), w, h,
          chroma_sitings[s].site, clean + info.offset[p],
          GST_VIDEO_INFO_COMP_WIDTH (&info, p));
    sited.chroma_site = chroma_sitings[s].site;
    centred.chroma_site = GST_VIDEO_CHROMA_SITE_JPEG;
    engines[0] = cbf_engine_new (&sited, &error);
    engines[1] = engines[0] ? cbf_engine_new (&centred, &error) : NULL;
    if (!engines[1]) {
      fprintf (stderr, "%s\n", error->message);
      exit (1);
    }
    /* unguided, guided as the caps say (engines[0]) and centred
     * (engines[1]), with luma's parameters derived, then with the tuned
     * ones; the same noise in each */
    for (k = 0; k < 5; k++) {
      ChromaPsnrRow row = { chroma_sitings[s].rows[k], CBF_PARAMS_DERIVED,
        CBF_PARAMS_DERIVED, CBF_PARAMS_DERIVED, k > 0, 0, 0, 0
      };
      gchar *dump = chroma_dump_dir ? g_strdup_printf ("%s/siting-%s-%d.i420",
          chroma_dump_dir, chroma_sitings[s].name, k) : NULL;

      if (k >= 3) {
        row.chroma_diameter = tuned->chroma_diameter;
        row.chroma_sigma_color = tuned->chroma_sigma_color;
        row.chroma_sigma_space = tuned->chroma_sigma_space;
      }
      r[k] = row;
      chroma_quality_run (engines[k == 2 || k == 4], &info, clean, dev, &r[k],
          stream, dump);
      g_array_append_val (rows, r[k]);
      g_free (dump);
    }
    printf ("chroma siting %-7s derived    unguided U %6.2f V %6.2f dB  "
        "guide as the caps U %6.2f V %6.2f dB  guide centred U %6.2f V "
        "%6.2f dB\n", chroma_sitings[s].name, r[0].psnr_u, r[0].psnr_v,
        r[1].psnr_u, r[1].psnr_v, r[2].psnr_u, r[2].psnr_v);
    printf ("chroma siting %-7s per-plane (chroma-diameter=%d "
        "chroma-sigma-color=%g chroma-sigma-space=%g)  guide as the caps "
        "U %6.2f V %6.2f dB  guide centred U %6.2f V %6.2f dB\n",
        chroma_sitings[s].name, tuned->chroma_diameter,
        tuned->chroma_sigma_color, tuned->chroma_sigma_space, r[3].psnr_u,
        r[3].psnr_v, r[4].psnr_u, r[4].psnr_v);
    fflush (stdout);
    cbf_engine_free (engines[0]);
    cbf_engine_free (engines[1]);
  }
  i420_planes_free (dev);
  cudaStreamDestroy (stream);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  g_free (clean);
}

/* The quality rows: the noisy frames, luma's parameters derived for
 * chroma without and with the guide, and for each the best of a sweep of
 * chroma's own (per-plane) parameters by the mean of U's and V's PSNR. */
static void
bench_chroma_quality (const char *image, GArray * rows)
{
  static const int diameters[] = { 5, 9, 13 };
  static const double sigma_colors[] = { 20, 30, 45, 60, 90 };
  static const char *best_names[] = {
    "per-plane chroma parameters (best of sweep)",
    "per-plane + chroma-guide=luma (best of sweep)"
  };
  int w = 512, h = 512, g;
  guint d, s;
  GstBuffer *buf = load_buffer (image, "I420", w, h);
  GstVideoInfo info;
  GstMapInfo map;
  guint8 *clean;
  CbfPlane dev[6];
  CbfEngine *engine;
  GError *error = NULL;
  cudaStream_t stream;
  ChromaPsnrRow noisy = { "noisy input", 0, 0, 0, FALSE, 0, 0, 0 };
  ChromaPsnrRow derived[2] = {
    {"chroma derived from luma's parameters", CBF_PARAMS_DERIVED,
        CBF_PARAMS_DERIVED, CBF_PARAMS_DERIVED, FALSE, 0, 0, 0},
    {"derived + chroma-guide=luma", CBF_PARAMS_DERIVED, CBF_PARAMS_DERIVED,
        CBF_PARAMS_DERIVED, TRUE, 0, 0, 0}
  };
  /* the best guided per-plane parameters, for the siting rows */
  ChromaPsnrRow tuned = derived[1];

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, w, h);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  clean = g_memdup2 (map.data, GST_VIDEO_INFO_SIZE (&info));
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  engine = cbf_engine_new (&info, &error);
  i420_planes_alloc (&info, dev);

  if (chroma_dump_dir) {
    gchar *path = g_build_filename (chroma_dump_dir, "clean.i420", NULL);

    if (!g_file_set_contents (path, (const gchar *) clean,
            GST_VIDEO_INFO_SIZE (&info), NULL)) {
      fprintf (stderr, "cannot write %s\n", path);
      exit (1);
    }
    g_free (path);
  }
  chroma_quality_add (NULL, &info, clean, dev, &noisy, stream, "noisy", rows);
  for (g = 0; g < 2; g++)
    chroma_quality_add (engine, &info, clean, dev, &derived[g], stream,
        g ? "derived-guided" : "derived", rows);
  for (g = 0; g < 2; g++) {
    ChromaPsnrRow best = { best_names[g], 0, 0, 0, g, 0, 0, 0 };

    for (d = 0; d < G_N_ELEMENTS (diameters); d++)
      for (s = 0; s < G_N_ELEMENTS (sigma_colors); s++) {
        ChromaPsnrRow r = { best_names[g], diameters[d], sigma_colors[s],
          diameters[d] / 3.0, g, 0, 0, 0
        };

        chroma_quality_run (engine, &info, clean, dev, &r, stream, NULL);
        if (r.psnr_u + r.psnr_v > best.psnr_u + best.psnr_v)
          best = r;
      }
    printf ("chroma quality best %s: chroma-diameter=%d "
        "chroma-sigma-color=%g chroma-sigma-space=%g\n",
        g ? "guided" : "unguided", best.chroma_diameter,
        best.chroma_sigma_color, best.chroma_sigma_space);
    chroma_quality_add (engine, &info, clean, dev, &best, stream,
        g ? "per-plane-guided" : "per-plane", rows);
    if (g)
      tuned = best;
  }
  i420_planes_free (dev);
  cbf_engine_free (engine);
  cudaStreamDestroy (stream);
  g_free (clean);
  bench_chroma_siting (image, &tuned, rows);
}

/* ---------------------------------------------------------------------- */
/* Pipelines */

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

/* Room for the times of the frames with offsets 0 to @capacity - 1. */
static void
probe_init (Probe * p, int capacity)
{
  memset (p, 0, sizeof (*p));
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->capacity = capacity;
  p->t_in = g_new0 (gint64, capacity);
  p->t_out = g_new0 (gint64, capacity);
  p->mem_in = g_new0 (gconstpointer, capacity);
  p->mem_out = g_new0 (gconstpointer, capacity);
}

static void
probe_clear (Probe * p)
{
  g_free (p->t_in);
  g_free (p->t_out);
  g_free (p->mem_in);
  g_free (p->mem_out);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
}

/* Notes when the frame numbered by the buffer's offset passed, and in
 * which memory. */
static void
record_time (Probe * p, GstPadProbeInfo * info, gint64 * times,
    gconstpointer * mems)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 i = GST_BUFFER_OFFSET (buf);
  if (i < (guint64) p->capacity) {
    times[i] = g_get_monotonic_time ();
    mems[i] = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0) :
        NULL;
  }
}

static GstPadProbeReturn
probe_in (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  record_time (p, info, p->t_in, p->mem_in);
  return GST_PAD_PROBE_OK;
}

/* One more frame out (wakes wait_frames). */
static void
count_out (Probe * p)
{
  g_mutex_lock (&p->lock);
  p->n_out++;
  g_cond_signal (&p->cond);
  g_mutex_unlock (&p->lock);
}

static GstPadProbeReturn
probe_out (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  record_time (p, info, p->t_out, p->mem_out);
  count_out (p);
  return GST_PAD_PROBE_OK;
}

/* Output in CUDA memory counts once its GPU work is done. Since GStreamer
 * 1.24 it may leave the element with that work still pending on its
 * stream, which whatever reads it next (cudadownload, a display) waits
 * for; waiting here too keeps the row comparable across versions. */
static GstPadProbeReturn
probe_out_gpu_done (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
#if CBF_HAVE_CUDA_MEMORY && GST_CHECK_VERSION (1, 24, 0)
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
      0);

  if (gst_is_cuda_memory (mem))
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
  return probe_out (pad, info, data);
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
static const char *pipeline_filter;

static gboolean
row_wanted (const char *name)
{
  return !pipeline_filter || strstr (name, pipeline_filter) != NULL;
}

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
  printf ("pipeline %-44s %4dx%-4d %8.1f frames/s  latency median %6.3f ms"
      "  p99 %6.3f ms", row->name, row->width, row->height, row->fps,
      row->latency_median_ms, row->latency_p99_ms);
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
 * from @frames. */
static PipelineRow
bench_pipeline (const char *name, const char *desc, const char *first,
    const char *last, int width, int height, int frames,
    FrameSource frame_source)
{
  PipelineRow row = { name, width, height, frames, 0, 0, 0, 1, 0, -1, -1 };
  GError *error = NULL;
  GstElement *pipeline;
  GstElement *src, *e_first, *e_last;
  GstPad *pad_in, *pad_out;
  GstCaps *caps;
  GstVideoInfo info;
  GstBuffer *pushed[N_POOL_FRAMES] = { NULL };
  GstBufferPool *pool = NULL;
  Probe probe;
  double *lat;
  gint64 t0 = 0, t1;
  struct rusage use0 = { 0 }, use1;
  int i, first_offset = 0, n_pushed = N_POOL_FRAMES, warmup = 20;

  if (!row_wanted (name))
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
  gst_pad_add_probe (pad_out, GST_PAD_PROBE_TYPE_BUFFER,
      frame_source == FRAMES_CUDA_POOL ? probe_out_gpu_done : probe_out,
      &probe, NULL);

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

  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_element_set_state (pipeline, GST_STATE_NULL);
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
  PipelineRow row = { name, width, height, frames * n, 0, 0, 0, n, 0, -1, -1 };
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
  PipelineRow row = { name, 0, 0, 0, -1, -1, -1, 1, -1, -1, -1 };
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
bench_transfers (const char *name, int width, int height, int frames)
{
  PipelineRow row = { name, width, height, frames, 0, 0, 0, 1, 0, -1, -1 };
  const size_t size = (size_t) width * height * 4;
  const int warmup = 20, n_out = 2;
  guint8 *host_in[N_POOL_FRAMES], *host_out[2], *dev_in, *dev_out;
  double *lat;
  cudaStream_t up, down;
  gint64 t0 = 0;
  int i;

  if (!row_wanted (name))
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

static void
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
    PipelineRow row;

    row = bench_pipeline ("cudabilateral d=15, pinned input (pool)", desc,
        "f", "f", w, h, frames, FRAMES_POOL);
    append_row (rows, &row);
    row = bench_transfers ("cudaMemcpy up and down, pinned (no GStreamer)",
        w, h, frames);
    append_row (rows, &row);
    row = bench_pipeline ("cudabilateral d=15, pageable input, recycled",
        desc, "f", "f", w, h, frames, FRAMES_RECYCLED);
    append_row (rows, &row);
    row = bench_pipeline ("cudabilateral d=15, pageable input, fresh", desc,
        "f", "f", w, h, frames / 2, FRAMES_FRESH);
    append_row (rows, &row);
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

  record_time (&lp->probe, info, lp->probe.t_in, lp->probe.mem_in);
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

  record_time (&lp->probe, info, lp->probe.t_out, lp->probe.mem_out);
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

static void
bench_live (GArray * rows, gboolean quick)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (live_cases); i++) {
    LiveRow row;

    if (bench_live_case (&live_cases[i], quick, &row))
      g_array_append_val (rows, row);
  }
}

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
      SIGMA_COLOR, SIGMA_SPACE, n_runs);
  for (i = 0; i < kernels->len; i++) {
    KernelRow *r = &g_array_index (kernels, KernelRow, i);
    fprintf (f, "    {\"format\": \"%s\", \"width\": %d, \"height\": %d, "
        "\"diameter\": %d, \"ours_ms\": %.5f, \"generic_ms\": %.5f, "
        "\"npp_ms\": %.5f, \"temporal_ms\": %.5f}%s\n", r->format, r->width,
        r->height, r->diameter, r->ours_ms, r->generic_ms, r->npp_ms,
        r->temporal_ms, i + 1 < kernels->len ? "," : "");
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
        "\"faults_per_frame\": %.2f}%s\n", r->name, r->width, r->height,
        r->frames, r->fps, r->latency_median_ms, r->latency_p99_ms,
        r->streams, r->min_stream_fps, r->cpu_ms_per_frame,
        r->faults_per_frame, i + 1 < pipelines->len ? "," : "");
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
