/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The frames the kernels read and write: a plane of device memory, or a
 * view of one of its channels, as every kernel entry (bilateral.h,
 * gaussian.h, grid.h, mask.h) takes it. */

#ifndef CBF_PLANE_H
#define CBF_PLANE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tallest frame (rows of its first plane) the kernels take: each launch
 * covers the rows with block rows of at least one pixel row, and CUDA
 * allows at most 65535 block rows a launch. */
#define CBF_MAX_HEIGHT 65535

/* An image on the device (8-bit samples, or deep ones in 16-bit
 * containers), or one channel of one. */
typedef struct
{
  uint8_t *data;                /* first byte of the pixel (sample) at 0, 0 */
  size_t pitch_bytes;           /* from one row to the next */
  int pixel_bytes;              /* from one pixel (sample) of a row to the
                                 * next: 1 for GRAY8 or a plane of I420, 2
                                 * for NV12's U or V, 3 for RGB, 4 for RGBA
                                 * or YUY2's U or V */
  int width;                    /* in pixels (samples) */
  int height;
  int sample_shift;             /* the deep one-channel entries' samples
                                 * sit this many bits above the low end of
                                 * their 16-bit containers (6 for P010_10LE,
                                 * 4 for P012_LE), which the output's are
                                 * written back to, the bits below zero;
                                 * 0 for every other entry */
  int sample_bits;              /* bits a deep one-channel sample holds
                                 * above its shift (10, 12 or 16): every
                                 * entry reads only those, so that bits a
                                 * faulty source sets above them are read as
                                 * zero; 0 for all of the container */
  uint8_t *state;               /* of an output: the temporal filter's
                                 * previous output (temporal.h), one state
                                 * word a pixel; NULL: no temporal filter */
  size_t state_pitch;           /* from one row of the state to the next */
} CbfPlane;

#ifdef __cplusplus
}
#endif
#endif /* CBF_PLANE_H */
