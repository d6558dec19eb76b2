/* The regions of a frame read from its metadata (gst/cbfregions.c) and
 * their weights (kernels/regions.h), against the C reference: no GPU.
 * ROI metas of several types, partly and wholly outside the frame, empty
 * and with coordinates no frame has, padding that grows and shrinks,
 * the type filter, the limit on boxes; weights with and without feather,
 * overlapping boxes, inside and outside, chroma's scale; where built with
 * GStreamer's analytics library, object detections too. */

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#if CBF_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include "cbfregions.h"
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
  return s;
}

GST_CHECK_MAIN (regions);
