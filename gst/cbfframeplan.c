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

/* The entries of each layout, by CbfKernel. */
static const CbfFilterFunc colour_first[CBF_N_KERNELS] = {
  cbf_bilateral_colour_first, cbf_gaussian_colour_first,
  cbf_grid_colour_first
};

static const CbfFilterFunc colour_last[CBF_N_KERNELS] = {
  cbf_bilateral_colour_last, cbf_gaussian_colour_last, cbf_grid_colour_last
};

static const CbfFilterFunc colour_packed24[CBF_N_KERNELS] = {
  cbf_bilateral_colour_packed24, cbf_gaussian_colour_packed24,
  cbf_grid_colour_packed24
};

static const CbfFilterFunc colour_planar[CBF_N_KERNELS] = {
  cbf_bilateral_colour_planar, cbf_gaussian_colour_planar,
  cbf_grid_colour_planar
};

static const CbfFilterFunc channel[CBF_N_KERNELS] = {
  cbf_bilateral_channel, cbf_gaussian_channel, cbf_grid_channel
};

static const CbfFilterFunc channel_pair[CBF_N_KERNELS] = {
  cbf_bilateral_channel_pair, cbf_gaussian_channel_pair,
  cbf_grid_channel_pair
};

static const CbfFilterFunc deep_channel[CBF_N_KERNELS] = {
  cbf_bilateral_deep_channel, cbf_gaussian_deep_channel, cbf_grid_deep_channel
};

static const CbfFilterFunc deep_channel_pair[CBF_N_KERNELS] = {
  cbf_bilateral_deep_channel_pair, cbf_gaussian_deep_channel_pair,
  cbf_grid_deep_channel_pair
};

static const CbfFilterFunc deep12_channel[CBF_N_KERNELS] = {
  cbf_bilateral_deep12_channel, cbf_gaussian_deep12_channel,
  cbf_grid_deep12_channel
};

static const CbfFilterFunc deep12_channel_pair[CBF_N_KERNELS] = {
  cbf_bilateral_deep12_channel_pair, cbf_gaussian_deep12_channel_pair,
  cbf_grid_deep12_channel_pair
};

static const CbfFilterFunc deep_colour_planar[CBF_N_KERNELS] = {
  cbf_bilateral_deep_colour_planar, cbf_gaussian_deep_colour_planar,
  cbf_grid_deep_colour_planar
};

static const CbfFilterFunc deep10_colour_planar[CBF_N_KERNELS] = {
  cbf_bilateral_deep10_colour_planar, cbf_gaussian_deep10_colour_planar,
  cbf_grid_deep10_colour_planar
};

static const CbfFilterFunc deep_colour64[CBF_N_KERNELS] = {
  cbf_bilateral_deep_colour64, cbf_gaussian_deep_colour64,
  cbf_grid_deep_colour64
};

static const CbfFilterFunc deep_colour10a2[CBF_N_KERNELS] = {
  cbf_bilateral_deep_colour10a2, cbf_gaussian_deep_colour10a2,
  cbf_grid_deep_colour10a2
};

/* The entries that filter the three colour channels of @format together,
 * or NULL for formats filtered channel by channel; @bits is set to the
 * samples' bits. */
static const CbfFilterFunc *
colour_process_for_format (GstVideoFormat format, gint * bits)
{
  *bits = 8;
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      return colour_first;
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_xRGB:
    case GST_VIDEO_FORMAT_xBGR:
      return colour_last;
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      return colour_packed24;
    case GST_VIDEO_FORMAT_Y444:
      return colour_planar;
    case GST_VIDEO_FORMAT_RGBA64_LE:
    case GST_VIDEO_FORMAT_BGRA64_LE:
      *bits = 16;
      return deep_colour64;
    case GST_VIDEO_FORMAT_Y444_16LE:
      *bits = 16;
      return deep_colour_planar;
    case GST_VIDEO_FORMAT_BGR10A2_LE:
    case GST_VIDEO_FORMAT_RGB10A2_LE:
      *bits = 10;
      return deep_colour10a2;
    case GST_VIDEO_FORMAT_Y444_10LE:
    case GST_VIDEO_FORMAT_GBR_10LE:
      *bits = 10;
      return deep10_colour_planar;
    default:
      return NULL;
  }
}

/* Bits of the samples of GRAY or YUV filtered channel by channel: 8 (a
 * byte each), or 10, 12 or 16 for samples in 16-bit little-endian
 * containers, LSB-aligned (I420_10LE) or MSB-aligned (P010_10LE, filtered
 * as the 10-bit samples they hold: the kernels shift them); 0 for other
 * formats. */
static gint
gray_or_yuv_bits (const GstVideoInfo * info)
{
  gint depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  gint pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);

  if (!(GST_VIDEO_INFO_IS_GRAY (info) || GST_VIDEO_INFO_IS_YUV (info))
      || GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo)
      || GST_VIDEO_INFO_N_COMPONENTS (info) > CBF_MAX_PASSES)
    return 0;
  if (depth == 8)
    return 8;
  /* YUY2-like packing of deep samples (Y210) is not taken: its chroma
   * would share a word with luma. */
  if (!GST_VIDEO_FORMAT_INFO_IS_LE (info->finfo) || pstride != 2
      || depth + GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, 0) > 16)
    return 0;
  return depth;
}

/* Adds the launch of component @c (1 channel) or of @n_views components
 * from @c on that share a size. */
static void
add_pass (CbfFramePlan * plan, const GstVideoInfo * info, guint c,
    guint n_views, const CbfFilterFunc process[CBF_N_KERNELS], gboolean chroma)
{
  CbfPass *pass = &plan->passes[plan->n_passes++];
  guint v;

  memcpy (pass->process, process, sizeof (pass->process));
  pass->n_views = n_views;
  for (v = 0; v < n_views; v++) {
    pass->plane[v] = GST_VIDEO_INFO_COMP_PLANE (info, c + v);
    pass->offset[v] = GST_VIDEO_INFO_COMP_POFFSET (info, c + v);
    /* 16-bit samples start at even bytes: GStreamer (1.22 to 1.26) gives
     * the V of P010_10LE, P012_LE and P016_LE the offset 1, their second
     * sample. */
    if (plan->bits > 8)
      pass->offset[v] = GST_ROUND_UP_2 (pass->offset[v]);
  }
  pass->pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
  if (plan->bits > 8)
    pass->sample_shift = GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, c);
  /* The kernels and the mask read a sample's own bits only, so that what a
   * faulty source sets above them is ignored the same way everywhere. */
  pass->sample_bits = plan->bits;
  pass->blend_bytes = plan->bits > 8 ? 2 : 1;
  pass->blend_samples = plan->bits > 8 ? CBF_SAMPLES_16 : CBF_SAMPLES_8;
  pass->channels = 1;
  pass->width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
  pass->height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  pass->chroma = chroma;
  for (v = 0; v < n_views; v++) {
    if (chroma)
      plan->planes_with_chroma |= 1u << pass->plane[v];
    else
      plan->planes_with_luma |= 1u << pass->plane[v];
  }
}

/* Whether components @a and @b have one size and pixel stride. */
static gboolean
same_geometry (const GstVideoInfo * info, guint a, guint b)
{
  return GST_VIDEO_INFO_COMP_WIDTH (info, a) ==
      GST_VIDEO_INFO_COMP_WIDTH (info, b)
      && GST_VIDEO_INFO_COMP_HEIGHT (info, a) ==
      GST_VIDEO_INFO_COMP_HEIGHT (info, b)
      && GST_VIDEO_INFO_COMP_PSTRIDE (info, a) ==
      GST_VIDEO_INFO_COMP_PSTRIDE (info, b);
}

gboolean
cbf_frame_plan_init (CbfFramePlan * plan, const GstVideoInfo * info)
{
  gint bits;
  const CbfFilterFunc *colour =
      colour_process_for_format (GST_VIDEO_INFO_FORMAT (info), &bits);
  const CbfFilterFunc *one, *pair;
  guint p;

  memset (plan, 0, sizeof (*plan));
  plan->chroma_factor = 1;
  plan->bits = bits;
  plan->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (p = 0; p < plan->n_planes; p++)
    plan->row_bytes[p] = cbf_plane_row_bytes (info, p);

  if (colour) {
    /* The colour kernels take whole pixels (one view, from its first byte:
     * they know where the colour bytes are), or Y444's three planes. */
    CbfPass *pass;
    guint v;

    add_pass (plan, info, 0, GST_VIDEO_INFO_N_PLANES (info), colour, FALSE);
    pass = &plan->passes[0];
    pass->channels = 3;
    /* the colour layouts place their samples themselves */
    pass->sample_shift = 0;
    /* Whole packed pixels: alpha or padding blends to itself. */
    if (pass->n_views == 1)
      pass->blend_bytes = pass->pixel_bytes;
    if (colour == deep_colour10a2)
      pass->blend_samples = CBF_SAMPLES_10A2;
    plan->planes_with_luma = 0;
    for (v = 0; v < pass->n_views; v++) {
      pass->plane[v] = v;
      pass->offset[v] = 0;
      plan->planes_with_luma |= 1u << v;
    }
    return TRUE;
  }
  plan->bits = gray_or_yuv_bits (info);
  if (!plan->bits)
    return FALSE;
  one = plan->bits == 8 ? channel : plan->bits == 16 ? deep_channel :
      deep12_channel;
  pair = plan->bits == 8 ? channel_pair : plan->bits == 16 ?
      deep_channel_pair : deep12_channel_pair;

  add_pass (plan, info, GST_VIDEO_COMP_Y, 1, one, FALSE);
  if (GST_VIDEO_INFO_N_COMPONENTS (info) < 3)
    return TRUE;
  plan->chroma_factor = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo,
      GST_VIDEO_COMP_U);
  if (same_geometry (info, GST_VIDEO_COMP_U, GST_VIDEO_COMP_V)) {
    add_pass (plan, info, GST_VIDEO_COMP_U, 2, pair, TRUE);
  } else {
    add_pass (plan, info, GST_VIDEO_COMP_U, 1, one, TRUE);
    add_pass (plan, info, GST_VIDEO_COMP_V, 1, one, TRUE);
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

/* View @v of @pass on the device planes @planes. */
static CbfPlane
pass_view (const CbfPlane * planes, const CbfPass * pass, guint v)
{
  CbfPlane view = planes[pass->plane[v]];

  view.data += pass->offset[v];
  view.pixel_bytes = pass->pixel_bytes;
  view.sample_shift = pass->sample_shift;
  view.sample_bits = pass->sample_bits;
  view.width = pass->width;
  view.height = pass->height;
  view.state = NULL;
  view.state_pitch = 0;
  return view;
}

/* Channels left unfiltered still have to reach the output: the rows of
 * the planes that hold them (a bit per plane in @planes) are copied on the
 * device first (for YUY2 and UYVY whole rows, whose other bytes the
 * filtered pass then overwrites). */
static cudaError_t
copy_planes (const CbfFramePlan * plan, guint planes, const CbfPlane * in,
    const CbfPlane * out, gint row_begin, gint row_end, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  guint p;

  for (p = 0; p < plan->n_planes && err == cudaSuccess; p++) {
    gint begin, end;

    if (!(planes & (1u << p)))
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
cbf_frame_plan_run (const CbfFramePlan * plan, const CbfGroupRun * luma,
    const CbfGroupRun * chroma, const CbfFrameState * state,
    const CbfPlane * in, const CbfPlane * out, gint row_begin, gint row_end,
    cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  guint unfiltered = (luma->params ? 0 : plan->planes_with_luma) |
      (chroma->params ? 0 : plan->planes_with_chroma);
  guint i;

  if (unfiltered)
    err = copy_planes (plan, unfiltered, in, out, row_begin, row_end, stream);

  for (i = 0; i < plan->n_passes && err == cudaSuccess; i++) {
    const CbfPass *pass = &plan->passes[i];
    const CbfGroupRun *run = pass->chroma ? chroma : luma;
    CbfPlane src[3], dst[3];
    gint begin, end;
    guint v;

    if (!run->params)
      continue;
    for (v = 0; v < pass->n_views; v++) {
      src[v] = pass_view (in, pass, v);
      dst[v] = pass_view (out, pass, v);
      if (state) {
        dst[v].state = (*state)[i][v].data;
        dst[v].state_pitch = (*state)[i][v].pitch_bytes;
      }
    }
    band_rows (pass->height, in, row_begin, row_end, &begin, &end);
    err = pass->process[run->kernel] (src, dst, begin, end, run->params,
        stream);
    if (err == cudaSuccess && run->mask)
      err = cbf_mask_blend (src, dst, pass->n_views, pass->blend_bytes,
          pass->blend_samples, run->mask, begin, end, stream);
  }
  return err;
}
