/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>

#include "regions_support.h"
#include "reference.h"

/* Checks @out against @in blended with @filtered by the regions' weight
 * (times @mask's level, @mask NULL: none), channel by channel; returns
 * how many samples had a weight strictly between 0 and 255. */
guint
check_regions (const GstVideoInfo * info, const Channel * in,
    const Channel * filtered, const Channel * out, guint n_filtered,
    const int (*rb)[4], gint n_boxes, gdouble feather, gboolean outside,
    const guint8 * mask, const gchar * what)
{
  gint tol = format_tolerance (GST_VIDEO_INFO_FORMAT (info));
  guint c, between = 0;

  for (c = 0; c < n_filtered; c++) {
    gint fx = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
    gint fy = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
    gint w = out[c].width, h = out[c].height, x, y;

    if (n_filtered == 3 && !GST_VIDEO_INFO_IS_YUV (info))
      fx = fy = 1;
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        gint m = cbf_reference_region_weight (rb, n_boxes, feather, outside,
            fx, fy, x, y);
        gint i = y * w + x, want, got = out[c].data[i], limit;

        if (mask)
          m = (m * cbf_reference_mask_sample (mask, W, W, H, w, h, x,
                  y) + 127) / 255;
        want = cbf_reference_mask_blend (in[c].data[i], filtered[c].data[i], m);
        /* A weight a level off moves the output by 1/255 of the step. */
        limit = m == 0 ? 0 : m == 255 ? tol : tol + 1 +
            (ABS ((gint) filtered[c].data[i] - in[c].data[i]) + 254) / 255;
        between += m > 0 && m < 255;
        fail_unless (ABS (got - want) <= limit, "%s %s component %u (%d, %d) "
            "weight %d: %d, expected %d (input %d, filtered %d)", what,
            GST_VIDEO_INFO_NAME (info), c, x, y, m, got, want, in[c].data[i],
            filtered[c].data[i]);
      }
  }
  return between;
}
