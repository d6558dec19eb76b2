/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The range table of samples deeper than 8 bits. An L1 distance of three
 * 16-bit samples reaches 196605, far past a table that shared memory
 * holds, so distances are looked up in buckets of 2^shift: the fewest
 * bits dropped that bring the largest distance under
 * CBF_DEEP_RANGE_LUT_LEN entries (none for 10-bit samples, one channel
 * or three, nor for one 12-bit channel). A bucket's weight is the one of
 * the distance at its middle. sigma-color is in 8-bit levels, scaled to
 * the samples' range, (2^bits - 1) / 255, so that one setting looks the
 * same at every depth. */

#include "bilateral.h"

#include <math.h>

int
cbf_deep_range_shift (int bits, int channels)
{
  int largest = ((1 << bits) - 1) * channels, shift = 0;

  while ((largest >> shift) >= CBF_DEEP_RANGE_LUT_LEN)
    shift++;
  return shift;
}

double
cbf_deep_sigma_color (int bits, double sigma_color)
{
  return (sigma_color > 0 ? sigma_color : 1) * ((1 << bits) - 1) / 255.0;
}

void
cbf_deep_range_fill (float *range, int bits, int channels, double sigma_color)
{
  int shift = cbf_deep_range_shift (bits, channels), i;
  double sigma = cbf_deep_sigma_color (bits, sigma_color);
  double gauss = -0.5 / (sigma * sigma);
  /* the middle of a bucket, from its first distance */
  double middle = ((1 << shift) - 1) / 2.0;

  for (i = 0; i < CBF_DEEP_RANGE_LUT_LEN; i++) {
    double distance = (double) i * (1 << shift) + middle;

    range[i] = (float) exp (distance * distance * gauss);
  }
}
