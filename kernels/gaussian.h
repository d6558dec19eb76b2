/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Gaussian mode (the range weight off): OpenCV's GaussianBlur for 8-bit
 * images, with the border of its parameters (CbfBorder), within +-1. The
 * host-side rules that turn the element's parameters into a 1-D kernel,
 * and the kernel entry points, which have the signature of the bilateral
 * ones (CbfFilterEntry) so that a frame plan can hold both: of the weights
 * they read radius (ksize / 2, 0 allowed) and gaussian.coeffs_dev, the
 * ksize coefficients. */

#ifndef CBF_GAUSSIAN_H
#define CBF_GAUSSIAN_H

#include "bilateral.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel size and sigma of OpenCV's GaussianBlur for 8-bit images that
 * the element's @diameter and @sigma_space stand for in mode=gaussian.
 * diameter > 0: that size, the next odd number from an even one, and sigma_space as given (<= 0: OpenCV derives it from the size).
 * diameter <= 0: cvRound (6 sigma + 1) | 1, OpenCV's rule for 8-bit images,
 * where a sigma_space <= 0 acts as 1 (OpenCV would refuse both <= 0). The
 * size is at most CBF_GAUSSIAN_MAX_KSIZE. */
#define CBF_GAUSSIAN_MAX_KSIZE 1201
void cbf_gaussian_params (int diameter, double sigma_space, int *ksize,
    double *sigma);

/* Fills @coeffs (@ksize floats) with OpenCV's getGaussianKernel (ksize,
 * sigma): its fixed kernels for ksize <= 7 and sigma <= 0, otherwise
 * exp (-x^2 / (2 sigma^2)) normalised in double, sigma <= 0 derived from
 * the size as 0.3 ((ksize - 1) / 2 - 1) + 0.8. */
void cbf_gaussian_kernel_fill (float *coeffs, int ksize, double sigma);


/* Fills @weights for a 1-D kernel of @ksize (odd) coefficients, filled by
 * cbf_gaussian_kernel_fill and copied to the device at @coeffs_dev. */
void cbf_gaussian_weights_init (CbfFilterParams * weights, int ksize,
    const float *coeffs_dev);

/* Separable blur: rows filtered horizontally, then the results
 * vertically (in shared memory or registers, never through a frame in
 * global memory), so the cost per pixel grows with the kernel size, not
 * with its square. Layouts as the bilateral entries of the same
 * name (colour channels are blurred each on its own, as OpenCV does;
 * alpha and padding pass unchanged). */
CBF_DECLARE_LAYOUT_ENTRIES (gaussian);
CBF_DECLARE_DEEP_ENTRIES (gaussian);

#ifdef __cplusplus
}
#endif
#endif /* CBF_GAUSSIAN_H */
