/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/*
 * embed: the cudabilateral element inside a C application.
 *
 * The application builds this pipeline element by element:
 *
 *   videotestsrc num-buffers=FRAMES
 *     ! video/x-raw,format=RGBA,width=W,height=H,framerate=FPS/1
 *     ! cudabilateral name=filter ! fakesink sync=true
 *
 * plays it to the end, and while it is PLAYING changes sigma-color and
 * sigma-space every --interval milliseconds from a GLib timeout (that is,
 * from the application's main thread, as a user interface would), reading
 * each value back to check that the element took it. A change applies from
 * the next frame the element filters. Errors that elements post on the bus
 * (no CUDA device, a --cuda-device-id that does not exist, a failing CUDA
 * call) are printed with the element's name and debug string.
 *
 * Uninstalled, from the source directory, after building into build/:
 *
 *   meson devenv -C build examples/embed --frames 300
 *   meson devenv -C build examples/embed --cuda-device-id 77   (exits 3)
 *
 * Installed plugins need no devenv: ./embed --help lists the options
 * (GStreamer's own, such as --gst-debug, included).
 *
 * Exit codes:
 *   0  every frame was filtered and every property change read back as set
 *   1  the pipeline could not be built (an element is missing: is
 *      GST_PLUGIN_PATH set for an uninstalled cudabilateral?)
 *   2  bad command line
 *   3  an element posted an error on the bus (no usable CUDA device, a
 *      nonexistent cuda-device-id, a CUDA failure, ...)
 *   4  a check failed: a property did not read back as set, or fewer
 *      frames than asked reached the sink
 *   5  the stream did not end within --timeout seconds
 */

#include <gst/gst.h>

#include <stdio.h>

enum
{
  EXIT_OK = 0,
  EXIT_BUILD = 1,
  EXIT_USAGE = 2,
  EXIT_ELEMENT_ERROR = 3,
  EXIT_CHECK = 4,
  EXIT_TIMEOUT = 5,
};

/* The settings the application cycles through while playing: light, medium
 * and strong smoothing of colour differences, each with a spatial sigma to
 * match. Any values within the properties' ranges would do. */
static const struct
{
  gdouble sigma_color, sigma_space;
} settings[] = {
  {10.0, 2.0}, {30.0, 5.0}, {60.0, 8.0}, {20.0, 3.0},
};

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline;
  GstElement *filter;
  guint frames;                 /* frames asked for */
  guint interval_ms;
  guint change_source;          /* the GLib timeout changing the sigmas */
  guint watchdog;               /* the GLib timeout giving up */
  gint filtered;                /* frames out of the filter; atomic */
  guint changes;                /* property changes made while PLAYING */
  gint exit_code;
} App;

/* Runs on the streaming thread for every buffer the filter pushes: only
 * count it, atomically, since the main thread reads the count. */
static GstPadProbeReturn
count_frame (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info G_GNUC_UNUSED,
    gpointer user_data)
{
  App *app = user_data;

  g_atomic_int_inc (&app->filtered);
  return GST_PAD_PROBE_OK;
}

static void
stop (App * app, gint exit_code)
{
  /* The first reason to stop is the one reported. */
  if (app->exit_code == EXIT_OK)
    app->exit_code = exit_code;
  g_main_loop_quit (app->loop);
}

/* The GLib timeout: the next setting, set and read back. The properties
 * can be set from any thread at any time; the element takes the new values
 * at the start of its next frame. */
static gboolean
change_sigmas (gpointer user_data)
{
  App *app = user_data;
  guint i = app->changes % G_N_ELEMENTS (settings);
  gdouble sigma_color, sigma_space;

  g_object_set (app->filter, "sigma-color", settings[i].sigma_color,
      "sigma-space", settings[i].sigma_space, NULL);

  /* GObject refuses a value outside a property's range with a warning and
   * keeps the old one, so reading back is how an application knows that a
   * value (typed in by a user, say) was taken. Values in range are stored
   * as given, so they compare equal. */
  g_object_get (app->filter, "sigma-color", &sigma_color,
      "sigma-space", &sigma_space, NULL);
  if (sigma_color != settings[i].sigma_color
      || sigma_space != settings[i].sigma_space) {
    g_printerr ("ERROR: set sigma-color %g and sigma-space %g, read back "
        "%g and %g\n", settings[i].sigma_color, settings[i].sigma_space,
        sigma_color, sigma_space);
    app->change_source = 0;
    stop (app, EXIT_CHECK);
    return G_SOURCE_REMOVE;
  }
  app->changes++;
  g_print ("after frame %d: sigma-color %g, sigma-space %g (read back)\n",
      g_atomic_int_get (&app->filtered), sigma_color, sigma_space);
  return G_SOURCE_CONTINUE;
}

static void
stop_changes (App * app)
{
  if (app->change_source) {
    g_source_remove (app->change_source);
    app->change_source = 0;
  }
}

/* An error message of any element: what happened, which element said so,
 * and the debug string, which often names the cause (here, the CUDA
 * error). */
static void
report_error (App * app, GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL;

  gst_message_parse_error (msg, &err, &debug);
  g_printerr ("ERROR from element %s: %s\n", GST_OBJECT_NAME (msg->src),
      err->message);
  g_printerr ("Debugging information: %s\n", debug ? debug : "none");
  g_clear_error (&err);
  g_free (debug);
  stop_changes (app);
  stop (app, EXIT_ELEMENT_ERROR);
}

/* The bus watch, dispatched on the main thread by the main loop. */
static gboolean
on_bus_message (GstBus * bus G_GNUC_UNUSED, GstMessage * msg,
    gpointer user_data)
{
  App *app = user_data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      report_error (app, msg);
      break;
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;
      gchar *debug = NULL;

      gst_message_parse_warning (msg, &err, &debug);
      g_printerr ("WARNING from element %s: %s (%s)\n",
          GST_OBJECT_NAME (msg->src), err->message, debug ? debug : "");
      g_clear_error (&err);
      g_free (debug);
      break;
    }
    case GST_MESSAGE_STATE_CHANGED:{
      GstState old_state, new_state;

      /* Every element posts its state changes; the pipeline's say when
       * the whole pipeline is PLAYING. Start the changes then. */
      if (GST_MESSAGE_SRC (msg) != GST_OBJECT (app->pipeline))
        break;
      gst_message_parse_state_changed (msg, &old_state, &new_state, NULL);
      if (new_state == GST_STATE_PLAYING && !app->change_source)
        app->change_source = g_timeout_add (app->interval_ms, change_sigmas,
            app);
      break;
    }
    case GST_MESSAGE_EOS:{
      guint filtered = g_atomic_int_get (&app->filtered);

      stop_changes (app);
      g_print ("%u frames filtered, %u property changes while PLAYING\n",
          filtered, app->changes);
      if (filtered != app->frames) {
        g_printerr ("ERROR: %u frames asked for, %u filtered\n", app->frames,
            filtered);
        stop (app, EXIT_CHECK);
      } else {
        stop (app, EXIT_OK);
      }
      break;
    }
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

/* A watchdog: a pipeline that neither ends nor fails must not hang a
 * script or a test. */
static gboolean
on_timeout (gpointer user_data)
{
  App *app = user_data;

  g_printerr ("ERROR: no end of stream in time (%d frames filtered)\n",
      g_atomic_int_get (&app->filtered));
  app->watchdog = 0;
  stop_changes (app);
  stop (app, EXIT_TIMEOUT);
  return G_SOURCE_REMOVE;
}

static GstElement *
make_element (const gchar * factory, const gchar * name)
{
  GstElement *element = gst_element_factory_make (factory, name);

  if (!element)
    g_printerr ("ERROR: no element '%s'%s\n", factory,
        g_str_equal (factory, "cudabilateral") ? ": for the uninstalled "
        "plugin, run through 'meson devenv -C build' or set GST_PLUGIN_PATH "
        "to build/gst" : "");
  return element;
}

/* The pipeline; NULL if an element is missing. */
static GstElement *
build_pipeline (App * app, gint width, gint height, gint fps, gint device_id)
{
  GstElement *pipeline, *src, *capsfilter, *filter, *sink;
  GstCaps *caps;
  GstPad *pad;

  src = make_element ("videotestsrc", "src");
  capsfilter = make_element ("capsfilter", "caps");
  filter = make_element ("cudabilateral", "filter");
  sink = make_element ("fakesink", "sink");
  if (!src || !capsfilter || !filter || !sink) {
    /* Elements not yet in a bin are floating: sink the reference first. */
    GstElement *made[] = { src, capsfilter, filter, sink };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (made); i++)
      if (made[i])
        gst_object_unref (gst_object_ref_sink (made[i]));
    return NULL;
  }

  g_object_set (src, "num-buffers", (gint) app->frames, NULL);
  /* RGBA in system memory: the element uploads, filters and downloads each
   * frame itself. Any format in its pad template would do. */
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "RGBA",
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, fps, 1, NULL);
  g_object_set (capsfilter, "caps", caps, NULL);
  gst_caps_unref (caps);
  /* The starting parameters. cuda-device-id is read when the element
   * starts (READY to PAUSED), so it must be set before. */
  g_object_set (filter, "diameter", 9, "sigma-color", 30.0,
      "sigma-space", 5.0, "cuda-device-id", device_id, NULL);
  /* sync=true plays the frames at their frame rate, as a display would,
   * which leaves the timeout time to change the properties mid-stream. */
  g_object_set (sink, "sync", TRUE, NULL);

  pipeline = gst_pipeline_new ("embed");
  gst_bin_add_many (GST_BIN (pipeline), src, capsfilter, filter, sink, NULL);
  if (!gst_element_link_many (src, capsfilter, filter, sink, NULL)) {
    g_printerr ("ERROR: cannot link the elements\n");
    gst_object_unref (pipeline);
    return NULL;
  }

  pad = gst_element_get_static_pad (filter, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_frame, app, NULL);
  gst_object_unref (pad);
  /* The bin holds the elements; keep a pointer only. */
  app->filter = filter;
  return pipeline;
}

int
main (int argc, char *argv[])
{
  gint frames = 300, fps = 60, interval_ms = 200, timeout_s = 60;
  gint device_id = -1, width, height;
  gchar *size = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Frames to filter (default 300)", "N"},
    {"size", 's', 0, G_OPTION_ARG_STRING, &size,
        "Frame size (default 1280x720)", "WxH"},
    {"fps", 'f', 0, G_OPTION_ARG_INT, &fps,
        "Frame rate the frames are played at (default 60)", "FPS"},
    {"interval", 'i', 0, G_OPTION_ARG_INT, &interval_ms,
        "Milliseconds between property changes (default 200)", "MS"},
    {"cuda-device-id", 'd', 0, G_OPTION_ARG_INT, &device_id,
        "CUDA device to filter on (default -1: the first)", "ID"},
    {"timeout", 't', 0, G_OPTION_ARG_INT, &timeout_s,
        "Give up after this many seconds (default 60)", "S"},
    {NULL}
  };
  GOptionContext *context;
  GError *error = NULL;
  App app = { 0 };
  GstBus *bus;

  context = g_option_context_new ("- cudabilateral in an application");
  g_option_context_add_main_entries (context, entries, NULL);
  /* GStreamer's options (--gst-debug, ...) too; this also initialises
   * GStreamer when the command line is parsed. */
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    g_clear_error (&error);
    g_option_context_free (context);
    return EXIT_USAGE;
  }
  g_option_context_free (context);
  width = 1280;
  height = 720;
  if (size && (sscanf (size, "%dx%d", &width, &height) != 2 || width <= 0
          || height <= 0)) {
    g_printerr ("--size: expected WIDTHxHEIGHT, got '%s'\n", size);
    return EXIT_USAGE;
  }
  g_free (size);
  if (frames <= 0 || fps <= 0 || interval_ms <= 0 || timeout_s <= 0
      || device_id < -1) {
    g_printerr ("--frames, --fps, --interval and --timeout must be positive, "
        "--cuda-device-id -1 or more\n");
    return EXIT_USAGE;
  }

  app.frames = frames;
  app.interval_ms = interval_ms;
  app.loop = g_main_loop_new (NULL, FALSE);
  app.pipeline = build_pipeline (&app, width, height, fps, device_id);
  if (!app.pipeline) {
    g_main_loop_unref (app.loop);
    return EXIT_BUILD;
  }
  if (device_id < 0)
    g_print ("Filtering %d frames of %dx%d RGBA at %d/s\n", frames, width,
        height, fps);
  else
    g_print ("Filtering %d frames of %dx%d RGBA at %d/s on CUDA device %d\n",
        frames, width, height, fps, device_id);

  bus = gst_element_get_bus (app.pipeline);
  gst_bus_add_watch (bus, on_bus_message, &app);
  app.watchdog = g_timeout_add_seconds (timeout_s, on_timeout, &app);

  /* The element acquires its CUDA device while the pipeline goes from
   * READY to PAUSED, inside this call: a missing device or a bad
   * cuda-device-id makes it fail, and the element's error message is then
   * already on the bus. Report that rather than a bare failure. */
  if (gst_element_set_state (app.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (msg) {
      report_error (&app, msg);
      gst_message_unref (msg);
    } else {
      g_printerr ("ERROR: the pipeline did not start, and no element said "
          "why\n");
      app.exit_code = EXIT_ELEMENT_ERROR;
    }
  } else {
    g_main_loop_run (app.loop);
  }

  /* Also after an error: NULL releases the GPU and the element's memory. */
  stop_changes (&app);
  gst_element_set_state (app.pipeline, GST_STATE_NULL);
  if (app.watchdog)
    g_source_remove (app.watchdog);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (app.pipeline);
  g_main_loop_unref (app.loop);
  return app.exit_code;
}
