/* gst-cudabilateral benchmark: the kernel rows: ours, the generic
 * one-pixel-a-thread kernel and NVIDIA NPP's bilateral filter, the
 * Gaussian mode and the grid (bench.h). */

#include "bench.h"

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

char npp_version[64] = "not found";

void
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


/* method=grid: its error against the exact filter on the shared
 * images as they are, and its time against the exact kernel and NPP. */
static const double grid_sigma_space[] = { 8, 16, 32 };
static const double grid_sigma_color[] = { 10, 30, 60 };




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
static double npp_sigma_color = SIGMA_COLOR;
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
      npp_sigma_color * npp_sigma_color, npp_sigma_space * npp_sigma_space,
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

/* --diameter: the bilateral kernel rows of this diameter only (0: all). */
int diameter_filter;
/* --sigma-color, --sigma-space: the bilateral kernel rows' settings. */
double kernel_sigma_color = SIGMA_COLOR, kernel_sigma_space = SIGMA_SPACE;

void
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
        KernelRow row = { format, w, h, diameters[d], 0, 0, -1, 0, 0, 0 };
        c.radius = cbf_bilateral_radius (diameters[d], kernel_sigma_space);
        if ((quick && diameters[d] != 15 && diameters[d] != 5)
            || (diameter_filter && diameters[d] != diameter_filter))
          continue;
        CHECK (cudaMemcpy (dev_tables, host_tables,
                cbf_engine_fill_weights (&c.weights, host_tables, dev_tables,
                    CBF_KERNEL_BILATERAL, 8, f == 0 ? 3 : 1, diameters[d],
                    kernel_sigma_color, kernel_sigma_space) * sizeof (float),
                cudaMemcpyHostToDevice));

        c.func = f == 0 ? cbf_bilateral_color_first : cbf_bilateral_channel;
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
        /* Where the element walks less than the window, the kernels again
         * on the whole of it: their own cost a tap, and the generic
         * kernel's and NPP's work. */
        row.walk_radius = c.weights.radius;
        row.full_ms = row.ours_ms;
        if (c.weights.radius < c.radius) {
          /* the form GST_CBF_WIDE_KERNEL asked for, as the engine set it */
          const int wide_fold = c.weights.wide_fold;

          cbf_bilateral_tables_fill (host_tables, c.radius,
              kernel_sigma_color, kernel_sigma_space);
          cbf_bilateral_weights_init (&c.weights, c.radius, host_tables,
              dev_tables);
          c.weights.wide_fold = wide_fold;
          CHECK (cudaMemcpy (dev_tables, host_tables,
                  cbf_bilateral_tables_len (c.radius) * sizeof (float),
                  cudaMemcpyHostToDevice));
          row.full_ms = time_kernel (run_ours, &c, stream);
        }
        c.func = f == 0 ? cbf_bilateral_color_first_generic :
            cbf_bilateral_channel_generic;
        row.generic_ms = time_kernel (run_ours, &c, stream);
        npp_sigma_space = kernel_sigma_space;
        npp_sigma_color = kernel_sigma_color;
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
        printf ("kernel %-5s %4dx%-4d d=%-2d  ours %8.3f ms (radius %d; "
            "whole window %8.3f ms)  generic %8.3f ms  NPP %8.3f ms  "
            "(%.1fx NPP)  temporal %8.3f ms (%.2fx)\n", format, w, h,
            diameters[d], row.ours_ms, row.walk_radius, row.full_ms,
            row.generic_ms, row.npp_ms,
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
  size_t floats;

  CHECK (cudaMemcpy (dev_tables, host_tables,
          cbf_engine_fill_weights (exact, host_tables, dev_tables,
              CBF_KERNEL_BILATERAL, 8, channels, 0, sigma_color,
              sigma_space) * sizeof (float), cudaMemcpyHostToDevice));
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

void
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
    CbfFilterFunc exact_f = bpp == 4 ? cbf_bilateral_color_first :
        cbf_bilateral_channel;
    CbfFilterFunc grid_f = bpp == 4 ? cbf_grid_color_first : cbf_grid_channel;

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
      c.func = cbf_bilateral_color_first;
      row.exact_ms = time_kernel (run_ours, &c, stream);
      c.weights = grid;
      c.func = cbf_grid_color_first;
      row.grid_ms = time_kernel (run_ours, &c, stream);
      npp_sigma_space = row.sigma_space;
      npp_sigma_color = SIGMA_COLOR;
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

/* mode=gaussian's kernel, RGBA (cbf_gaussian_color_first: what the element
 * launches for RGBA), one input and one output frame in device memory;
 * NPP's fixed-mask Gaussian beside it where it has the size. */
void
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
    c.func = cbf_gaussian_color_first;
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
