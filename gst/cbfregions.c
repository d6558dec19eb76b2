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

static gboolean
type_wanted (const gchar * const *types, GQuark type)
{
  const gchar *name = g_quark_to_string (type);

  return !types || (name && g_strv_contains (types, name));
}

/* Adds the box at (@x, @y), @w x @h, grown by @padding and clipped, when
 * anything of it is left. 64-bit, so that no coordinate a meta can hold
 * overflows. */
static void
add_box (gint64 x, gint64 y, gint64 w, gint64 h, gint padding, gint width,
    gint height, CbfRegionBox * boxes, guint max, guint * n)
{
  gint64 x0 = CLAMP (x - padding, 0, width);
  gint64 y0 = CLAMP (y - padding, 0, height);
  gint64 x1 = CLAMP (x + w + padding, 0, width);
  gint64 y1 = CLAMP (y + h + padding, 0, height);

  if (*n >= max || w <= 0 || h <= 0 || x1 <= x0 || y1 <= y0)
    return;
  boxes[*n].x0 = (gint32) x0;
  boxes[*n].y0 = (gint32) y0;
  boxes[*n].x1 = (gint32) x1;
  boxes[*n].y1 = (gint32) y1;
  (*n)++;
}

guint
cbf_regions_collect (GstBuffer * buffer, gint width, gint height,
    const gchar * const *types, gint padding, CbfRegionBox * boxes, guint max)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;

    if (type_wanted (types, roi->roi_type))
      add_box (roi->x, roi->y, roi->w, roi->h, padding, width, height, boxes,
          max, &n);
  }
#if CBF_HAVE_ANALYTICS
  {
    GstAnalyticsRelationMeta *rmeta =
        gst_buffer_get_analytics_relation_meta (buffer);
    GstAnalyticsODMtd od;

    state = NULL;
    while (rmeta && gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_analytics_od_mtd_get_mtd_type (), &od)) {
      gint x, y, w, h;
      gfloat confidence;

      if (type_wanted (types, gst_analytics_od_mtd_get_obj_type (&od))
          && gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h,
              &confidence))
        add_box (x, y, w, h, padding, width, height, boxes, max, &n);
    }
  }
#endif
  return n;
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
    default:
      g_assert_not_reached ();
  }
}

gboolean
cbf_region_settings_collect (const CbfRegionSettings * settings,
    GstBuffer * buffer, gint width, gint height, CbfRegionSet * set)
{
  if (settings->mode == CBF_REGIONS_NONE)
    return FALSE;
  set->n = cbf_regions_collect (buffer, width, height,
      (const gchar * const *) settings->type_list, settings->padding,
      set->boxes, CBF_MAX_REGIONS);
  set->feather = (float) settings->feather;
  set->outside = settings->mode == CBF_REGIONS_OUTSIDE;
  return TRUE;
}
