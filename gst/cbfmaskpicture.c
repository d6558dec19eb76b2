/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The mask file's picture read from its bytes before any decoder runs:
 * its type and size from its header (cbf_mask_picture_probe), and whether
 * its data holds the whole of it, asked of zlib and libjpeg. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfmaskloader.h"
#include "cbfmaskpicture.h"
#include "mask.h"

#include <gio/gio.h>
#include <gst/gst.h>

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/* After stdio.h, which jpeglib.h needs. */
#include <jpeglib.h>
#include <jerror.h>

static const guint8 png_signature[8] =
    { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

/* Start of image, then the first marker's 0xff. */
static const guint8 jpeg_start[3] = { 0xff, 0xd8, 0xff };

static void
set_size_error (GError ** error, guint32 width, guint32 height)
{
  if (width == 0 || height == 0)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the picture's header gives it %ux%u pixels: it has none",
        width, height);
  else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the picture is %ux%u pixels, more than the %" G_GINT64_FORMAT
        " (8192x8192) a mask may have", width, height,
        (gint64) CBF_MASK_MAX_PIXELS);
}

static gboolean
size_allowed (guint32 width, guint32 height)
{
  return width > 0 && height > 0
      && width * (guint64) height <= (guint64) CBF_MASK_MAX_PIXELS;
}

static void
set_malformed_error (GError ** error, const gchar * kind,
    const gchar * detail, gsize offset)
{
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "it is a truncated or malformed %s picture (%s at byte %"
      G_GSIZE_FORMAT ")", kind, detail, offset);
}

/* Big-endian fields of a picture's header, read a byte at a time: the file
 * is read into memory as it comes, and its fields are not aligned
 * (GStreamer's GST_READ_UINT32_BE loads them whole where the processor
 * allows, which is undefined behaviour in C). */
static guint32
read_be32 (const guint8 * p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 |
      p[3];
}

static guint16
read_be16 (const guint8 * p)
{
  return (guint16) (p[0] << 8 | p[1]);
}

/* The PNG in @data: its size from the IHDR chunk, which must follow the
 * signature (the decoder takes its size from there too), and its length up
 * to the end of its IEND chunk, so that the decoder is never handed a second
 * picture. */
static gboolean
probe_png (const guint8 * data, gsize size, guint32 * width,
    guint32 * height, gsize * length, GError ** error)
{
  gsize pos = sizeof (png_signature);

  if (size < pos + 8 + 13 + 4 || read_be32 (data + pos) != 13
      || memcmp (data + pos + 4, "IHDR", 4) != 0) {
    set_malformed_error (error, "PNG", "no IHDR chunk after the signature",
        pos);
    return FALSE;
  }
  *width = read_be32 (data + pos + 8);
  *height = read_be32 (data + pos + 12);
  if (!size_allowed (*width, *height)) {
    set_size_error (error, *width, *height);
    return FALSE;
  }
  /* Chunks: length, type, data, CRC; the length is at most 2^31 - 1. */
  while (size - pos >= 12) {
    guint32 chunk = read_be32 (data + pos);
    gboolean end = memcmp (data + pos + 4, "IEND", 4) == 0;

    if (chunk > G_MAXINT32 || chunk > size - pos - 12) {
      set_malformed_error (error, "PNG", "a chunk runs past the end of the "
          "file", pos);
      return FALSE;
    }
    pos += 12 + chunk;
    if (end) {
      *length = pos;
      return TRUE;
    }
  }
  set_malformed_error (error, "PNG", "no IEND chunk", size);
  return FALSE;
}

/* Whether JPEG marker @m begins a frame header (SOF0 to SOF15, less DHT,
 * JPG and DAC, which share the range). */
static gboolean
is_sof (guint8 m)
{
  return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
}

/* Marks the component identifiers listed in a frame or scan header, @n of
 * them every @stride bytes from @p, in the bit set @ids. */
static void
mark_components (guint8 * ids, const guint8 * p, guint n, guint stride)
{
  guint i;

  for (i = 0; i < n; i++)
    ids[p[i * stride] / 8] |= (guint8) (1 << (p[i * stride] % 8));
}

/* The JPEG in @data: its size from the first frame header (SOFn), found by
 * walking the marker segments from the start of the image as the decoder
 * does (strictly: where the decoder would skip stray bytes, this refuses),
 * and its scans counted up to EOI, which must come: the decoder would end
 * a cut picture itself and make up what is missing. At least one scan must
 * follow the frame header, and every component of the frame must be in a
 * scan (the decoder leaves a component no scan codes flat). */
static gboolean
probe_jpeg (const guint8 * data, gsize size, guint32 * width,
    guint32 * height, GError ** error)
{
  gsize pos = 2;
  gboolean have_frame = FALSE;
  guint scans = 0, i;
  guint8 framed[32] = { 0 }, scanned[32] = { 0 };

  for (;;) {
    guint8 marker;
    guint segment;

    if (pos >= size && scans > 0) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the JPEG picture is cut short: its data ends at byte %"
          G_GSIZE_FORMAT ", in its scans, before its end-of-image marker",
          size);
      return FALSE;
    }
    if (pos >= size || data[pos] != 0xff) {
      set_malformed_error (error, "JPEG", pos >= size ? "it ends before "
          "its first scan" : "no marker where one must be", pos);
      return FALSE;
    }
    while (pos < size && data[pos] == 0xff)
      pos++;                    /* fill bytes */
    if (pos >= size)
      continue;
    marker = data[pos++];
    if (marker == 0xd9) {       /* EOI */
      if (scans > 0)
        break;
      set_malformed_error (error, "JPEG", "the picture ends before its "
          "first scan", pos - 2);
      return FALSE;
    }
    if (marker == 0x00 || marker == 0xd8) {
      set_malformed_error (error, "JPEG", "a marker out of place", pos - 2);
      return FALSE;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker == 0x01)
      continue;                 /* RSTn and TEM: no segment */
    if (size - pos < 2 || (segment = read_be16 (data + pos)) < 2
        || segment > size - pos) {
      set_malformed_error (error, "JPEG", "a segment runs past the end of "
          "the file", pos - 2);
      return FALSE;
    }
    if (is_sof (marker)) {
      if (have_frame || segment < 8) {
        set_malformed_error (error, "JPEG", have_frame ? "a second frame "
            "header" : "a frame header too short", pos - 2);
        return FALSE;
      }
      *height = read_be16 (data + pos + 3);
      *width = read_be16 (data + pos + 5);
      if (!size_allowed (*width, *height)) {
        set_size_error (error, *width, *height);
        return FALSE;
      }
      /* Those of the components the segment holds (the decoder refuses
       * a header whose length does not fit them). */
      mark_components (framed, data + pos + 8, MIN (data[pos + 7],
              (segment - 8) / 3), 3);
      have_frame = TRUE;
    }
    pos += segment;
    if (marker != 0xda)         /* SOS: entropy-coded data follows */
      continue;
    if (!have_frame) {
      set_malformed_error (error, "JPEG", "a scan before the frame header",
          pos - segment - 2);
      return FALSE;
    }
    if (segment >= 3)
      mark_components (scanned, data + pos - segment + 3,
          MIN (data[pos - segment + 2], (segment - 3) / 2), 2);
    if (++scans > CBF_MASK_MAX_JPEG_SCANS) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the JPEG picture has more than the %d scans a mask may have",
          CBF_MASK_MAX_JPEG_SCANS);
      return FALSE;
    }
    /* Entropy-coded data ends at the first marker other than a stuffed
     * 0xff (0xff 0x00) or a restart marker. */
    for (;;) {
      const guint8 *ff = memchr (data + pos, 0xff, size - pos);

      if (!ff || ff + 1 == data + size) {
        pos = size;
        break;
      }
      pos = ff - data;
      if (data[pos + 1] != 0x00 && (data[pos + 1] < 0xd0
              || data[pos + 1] > 0xd7))
        break;
      pos += 2;
    }
  }
  for (i = 0; i < 256; i++) {
    if (framed[i / 8] & ~scanned[i / 8] & (1 << (i % 8))) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the JPEG picture is incomplete: none of its scans holds its "
          "component %u", i);
      return FALSE;
    }
  }
  return TRUE;                  /* a scan comes after the frame header */
}

gboolean
cbf_mask_picture_probe (const guint8 * data, gsize size,
    CbfMaskPicture * type, gint * width, gint * height, gsize * length,
    GError ** error)
{
  guint32 w = 0, h = 0;

  if (size >= sizeof (png_signature)
      && memcmp (data, png_signature, sizeof (png_signature)) == 0) {
    if (!probe_png (data, size, &w, &h, length, error))
      return FALSE;
    *type = CBF_MASK_PICTURE_PNG;
  } else if (size >= sizeof (jpeg_start)
      && memcmp (data, jpeg_start, sizeof (jpeg_start)) == 0) {
    if (!probe_jpeg (data, size, &w, &h, error))
      return FALSE;
    *type = CBF_MASK_PICTURE_JPEG;
    *length = size;
  } else {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "it is not a PNG or JPEG picture");
    return FALSE;
  }
  *width = (gint) w;
  *height = (gint) h;
  return TRUE;
}

/* Bits of a PNG pixel of colour type @colour and bit depth @depth, or 0
 * where PNG has no such pixel. */
static guint
png_pixel_bits (guint8 color, guint8 depth)
{
  switch (color) {
    case 0:                    /* gray */
      return depth == 1 || depth == 2 || depth == 4 || depth == 8
          || depth == 16 ? depth : 0;
    case 3:                    /* palette */
      return depth == 1 || depth == 2 || depth == 4 || depth == 8 ? depth : 0;
    case 2:                    /* RGB */
    case 4:                    /* gray and alpha */
    case 6:                    /* RGB and alpha */
      return depth == 8 || depth == 16 ?
          depth * (color == 2 ? 3 : color == 4 ? 2 : 4) : 0;
    default:
      return 0;
  }
}

/* Bytes of image data that @rows rows of @width pixels of @bits take, each
 * row led by its filter type byte; none for an empty Adam7 pass. */
static guint64
png_rows_bytes (guint64 width, guint64 rows, guint bits)
{
  if (width == 0 || rows == 0)
    return 0;
  return rows * (1 + (width * bits + 7) / 8);
}

/* The Adam7 passes: first column and row, column and row steps. */
static const guint8 adam7[7][4] = {
  {0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4},
  {1, 0, 2, 2}, {0, 1, 1, 2}
};

/* Output buffer of the PNG check's inflater: the image data is counted,
 * never kept. */
#define PNG_INFLATE_BUFFER (64 << 10)

/* Whether the PNG @data (@length bytes, its chunks checked by probe_png)
 * holds its whole picture: the zlib stream of its IDAT chunks must inflate
 * to every row the header's size, bit depth, colour type and interlacing
 * make, and end unless it holds more. libpng itself only warns where the
 * stream ends too soon, and pngdec then gives the rows it never wrote;
 * where the stream stops unfinished libpng fails (pngdec then leaks its
 * frame). FALSE and @error, saying what is missing, otherwise. */
static gboolean
png_picture_whole (const guint8 * data, gsize length, GError ** error)
{
  const guint8 *ihdr = data + sizeof (png_signature) + 8;
  guint32 width = read_be32 (ihdr), height = read_be32 (ihdr + 4);
  guint bits = png_pixel_bits (ihdr[9], ihdr[8]);
  gboolean interlaced = ihdr[12] == 1, seen = FALSE, ended = FALSE;
  guint64 want = 0, got = 0;
  gsize pos = sizeof (png_signature);
  GConverter *inflater;
  GError *zlib_error = NULL;
  guint8 *out;
  gchar *held;
  guint i;

  if (!bits || ihdr[10] != 0 || ihdr[11] != 0 || ihdr[12] > 1) {
    set_malformed_error (error, "PNG", "a bit depth, colour type or method "
        "PNG does not have in the IHDR chunk", pos);
    return FALSE;
  }
  if (interlaced) {
    for (i = 0; i < G_N_ELEMENTS (adam7); i++)
      want += png_rows_bytes (width > adam7[i][0] ? (width - adam7[i][0] +
              adam7[i][2] - 1) / adam7[i][2] : 0, height > adam7[i][1] ?
          (height - adam7[i][1] + adam7[i][3] - 1) / adam7[i][3] : 0, bits);
  } else {
    want = png_rows_bytes (width, height, bits);
  }

  inflater = G_CONVERTER (g_zlib_decompressor_new
      (G_ZLIB_COMPRESSOR_FORMAT_ZLIB));
  out = g_malloc (PNG_INFLATE_BUFFER);
  /* The image data is the first run of IDAT chunks: the decoder reads no
   * further. One byte more than the picture needs is enough to tell the
   * stream goes on; what is beyond, the decoder drops too. */
  while (pos < length && !ended && !zlib_error && got <= want) {
    guint32 chunk = read_be32 (data + pos);
    const guint8 *in = data + pos + 8;
    gsize left = chunk;

    if (memcmp (data + pos + 4, "IDAT", 4) != 0) {
      if (seen)
        break;
      pos += 12 + chunk;
      continue;
    }
    seen = TRUE;
    pos += 12 + chunk;
    while (!ended && got <= want) {
      gsize read = 0, written = 0;
      GConverterResult result = g_converter_convert (inflater, in, left, out,
          MIN (PNG_INFLATE_BUFFER, want + 1 - got), G_CONVERTER_NO_FLAGS,
          &read, &written, &zlib_error);

      if (result == G_CONVERTER_ERROR) {
        /* Input to come from the next IDAT chunk, if there is one. */
        if (g_error_matches (zlib_error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
          g_clear_error (&zlib_error);
        break;
      }
      in += read;
      left -= read;
      got += written;
      ended = result == G_CONVERTER_FINISHED;
    }
  }
  g_free (out);
  g_object_unref (inflater);

  /* Whole, where the stream ends or goes on; libpng only warns of data
   * that cannot be inflated once it has every row. */
  if (got > want || (got == want && (ended || zlib_error))) {
    g_clear_error (&zlib_error);
    return TRUE;
  }
  if (!seen) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the PNG picture has no image data (no IDAT chunk)");
    return FALSE;
  }
  held = interlaced ? g_strdup_printf ("%" G_GUINT64_FORMAT " of the %"
      G_GUINT64_FORMAT " bytes its interlaced picture needs", got, want) :
      g_strdup_printf ("%" G_GUINT64_FORMAT " of its %u rows",
      got / png_rows_bytes (width, 1, bits), height);
  if (zlib_error)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the PNG's image data is corrupt (%s) after %s", zlib_error->message,
        held);
  else if (ended)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the PNG's image data holds %s", held);
  else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the PNG's image data is cut short (its zlib stream does not end) "
        "after %s", held);
  g_clear_error (&zlib_error);
  g_free (held);
  return FALSE;
}

/* libjpeg's error manager for the JPEG check: an error, or a warning that
 * means pixels are missing or wrong, ends the check (longjmp) with
 * libjpeg's message. */
typedef struct
{
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  gboolean one_scan;            /* the picture is in one scan */
  gboolean warned;              /* ended by a warning */
  gint code;                    /* libjpeg's message code */
  gint64 rows;                  /* rows whole when it ended; -1: unknown */
  gchar message[JMSG_LENGTH_MAX];
} JpegCheckErrors;

/* On the heap, so that what libjpeg changes before a longjmp is there
 * after it. */
typedef struct
{
  struct jpeg_decompress_struct cinfo;
  JpegCheckErrors errors;
} JpegCheck;

static void G_GNUC_NORETURN
jpeg_check_stop (j_common_ptr common)
{
  JpegCheckErrors *errors = (JpegCheckErrors *) common->err;
  j_decompress_ptr cinfo = (j_decompress_ptr) common;

  errors->code = errors->pub.msg_code;
  errors->pub.format_message (common, errors->message);
  /* The rows of the iMCU rows decoded whole, where one scan holds the
   * picture (the scans of others each cover all of it). */
  if (errors->one_scan)
    errors->rows = MIN ((gint64) cinfo->input_iMCU_row *
        cinfo->max_v_samp_factor * DCTSIZE, (gint64) cinfo->image_height);
  longjmp (errors->jump, 1);
}

static void
jpeg_check_emit_message (j_common_ptr common, int level)
{
  JpegCheckErrors *errors = (JpegCheckErrors *) common->err;

  if (level >= 0)
    return;                     /* a trace message */
  /* What libjpeg skips before a marker once a scan is whole, parameters
   * a sequential scan does without and metadata it does not know leave
   * every pixel as coded. */
  switch (errors->pub.msg_code) {
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_JFIF_MAJOR:
    case JWRN_ADOBE_XFORM:
    case JWRN_BOGUS_ICC:
      errors->pub.num_warnings++;
      return;
    default:
      errors->warned = TRUE;
      jpeg_check_stop (common);
  }
}

static void
jpeg_check_output_message (j_common_ptr common)
{
  (void) common;                /* nothing on stderr */
}

/* Whether the JPEG @data (@size bytes, probed) holds its whole picture:
 * libjpeg, the library jpegdec decodes with, decodes it once (gray where
 * it can, into one row) and must neither fail nor warn that data is
 * missing or corrupt; jpegdec drops those warnings and gives the picture
 * with the missing part made up. A progressive picture's scans must bring
 * every coefficient to its full precision. FALSE and @error, saying what
 * is missing, otherwise. Its memory is what jpegdec takes for the same
 * picture, bounded by the pixels allowed. */
static gboolean
jpeg_picture_whole (const guint8 * data, gsize size, GError ** error)
{
  JpegCheck *check = g_new0 (JpegCheck, 1);
  j_decompress_ptr cinfo = &check->cinfo;
  JSAMPARRAY row;
  gint c, k;

  check->errors.rows = -1;
  cinfo->err = jpeg_std_error (&check->errors.pub);
  check->errors.pub.error_exit = jpeg_check_stop;
  check->errors.pub.emit_message = jpeg_check_emit_message;
  check->errors.pub.output_message = jpeg_check_output_message;
  if (setjmp (check->errors.jump)) {
    JpegCheckErrors *errors = &check->errors;

    if (!errors->warned)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the JPEG picture could not be decoded (libjpeg: %s)",
          errors->message);
    else if ((errors->code == JWRN_JPEG_EOF
            || errors->code == JWRN_HIT_MARKER) && errors->rows >= 0)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the JPEG's data ends after %" G_GINT64_FORMAT " of its %u rows "
          "(libjpeg: %s)", errors->rows, cinfo->image_height, errors->message);
    else if (errors->code == JWRN_JPEG_EOF || errors->code == JWRN_HIT_MARKER)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the JPEG's data ends before its %ux%u picture does (libjpeg: %s)",
          cinfo->image_width, cinfo->image_height, errors->message);
    else
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "the JPEG's data is corrupt (libjpeg: %s)", errors->message);
    jpeg_destroy_decompress (cinfo);
    g_free (check);
    return FALSE;
  }
  jpeg_create_decompress (cinfo);
  jpeg_mem_src (cinfo, data, size);
  jpeg_read_header (cinfo, TRUE);
  /* jpegdec decodes no more (CMYK, YCCK and others it refuses), and these
   * bound libjpeg's memory. */
  if (cinfo->num_components > 3) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "the JPEG picture could not be decoded (it has %d colour "
        "components, where jpegdec decodes 1 to 3)", cinfo->num_components);
    jpeg_destroy_decompress (cinfo);
    g_free (check);
    return FALSE;
  }
  if (cinfo->jpeg_color_space == JCS_YCbCr
      || cinfo->jpeg_color_space == JCS_GRAYSCALE)
    cinfo->out_color_space = JCS_GRAYSCALE;
  cinfo->dct_method = JDCT_IFAST;
  cinfo->do_fancy_upsampling = FALSE;
  check->errors.one_scan = !jpeg_has_multiple_scans (cinfo);
  jpeg_start_decompress (cinfo);
  row = cinfo->mem->alloc_sarray ((j_common_ptr) cinfo, JPOOL_IMAGE,
      cinfo->output_width * cinfo->output_components, 1);
  while (cinfo->output_scanline < cinfo->output_height)
    jpeg_read_scanlines (cinfo, row, 1);
  /* Progressive: every coefficient refined to its last bit (-1: never
   * coded), as encoders' scans leave them; where a scan is missing the
   * decoder makes up the rest. */
  for (c = 0; cinfo->progressive_mode && c < cinfo->num_components; c++) {
    for (k = 0; k < DCTSIZE2; k++) {
      if (cinfo->coef_bits[c][k] != 0) {
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
            "the progressive JPEG picture is incomplete: its scans leave "
            "coefficient %d of its component %d %s", k,
            cinfo->comp_info[c].component_id,
            cinfo->coef_bits[c][k] < 0 ? "uncoded" :
            "short of its lowest bits");
        jpeg_destroy_decompress (cinfo);
        g_free (check);
        return FALSE;
      }
    }
  }
  jpeg_finish_decompress (cinfo);
  jpeg_destroy_decompress (cinfo);
  g_free (check);
  return TRUE;
}

/* Whether the @picture's data holds the whole of it, as its decoder can
 * tell: the GStreamer decoders do not say, and give what is missing made
 * up (pngdec) or as gray (jpegdec). */
gboolean
cbf_mask_picture_whole (GBytes * picture, CbfMaskPicture type, GError ** error)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (picture, &size);

  return type == CBF_MASK_PICTURE_PNG ? png_picture_whole (data, size, error)
      : jpeg_picture_whole (data, size, error);
}
