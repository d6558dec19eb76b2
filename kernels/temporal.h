/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The temporal filter: each output moved towards the previous frame's
 * output where the two are close, so that noise new in every frame
 * averages out where the picture holds still. For B, a spatial result
 * before rounding (any entry of bilateral.h, gaussian.h or grid.h), and
 * P, the previous output at the same pixel:
 *   D = |B - P|, summed over the channels filtered together;
 *   g = exp (-D^2 / (2 sigma^2));
 *   Y = B + gain g (P - B), rounded as the entry rounds B.
 * An entry applies it as it stores an output whose plane carries a state
 * (CbfPlane.state): it reads P there (unless the gain is 0: no previous
 * frame) and writes Y back, so that the state is the rounded output of
 * the last frame. A state word a pixel: one channel, its sample (uint8_t;
 * uint16_t for deep samples, shifted down to the low bits as the entry
 * reads them); three colour channels, packed as the entries' tiles pack
 * them (uint32_t c0 | c1 << 8 | c2 << 16; deep: two uint32_t,
 * c0 | c1 << 16 and c2). */

#ifndef CBF_TEMPORAL_H
#define CBF_TEMPORAL_H

#include "bilateral.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest gain: past it a still picture's output would hardly follow
 * a slow change of light. */
#define CBF_TEMPORAL_MAX_GAIN 0.95

/* Bytes of a state word, for @channels (1 or 3) of @bits (8 to 16). */
static inline int
cbf_temporal_state_bytes (int channels, int bits)
{
  return (channels == 3 ? 4 : 1) * (bits > 8 ? 2 : 1);
}

/* The kernels' gate, log2 (e) / (2 sigma^2), for @sigma in 8-bit levels
 * scaled to samples of @bits as sigma-color is (cbf_deep_sigma_color). */
static inline float
cbf_temporal_gate (double sigma, int bits)
{
  double s = bits > 8 ? cbf_deep_sigma_color (bits, sigma) : sigma;

  return (float) (1.4426950408889634 / (2.0 * s * s));
}

#ifdef __cplusplus
}
#endif
#endif /* CBF_TEMPORAL_H */
