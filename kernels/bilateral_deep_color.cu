/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Kernel entries for three colour channels of 10 to
 * 16 bits (Y444_16LE, RGBA64_LE, BGR10A2_LE, ...), layouts.cuh's
 * deep layouts. The kernels are in bilateral_launch.cuh and what it
 * includes; the one-channel and the colour entries are built in parallel,
 * a file each. */

#include "bilateral_launch.cuh"

#define CBF_BILATERAL_ENTRY(filter, layout, Layout)                            \
  CBF_ENTRY (cbf_##filter##_##layout, launch, Layout)
CBF_LAYOUTS_DEEP_COLOR (CBF_BILATERAL_ENTRY, bilateral)
#undef CBF_BILATERAL_ENTRY
