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

/* Whether a region of @type is one @types names (NULL: every type). */
gboolean cbf_regions_type_wanted (const gchar * const *types, GQuark type);

/* The name of the param structure of the ROI metas region-hold adds for
 * the boxes it holds (cbfregiontrack.h); cbf_regions_collect skips the ROI
 * metas that carry one: a held box is not a detection. */
#define CBF_REGIONS_HELD_PARAM "cudabilateral/held"

/* Collects into @boxes (room for @max) the regions of @buffer for a
 * @width x @height frame: each box whose type (the ROI meta's roi_type,
 * the detection's object type) is one of @types (NULL: every type), grown
 * by @padding pixels on every side (a negative padding shrinks it) and
 * clipped to the frame. Boxes that are then empty or outside the frame,
 * whatever their coordinates, are ignored, as are those past @max, in the
 * order the metadata holds them (the ROI metas, then the detections), and
 * the ROI metas with a CBF_REGIONS_HELD_PARAM param. Returns how many it
 * kept. */
guint cbf_regions_collect (GstBuffer * buffer, gint width, gint height,
    const gchar * const *types, gint padding, CbfRegionBox * boxes,
    guint max);

/* Where a collected box came from: its type, the box as the metadata
 * holds it (before padding and clipping) and, where the metadata tracks
 * it (an analytics tracking mtd related to the detection, GStreamer 1.24
 * on), its track id. */
typedef struct
{
  GQuark type;
  gint64 x, y, w, h;
  gboolean tracked;
  guint64 track_id;             /* when tracked */
} CbfRegionOrigin;

/* cbf_regions_collect, and into @origins (room for @max; NULL: none),
 * beside each box kept, where it came from. */
guint cbf_regions_collect_origins (GstBuffer * buffer, gint width,
    gint height, const gchar * const *types, gint padding,
    CbfRegionBox * boxes, CbfRegionOrigin * origins, guint max);

/* The cells of a segmentation mask that are of the regions' types, as
 * cbf_regions_collect_cells gives them: @cells.cells points into
 * @storage, which grows as masks need and is kept from frame to frame. */
typedef struct
{
  CbfRegionCells cells;
  CbfRegionBox span;            /* the selected cells' columns and rows */
  guint8 *storage;
  gsize storage_size;
  guint8 *selected;             /* by region id: 65,536 flags */
} CbfRegionCellBuffer;

void cbf_region_cell_buffer_clear (CbfRegionCellBuffer * buffer);

/* The first segmentation in @buffer's GstAnalyticsRelationMeta
 * (GStreamer 1.26 on; always FALSE before) that holds a region of @types,
 * as the cells of its mask (GRAY8 or GRAY16, a cell a mask pixel) over
 * the rectangle of the @width x @height frame it names. A region's type
 * is the class that a classification related to the segmentation gives
 * its index; @types NULL takes every region but those of class
 * "background", and, where no classification is related, every region
 * but id 0. FALSE where no segmentation has a region taken, its mask is
 * of another format, or its rectangle misses the frame. */
gboolean cbf_regions_collect_cells (GstBuffer * buffer, gint width,
    gint height, const gchar * const *types, CbfRegionCellBuffer * out);

/* Gives @set the cells of @cells (NULL: none), each grown by @padding, for
 * a @width x @height frame: their bounds so grown and clipped, and no
 * cells where nothing of them is left in the frame. The cells stay
 * @cells's, on the host: the engine takes them to the device. */
void cbf_region_set_take_cells (CbfRegionSet * set,
    const CbfRegionCellBuffer * cells, gint padding, gint width, gint height);

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
  CBF_REGION_PROP_HOLD,
  CBF_REGION_PROP_HOLD_GROWTH,
  CBF_REGION_PROP_SIZE_SCALE,
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
  guint hold;                   /* frames a box not seen again is kept */
  gdouble hold_growth;          /* pixels a side a held box grows a frame */
  gdouble size_scale;           /* window diameter / box side; 0: off */
} CbfRegionSettings;

/* region-hold's and region-hold-growth's largest values and defaults. */
#define CBF_REGION_HOLD_MAX 300
#define CBF_REGION_HOLD_GROWTH_MAX 100.0
#define CBF_REGION_HOLD_GROWTH_DEFAULT 2.0

/* region-size-scale's largest value. */
#define CBF_REGION_SIZE_SCALE_MAX 4.0

void cbf_region_settings_init (CbfRegionSettings * settings);
void cbf_region_settings_clear (CbfRegionSettings * settings);

/* Installs regions, region-types, region-padding, region-feather,
 * region-hold, region-hold-growth and region-size-scale on @klass with the ids @first_id +
 * CBF_REGION_PROP_*. */
void cbf_region_settings_install (GObjectClass * klass, guint first_id);

/* Sets or gets property @which (CBF_REGION_PROP_*). */
void cbf_region_settings_set (CbfRegionSettings * settings, guint which,
    const GValue * value);
void cbf_region_settings_get (const CbfRegionSettings * settings, guint which,
    GValue * value);

/* The regions of @buffer for a @width x @height frame by @settings, into
 * @set (the boxes seen in this frame: region-hold is
 * cbf_region_track_collect's); FALSE, @set untouched, for regions=none. */
gboolean cbf_region_settings_collect (const CbfRegionSettings * settings,
    GstBuffer * buffer, gint width, gint height, CbfRegionSet * set);

/* cbf_region_settings_collect, and into @origins (room for
 * CBF_MAX_REGIONS; NULL: none) where each box came from
 * (cbf_regions_collect_origins). */
gboolean cbf_region_settings_collect_origins (const CbfRegionSettings *
    settings, GstBuffer * buffer, gint width, gint height, CbfRegionSet * set,
    CbfRegionOrigin * origins);

G_END_DECLS

#endif /* __CBF_REGIONS_COLLECT_H__ */
