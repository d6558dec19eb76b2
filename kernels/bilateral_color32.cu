/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Kernel entries for the three colour bytes of 32-bit pixels (RGBA, BGRx,
 * ARGB, ...). The kernels are in bilateral_launch.cuh and what it includes; each pixel layout is
 * compiled in a file of its own so that the long template instantiations
 * build in parallel. */

#include "bilateral_launch.cuh"

CBF_ENTRY (cbf_bilateral_color_first, launch, Color32<0>)
CBF_ENTRY (cbf_bilateral_color_last, launch, Color32<1>)
CBF_ENTRY (cbf_bilateral_color_first_generic, launch_generic, Color32<0>)
