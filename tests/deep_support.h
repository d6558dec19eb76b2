/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* test_deep's deep frames and output check (deep_support.c). */

#ifndef CBF_TEST_DEEP_SUPPORT_H
#define CBF_TEST_DEEP_SUPPORT_H

#include <gst/video/video.h>

#include "gpu_support.h"

/* The bits of @format's samples, which must be more than 8. */
gint deep_bits (const gchar * format);

/* Uniform noise over @bits bits: alpha, which must come back unchanged. */
Channel deep_channel_noise (gint width, gint height, gint bits,
    guint32 seed);

/* Whether component @c of @info is alpha (copied, never filtered). */
gboolean is_alpha (const GstVideoInfo * info, guint c);

/* Input channels of @format's component sizes: channel_random's gradient,
 * edge and noise scaled to the format's bits with noise in the bits below
 * too; alpha random over its depth. Returns the number of components. */
guint deep_channels_for_format (const gchar * format, gint width,
    gint height, guint32 seed, Channel * ch);

/* Fails unless @out (the element's components of a frame of @info) is
 * the reference @expected (its filtered components, @n_expected) within
 * @tolerance, alpha @in's exactly (@alpha_what: what to call it); returns
 * the largest difference of a value. */
gint assert_deep_output (const GstVideoInfo * info, const Channel * out,
    const Channel * in, const Channel * expected, guint n_expected,
    gint tolerance, const gchar * what, const gchar * alpha_what);

#endif
