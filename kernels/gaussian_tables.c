/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Host side of the Gaussian mode: OpenCV's rules for the kernel. */

#include "gaussian.h"

#include <math.h>
#include <string.h>

void
cbf_gaussian_params (int diameter, double sigma_space, int *ksize,
    double *sigma)
{
  *sigma = sigma_space;
  if (diameter > 0) {
    *ksize = diameter | 1;
  } else {
    if (*sigma <= 0)
      *sigma = 1;
    /* lrint: round half to even, OpenCV's cvRound. */
    *ksize = (int) lrint (*sigma * 3 * 2 + 1) | 1;
  }
  if (*ksize > CBF_GAUSSIAN_MAX_KSIZE)
    *ksize = CBF_GAUSSIAN_MAX_KSIZE;
}

void
cbf_gaussian_kernel_fill (float *coeffs, int ksize, double sigma)
{
  /* OpenCV's small fixed kernels (getGaussianKernel, sigma <= 0). */
  static const float small[4][7] = {
    {1.f},
    {0.25f, 0.5f, 0.25f},
    {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f},
    {0.03125f, 0.109375f, 0.21875f, 0.28125f, 0.21875f, 0.109375f,
        0.03125f},
  };
  double sum = 0, scale, weights[CBF_GAUSSIAN_MAX_KSIZE];
  int i;

  if (ksize % 2 == 1 && ksize <= 7 && sigma <= 0) {
    for (i = 0; i < ksize; i++)
      coeffs[i] = small[ksize / 2][i];
    return;
  }
  if (sigma <= 0)
    sigma = ((ksize - 1) * 0.5 - 1) * 0.3 + 0.8;
  scale = -0.5 / (sigma * sigma);
  for (i = 0; i < ksize; i++) {
    double x = i - (ksize - 1) * 0.5;
    weights[i] = exp (scale * x * x);
    sum += weights[i];
  }
  for (i = 0; i < ksize; i++)
    coeffs[i] = (float) (weights[i] / sum);
}

void
cbf_gaussian_weights_init (CbfFilterParams * weights, int ksize,
    const float *coeffs_dev)
{
  memset (weights, 0, sizeof (*weights));
  weights->radius = ksize / 2;
  weights->gaussian.coeffs_dev = coeffs_dev;
}
