/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the mask file's tests share (mask_file_support.c): files of a
 * test's own, masks a loader holds, and pictures whose data does not hold
 * all of them. */

#ifndef CBF_TEST_MASK_FILE_SUPPORT_H
#define CBF_TEST_MASK_FILE_SUPPORT_H

#include <glib.h>

#include "cbfmaskloader.h"

/* A path for a file @name of this process in the temporary directory. */
gchar *temp_path (const gchar * name);

/* A GRAY8 PNG of @width x @height, every pixel @value, at temp_path
 * (@name). */
gchar *png_file (const gchar * name, gint width, gint height, guint8 value);

/* @size bytes of @data written at temp_path (@name). */
gchar *bytes_file (const gchar * name, const guint8 * data, gsize size);

/* Runs @launch (ending in a filesink) to its end. */
void run_to_eos (const gchar * launch);

/* The loader's mask in place, copied under its lock, with its first pixel
 * (-1 without a mask). */
typedef struct
{
  CbfMask mask;
  gint first;
} Peeked;

/* @loader's mask in place. */
Peeked peek (CbfMaskLoader * loader);

/* Kind @i of picture whose data does not hold all of it, written to a file
 * (NULL past the last kind), and what the refusal must say in @reason:
 * gray PNGs cut short or lacking rows, an Adam7 PNG a byte short, JPEGs
 * cut in their scan or whose frame header says twice their height, a
 * progressive JPEG without its last scan and one of a scan per component
 * without its last. */
gchar *incomplete_file (guint i, const gchar ** reason);

#endif
