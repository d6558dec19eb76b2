/* gst-cudabilateral benchmark: the chroma guide: what its pass costs and
 * what it gives (bench.h). */

#include "bench.h"

/* ---------------------------------------------------------------------- */
/* Chroma guided by luma: what its chroma pass costs beside the unguided
 * one (the guide and the guided filter, against the filter alone, on a
 * frame's chroma; and the whole frame through the engine), and what it
 * gives: the PSNR of U and V against the clean picture, on frames of it
 * with chroma noise stronger than luma's, as camera noise is. */


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

/* The rows of @c's YUV frame at @diameter (its engine set to it, the
 * whole frame's time @frame_ms) with chroma guided by luma. */
void
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
  gsize tables_floats = cbf_bilateral_tables_max_len (), n_floats;
  float *host_tables, *dev_tables;
  int chroma_diameter, sample_bytes = plan->bits > 8 ? 2 : 1;
  double chroma_sigma_space;
  const gchar *what = NULL;
  gint halo_rows, i;
  ChromaCtx x;

  if (!pass->chroma || !pass->guided)
    return;
  memset (&x, 0, sizeof (x));
  cbf_bilateral_chroma_params (diameter, SIGMA_SPACE, plan->chroma_factor,
      &chroma_diameter, &chroma_sigma_space);
  host_tables = g_new (float, tables_floats);
  CHECK (cudaMalloc ((void **) &dev_tables, tables_floats * sizeof (float)));
  n_floats = cbf_engine_fill_weights (&x.weights, host_tables, dev_tables,
      CBF_KERNEL_BILATERAL, plan->bits, 1, chroma_diameter, SIGMA_COLOR,
      chroma_sigma_space);
  CHECK (cudaMemcpy (dev_tables, host_tables, n_floats * sizeof (float),
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
    x.src[i][0] = cbf_pass_view (c->in[i], pass, 0);
    x.src[i][1] = cbf_pass_view (c->in[i], pass, 1);
    x.src[i][2] = x.guide;
    x.luma[i] = cbf_pass_view (c->in[i], &plan->passes[0], 0);
  }
  x.dst[0] = cbf_pass_view (c->out, pass, 0);
  x.dst[1] = cbf_pass_view (c->out, pass, 1);

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
const char *chroma_dump_dir;

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
void
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
