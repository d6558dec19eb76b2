/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The guide of chroma guided by luma: luma brought to chroma's
 * resolution, the mean of the @sub_x x @sub_y luma samples a chroma
 * sample stands for (1, 2 or 4 of them), rounded half up, the last
 * column's or row's samples repeated where the picture's width or height
 * is odd. The guided entries (bilateral.h) read it as the plane after
 * their channels'. */

#ifndef CBF_GUIDE_H
#define CBF_GUIDE_H

#include <cuda_runtime_api.h>

#include "plane.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues on @stream rows [@row_begin, @row_end) of @guide (one sample a
 * pixel: pixel_bytes 1 for 8-bit samples, 2 for 16-bit containers) from
 * the luma plane @luma (pixel_bytes the stride of its samples, 1 or 2
 * bytes each as @guide's; deep samples @luma's sample_shift bits up in
 * their containers, and written so into @guide). @guide is @luma's size
 * divided by @sub_x and @sub_y (1 or 2), rounded up. Returns the launch
 * error. */
cudaError_t cbf_chroma_guide (const CbfPlane * luma, const CbfPlane * guide,
    int sub_x, int sub_y, int row_begin, int row_end, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CBF_GUIDE_H */
