/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The noise estimate (noise.h): a histogram of the gradient with, per
 * bin, the Immerkaer responses of its unclipped pixels; then the median
 * bin and the mean response of the bins up to it. */

#include "noise.h"
#include "samples.cuh"
#include "tunables.cuh"

#include <cuda_runtime.h>

namespace {

constexpr int kW = kMotionTileW, kH = kMotionTileH;

/* A strip of tiles a block of threads, down the frame, so that each block
 * adds its histogram to the frame's once. */
template <int S, bool kColor>
__global__ void __launch_bounds__ (kW *kH) noise_histogram (CbfMotionView v,
    CbfMotionLuma luma, unsigned int *counts, unsigned int *kept, float *sums)
{
  __shared__ float tile[kH + 4][kW + 4];
  __shared__ float box[kH + 2][kW + 2];
  __shared__ unsigned int s_counts[CBF_NOISE_BINS], s_kept[CBF_NOISE_BINS];
  __shared__ float s_sums[CBF_NOISE_BINS];
  const int w = v.width, h = v.height;
  const int t = threadIdx.y * kW + threadIdx.x;

  for (int i = t; i < CBF_NOISE_BINS; i += kW * kH) {
    s_counts[i] = s_kept[i] = 0;
    s_sums[i] = 0.f;
  }
  const int x0 = blockIdx.x * kW;
  for (int y0 = blockIdx.y * kH; y0 < h; y0 += gridDim.y * kH) {
    __syncthreads ();
    for (int i = t; i < (kW + 4) * (kH + 4); i += kW * kH) {
      const int tx = i % (kW + 4), ty = i / (kW + 4);
      tile[ty][tx] = view_luma<S, kColor> (v, luma,
          clampi (x0 + tx - 2, 0, w - 1), clampi (y0 + ty - 2, 0, h - 1));
    }
    __syncthreads ();
    for (int i = t; i < (kW + 2) * (kH + 2); i += kW * kH) {
      const int tx = i % (kW + 2), ty = i / (kW + 2);
      float s = 0.f;
#pragma unroll
      for (int j = 0; j < 3; j++)
#pragma unroll
        for (int k = 0; k < 3; k++)
          s += tile[ty + j][tx + k];
      box[ty][tx] = s * (1.f / 9);
    }
    __syncthreads ();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
      continue;
    const int bx = threadIdx.x + 1, by = threadIdx.y + 1;
    const float gx
        = (box[by - 1][bx + 1] + 2.f * box[by][bx + 1] + box[by + 1][bx + 1])
        - (box[by - 1][bx - 1] + 2.f * box[by][bx - 1] + box[by + 1][bx - 1]);
    const float gy
        = (box[by + 1][bx - 1] + 2.f * box[by + 1][bx] + box[by + 1][bx + 1])
        - (box[by - 1][bx - 1] + 2.f * box[by - 1][bx] + box[by - 1][bx + 1]);
    const int bin
        = min ((int)((fabsf (gx) + fabsf (gy)) * (1.f / CBF_NOISE_BIN_WIDTH)),
            CBF_NOISE_BINS - 1);
    const int tx = threadIdx.x + 2, ty = threadIdx.y + 2;
    float r = 0.f;
    bool clipped = false;
#pragma unroll
    for (int j = -1; j <= 1; j++)
#pragma unroll
      for (int k = -1; k <= 1; k++) {
        const float l = tile[ty + j][tx + k];
        r += (float)((j ? 1 : -2) * (k ? 1 : -2)) * l;
        clipped |= l < 0.5f || l > 254.5f;
      }
    atomicAdd (&s_counts[bin], 1u);
    if (!clipped) {
      atomicAdd (&s_kept[bin], 1u);
      atomicAdd (&s_sums[bin], fabsf (r));
    }
  }
  __syncthreads ();
  for (int i = t; i < CBF_NOISE_BINS; i += kW * kH)
    if (s_counts[i]) {
      atomicAdd (&counts[i], s_counts[i]);
      if (s_kept[i]) {
        atomicAdd (&kept[i], s_kept[i]);
        atomicAdd (&sums[i], s_sums[i]);
      }
    }
}

/* One block of CBF_NOISE_BINS threads: the median bin, the estimate from
 * the bins up to it, and the histogram emptied for the next frame. */
__global__ void __launch_bounds__ (CBF_NOISE_BINS) noise_finish (
    unsigned int *counts, unsigned int *kept, float *sums, float *sigma)
{
  __shared__ unsigned int scan[CBF_NOISE_BINS];
  __shared__ unsigned int median;
  __shared__ float red_sum[CBF_NOISE_BINS / 32];
  __shared__ unsigned int red_n[CBF_NOISE_BINS / 32];
  const int i = threadIdx.x;
  const unsigned int c = counts[i];
  scan[i] = c;
  if (i == 0)
    median = CBF_NOISE_BINS - 1;
  __syncthreads ();
  /* Inclusive prefix sums (Hillis-Steele). */
  for (int o = 1; o < CBF_NOISE_BINS; o <<= 1) {
    const unsigned int a = i >= o ? scan[i - o] : 0u;
    __syncthreads ();
    scan[i] += a;
    __syncthreads ();
  }
  const unsigned int total = scan[CBF_NOISE_BINS - 1];
  const unsigned int half = (total + 1) / 2;
  if (scan[i] >= half && (i == 0 || scan[i - 1] < half))
    median = i;
  __syncthreads ();
  float s = i <= (int)median ? sums[i] : 0.f;
  unsigned int n = i <= (int)median ? kept[i] : 0u;
  for (int o = 16; o; o >>= 1) {
    s += __shfl_xor_sync (0xffffffffu, s, o);
    n += __shfl_xor_sync (0xffffffffu, n, o);
  }
  if ((i & 31) == 0) {
    red_sum[i / 32] = s;
    red_n[i / 32] = n;
  }
  counts[i] = kept[i] = 0;
  sums[i] = 0.f;
  __syncthreads ();
  if (i < 32) {
    s = red_sum[i];
    n = red_n[i];
    for (int o = 16; o; o >>= 1) {
      s += __shfl_xor_sync (0xffffffffu, s, o);
      n += __shfl_xor_sync (0xffffffffu, n, o);
    }
    if (i == 0)
      *sigma = n ? 0.20888568f * s / (float)n : -1.f;
  }
}

} /* namespace */

extern "C" {

cudaError_t cbf_noise_scratch_alloc (CbfNoiseScratch *s, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  if (s->counts)
    return cudaSuccess;
  err = cudaMalloc (&s->counts, CBF_NOISE_BINS * sizeof (unsigned int));
  if (err == cudaSuccess)
    err = cudaMalloc (&s->kept, CBF_NOISE_BINS * sizeof (unsigned int));
  if (err == cudaSuccess)
    err = cudaMalloc (&s->sums, CBF_NOISE_BINS * sizeof (float));
  if (err == cudaSuccess)
    err = cudaMalloc (&s->sigma, sizeof (float));
  /* Empty once, on the measurements' stream (a plain cudaMemset would
   * not order against it); noise_finish empties them after each frame. */
  if (err == cudaSuccess)
    err = cudaMemsetAsync (
        s->counts, 0, CBF_NOISE_BINS * sizeof (unsigned int), stream);
  if (err == cudaSuccess)
    err = cudaMemsetAsync (
        s->kept, 0, CBF_NOISE_BINS * sizeof (unsigned int), stream);
  if (err == cudaSuccess)
    err = cudaMemsetAsync (s->sums, 0, CBF_NOISE_BINS * sizeof (float), stream);
  if (err != cudaSuccess)
    cbf_noise_scratch_free (s);
  return err;
}

void cbf_noise_scratch_free (CbfNoiseScratch *s)
{
  cudaFree (s->counts);
  cudaFree (s->kept);
  cudaFree (s->sums);
  cudaFree (s->sigma);
  *s = CbfNoiseScratch ();
}

cudaError_t cbf_noise_measure (const CbfMotionView *frame,
    const CbfMotionLuma *luma, CbfNoiseScratch *s, cudaStream_t stream)
{
  const dim3 grid ((frame->width + kW - 1) / kW,
      min ((frame->height + kH - 1) / kH, kNoiseStrips));
  const dim3 block (kW, kH);
  const bool color = frame->channels == 3;
  switch (frame->samples) {
  case CBF_MOTION_SAMPLES_8:
    (color ? noise_histogram<CBF_MOTION_SAMPLES_8, true>
           : noise_histogram<CBF_MOTION_SAMPLES_8,
               false>)<<<grid, block, 0, stream>>> (
        *frame, *luma, s->counts, s->kept, s->sums);
    break;
  case CBF_MOTION_SAMPLES_16:
    (color ? noise_histogram<CBF_MOTION_SAMPLES_16, true>
           : noise_histogram<CBF_MOTION_SAMPLES_16,
               false>)<<<grid, block, 0, stream>>> (
        *frame, *luma, s->counts, s->kept, s->sums);
    break;
  default:
    noise_histogram<CBF_MOTION_SAMPLES_10A2, true><<<grid, block, 0, stream>>> (
        *frame, *luma, s->counts, s->kept, s->sums);
    break;
  }
  noise_finish<<<1, CBF_NOISE_BINS, 0, stream>>> (
      s->counts, s->kept, s->sums, s->sigma);
  return cudaGetLastError ();
}

} /* extern "C" */
