/* The regions of a frame read from its metadata (gst/cbfregions.c) and
 * their weights (kernels/regions.h), against the C reference: no GPU.
 * ROI metas of several types, partly and wholly outside the frame, empty
 * and with coordinates no frame has, padding that grows and shrinks,
 * the type filter, the limit on boxes; weights with and without feather,
 * overlapping boxes, inside and outside, chroma's scale; where built with
 * GStreamer's analytics library, object detections too. region-hold
 * (gst/cbfregiontrack.c): boxes missing for a few frames held, moved and
 * grown, matched by overlap and by track id, clipped and dropped, reset,
 * the limit on boxes, the ROI metas of the boxes held; the properties. */

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#if CBF_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include "cbfregions.h"
#include "cbfregiontrack.h"
#include "reference.h"

static void
add_roi (GstBuffer * buf, const gchar * type, guint x, guint y, guint w,
    guint h)
{
  fail_unless (gst_buffer_add_video_region_of_interest_meta (buf, type, x, y,
          w, h) != NULL);
}

static void
assert_box (const CbfRegionBox * b, gint x0, gint y0, gint x1, gint y1)
{
  fail_unless (b->x0 == x0 && b->y0 == y0 && b->x1 == x1 && b->y1 == y1,
      "box %d,%d-%d,%d, expected %d,%d-%d,%d", b->x0, b->y0, b->x1, b->y1,
      x0, y0, x1, y1);
}

GST_START_TEST (test_types_parsed)
{
  gchar **t = cbf_regions_parse_types (" face, plate ,, ");

  fail_unless (t != NULL && g_strv_length (t) == 2);
  fail_unless_equals_string (t[0], "face");
  fail_unless_equals_string (t[1], "plate");
  g_strfreev (t);
  fail_unless (cbf_regions_parse_types ("") == NULL);
  fail_unless (cbf_regions_parse_types (" , ") == NULL);
  fail_unless (cbf_regions_parse_types (NULL) == NULL);
}

GST_END_TEST;

GST_START_TEST (test_roi_boxes)
{
  GstBuffer *buf = gst_buffer_new ();
  CbfRegionBox boxes[CBF_MAX_REGIONS];
  const gchar *plates[] = { "plate", NULL };

  add_roi (buf, "face", 10, 20, 50, 60);
  add_roi (buf, "plate", 300, 200, 40, 60);     /* partly outside */
  add_roi (buf, "face", 400, 10, 20, 20);       /* outside */
  add_roi (buf, "face", 5, 5, 0, 10);   /* empty */
  add_roi (buf, "face", 4000000000u, 7, 4000000000u, 4000000000u);

  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, NULL, 0, boxes,
          CBF_MAX_REGIONS), 2);
  assert_box (&boxes[0], 10, 20, 60, 80);
  assert_box (&boxes[1], 300, 200, 320, 240);
  /* The type filter. */
  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, plates, 0,
          boxes, CBF_MAX_REGIONS), 1);
  assert_box (&boxes[0], 300, 200, 320, 240);
  /* Padding grows each box, clipped; the box outside stays outside. */
  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, NULL, 8, boxes,
          CBF_MAX_REGIONS), 2);
  assert_box (&boxes[0], 2, 12, 68, 88);
  assert_box (&boxes[1], 292, 192, 320, 240);
  /* A padding past the frame's edge brings the outside box in. */
  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, NULL, 90,
          boxes, CBF_MAX_REGIONS), 3);
  assert_box (&boxes[2], 310, 0, 320, 120);
  /* A negative padding shrinks; what it empties is dropped. */
  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, NULL, -20,
          boxes, CBF_MAX_REGIONS), 1);
  assert_box (&boxes[0], 30, 40, 40, 60);
  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, NULL, -25,
          boxes, CBF_MAX_REGIONS), 0);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_roi_limit)
{
  GstBuffer *buf = gst_buffer_new ();
  CbfRegionBox boxes[CBF_MAX_REGIONS];
  guint i;

  for (i = 0; i < CBF_MAX_REGIONS + 6; i++)
    add_roi (buf, "face", i, i, 2, 2);
  fail_unless_equals_int (cbf_regions_collect (buf, 640, 480, NULL, 0, boxes,
          CBF_MAX_REGIONS), CBF_MAX_REGIONS);
  /* The first ones, in the metadata's order. */
  for (i = 0; i < CBF_MAX_REGIONS; i++)
    assert_box (&boxes[i], i, i, i + 2, i + 2);
  fail_unless_equals_int (cbf_regions_collect (buf, 640, 480, NULL, 0, boxes,
          3), 3);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* Every pixel of an 80 x 60 plane, luma and chroma scales, with and
 * without feather, inside and outside: within one level of the
 * reference (float against double at a rounding tie), exact inside a box,
 * and values worked by hand. */
GST_START_TEST (test_weights)
{
  static const int ref[][4] = { {10, 10, 30, 20}, {25, 15, 60, 40} };
  static const float feathers[] = { 0, 5, 12.5f };
  CbfRegionBox boxes[2];
  guint f, i, partial = 0;
  gint x, y, s, outside;

  for (i = 0; i < 2; i++) {
    boxes[i].x0 = ref[i][0];
    boxes[i].y0 = ref[i][1];
    boxes[i].x1 = ref[i][2];
    boxes[i].y1 = ref[i][3];
  }
  for (f = 0; f < G_N_ELEMENTS (feathers); f++)
    for (s = 1; s <= 2; s++)
      for (outside = 0; outside <= 1; outside++)
        for (y = 0; y < 60 / s; y++)
          for (x = 0; x < 80 / s; x++) {
            gint got = cbf_region_weight (boxes, 2, feathers[f], outside, s,
                s, x, y);
            gint want = cbf_reference_region_weight (ref, 2, feathers[f],
                outside, s, s, x, y);

            fail_unless (ABS (got - want) <= 1, "feather %g scale %d outside "
                "%d at %d,%d: %d, the reference %d", feathers[f], s, outside,
                x, y, got, want);
            if (want == (outside ? 0 : 255))
              fail_unless_equals_int (got, want);
            partial += want > 0 && want < 255;
          }
  fail_unless (partial > 0, "no pixel in a feather");
  /* Inside, on either box, and where they overlap. */
  fail_unless_equals_int (cbf_region_weight (boxes, 2, 5, 0, 1, 1, 10, 10),
      255);
  fail_unless_equals_int (cbf_region_weight (boxes, 2, 5, 0, 1, 1, 27, 17),
      255);
  /* 2.5 pixels right of the first box (centre 32.5), feather 5: 0.5. */
  fail_unless_equals_int (cbf_region_weight (boxes, 1, 5, 0, 1, 1, 32, 12),
      128);
  fail_unless_equals_int (cbf_region_weight (boxes, 1, 5, 1, 1, 1, 32, 12),
      127);
  /* No feather: a hard edge. */
  fail_unless_equals_int (cbf_region_weight (boxes, 1, 0, 0, 1, 1, 30, 12), 0);
  /* Chroma pixel 15 of a 2x-subsampled plane stands for luma 30-31, centre
   * 31: one pixel right of the box, feather 4: 0.75. */
  fail_unless_equals_int (cbf_region_weight (boxes, 1, 4, 0, 2, 2, 15, 6), 191);
  /* Nothing: no box weighs nothing, or everything outside. */
  fail_unless_equals_int (cbf_region_weight (boxes, 0, 5, 0, 1, 1, 3, 3), 0);
  fail_unless_equals_int (cbf_region_weight (boxes, 0, 5, 1, 1, 1, 3, 3), 255);
}

GST_END_TEST;

#if CBF_HAVE_ANALYTICS
GST_START_TEST (test_analytics_boxes)
{
  GstBuffer *buf = gst_buffer_new ();
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta
      (buf);
  GstAnalyticsODMtd od;
  CbfRegionBox boxes[CBF_MAX_REGIONS];
  const gchar *faces[] = { "face", NULL };

  fail_unless (rmeta != NULL);
  fail_unless (gst_analytics_relation_meta_add_od_mtd (rmeta,
          g_quark_from_string ("car"), -10, -10, 30, 30, 0.9f, &od));
  fail_unless (gst_analytics_relation_meta_add_od_mtd (rmeta,
          g_quark_from_string ("face"), 100, 100, 10, 10, 0.8f, &od));
  fail_unless (gst_analytics_relation_meta_add_od_mtd (rmeta,
          g_quark_from_string ("face"), 500, 100, 10, 10, 0.8f, &od));
  add_roi (buf, "face", 1, 2, 3, 4);
  /* The ROI metas first, then the detections. */
  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, NULL, 0, boxes,
          CBF_MAX_REGIONS), 3);
  assert_box (&boxes[0], 1, 2, 4, 6);
  assert_box (&boxes[1], 0, 0, 20, 20);
  assert_box (&boxes[2], 100, 100, 110, 110);
  fail_unless_equals_int (cbf_regions_collect (buf, 320, 240, faces, 2,
          boxes, CBF_MAX_REGIONS), 2);
  assert_box (&boxes[1], 98, 98, 112, 112);
  gst_buffer_unref (buf);
}

GST_END_TEST;
#endif

/* The @n-th ROI meta of @buf, in the order they were added. */
static GstVideoRegionOfInterestMeta *
nth_roi (GstBuffer * buf, guint n)
{
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (n-- == 0)
      return (GstVideoRegionOfInterestMeta *) meta;
  return NULL;
}

/* region-hold: frames of W x H whose ROI metas are @rois, through the
 * tracker as the element calls it. */
#define W 320
#define H 240

typedef struct
{
  const gchar *type;
  guint x, y, w, h;
} Roi;

/* One frame: the set's box count. */
static guint
track_frame (CbfRegionTrack * track, const CbfRegionSettings * settings,
    const Roi * rois, guint n, CbfRegionSet * set)
{
  GstBuffer *buf = gst_buffer_new ();
  guint i;

  for (i = 0; i < n; i++)
    add_roi (buf, rois[i].type, rois[i].x, rois[i].y, rois[i].w, rois[i].h);
  fail_unless (cbf_region_track_collect (track, settings, buf, W, H, set));
  gst_buffer_unref (buf);
  return set->n;
}

/* One frame through the test's own track, settings and set. */
#define FRAME(rois, n) track_frame (&track, &settings, rois, n, &set)

static void
hold_settings (CbfRegionSettings * settings, guint hold, gdouble growth)
{
  cbf_region_settings_init (settings);
  settings->mode = CBF_REGIONS_INSIDE;
  settings->hold = hold;
  settings->hold_growth = growth;
}

/* The box held @k frames after it was last seen at (@x, @y), @w x @h,
 * moving by (@vx, @vy) a frame and growing by @g a side a frame: worked
 * out here, rounded outwards and clipped, as the user guide says. */
static void
assert_held (const CbfRegionBox * b, gdouble x, gdouble y, gdouble w,
    gdouble h, gdouble vx, gdouble vy, gdouble g, guint k)
{
  gdouble x0 = x + vx * k - g * k, x1 = x + w + vx * k + g * k;
  gdouble y0 = y + vy * k - g * k, y1 = y + h + vy * k + g * k;

  assert_box (b, (gint) CLAMP (floor (x0), 0, W),
      (gint) CLAMP (floor (y0), 0, H), (gint) CLAMP (ceil (x1), 0, W),
      (gint) CLAMP (ceil (y1), 0, H));
}

/* A face seen at (100, 80) then (103, 78), 40 x 30, then missing for 1,
 * 2 and N + 1 frames with region-hold=N=3: held 1, 2 and 3 frames along
 * its velocity (3, -2) and grown by 1 a side a frame, then gone; seen
 * again, it is one box, not the box seen and the box held. */
GST_START_TEST (test_hold_missing)
{
  const guint n_hold = 3;
  static const Roi seen0 = { "face", 100, 80, 40, 30 };
  static const Roi seen1 = { "face", 103, 78, 40, 30 };
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  guint missing, k;

  hold_settings (&settings, n_hold, 1.0);
  for (missing = 1; missing <= n_hold + 1; missing++) {
    cbf_region_track_init (&track);
    fail_unless_equals_int (FRAME (&seen0, 1), 1);
    assert_box (&set.boxes[0], 100, 80, 140, 110);
    fail_unless_equals_int (track.n_seen, 1);
    fail_unless_equals_int (track.n_held, 0);
    fail_unless_equals_int (FRAME (&seen1, 1), 1);
    assert_box (&set.boxes[0], 103, 78, 143, 108);
    for (k = 1; k <= missing; k++) {
      guint n = FRAME (NULL, 0);

      if (k > n_hold) {
        fail_unless_equals_int (n, 0);
        fail_unless_equals_int (track.n_held, 0);
        break;
      }
      fail_unless_equals_int (n, 1);
      fail_unless_equals_int (track.n_seen, 0);
      fail_unless_equals_int (track.n_held, 1);
      fail_unless_equals_int (track.held[0].frames_held, k);
      fail_unless (track.held[0].type == g_quark_from_string ("face"));
      /* (103 + 3k - k, 78 - 2k - k) to (143 + 3k + k, 108 - 2k + k). */
      assert_box (&set.boxes[0], 103 + 2 * k, 78 - 3 * k, 143 + 4 * k, 108 - k);
      assert_held (&track.held[0].box, 103, 78, 40, 30, 3, -2, 1, k);
    }
    /* Seen again where it was: the box seen alone. */
    fail_unless_equals_int (FRAME (&seen1, 1), 1);
    assert_box (&set.boxes[0], 103, 78, 143, 108);
    fail_unless_equals_int (track.n_held, 0);
    cbf_region_track_clear (&track);
  }
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

/* A box moving at constant velocity, then missing: the held boxes go on
 * along it; a velocity measured across a missed frame is the displacement
 * over the frames between; sub-pixel positions are kept, each box rounded
 * outwards, with region-padding applied to the box filtered only. */
GST_START_TEST (test_hold_velocity)
{
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  guint t, k;

  hold_settings (&settings, 10, 1.5);
  cbf_region_track_init (&track);
  /* (20 + 7t, 200 - 5t), 30 x 20, at t = 0, 1, 2. */
  for (t = 0; t < 3; t++) {
    Roi roi = { "face", 20 + 7 * t, 200 - 5 * t, 30, 20 };

    fail_unless_equals_int (FRAME (&roi, 1), 1);
    assert_box (&set.boxes[0], 20 + 7 * t, 200 - 5 * t, 50 + 7 * t,
        220 - 5 * t);
  }
  for (k = 1; k <= 4; k++) {
    fail_unless_equals_int (FRAME (NULL, 0), 1);
    /* From (34, 190): x0 = 34 + 7k - 1.5k, y0 = 190 - 5k - 1.5k, ... */
    assert_held (&set.boxes[0], 34, 190, 30, 20, 7, -5, 1.5, k);
    assert_held (&track.held[0].box, 34, 190, 30, 20, 7, -5, 1.5, k);
    /* By hand: 39.5 -> 39, 183.5 -> 183, 72.5 -> 73, 206.5 -> 207. */
    if (k == 1)
      assert_box (&set.boxes[0], 39, 183, 73, 207);
  }
  /* By hand, k = 4: (34 + 28 - 6, 190 - 20 - 6)-(64 + 28 + 6, 210 - 20 +
   * 6). */
  assert_box (&set.boxes[0], 56, 164, 98, 196);

  /* Speeding up, 10 then 20 then 25 pixels a frame, 40 wide: at the
   * last, 15 columns of 65 overlap the box before (less than
   * CBF_REGION_TRACK_MIN_IOU), 35 of 45 where it was going: one object,
   * held at 55 + 25. */
  cbf_region_track_reset (&track);
  settings.hold_growth = 0;
  for (t = 0; t < 4; t++) {
    static const guint xs[] = { 0, 10, 30, 55 };
    Roi roi = { "face", xs[t], 100, 40, 40 };

    fail_unless_equals_int (FRAME (&roi, 1), 1);
  }
  fail_unless_equals_int (FRAME (NULL, 0), 1);
  assert_box (&set.boxes[0], 80, 100, 120, 140);

  /* Seen at x = 10, missed once, seen at 11: half a pixel a frame, the
   * box held at 11.5 rounded out to 11-32, then exactly 12-32. */
  cbf_region_track_reset (&track);
  settings.padding = 2;
  {
    static const Roi at10 = { "face", 10, 50, 20, 20 };
    static const Roi at11 = { "face", 11, 50, 20, 20 };

    FRAME (&at10, 1);
    fail_unless_equals_int (FRAME (NULL, 0), 1);
    assert_box (&set.boxes[0], 8, 48, 32, 72);
    fail_unless_equals_int (FRAME (&at11, 1), 1);
    assert_box (&set.boxes[0], 9, 48, 33, 72);
    fail_unless_equals_int (FRAME (NULL, 0), 1);
    /* 11.5 - 2 = 9.5 -> 9; 31.5 + 2 = 33.5 -> 34. */
    assert_box (&set.boxes[0], 9, 48, 34, 72);
    assert_box (&track.held[0].box, 11, 50, 32, 70);
    fail_unless_equals_int (FRAME (NULL, 0), 1);
    assert_box (&set.boxes[0], 10, 48, 34, 72);
    assert_box (&track.held[0].box, 12, 50, 32, 70);
  }
  cbf_region_track_clear (&track);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

/* Two faces crossing, 10 pixels a frame each way, A 10 rows above B; the
 * metadata lists them A, B, then B, A after they cross; then both are
 * missed: each is held along its own velocity (a mix-up would move one
 * diagonally). Then faces side by side, and one missed as a plate
 * appears where it was: the face held where it was going, the plate not
 * taken for it. */
GST_START_TEST (test_hold_crossing)
{
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  guint t, k;

  hold_settings (&settings, 5, 0);
  cbf_region_track_init (&track);
  for (t = 0; t <= 4; t++) {
    Roi a = { "face", 20 + 10 * t, 50, 40, 40 };
    Roi b = { "face", 80 - 10 * t, 60, 40, 40 };
    Roi rois[2];

    rois[0] = t < 4 ? a : b;
    rois[1] = t < 4 ? b : a;
    fail_unless_equals_int (FRAME (rois, 2), 2);
    fail_unless_equals_int (track.n_held, 0);
  }
  /* After t = 4 (A at 60, B at 40): B first, as last seen. */
  for (k = 1; k <= 2; k++) {
    fail_unless_equals_int (FRAME (NULL, 0), 2);
    assert_box (&set.boxes[0], 40 - 10 * k, 60, 80 - 10 * k, 100);
    assert_box (&set.boxes[1], 60 + 10 * k, 50, 100 + 10 * k, 90);
  }

  cbf_region_track_reset (&track);
  for (t = 0; t <= 2; t++) {
    Roi rois[3] = {
      {"face", 20 + t, 100, 40, 40},
      {"face", 64 - t, 100, 40, 40},
      {"plate", 20, 100, 40, 40},
    };

    if (t < 2) {
      fail_unless_equals_int (FRAME (rois, 2), 2);
      continue;
    }
    /* The first face missed: the second seen, and a plate where the first
     * would be, the first held one pixel on (from 21, one a frame). */
    fail_unless_equals_int (FRAME (rois + 1, 2), 3);
    fail_unless_equals_int (track.n_seen, 2);
    assert_box (&set.boxes[0], 62, 100, 102, 140);
    assert_box (&set.boxes[1], 20, 100, 60, 140);
    assert_box (&set.boxes[2], 22, 100, 62, 140);
    fail_unless (track.held[0].type == g_quark_from_string ("face"));
  }
  cbf_region_track_clear (&track);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

#if CBF_HAVE_ANALYTICS
/* A face detection related to a tracking mtd of id @id. */
static void
add_tracked (GstBuffer * buf, guint64 id, gint x, gint y, gint w, gint h)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta
      (buf);
  GstAnalyticsODMtd od;
  GstAnalyticsTrackingMtd trk;

  if (!rmeta)
    rmeta = gst_buffer_add_analytics_relation_meta (buf);
  fail_unless (gst_analytics_relation_meta_add_od_mtd (rmeta,
          g_quark_from_string ("face"), x, y, w, h, 0.9f, &od));
  fail_unless (gst_analytics_relation_meta_add_tracking_mtd (rmeta, id, 0,
          &trk));
  fail_unless (gst_analytics_relation_meta_set_relation (rmeta,
          GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, trk.id));
}

/* One frame with a face of track @id at (@x, 50), 40 x 40 (@id 0: none). */
static guint
tracked_frame (CbfRegionTrack * track, const CbfRegionSettings * settings,
    guint64 id, gint x, CbfRegionSet * set)
{
  GstBuffer *buf = gst_buffer_new ();

  if (id)
    add_tracked (buf, id, x, 50, 40, 40);
  fail_unless (cbf_region_track_collect (track, settings, buf, W, H, set));
  gst_buffer_unref (buf);
  return set->n;
}

#define TRACKED(id, x) tracked_frame (&track, &settings, id, x, &set)

/* Track ids: id 7 at x = 50, 54; then id 9 where 7 would be: a new
 * object, 7 held at 58 whatever the overlap; then 7 again at 62 (4 a
 * frame across the frame it was missed) and 9 missed, held at 58; then
 * both missed. The held metas carry the track id. */
GST_START_TEST (test_hold_track_ids)
{
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  CbfRegionOrigin origins[CBF_MAX_REGIONS];
  GstBuffer *buf = gst_buffer_new ();
  const GstStructure *p;
  guint64 got;

  /* The origins: the id, the box as the detection has it. */
  add_tracked (buf, G_GUINT64_CONSTANT (0x123456789), -10, 50, 40, 40);
  fail_unless_equals_int (cbf_regions_collect_origins (buf, W, H, NULL, 0,
          set.boxes, origins, CBF_MAX_REGIONS), 1);
  assert_box (&set.boxes[0], 0, 50, 30, 90);
  fail_unless (origins[0].tracked);
  fail_unless (origins[0].track_id == G_GUINT64_CONSTANT (0x123456789));
  fail_unless (origins[0].x == -10 && origins[0].w == 40);
  gst_buffer_unref (buf);

  hold_settings (&settings, 5, 0);
  cbf_region_track_init (&track);
  TRACKED (7, 50);
  TRACKED (7, 54);
  fail_unless_equals_int (TRACKED (9, 58), 2);
  assert_box (&set.boxes[0], 58, 50, 98, 90);
  assert_box (&set.boxes[1], 58, 50, 98, 90);
  fail_unless_equals_int (track.n_held, 1);
  fail_unless (track.held[0].tracked && track.held[0].track_id == 7);
  fail_unless_equals_int (TRACKED (7, 62), 2);
  assert_box (&set.boxes[0], 62, 50, 102, 90);
  assert_box (&set.boxes[1], 58, 50, 98, 90);
  fail_unless (track.held[0].track_id == 9);
  fail_unless_equals_int (TRACKED (0, 0), 2);
  assert_box (&set.boxes[0], 66, 50, 106, 90);
  assert_box (&set.boxes[1], 58, 50, 98, 90);
  fail_unless_equals_int (track.held[1].frames_held, 2);

  buf = gst_buffer_new ();
  fail_unless_equals_int (cbf_region_track_add_metas (&track, buf), 2);
  p = gst_video_region_of_interest_meta_get_param (nth_roi (buf, 0),
      CBF_REGIONS_HELD_PARAM);
  fail_unless (p && gst_structure_get_uint64 (p, "track-id", &got));
  fail_unless (got == 7);
  gst_buffer_unref (buf);
  cbf_region_track_clear (&track);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;
#else
/* Built without GStreamer's analytics library: no track ids to follow. */
GST_START_TEST (test_hold_track_ids)
{
  g_print ("test_hold_track_ids: skipped, built without GStreamer's "
      "analytics library (1.24 on): no track ids\n");
}

GST_END_TEST;
#endif

/* reset drops everything; regions=none resets; a new frame size resets;
 * region-hold=0 gives exactly the boxes seen, and set to 0 while boxes
 * are held drops them at the next frame. */
GST_START_TEST (test_hold_reset)
{
  static const Roi rois[] = {
    {"face", 10, 20, 30, 40}, {"plate", 300, 200, 40, 60},
    {"face", 400, 10, 20, 20},
  };
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  GstBuffer *buf;
  guint t;

  hold_settings (&settings, 4, 2);
  cbf_region_track_init (&track);
  FRAME (rois, 1);
  fail_unless_equals_int (FRAME (NULL, 0), 1);
  cbf_region_track_reset (&track);
  fail_unless_equals_int (track.n_held, 0);
  fail_unless_equals_int (FRAME (NULL, 0), 0);

  /* regions=none: FALSE, the set untouched, nothing kept. */
  FRAME (rois, 1);
  settings.mode = CBF_REGIONS_NONE;
  buf = gst_buffer_new ();
  set.n = 99;
  fail_if (cbf_region_track_collect (&track, &settings, buf, W, H, &set));
  fail_unless_equals_int (set.n, 99);
  settings.mode = CBF_REGIONS_OUTSIDE;
  fail_unless (cbf_region_track_collect (&track, &settings, buf, W, H, &set));
  fail_unless_equals_int (set.n, 0);
  fail_unless (set.outside);
  settings.mode = CBF_REGIONS_INSIDE;

  /* A new size. */
  FRAME (rois, 1);
  fail_unless (cbf_region_track_collect (&track, &settings, buf, W, H + 2,
          &set));
  fail_unless_equals_int (set.n, 0);

  /* region-hold=0: the boxes of each frame alone, as collect has them. */
  settings.hold = 0;
  for (t = 0; t < 4; t++) {
    guint n = FRAME (rois, t % 2 ? 3 : 2);

    fail_unless_equals_int (n, 2);
    assert_box (&set.boxes[0], 10, 20, 40, 60);
    assert_box (&set.boxes[1], 300, 200, 320, 240);
    fail_unless_equals_int (FRAME (NULL, 0), 0);
    fail_unless_equals_int (FRAME (rois + 1, 1), 1);
    assert_box (&set.boxes[0], 300, 200, 320, 240);
  }
  /* Held, then region-hold set to 0: gone at the next frame. */
  settings.hold = 4;
  FRAME (rois, 2);
  fail_unless_equals_int (FRAME (NULL, 0), 2);
  settings.hold = 0;
  fail_unless_equals_int (FRAME (NULL, 0), 0);
  fail_unless_equals_int (track.n_held, 0);
  settings.hold = 4;
  fail_unless_equals_int (FRAME (NULL, 0), 0);
  gst_buffer_unref (buf);
  cbf_region_track_clear (&track);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

/* The held boxes as ROI metas on an output buffer: the type, the box
 * without region-padding, frames-held; collect, and the tracker the frame
 * after, take them for no detection. A held type region-types no longer
 * names is dropped. */
GST_START_TEST (test_hold_metas)
{
  static const Roi rois[] = {
    {"face", 40, 40, 20, 20}, {"plate", 200, 100, 30, 10},
  };
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  CbfRegionBox boxes[CBF_MAX_REGIONS];
  GstBuffer *out;
  GstVideoRegionOfInterestMeta *roi;
  const GstStructure *param;
  GValue types = G_VALUE_INIT;
  guint frames;

  hold_settings (&settings, 3, 2);
  settings.padding = 4;
  cbf_region_track_init (&track);
  FRAME (rois, 2);
  fail_unless_equals_int (FRAME (rois + 1, 1), 2);
  assert_box (&set.boxes[0], 196, 96, 234, 114);
  /* Held once, growth 2, padding 4: 34-66. */
  assert_box (&set.boxes[1], 34, 34, 66, 66);

  out = gst_buffer_new ();
  add_roi (out, "plate", 200, 100, 30, 10);     /* kept from the input */
  fail_unless_equals_int (cbf_region_track_add_metas (&track, out), 1);
  roi = nth_roi (out, 1);
  fail_unless (roi != NULL);
  fail_unless_equals_string (g_quark_to_string (roi->roi_type), "face");
  fail_unless (roi->x == 38 && roi->y == 38 && roi->w == 24 && roi->h == 24,
      "held meta %u,%u %ux%u", roi->x, roi->y, roi->w, roi->h);
  param = gst_video_region_of_interest_meta_get_param (roi,
      CBF_REGIONS_HELD_PARAM);
  fail_unless (param != NULL);
  fail_unless (gst_structure_get_uint (param, "frames-held", &frames));
  fail_unless_equals_int (frames, 1);
  fail_if (gst_structure_has_field (param, "track-id"));

  /* Fed back: the plate alone is a detection. */
  fail_unless_equals_int (cbf_regions_collect (out, W, H, NULL, 0, boxes,
          CBF_MAX_REGIONS), 1);
  assert_box (&boxes[0], 200, 100, 230, 110);
  fail_unless (cbf_region_track_collect (&track, &settings, out, W, H, &set));
  fail_unless_equals_int (track.n_seen, 1);
  fail_unless_equals_int (track.n_held, 1);
  fail_unless_equals_int (track.held[0].frames_held, 2);
  /* Its meta held once more, not held and seen. */
  assert_box (&track.held[0].box, 36, 36, 64, 64);
  gst_buffer_unref (out);

  /* region-types=plate: the held face goes. */
  g_value_init (&types, G_TYPE_STRING);
  g_value_set_string (&types, "plate");
  cbf_region_settings_set (&settings, CBF_REGION_PROP_TYPES, &types);
  g_value_unset (&types);
  fail_unless_equals_int (FRAME (rois, 2), 1);
  assert_box (&set.boxes[0], 196, 96, 234, 114);
  fail_unless_equals_int (track.n_held, 0);
  cbf_region_track_clear (&track);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

/* Held boxes clipped at the frame's edges and dropped once wholly
 * outside, before region-hold runs out: one leaving left, one leaving
 * right and down, growing. */
GST_START_TEST (test_hold_clipping)
{
  static const Roi left[] = { {"face", 15, 100, 20, 20},
  {"face", 5, 100, 20, 20}
  };
  static const Roi right[] = { {"face", 290, 200, 20, 20},
  {"face", 296, 205, 20, 20}
  };
  static const gint want[][4] = {
    {301, 209, 320, 231}, {306, 213, 320, 237}, {311, 217, 320, 240},
    {316, 221, 320, 240},
  };
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  guint k;

  hold_settings (&settings, 10, 0);
  cbf_region_track_init (&track);
  FRAME (&left[0], 1);
  FRAME (&left[1], 1);
  fail_unless_equals_int (FRAME (NULL, 0), 1);
  assert_box (&set.boxes[0], 0, 100, 15, 120);
  assert_box (&track.held[0].box, 0, 100, 15, 120);
  fail_unless_equals_int (FRAME (NULL, 0), 1);
  assert_box (&set.boxes[0], 0, 100, 5, 120);
  /* -25 to -5: gone, and not back. */
  fail_unless_equals_int (FRAME (NULL, 0), 0);
  fail_unless_equals_int (track.n_objects, 0);
  fail_unless_equals_int (FRAME (NULL, 0), 0);

  /* 6 right and 5 down a frame, growing 1 a side a frame: x0 = 296 + 5k,
   * x1 = 316 + 7k, y0 = 205 + 4k, y1 = 225 + 6k. */
  settings.hold_growth = 1;
  FRAME (&right[0], 1);
  FRAME (&right[1], 1);
  for (k = 1; k <= 4; k++) {
    fail_unless_equals_int (FRAME (NULL, 0), 1);
    assert_box (&set.boxes[0], want[k - 1][0], want[k - 1][1],
        want[k - 1][2], want[k - 1][3]);
  }
  /* x0 = 321. */
  fail_unless_equals_int (FRAME (NULL, 0), 0);
  cbf_region_track_clear (&track);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

/* At most CBF_MAX_REGIONS: 64 boxes seen, then 10 others: the 10 seen
 * first, then the first 54 held, in their order. */
GST_START_TEST (test_hold_limit)
{
  Roi rois[CBF_MAX_REGIONS];
  CbfRegionSettings settings;
  CbfRegionTrack track;
  CbfRegionSet set;
  guint i;

  for (i = 0; i < CBF_MAX_REGIONS; i++) {
    rois[i].type = "face";
    rois[i].x = i % 16 * 20;
    rois[i].y = i / 16 * 20;
    rois[i].w = rois[i].h = 10;
  }
  hold_settings (&settings, 2, 0);
  cbf_region_track_init (&track);
  fail_unless_equals_int (FRAME (rois, CBF_MAX_REGIONS), CBF_MAX_REGIONS);
  fail_unless_equals_int (FRAME (NULL, 0), CBF_MAX_REGIONS);
  for (i = 0; i < CBF_MAX_REGIONS; i++)
    assert_box (&set.boxes[i], i % 16 * 20, i / 16 * 20, i % 16 * 20 + 10,
        i / 16 * 20 + 10);
  for (i = 0; i < 10; i++) {
    rois[i].x = i * 30;
    rois[i].y = 200;
  }
  fail_unless_equals_int (FRAME (rois, 10), CBF_MAX_REGIONS);
  fail_unless_equals_int (track.n_seen, 10);
  fail_unless_equals_int (track.n_held, CBF_MAX_REGIONS - 10);
  for (i = 0; i < 10; i++)
    assert_box (&set.boxes[i], i * 30, 200, i * 30 + 10, 210);
  for (i = 0; i < CBF_MAX_REGIONS - 10; i++) {
    assert_box (&set.boxes[10 + i], i % 16 * 20, i / 16 * 20,
        i % 16 * 20 + 10, i / 16 * 20 + 10);
    fail_unless_equals_int (track.held[i].frames_held, 2);
  }
  /* region-hold=2 has run out for them. */
  fail_unless_equals_int (FRAME (NULL, 0), 10);
  cbf_region_track_clear (&track);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

/* The region properties, installed on a class of their own:
 * region-hold's and region-hold-growth's defaults, ranges and flags, and
 * their values set and got. */
static void
set_none (GObject * o, guint id, const GValue * v, GParamSpec * p)
{
  (void) o, (void) id, (void) v, (void) p;
}

static void
get_none (GObject * o, guint id, GValue * v, GParamSpec * p)
{
  (void) o, (void) id, (void) v, (void) p;
}

static void
test_regions_class_init (gpointer klass, gpointer data)
{
  (void) data;
  G_OBJECT_CLASS (klass)->set_property = set_none;
  G_OBJECT_CLASS (klass)->get_property = get_none;
  cbf_region_settings_install (G_OBJECT_CLASS (klass), 1);
}

GST_START_TEST (test_hold_properties)
{
  GObjectClass *klass = g_type_class_ref (g_type_register_static_simple
      (G_TYPE_OBJECT, "CbfTestRegions", sizeof (GObjectClass),
          test_regions_class_init, sizeof (GObject), NULL, 0));
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;
  GParamSpecUInt *hold = G_PARAM_SPEC_UINT (g_object_class_find_property
      (klass, "region-hold"));
  GParamSpecDouble *growth =
      G_PARAM_SPEC_DOUBLE (g_object_class_find_property (klass,
          "region-hold-growth"));
  CbfRegionSettings settings;
  GValue v = G_VALUE_INIT;

  fail_unless ((G_PARAM_SPEC (hold)->flags & flags) == flags);
  fail_unless ((G_PARAM_SPEC (growth)->flags & flags) == flags);
  fail_unless (hold->default_value == 0 && hold->minimum == 0
      && hold->maximum == 300);
  fail_unless (growth->default_value == 2.0 && growth->minimum == 0.0
      && growth->maximum == 100.0);
  fail_unless (G_PARAM_SPEC (hold)->param_id == 1 + CBF_REGION_PROP_HOLD);
  g_type_class_unref (klass);

  cbf_region_settings_init (&settings);
  fail_unless (settings.hold == 0 && settings.hold_growth == 2.0);
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 12);
  cbf_region_settings_set (&settings, CBF_REGION_PROP_HOLD, &v);
  g_value_set_uint (&v, 0);
  cbf_region_settings_get (&settings, CBF_REGION_PROP_HOLD, &v);
  fail_unless_equals_int (g_value_get_uint (&v), 12);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 0.5);
  cbf_region_settings_set (&settings, CBF_REGION_PROP_HOLD_GROWTH, &v);
  g_value_set_double (&v, 0);
  cbf_region_settings_get (&settings, CBF_REGION_PROP_HOLD_GROWTH, &v);
  fail_unless (g_value_get_double (&v) == 0.5 && settings.hold == 12);
  g_value_unset (&v);
  cbf_region_settings_clear (&settings);
}

GST_END_TEST;

static Suite *
regions_suite (void)
{
  Suite *s = suite_create ("regions");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_types_parsed);
  tcase_add_test (tc, test_roi_boxes);
  tcase_add_test (tc, test_roi_limit);
  tcase_add_test (tc, test_weights);
#if CBF_HAVE_ANALYTICS
  tcase_add_test (tc, test_analytics_boxes);
#endif
  tcase_add_test (tc, test_hold_missing);
  tcase_add_test (tc, test_hold_velocity);
  tcase_add_test (tc, test_hold_crossing);
  tcase_add_test (tc, test_hold_track_ids);
  tcase_add_test (tc, test_hold_reset);
  tcase_add_test (tc, test_hold_metas);
  tcase_add_test (tc, test_hold_clipping);
  tcase_add_test (tc, test_hold_limit);
  tcase_add_test (tc, test_hold_properties);
  return s;
}

GST_CHECK_MAIN (regions);
