/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfframeshape.h"

#include <string.h>

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

void
cbf_frame_shape_init (CbfFrameShape * shape, const GstVideoInfo * info)
{
  guint p;

  memset (shape, 0, sizeof (*shape));
  shape->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (p = 0; p < shape->n_planes; p++) {
    CbfPlaneShape *plane = &shape->planes[p];
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    plane->row_bytes = cbf_plane_row_bytes (info, p);
    plane->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    plane->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    plane->pixel_bytes = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  }
}
