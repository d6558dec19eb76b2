/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the tests of frames in CUDA memory (test_cuda_memory,
 * test_cuda_memory_features) share: the harness around cudaupload !
 * cudabilateral ! cudadownload with CUDA caps forced, its elements by
 * name, and whether a filter negotiated CUDA memory. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "cuda_memory_support.h"
#include "gpu_support.h"

/* A harness around cudaupload ! @middle ! cudadownload with CUDA caps
 * forced on both sides of it, every cudabilateral in it with @p
 * (filter_harness_full). */
GstHarness *
cuda_harness_new (const gchar * format, gint width, gint height,
    const Params * p, const gchar * middle)
{
  return filter_harness_full (format, width, height, middle,
      filter_setup_params, p, NULL);
}

GstElement *
filter_named (GstHarness * h, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), name);

  fail_unless (e != NULL, "no element %s", name);
  return e;
}

/* The element ran on CUDA memory: its sink pad negotiated the feature. */
void
assert_cuda_caps (GstElement * filter)
{
  GstPad *pad = gst_element_get_static_pad (filter, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);

  fail_unless (caps != NULL);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          "memory:CUDAMemory"), "negotiated %" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_object_unref (pad);
}
