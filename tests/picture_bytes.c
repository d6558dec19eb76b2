/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After stdio.h, which it needs. */
#include <jpeglib.h>

#include "picture_bytes.h"

/* PNG's CRC-32 (ISO 3309) of @n bytes at @p. */
static guint32
png_crc (const guint8 * p, gsize n)
{
  static guint32 table[256];
  guint32 crc = 0xffffffff;
  gsize i;

  if (!table[1]) {
    for (i = 0; i < 256; i++) {
      guint32 c = i;
      gint k;

      for (k = 0; k < 8; k++)
        c = (c >> 1) ^ (0xedb88320 & -(c & 1));
      table[i] = c;
    }
  }
  for (i = 0; i < n; i++)
    crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffff;
}

/* Bits into bytes, the least significant first, as deflate packs them. */
typedef struct
{
  GByteArray *out;
  guint32 acc;
  guint n;
} Bits;

static void
put_bits (Bits * b, guint32 value, guint n)
{
  b->acc |= value << b->n;
  b->n += n;
  while (b->n >= 8) {
    guint8 byte = b->acc & 0xff;

    g_byte_array_append (b->out, &byte, 1);
    b->acc >>= 8;
    b->n -= 8;
  }
}

/* A stored deflate block of @len (< 65536) zero bytes, which also brings
 * the stream to a byte boundary. */
static void
put_stored (Bits * b, guint len, gboolean final)
{
  guint8 head[4] = { len & 0xff, len >> 8, ~len & 0xff, (~len >> 8) & 0xff };
  guint i;

  put_bits (b, final, 1);
  put_bits (b, 0, 2);
  if (b->n)
    put_bits (b, 0, 8 - b->n);
  g_byte_array_append (b->out, head, 4);
  for (i = 0; i < len; i++)
    g_byte_array_append (b->out, (const guint8 *) "", 1);
}

/* A dynamic-Huffman deflate block of @matches copies of 258 bytes at
 * distance 1, then an empty stored block: it begins and ends on a byte
 * boundary, so that its bytes may be repeated as they are. Its codes: end
 * of block 0 and length 258 1 (one bit each), distance 1 0; their lengths
 * coded with code-length symbols 1 (0) and 18 (1, runs of zeros). */
static void
put_zero_matches (Bits * b, guint matches)
{
  static const guint8 order[18] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4,
    12, 3, 13, 2, 14, 1
  };
  guint i;

  put_bits (b, 0, 1);
  put_bits (b, 2, 2);
  put_bits (b, 286 - 257, 5);
  put_bits (b, 1 - 1, 5);
  put_bits (b, 18 - 4, 4);
  for (i = 0; i < 18; i++)
    put_bits (b, order[i] == 1 || order[i] == 18, 3);
  put_bits (b, 1, 1);           /* 138 zeros: literals 0 to 137 */
  put_bits (b, 138 - 11, 7);
  put_bits (b, 1, 1);           /* 118 zeros: literals 138 to 255 */
  put_bits (b, 118 - 11, 7);
  put_bits (b, 0, 1);           /* end of block: 1 */
  put_bits (b, 1, 1);           /* 28 zeros: lengths 257 to 284 */
  put_bits (b, 28 - 11, 7);
  put_bits (b, 0, 1);           /* length 258: 1 */
  put_bits (b, 0, 1);           /* distance 1: 1 */
  for (i = 0; i < matches; i++) {
    put_bits (b, 1, 1);
    put_bits (b, 0, 1);
  }
  put_bits (b, 0, 1);
  put_stored (b, 0, FALSE);
}

/* Fields of the files the tests write, a byte at a time: they are not
 * aligned (GStreamer's GST_WRITE_* store them whole where the processor
 * allows, undefined behaviour the sanitizer build reports). */
void
put_be32 (guint8 * p, guint32 v)
{
  p[0] = (guint8) (v >> 24);
  p[1] = (guint8) (v >> 16);
  p[2] = (guint8) (v >> 8);
  p[3] = (guint8) v;
}

void
put_be16 (guint8 * p, guint16 v)
{
  p[0] = (guint8) (v >> 8);
  p[1] = (guint8) v;
}

void
put_le32 (guint8 * p, guint32 v)
{
  p[0] = (guint8) v;
  p[1] = (guint8) (v >> 8);
  p[2] = (guint8) (v >> 16);
  p[3] = (guint8) (v >> 24);
}

void
put_le16 (guint8 * p, guint16 v)
{
  p[0] = (guint8) v;
  p[1] = (guint8) (v >> 8);
}

/* A zlib stream of @n (> 0) zero bytes, about a thousandth of that long:
 * a stored zero, then blocks of 1,024 matches of it. */
static void
append_zeros_zlib (GByteArray * out, guint64 n)
{
  const guint per_unit = 1024;
  Bits b = { out, 0, 0 };
  Bits unit = { g_byte_array_new (), 0, 0 };
  guint64 rest = n - 1, units = rest / (258 * per_unit), i;
  guint8 adler[4];

  g_byte_array_append (out, (const guint8 *) "\x78\x01", 2);
  put_stored (&b, 1, FALSE);
  put_zero_matches (&unit, per_unit);
  for (i = 0; i < units; i++)
    g_byte_array_append (out, unit.out->data, unit.out->len);
  rest -= units * 258 * per_unit;
  if (rest >= 258)
    put_zero_matches (&b, rest / 258);
  put_stored (&b, rest % 258, FALSE);
  put_stored (&b, 0, TRUE);
  /* Adler-32 of zeros: the sum of bytes stays 1, the sum of sums is n. */
  put_be32 (adler, (guint32) (n % 65521) << 16 | 1);
  g_byte_array_append (out, adler, 4);
  g_byte_array_unref (unit.out);
}

void
append_be32 (GByteArray * a, guint32 v)
{
  guint8 be[4];

  put_be32 (be, v);
  g_byte_array_append (a, be, 4);
}

/* A PNG chunk of @type and @len bytes of @data, with its CRC. */
void
append_chunk (GByteArray * png, const gchar * type, const guint8 * data,
    guint32 len)
{
  guint start;

  append_be32 (png, len);
  start = png->len;
  g_byte_array_append (png, (const guint8 *) type, 4);
  if (len)
    g_byte_array_append (png, data, len);
  append_be32 (png, png_crc (png->data + start, png->len - start));
}

/* An 8-bit gray PNG whose IHDR gives @width x @height (@interlaced: Adam7)
 * with @len bytes of @idat in one IDAT chunk. */
GByteArray *
png_bytes (guint32 width, guint32 height, gboolean interlaced,
    const guint8 * idat, gsize len)
{
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
    0x1a, '\n'
  };
  GByteArray *png = g_byte_array_new ();
  guint8 ihdr[13] = { 0 };

  g_byte_array_append (png, signature, sizeof (signature));
  put_be32 (ihdr, width);
  put_be32 (ihdr + 4, height);
  ihdr[8] = 8;                  /* bit depth; colour type 0: gray */
  ihdr[12] = interlaced;
  append_chunk (png, "IHDR", ihdr, sizeof (ihdr));
  append_chunk (png, "IDAT", idat, len);
  append_chunk (png, "IEND", NULL, 0);
  return png;
}

/* A gray PNG of @width x @height (@interlaced: Adam7) whose image data is a
 * zlib stream of @data zero bytes, less its last @cut bytes: where @data is
 * what the picture needs and @cut 0, a whole picture, every pixel 0. */
GByteArray *
png_zeros_bytes (guint32 width, guint32 height, gboolean interlaced,
    guint64 data, guint cut)
{
  GByteArray *idat = g_byte_array_new (), *png;

  append_zeros_zlib (idat, data);
  fail_unless (cut < idat->len);
  png = png_bytes (width, height, interlaced, idat->data, idat->len - cut);
  g_byte_array_unref (idat);
  return png;
}

/* An 8-bit gray PNG whose IHDR gives @width x @height: with @rows, the
 * image data of every row (all zero, compressed about 1,000 to 1: a
 * picture a decoder that trusts the header decodes whole), else a tiny
 * IDAT of no data. */
GByteArray *
png_header_bytes (guint32 width, guint32 height, gboolean rows)
{
  static const guint8 empty[] = { 0x78, 0x01, 0x01, 0x00, 0x00, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x01
  };

  if (rows)
    return png_zeros_bytes (width, height, FALSE,
        (guint64) height * (width + 1), 0);
  return png_bytes (width, height, FALSE, empty, sizeof (empty));
}

/* A JPEG of @height x @width (one component), @scans scans each followed
 * by a little entropy-coded data with a stuffed 0xff and a restart marker,
 * and EOI. */
GByteArray *
jpeg_bytes (guint16 width, guint16 height, guint scans)
{
  static const guint8 soi_app0[] = { 0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04,
    0x4a, 0x46
  };
  static const guint8 sos[] = { 0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00,
    0x00, 0x3f, 0x00, 0x12, 0xff, 0x00, 0x34, 0xff, 0xd3, 0x56
  };
  static const guint8 eoi[] = { 0xff, 0xd9 };
  guint8 sof[13] = { 0xff, 0xc2, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01,
    0x11, 0x00
  };
  GByteArray *jpeg = g_byte_array_new ();
  guint i;

  put_be16 (sof + 5, height);
  put_be16 (sof + 7, width);
  g_byte_array_append (jpeg, soi_app0, sizeof (soi_app0));
  g_byte_array_append (jpeg, sof, sizeof (sof));
  for (i = 0; i < scans; i++)
    g_byte_array_append (jpeg, sos, sizeof (sos));
  g_byte_array_append (jpeg, eoi, sizeof (eoi));
  return jpeg;
}

/* A JPEG that libjpeg writes at quality 100 of the GRAY8 @pixels (@width x
 * @height): with @components 1 a gray one, with 3 a YCbCr 4:2:0 one (of
 * the gray taken as RGB); @progressive (libjpeg's usual scans), or
 * sequential with each component in a scan of its own. */
GByteArray *
libjpeg_bytes (const guint8 * pixels, gint width, gint height,
    gint components, gboolean progressive)
{
  struct jpeg_compress_struct cinfo;
  struct jpeg_error_mgr errors;
  jpeg_scan_info scans[3];
  unsigned char *out = NULL;
  unsigned long size = 0;
  guint8 *row = g_malloc ((gsize) width * components);
  GByteArray *jpeg = g_byte_array_new ();
  gint x, c;

  cinfo.err = jpeg_std_error (&errors);
  jpeg_create_compress (&cinfo);
  jpeg_mem_dest (&cinfo, &out, &size);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults (&cinfo);
  jpeg_set_quality (&cinfo, 100, TRUE);
  if (progressive) {
    jpeg_simple_progression (&cinfo);
  } else {
    for (c = 0; c < components; c++) {
      memset (&scans[c], 0, sizeof (scans[c]));
      scans[c].comps_in_scan = 1;
      scans[c].component_index[0] = c;
      scans[c].Se = 63;
    }
    cinfo.scan_info = scans;
    cinfo.num_scans = components;
  }
  jpeg_start_compress (&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    const guint8 *src = pixels + (gsize) cinfo.next_scanline * width;
    JSAMPROW r = row;

    for (x = 0; x < width * components; x++)
      row[x] = src[x / components];
    jpeg_write_scanlines (&cinfo, &r, 1);
  }
  jpeg_finish_compress (&cinfo);
  jpeg_destroy_compress (&cinfo);
  g_byte_array_append (jpeg, out, size);
  free (out);
  g_free (row);
  return jpeg;
}

/* The offsets (of the 0xff) of the markers @marker in @jpeg, walking its
 * segments and scans as a decoder does up to EOI: the first in @first,
 * the last in @last; fails where there is none. */
void
find_marker (GByteArray * jpeg, guint8 marker, gsize * first, gsize * last)
{
  const guint8 *d = jpeg->data;
  gsize pos = 2, n = jpeg->len;
  gboolean found = FALSE;

  while (pos + 4 <= n && d[pos] == 0xff && d[pos + 1] != 0xd9) {
    gsize at = pos;

    if (d[pos + 1] == marker) {
      if (!found)
        *first = at;
      *last = at;
      found = TRUE;
    }
    pos += 2 + (d[pos + 2] << 8 | d[pos + 3]);
    if (d[at + 1] != 0xda)
      continue;
    while (pos + 1 < n && (d[pos] != 0xff || d[pos + 1] == 0x00
            || (d[pos + 1] >= 0xd0 && d[pos + 1] <= 0xd7)))
      pos += d[pos] == 0xff ? 2 : 1;
  }
  fail_unless (found, "no marker 0x%02x", marker);
}

/* @jpeg cut at @at, with an end-of-image marker put after the cut where
 * @eoi (as jpegdec ends a cut picture). */
void
cut_jpeg (GByteArray * jpeg, gsize at, gboolean eoi)
{
  g_byte_array_set_size (jpeg, at);
  if (eoi)
    g_byte_array_append (jpeg, (const guint8 *) "\xff\xd9", 2);
}

/* A gray gradient of @width x @height. */
guint8 *
gradient_pixels (gint width, gint height)
{
  guint8 *pixels = g_malloc ((gsize) width * height);
  gint x, y;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      pixels[y * width + x] = (guint8) (x * 2 + y * 2);
  return pixels;
}
