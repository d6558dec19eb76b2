/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The formats cudabilateral takes, a line each, from which its caps
 * (gstcudabilateral.c), its frame plan (cbfframeplan.c) and the tests'
 * lists of formats (tests/gpu_support.h) are made:
 *
 *   X (format, layout, bits)
 *
 * @format: GStreamer's name (GST_VIDEO_FORMAT_format, "format" in caps);
 * @layout: for formats whose three colour channels are filtered together,
 * the pixel layout of the kernels' entries (bilateral.h: CBF_LAYOUTS_8BIT,
 * CBF_LAYOUTS_DEEP); by_channel for GRAY and YUV, filtered a channel at a
 * time with the channel entries the plan picks from @bits and from chroma's
 * geometry;
 * @bits: of the samples the filter sees (10 for P010_10LE's MSB-aligned
 * samples in 16-bit words).
 *
 * The caps list the formats in this order, the order negotiation prefers.
 * The frame plan checks each line against GStreamer's description of the
 * format (depth, planes, pixel size), so that test_element's check that
 * every format of the caps has a plan fails for a line that does not fit.
 * A format of a new layout needs that layout in the kernels first. */

#ifndef __CBF_FORMATS_H__
#define __CBF_FORMATS_H__

#define CBF_FORMATS(X) \
  X (RGBA, color_first, 8) \
  X (BGRA, color_first, 8) \
  X (ARGB, color_last, 8) \
  X (ABGR, color_last, 8) \
  X (RGBx, color_first, 8) \
  X (BGRx, color_first, 8) \
  X (xRGB, color_last, 8) \
  X (xBGR, color_last, 8) \
  X (RGB, color_packed24, 8) \
  X (BGR, color_packed24, 8) \
  X (Y444, color_planar, 8) \
  X (I420, by_channel, 8) \
  X (YV12, by_channel, 8) \
  X (NV12, by_channel, 8) \
  X (NV21, by_channel, 8) \
  X (YUY2, by_channel, 8) \
  X (UYVY, by_channel, 8) \
  X (GRAY8, by_channel, 8) \
  X (P010_10LE, by_channel, 10) \
  X (P012_LE, by_channel, 12) \
  X (P016_LE, by_channel, 16) \
  X (I420_10LE, by_channel, 10) \
  X (I420_12LE, by_channel, 12) \
  X (I422_10LE, by_channel, 10) \
  X (I422_12LE, by_channel, 12) \
  X (Y444_10LE, deep10_color_planar, 10) \
  X (Y444_16LE, deep_color_planar, 16) \
  X (GBR_10LE, deep10_color_planar, 10) \
  X (GRAY16_LE, by_channel, 16) \
  X (BGR10A2_LE, deep_color10a2, 10) \
  X (RGB10A2_LE, deep_color10a2, 10) \
  X (RGBA64_LE, deep_color64, 16) \
  X (BGRA64_LE, deep_color64, 16)

#endif /* __CBF_FORMATS_H__ */
