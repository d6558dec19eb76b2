/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* gst-cudabilateral test support for the tests that need a GPU: what the
 * element's output should be, by the C reference (reference.h) run on the
 * tests' channels and formats (declared in gpu_support.h): the one-channel
 * and packed references at 8 bits and deeper, the grid, the temporal
 * filter given a previous output, and every border rule. The rest of
 * gpu_support.h (devices, harnesses, frames and channels, pictures) is in
 * gpu_support.c. */

#include "gpu_support.h"
#include "reference.h"

#include <gst/check/gstcheck.h>

/* The reference of @p's mode, or the reference grid (@grid), on @width x
 * @height packed pixels of @channels samples of @bits bits: the 8-bit
 * reference on 8 bits (through bytes: its interface), the deep reference
 * on more. */
static void
reference_packed (const Params * p, gboolean grid, gint bits,
    const guint16 * src, guint16 * dst, gint width, gint height, gint channels)
{
  gsize stride = (gsize) width * channels, n = stride * height, k;

  if (bits == 8) {
    guint8 *src8 = g_malloc (n), *dst8 = g_malloc (n);

    for (k = 0; k < n; k++) {
      if (src[k] > G_MAXUINT8)
        fail ("%u is no 8-bit sample", src[k]);
      src8[k] = (guint8) src[k];
    }
    (grid ? params_reference_grid : params_reference) (p, src8, stride, dst8,
        stride, width, height, channels, 0, channels);
    for (k = 0; k < n; k++)
      dst[k] = dst8[k];
    g_free (src8);
    g_free (dst8);
    return;
  }
  fail_unless (bits == 10 || bits == 12 || bits == 16, "no reference for "
      "samples of %d bits", bits);
  if (grid)
    cbf_reference_grid_deep (src, stride, dst, stride, width, height,
        channels, 0, channels, bits, p->sigma_color, p->sigma_space);
  else if (p->gaussian)
    cbf_reference_gaussian_deep (src, stride, dst, stride, width, height,
        channels, 0, channels, p->diameter, p->sigma_space);
  else
    cbf_reference_bilateral_deep (src, stride, dst, stride, width, height,
        channels, 0, channels, bits, p->diameter, p->sigma_color,
        p->sigma_space);
}

/* The expected channel by the reference at @bits, luma or chroma
 * parameters, the exact method or the grid. */
static Channel
channel_reference_at (const Channel * in, gint bits, const Params * p,
    gboolean chroma, gboolean grid)
{
  Channel out = channel_new (in->width, in->height, bits);
  Params q = *p;

  if (chroma)
    cbf_reference_chroma_params (p->diameter, p->sigma_space, 2, &q.diameter,
        &q.sigma_space);
  reference_packed (&q, grid, bits, in->data, out.data, in->width,
      in->height, 1);
  return out;
}

Channel
channel_reference (const Channel * in, const Params * p, gboolean chroma)
{
  return channel_reference_at (in, in->bits, p, chroma, FALSE);
}

Channel
channel_reference_grid (const Channel * in, const Params * p, gboolean chroma)
{
  return channel_reference_at (in, in->bits, p, chroma, TRUE);
}

void
params_reference (const Params * p, const guint8 * src, gsize src_stride,
    guint8 * dst, gsize dst_stride, gint width, gint height,
    gint pixel_bytes, gint color_offset, gint channels)
{
  if (p->gaussian)
    cbf_reference_gaussian (src, src_stride, dst, dst_stride, width, height,
        pixel_bytes, color_offset, channels, p->diameter, p->sigma_space);
  else
    cbf_reference_bilateral (src, src_stride, dst, dst_stride, width, height,
        pixel_bytes, color_offset, channels, p->diameter, p->sigma_color,
        p->sigma_space);
}

void
params_reference_grid (const Params * p, const guint8 * src,
    gsize src_stride, guint8 * dst, gsize dst_stride, gint width,
    gint height, gint pixel_bytes, gint color_offset, gint channels)
{
  cbf_reference_grid (src, src_stride, dst, dst_stride, width, height,
      pixel_bytes, color_offset, channels, p->sigma_color, p->sigma_space);
}

static guint
channels_reference_of (const GstVideoInfo * info, const Channel * in,
    const Params * p, gboolean grid, Channel * expected)
{
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), c;
  gint bits = format_bits (GST_VIDEO_INFO_FORMAT (info));
  gint w = in[0].width, h = in[0].height;
  gboolean color = n >= 3 && GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, 1) == 0
      && GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, 1) == 0;
  guint16 *packed, *result;
  gsize i;

  if (!color) {
    for (c = 0; c < n; c++)
      expected[c] = channel_reference_at (&in[c], bits, p, c > 0, grid);
    return n;
  }
  /* The three channels together: the reference on them packed. */
  packed = g_new (guint16, (gsize) w * h * 3);
  result = g_new (guint16, (gsize) w * h * 3);
  for (i = 0; i < (gsize) w * h; i++)
    for (c = 0; c < 3; c++)
      packed[i * 3 + c] = in[c].data[i];
  reference_packed (p, grid, bits, packed, result, w, h, 3);
  for (c = 0; c < 3; c++) {
    expected[c] = channel_new (w, h, bits);
    for (i = 0; i < (gsize) w * h; i++)
      expected[c].data[i] = result[i * 3 + c];
  }
  g_free (packed);
  g_free (result);
  return 3;
}

/* The temporal reference of one group of @n channels (1, or 3 filtered
 * together): B by cbf_reference_values at @bits, then
 * cbf_reference_temporal with @prev (NULL: none). */
static void
temporal_group (const Channel * in, const Channel * prev, guint n, gint bits,
    const Params * p, gboolean grid, gboolean chroma, gdouble strength,
    gdouble sigma, Channel * expected)
{
  gint w = in[0].width, h = in[0].height;
  gsize i, px = (gsize) w * h;
  guint16 *packed = g_new (guint16, px * n), *last = NULL;
  guint16 *result = g_new (guint16, px * n);
  gdouble *values = g_new (gdouble, px * n);
  Params q = *p;
  guint c;

  if (chroma)
    cbf_reference_chroma_params (p->diameter, p->sigma_space, 2, &q.diameter,
        &q.sigma_space);
  if (prev)
    last = g_new (guint16, px * n);
  for (i = 0; i < px; i++)
    for (c = 0; c < n; c++) {
      packed[i * n + c] = in[c].data[i];
      if (prev)
        last[i * n + c] = prev[c].data[i];
    }
  cbf_reference_values (grid ? CBF_REFERENCE_GRID : q.gaussian ?
      CBF_REFERENCE_GAUSSIAN : CBF_REFERENCE_BILATERAL, packed, (gsize) w * n,
      2, bits, w, h, n, 0, n, q.diameter, q.sigma_color, q.sigma_space, values);
  cbf_reference_temporal (values, last, (gsize) w * n, result, (gsize) w * n,
      2, bits, w, h, n, 0, n, strength, sigma);
  for (c = 0; c < n; c++) {
    expected[c] = channel_new (w, h, bits);
    for (i = 0; i < px; i++)
      expected[c].data[i] = result[i * n + c];
  }
  g_free (packed);
  g_free (last);
  g_free (result);
  g_free (values);
}

guint
channels_temporal_for_format (const GstVideoInfo * info, const Channel * in,
    const Channel * prev, const Params * p, gboolean grid, gdouble strength,
    gdouble sigma, Channel * expected)
{
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), c;
  gint bits = format_bits (GST_VIDEO_INFO_FORMAT (info));
  gboolean color = n >= 3 && GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, 1) == 0
      && GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, 1) == 0;

  if (color) {
    temporal_group (in, prev, 3, bits, p, grid, FALSE, strength, sigma,
        expected);
    return 3;
  }
  for (c = 0; c < n; c++)
    temporal_group (&in[c], prev ? &prev[c] : NULL, 1, bits, p, grid, c > 0,
        strength, sigma, &expected[c]);
  return n;
}

guint
channels_reference_for_format (const GstVideoInfo * info, const Channel * in,
    const Params * p, Channel * expected)
{
  return channels_reference_of (info, in, p, FALSE, expected);
}

guint
channels_reference_grid_for_format (const GstVideoInfo * info,
    const Channel * in, const Params * p, Channel * expected)
{
  return channels_reference_of (info, in, p, TRUE, expected);
}

/* The reference of @p with the border @border (@border_value in 8-bit
 * levels) on @width x @height packed pixels of @channels samples of @bits
 * bits: the 8-bit reference on 8 bits (OpenCV's arithmetic), the deep one
 * on more; the constant as a sample of @bits bits. */
static void
border_reference_packed (const Params * p, const gchar * border,
    guint border_value, gint bits, const guint16 * src, guint16 * dst,
    gint width, gint height, gint channels)
{
  gsize stride = (gsize) width * channels, n = stride * height, k;
  gint rule = cbf_reference_border_from_nick (border);
  gint sample = cbf_reference_border_sample ((gint) border_value, bits);

  fail_unless (rule >= 0, "no border rule %s", border);
  if (bits == 8) {
    guint8 *src8 = g_malloc (n), *dst8 = g_malloc (n);

    for (k = 0; k < n; k++)
      src8[k] = (guint8) src[k];
    if (p->gaussian)
      cbf_reference_gaussian_border (src8, stride, dst8, stride, width,
          height, channels, 0, channels, p->diameter, p->sigma_space, rule,
          sample);
    else
      cbf_reference_bilateral_border (src8, stride, dst8, stride, width,
          height, channels, 0, channels, p->diameter, p->sigma_color,
          p->sigma_space, rule, sample);
    for (k = 0; k < n; k++)
      dst[k] = dst8[k];
    g_free (src8);
    g_free (dst8);
  } else if (p->gaussian) {
    cbf_reference_gaussian_deep_border (src, stride, dst, stride, width,
        height, channels, 0, channels, p->diameter, p->sigma_space, rule,
        sample);
  } else {
    cbf_reference_bilateral_deep_border (src, stride, dst, stride, width,
        height, channels, 0, channels, bits, p->diameter, p->sigma_color,
        p->sigma_space, rule, sample);
  }
}

guint
channels_reference_border_for_format (const GstVideoInfo * info,
    const Channel * in, const Params * p, const gchar * border,
    guint border_value, Channel * expected)
{
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), c;
  gint bits = format_bits (GST_VIDEO_INFO_FORMAT (info));
  gint w = in[0].width, h = in[0].height;
  gsize i, px = (gsize) w * h;
  guint16 *packed, *result;

  if (n < 3 || GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, 1) != 0
      || GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, 1) != 0) {
    for (c = 0; c < n; c++) {
      Params q = *p;

      if (c > 0)
        cbf_reference_chroma_params (p->diameter, p->sigma_space, 2,
            &q.diameter, &q.sigma_space);
      expected[c] = channel_new (in[c].width, in[c].height, bits);
      border_reference_packed (&q, border, border_value, bits, in[c].data,
          expected[c].data, in[c].width, in[c].height, 1);
    }
    return n;
  }
  /* The three colour channels together; alpha is not filtered. */
  packed = g_new (guint16, px * 3);
  result = g_new (guint16, px * 3);
  for (i = 0; i < px; i++)
    for (c = 0; c < 3; c++)
      packed[i * 3 + c] = in[c].data[i];
  border_reference_packed (p, border, border_value, bits, packed, result, w,
      h, 3);
  for (c = 0; c < 3; c++) {
    expected[c] = channel_new (w, h, bits);
    for (i = 0; i < px; i++)
      expected[c].data[i] = result[i * 3 + c];
  }
  g_free (packed);
  g_free (result);
  return 3;
}
