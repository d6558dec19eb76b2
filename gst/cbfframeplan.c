/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfframeplan.h"

gsize
cbf_plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  gsize row_bytes = 0;
  guint c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    if (GST_VIDEO_INFO_COMP_PLANE (info, c) != plane)
      continue;
    row_bytes = MAX (row_bytes, (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, c));
  }
  return row_bytes;
}

/* The kernel that filters the three colour channels of @format together,
 * or NULL for formats filtered channel by channel. */
static CbfBilateralFunc
colour_process_for_format (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      return cbf_bilateral_colour_first;
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_xRGB:
    case GST_VIDEO_FORMAT_xBGR:
      return cbf_bilateral_colour_last;
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      return cbf_bilateral_colour_packed24;
    case GST_VIDEO_FORMAT_Y444:
      return cbf_bilateral_colour_planar;
    default:
      return NULL;
  }
}

/* 8-bit GRAY or YUV, one byte per sample. */
static gboolean
is_8bit_gray_or_yuv (const GstVideoInfo * info)
{
  return (GST_VIDEO_INFO_IS_GRAY (info) || GST_VIDEO_INFO_IS_YUV (info))
      && GST_VIDEO_INFO_COMP_DEPTH (info, 0) == 8
      && !GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo)
      && GST_VIDEO_INFO_N_COMPONENTS (info) <= CBF_MAX_PASSES;
}

gboolean
cbf_frame_plan_init (CbfFramePlan * plan, const GstVideoInfo * info)
{
  CbfBilateralFunc colour =
      colour_process_for_format (GST_VIDEO_INFO_FORMAT (info));
  guint c, p;

  memset (plan, 0, sizeof (*plan));
  plan->chroma_factor = 1;
  plan->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (p = 0; p < plan->n_planes; p++)
    plan->row_bytes[p] = cbf_plane_row_bytes (info, p);

  if (colour) {
    plan->passes[0] = (CbfPass) {
    colour, 0, 0, GST_VIDEO_INFO_COMP_PSTRIDE (info, 0),
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), FALSE};
    plan->n_passes = 1;
    return TRUE;
  }
  if (!is_8bit_gray_or_yuv (info))
    return FALSE;
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    CbfPass *pass = &plan->passes[plan->n_passes++];

    pass->process = cbf_bilateral_channel;
    pass->plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
    pass->offset = GST_VIDEO_INFO_COMP_POFFSET (info, c);
    pass->pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
    pass->width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    pass->height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    pass->chroma = c != GST_VIDEO_COMP_Y;
    if (pass->chroma) {
      plan->planes_with_chroma |= 1u << pass->plane;
      plan->chroma_factor = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
    }
  }
  return TRUE;
}

/* The rows of a plane of @height in the band [@row_begin, @row_end) of
 * plane 0 (see cbf_frame_plan_run). */
static void
band_rows (gint height, const CbfPlane * in, gint row_begin, gint row_end,
    gint * begin, gint * end)
{
  if (row_begin == 0 && row_end == in[0].height) {
    *begin = 0;
    *end = height;
  } else {
    g_assert (height == in[0].height);
    *begin = row_begin;
    *end = row_end;
  }
}

/* A view of one channel of a device plane. */
static CbfPlane
channel_view (const CbfPlane * plane, const CbfPass * pass)
{
  CbfPlane view = *plane;

  view.data += pass->offset;
  view.pixel_bytes = pass->pixel_bytes;
  view.width = pass->width;
  view.height = pass->height;
  return view;
}

/* Chroma left unfiltered still has to reach the output: its planes' rows
 * are copied on the device first (for YUY2 and UYVY whole rows, whose luma
 * bytes the luma kernel then overwrites). */
static cudaError_t
copy_chroma_planes (const CbfFramePlan * plan, const CbfPlane * in,
    const CbfPlane * out, gint row_begin, gint row_end, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  guint p;

  for (p = 0; p < plan->n_planes && err == cudaSuccess; p++) {
    gint begin, end;

    if (!(plan->planes_with_chroma & (1u << p)))
      continue;
    band_rows (in[p].height, in, row_begin, row_end, &begin, &end);
    err = cudaMemcpy2DAsync (out[p].data + begin * out[p].pitch_bytes,
        out[p].pitch_bytes, in[p].data + begin * in[p].pitch_bytes,
        in[p].pitch_bytes, plan->row_bytes[p], end - begin,
        cudaMemcpyDeviceToDevice, stream);
  }
  return err;
}

cudaError_t
cbf_frame_plan_run (const CbfFramePlan * plan, const CbfPlane * in,
    const CbfPlane * out, gint row_begin, gint row_end,
    const CbfBilateralWeights * luma, const CbfBilateralWeights * chroma,
    gboolean filter_chroma, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  guint i;

  if (plan->planes_with_chroma && !filter_chroma)
    err = copy_chroma_planes (plan, in, out, row_begin, row_end, stream);

  for (i = 0; i < plan->n_passes && err == cudaSuccess; i++) {
    const CbfPass *pass = &plan->passes[i];
    gint begin, end;

    if (pass->chroma && !filter_chroma)
      continue;
    band_rows (pass->height, in, row_begin, row_end, &begin, &end);
    if (pass->process == cbf_bilateral_colour_planar) {
      /* Three whole planes. */
      err = pass->process (in, out, begin, end, luma, stream);
    } else {
      CbfPlane src = channel_view (&in[pass->plane], pass);
      CbfPlane dst = channel_view (&out[pass->plane], pass);

      err = pass->process (&src, &dst, begin, end,
          pass->chroma ? chroma : luma, stream);
    }
  }
  return err;
}
