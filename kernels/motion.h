/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The motion-compensated temporal filter (temporal-motion=compensated):
 * a motion field v from the current frame to the previous output, found
 * on luma by block matching with sub-pixel refinement, then, for every
 * output plane, the previous output warped along v, gated and blended:
 *   P (x) = Y_prev (x + v (x)), bilinear, positions past the frame clamped
 *     to its edge; chroma takes v scaled to its resolution;
 *   D = |3 x 3 mean of (B - P)|, summed over colour channels filtered
 *     together (the mean's taps past the frame clamped to its edge); a
 *     chroma plane's D is the largest of that, of |2 x 2 mean of (B - P)|
 *     over the four 2 x 2 squares holding the pixel, and of luma's D over
 *     the luma pixels the pixel stands for (the sub_x x sub_y block at
 *     (x sub_x, y sub_y)) and those around them (luma positions clamped
 *     to the luma plane), so that chroma lets go wherever luma does and
 *     where the strip an object uncovers is a chroma pixel or two wide;
 *   g = 2^(-gate D^2), gate = log2 (e) / (2 sigma^2) (temporal.h);
 *   Y = B + gain g (P - B), rounded.
 * B is the spatial result as the output stores it (rounded), which the
 * spatial kernels leave in a state plane beside the output. A scene cut,
 * found from the estimator's own frames, makes the frame's gain 0.
 *
 * The field is one vector per CBF_MOTION_BLOCK x CBF_MOTION_BLOCK block
 * of luma, the vector of block (bx, by) holding at its centre
 * (bx B + (B - 1) / 2, by B + (B - 1) / 2); between centres v is bilinear
 * in the block vectors (positions past the outer centres clamped to
 * them). */

#ifndef CBF_MOTION_H
#define CBF_MOTION_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Luma pixels a side of a block of the motion field. */
#define CBF_MOTION_BLOCK 8

/* Pyramid levels the search runs through (full size, 1/2, 1/4). */
#define CBF_MOTION_LEVELS 3

/* How samples sit in a plane, for the estimator's luma and the blend's
 * reads and writes: one or three channels, each at its own address (the
 * bytes of a packed pixel, or planes), every pixel_bytes bytes. */
typedef enum
{
  CBF_MOTION_SAMPLES_8,         /* a byte */
  CBF_MOTION_SAMPLES_16,        /* a 16-bit little-endian container, the
                                 * sample shift bits up and mask wide */
  CBF_MOTION_SAMPLES_10A2,      /* channel c in bits 10 c .. 10 c + 9 of a
                                 * 32-bit word (all channels one address) */
} CbfMotionSamples;

typedef struct
{
  uint8_t *data[3];             /* channel c's sample of pixel (0, 0) */
  size_t pitch[3];
  int pixel_bytes;
  int channels;                 /* 1 or 3 */
  CbfMotionSamples samples;
  int shift;
  uint32_t mask;                /* of the sample, once shifted down */
  int width, height;
} CbfMotionView;

/* The estimator's buffers, made by cbf_motion_scratch_alloc for a luma
 * plane of width x height. */
typedef struct
{
  int width, height;
  int blocks_x, blocks_y;       /* of the field (full-size level) */
  /* The luma pyramids, level l width >> l x height >> l: level 0 as
   * 16-bit floats (CUDA's __half), the others as floats. */
  uint16_t *cur0, *prev0;
  float *cur[CBF_MOTION_LEVELS];        /* levels 1 .. ([0] unused) */
  float *prev[CBF_MOTION_LEVELS];
  int pitch[CBF_MOTION_LEVELS]; /* samples from a row of a level to the next */
  /* prev0 and prev[l] as the texture units read them, bilinearly,
   * positions past the level clamped to its edge. */
  cudaTextureObject_t prev_tex[CBF_MOTION_LEVELS];
  int2 *coarse[CBF_MOTION_LEVELS];      /* integer vectors of the levels
                                         * above the full-size one */
  float4 *fine;                 /* sub-pixel vector and confidence */
  float4 *pull;                 /* the pull-push pyramid's sums */
  float2 *field;                /* the field: blocks_x x blocks_y */
  unsigned int *cut_count;      /* pixels whose gate rejects the match */
  float *luma_d;                /* luma's D, width x height, which the
                                 * chroma blends read */
} CbfMotionScratch;

/* What a blended plane is to the others of its frame. */
typedef enum
{
  CBF_MOTION_ROLE_ALONE,        /* grey, or colour channels blended together */
  CBF_MOTION_ROLE_LUMA,         /* luma, whose D the chroma blends read */
  CBF_MOTION_ROLE_CHROMA,       /* chroma, after luma's blend on one stream */
} CbfMotionRole;

/* What the estimator is told of the pictures: the luma of the current
 * frame and of the previous output, as weights of their channels (summing
 * to 1) and the factor that takes their samples to 8-bit levels; and the
 * noise's standard deviation (8-bit levels), which sets how much a match
 * must beat the zero vector by and how sure a block must be of its own. */
typedef struct
{
  float weights[3];
  float to_8bit;
  float noise;
} CbfMotionLuma;

/* Makes (or, sizes unchanged, keeps) @scratch's buffers for a luma plane
 * of @width x @height; cbf_motion_scratch_free frees them. */
cudaError_t cbf_motion_scratch_alloc (CbfMotionScratch * scratch, int width,
    int height);
void cbf_motion_scratch_free (CbfMotionScratch * scratch);

/* Finds the field from @cur (the current frame's luma plane or colour
 * pixels) to @prev (the previous output's, in the state's layout; NULL:
 * none, the field zero and no pixel counted) into @scratch->field, and
 * counts into @scratch->cut_count the pixels of the
 * quarter-size level whose compensated difference a gate of @gate_sigma
 * (8-bit levels) rejects (g < 0.1), which cbf_motion_blend compares with
 * cbf_motion_cut_limit. On @stream. */
cudaError_t cbf_motion_estimate (const CbfMotionView * cur,
    const CbfMotionView * prev, const CbfMotionLuma * luma,
    float gate_sigma, CbfMotionScratch * scratch, cudaStream_t stream);

/* The share of the quarter-size level's pixels that, rejected, make a
 * frame a scene cut. */
#define CBF_MOTION_CUT_SHARE 0.05f

/* The most pixels of the quarter-size level of a @width x @height luma
 * plane the gate may reject in a frame that is not a scene cut. */
static inline unsigned int
cbf_motion_cut_limit (int width, int height)
{
  return (unsigned int) (CBF_MOTION_CUT_SHARE *
      (float) ((width >> 2) * (height >> 2)));
}

/* The blend of one output plane's rows [@row_begin, @row_end): @spatial,
 * the spatial result (the state the spatial kernels wrote), @prev the
 * previous output (NULL: none, Y = B), @next the state this frame leaves,
 * @out the output plane; @sub_x, @sub_y luma pixels a pixel of the plane
 * stands for; @role what the plane is to the frame's others (a chroma
 * plane's blend reads the D of the luma blend before it, which with
 * @prev NULL left none); @gain and @gate as the temporal filter's
 * (temporal.h); the field and the cut count of @scratch (with @prev NULL
 * unused). */
cudaError_t cbf_motion_blend (const CbfMotionView * spatial,
    const CbfMotionView * prev, const CbfMotionView * next,
    const CbfMotionView * out, int sub_x, int sub_y, CbfMotionRole role,
    float gain, float gate, const CbfMotionScratch * scratch, int row_begin,
    int row_end, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CBF_MOTION_H */
