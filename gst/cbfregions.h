/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The regions of a frame, from its metadata: the boxes of its
 * GstVideoRegionOfInterestMeta (every GStreamer version; facedetect's
 * faces) and, where built with GStreamer's analytics library (1.24 on),
 * the object detections of its GstAnalyticsRelationMeta. Host only, no
 * GPU: what the kernels weigh by is regions.h. */

#ifndef __CBF_REGIONS_COLLECT_H__
#define __CBF_REGIONS_COLLECT_H__

#include <gst/gst.h>

#include "regions.h"

G_BEGIN_DECLS

/* The types a comma-separated @list names ("face, plate": spaces around
 * each trimmed, empty names dropped), NULL-terminated; NULL for an empty
 * or NULL list, which takes every type. Free with g_strfreev. */
gchar **cbf_regions_parse_types (const gchar * list);

/* Collects into @boxes (room for @max) the regions of @buffer for a
 * @width x @height frame: each box whose type (the ROI meta's roi_type,
 * the detection's object type) is one of @types (NULL: every type), grown
 * by @padding pixels on every side (a negative padding shrinks it) and
 * clipped to the frame. Boxes that are then empty or outside the frame,
 * whatever their coordinates, are ignored, as are those past @max, in the
 * order the metadata holds them. Returns how many it kept. */
guint cbf_regions_collect (GstBuffer * buffer, gint width, gint height,
    const gchar * const *types, gint padding, CbfRegionBox * boxes,
    guint max);

G_END_DECLS

#endif /* __CBF_REGIONS_COLLECT_H__ */
