/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/*
 * regions: an application that tells cudabilateral where to filter.
 *
 * Detectors in GStreamer (facedetect, the analytics tensor decoders)
 * attach their boxes to the frames themselves; an application whose
 * detector is its own attaches them the same way, as a
 * GstVideoRegionOfInterestMeta per box, from a pad probe on the filter's
 * sink pad. This one reads a picture, attaches the boxes given with --box
 * and writes the filtered picture:
 *
 *   filesrc location=IN ! decodebin ! videoconvert ! video/x-raw,format=RGBA
 *     ! cudabilateral name=filter regions=inside PROPERTIES...
 *     ! videoconvert ! pngenc ! filesink location=OUT
 *
 * For example, the astronaut's face (where facedetect finds it) smoothed,
 * then blurred for privacy:
 *
 *   examples/regions --box 175,64,97,97 data/astronaut.png smooth.png \
 *       region-feather=24 diameter=15 sigma-color=35 sigma-space=5
 *   examples/regions --box 175,64,97,97 data/astronaut.png blur.png \
 *       region-padding=12 region-feather=16 mode=gaussian diameter=61 \
 *       sigma-space=20
 *
 * (uninstalled: meson devenv -C build examples/regions ...). PROPERTIES are
 * cudabilateral's, as gst-launch-1.0 writes them.
 *
 * Exit codes: 0 written; 1 the pipeline could not be built; 2 bad command
 * line; 3 an element posted an error (no CUDA device, say).
 */

#include <stdio.h>
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#define EXIT_BUILD 1
#define EXIT_USAGE 2
#define EXIT_ELEMENT_ERROR 3

typedef struct
{
  gint x, y, w, h;
} Box;

/* Attaches the boxes to every frame on its way into the filter. */
static GstPadProbeReturn
attach_boxes (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GArray *boxes = user_data;
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  guint i;

  (void) pad;
  for (i = 0; i < boxes->len; i++) {
    const Box *b = &g_array_index (boxes, Box, i);

    gst_buffer_add_video_region_of_interest_meta (buf, "face", b->x, b->y,
        b->w, b->h);
  }
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char *argv[])
{
  gchar **box_args = NULL, **rest = NULL;
  GOptionEntry entries[] = {
    {"box", 'b', 0, G_OPTION_ARG_STRING_ARRAY, &box_args,
        "A region, in pixels of the picture (repeat for more)", "X,Y,W,H"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL,
        "IN OUT [PROPERTY=VALUE...]"},
    {NULL}
  };
  GOptionContext *context = g_option_context_new ("IN OUT [PROPERTY=VALUE...]"
      " - cudabilateral inside the regions an application gives");
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (Box));
  GError *error = NULL;
  GstElement *pipeline, *filter;
  GstMessage *msg;
  GstBus *bus;
  GstPad *pad;
  gchar *desc;
  gint i, code = 0;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return EXIT_USAGE;
  }
  g_option_context_free (context);
  if (!rest || !rest[0] || !rest[1]) {
    g_printerr ("Usage: regions [--box X,Y,W,H]... IN OUT [PROPERTY=VALUE...]"
        "\n");
    return EXIT_USAGE;
  }
  for (i = 0; box_args && box_args[i]; i++) {
    Box b;

    if (sscanf (box_args[i], "%d,%d,%d,%d", &b.x, &b.y, &b.w, &b.h) != 4) {
      g_printerr ("--box: expected X,Y,W,H, got '%s'\n", box_args[i]);
      return EXIT_USAGE;
    }
    g_array_append_val (boxes, b);
  }

  desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! videoconvert"
      " ! video/x-raw,format=RGBA ! cudabilateral name=filter regions=inside "
      "! videoconvert ! pngenc ! filesink location=\"%s\"", rest[0], rest[1]);
  pipeline = gst_parse_launch (desc, &error);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("Cannot build the pipeline: %s\n", error->message);
    return EXIT_BUILD;
  }
  filter = gst_bin_get_by_name (GST_BIN (pipeline), "filter");
  for (i = 2; rest[i]; i++) {
    gchar **kv = g_strsplit (rest[i], "=", 2);

    if (!kv[0] || !kv[1]) {
      g_printerr ("Expected PROPERTY=VALUE, got '%s'\n", rest[i]);
      return EXIT_USAGE;
    }
    gst_util_set_object_arg (G_OBJECT (filter), kv[0], kv[1]);
    g_strfreev (kv);
  }
  pad = gst_element_get_static_pad (filter, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, attach_boxes, boxes, NULL);
  gst_object_unref (pad);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg) {
    g_printerr ("No end of stream after 60 s\n");
    code = EXIT_ELEMENT_ERROR;
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;

    gst_message_parse_error (msg, &error, &debug);
    g_printerr ("ERROR from element %s: %s\n%s\n", GST_OBJECT_NAME
        (GST_MESSAGE_SRC (msg)), error->message, debug ? debug : "");
    g_free (debug);
    code = EXIT_ELEMENT_ERROR;
  } else {
    g_print ("%s: %u region(s) filtered\n", rest[1], boxes->len);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
  g_array_free (boxes, TRUE);
  g_strfreev (box_args);
  g_strfreev (rest);
  return code;
}
