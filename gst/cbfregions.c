/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfregions.h"

#include <string.h>
#include <gst/video/video.h>
#if CBF_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

gchar **
cbf_regions_parse_types (const gchar * list)
{
  gchar **parts = g_strsplit (list ? list : "", ",", -1);
  GPtrArray *types = g_ptr_array_new ();
  guint i;

  for (i = 0; parts[i]; i++) {
    gchar *name = g_strstrip (parts[i]);

    if (*name)
      g_ptr_array_add (types, g_strdup (name));
  }
  g_strfreev (parts);
  if (types->len == 0) {
    g_ptr_array_free (types, TRUE);
    return NULL;
  }
  g_ptr_array_add (types, NULL);
  return (gchar **) g_ptr_array_free (types, FALSE);
}

gboolean
cbf_regions_type_wanted (const gchar * const *types, GQuark type)
{
  const gchar *name = g_quark_to_string (type);

  return !types || (name && g_strv_contains (types, name));
}

/* Adds the box at (@x, @y), @w x @h, of type @type, grown by @padding and
 * clipped, when anything of it is left, and where it came from to
 * @origins (NULL: not asked), not tracked. 64-bit, so that no coordinate a
 * meta can hold overflows. Returns whether it added it. */
static gboolean
add_box (gint64 x, gint64 y, gint64 w, gint64 h, GQuark type, gint padding,
    gint width, gint height, CbfRegionBox * boxes, CbfRegionOrigin * origins,
    guint max, guint * n)
{
  gint64 x0 = CLAMP (x - padding, 0, width);
  gint64 y0 = CLAMP (y - padding, 0, height);
  gint64 x1 = CLAMP (x + w + padding, 0, width);
  gint64 y1 = CLAMP (y + h + padding, 0, height);

  if (*n >= max || w <= 0 || h <= 0 || x1 <= x0 || y1 <= y0)
    return FALSE;
  boxes[*n].x0 = (gint32) x0;
  boxes[*n].y0 = (gint32) y0;
  boxes[*n].x1 = (gint32) x1;
  boxes[*n].y1 = (gint32) y1;
  if (origins) {
    CbfRegionOrigin *o = &origins[*n];

    o->type = type;
    o->x = x;
    o->y = y;
    o->w = w;
    o->h = h;
    o->tracked = FALSE;
    o->track_id = 0;
  }
  (*n)++;
  return TRUE;
}

#if CBF_HAVE_ANALYTICS
/* The track id of the detection @od: that of a tracking mtd it relates to
 * (a tracker relates each detection to its track's mtd), if any. */
static gboolean
detection_track_id (GstAnalyticsRelationMeta * rmeta, GstAnalyticsODMtd * od,
    guint64 * id)
{
  GstAnalyticsTrackingMtd trk;
  gpointer state = NULL;
  GstClockTime first_seen, last_seen;
  gboolean lost;

  return gst_analytics_relation_meta_get_direct_related (rmeta, od->id,
      GST_ANALYTICS_REL_TYPE_ANY, gst_analytics_tracking_mtd_get_mtd_type (),
      &state, &trk)
      && gst_analytics_tracking_mtd_get_info (&trk, id, &first_seen,
      &last_seen, &lost);
}
#endif

guint
cbf_regions_collect_origins (GstBuffer * buffer, gint width, gint height,
    const gchar * const *types, gint padding, CbfRegionBox * boxes,
    CbfRegionOrigin * origins, guint max)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;

    /* A box region-hold held, not a detection. */
    if (gst_video_region_of_interest_meta_get_param (roi,
            CBF_REGIONS_HELD_PARAM))
      continue;
    if (cbf_regions_type_wanted (types, roi->roi_type))
      add_box (roi->x, roi->y, roi->w, roi->h, roi->roi_type, padding, width,
          height, boxes, origins, max, &n);
  }
#if CBF_HAVE_ANALYTICS
  {
    GstAnalyticsRelationMeta *rmeta =
        gst_buffer_get_analytics_relation_meta (buffer);
    GstAnalyticsODMtd od;

    state = NULL;
    while (rmeta && gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_analytics_od_mtd_get_mtd_type (), &od)) {
      GQuark type = gst_analytics_od_mtd_get_obj_type (&od);
      gint x, y, w, h;
      gfloat confidence;
      guint64 id;

      if (cbf_regions_type_wanted (types, type)
          && gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h,
              &confidence)
          && add_box (x, y, w, h, type, padding, width, height, boxes,
              origins, max, &n) && origins
          && detection_track_id (rmeta, &od, &id)) {
        origins[n - 1].tracked = TRUE;
        origins[n - 1].track_id = id;
      }
    }
  }
#endif
  return n;
}

void
cbf_region_cell_buffer_clear (CbfRegionCellBuffer * buffer)
{
  g_clear_pointer (&buffer->storage, g_free);
  g_clear_pointer (&buffer->selected, g_free);
  buffer->storage_size = 0;
  memset (&buffer->cells, 0, sizeof (buffer->cells));
}

#define CBF_MAX_CELLS_SPAN (1 << 24)

#if CBF_HAVE_ANALYTICS && GST_CHECK_VERSION (1, 26, 0)
/* Flags in @selected (by region id) the regions of @seg that @types take
 * (cbf_regions_collect_cells); whether any is. */
static gboolean
select_regions (GstAnalyticsRelationMeta * rmeta,
    GstAnalyticsSegmentationMtd * seg, const gchar * const *types,
    guint8 * selected)
{
  const GQuark background = g_quark_from_static_string ("background");
  GstAnalyticsClsMtd cls;
  gpointer state = NULL;
  gboolean classified, any = FALSE;
  gsize i, n = gst_analytics_segmentation_mtd_get_region_count (seg);

  classified = gst_analytics_relation_meta_get_direct_related (rmeta, seg->id,
      GST_ANALYTICS_REL_TYPE_ANY, gst_analytics_cls_mtd_get_mtd_type (),
      &state, &cls);
  memset (selected, 0, 65536);
  for (i = 0; i < n; i++) {
    guint id = gst_analytics_segmentation_mtd_get_region_id (seg, i);
    gboolean take;

    if (classified) {
      GQuark type = i < gst_analytics_cls_mtd_get_length (&cls) ?
          gst_analytics_cls_mtd_get_quark (&cls, i) : 0;

      take = type != 0 && (types ? cbf_regions_type_wanted (types, type)
          : type != background);
    } else {
      take = !types && id != 0;
    }
    if (take && id < 65536) {
      selected[id] = 1;
      any = TRUE;
    }
  }
  return any;
}

/* The cells of @mask (its video meta's GRAY8 or GRAY16) whose region id
 * @selected flags, into @out; FALSE for another format or no cell taken. */
static gboolean
select_cells (GstBuffer * mask, const guint8 * selected,
    CbfRegionCellBuffer * out)
{
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (mask);
  GstMapInfo map;
  gboolean any = FALSE;
  guint i, j;

  if (!vmeta || vmeta->n_planes < 1 || vmeta->width == 0 || vmeta->height == 0
      || (vmeta->format != GST_VIDEO_FORMAT_GRAY8
          && vmeta->format != GST_VIDEO_FORMAT_GRAY16_LE
          && vmeta->format != GST_VIDEO_FORMAT_GRAY16_BE))
    return FALSE;
  if (!gst_buffer_map (mask, &map, GST_MAP_READ))
    return FALSE;
  {
    const gsize bytes = vmeta->format == GST_VIDEO_FORMAT_GRAY8 ? 1 : 2;
    const gsize need = vmeta->offset[0] + (gsize) vmeta->stride[0] *
        (vmeta->height - 1) + bytes * vmeta->width;

    if (vmeta->stride[0] < (gint) (bytes * vmeta->width) || need > map.size) {
      GST_WARNING ("segmentation mask ignored: its video meta (%ux%u, "
          "stride %d, offset %" G_GSIZE_FORMAT ") reaches past its %"
          G_GSIZE_FORMAT " bytes", vmeta->width, vmeta->height,
          vmeta->stride[0], vmeta->offset[0], map.size);
      gst_buffer_unmap (mask, &map);
      return FALSE;
    }
  }
  if (out->storage_size < (gsize) vmeta->width * vmeta->height) {
    out->storage_size = (gsize) vmeta->width * vmeta->height;
    out->storage = g_realloc (out->storage, out->storage_size);
  }
  for (j = 0; j < vmeta->height; j++) {
    const guint8 *row = map.data + vmeta->offset[0] + (gsize) j *
        vmeta->stride[0];
    guint8 *cells = out->storage + (gsize) j * vmeta->width;

    for (i = 0; i < vmeta->width; i++) {
      guint id = vmeta->format == GST_VIDEO_FORMAT_GRAY8 ? row[i] :
          vmeta->format == GST_VIDEO_FORMAT_GRAY16_LE ?
          GST_READ_UINT16_LE (row + 2 * i) : GST_READ_UINT16_BE (row + 2 * i);

      cells[i] = selected[id];
      if (!cells[i])
        continue;
      if (!any) {
        out->span.x0 = out->span.x1 = i;
        out->span.y0 = j;
      }
      any = TRUE;
      out->span.x0 = MIN (out->span.x0, (gint) i);
      out->span.x1 = MAX (out->span.x1, (gint) i + 1);
      out->span.y1 = j + 1;
    }
  }
  gst_buffer_unmap (mask, &map);
  out->cells.cells = out->storage;
  out->cells.cols = vmeta->width;
  out->cells.rows = vmeta->height;
  return any;
}
#endif

gboolean
cbf_regions_collect_cells (G_GNUC_UNUSED GstBuffer * buffer,
    G_GNUC_UNUSED gint width, G_GNUC_UNUSED gint height,
    G_GNUC_UNUSED const gchar * const *types,
    G_GNUC_UNUSED CbfRegionCellBuffer * out)
{
#if CBF_HAVE_ANALYTICS && GST_CHECK_VERSION (1, 26, 0)
  GstAnalyticsRelationMeta *rmeta =
      gst_buffer_get_analytics_relation_meta (buffer);
  GstAnalyticsSegmentationMtd seg;
  gpointer state = NULL;

  if (!out->selected)
    out->selected = g_malloc (65536);
  while (rmeta && gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_segmentation_mtd_get_mtd_type (), &seg)) {
    gint x, y;
    guint w, h;
    GstBuffer *mask = gst_analytics_segmentation_mtd_get_mask (&seg, &x, &y,
        &w, &h);
    /* Rectangles up to 2^24 pixels a side, which the weights' floats
     * hold exactly. */
    gboolean taken = mask && w > 0 && h > 0 && w <= CBF_MAX_CELLS_SPAN
        && h <= CBF_MAX_CELLS_SPAN && x > -CBF_MAX_CELLS_SPAN
        && y > -CBF_MAX_CELLS_SPAN && x < width && y < height
        && (gint64) x + w > 0 && (gint64) y + h > 0
        && select_regions (rmeta, &seg, types, out->selected)
        && select_cells (mask, out->selected, out);

    gst_clear_buffer (&mask);
    if (taken) {
      out->cells.x = x;
      out->cells.y = y;
      out->cells.w = w;
      out->cells.h = h;
      return TRUE;
    }
  }
#endif
  return FALSE;
}

void
cbf_region_set_take_cells (CbfRegionSet * set,
    const CbfRegionCellBuffer * cells, gint padding, gint width, gint height)
{
  const CbfRegionCells *g = cells ? &cells->cells : NULL;
  CbfRegionBox *b = &set->cell_bounds;

  memset (&set->cells, 0, sizeof (set->cells));
  memset (b, 0, sizeof (*b));
  set->cell_padding = padding;
  if (!g || !g->cells)
    return;
  b->x0 = MAX (0, cbf_region_cell_edge (g->x, g->w, g->cols,
          cells->span.x0) - padding);
  b->y0 = MAX (0, cbf_region_cell_edge (g->y, g->h, g->rows,
          cells->span.y0) - padding);
  b->x1 = MIN (width, cbf_region_cell_edge (g->x, g->w, g->cols,
          cells->span.x1) + padding);
  b->y1 = MIN (height, cbf_region_cell_edge (g->y, g->h, g->rows,
          cells->span.y1) + padding);
  if (b->x0 >= b->x1 || b->y0 >= b->y1)
    memset (b, 0, sizeof (*b));
  else
    set->cells = *g;
}

guint
cbf_regions_collect (GstBuffer * buffer, gint width, gint height,
    const gchar * const *types, gint padding, CbfRegionBox * boxes, guint max)
{
  return cbf_regions_collect_origins (buffer, width, height, types, padding,
      boxes, NULL, max);
}

GType
cbf_regions_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue modes[] = {
    {CBF_REGIONS_NONE, "The whole frame (no regions)", "none"},
    {CBF_REGIONS_INSIDE, "Inside the regions; the rest passes unchanged",
        "inside"},
    {CBF_REGIONS_OUTSIDE, "Outside the regions; they pass unchanged",
        "outside"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaBilateralRegions", modes));
  return type;
}

/* A box or a feather wider than this is wider than any frame. */
#define MAX_REGION_PIXELS 65535

void
cbf_region_settings_init (CbfRegionSettings * settings)
{
  memset (settings, 0, sizeof (*settings));
  settings->hold_growth = CBF_REGION_HOLD_GROWTH_DEFAULT;
}

void
cbf_region_settings_clear (CbfRegionSettings * settings)
{
  g_free (settings->types);
  g_strfreev (settings->type_list);
  cbf_region_settings_init (settings);
}

void
cbf_region_settings_install (GObjectClass * klass, guint first_id)
{
  const GParamFlags live = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  /**
   * GstCudaBilateral:regions:
   *
   * Where the filter reaches the output: none (the default), the whole
   * frame; inside, only the regions the frame's metadata names (a
   * GstVideoRegionOfInterestMeta, as facedetect attaches, and from
   * GStreamer 1.24 the object detections of a GstAnalyticsRelationMeta),
   * the rest passes unchanged; outside, the opposite. Each pixel's weight
   * m is 1 inside a box grown by region-padding, falls linearly to 0 at
   * region-feather pixels from it (the distance from the pixel's centre
   * to the box) and is the largest over the boxes; the output is in + (m
   * x 255 rounded) blended as mask-location blends, multiplied by the
   * mask where there is one. Inside, only the boxes (with the window's
   * radius around them) are filtered: the cost follows their area. A
   * blur is not redaction: what it hides can often be recovered.
   */
  g_object_class_install_property (klass, first_id + CBF_REGION_PROP_MODE,
      g_param_spec_enum ("regions", "Regions",
          "Filter the whole frame (none), only inside the regions of the "
          "frame's metadata (ROI metas, analytics object detections) or "
          "only outside them", CBF_TYPE_REGIONS_MODE, CBF_REGIONS_NONE, live));
  gst_type_mark_as_plugin_api (CBF_TYPE_REGIONS_MODE, 0);
  /**
   * GstCudaBilateral:region-types:
   *
   * The regions to use, by type (a ROI meta's roi-type, a detection's
   * label), comma-separated ("face,license-plate"); empty (the default):
   * every region.
   */
  g_object_class_install_property (klass, first_id + CBF_REGION_PROP_TYPES,
      g_param_spec_string ("region-types", "Region types",
          "Comma-separated types (ROI types, detection labels) of the "
          "regions to use; empty: all", NULL, live));
  /**
   * GstCudaBilateral:region-padding:
   *
   * Pixels added to each side of every box (negative: taken off), before
   * it is clipped to the frame.
   */
  g_object_class_install_property (klass, first_id + CBF_REGION_PROP_PADDING,
      g_param_spec_int ("region-padding", "Region padding",
          "Pixels added around each region's box (negative shrinks it)",
          -MAX_REGION_PIXELS, MAX_REGION_PIXELS, 0,
          live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:region-feather:
   *
   * Width in pixels of the soft edge outside each box, over which the
   * filter fades out; 0: a hard edge.
   */
  g_object_class_install_property (klass, first_id + CBF_REGION_PROP_FEATHER,
      g_param_spec_double ("region-feather", "Region feather",
          "Width in pixels of the soft edge around each region; 0: hard",
          0.0, MAX_REGION_PIXELS, 0.0, live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:region-hold:
   *
   * Frames a box is still filtered after the metadata stops carrying it
   * (a detector that misses a face for a frame or two): the box held
   * moves on at the speed its centre had between the last two frames it
   * was seen in, grows by region-hold-growth on each side every frame,
   * is clipped to the frame, and goes after this many frames, once it has
   * left the frame, or when a box seen again takes it over. A box seen is
   * the same object as a box of the frame before by its track id where
   * the metadata tracks the detections (an analytics tracking mtd,
   * GStreamer 1.24 on: a new id is a new object, the old one is held),
   * else by overlap (of the same type). Nothing is held across a flush,
   * seek, new segment or stream, discontinuity or caps change. Each held
   * box the output carries as a ROI meta of its type, with a param
   * structure "cudabilateral/held" (its frames-held); such metas are
   * never taken for detections. 0 (the default): only the frame's own
   * boxes.
   */
  g_object_class_install_property (klass, first_id + CBF_REGION_PROP_HOLD,
      g_param_spec_uint ("region-hold", "Region hold",
          "Frames a region is still filtered after the metadata stops "
          "carrying it, moved along its last motion; 0: only the frame's "
          "own regions", 0, CBF_REGION_HOLD_MAX, 0,
          live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:region-hold-growth:
   *
   * Pixels a box held by region-hold grows on each side for every frame
   * it is held (before region-padding), as where the object is grows
   * less certain with each frame it is not seen. The default, 2, keeps
   * a face that turns or slows within the box for a few frames at
   * 720p/1080p at little cost in area; 0 keeps the box's size.
   */
  g_object_class_install_property (klass,
      first_id + CBF_REGION_PROP_HOLD_GROWTH,
      g_param_spec_double ("region-hold-growth", "Region hold growth",
          "Pixels a held region (region-hold) grows on each side for each "
          "frame it is held; 0: its size stays", 0.0,
          CBF_REGION_HOLD_GROWTH_MAX, CBF_REGION_HOLD_GROWTH_DEFAULT,
          live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:region-size-scale:
   *
   * Sizes the filter's window inside each region from the region: its
   * diameter is this times the shorter side of the box (grown by
   * region-padding and clipped), made odd and kept within 3 to 61, and
   * sigma-space follows in proportion (sigma-space times that diameter
   * over the element's own window, 2 x radius + 1), so that a large face
   * is blurred as strongly as a small one is; chroma's window follows as
   * it follows the element's own. The other parameters are the
   * element's. Boxes whose windows overlap are filtered together, with the
   * largest of their diameters. It applies where only the regions are
   * filtered (regions=inside, without the temporal filter, method=grid or
   * border=wrap, which filter the whole frame with the element's own
   * window; a warning says so). 0 (the default): every region takes the
   * element's diameter and sigma-space.
   */
  g_object_class_install_property (klass,
      first_id + CBF_REGION_PROP_SIZE_SCALE,
      g_param_spec_double ("region-size-scale", "Region size scale",
          "The filter's window inside each region as a share of the "
          "region's shorter side (diameter 3 to 61), sigma-space in "
          "proportion; 0: the element's diameter", 0.0,
          CBF_REGION_SIZE_SCALE_MAX, 0.0, live | GST_PARAM_CONTROLLABLE));
}

void
cbf_region_settings_set (CbfRegionSettings * settings, guint which,
    const GValue * value)
{
  switch (which) {
    case CBF_REGION_PROP_MODE:
      settings->mode = g_value_get_enum (value);
      break;
    case CBF_REGION_PROP_TYPES:
      g_free (settings->types);
      g_strfreev (settings->type_list);
      settings->types = g_value_dup_string (value);
      settings->type_list = cbf_regions_parse_types (settings->types);
      break;
    case CBF_REGION_PROP_PADDING:
      settings->padding = g_value_get_int (value);
      break;
    case CBF_REGION_PROP_FEATHER:
      settings->feather = g_value_get_double (value);
      break;
    case CBF_REGION_PROP_HOLD:
      settings->hold = g_value_get_uint (value);
      break;
    case CBF_REGION_PROP_HOLD_GROWTH:
      settings->hold_growth = g_value_get_double (value);
      break;
    case CBF_REGION_PROP_SIZE_SCALE:
      settings->size_scale = g_value_get_double (value);
      break;
    default:
      g_assert_not_reached ();
  }
}

void
cbf_region_settings_get (const CbfRegionSettings * settings, guint which,
    GValue * value)
{
  switch (which) {
    case CBF_REGION_PROP_MODE:
      g_value_set_enum (value, settings->mode);
      break;
    case CBF_REGION_PROP_TYPES:
      g_value_set_string (value, settings->types);
      break;
    case CBF_REGION_PROP_PADDING:
      g_value_set_int (value, settings->padding);
      break;
    case CBF_REGION_PROP_FEATHER:
      g_value_set_double (value, settings->feather);
      break;
    case CBF_REGION_PROP_HOLD:
      g_value_set_uint (value, settings->hold);
      break;
    case CBF_REGION_PROP_HOLD_GROWTH:
      g_value_set_double (value, settings->hold_growth);
      break;
    case CBF_REGION_PROP_SIZE_SCALE:
      g_value_set_double (value, settings->size_scale);
      break;
    default:
      g_assert_not_reached ();
  }
}

gboolean
cbf_region_settings_collect_origins (const CbfRegionSettings * settings,
    GstBuffer * buffer, gint width, gint height, CbfRegionSet * set,
    CbfRegionOrigin * origins)
{
  if (settings->mode == CBF_REGIONS_NONE)
    return FALSE;
  set->n = cbf_regions_collect_origins (buffer, width, height,
      (const gchar * const *) settings->type_list, settings->padding,
      set->boxes, origins, CBF_MAX_REGIONS);
  set->feather = (float) settings->feather;
  set->outside = settings->mode == CBF_REGIONS_OUTSIDE;
  set->size_scale = (float) settings->size_scale;
  return TRUE;
}

gboolean
cbf_region_settings_collect (const CbfRegionSettings * settings,
    GstBuffer * buffer, gint width, gint height, CbfRegionSet * set)
{
  return cbf_region_settings_collect_origins (settings, buffer, width, height,
      set, NULL);
}
