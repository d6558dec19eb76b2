/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfframeplanprivate.h"
#include "cbfformats.h"

#include <math.h>

/* The entries of each layout of bilateral.h's tables, by CbfKernel, in an
 * array named after the layout. */
/* *INDENT-OFF* */
#define LAYOUT_ENTRIES(unused, layout, Layout) \
  static const CbfFilterFunc layout[CBF_N_KERNELS] = { \
    cbf_bilateral_##layout, cbf_gaussian_##layout, cbf_grid_##layout \
  };
CBF_LAYOUTS_8BIT (LAYOUT_ENTRIES, )
CBF_LAYOUTS_DEEP (LAYOUT_ENTRIES, )
#undef LAYOUT_ENTRIES
/* *INDENT-ON* */

/* The layout of cbfformats.h's GRAY and YUV formats: no colour entries,
 * their channels' are picked by cbf_frame_plan_init. */
static const CbfFilterFunc by_channel[CBF_N_KERNELS] = { NULL };

/* A line of cbfformats.h: the colour entries of the format's layout (or
 * by_channel), its samples' bits. */
typedef struct
{
  GstVideoFormat format;
  const CbfFilterFunc *color;
  gint bits;
} FormatLayout;

static const FormatLayout formats[] = {
#define FORMAT_LAYOUT(format, layout, bits) \
  { GST_VIDEO_FORMAT_##format, layout, bits },
  CBF_FORMATS (FORMAT_LAYOUT)
#undef FORMAT_LAYOUT
};

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

/* Whether the colour channels of @info are the pixels the entries
 * @colour read: in one plane of whole pixels (of 3, 4 or 8 bytes, the
 * colour bytes of 32-bit ones first or last) or in three planes, one
 * sample each, none subsampled, of @bits bits (the layout's) in the low
 * bits of their containers. */
static gboolean
color_layout_fits (const GstVideoInfo * info, const CbfFilterFunc * color,
    gint bits)
{
  gboolean planar = color == color_planar || color == deep_color_planar
      || color == deep10_color_planar;
  gint layout_bits = color == deep_color_planar || color == deep_color64 ?
      16 : color == deep10_color_planar || color == deep_color10a2 ? 10 : 8;
  gint pixel_bytes = planar ? (bits > 8 ? 2 : 1) : color == color_packed24 ?
      3 : color == deep_color64 ? 8 : 4;
  guint first = G_MAXUINT;
  guint c;

  if (bits != layout_bits || GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo)
      || (bits > 8 && !GST_VIDEO_FORMAT_INFO_IS_LE (info->finfo))
      || GST_VIDEO_INFO_N_COMPONENTS (info) < 3
      || GST_VIDEO_INFO_N_PLANES (info) != (planar ? 3u : 1u))
    return FALSE;
  for (c = 0; c < 3; c++) {
    if (GST_VIDEO_INFO_COMP_DEPTH (info, c) != (guint) bits
        || GST_VIDEO_INFO_COMP_PSTRIDE (info, c) != pixel_bytes
        || GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, c)
        || GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c)
        || GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c))
      return FALSE;
    first = MIN (first, GST_VIDEO_INFO_COMP_POFFSET (info, c));
  }
  return color == color_first ? first == 0 : color == color_last ?
      first == 1 : TRUE;
}

/* The line of cbfformats.h of @info's format, where it fits the format;
 * else NULL, as for a format not in the table. */
static const FormatLayout *
format_layout (const GstVideoInfo * info)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    const FormatLayout *f = &formats[i];

    if (f->format != GST_VIDEO_INFO_FORMAT (info))
      continue;
    if (f->color == by_channel ? gray_or_yuv_bits (info) == f->bits :
        color_layout_fits (info, f->color, f->bits))
      return f;
    g_critical ("%s does not fit its line in cbfformats.h",
        GST_VIDEO_INFO_NAME (info));
    return NULL;
  }
  return NULL;
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
  pass->samples = plan->bits > 8 ? CBF_MOTION_SAMPLES_16 : CBF_MOTION_SAMPLES_8;
  pass->channels = 1;
  pass->width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
  pass->height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  pass->sub_x = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
  pass->sub_y = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
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
cbf_frame_plan_can_split (const GstVideoInfo * info)
{
  const FormatLayout *f = format_layout (info);

  return GST_VIDEO_INFO_IS_YUV (info) && f && f->color != by_channel;
}

/* The guide's siting (guide.h) of @info's chroma: its chroma-site's two
 * COSITED flags. UNKNOWN (caps without chroma-site) is centred, as
 * videoconvert's chroma resampler takes it; ALT_LINE (interlaced) is not
 * looked at: the element filters progressive frames. */
static gint
guide_site (const GstVideoInfo * info)
{
  GstVideoChromaSite site = GST_VIDEO_INFO_CHROMA_SITE (info);

  return (site & GST_VIDEO_CHROMA_SITE_H_COSITED ? CBF_CHROMA_SITE_H_COSITED :
      0) | (site & GST_VIDEO_CHROMA_SITE_V_COSITED ?
      CBF_CHROMA_SITE_V_COSITED : 0);
}

gboolean
cbf_frame_plan_init (CbfFramePlan * plan, const GstVideoInfo * info,
    gboolean by_plane)
{
  const FormatLayout *f = format_layout (info);
  const CbfFilterFunc *color, *one, *pair;
  CbfFilterFunc guided;
  guint p, c;

  memset (plan, 0, sizeof (*plan));
  if (!f)
    return FALSE;
  color = f->color == by_channel || (by_plane
      && cbf_frame_plan_can_split (info)) ? NULL : f->color;
  plan->chroma_factor = 1;
  plan->bits = f->bits;
  plan->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  plan->width = GST_VIDEO_INFO_WIDTH (info);
  plan->height = GST_VIDEO_INFO_HEIGHT (info);
  for (p = 0; p < plan->n_planes; p++)
    plan->row_bytes[p] = cbf_plane_row_bytes (info, p);
  /* A plane's components share its subsampling; its first one's stride
   * is its pixel's (YUY2's Y: two bytes a luma pixel). */
  for (c = GST_VIDEO_INFO_N_COMPONENTS (info); c-- > 0;) {
    p = GST_VIDEO_INFO_COMP_PLANE (info, c);
    plan->plane_sub_x[p] = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
    plan->plane_sub_y[p] = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
    plan->plane_pixel_bytes[p] = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
  }

  if (color) {
    /* The colour kernels take whole pixels (one view, from its first byte:
     * they know where the colour bytes are), or Y444's three planes. */
    CbfPass *pass;
    guint v;

    add_pass (plan, info, 0, GST_VIDEO_INFO_N_PLANES (info), color, FALSE);
    pass = &plan->passes[0];
    pass->channels = 3;
    /* the colour layouts place their samples themselves */
    pass->sample_shift = 0;
    /* Whole packed pixels: alpha or padding blends to itself. */
    if (pass->n_views == 1)
      pass->blend_bytes = pass->pixel_bytes;
    if (color == deep_color10a2)
      pass->blend_samples = CBF_SAMPLES_10A2;
    pass->color_offset = color == color_last ? 1 : 0;
    pass->color_step = color == deep_color64 ? 2 : 1;
    pass->samples = color == deep_color10a2 ? CBF_MOTION_SAMPLES_10A2 :
        plan->bits > 8 ? CBF_MOTION_SAMPLES_16 : CBF_MOTION_SAMPLES_8;
    plan->planes_with_luma = 0;
    for (v = 0; v < pass->n_views; v++) {
      pass->plane[v] = v;
      pass->offset[v] = 0;
      plan->planes_with_luma |= 1u << v;
    }
    return TRUE;
  }
  one = plan->bits == 8 ? channel : plan->bits == 16 ? deep_channel :
      deep12_channel;
  pair = plan->bits == 8 ? channel_pair : plan->bits == 16 ?
      deep_channel_pair : deep12_channel_pair;
  guided = plan->bits == 8 ? cbf_bilateral_guided_channel_pair :
      plan->bits == 16 ? cbf_bilateral_guided_deep_channel_pair :
      cbf_bilateral_guided_deep12_channel_pair;

  add_pass (plan, info, GST_VIDEO_COMP_Y, 1, one, FALSE);
  if (GST_VIDEO_INFO_N_COMPONENTS (info) < 3)
    return TRUE;
  plan->chroma_factor = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo,
      GST_VIDEO_COMP_U);
  if (same_geometry (info, GST_VIDEO_COMP_U, GST_VIDEO_COMP_V)) {
    add_pass (plan, info, GST_VIDEO_COMP_U, 2, pair, TRUE);
    plan->passes[plan->n_passes - 1].guided = guided;
    plan->passes[plan->n_passes - 1].guide_site = guide_site (info);
  } else {
    add_pass (plan, info, GST_VIDEO_COMP_U, 1, one, TRUE);
    add_pass (plan, info, GST_VIDEO_COMP_V, 1, one, TRUE);
  }
  return TRUE;
}

void
cbf_plan_band_rows (gint height, const CbfPlane * in, gint row_begin,
    gint row_end, gint * begin, gint * end)
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

CbfPlane
cbf_pass_view (const CbfPlane * planes, const CbfPass * pass, guint v)
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

void
cbf_pass_motion_view (const CbfPass * pass, const CbfPlane * planes, guint v,
    CbfMotionView * view)
{
  guint c;

  memset (view, 0, sizeof (*view));
  view->pixel_bytes = pass->pixel_bytes;
  view->samples = pass->samples;
  view->width = pass->width;
  view->height = pass->height;
  view->channels = pass->channels;
  view->shift = pass->channels == 3 ? 0 : pass->sample_shift;
  view->mask = pass->samples == CBF_MOTION_SAMPLES_10A2 ? 0x3ff :
      (1u << pass->sample_bits) - 1;
  for (c = 0; c < (guint) pass->channels; c++) {
    /* Planar colour: a view a channel; packed: the pixel's samples. */
    guint from = pass->channels == 3 && pass->n_views == 3 ? c : v;
    CbfPlane p = cbf_pass_view (planes, pass, from);

    view->data[c] = p.data;
    view->pitch[c] = p.pitch_bytes;
    if (pass->channels == 3 && pass->n_views == 1
        && pass->samples != CBF_MOTION_SAMPLES_10A2)
      view->data[c] += pass->color_offset + c * pass->color_step;
  }
}

void
cbf_state_motion_view (const CbfPass * pass, gint bits,
    const CbfPlane * state, CbfMotionView * view)
{
  gint step = bits > 8 ? 2 : 1;
  gint c;

  memset (view, 0, sizeof (*view));
  view->pixel_bytes = state->pixel_bytes;
  view->samples = bits > 8 ? CBF_MOTION_SAMPLES_16 : CBF_MOTION_SAMPLES_8;
  view->mask = (1u << bits) - 1;
  view->width = pass->width;
  view->height = pass->height;
  view->channels = pass->channels;
  /* c0 | c1 << 8 | c2 << 16, or deep c0 | c1 << 16 and c2 (temporal.h):
   * little-endian, the samples at bytes 0, 1, 2 or 0, 2, 4. */
  for (c = 0; c < pass->channels; c++) {
    view->data[c] = state->data + c * step;
    view->pitch[c] = state->pitch_bytes;
  }
}

gboolean
cbf_plan_pass_guided (const CbfPass * pass, const CbfGroupRun * run)
{
  return run->guide && pass->guided && run->kernel == CBF_KERNEL_BILATERAL;
}

cudaError_t
cbf_plan_make_guide (const CbfFramePlan * plan, const CbfPass * pass,
    const CbfGroupRun * run, gint radius, const CbfPlane * in, gint begin,
    gint end, cudaStream_t stream)
{
  CbfPlane luma = cbf_pass_view (in, &plan->passes[0], 0);

  if (run->params->border == CBF_BORDER_WRAP)
    radius = pass->height;
  return cbf_chroma_guide (&luma, run->guide, pass->sub_x, pass->sub_y,
      pass->guide_site, MAX (0, begin - radius),
      MIN (pass->height, end + radius), stream);
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
    cbf_plan_band_rows (in[p].height, in, row_begin, row_end, &begin, &end);
    err = cudaMemcpy2DAsync (out[p].data + begin * out[p].pitch_bytes,
        out[p].pitch_bytes, in[p].data + begin * in[p].pitch_bytes,
        in[p].pitch_bytes, plan->row_bytes[p], end - begin,
        cudaMemcpyDeviceToDevice, stream);
  }
  return err;
}

/* The motion-compensated blend of @pass's views (CbfMotionRun), pass
 * @i of the plan, for its rows [@begin, @end). */
static cudaError_t
motion_blend (const CbfFramePlan * plan, guint i, const CbfMotionRun * motion,
    const CbfFrameState * state, const CbfPlane * out, gint begin, gint end,
    cudaStream_t stream)
{
  const CbfPass *pass = &plan->passes[i];
  gboolean have_prev = pass->chroma ? motion->chroma_prev : motion->luma_prev;
  guint views = pass->channels == 3 ? 1 : pass->n_views, v;
  CbfMotionRole role = CBF_MOTION_ROLE_ALONE;
  cudaError_t err = cudaSuccess;

  /* Passes run in order on one stream, luma's first (a banded frame's
   * chroma rows are luma's), so that chroma finds the D luma left. */
  if (pass->channels == 1 && pass->chroma)
    role = CBF_MOTION_ROLE_CHROMA;
  else if (pass->channels == 1 && plan->planes_with_chroma)
    role = CBF_MOTION_ROLE_LUMA;

  for (v = 0; v < views && err == cudaSuccess; v++) {
    CbfMotionView spatial, prev, next, dst;

    cbf_state_motion_view (pass, plan->bits, &(*state)[i][v], &spatial);
    cbf_state_motion_view (pass, plan->bits, &(*motion->prev)[i][v], &prev);
    cbf_state_motion_view (pass, plan->bits, &(*motion->next)[i][v], &next);
    cbf_pass_motion_view (pass, out, v, &dst);
    err = cbf_motion_blend (&spatial, have_prev ? &prev : NULL, &next, &dst,
        pass->sub_x, pass->sub_y, role, pass->chroma ? motion->chroma_gain :
        motion->luma_gain, motion->gate, motion->scratch, begin, end, stream);
  }
  return err;
}

cudaError_t
cbf_frame_plan_run (const CbfFramePlan * plan, const CbfGroupRun * luma,
    const CbfGroupRun * chroma, const CbfFrameState * state,
    const CbfMotionRun * motion, const CbfRegionRun * regions,
    const CbfPlane * in, const CbfPlane * out, gint row_begin, gint row_end,
    cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  guint unfiltered = (luma->params ? 0 : plan->planes_with_luma) |
      (chroma->params ? 0 : plan->planes_with_chroma);
  guint i;

  if (regions && !regions->whole) {
    /* The temporal filter's state is the whole frame's. */
    if (state)
      return cudaErrorInvalidValue;
    return cbf_plan_run_windows (plan, luma, chroma, regions, in, out,
        row_begin, row_end, stream);
  }
  if (unfiltered)
    err = copy_planes (plan, unfiltered, in, out, row_begin, row_end, stream);

  for (i = 0; i < plan->n_passes && err == cudaSuccess; i++) {
    const CbfPass *pass = &plan->passes[i];
    const CbfGroupRun *run = pass->chroma ? chroma : luma;
    CbfPlane src[3], dst[3];
    gint begin, end, spatial_end;
    guint v;

    if (!run->params)
      continue;
    for (v = 0; v < pass->n_views; v++) {
      src[v] = cbf_pass_view (in, pass, v);
      dst[v] = cbf_pass_view (out, pass, v);
      if (state) {
        dst[v].state = (*state)[i][v].data;
        dst[v].state_pitch = (*state)[i][v].pitch_bytes;
      }
    }
    cbf_plan_band_rows (pass->height, in, row_begin, row_end, &begin, &end);
    /* The blend's 3 x 3 mean reads the spatial result a row below the
     * band, which the next band would make only after this one leaves. */
    spatial_end = motion && state ? MIN (end + 1, pass->height) : end;
    if (regions)
      err = cbf_region_weights (regions->set, pass->sub_x, pass->sub_y,
          run->mask, run->weights, 0, begin, pass->width, end - begin, stream);
    if (err == cudaSuccess && cbf_plan_pass_guided (pass, run)) {
      err = cbf_plan_make_guide (plan, pass, run, run->params->radius, in,
          begin, spatial_end, stream);
      src[pass->n_views] = *run->guide;
      if (err == cudaSuccess)
        err = pass->guided (src, dst, begin, spatial_end, run->params, stream);
    } else if (err == cudaSuccess) {
      err = pass->process[run->kernel] (src, dst, begin, spatial_end,
          run->params, stream);
    }
    if (err == cudaSuccess && motion && state)
      err = motion_blend (plan, i, motion, state, out, begin, end, stream);
    if (err == cudaSuccess && (regions || run->mask))
      err = cbf_mask_blend (src, dst, pass->n_views, pass->blend_bytes,
          pass->blend_samples, regions ? run->weights : run->mask, begin,
          end, stream);
  }
  return err;
}
