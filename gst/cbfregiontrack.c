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

#include "cbfregiontrack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gst/video/video.h>

/* What a coordinate may be off a whole pixel by and still count as on
 * it, when a held box is rounded outwards: the error of a few frames of
 * a velocity such as 1/3 pixel, not a part of a pixel of the picture. */
#define ON_PIXEL 1e-6

/* A box in doubles: columns [x0, x1), rows [y0, y1). */
typedef struct
{
  gdouble x0, y0, x1, y1;
} Box;

void
cbf_region_track_init (CbfRegionTrack * track)
{
  memset (track, 0, sizeof (*track));
}

void
cbf_region_track_clear (CbfRegionTrack * track)
{
  cbf_region_track_init (track);
}

void
cbf_region_track_reset (CbfRegionTrack * track)
{
  track->n_objects = 0;
  track->n_seen = 0;
  track->n_held = 0;
}

/* Where @o stands @k frames after it was last seen, its half-size grown
 * by @growth a frame. */
static Box
predict (const CbfRegionTrackObject * o, guint k, gdouble growth)
{
  const gdouble cx = o->cx + o->vx * k, cy = o->cy + o->vy * k;
  const gdouble hw = o->w / 2 + growth * k, hh = o->h / 2 + growth * k;
  Box b = { cx - hw, cy - hh, cx + hw, cy + hh };

  return b;
}

static Box
origin_box (const CbfRegionOrigin * o)
{
  Box b = { (gdouble) o->x, (gdouble) o->y, (gdouble) (o->x + o->w),
    (gdouble) (o->y + o->h)
  };

  return b;
}

static gdouble
iou (const Box * a, const Box * b)
{
  const gdouble w = MIN (a->x1, b->x1) - MAX (a->x0, b->x0);
  const gdouble h = MIN (a->y1, b->y1) - MAX (a->y0, b->y0);
  gdouble inter, uni;

  if (w <= 0 || h <= 0)
    return 0;
  inter = w * h;
  uni = (a->x1 - a->x0) * (a->y1 - a->y0) + (b->x1 - b->x0) * (b->y1 -
      b->y0) - inter;
  return uni > 0 ? inter / uni : 0;
}

/* @b grown by @pad on each side, rounded outwards to whole pixels and
 * clipped to the @width x @height frame; FALSE where nothing is left. */
static gboolean
round_out (const Box * b, gdouble pad, gint width, gint height,
    CbfRegionBox * out)
{
  const gdouble x0 = CLAMP (floor (b->x0 - pad + ON_PIXEL), 0, width);
  const gdouble y0 = CLAMP (floor (b->y0 - pad + ON_PIXEL), 0, height);
  const gdouble x1 = CLAMP (ceil (b->x1 + pad - ON_PIXEL), 0, width);
  const gdouble y1 = CLAMP (ceil (b->y1 + pad - ON_PIXEL), 0, height);

  if (!(x1 > x0 && y1 > y0))
    return FALSE;
  out->x0 = (gint32) x0;
  out->y0 = (gint32) y0;
  out->x1 = (gint32) x1;
  out->y1 = (gint32) y1;
  return TRUE;
}

/* A box seen and an object of the frame before that may be one. */
typedef struct
{
  gdouble iou;
  guint seen, object;
} Pair;

/* The best overlap first; ties in the metadata's order, then the
 * objects'. */
static int
pair_compare (const void *a, const void *b)
{
  const Pair *p = a, *q = b;

  if (p->iou != q->iou)
    return p->iou > q->iou ? -1 : 1;
  if (p->seen != q->seen)
    return p->seen < q->seen ? -1 : 1;
  return p->object < q->object ? -1 : p->object > q->object;
}

/* Sets @match[i] to the object of @before (@n_before of them) the box
 * seen @i continues, -1 for none, and @taken[j] for each object matched:
 * by track id, else by overlap. */
static void
match_seen (const CbfRegionTrackObject * before, guint n_before,
    const CbfRegionOrigin * origins, guint n_seen, gint * match,
    gboolean * taken)
{
  Pair *pairs = NULL;
  guint i, j, n_pairs = 0;

  for (i = 0; i < n_seen; i++) {
    match[i] = -1;
    if (!origins[i].tracked)
      continue;
    for (j = 0; j < n_before && match[i] < 0; j++)
      if (!taken[j] && before[j].tracked
          && before[j].track_id == origins[i].track_id) {
        match[i] = j;
        taken[j] = TRUE;
      }
  }
  for (i = 0; i < n_seen; i++) {
    const Box seen = origin_box (&origins[i]);

    if (origins[i].tracked)
      continue;
    for (j = 0; j < n_before; j++) {
      Box there;
      gdouble overlap;

      if (taken[j] || before[j].tracked || before[j].type != origins[i].type)
        continue;
      /* Where its motion takes it in this frame, at its size. */
      there = predict (&before[j], before[j].held + 1, 0);
      overlap = iou (&seen, &there);
      if (overlap < CBF_REGION_TRACK_MIN_IOU)
        continue;
      if (!pairs)
        pairs = g_new (Pair, n_seen * n_before);
      pairs[n_pairs].iou = overlap;
      pairs[n_pairs].seen = i;
      pairs[n_pairs].object = j;
      n_pairs++;
    }
  }
  if (n_pairs > 1)
    qsort (pairs, n_pairs, sizeof (Pair), pair_compare);
  for (i = 0; i < n_pairs; i++)
    if (match[pairs[i].seen] < 0 && !taken[pairs[i].object]) {
      match[pairs[i].seen] = pairs[i].object;
      taken[pairs[i].object] = TRUE;
    }
  g_free (pairs);
}

void
cbf_region_track_update (CbfRegionTrack * track,
    const CbfRegionSettings * settings, gint width, gint height,
    CbfRegionSet * set, const CbfRegionOrigin * origins)
{
  const gchar *const *types = (const gchar * const *) settings->type_list;
  CbfRegionTrackObject before[CBF_MAX_REGIONS];
  gint match[CBF_MAX_REGIONS];
  gboolean taken[CBF_MAX_REGIONS] = { FALSE };
  guint n_before, n_seen = MIN ((guint) set->n, CBF_MAX_REGIONS), i, n;

  if (width != track->width || height != track->height) {
    cbf_region_track_reset (track);
    track->width = width;
    track->height = height;
  }
  track->n_seen = n_seen;
  track->n_held = 0;
  if (settings->hold == 0) {
    track->n_objects = 0;
    return;
  }

  n_before = track->n_objects;
  memcpy (before, track->objects, n_before * sizeof (before[0]));
  match_seen (before, n_before, origins, n_seen, match, taken);

  /* The objects seen, in the metadata's order: their velocity from where
   * they were last seen. */
  for (n = 0; n < n_seen; n++) {
    CbfRegionTrackObject *o = &track->objects[n];
    const CbfRegionOrigin *from = &origins[n];

    o->type = from->type;
    o->tracked = from->tracked;
    o->track_id = from->track_id;
    o->w = (gdouble) from->w;
    o->h = (gdouble) from->h;
    o->cx = (gdouble) from->x + o->w / 2;
    o->cy = (gdouble) from->y + o->h / 2;
    o->held = 0;
    if (match[n] >= 0) {
      const CbfRegionTrackObject *last = &before[match[n]];

      o->vx = (o->cx - last->cx) / (last->held + 1);
      o->vy = (o->cy - last->cy) / (last->held + 1);
    } else {
      o->vx = o->vy = 0;
    }
  }

  /* Then those not seen, in their order, while they may be held, and
   * their boxes after the boxes seen. */
  for (i = 0; i < n_before && n < CBF_MAX_REGIONS; i++) {
    CbfRegionTrackObject *o = &track->objects[n];
    CbfRegionHeld *held = &track->held[track->n_held];
    Box b;

    if (taken[i] || before[i].held + 1 > settings->hold
        || !cbf_regions_type_wanted (types, before[i].type))
      continue;
    *o = before[i];
    o->held++;
    b = predict (o, o->held, settings->hold_growth);
    /* Gone once nothing of it is left in the frame. */
    if (!round_out (&b, 0, width, height, &held->box))
      continue;
    n++;
    if (set->n >= CBF_MAX_REGIONS
        || !round_out (&b, settings->padding, width, height,
            &set->boxes[set->n]))
      continue;
    set->n++;
    held->type = o->type;
    held->frames_held = o->held;
    held->tracked = o->tracked;
    held->track_id = o->track_id;
    track->n_held++;
  }
  track->n_objects = n;
}

gboolean
cbf_region_track_collect (CbfRegionTrack * track,
    const CbfRegionSettings * settings, GstBuffer * buffer, gint width,
    gint height, CbfRegionSet * set)
{
  CbfRegionOrigin origins[CBF_MAX_REGIONS];

  if (!cbf_region_settings_collect_origins (settings, buffer, width, height,
          set, origins)) {
    cbf_region_track_reset (track);
    return FALSE;
  }
  cbf_region_track_update (track, settings, width, height, set, origins);
  return TRUE;
}

guint
cbf_region_track_add_metas (const CbfRegionTrack * track, GstBuffer * buffer)
{
  guint i;

  g_return_val_if_fail (gst_buffer_is_writable (buffer), 0);
  for (i = 0; i < track->n_held; i++) {
    const CbfRegionHeld *held = &track->held[i];
    GstVideoRegionOfInterestMeta *roi;
    GstStructure *param;

    roi = gst_buffer_add_video_region_of_interest_meta_id (buffer,
        held->type, held->box.x0, held->box.y0, held->box.x1 - held->box.x0,
        held->box.y1 - held->box.y0);
    param = gst_structure_new (CBF_REGIONS_HELD_PARAM, "frames-held",
        G_TYPE_UINT, held->frames_held, NULL);
    if (held->tracked)
      gst_structure_set (param, "track-id", G_TYPE_UINT64, held->track_id,
          NULL);
    gst_video_region_of_interest_meta_add_param (roi, param);
  }
  return track->n_held;
}
