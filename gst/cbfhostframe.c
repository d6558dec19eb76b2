/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Host frames, owned here: where a buffer's planes lie and whether they lie
 * inside it (frame_layout), mapping them, and whether they are pinned
 * (page-locked: GstCbfFilter's pool, or memory registered when it came
 * back, cbfhostregister.h). No GPU is needed unless pageable memory comes
 * back to be registered. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfhostframe.h"
#include "cbfhostregister.h"
#include "gstcbfpinnedallocator.h"

#include <string.h>

/* The element's errors are logged where the base class logs ("cbffilter",
 * the category of that name). */
GST_DEBUG_CATEGORY_STATIC (cbf_host_frame_debug);
#define GST_CAT_DEFAULT cbf_host_frame_debug

/* Bytes from a plane's first byte to the end of its last row's pixels. */
static gsize
plane_span (const CbfPlaneShape * pb, gsize stride)
{
  return (gsize) (pb->height - 1) * stride + pb->row_bytes;
}

gchar *
cbf_frame_layout (const CbfFrameShape * shape, const GstVideoInfo * info,
    GstBuffer * buf, gsize * offset, gint * stride)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  gsize size = gst_buffer_get_size (buf);
  guint p;

  if (!meta) {
    if (size < GST_VIDEO_INFO_SIZE (info))
      return g_strdup_printf ("buffer of %" G_GSIZE_FORMAT " bytes, caps "
          "need %" G_GSIZE_FORMAT " for a %dx%d %s frame (the buffer has no "
          "video meta)", size, GST_VIDEO_INFO_SIZE (info),
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info));
    for (p = 0; p < shape->n_planes; p++) {
      offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
      stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
    }
    return NULL;
  }

  if (meta->format != GST_VIDEO_INFO_FORMAT (info)
      || meta->n_planes != shape->n_planes
      || meta->width < (guint) GST_VIDEO_INFO_WIDTH (info)
      || meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info))
    return g_strdup_printf ("its video meta describes a %ux%u %s frame of %u "
        "planes, the caps a %dx%d %s frame", meta->width, meta->height,
        gst_video_format_to_string (meta->format), meta->n_planes,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_NAME (info));
  for (p = 0; p < shape->n_planes; p++) {
    const CbfPlaneShape *pb = &shape->planes[p];

    offset[p] = meta->offset[p];
    stride[p] = meta->stride[p];
    if (stride[p] < 0 || (gsize) stride[p] < pb->row_bytes)
      return g_strdup_printf ("its video meta gives plane %u a stride of %d "
          "bytes, less than the %" G_GSIZE_FORMAT " bytes of a row", p,
          stride[p], pb->row_bytes);
    if (offset[p] > size || plane_span (pb, stride[p]) > size - offset[p])
      return g_strdup_printf ("its video meta puts plane %u (offset %"
          G_GSIZE_FORMAT ", stride %d, %d rows of %" G_GSIZE_FORMAT
          " bytes) at bytes %" G_GSIZE_FORMAT " to %" G_GSIZE_FORMAT
          ", outside the buffer's %" G_GSIZE_FORMAT " bytes", p, offset[p],
          stride[p], pb->height, pb->row_bytes, offset[p],
          offset[p] + plane_span (pb, stride[p]), size);
  }
  return NULL;
}

void
cbf_host_frame_unmap (GstBuffer * buf, CbfHostFrame * frame)
{
  guint m;

  for (m = 0; m < frame->n_maps; m++)
    gst_buffer_unmap (buf, &frame->maps[m]);
  frame->n_maps = 0;
}

/* Pinned memory can be copied by DMA straight away: a pool of ours, or a
 * plane inside the registration of the very memory it is mapped from, at
 * the address of this map. Not what the driver says of the address: it
 * may hold another memory's registration there, with that memory's pages,
 * and undo it whenever that memory is freed. Memory an upstream
 * page-locked itself cannot be told from the address safely either, and
 * is staged. */
static gboolean
host_frame_is_pinned (const CbfFrameShape * shape, const CbfHostFrame * frame)
{
  guint p;

  for (p = 0; p < shape->n_planes; p++) {
    GstMemory *mem = frame->maps[frame->plane_map[p]].memory;

    if (gst_memory_is_type (mem, GST_CBF_PINNED_MEMORY_TYPE))
      continue;
    if (!cbf_host_register_covers (mem, frame->data[p],
            plane_span (&shape->planes[p], frame->stride[p])))
      return FALSE;
  }
  return TRUE;
}

gboolean
cbf_host_frame_map (const CbfFrameShape * shape, CbfContext * context,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags,
    CbfHostFrame * frame, gchar ** why)
{
  gsize offset[GST_VIDEO_MAX_PLANES], skip[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  guint first[GST_VIDEO_MAX_PLANES];
  gboolean whole = FALSE;
  guint p, m;

  memset (frame, 0, sizeof (*frame));
  *why = cbf_frame_layout (shape, info, buf, offset, stride);
  if (*why)
    return FALSE;
  for (p = 0; p < shape->n_planes; p++) {
    guint length = 0;

    if (!gst_buffer_find_memory (buf, offset[p], plane_span (&shape->planes[p],
                stride[p]), &first[p], &length, &skip[p]))
      length = 0;
    whole |= length != 1;
  }

  if (whole) {
    if (!gst_buffer_map (buf, &frame->maps[0], flags))
      goto map_failed;
    frame->n_maps = 1;
  }
  for (p = 0; p < shape->n_planes; p++) {
    if (whole) {
      frame->data[p] = frame->maps[0].data + offset[p];
    } else {
      /* Planes that share a memory share its map. */
      for (m = 0; m < p && first[m] != first[p]; m++);
      if (m == p) {
        m = frame->n_maps;
        if (!gst_buffer_map_range (buf, first[p], 1, &frame->maps[m], flags))
          goto map_failed;
        frame->n_maps++;
      } else {
        m = frame->plane_map[m];
      }
      frame->plane_map[p] = m;
      frame->data[p] = frame->maps[m].data + skip[p];
    }
    frame->stride[p] = stride[p];
  }
  frame->pinned = host_frame_is_pinned (shape, frame);
  if (!frame->pinned) {
    gboolean registered = FALSE;

    for (m = 0; m < frame->n_maps; m++)
      registered |= cbf_host_register_recycled (context,
          frame->maps[m].memory, &frame->maps[m]);
    if (registered)
      frame->pinned = host_frame_is_pinned (shape, frame);
  }
  return TRUE;

map_failed:
  cbf_host_frame_unmap (buf, frame);
  *why = g_strdup_printf ("it cannot be mapped for %s",
      (flags & GST_MAP_WRITE) ? "writing" : "reading");
  return FALSE;
}

GstFlowReturn
cbf_frame_error (GstElement * element, GstBuffer * buf, gboolean output,
    gchar * why)
{
  static gsize debug_init;

  if (g_once_init_enter (&debug_init)) {
    GST_DEBUG_CATEGORY_INIT (cbf_host_frame_debug, "cbffilter", 0,
        "CUDA filter base class");
    g_once_init_leave (&debug_init, 1);
  }
  if (output)
    GST_ELEMENT_ERROR (element, STREAM, FAILED,
        ("Output buffer cannot be written: %s.", why),
        ("%" GST_PTR_FORMAT, buf));
  else
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
        ("Input buffer cannot be filtered: %s.", why),
        ("%" GST_PTR_FORMAT, buf));
  g_free (why);
  return GST_FLOW_ERROR;
}
