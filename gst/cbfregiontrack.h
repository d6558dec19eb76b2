/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* region-hold: the boxes of the frames before, kept alive for a few
 * frames where the metadata stops carrying them (a detector that misses a
 * face for a frame or two). Once per frame, the boxes seen in it (from
 * cbf_regions_collect_origins) go in, the boxes to filter (those seen,
 * then those held) come out. Host only, no GPU, no GStreamer element: the
 * element calls it from before_transform, under its object lock.
 *
 * A box seen is the object of a box of the frame before (seen or held)
 * with the same track id, where the metadata tracks the detections;
 * otherwise, of the same type and without a track id, the one its box
 * overlaps most (intersection over union at least
 * CBF_REGION_TRACK_MIN_IOU), greedily, the best pair first, where the
 * box of the frame before stands where its motion takes it in this
 * frame. A box not seen again is held: its centre moves on by its
 * velocity (its displacement per frame between the last two frames it
 * was seen in, 0 after one), its size grows by 2 x region-hold-growth a
 * frame; it is dropped after region-hold frames, when the whole of it is
 * outside the frame, or when its type is no longer one region-types
 * names. Positions and velocities are kept in doubles (a slow motion is
 * not lost to rounding); a held box is rounded outwards to whole pixels
 * (with region-padding applied) only to be filtered. */

#ifndef __CBF_REGION_TRACK_H__
#define __CBF_REGION_TRACK_H__

#include <gst/gst.h>

#include "cbfregions.h"

G_BEGIN_DECLS

/* How much two boxes overlap (intersection over union) for a box seen to
 * continue a box of the frame before, where there are no track ids. */
#define CBF_REGION_TRACK_MIN_IOU 0.3

/* An object followed from frame to frame (the tracker's own). */
typedef struct
{
  GQuark type;
  gboolean tracked;
  guint64 track_id;
  gdouble cx, cy, w, h;         /* its box when last seen: centre, size */
  gdouble vx, vy;               /* its centre's displacement per frame */
  guint held;                   /* frames since last seen */
} CbfRegionTrackObject;

/* A box of the last update's set that is held: where it is (moved and
 * grown, clipped to the frame, rounded outwards, without region-padding:
 * as a detector's ROI meta would have it), its type, the frames it has
 * been held (1 the first frame it is not seen), its track id. */
typedef struct
{
  CbfRegionBox box;
  GQuark type;
  guint frames_held;
  gboolean tracked;
  guint64 track_id;
} CbfRegionHeld;

typedef struct
{
  /* The objects of the last frame: those seen in it, then those held. */
  CbfRegionTrackObject objects[CBF_MAX_REGIONS];
  guint n_objects;
  gint width, height;           /* of the frames they are in; 0: none */
  /* The last update's set: its first n_seen boxes seen, the n_held after
   * them held, as held[] says. */
  guint n_seen, n_held;
  CbfRegionHeld held[CBF_MAX_REGIONS];
} CbfRegionTrack;

void cbf_region_track_init (CbfRegionTrack * track);
void cbf_region_track_clear (CbfRegionTrack * track);

/* Nothing held any more, nothing to match the next frame's boxes with:
 * at a flush, seek, new segment or stream, discontinuity, caps change. */
void cbf_region_track_reset (CbfRegionTrack * track);

/* One frame, @width x @height: @set holds the boxes seen in it as
 * cbf_region_settings_collect leaves them, @origins (@set->n of them)
 * where they came from (cbf_regions_collect_origins). Matches them with
 * the objects of the frame before and appends to @set the boxes held
 * (region-padding applied, clipped, those that are then empty left out),
 * as many as CBF_MAX_REGIONS leaves room for. A new size resets the
 * tracker first; region-hold=0 resets it and leaves @set as it is. */
void cbf_region_track_update (CbfRegionTrack * track,
    const CbfRegionSettings * settings, gint width, gint height,
    CbfRegionSet * set, const CbfRegionOrigin * origins);

/* What the element calls for each frame in place of
 * cbf_region_settings_collect: the boxes seen in @buffer by @settings and
 * those held, into @set. FALSE, @set untouched and the tracker reset, for
 * regions=none. */
gboolean cbf_region_track_collect (CbfRegionTrack * track,
    const CbfRegionSettings * settings, GstBuffer * buffer, gint width,
    gint height, CbfRegionSet * set);

/* Adds to @buffer (writable) a GstVideoRegionOfInterestMeta for each box
 * the last update held (track->held, in order), of the box's type, with a
 * param structure CBF_REGIONS_HELD_PARAM holding frames-held (guint) and,
 * for a tracked object, track-id (guint64); cbf_regions_collect skips
 * them. Returns how many it added. */
guint cbf_region_track_add_metas (const CbfRegionTrack * track,
    GstBuffer * buffer);

G_END_DECLS

#endif /* __CBF_REGION_TRACK_H__ */
