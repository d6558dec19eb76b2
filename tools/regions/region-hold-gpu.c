/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* region-hold end to end on a GPU: a clip decoded by GStreamer, each frame
 * given the boxes a detector found in it (facedetect's, as
 * tools/regions/region-hold-eval.sh writes them: "frame n x,y,w,h ...")
 * as ROI metas, filtered by cudabilateral regions=inside at each
 * region-hold asked for, and the output's pixels compared with the input's
 * where the face truly is (the clip's face box moving at a known speed). A
 * frame leaves the face unfiltered when fewer of the face's luma samples
 * change than --cover of those the whole frame filtered changes there.
 *
 *   region-hold-gpu --clip CLIP --faces FACES --face X,Y,W,H --speed VX,VY
 *       [--padding P] [--cover F] [--decoder DESC] --hold N [--hold N ...]
 *
 * DESC decodes H.264 into system memory (default: "nvh264dec !
 * cudadownload"; "avdec_h264" where libav is installed). */

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 10000
#define MAX_HOLDS 8
#define FILTER "cudabilateral diameter=15 sigma-color=35 sigma-space=5"

typedef struct
{
  gint x, y, w, h;
} Box;

static GstElement *
launch (const gchar * desc)
{
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);

  if (!p) {
    fprintf (stderr, "%s: %s\n", desc, error->message);
    exit (1);
  }
  return p;
}

/* Every frame of @clip as NV12 in system memory, into @frames; their caps
 * into @caps. */
static guint
decode (const gchar * clip, const gchar * decoder, GstBuffer ** frames,
    GstCaps ** caps)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h264parse ! %s ! video/x-raw,format=NV12 ! appsink name=sink "
      "sync=false", clip, decoder);
  GstElement *p = launch (desc);
  GstAppSink *sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (p), "sink"));
  GstSample *s;
  guint n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  while (n < MAX_FRAMES && (s = gst_app_sink_pull_sample (sink))) {
    if (!*caps)
      *caps = gst_caps_ref (gst_sample_get_caps (s));
    frames[n++] = gst_buffer_ref (gst_sample_get_buffer (s));
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  return n;
}

/* Luma samples of @truth (clipped to the frame) that differ between @in
 * and @out. */
static guint
changed (const GstVideoInfo * info, GstBuffer * in, GstBuffer * out,
    const Box * truth)
{
  GstVideoFrame a, b;
  gint x0 = MAX (0, truth->x), y0 = MAX (0, truth->y);
  gint x1 = MIN (GST_VIDEO_INFO_WIDTH (info), truth->x + truth->w);
  gint y1 = MIN (GST_VIDEO_INFO_HEIGHT (info), truth->y + truth->h);
  guint n = 0;
  gint x, y;

  if (!gst_video_frame_map (&a, info, in, GST_MAP_READ)
      || !gst_video_frame_map (&b, info, out, GST_MAP_READ)) {
    fprintf (stderr, "a frame does not map\n");
    exit (1);
  }
  for (y = y0; y < y1; y++) {
    const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0);
    const guint8 *q = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0);

    for (x = x0; x < x1; x++)
      n += p[x] != q[x];
  }
  gst_video_frame_unmap (&b);
  gst_video_frame_unmap (&a);
  return n;
}

/* The clip's frames through FILTER with @props, each with its boxes
 * attached; the changed samples of the true face box of each frame into
 * @counts. */
static void
run (GstBuffer ** frames, guint n, GstCaps * caps, GPtrArray * boxes,
    const gchar * props, const Box * truths, guint * counts)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! " FILTER
      " %s ! appsink name=sink sync=false", props);
  GstElement *p = launch (desc);
  GstAppSrc *src = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (p), "src"));
  GstAppSink *sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (p), "sink"));
  GstVideoInfo info;
  guint i, k;

  gst_video_info_from_caps (&info, caps);
  gst_app_src_set_caps (src, caps);
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    GstBuffer *buf = gst_buffer_copy (frames[i]);
    GArray *b = i < boxes->len ? g_ptr_array_index (boxes, i) : NULL;
    GstSample *s;

    for (k = 0; b && k < b->len; k++) {
      const Box *box = &g_array_index (b, Box, k);

      gst_buffer_add_video_region_of_interest_meta (buf, "face", box->x,
          box->y, box->w, box->h);
    }
    if (gst_app_src_push_buffer (src, buf) != GST_FLOW_OK
        || !(s = gst_app_sink_pull_sample (sink))) {
      fprintf (stderr, "%s: frame %u did not come out\n", props, i);
      exit (1);
    }
    counts[i] = changed (&info, frames[i], gst_sample_get_buffer (s),
        &truths[i]);
    gst_sample_unref (s);
  }
  gst_app_src_end_of_stream (src);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (p);
  g_free (desc);
}

/* The boxes of each frame of @file ("frame n x,y,w,h ..."), by frame. */
static GPtrArray *
read_faces (const gchar * file)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_array_unref);
  FILE *f = fopen (file, "r");
  gchar line[4096];

  if (!f) {
    perror (file);
    exit (1);
  }
  while (fgets (line, sizeof (line), f)) {
    gchar **fields = g_strsplit_set (g_strstrip (line), " ", -1);
    gint frame = atoi (fields[0]), n = fields[1] ? atoi (fields[1]) : 0, k;
    GArray *b = g_array_new (FALSE, FALSE, sizeof (Box));

    for (k = 0; k < n && fields[1] && fields[2 + k]; k++) {
      Box box;

      if (sscanf (fields[2 + k], "%d,%d,%d,%d", &box.x, &box.y, &box.w,
              &box.h) == 4)
        g_array_append_val (b, box);
    }
    while (frame >= 0 && all->len < (guint) frame)
      g_ptr_array_add (all, g_array_new (FALSE, FALSE, sizeof (Box)));
    if (frame >= 0 && all->len == (guint) frame)
      g_ptr_array_add (all, b);
    else
      g_array_unref (b);
    g_strfreev (fields);
  }
  fclose (f);
  return all;
}

int
main (int argc, char **argv)
{
  const gchar *clip = NULL, *faces = NULL, *decoder = "nvh264dec ! "
      "cudadownload";
  gint padding = 0, n_holds = 0, holds[MAX_HOLDS], i;
  gdouble face[4] = { 0 }, speed[2] = { 0 }, cover = 0.9;
  static GstBuffer *frames[MAX_FRAMES];
  static guint whole[MAX_FRAMES], counts[MAX_FRAMES];
  static Box truths[MAX_FRAMES];
  GstCaps *caps = NULL;
  GPtrArray *boxes;
  guint n, f, missed = 0;

  gst_init (&argc, &argv);
  for (i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--clip"))
      clip = argv[i + 1];
    else if (!strcmp (argv[i], "--faces"))
      faces = argv[i + 1];
    else if (!strcmp (argv[i], "--decoder"))
      decoder = argv[i + 1];
    else if (!strcmp (argv[i], "--padding"))
      padding = atoi (argv[i + 1]);
    else if (!strcmp (argv[i], "--cover"))
      cover = atof (argv[i + 1]);
    else if (!strcmp (argv[i], "--face"))
      sscanf (argv[i + 1], "%lf,%lf,%lf,%lf", &face[0], &face[1], &face[2],
          &face[3]);
    else if (!strcmp (argv[i], "--speed"))
      sscanf (argv[i + 1], "%lf,%lf", &speed[0], &speed[1]);
    else if (!strcmp (argv[i], "--hold") && n_holds < MAX_HOLDS)
      holds[n_holds++] = atoi (argv[i + 1]);
  }
  if (!clip || !faces || face[2] <= 0 || n_holds == 0) {
    fprintf (stderr, "usage: %s --clip CLIP --faces FACES --face X,Y,W,H "
        "--speed VX,VY [--padding P] [--cover F] [--decoder DESC] --hold N "
        "[--hold N ...]\n", argv[0]);
    return 2;
  }
  boxes = read_faces (faces);
  n = decode (clip, decoder, frames, &caps);
  if (n == 0) {
    fprintf (stderr, "%s: no frame decoded\n", clip);
    return 1;
  }
  for (f = 0; f < n; f++) {
    truths[f].x = (gint) (face[0] + speed[0] * f);
    truths[f].y = (gint) (face[1] + speed[1] * f);
    truths[f].w = (gint) face[2];
    truths[f].h = (gint) face[3];
    missed += f >= boxes->len
        || ((GArray *) g_ptr_array_index (boxes, f))->len == 0;
  }
  printf ("%u frames, %u without a detection\n", n, missed);
  run (frames, n, caps, boxes, "", truths, whole);
  for (i = 0; i < n_holds; i++) {
    gchar *props = g_strdup_printf ("regions=inside region-padding=%d "
        "region-hold=%d", padding, holds[i]);
    guint unfiltered = 0;

    run (frames, n, caps, boxes, props, truths, counts);
    for (f = 0; f < n; f++)
      if (counts[f] < cover * whole[f]) {
        unfiltered++;
        printf ("region-hold=%d: frame %u leaves the face unfiltered "
            "(%u of %u samples the whole frame's filter changes)\n",
            holds[i], f, counts[f], whole[f]);
      }
    printf ("region-hold=%d: %u frames leave the face unfiltered\n",
        holds[i], unfiltered);
    g_free (props);
  }
  for (f = 0; f < n; f++)
    gst_buffer_unref (frames[f]);
  gst_caps_unref (caps);
  g_ptr_array_unref (boxes);
  return 0;
}
