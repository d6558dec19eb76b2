/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A sample of a CbfMotionView (motion.h), for the kernels that read
 * frames through one (motion_estimate.cu, motion_blend.cu, noise.cu). */

#ifndef CBF_SAMPLES_CUH
#define CBF_SAMPLES_CUH

#include "motion.h"

#include <cstdint>

namespace {

/* Sample @c of pixel @x of @row, held as @samples say. */
__device__ __forceinline__ float sample_of (const uint8_t *row, int x,
    int pixel_bytes, CbfMotionSamples samples, int shift, uint32_t mask, int c)
{
  const uint8_t *p = row + (size_t)x * pixel_bytes;
  switch (samples) {
  case CBF_MOTION_SAMPLES_8:
    return (float)*p;
  case CBF_MOTION_SAMPLES_16:
    return (float)((*reinterpret_cast<const uint16_t *> (p) >> shift) & mask);
  default:
    return (
        float)((*reinterpret_cast<const uint32_t *> (p) >> (10 * c)) & 0x3ffu);
  }
}

/* The luma of pixel (@x, @y) of @v, whose samples are of kind @S, three
 * channels where @kColor, in 8-bit levels (CbfMotionLuma). */
template <int S, bool kColor>
__device__ __forceinline__ float view_luma (
    const CbfMotionView &v, const CbfMotionLuma &luma, int x, int y)
{
  auto at = [&] (const uint8_t *d, size_t pitch, int c) {
    return sample_of (d + (size_t)y * pitch, x, v.pixel_bytes,
        (CbfMotionSamples)S, v.shift, v.mask, c);
  };
  float l = luma.weights[0] * at (v.data[0], v.pitch[0], 0);
  if (kColor)
    l += luma.weights[1] * at (v.data[1], v.pitch[1], 1)
        + luma.weights[2] * at (v.data[2], v.pitch[2], 2);
  return l * luma.to_8bit;
}

__device__ __forceinline__ int clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

} /* namespace */

#endif /* CBF_SAMPLES_CUH */
