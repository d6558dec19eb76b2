/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the tests of the motion-compensated temporal filter (test_motion,
 * test_motion_element) share: frames of a textured picture moved by a
 * known motion under noise, and a rig that runs the engine (the one the
 * element runs) on them as the element does a frame of CUDA memory. */

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "motion_support.h"

/* A textured picture, defined everywhere, so that a frame moved by any
 * fraction of a pixel is exact: sinusoids of a few directions and
 * periods, a phase per component. */
static double
texture (double x, double y, guint c)
{
  double p = 1.7 * c;

  return 128 + 45 * sin (0.23 * x + 0.07 * y + p)
      + 30 * sin (0.05 * x - 0.19 * y + 2 * p)
      + 20 * sin (0.11 * x + 0.13 * y + 0.3 * p) * cos (0.031 * y - 0.02 * x);
}

Motion
shift_by (double sx, double sy)
{
  Motion m = { 1, 0, 0, 1, -sx, -sy };
  return m;
}

/* Components of @format at @width x @height showing the texture through
 * @m (chroma sampled at its pixels' centres in luma pixels), with noise
 * of standard deviation @noise 8-bit levels from @seed, scaled to the
 * format's bits; alpha a ramp. @flat: a constant picture instead. */
guint
make_frame (const gchar * format, gint width, gint height, const Motion * m,
    double noise, guint32 seed, gboolean flat, Channel * ch)
{
  GstVideoInfo info = info_for (format, width, height);
  gint bits = format_bits (GST_VIDEO_INFO_FORMAT (&info));
  guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), c;
  GRand *rand = g_rand_new_with_seed (seed);

  for (c = 0; c < n; c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
    gboolean alpha = GST_VIDEO_INFO_HAS_ALPHA (&info) && c == GST_VIDEO_COMP_A;
    gint cbits = alpha ? (gint) GST_VIDEO_INFO_COMP_DEPTH (&info, c) : bits;
    double top = (1 << cbits) - 1, fx = (double) width / w;
    double fy = (double) height / h;
    gint x, y;

    ch[c] = channel_new (w, h, cbits);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        double lx = (x + 0.5) * fx - 0.5, ly = (y + 0.5) * fy - 0.5, v;
        double u1, u2;

        if (alpha) {
          ch[c].data[y * w + x] = (guint16) ((x + y) % ((gint) top + 1));
          continue;
        }
        v = flat ? 128 : texture (m->a * lx + m->b * ly + m->tx,
            m->c * lx + m->d * ly + m->ty, c);
        /* Box-Muller */
        u1 = g_rand_double_range (rand, 1e-12, 1);
        u2 = g_rand_double (rand);
        v += noise * sqrt (-2 * log (u1)) * cos (2 * G_PI * u2);
        v = v * top / 255;
        ch[c].data[y * w + x] = (guint16) CLAMP (lrint (v), 0, (gint) top);
      }
  }
  g_rand_free (rand);
  return n;
}

/* The engine's parameters of @p: the bilateral filter, chroma's derived,
 * temporal-motion=compensated at STRENGTH and temporal-sigma @sigma. */
CbfParams
engine_params (const Params * p, gdouble sigma)
{
  CbfParams params = {.diameter = p->diameter,.sigma_color = p->sigma_color,
    .sigma_space = p->sigma_space,.filter_chroma = TRUE,
    .mode = CBF_MODE_BILATERAL,.method = CBF_METHOD_EXACT,
    .chroma_diameter = CBF_PARAMS_DERIVED,
    .chroma_sigma_color = CBF_PARAMS_DERIVED,
    .chroma_sigma_space = CBF_PARAMS_DERIVED,
    .temporal_strength = STRENGTH,.temporal_sigma = sigma,
    .temporal_motion = CBF_TEMPORAL_MOTION_COMPENSATED
  };

  return params;
}

void
rig_init (Rig * r, const gchar * format, gint width, gint height,
    const Params * p, gdouble sigma, gboolean restart)
{
  GError *error = NULL;
  CbfParams params = engine_params (p, sigma);
  guint pl;

  memset (r, 0, sizeof (*r));
  r->restart = restart;
  r->info = info_for (format, width, height);
  r->engine = cbf_engine_new (&r->info, &error);
  fail_unless (r->engine != NULL, "%s: %s", format,
      error ? error->message : "");
  cbf_engine_set_params (r->engine, &params);
  fail_unless_equals_int (cudaStreamCreateWithFlags (&r->stream,
          cudaStreamNonBlocking), cudaSuccess);
  for (pl = 0; pl < GST_VIDEO_INFO_N_PLANES (&r->info); pl++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize row_bytes = cbf_plane_row_bytes (&r->info, pl);
    CbfPlane *planes[2] = { &r->in[pl], &r->out[pl] };
    guint k;

    gst_video_format_info_component (r->info.finfo, pl, comp);
    for (k = 0; k < 2; k++) {
      planes[k]->width = GST_VIDEO_INFO_COMP_WIDTH (&r->info, comp[0]);
      planes[k]->height = GST_VIDEO_INFO_COMP_HEIGHT (&r->info, comp[0]);
      planes[k]->pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (&r->info, comp[0]);
      fail_unless_equals_int (cudaMallocPitch ((void **) &planes[k]->data,
              &planes[k]->pitch_bytes, row_bytes, planes[k]->height),
          cudaSuccess);
    }
  }
}

void
rig_clear (Rig * r)
{
  guint pl;

  for (pl = 0; pl < GST_VIDEO_INFO_N_PLANES (&r->info); pl++) {
    cudaFree (r->in[pl].data);
    cudaFree (r->out[pl].data);
  }
  cbf_engine_free (r->engine);
  cudaStreamDestroy (r->stream);
}

/* Filters @in (channels) with the engine, as the element does a frame of
 * CUDA memory: prepare, then the whole frame; the output into @out. */
void
rig_filter (Rig * r, const Channel * in, Channel * out)
{
  const gchar *format = GST_VIDEO_INFO_NAME (&r->info);
  gint w = GST_VIDEO_INFO_WIDTH (&r->info), h =
      GST_VIDEO_INFO_HEIGHT (&r->info);
  GstBuffer *buf = frame_from_channels (format, w, h, in, FALSE, 1);
  GstBuffer *res = gst_buffer_new_allocate (NULL, r->info.size, NULL);
  GstVideoFrame frame;
  const gchar *what = NULL;
  gint halo_rows;
  guint pl, c;

  fail_unless (gst_video_frame_map (&frame, &r->info, buf, GST_MAP_READ));
  for (pl = 0; pl < GST_VIDEO_INFO_N_PLANES (&r->info); pl++)
    /* On the engine's stream: a copy from pageable memory on the legacy
     * stream may return before it has reached the device, and the
     * engine's non-blocking stream would not wait for it. */
    fail_unless_equals_int (cudaMemcpy2DAsync (r->in[pl].data,
            r->in[pl].pitch_bytes, GST_VIDEO_FRAME_PLANE_DATA (&frame, pl),
            GST_VIDEO_FRAME_PLANE_STRIDE (&frame, pl),
            cbf_plane_row_bytes (&r->info, pl), r->in[pl].height,
            cudaMemcpyHostToDevice, r->stream), cudaSuccess);
  gst_video_frame_unmap (&frame);
  if (r->restart)
    cbf_engine_reset (r->engine);
  fail_unless_equals_int (cbf_engine_prepare (r->engine, r->stream,
          &halo_rows, &what), cudaSuccess);
  fail_unless_equals_int (cbf_engine_run (r->engine, r->in, r->out, 0,
          r->in[0].height, r->stream), cudaSuccess);
  fail_unless_equals_int (cudaStreamSynchronize (r->stream), cudaSuccess);
  fail_unless (gst_video_frame_map (&frame, &r->info, res, GST_MAP_WRITE));
  for (pl = 0; pl < GST_VIDEO_INFO_N_PLANES (&r->info); pl++)
    fail_unless_equals_int (cudaMemcpy2D (GST_VIDEO_FRAME_PLANE_DATA (&frame,
                pl), GST_VIDEO_FRAME_PLANE_STRIDE (&frame, pl),
            r->out[pl].data, r->out[pl].pitch_bytes,
            cbf_plane_row_bytes (&r->info, pl), r->out[pl].height,
            cudaMemcpyDeviceToHost), cudaSuccess);
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&r->info); c++)
    out[c] = read_component (&frame, c);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  gst_buffer_unref (res);
}
