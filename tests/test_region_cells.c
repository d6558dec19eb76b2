/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Regions from segmentation masks, no GPU: the cells of a GStreamer 1.26
 * GstAnalyticsSegmentationMtd's mask whose regions are of the types asked
 * for, by the classes of a related classification, by "background" left
 * out, or by id 0 left out where none is related, from GRAY8 and GRAY16
 * masks, over the rectangle the segmentation names
 * (cbf_regions_collect_cells); and their weights (kernels/regions.h's
 * cbf_region_cells_weight) against each selected cell taken as a box by
 * the boxes' own weight (cbf_region_weight), with padding and feather, at
 * luma's and chroma's scale, inside and outside. Built against an older
 * GStreamer, the cases say so and pass. */

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#if CBF_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include <string.h>

#include "cbfregions.h"

#define W 320
#define H 240

#define MAX_CELLS 256

/* @g's nearest selected cells, from its cells as they are now. */
static void
index_cells (CbfRegionCells * g)
{
  static gint32 left[MAX_CELLS], right[MAX_CELLS];
  gint j;

  fail_unless (g->cols * g->rows <= MAX_CELLS);
  for (j = 0; j < g->rows; j++)
    cbf_region_cells_nearest (g->cells + j * g->cols, g->cols,
        left + j * g->cols, right + j * g->cols);
  g->left = left;
  g->right = right;
}

/* The weights of every pixel of a @fx x @fy plane of the frame, by
 * cbf_region_cells_weight and by the selected cells as boxes grown by
 * @padding, must agree. */
static void
assert_weights_as_boxes (CbfRegionCells * g, gint padding,
    gfloat feather, gint outside, gint fx, gint fy)
{
  CbfRegionBox boxes[MAX_CELLS];
  gint i, j, n = 0, x, y;

  index_cells (g);

  for (j = 0; j < g->rows; j++)
    for (i = 0; i < g->cols; i++)
      if (g->cells[j * g->cols + i]) {
        boxes[n].x0 = cbf_region_cell_edge (g->x, g->w, g->cols, i) - padding;
        boxes[n].x1 = cbf_region_cell_edge (g->x, g->w, g->cols, i + 1)
            + padding;
        boxes[n].y0 = cbf_region_cell_edge (g->y, g->h, g->rows, j) - padding;
        boxes[n].y1 = cbf_region_cell_edge (g->y, g->h, g->rows, j + 1)
            + padding;
        n++;
      }
  for (y = 0; y < H / fy; y++)
    for (x = 0; x < W / fx; x++) {
      gint a = cbf_region_cells_weight (g, padding, feather, outside, fx, fy,
          x, y);
      gint b = cbf_region_weight (boxes, n, feather, outside, fx, fy, x, y);

      fail_unless (a == b, "(%d, %d) at %d x %d, padding %d, feather %g: "
          "%d, as boxes %d", x, y, fx, fy, padding, feather, a, b);
    }
}

GST_START_TEST (test_cell_edges)
{
  static const gint edges[] = { 100, 111, 122, 133, 145 };
  guint8 cells[12] = { 0 }, many[16 * 12];
  CbfRegionCells g = { cells, NULL, NULL, 4, 3, 100, 40, 45, 31 };
  gint i;

  for (i = 0; i <= 4; i++)
    fail_unless_equals_int (cbf_region_cell_edge (100, 45, 4, i), edges[i]);
  fail_unless_equals_int (cbf_region_cell_after (100, 45, 4, 110.5f, 0), 0);
  fail_unless_equals_int (cbf_region_cell_after (100, 45, 4, 111.f, 0), 1);
  fail_unless_equals_int (cbf_region_cell_after (100, 45, 4, 111.f, 1), 0);
  fail_unless_equals_int (cbf_region_cell_after (100, 45, 4, 20.f, 1), 0);
  fail_unless_equals_int (cbf_region_cell_after (100, 45, 4, 500.f, 0), 3);

  /* One cell, (1, 1): columns 111-121, rows 50-59. */
  cells[5] = 1;
  index_cells (&g);
  fail_unless_equals_int (cbf_region_cells_weight (&g, 0, 0.f, 0, 1, 1, 111,
          50), 255);
  fail_unless_equals_int (cbf_region_cells_weight (&g, 0, 0.f, 0, 1, 1, 110,
          50), 0);
  fail_unless_equals_int (cbf_region_cells_weight (&g, 0, 0.f, 1, 1, 1, 110,
          50), 255);
  /* Pixel 125's centre, 125.5, is 3.5 pixels right of its edge at 122:
   * at feather 7, half. */
  fail_unless_equals_int (cbf_region_cells_weight (&g, 0, 7.f, 0, 1, 1, 125,
          55), 128);
  /* Padding 3 takes it in. */
  fail_unless_equals_int (cbf_region_cells_weight (&g, 3, 0.f, 0, 1, 1, 124,
          55), 255);
  for (i = 0; i < 12; i++)
    cells[i] = (i * 7) % 3 == 0;
  assert_weights_as_boxes (&g, 0, 0.f, 0, 1, 1);
  assert_weights_as_boxes (&g, 3, 8.f, 0, 1, 1);
  assert_weights_as_boxes (&g, 2, 12.5f, 1, 2, 2);
  assert_weights_as_boxes (&g, 0, 5.f, 0, 2, 1);
  /* A grid reaching past the frame's edges. */
  g.x = -20;
  g.y = 200;
  g.w = 400;
  g.h = 90;
  assert_weights_as_boxes (&g, 1, 20.f, 0, 1, 1);
  /* More cells than pixels across (empty cells, each a box of its
   * padding), rows with none and rows with one, and a grid of many. */
  g.cells = many;
  g.cols = 16;
  g.rows = 12;
  for (i = 0; i < 16 * 12; i++)
    many[i] = i / 16 == 3 ? 0 : i / 16 == 5 ? i == 5 * 16 + 9 :
        (i * 13 + i / 16) % 5 < 2;
  g.x = 30;
  g.y = 20;
  g.w = 10;
  g.h = 200;
  assert_weights_as_boxes (&g, 2, 6.f, 0, 1, 1);
  assert_weights_as_boxes (&g, 0, 0.f, 1, 2, 2);
  g.w = 290;
  assert_weights_as_boxes (&g, 0, 9.f, 0, 1, 1);
  assert_weights_as_boxes (&g, 4, 30.f, 1, 2, 1);
}

GST_END_TEST;

#if CBF_HAVE_ANALYTICS && GST_CHECK_VERSION (1, 26, 0)
/* Cell (i, j) of a 4 x 3 grid and its region id, in the masks below. */
static const guint ids[3][4] = {
  {0, 12, 12, 31},
  {0, 12, 31, 31},
  {7, 0, 0, 300},
};

/* A 4 x 3 mask of ids[] (GRAY8 without the 300, or GRAY16_LE / _BE) in
 * a frame's relation meta, over (@x, @y, @w, @h); classified by @classes
 * (NULL: no classification related) for region ids 0, 12, 31, 7, 300. */
static GstBuffer *
segmented_frame (GstVideoFormat format, gint x, gint y, guint w, guint h,
    const gchar * const *classes)
{
  static guint region_ids[] = { 0, 12, 31, 7, 300 };
  const guint bytes = format == GST_VIDEO_FORMAT_GRAY8 ? 1 : 2;
  const guint n = format == GST_VIDEO_FORMAT_GRAY8 ? 4 : 5;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 3 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 16 };
  GstBuffer *frame = gst_buffer_new (), *mask;
  GstAnalyticsRelationMeta *rmeta =
      gst_buffer_add_analytics_relation_meta (frame);
  GstAnalyticsSegmentationMtd seg;
  GstMapInfo map;
  guint i, j;

  /* Padded rows at an offset, as a producer may lay them out. */
  mask = gst_buffer_new_allocate (NULL, 3 + 16 * 3, NULL);
  gst_buffer_memset (mask, 0, 0xee, 3 + 16 * 3);
  gst_buffer_map (mask, &map, GST_MAP_WRITE);
  for (j = 0; j < 3; j++)
    for (i = 0; i < 4; i++) {
      guint8 *p = map.data + 3 + 16 * j + bytes * i;
      guint id = ids[j][i] == 300 && bytes == 1 ? 0 : ids[j][i];

      if (format == GST_VIDEO_FORMAT_GRAY8)
        p[0] = id;
      else if (format == GST_VIDEO_FORMAT_GRAY16_LE)
        GST_WRITE_UINT16_LE (p, id);
      else
        GST_WRITE_UINT16_BE (p, id);
    }
  gst_buffer_unmap (mask, &map);
  gst_buffer_add_video_meta_full (mask, GST_VIDEO_FRAME_FLAG_NONE, format, 4,
      3, 1, offset, stride);
  fail_unless (gst_analytics_relation_meta_add_segmentation_mtd (rmeta, mask,
          GST_SEGMENTATION_TYPE_SEMANTIC, n, region_ids, x, y, w, h, &seg));
  if (classes) {
    GQuark quarks[5];
    gfloat levels[5] = { -1, -1, -1, -1, -1 };
    GstAnalyticsClsMtd cls;

    for (i = 0; i < n; i++)
      quarks[i] = g_quark_from_string (classes[i]);
    fail_unless (gst_analytics_relation_meta_add_cls_mtd (rmeta, n, levels,
            quarks, &cls));
    fail_unless (gst_analytics_relation_meta_set_relation (rmeta,
            GST_ANALYTICS_REL_TYPE_RELATE_TO, seg.id, cls.id));
  }
  return frame;
}

/* Fails unless @out's cells are those whose id @wanted holds (0-ended). */
static void
assert_cells (const CbfRegionCellBuffer * out, const guint * wanted)
{
  guint i, j, k;

  fail_unless_equals_int (out->cells.cols, 4);
  fail_unless_equals_int (out->cells.rows, 3);
  for (j = 0; j < 3; j++)
    for (i = 0; i < 4; i++) {
      gboolean in = FALSE;

      for (k = 0; wanted[k]; k++)
        in |= ids[j][i] == wanted[k];
      fail_unless_equals_int (!!out->cells.cells[j * 4 + i], in);
    }
}

static void
cell_buffer_init (CbfRegionCellBuffer * out)
{
  memset (out, 0, sizeof (*out));
}

static gchar **
types_of (const gchar * list)
{
  return cbf_regions_parse_types (list);
}

GST_START_TEST (test_cells_by_class)
{
  static const gchar *classes[] = { "background", "person", "car", "person",
    "dog"
  };
  static const guint person[] = { 12, 7, 0 }, car[] = { 31, 0 };
  static const guint not_background[] = { 12, 31, 7, 0 };
  static const guint all16[] = { 12, 31, 7, 300, 0 };
  CbfRegionCellBuffer out;
  GstBuffer *frame =
      segmented_frame (GST_VIDEO_FORMAT_GRAY8, 100, 40, 40, 30, classes);
  gchar **types;

  cell_buffer_init (&out);
  types = types_of ("person");
  fail_unless (cbf_regions_collect_cells (frame, W, H, (const gchar * const *)
          types, &out));
  assert_cells (&out, person);
  fail_unless (out.cells.x == 100 && out.cells.y == 40 && out.cells.w == 40
      && out.cells.h == 30);
  g_strfreev (types);
  types = types_of ("plate, car");
  fail_unless (cbf_regions_collect_cells (frame, W, H, (const gchar * const *)
          types, &out));
  assert_cells (&out, car);
  g_strfreev (types);
  types = types_of ("plate");
  fail_if (cbf_regions_collect_cells (frame, W, H, (const gchar * const *)
          types, &out));
  g_strfreev (types);
  fail_unless (cbf_regions_collect_cells (frame, W, H, NULL, &out));
  assert_cells (&out, not_background);
  /* A rectangle that misses the frame. */
  gst_buffer_unref (frame);
  frame = segmented_frame (GST_VIDEO_FORMAT_GRAY8, W, 0, 40, 30, classes);
  fail_if (cbf_regions_collect_cells (frame, W, H, NULL, &out));
  gst_buffer_unref (frame);

  /* 16-bit ids, both byte orders; "dog" is id 300's class. */
  frame = segmented_frame (GST_VIDEO_FORMAT_GRAY16_LE, -10, 200, 400, 60,
      classes);
  fail_unless (cbf_regions_collect_cells (frame, W, H, NULL, &out));
  assert_cells (&out, all16);
  fail_unless (out.cells.x == -10 && out.cells.w == 400);
  gst_buffer_unref (frame);
  frame = segmented_frame (GST_VIDEO_FORMAT_GRAY16_BE, 0, 0, W, H, classes);
  types = types_of ("dog");
  fail_unless (cbf_regions_collect_cells (frame, W, H, (const gchar * const *)
          types, &out));
  {
    static const guint dog[] = { 300, 0 };
    assert_cells (&out, dog);
  }
  g_strfreev (types);
  gst_buffer_unref (frame);
  cbf_region_cell_buffer_clear (&out);
}

GST_END_TEST;

GST_START_TEST (test_cells_unclassified)
{
  static const guint not_zero[] = { 12, 31, 7, 0 };
  CbfRegionCellBuffer out;
  GstBuffer *frame = segmented_frame (GST_VIDEO_FORMAT_GRAY8, 0, 0, W, H, NULL);
  gchar **types = types_of ("person");

  cell_buffer_init (&out);
  /* No classes: every region but id 0, and no type can be matched. */
  fail_unless (cbf_regions_collect_cells (frame, W, H, NULL, &out));
  assert_cells (&out, not_zero);
  fail_if (cbf_regions_collect_cells (frame, W, H, (const gchar * const *)
          types, &out));
  g_strfreev (types);
  gst_buffer_unref (frame);

  /* A mask whose video meta reaches past its memory: refused, nothing
   * read past the end (valgrind would see it). */
  {
    static guint region_ids[] = { 0, 12 };
    gsize offset[GST_VIDEO_MAX_PLANES] = { 3 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 16 };
    GstBuffer *mask = gst_buffer_new_allocate (NULL, 16, NULL);
    GstAnalyticsSegmentationMtd seg;

    frame = gst_buffer_new ();
    gst_buffer_memset (mask, 0, 12, 16);
    gst_buffer_add_video_meta_full (mask, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_GRAY8, 4, 3, 1, offset, stride);
    fail_unless (gst_analytics_relation_meta_add_segmentation_mtd
        (gst_buffer_add_analytics_relation_meta (frame), mask,
            GST_SEGMENTATION_TYPE_SEMANTIC, 2, region_ids, 0, 0, W, H, &seg));
    fail_if (cbf_regions_collect_cells (frame, W, H, NULL, &out));
    gst_buffer_unref (frame);
  }

  /* No segmentation at all. */
  frame = gst_buffer_new ();
  fail_if (cbf_regions_collect_cells (frame, W, H, NULL, &out));
  gst_buffer_unref (frame);
  cbf_region_cell_buffer_clear (&out);
}

GST_END_TEST;
#else
GST_START_TEST (test_cells_by_class)
{
  GstBuffer *frame = gst_buffer_new ();
  CbfRegionCellBuffer out;

  memset (&out, 0, sizeof (out));
  /* No segmentation metadata before 1.26: never any cells. */
  fail_if (cbf_regions_collect_cells (frame, W, H, NULL, &out));
  gst_buffer_unref (frame);
  g_print ("test_cells_by_class: built without GStreamer 1.26's analytics "
      "segmentation: no masks to read\n");
}

GST_END_TEST;
#endif

static Suite *
region_cells_suite (void)
{
  Suite *s = suite_create ("cudabilateral-region-cells");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cell_edges);
  tcase_add_test (tc, test_cells_by_class);
#if CBF_HAVE_ANALYTICS && GST_CHECK_VERSION (1, 26, 0)
  tcase_add_test (tc, test_cells_unclassified);
#endif
  return s;
}

GST_CHECK_MAIN (region_cells);
