/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Frames in host memory as GstCbfFilter reads and writes them: where a
 * buffer's planes lie and whether they lie inside it (the check, for
 * frames in system and CUDA memory alike), mapping them, and whether each
 * plane is pinned (may be copied by DMA). Needs no GPU for memory that is
 * not page-locked: a static library shared with tests/test_hostframe.c. */

#ifndef __CBF_HOST_FRAME_H__
#define __CBF_HOST_FRAME_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cbfcontext.h"
#include "cbfframeshape.h"

G_BEGIN_DECLS

/* A frame in system memory as the element reads or writes it: each plane's
 * first row and stride as the buffer's video meta gives them, or else as
 * the caps' default layout (GStreamer's rule for a buffer without a meta).
 * Planes are mapped memory by memory, so that a buffer of one memory per
 * plane is used in place; where a plane runs across memories (a buffer put
 * together from pieces), the whole buffer is mapped at once, which merges
 * them. GstVideoFrame does neither: without a meta it maps the first plane
 * only, and with one it maps just the memory where a plane starts. */
typedef struct
{
  GstMapInfo maps[GST_VIDEO_MAX_PLANES];
  guint n_maps;
  guint plane_map[GST_VIDEO_MAX_PLANES];        /* index into maps */
  guint8 *data[GST_VIDEO_MAX_PLANES];
  gsize stride[GST_VIDEO_MAX_PLANES];
  gboolean pinned;              /* every plane in page-locked memory */
} CbfHostFrame;

/* Where the planes of @buf lie (@offset, @stride), by its video meta or by
 * @info's default layout, in system or CUDA memory alike, for frames of
 * @shape. Returns NULL if they lie inside the buffer, else what is wrong,
 * for an error message (to free). */
gchar *cbf_frame_layout (const CbfFrameShape * shape,
    const GstVideoInfo * info, GstBuffer * buf, gsize * offset,
    gint * stride);

/* Maps @buf, a frame of @info and @shape, for @flags; pageable memory
 * that comes back is page-locked in @context (cbf_host_register_recycled).
 * On failure returns FALSE and in @why what is wrong with the buffer (to
 * free). */
gboolean cbf_host_frame_map (const CbfFrameShape * shape,
    CbfContext * context, const GstVideoInfo * info, GstBuffer * buf,
    GstMapFlags flags, CbfHostFrame * frame, gchar ** why);

void cbf_host_frame_unmap (GstBuffer * buf, CbfHostFrame * frame);

/* Posts @element's error for @buf, the input (!@output) or the output
 * frame, that does not hold a frame of the caps for reason @why (freed),
 * what cbf_frame_layout or cbf_host_frame_map said. Returns
 * GST_FLOW_ERROR. */
GstFlowReturn cbf_frame_error (GstElement * element, GstBuffer * buf,
    gboolean output, gchar * why);

G_END_DECLS

#endif /* __CBF_HOST_FRAME_H__ */
