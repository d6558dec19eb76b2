/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Which frames of a clip leave the face unfiltered, with and without
 * region-hold: the boxes a detector found in each frame (facedetect's
 * messages, as tools/regions/region-hold-eval.sh writes them: "frame n
 * x,y,w,h ..."), read on stdin, go through the element's own region code
 * (cbf_region_track_collect) as ROI metas, and each frame's boxes are held
 * against where the face truly is: the clip's face box moving at a known
 * speed. A frame leaves the face unfiltered when the boxes filtered cover
 * less than --cover of the true box.
 *
 *   region-hold-eval --width W --height H --face X,Y,W,H --speed VX,VY
 *       [--padding P] [--cover F] [--hold N ...] < faces.txt */

#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbfregions.h"
#include "cbfregiontrack.h"

#define MAX_FRAMES 100000
#define MAX_HOLDS 8

/* Pixels of @truth inside the union of @set's boxes, over @truth's. */
static double
covered (const CbfRegionSet * set, const CbfRegionBox * truth)
{
  gint x, y, inside = 0, i;

  for (y = truth->y0; y < truth->y1; y++)
    for (x = truth->x0; x < truth->x1; x++)
      for (i = 0; i < set->n; i++)
        if (x >= set->boxes[i].x0 && x < set->boxes[i].x1
            && y >= set->boxes[i].y0 && y < set->boxes[i].y1) {
          inside++;
          break;
        }
  return (double) inside / ((truth->x1 - truth->x0) * (truth->y1 - truth->y0));
}

int
main (int argc, char **argv)
{
  gint width = 0, height = 0, padding = 0, n_holds = 0, holds[MAX_HOLDS];
  gdouble face[4] = { 0 }, speed[2] = { 0 }, cover = 0.9;
  CbfRegionTrack tracks[MAX_HOLDS];
  CbfRegionSettings settings[MAX_HOLDS];
  guint unfiltered[MAX_HOLDS] = { 0 }, frames = 0, missed = 0, h;
  gchar line[4096];
  gint i;

  gst_init (&argc, &argv);
  for (i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--width"))
      width = atoi (argv[i + 1]);
    else if (!strcmp (argv[i], "--height"))
      height = atoi (argv[i + 1]);
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
  if (width <= 0 || height <= 0 || face[2] <= 0 || n_holds == 0) {
    fprintf (stderr, "usage: %s --width W --height H --face X,Y,W,H "
        "--speed VX,VY [--padding P] [--cover F] --hold N [--hold N ...] "
        "< faces.txt\n", argv[0]);
    return 2;
  }
  for (h = 0; h < (guint) n_holds; h++) {
    GValue v = G_VALUE_INIT;

    cbf_region_settings_init (&settings[h]);
    settings[h].mode = CBF_REGIONS_INSIDE;
    settings[h].padding = padding;
    g_value_init (&v, G_TYPE_UINT);
    g_value_set_uint (&v, holds[h]);
    cbf_region_settings_set (&settings[h], CBF_REGION_PROP_HOLD, &v);
    cbf_region_track_init (&tracks[h]);
  }

  while (fgets (line, sizeof (line), stdin) && frames < MAX_FRAMES) {
    GstBuffer *buf = gst_buffer_new ();
    gchar **fields = g_strsplit_set (g_strstrip (line), " ", -1);
    gint frame = atoi (fields[0]), n = atoi (fields[1]), k;
    CbfRegionBox truth;

    for (k = 0; k < n && fields[2 + k]; k++) {
      gint x, y, w, hh;

      if (sscanf (fields[2 + k], "%d,%d,%d,%d", &x, &y, &w, &hh) == 4)
        gst_buffer_add_video_region_of_interest_meta (buf, "face", x, y, w, hh);
    }
    truth.x0 = MAX (0, (gint) (face[0] + speed[0] * frame));
    truth.y0 = MAX (0, (gint) (face[1] + speed[1] * frame));
    truth.x1 = MIN (width, (gint) (face[0] + speed[0] * frame + face[2]));
    truth.y1 = MIN (height, (gint) (face[1] + speed[1] * frame + face[3]));
    frames++;
    missed += n == 0;
    for (h = 0; h < (guint) n_holds; h++) {
      CbfRegionSet set;

      memset (&set, 0, sizeof (set));
      if (!cbf_region_track_collect (&tracks[h], &settings[h], buf, width,
              height, &set))
        set.n = 0;
      if (truth.x1 > truth.x0 && truth.y1 > truth.y0
          && covered (&set, &truth) < cover) {
        unfiltered[h]++;
        printf ("region-hold=%d: frame %d leaves the face unfiltered "
            "(%u boxes, %.0f %% covered)\n", holds[h], frame, (guint) set.n,
            100 * covered (&set, &truth));
      }
    }
    g_strfreev (fields);
    gst_buffer_unref (buf);
  }
  printf ("%u frames, %u without a detection\n", frames, missed);
  for (h = 0; h < (guint) n_holds; h++) {
    printf ("region-hold=%d: %u frames leave the face unfiltered\n",
        holds[h], unfiltered[h]);
    cbf_region_track_clear (&tracks[h]);
    cbf_region_settings_clear (&settings[h]);
  }
  return 0;
}
