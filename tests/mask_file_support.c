/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the mask file's tests (test_mask_file, test_mask_loader) share:
 * files written for a test (named by its process, in the temporary
 * directory), GRAY8 PNGs of one value, a launch line run to its end, the
 * mask a loader holds, and pictures whose data does not hold all of them
 * with what their refusal must say. */

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <string.h>
#include <unistd.h>

#include "gpu_support.h"
#include "mask_file_support.h"
#include "picture_bytes.h"

gchar *
temp_path (const gchar * name)
{
  gchar *base = g_strdup_printf ("cbf-maskfile-%d-%s", (int) getpid (), name);
  gchar *path = g_build_filename (g_get_tmp_dir (), base, NULL);

  g_free (base);
  return path;
}

/* A GRAY8 PNG of @width x @height, every pixel @value. */
gchar *
png_file (const gchar * name, gint width, gint height, guint8 value)
{
  gchar *path = temp_path (name);
  guint8 *pixels = g_malloc ((gsize) width * height);

  memset (pixels, value, (gsize) width * height);
  write_gray_png (path, pixels, width, height);
  g_free (pixels);
  return path;
}

gchar *
bytes_file (const gchar * name, const guint8 * data, gsize size)
{
  gchar *path = temp_path (name);

  fail_unless (g_file_set_contents (path, (const gchar *) data, size, NULL));
  return path;
}

/* Runs @launch (ending in a filesink) to its end. */
void
run_to_eos (const gchar * launch)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s: %s", launch, error ? error->message : "");
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s failed",
      launch);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

static void
copy_mask (const CbfMask * mask, gpointer user_data)
{
  Peeked *peeked = user_data;

  peeked->mask = *mask;
  peeked->first = mask->pixels ? mask->pixels[0] : -1;
}

Peeked
peek (CbfMaskLoader * loader)
{
  Peeked peeked;

  cbf_mask_loader_peek (loader, copy_mask, &peeked);
  return peeked;
}

/* The whole of the file at @path. */
static GByteArray *
file_bytes (const gchar * path)
{
  gchar *data;
  gsize size;

  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  return g_byte_array_new_take ((guint8 *) data, size);
}

/* A JPEG that jpegenc writes of one picture of @source (a launch line). */
static GByteArray *
jpegenc_bytes (const gchar * source)
{
  gchar *path = temp_path ("jpegenc.jpg");
  gchar *launch = g_strdup_printf ("%s ! jpegenc ! filesink location=%s",
      source, path);
  GByteArray *jpeg;

  run_to_eos (launch);
  jpeg = file_bytes (path);
  g_unlink (path);
  g_free (launch);
  g_free (path);
  return jpeg;
}

/* The camera-like JPEG the incomplete ones are made of: 64x48, 4:2:0. */
#define CAMERA_JPEG "videotestsrc num-buffers=1 pattern=smpte ! " \
    "video/x-raw,format=I420,width=64,height=48"

/* Kind @i of picture whose data does not hold all of it, written to a file
 * (NULL past the last kind), and what the refusal must say: gray PNGs of
 * 32x24 whose zlib stream ends after 12 rows (and after 12 and a half),
 * is cut in its middle, or lacks only its checksum; an Adam7 PNG of 5x3
 * (its third pass empty: 22 bytes of image data) one byte short; a JPEG
 * from jpegenc cut in the middle of its scan, the same with an
 * end-of-image marker put back, and the whole one whose frame header says
 * twice its height; a progressive JPEG without its last scan and a
 * sequential one of a scan per component without its last. The decoders
 * took all but the cut PNGs, the missing part uninitialised (pngdec) or
 * made up (jpegdec); libpng failed on those without saying why. */
gchar *
incomplete_file (guint i, const gchar ** reason)
{
  const guint64 row = 33;
  GByteArray *bytes = NULL;
  gchar *name, *path;
  gsize first = 0, last = 0;
  guint8 *pixels;

  switch (i) {
    case 0:
      bytes = png_zeros_bytes (32, 24, FALSE, 12 * row, 0);
      *reason = "the PNG's image data holds 12 of its 24 rows";
      break;
    case 1:
      bytes = png_zeros_bytes (32, 24, FALSE, 12 * row + 20, 0);
      *reason = "the PNG's image data holds 12 of its 24 rows";
      break;
    case 2:
      bytes = png_zeros_bytes (32, 24, FALSE, 24 * row, 30);
      *reason = "the PNG's image data is cut short (its zlib stream does "
          "not end) after 23 of its 24 rows";
      break;
    case 3:
      bytes = png_zeros_bytes (32, 24, FALSE, 24 * row, 4);
      *reason = "the PNG's image data is cut short (its zlib stream does "
          "not end) after 24 of its 24 rows";
      break;
    case 4:
      bytes = png_zeros_bytes (5, 3, TRUE, 21, 0);
      *reason = "the PNG's image data holds 21 of the 22 bytes its "
          "interlaced picture needs";
      break;
    case 5:
    case 6:
      bytes = jpegenc_bytes (CAMERA_JPEG);
      find_marker (bytes, 0xda, &first, &last);
      first += 2 + (bytes->data[first + 2] << 8 | bytes->data[first + 3]);
      cut_jpeg (bytes, (first + bytes->len - 2) / 2, i == 6);
      *reason = i == 5 ? "the JPEG picture is cut short: its data ends at "
          "byte" : "the JPEG's data ends after";
      break;
    case 7:
      bytes = jpegenc_bytes (CAMERA_JPEG);
      find_marker (bytes, 0xc0, &first, &last);
      fail_unless (bytes->data[first + 5] == 0 && bytes->data[first + 6] == 48);
      bytes->data[first + 6] = 96;
      *reason = "the JPEG's data ends after 48 of its 96 rows";
      break;
    case 8:
    case 9:
      pixels = gradient_pixels (64, 48);
      bytes = libjpeg_bytes (pixels, 64, 48, i == 8 ? 1 : 3, i == 8);
      g_free (pixels);
      find_marker (bytes, 0xda, &first, &last);
      cut_jpeg (bytes, last, TRUE);
      *reason = i == 8 ? "the progressive JPEG picture is incomplete: its "
          "scans leave coefficient 1 of its component 1 short of its lowest "
          "bits" : "the JPEG picture is incomplete: none of its scans holds "
          "its component 3";
      break;
    default:
      return NULL;
  }
  name = g_strdup_printf ("incomplete-%u.%s", i, i < 5 ? "png" : "jpg");
  path = bytes_file (name, bytes->data, bytes->len);
  g_free (name);
  g_byte_array_unref (bytes);
  return path;
}
