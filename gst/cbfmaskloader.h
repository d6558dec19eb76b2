/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The strength mask's picture on the host: read from the file a user names
 * (untrusted input: it may be anything, of any size), decoded to GRAY8, and
 * put in place for the element's streaming thread. Loads may run in several
 * threads at once (the element's start, and every change of mask-location,
 * in the thread that makes it); the mask in place is always that of the
 * latest request among those that succeeded. */

#ifndef __CBF_MASK_LOADER_H__
#define __CBF_MASK_LOADER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Largest mask file, in bytes: read into memory whole before decoding. */
#define CBF_MASK_MAX_FILE_BYTES (256 << 20)

/* Seconds a picture may take to decode. */
#define CBF_MASK_DECODE_TIMEOUT 10

/* Most scans a JPEG mask may have: the decoder goes over the whole picture
 * for each scan of a progressive JPEG, so their number bounds its time. */
#define CBF_MASK_MAX_JPEG_SCANS 64

/* The kinds of picture a mask file may hold. */
typedef enum
{
  CBF_MASK_PICTURE_PNG,
  CBF_MASK_PICTURE_JPEG,
} CbfMaskPicture;

/* Holds the mask in place and orders the loads (opaque: reached through
 * the functions below, under its own lock). */
typedef struct _CbfMaskLoader CbfMaskLoader;

/* The mask in place, as cbf_mask_loader_peek shows it. */
typedef struct
{
  guint serial;                 /* changes whenever the mask in place does */
  guint64 ticket;               /* of the request that put it in place */
  const guint8 *pixels;         /* GRAY8, packed; NULL: no mask */
  gint width, height;
} CbfMask;

typedef void (*CbfMaskFunc) (const CbfMask * mask, gpointer user_data);

/* A loader with no mask in place. */
CbfMaskLoader *cbf_mask_loader_new (void);
void cbf_mask_loader_free (CbfMaskLoader * loader);

/* A ticket for a load: requests are ordered by their tickets. Take it
 * where the request's order is decided (under the lock that orders the
 * changes of the location). */
guint64 cbf_mask_loader_request (CbfMaskLoader * loader);

/* Reads and decodes @location (NULL or empty: no mask) and puts it in
 * place unless a request with a later ticket is in place already. On
 * failure posts on @owner an element error (@at_start) or warning naming
 * the file and the reason, keeps the mask in place and returns FALSE. */
gboolean cbf_mask_loader_load (CbfMaskLoader * loader, GstElement * owner,
    const gchar * location, guint64 ticket, gboolean at_start);

/* The serial of the mask in place (CbfMask), cheap enough for every frame:
 * where it is the one last peeked at, the mask is the same. */
guint cbf_mask_loader_serial (CbfMaskLoader * loader);

/* Calls @func with the mask in place, under the loader's lock: its pixels
 * stay valid and unchanged until @func returns, and no load puts another
 * mask in place meanwhile. */
void cbf_mask_loader_peek (CbfMaskLoader * loader, CbfMaskFunc func,
    gpointer user_data);

/* What the mask file's bytes @data (@size of them) hold, from those bytes
 * alone: a PNG (by its signature) or a JPEG (by its start-of-image marker)
 * @type, its @width x @height read from its header (the PNG's IHDR chunk,
 * the JPEG's first frame header) and the @length of the bytes a decoder is
 * to be given (a PNG ends with its IEND chunk). FALSE and @error for
 * anything else, a truncated or malformed header, a picture of no pixels or
 * of more than CBF_MASK_MAX_PIXELS, a JPEG of more than
 * CBF_MASK_MAX_JPEG_SCANS scans, one cut short of its end-of-image marker
 * or one with a component that no scan holds. Decodes no pixel. */
gboolean cbf_mask_picture_probe (const guint8 * data, gsize size,
    CbfMaskPicture * type, gint * width, gint * height, gsize * length,
    GError ** error);

/* The mask file at @location decoded to packed GRAY8 (g_free it), or NULL
 * and @error. Refuses what is not a regular file, files of more than
 * CBF_MASK_MAX_FILE_BYTES, what cbf_mask_picture_probe refuses and a
 * picture whose data does not hold the whole of it (a PNG whose image data
 * falls short of its rows or is cut, a JPEG whose data ends, breaks off or
 * is corrupt before its picture is whole, as zlib or libjpeg tell), before
 * any GStreamer decoder sees the file; decodes with pngdec or jpegdec only,
 * never opens another file or a URI, and never blocks on the file. */
guint8 *cbf_mask_file_decode (const gchar * location, gint * width,
    gint * height, GError ** error);

G_END_DECLS

#endif /* __CBF_MASK_LOADER_H__ */
