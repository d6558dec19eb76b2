/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the GPU tests of the regions share: the frame size and the check
 * of an output against the reference's blend by the regions' weight. */

#ifndef __REGIONS_SUPPORT_H__
#define __REGIONS_SUPPORT_H__

#include <gst/video/video.h>

#include "gpu_support.h"

#define W 70
#define H 46

/* Checks @out against @in blended with @filtered by the regions' weight
 * (times @mask's level, @mask NULL: none), channel by channel; returns
 * how many samples had a weight strictly between 0 and 255. */
guint check_regions (const GstVideoInfo * info, const Channel * in,
    const Channel * filtered, const Channel * out, guint n_filtered,
    const int (*rb)[4], gint n_boxes, gdouble feather, gboolean outside,
    const guint8 * mask, const gchar * what);

#endif /* __REGIONS_SUPPORT_H__ */
