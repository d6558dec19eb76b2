/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the reliability tests share (reliability_support.c). */

#ifndef CBF_TEST_RELIABILITY_SUPPORT_H
#define CBF_TEST_RELIABILITY_SUPPORT_H

#include <gst/check/gstharness.h>

#include "gpu_support.h"

/* A figure for docs/reliability.md: printed as "FIGURE @name @value", and
 * appended to the file $CBF_FIGURES when set (test runners may swallow the
 * output). */
void figure (const gchar * name, gint64 value);

/* One frame of @format, @w x @height, of channels_for_format (@seed)
 * through @h's element against the reference with @p. */
void check_one_frame (GstHarness * h, const gchar * format, gint w,
    gint height, const Params * p, guint32 seed);

#endif
