/* Pictures as bytes, for the tests of untrusted files: PNGs and JPEGs
 * written field by field (whole, cut or lying about their size), by
 * libjpeg, and the markers of a JPEG found as a decoder walks them. */

#ifndef CBF_PICTURE_BYTES_H
#define CBF_PICTURE_BYTES_H

#include <glib.h>

/* Fields of the files the tests write, a byte at a time: they are not
 * aligned (GStreamer's GST_WRITE_* store them whole where the processor
 * allows, undefined behaviour the sanitizer build reports). */
void put_be32 (guint8 * p, guint32 v);

void put_be16 (guint8 * p, guint16 v);

void put_le32 (guint8 * p, guint32 v);

void put_le16 (guint8 * p, guint16 v);

/* @v appended to @a, big-endian. */
void append_be32 (GByteArray * a, guint32 v);

/* A PNG chunk of @type and @len bytes of @data, with its CRC. */
void append_chunk (GByteArray * png, const gchar * type, const guint8 * data,
    guint32 len);

/* An 8-bit gray PNG whose IHDR gives @width x @height (@interlaced: Adam7)
 * with @len bytes of @idat in one IDAT chunk. */
GByteArray *png_bytes (guint32 width, guint32 height, gboolean interlaced,
    const guint8 * idat, gsize len);

/* A gray PNG of @width x @height (@interlaced: Adam7) whose image data is a
 * zlib stream of @data zero bytes, less its last @cut bytes: where @data is
 * what the picture needs and @cut 0, a whole picture, every pixel 0. */
GByteArray *png_zeros_bytes (guint32 width, guint32 height, gboolean interlaced,
    guint64 data, guint cut);

/* An 8-bit gray PNG whose IHDR gives @width x @height: with @rows, the
 * image data of every row (all zero, compressed about 1,000 to 1: a
 * picture a decoder that trusts the header decodes whole), else a tiny
 * IDAT of no data. */
GByteArray *png_header_bytes (guint32 width, guint32 height, gboolean rows);

/* A JPEG of @height x @width (one component), @scans scans each followed
 * by a little entropy-coded data with a stuffed 0xff and a restart marker,
 * and EOI. */
GByteArray *jpeg_bytes (guint16 width, guint16 height, guint scans);

/* A JPEG that libjpeg writes at quality 100 of the GRAY8 @pixels (@width x
 * @height): with @components 1 a gray one, with 3 a YCbCr 4:2:0 one (of
 * the gray taken as RGB); @progressive (libjpeg's usual scans), or
 * sequential with each component in a scan of its own. */
GByteArray *libjpeg_bytes (const guint8 * pixels, gint width, gint height,
    gint components, gboolean progressive);

/* The offsets (of the 0xff) of the markers @marker in @jpeg, walking its
 * segments and scans as a decoder does up to EOI: the first in @first,
 * the last in @last; fails where there is none. */
void find_marker (GByteArray * jpeg, guint8 marker, gsize * first, gsize * last);

/* @jpeg cut at @at, with an end-of-image marker put after the cut where
 * @eoi (as jpegdec ends a cut picture). */
void cut_jpeg (GByteArray * jpeg, gsize at, gboolean eoi);

/* A gray gradient of @width x @height. */
guint8 *gradient_pixels (gint width, gint height);

#endif
