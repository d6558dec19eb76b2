/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The geometry of the frames the caps describe, as every side sees it: the
 * frame plan (which rows the kernels read and write), the band pipeline
 * (what it copies and allocates), the frames in system and CUDA memory
 * (what a buffer must hold). One definition, so that they cannot drift. */

#ifndef __CBF_FRAME_SHAPE_H__
#define __CBF_FRAME_SHAPE_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* One plane: @height rows of @row_bytes bytes of pixels, @width pixels of
 * @pixel_bytes bytes each (pixel_bytes * width may be less than row_bytes:
 * see cbf_plane_row_bytes). */
typedef struct
{
  gsize row_bytes;
  gint width;
  gint height;
  gint pixel_bytes;
} CbfPlaneShape;

/* The planes of the frames of one caps. */
typedef struct
{
  guint n_planes;
  CbfPlaneShape planes[GST_VIDEO_MAX_PLANES];
} CbfFrameShape;

/* Bytes of a row of @plane that hold pixels: the widest of its components
 * (in YUY2 of odd width, the last macro-pixel's U and V reach past the last
 * Y sample; RGBx's padding byte counts through the pixel stride). */
gsize cbf_plane_row_bytes (const GstVideoInfo * info, guint plane);

/* The shape of the frames of @info: each plane's size as its first
 * component gives it, and its row bytes. */
void cbf_frame_shape_init (CbfFrameShape * shape, const GstVideoInfo * info);

G_END_DECLS

#endif /* __CBF_FRAME_SHAPE_H__ */
