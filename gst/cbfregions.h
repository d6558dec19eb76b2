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

/* What regions= takes: none (the whole frame filtered), inside the boxes
 * or outside them. */
typedef enum
{
  CBF_REGIONS_NONE,
  CBF_REGIONS_INSIDE,
  CBF_REGIONS_OUTSIDE,
} CbfRegionsMode;

#define CBF_TYPE_REGIONS_MODE (cbf_regions_mode_get_type ())
GType cbf_regions_mode_get_type (void);

/* The element's region properties, in the order cbf_region_settings_install
 * numbers them. */
enum
{
  CBF_REGION_PROP_MODE,
  CBF_REGION_PROP_TYPES,
  CBF_REGION_PROP_PADDING,
  CBF_REGION_PROP_FEATHER,
  CBF_REGION_N_PROPS
};

/* Their values, kept under the element's object lock. */
typedef struct
{
  CbfRegionsMode mode;
  gchar *types;                 /* as set */
  gchar **type_list;            /* parsed (cbf_regions_parse_types) */
  gint padding;
  gdouble feather;
} CbfRegionSettings;

void cbf_region_settings_init (CbfRegionSettings * settings);
void cbf_region_settings_clear (CbfRegionSettings * settings);

/* Installs regions, region-types, region-padding and region-feather on
 * @klass with the ids @first_id + CBF_REGION_PROP_*. */
void cbf_region_settings_install (GObjectClass * klass, guint first_id);

/* Sets or gets property @which (CBF_REGION_PROP_*). */
void cbf_region_settings_set (CbfRegionSettings * settings, guint which,
    const GValue * value);
void cbf_region_settings_get (const CbfRegionSettings * settings, guint which,
    GValue * value);

/* The regions of @buffer for a @width x @height frame by @settings, into
 * @set; FALSE, @set untouched, for regions=none. */
gboolean cbf_region_settings_collect (const CbfRegionSettings * settings,
    GstBuffer * buffer, gint width, gint height, CbfRegionSet * set);

G_END_DECLS

#endif /* __CBF_REGIONS_COLLECT_H__ */
