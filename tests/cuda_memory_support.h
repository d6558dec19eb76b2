/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the tests of frames in CUDA memory share (cuda_memory_support.c). */

#ifndef CBF_TEST_CUDA_MEMORY_SUPPORT_H
#define CBF_TEST_CUDA_MEMORY_SUPPORT_H

#include <gst/check/gstharness.h>

#include "gpu_support.h"

/* Caps of @format (a string literal) in CUDA memory, for launch lines. */
#define CUDA_CAPS(format) \
    "video/x-raw(memory:CUDAMemory),format=" format

/* A harness around cudaupload ! @middle ! cudadownload with CUDA caps
 * forced on both sides of it, every cudabilateral in it with @p
 * (filter_harness_full). */
GstHarness *cuda_harness_new (const gchar * format, gint width, gint height,
    const Params * p, const gchar * middle);

/* The element of @h's pipeline named @name (a reference); fails without
 * one. */
GstElement *filter_named (GstHarness * h, const gchar * name);

/* The element ran on CUDA memory: its sink pad negotiated the feature. */
void assert_cuda_caps (GstElement * filter);

#endif
