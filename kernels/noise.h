/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The noise of a frame, measured on its luma (noise-sigma=-1): Immerkaer's
 * estimator (1996), sigma = sqrt (pi / 2) / 6 x the mean of |I * M|,
 * M = [1 -2 1; -2 4 -2; 1 -2 1], over the pixels where the picture is
 * flattest: those whose gradient (|Sobel x| + |Sobel y| of the luma's 3 x
 * 3 mean) is at most the frame's median, leaving out every pixel with a
 * clipped sample (0 or 255) in its 3 x 3, whose noise the clipping cut
 * short. Pixels of the frame's outer rows and columns are not counted. */

#ifndef CBF_NOISE_H
#define CBF_NOISE_H

#include "motion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The gradient's histogram: bins of this many 8-bit levels, the last one
 * holding everything above. */
#define CBF_NOISE_BINS 1024
#define CBF_NOISE_BIN_WIDTH 0.25f

typedef struct
{
  unsigned int *counts;         /* CBF_NOISE_BINS: every pixel */
  unsigned int *kept;           /* CBF_NOISE_BINS: no clipped sample */
  float *sums;                  /* CBF_NOISE_BINS: |I * M| of those */
  float *sigma;                 /* the result; -1: no pixel counted */
} CbfNoiseScratch;

/* Makes @scratch's buffers (once) and empties the histogram on @stream,
 * the stream the measurements run on. */
cudaError_t cbf_noise_scratch_alloc (CbfNoiseScratch * scratch,
    cudaStream_t stream);
void cbf_noise_scratch_free (CbfNoiseScratch * scratch);

/* Measures the noise of @frame (a luma plane or colour pixels, @luma
 * saying how luma is made of them, in 8-bit levels) into
 * @scratch->sigma, on @stream. */
cudaError_t cbf_noise_measure (const CbfMotionView * frame,
    const CbfMotionLuma * luma, CbfNoiseScratch * scratch,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CBF_NOISE_H */
