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
