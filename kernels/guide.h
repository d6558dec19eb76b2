/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The guide of chroma guided by luma: luma brought to chroma's
 * resolution and siting, each guide sample luma filtered down to where its
 * chroma sample sits, as the video's chroma-site says (CbfChromaSite).
 * Along a direction that chroma subsamples by 2, guide sample x is made
 * of luma samples
 *   centred (chroma between luma 2x and 2x + 1: jpeg, and caps without a
 *   chroma-site):          [1 1] / 2   over luma 2x, 2x + 1
 *   cosited (chroma on luma 2x: mpeg2 horizontally, the default of HD
 *   video; cosited and dv both ways):
 *                          [1 2 1] / 4 over luma 2x - 1, 2x, 2x + 1
 * and along a direction not subsampled of the one luma sample; a 4:2:0
 * sample is the product of the two (2 x 2 taps for jpeg, 3 x 2 for mpeg2,
 * 3 x 3 for cosited). Luma positions past the picture are clamped to its
 * edge (column -1 reads column 0; the last column or row is repeated where
 * the width or height is odd). One rounding, half up:
 * (weighted sum + total / 2) / total, total the weights' sum (1 to 16).
 * Following the siting puts the guide's edges where chroma's are: a
 * centred guide of mpeg2 chroma lies half a luma sample off them. The
 * guided entries (bilateral.h) read it as the plane after their
 * channels'. */

#ifndef CBF_GUIDE_H
#define CBF_GUIDE_H

#include <cuda_runtime_api.h>

#include "plane.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where chroma samples sit among the luma samples they stand for: flags,
 * GStreamer's GstVideoChromaSite COSITED flags (which the frame plan maps
 * to these; ALT_LINE, of interlaced video, the kernels do not take). A
 * flag of a direction chroma does not subsample is ignored. */
typedef enum
{
  CBF_CHROMA_SITE_CENTRED = 0,  /* jpeg; caps without chroma-site */
  CBF_CHROMA_SITE_H_COSITED = 1 << 0,   /* on the left luma column */
  CBF_CHROMA_SITE_V_COSITED = 1 << 1    /* on the top luma row */
} CbfChromaSite;

/* Enqueues on @stream rows [@row_begin, @row_end) of @guide (one sample a
 * pixel: pixel_bytes 1 for 8-bit samples, 2 for 16-bit containers) from
 * the luma plane @luma (pixel_bytes the stride of its samples, 1 or 2
 * bytes each as @guide's; deep samples @luma's sample_shift bits up in
 * their containers, and written so into @guide), for chroma subsampled by
 * @sub_x and @sub_y (1 or 2) sited as @site says (CbfChromaSite flags).
 * @guide is @luma's size divided by @sub_x and @sub_y, rounded up.
 * Returns the launch error. */
cudaError_t cbf_chroma_guide (const CbfPlane * luma, const CbfPlane * guide,
    int sub_x, int sub_y, int site, int row_begin, int row_end,
    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CBF_GUIDE_H */
