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
#include "cbfmaskpicture.h"
#include "mask.h"

#include <gio/gio.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


GST_DEBUG_CATEGORY_STATIC (cbf_mask_loader_debug);
#define GST_CAT_DEFAULT cbf_mask_loader_debug

static void
init_debug_category (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (cbf_mask_loader_debug, "cbfmaskloader", 0,
        "strength mask files");
    g_once_init_leave (&done, 1);
  }
}

struct _CbfMaskLoader
{
  GMutex lock;
  guint64 requests;             /* tickets handed out */
  guint64 installed;            /* ticket of the mask in place */
  guint serial;                 /* changes whenever the mask in place does */
  guint8 *pixels;               /* GRAY8, packed; NULL: no mask */
  gint width, height;
};

CbfMaskLoader *
cbf_mask_loader_new (void)
{
  CbfMaskLoader *loader = g_new0 (CbfMaskLoader, 1);

  g_mutex_init (&loader->lock);
  init_debug_category ();
  return loader;
}

void
cbf_mask_loader_free (CbfMaskLoader * loader)
{
  if (!loader)
    return;
  g_free (loader->pixels);
  g_mutex_clear (&loader->lock);
  g_free (loader);
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

/* An element of the decoding pipeline, or NULL and @error naming it and
 * the package that has it. */
static GstElement *
make_element (const gchar * factory, const gchar * package, GError ** error)
{
  GstElement *element = gst_element_factory_make (factory, NULL);

  if (!element && error && !*error)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
        "the GStreamer element \"%s\" is missing (it is in %s)", factory,
        package);
  return element;
}

/* The last line of an error's debug text (the line before it names the
 * source file and the element), or NULL. */
static const gchar *
debug_detail (const gchar * debug)
{
  const gchar *line;

  if (!debug || !*debug)
    return NULL;
  line = strrchr (debug, '\n');
  return line ? line + 1 : debug;
}

/* The picture in the prerolled @sink, packed, or NULL and @error. It must
 * have the size its header gave (@width x @height). */
static guint8 *
take_picture (GstElement * sink, gint width, gint height, GError ** error)
{
  GstSample *sample = gst_app_sink_pull_preroll (GST_APP_SINK (sink));
  guint8 *pixels = NULL;
  GstVideoInfo info;
  GstVideoFrame frame;

  if (!sample) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the decoder gave no picture (its data may be cut short)");
  } else if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the decoded picture could not be read");
  } else {
    if (GST_VIDEO_INFO_WIDTH (&info) != width
        || GST_VIDEO_INFO_HEIGHT (&info) != height) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the decoded picture is %dx%d pixels, its header said %dx%d",
          GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info), width,
          height);
    } else {
      gint y;

      pixels = g_malloc ((gsize) width * height);
      for (y = 0; y < height; y++)
        memcpy (pixels + (gsize) y * width,
            (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
            (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), width);
    }
    gst_video_frame_unmap (&frame);
  }
  if (sample)
    gst_sample_unref (sample);
  return pixels;
}

/* Decodes the @picture (@type, of @width x @height pixels by its header) to
 * GRAY8 with the one decoder for its type: no element is chosen from the
 * data, so nothing opens another file or a URI, and every element works in
 * memory only, so stopping the pipeline never waits on the outside. */
static guint8 *
decode_picture (GBytes * picture, CbfMaskPicture type, gint width,
    gint height, GError ** error)
{
  const gchar *decoder_name = type == CBF_MASK_PICTURE_PNG ?
      "pngdec" : "jpegdec";
  const gchar *kind = type == CBF_MASK_PICTURE_PNG ? "PNG" : "JPEG";
  GstElement *pipeline, *src, *decoder, *convert, *sink;
  GstCaps *caps;
  GstBus *bus;
  GstMessage *msg;
  guint8 *pixels = NULL;

  src = make_element ("appsrc", "gst-plugins-base "
      "(Debian: gstreamer1.0-plugins-base)", error);
  decoder = make_element (decoder_name, "gst-plugins-good "
      "(Debian: gstreamer1.0-plugins-good)", error);
  convert = make_element ("videoconvert", "gst-plugins-base "
      "(Debian: gstreamer1.0-plugins-base)", error);
  sink = make_element ("appsink", "gst-plugins-base "
      "(Debian: gstreamer1.0-plugins-base)", error);
  if (!src || !decoder || !convert || !sink) {
    gst_clear_object (&src);
    gst_clear_object (&decoder);
    gst_clear_object (&convert);
    gst_clear_object (&sink);
    return NULL;
  }
  pipeline = gst_pipeline_new ("cbf-mask-decoder");
  gst_bin_add_many (GST_BIN (pipeline), src, decoder, convert, sink, NULL);

  /* A time segment makes both decoders take each buffer as one whole
   * picture: the file is one buffer, so they decode its first picture only
   * (the one whose header was read) and never search it for more. */
  caps = gst_caps_new_empty_simple (type == CBF_MASK_PICTURE_PNG ?
      "image/png" : "image/jpeg");
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  gst_caps_unref (caps);
  /* Any decoding error fails the load, where the decoders would otherwise
   * drop broken pictures with a warning. Through the base class: jpegdec's
   * own "max-errors" property is a deprecated one that does nothing. */
  gst_video_decoder_set_max_errors (GST_VIDEO_DECODER (decoder), 0);
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "GRAY8",
      NULL);
  g_object_set (sink, "caps", caps, "sync", FALSE, NULL);
  gst_caps_unref (caps);
  if (!gst_element_link_many (src, decoder, convert, sink, NULL)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the %s decoder could not be linked", decoder_name);
    gst_object_unref (pipeline);
    return NULL;
  }

  gst_app_src_push_buffer (GST_APP_SRC (src),
      gst_buffer_new_wrapped_bytes (picture));
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  /* Prerolled (the first picture is in the sink) or failed. */
  msg = gst_bus_timed_pop_filtered (bus,
      CBF_MASK_DECODE_TIMEOUT * GST_SECOND,
      GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR);
  if (!msg) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "no picture decoded within %d s", CBF_MASK_DECODE_TIMEOUT);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *decode_error = NULL;
    gchar *debug = NULL;
    const gchar *detail;

    gst_message_parse_error (msg, &decode_error, &debug);
    detail = debug_detail (debug);
    g_strchomp (decode_error->message);
    if (g_str_has_suffix (decode_error->message, "."))
      decode_error->message[strlen (decode_error->message) - 1] = '\0';
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the %s picture could not be decoded (%s%s%s)", kind,
        decode_error->message, detail ? ": " : "", detail ? detail : "");
    g_error_free (decode_error);
    g_free (debug);
  } else {
    pixels = take_picture (sink, width, height, error);
  }
  if (msg)
    gst_message_unref (msg);
  GST_DEBUG ("%s picture of %dx%d: %s", kind, width, height,
      pixels ? "decoded" : "refused");
  /* Only in-memory elements: this returns once the decoder has finished
   * the one picture it may be working on, whose size is bounded. */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return pixels;
}

guint8 *
cbf_mask_file_decode (const gchar * location, gint * width, gint * height,
    GError ** error)
{
  CbfMaskPicture type;
  GBytes *bytes, *picture;
  gsize length;
  gint w, h;
  guint8 *pixels;

  init_debug_category ();
  bytes = read_mask_file (location, error);
  if (!bytes)
    return NULL;
  if (!cbf_mask_picture_probe (g_bytes_get_data (bytes, NULL),
          g_bytes_get_size (bytes), &type, &w, &h, &length, error)) {
    g_bytes_unref (bytes);
    return NULL;
  }
  picture = g_bytes_new_from_bytes (bytes, 0, length);
  g_bytes_unref (bytes);
  /* Before the decoders, which would take a picture that is not whole. */
  pixels = cbf_mask_picture_whole (picture, type, error) ?
      decode_picture (picture, type, w, h, error) : NULL;
  g_bytes_unref (picture);
  if (pixels) {
    *width = w;
    *height = h;
  }
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

guint
cbf_mask_loader_serial (CbfMaskLoader * loader)
{
  guint serial;

  g_mutex_lock (&loader->lock);
  serial = loader->serial;
  g_mutex_unlock (&loader->lock);
  return serial;
}

void
cbf_mask_loader_peek (CbfMaskLoader * loader, CbfMaskFunc func,
    gpointer user_data)
{
  CbfMask mask;

  g_mutex_lock (&loader->lock);
  mask.serial = loader->serial;
  mask.ticket = loader->installed;
  mask.pixels = loader->pixels;
  mask.width = loader->width;
  mask.height = loader->height;
  func (&mask, user_data);
  g_mutex_unlock (&loader->lock);
}
