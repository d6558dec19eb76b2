/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* open (O_CLOEXEC) and S_ISSOCK under -std=c11. */
#define _XOPEN_SOURCE 700

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfmaskloader.h"
#include "mask.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (cbf_mask_loader_debug);
#define GST_CAT_DEFAULT cbf_mask_loader_debug

void
cbf_mask_loader_init (CbfMaskLoader * loader)
{
  memset (loader, 0, sizeof (*loader));
  g_mutex_init (&loader->lock);
  GST_DEBUG_CATEGORY_INIT (cbf_mask_loader_debug, "cbfmaskloader", 0,
      "strength mask files");
}

void
cbf_mask_loader_clear (CbfMaskLoader * loader)
{
  g_free (loader->pixels);
  loader->pixels = NULL;
  g_mutex_clear (&loader->lock);
}

guint64
cbf_mask_loader_request (CbfMaskLoader * loader)
{
  guint64 ticket;

  g_mutex_lock (&loader->lock);
  ticket = ++loader->requests;
  g_mutex_unlock (&loader->lock);
  return ticket;
}

/* What kind of file @st is, where it is not a regular one. */
static const gchar *
not_a_regular_file (const struct stat *st)
{
  if (S_ISDIR (st->st_mode))
    return "it is a directory";
  if (S_ISFIFO (st->st_mode))
    return "it is a FIFO (named pipe), not a regular file";
  if (S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode))
    return "it is a device node, not a regular file";
  if (S_ISSOCK (st->st_mode))
    return "it is a socket, not a regular file";
  return S_ISREG (st->st_mode) ? NULL : "it is not a regular file";
}

/* The whole file at @location, or NULL and @error. Opened without blocking
 * (a FIFO would otherwise wait for a writer) and checked on the open file
 * itself, so that it cannot be swapped between the check and the read. */
static GBytes *
read_mask_file (const gchar * location, GError ** error)
{
  struct stat st;
  const gchar *kind;
  guint8 *data = NULL;
  gsize done = 0;
  int fd = open (location, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0) {
    g_set_error (error, GST_RESOURCE_ERROR, errno == ENOENT ?
        GST_RESOURCE_ERROR_NOT_FOUND : GST_RESOURCE_ERROR_OPEN_READ,
        "%s", g_strerror (errno));
    return NULL;
  }
  if (fstat (fd, &st) != 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "%s", g_strerror (errno));
    goto failed;
  }
  kind = not_a_regular_file (&st);
  if (kind) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "%s", kind);
    goto failed;
  }
  if (st.st_size == 0 || st.st_size > CBF_MASK_MAX_FILE_BYTES) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        st.st_size == 0 ? "the file is empty" : "the file has %" G_GINT64_FORMAT
        " bytes, more than the %d a mask file may have",
        (gint64) st.st_size, CBF_MASK_MAX_FILE_BYTES);
    goto failed;
  }
  data = g_malloc (st.st_size);
  while (done < (gsize) st.st_size) {
    ssize_t n = read (fd, data + done, st.st_size - done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "%s", n < 0 ? g_strerror (errno) : "the file shrank while read");
      goto failed;
    }
    done += n;
  }
  close (fd);
  return g_bytes_new_take (data, done);

failed:
  g_free (data);
  close (fd);
  return NULL;
}

/* A picture's size. */
typedef struct
{
  gint width, height;
} Size;

static gboolean
too_large (gint width, gint height)
{
  return (gint64) width *height > CBF_MASK_MAX_PIXELS;
}

static void
set_too_large_error (GError ** error, gint width, gint height)
{
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "the picture is %dx%d pixels, more than the %" G_GINT64_FORMAT
      " (8192x8192) a mask may have", width, height,
      (gint64) CBF_MASK_MAX_PIXELS);
}

/* Refuses caps of more than CBF_MASK_MAX_PIXELS where the decoder first
 * offers them, before it allocates a picture of that size; notes the size
 * in the Size at @user_data. */
static GstPadProbeReturn
refuse_huge_caps (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  Size *refused = user_data;
  GstCaps *caps;
  GstVideoInfo vinfo;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ACCEPT_CAPS)
    return GST_PAD_PROBE_OK;
  gst_query_parse_accept_caps (query, &caps);
  if (!gst_video_info_from_caps (&vinfo, caps)
      || !too_large (GST_VIDEO_INFO_WIDTH (&vinfo),
          GST_VIDEO_INFO_HEIGHT (&vinfo)))
    return GST_PAD_PROBE_OK;
  refused->width = GST_VIDEO_INFO_WIDTH (&vinfo);
  refused->height = GST_VIDEO_INFO_HEIGHT (&vinfo);
  gst_query_set_accept_caps_result (query, FALSE);
  return GST_PAD_PROBE_HANDLED;
}

/* The picture in the prerolled @sink, packed, or NULL and @error. */
static guint8 *
take_picture (GstElement * sink, gint * width, gint * height, GError ** error)
{
  GstSample *sample = gst_app_sink_pull_preroll (GST_APP_SINK (sink));
  guint8 *pixels = NULL;
  GstVideoInfo info;
  GstVideoFrame frame;

  if (!sample || !gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the decoded picture could not be read");
  } else {
    *width = GST_VIDEO_INFO_WIDTH (&info);
    *height = GST_VIDEO_INFO_HEIGHT (&info);
    if (too_large (*width, *height)) {
      set_too_large_error (error, *width, *height);
    } else {
      gint y;

      pixels = g_malloc ((gsize) * width * *height);
      for (y = 0; y < *height; y++)
        memcpy (pixels + (gsize) y * *width,
            (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), *width);
    }
    gst_video_frame_unmap (&frame);
  }
  if (sample)
    gst_sample_unref (sample);
  return pixels;
}

guint8 *
cbf_mask_file_decode (const gchar * location, gint * width, gint * height,
    GError ** error)
{
  GstElement *pipeline, *src, *convert, *sink;
  GBytes *bytes;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  guint8 *pixels = NULL;
  Size refused = { 0, 0 };

  bytes = read_mask_file (location, error);
  if (!bytes)
    return NULL;
  pipeline = gst_parse_launch ("appsrc name=src ! decodebin ! "
      "videoconvert name=convert ! video/x-raw,format=GRAY8 ! "
      "appsink name=sink sync=false", error);
  if (!pipeline) {
    g_bytes_unref (bytes);
    return NULL;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  convert = gst_bin_get_by_name (GST_BIN (pipeline), "convert");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (convert, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      refuse_huge_caps, &refused, NULL);
  gst_object_unref (pad);
  gst_app_src_push_buffer (GST_APP_SRC (src),
      gst_buffer_new_wrapped_bytes (bytes));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  g_bytes_unref (bytes);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  /* Prerolled (the first picture is in the sink) or failed. */
  msg = gst_bus_timed_pop_filtered (bus,
      CBF_MASK_DECODE_TIMEOUT * GST_SECOND,
      GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR);
  if (refused.width) {
    set_too_large_error (error, refused.width, refused.height);
  } else if (!msg) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "no picture decoded within %d s", CBF_MASK_DECODE_TIMEOUT);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *decode_error = NULL;

    gst_message_parse_error (msg, &decode_error, NULL);
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "it is not a picture GStreamer can decode (%s)", decode_error->message);
    g_error_free (decode_error);
  } else {
    pixels = take_picture (sink, width, height, error);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (convert);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return pixels;
}

/* Puts @pixels (taken) in place for @ticket unless a later ticket is in
 * place; returns whether it did. */
static gboolean
install (CbfMaskLoader * loader, guint64 ticket, guint8 * pixels,
    gint width, gint height)
{
  guint8 *old;

  g_mutex_lock (&loader->lock);
  if (ticket < loader->installed) {
    g_mutex_unlock (&loader->lock);
    g_free (pixels);
    return FALSE;
  }
  old = loader->pixels;
  loader->pixels = pixels;
  loader->width = width;
  loader->height = height;
  loader->installed = ticket;
  loader->serial++;
  g_mutex_unlock (&loader->lock);
  g_free (old);
  return TRUE;
}

gboolean
cbf_mask_loader_load (CbfMaskLoader * loader, GstElement * owner,
    const gchar * location, guint64 ticket, gboolean at_start)
{
  guint8 *pixels = NULL;
  gint width = 0, height = 0;

  if (location && *location) {
    GError *error = NULL;

    pixels = cbf_mask_file_decode (location, &width, &height, &error);
    if (!pixels) {
      /* An error stops most applications: a failed change while running
       * only warns, and the mask in use stays. */
      if (at_start)
        GST_ELEMENT_ERROR (owner, RESOURCE, OPEN_READ,
            ("Could not read the strength mask \"%s\": %s.", location,
                error->message), ("mask-location"));
      else
        GST_ELEMENT_WARNING (owner, RESOURCE, OPEN_READ,
            ("Could not read the strength mask \"%s\": %s. The mask in use "
                "is kept.", location, error->message), ("mask-location"));
      g_error_free (error);
      return FALSE;
    }
    GST_INFO_OBJECT (owner, "strength mask %s: %dx%d", location, width, height);
  }
  if (!install (loader, ticket, pixels, width, height))
    GST_DEBUG_OBJECT (owner, "mask of request %" G_GUINT64_FORMAT
        " superseded", ticket);
  return TRUE;
}
