/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The motion estimator's kernels (motion.h's cbf_motion_estimate, with
 * its scratch): luma pyramids, block search, Lucas-Kanade, pull-push, and
 * the scene cut's count. The blend that takes the field is in
 * motion_blend.cu; what both use in motion_common.cuh. */

#include "motion.h"
#include "motion_common.cuh"
#include "samples.cuh"
#include "tunables.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kWin = kB + 2 * kMotionMargin;

/* A level of a pyramid. */
struct Level
{
  float *p;
  int w, h, pitch;

  __device__ __forceinline__ float at (int x, int y) const
  {
    return p[(size_t)y * pitch + x];
  }
  __device__ __forceinline__ float clamped (int x, int y) const
  {
    return at (clampi (x, 0, w - 1), clampi (y, 0, h - 1));
  }
};

/* Bilinear at (@x, @y) of @l by the texture units (@tex: its texture),
 * positions past the level clamped to its edge. */
__device__ __forceinline__ float fetch (
    cudaTextureObject_t tex, float x, float y)
{
  return tex2D<float> (tex, x + 0.5f, y + 0.5f);
}

/* ------------------------------------------------------------------ */
/* The pyramids: the full-size level is the luma blurred by [1 2 1]^2 / 16
 * (edges replicated), which steadies the search and the gradients against
 * the noise, kept as 16-bit floats (half the bytes to write and read back;
 * their steps, at most 1/8 of a level, far below the noise); each coarser
 * level the 2 x 2 mean of the one below. All three levels from one tile of
 * the picture, a launch a picture, so that the picture is read once and no
 * level read back to make the next. */

static_assert (CBF_MOTION_LEVELS == 3, "build_levels makes three levels");
static_assert (kMotionTileW % 2 == 0 && kMotionTileH % 2 == 0,
    "a tile holds whole cells of the coarsest level");

/* The full-size level as build_levels writes it and Lucas-Kanade reads
 * it. */
struct Level0
{
  __half *p;
  int w, h, pitch;

  __device__ __forceinline__ float clamped (int x, int y) const
  {
    return __half2float (
        p[(size_t)clampi (y, 0, h - 1) * pitch + clampi (x, 0, w - 1)]);
  }
};

/* Levels 0, 1 and 2 from @read (x, y), the luma of a pixel in 8-bit
 * levels. A thread takes a 2 x 2 cell of level 0 (so a level-1 pixel of
 * its own, and a block of threads a tile twice the per-pixel kernels'
 * each way): the tile with a one-pixel apron (edges replicated) into
 * shared memory, then each thread's four blurred pixels, their mean, and
 * the mean of four threads' means. */
template <class Read>
__device__ __forceinline__ void build_levels (
    const Read &read, const Level0 &l0, const Level &l1, const Level &l2)
{
  constexpr int kW = 2 * kMotionTileW, kH = 2 * kMotionTileH;
  __shared__ float tile[kH + 2][kW + 2];
  __shared__ float half_size[kMotionTileH][kMotionTileW];
  const int w = l0.w, h = l0.h;
  const int x0 = blockIdx.x * kW - 1, y0 = blockIdx.y * kH - 1;
  const int tx = threadIdx.x, ty = threadIdx.y;

  for (int i = ty * kMotionTileW + tx; i < (kW + 2) * (kH + 2);
       i += kMotionTileW * kMotionTileH) {
    const int cx = i % (kW + 2), cy = i / (kW + 2);
    tile[cy][cx]
        = read (clampi (x0 + cx, 0, w - 1), clampi (y0 + cy, 0, h - 1));
  }
  __syncthreads ();
  /* The level is its 16-bit values below as well, so that the search's
   * levels and Lucas-Kanade see one picture. */
  float v[2][2];
#pragma unroll
  for (int j = 0; j < 2; j++) {
    const int y = y0 + 1 + 2 * ty + j;
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int x = x0 + 1 + 2 * tx + i;
      float rows[3];
#pragma unroll
      for (int k = 0; k < 3; k++) {
        const float *r = tile[2 * ty + j + k] + 2 * tx + i;
        rows[k] = r[0] + 2.f * r[1] + r[2];
      }
      const __half q
          = __float2half_rn ((rows[0] + 2.f * rows[1] + rows[2]) * (1.f / 16));
      v[j][i] = __half2float (q);
      if (x < w && y < h)
        l0.p[(size_t)y * l0.pitch + x] = q;
    }
  }
  /* A cell of a coarser level reads only pixels of the finer one inside
   * the picture (its width the finer's halved, rounded down). */
  const float m = 0.25f * (v[0][0] + v[0][1] + v[1][0] + v[1][1]);
  half_size[ty][tx] = m;
  int gx = blockIdx.x * kMotionTileW + tx, gy = blockIdx.y * kMotionTileH + ty;
  if (gx < l1.w && gy < l1.h)
    l1.p[(size_t)gy * l1.pitch + gx] = m;
  __syncthreads ();
  if (tx % 2 || ty % 2)
    return;
  const float *a = &half_size[ty][tx];
  gx /= 2;
  gy /= 2;
  if (gx < l2.w && gy < l2.h)
    l2.p[(size_t)gy * l2.pitch + gx]
        = 0.25f * (a[0] + a[1] + a[kMotionTileW] + a[kMotionTileW + 1]);
}

/* The current frame's levels, from its samples of kind @S (the
 * CbfMotionSamples), @kColor: three channels. */
template <int S, bool kColor>
__global__ void levels_of_view (
    CbfMotionView v, CbfMotionLuma luma, Level0 l0, Level l1, Level l2)
{
  build_levels (
      [&] (int x, int y) { return view_luma<S, kColor> (v, luma, x, y); }, l0,
      l1, l2);
}

/* The previous output's levels, from its state. */
template <int C, bool kDeep>
__global__ void levels_of_state (
    State<C, kDeep> state, CbfMotionLuma luma, Level0 l0, Level l1, Level l2)
{
  build_levels (
      [&] (int x, int y) {
        float s[C];
        state.load (x, y, s);
        float l = luma.weights[0] * s[0];
        if constexpr (C == 3)
          l += luma.weights[1] * s[1] + luma.weights[2] * s[2];
        return l * luma.to_8bit;
      },
      l0, l1, l2);
}

/* ------------------------------------------------------------------ */
/* The block search: a warp a block. */

/* A lane's share of block (@bx, @by) of a level: kB * kB / 32 of its
 * pixels, clamped to the level. */
constexpr int kLanePixels = kB * kB / 32;

__device__ __forceinline__ void lane_pixels (
    const Level &cur, int bx, int by, float (&c)[kLanePixels])
{
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int k = 0; k < kLanePixels; k++) {
    const int i = lane + 32 * k;
    c[k] = cur.clamped (bx * kB + i % kB, by * kB + i / kB);
  }
}

/* Mean |cur - prev (x + v)| over the block whose pixels @c (lane_pixels)
 * are, for each of the @N vectors @v, the reads of prev clamped to the
 * level; the warp's sums, in every lane. The vectors are matched side by
 * side, so that their loads and shuffles overlap rather than wait on one
 * another. */
template <int N>
__device__ __forceinline__ void block_sads (const float (&c)[kLanePixels],
    const Level &prev, int bx, int by, const int2 (&v)[N], float (&sad)[N])
{
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int n = 0; n < N; n++)
    sad[n] = 0.f;
#pragma unroll
  for (int k = 0; k < kLanePixels; k++) {
    const int i = lane + 32 * k;
#pragma unroll
    for (int n = 0; n < N; n++)
      sad[n] += fabsf (c[k]
          - prev.clamped (
              bx * kB + i % kB + v[n].x, by * kB + i / kB + v[n].y));
  }
  for (int o = 16; o; o >>= 1)
#pragma unroll
    for (int n = 0; n < N; n++)
      sad[n] += __shfl_xor_sync (0xffffffffu, sad[n], o);
#pragma unroll
  for (int n = 0; n < N; n++)
    sad[n] *= 1.f / (kB * kB);
}

/* The coarsest level: every vector of +-kMotionSearch, cost = mean
 * |difference| + lambda |v|_1; the first of equal costs in row order. */
__global__ void search_coarse (
    Level cur, Level prev, int nbx, int nby, float lambda, int2 *out)
{
  constexpr int kSide = 2 * kMotionSearch + 1;
  constexpr int kT = kB + 2 * kMotionSearch;
  const int block = blockIdx.x * kMotionWarps + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  __shared__ float cur_tile[kMotionWarps][kB * kB];
  __shared__ float prev_tile[kMotionWarps][kT][kT];
  if (block >= nbx * nby)
    return;
  const int bx = block % nbx, by = block / nbx;
  float *ct = cur_tile[threadIdx.x / 32];
  auto &pt = prev_tile[threadIdx.x / 32];
  for (int i = lane; i < kB * kB; i += 32)
    ct[i] = cur.clamped (bx * kB + i % kB, by * kB + i / kB);
  for (int i = lane; i < kT * kT; i += 32)
    pt[i / kT][i % kT] = prev.clamped (
        bx * kB + i % kT - kMotionSearch, by * kB + i / kT - kMotionSearch);
  __syncwarp ();
  float best = 3.4e38f;
  int best_k = 0;
  for (int k = lane; k < kSide * kSide; k += 32) {
    const int dx = k % kSide - kMotionSearch, dy = k / kSide - kMotionSearch;
    float s = 0.f;
    /* The tile holds the reads clamped to the level as block_sads makes
     * them: pixel (px, py) moved by v is at (px + dx, py + dy) + R. */
    for (int i = 0; i < kB * kB; i++)
      s += fabsf (
          ct[i] - pt[i / kB + dy + kMotionSearch][i % kB + dx + kMotionSearch]);
    const float cost
        = s * (1.f / (kB * kB)) + lambda * (float)(abs (dx) + abs (dy));
    if (cost < best) {
      best = cost;
      best_k = k;
    }
  }
  for (int o = 16; o; o >>= 1) {
    const float ob = __shfl_xor_sync (0xffffffffu, best, o);
    const int ok = __shfl_xor_sync (0xffffffffu, best_k, o);
    if (ob < best || (ob == best && ok < best_k)) {
      best = ob;
      best_k = ok;
    }
  }
  if (lane == 0)
    out[block] = make_int2 (
        best_k % kSide - kMotionSearch, best_k / kSide - kMotionSearch);
}

__device__ __forceinline__ int median9 (int *v)
{
#pragma unroll
  for (int i = 0; i < 5; i++)
#pragma unroll
    for (int j = i + 1; j < 9; j++)
      if (v[j] < v[i]) {
        const int t = v[i];
        v[i] = v[j];
        v[j] = t;
      }
  return v[4];
}

/* The component-wise median of the 3 x 3 vectors around (@bx, @by) of an
 * @nbx x @nby field, its edges replicated; with kParent, @f is the next
 * coarser level's field (@pbx x @pby) and each vector its parent's,
 * doubled. */
template <bool kParent = false>
__device__ __forceinline__ int2 median3 (
    const int2 *f, int nbx, int nby, int bx, int by, int pbx = 0, int pby = 0)
{
  int xs[9], ys[9];
#pragma unroll
  for (int j = 0; j < 3; j++)
#pragma unroll
    for (int i = 0; i < 3; i++) {
      int x = clampi (bx + i - 1, 0, nbx - 1),
          y = clampi (by + j - 1, 0, nby - 1);
      int2 v;
      if (kParent) {
        v = f[min (y / 2, pby - 1) * pbx + min (x / 2, pbx - 1)];
        v.x *= 2;
        v.y *= 2;
      } else {
        v = f[y * nbx + x];
      }
      xs[j * 3 + i] = v.x;
      ys[j * 3 + i] = v.y;
    }
  return make_int2 (median9 (xs), median9 (ys));
}

/* A finer level: the parent's vector and its four neighbours', doubled,
 * and zero; the best by cost (mean |difference| + lambda |v - the
 * parent's 3 x 3 median, doubled|_1), then the eight integer steps around
 * it. */
__global__ void search_refine (Level cur, Level prev, int nbx, int nby,
    const int2 *parent, int pbx, int pby, float lambda, int2 *out)
{
  const int block = blockIdx.x * kMotionWarps + threadIdx.x / 32;
  if (block >= nbx * nby)
    return;
  const int bx = block % nbx, by = block / nbx;
  const int px = min (bx / 2, pbx - 1), py = min (by / 2, pby - 1);
  int2 m = median3 (parent, pbx, pby, px, py);
  m.x *= 2;
  m.y *= 2;
  float c[kLanePixels];
  lane_pixels (cur, bx, by, c);
  auto penalty = [&] (int2 v) {
    return lambda * (float)(abs (v.x - m.x) + abs (v.y - m.y));
  };
  const int2 parents[6] = {
    parent[py * pbx + px],
    parent[max (py - 1, 0) * pbx + px],
    parent[min (py + 1, pby - 1) * pbx + px],
    parent[py * pbx + max (px - 1, 0)],
    parent[py * pbx + min (px + 1, pbx - 1)],
    make_int2 (0, 0),
  };
  int2 cands[6];
#pragma unroll
  for (int k = 0; k < 6; k++)
    cands[k] = make_int2 (2 * parents[k].x, 2 * parents[k].y);
  float sad6[6], sad[8];
  block_sads (c, prev, bx, by, cands, sad6);
  float best = 3.4e38f;
  int2 b = make_int2 (0, 0);
#pragma unroll
  for (int k = 0; k < 6; k++) {
    const float cost = sad6[k] + penalty (cands[k]);
    if (cost < best) {
      best = cost;
      b = cands[k];
    }
  }
  /* The eight integer steps around it, in row order. */
  int2 steps[8];
#pragma unroll
  for (int k = 0; k < 8; k++) {
    const int j = k < 4 ? k : k + 1;
    steps[k] = make_int2 (b.x + j % 3 - 1, b.y + j / 3 - 1);
  }
  block_sads (c, prev, bx, by, steps, sad);
#pragma unroll
  for (int k = 0; k < 8; k++) {
    const float cost = sad[k] + penalty (steps[k]);
    if (cost < best) {
      best = cost;
      b = steps[k];
    }
  }
  if ((threadIdx.x & 31) == 0)
    out[block] = b;
}

/* The full-size level's sub-pixel step: inverse-compositional
 * Lucas-Kanade for a translation over the block and a margin, from the 3
 * x 3 median of the half-size level's integer vectors, doubled (no
 * integer search at full size: Lucas-Kanade's steps of up to a pixel
 * take it from there); with the block's confidence, the
 * smaller eigenvalue of the window's structure tensor (Sobel gradients)
 * less a floor. A warp a block, kSubX x kSubY blocks sharing a tile of the
 * current frame (edges replicated), from which each window's samples and
 * gradients come; the previous output read through the texture units. */
constexpr int kSubX = kMotionSubX, kSubY = kMotionSubY;
constexpr int kSubTileW = kSubX * kB + 2 * kMotionMargin + 2;
constexpr int kSubTileH = kSubY * kB + 2 * kMotionMargin + 2;

__global__ void __launch_bounds__ (32 * kSubX * kSubY)
    subpixel (Level0 cur, cudaTextureObject_t prev, int nbx, int nby,
        const int2 *parent, int pbx, int pby, float noise, float4 *out)
{
  __shared__ float tile[kSubTileH][kSubTileW];
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int tx0 = blockIdx.x * kSubX * kB - kMotionMargin - 1;
  const int ty0 = blockIdx.y * kSubY * kB - kMotionMargin - 1;
  for (int i = threadIdx.x; i < kSubTileW * kSubTileH; i += blockDim.x)
    tile[i / kSubTileW][i % kSubTileW]
        = cur.clamped (tx0 + i % kSubTileW, ty0 + i / kSubTileW);
  __syncthreads ();
  const int bx = blockIdx.x * kSubX + warp % kSubX;
  const int by = blockIdx.y * kSubY + warp / kSubX;
  if (bx >= nbx || by >= nby)
    return;
  /* The window's top-left in the tile, past its one-pixel apron. */
  const int wx = (warp % kSubX) * kB + 1, wy = (warp / kSubX) * kB + 1;
  constexpr int kPer = kWin * kWin / 32;
  float t[kPer], gx[kPer], gy[kPer];
  float a11 = 0.f, a22 = 0.f, a12 = 0.f, sxx = 0.f, syy = 0.f, sxy = 0.f;
#pragma unroll
  for (int k = 0; k < kPer; k++) {
    const int i = lane + 32 * k;
    const int x = wx + i % kWin, y = wy + i / kWin;
    const float *rm = tile[y - 1], *r = tile[y], *rp = tile[y + 1];
    t[k] = r[x];
    gx[k] = 0.5f * (r[x + 1] - r[x - 1]);
    gy[k] = 0.5f * (rp[x] - rm[x]);
    a11 += gx[k] * gx[k];
    a22 += gy[k] * gy[k];
    a12 += gx[k] * gy[k];
    /* Sobel / 8: the central differences smoothed across, whose noise
     * the confidence's floor is made for. */
    const float sx = 0.125f * (rm[x + 1] - rm[x - 1] + rp[x + 1] - rp[x - 1])
        + 0.5f * gx[k];
    const float sy = 0.125f * (rp[x - 1] - rm[x - 1] + rp[x + 1] - rm[x + 1])
        + 0.5f * gy[k];
    sxx += sx * sx;
    syy += sy * sy;
    sxy += sx * sy;
  }
  for (int o = 16; o; o >>= 1) {
    a11 += __shfl_xor_sync (0xffffffffu, a11, o);
    a22 += __shfl_xor_sync (0xffffffffu, a22, o);
    a12 += __shfl_xor_sync (0xffffffffu, a12, o);
    sxx += __shfl_xor_sync (0xffffffffu, sxx, o);
    syy += __shfl_xor_sync (0xffffffffu, syy, o);
    sxy += __shfl_xor_sync (0xffffffffu, sxy, o);
  }
  const float lmin = 0.5f
      * (sxx + syy - sqrtf ((sxx - syy) * (sxx - syy) + 4.f * sxy * sxy));
  const float energy = (float)(kWin * kWin) * noise * noise;
  const float mu = energy * 0.25f * kMotionDamping;
  a11 += mu;
  a22 += mu;
  const float det = a11 * a22 - a12 * a12;
  const int2 m = median3<true> (parent, nbx, nby, bx, by, pbx, pby);
  float fx = (float)m.x, fy = (float)m.y;
  const float x0 = (float)(bx * kB - kMotionMargin);
  const float y0 = (float)(by * kB - kMotionMargin);
  for (int it = 0; it < kMotionIterations; it++) {
    float b1 = 0.f, b2 = 0.f;
#pragma unroll
    for (int k = 0; k < kPer; k++) {
      const int i = lane + 32 * k;
      const float e = fetch (prev, x0 + (float)(i % kWin) + fx,
                          y0 + (float)(i / kWin) + fy)
          - t[k];
      b1 += gx[k] * e;
      b2 += gy[k] * e;
    }
    for (int o = 16; o; o >>= 1) {
      b1 += __shfl_xor_sync (0xffffffffu, b1, o);
      b2 += __shfl_xor_sync (0xffffffffu, b2, o);
    }
    fx -= clampf ((a22 * b1 - a12 * b2) / det, -1.f, 1.f);
    fy -= clampf ((a11 * b2 - a12 * b1) / det, -1.f, 1.f);
  }
  if (lane == 0)
    out[by * nbx + bx]
        = make_float4 (fx, fy, fmaxf (lmin - kMotionFloor * energy, 0.f), 0.f);
}

/* ------------------------------------------------------------------ */
/* The pull-push over the block field: confident blocks keep their
 * vectors, weaker ones blend towards the confidence-weighted mean of ever
 * larger neighbourhoods, down to zero where no block is sure. */

/* Cells of level @l of an @n-wide field (each level halves, rounding
 * up). */
__host__ __device__ __forceinline__ int level_cells (int n, int l)
{
  for (int i = 0; i < l; i++)
    n = (n + 1) / 2;
  return n;
}

/* Where level @l (1 ..) starts in the pull buffer. */
__host__ __device__ __forceinline__ size_t pull_offset (int nbx, int nby, int l)
{
  size_t o = 0;
  for (int i = 1; i < l; i++)
    o += (size_t)level_cells (nbx, i) * level_cells (nby, i);
  return o;
}

constexpr int kPullTile = 1 << kMotionPullLevels;

/* A block of threads per kPullTile x kPullTile blocks of the field: the
 * sums of (w, w vx, w vy) of every level above the field's within it. */
__global__ void pull (const float4 *fine, int nbx, int nby, float4 *sums)
{
  __shared__ float4 s[kPullTile * kPullTile];
  const int tx = threadIdx.x % kPullTile, ty = threadIdx.x / kPullTile;
  const int bx = blockIdx.x * kPullTile + tx, by = blockIdx.y * kPullTile + ty;
  float4 v = make_float4 (0.f, 0.f, 0.f, 0.f);
  if (bx < nbx && by < nby) {
    const float4 f = fine[by * nbx + bx];
    v = make_float4 (f.z, f.z * f.x, f.z * f.y, 0.f);
  }
  s[threadIdx.x] = v;
  __syncthreads ();
  for (int l = 1, step = 1; l <= kMotionPullLevels; l++, step *= 2) {
    /* Cell (tx, ty) of level l - 1 sits at s[(ty step) kPullTile + tx
     * step]; level l's cells gather four of them. */
    float4 a = make_float4 (0.f, 0.f, 0.f, 0.f);
    const bool mine = (tx % (2 * step)) == 0 && (ty % (2 * step)) == 0;
    if (mine) {
      for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
          const float4 q = s[(ty + j * step) * kPullTile + tx + i * step];
          a.x += q.x;
          a.y += q.y;
          a.z += q.z;
        }
    }
    __syncthreads ();
    if (mine) {
      s[threadIdx.x] = a;
      const int cw = level_cells (nbx, l), ch = level_cells (nby, l);
      const int cx = bx >> l, cy = by >> l;
      if (cx < cw && cy < ch)
        sums[pull_offset (nbx, nby, l) + (size_t)cy * cw + cx] = a;
    }
    __syncthreads ();
  }
}

/* A thread a block: its vector pushed down from the coarsest level. */
__global__ void push (const float4 *fine, const float4 *sums, int nbx, int nby,
    float shrink, float2 *field)
{
  const int bx = blockIdx.x * blockDim.x + threadIdx.x;
  const int by = blockIdx.y;
  if (bx >= nbx || by >= nby)
    return;
  const int L = kMotionPullLevels;
  float4 c = sums[pull_offset (nbx, nby, L)
      + (size_t)(by >> L) * level_cells (nbx, L) + (bx >> L)];
  float vx = c.y / (c.x + shrink), vy = c.z / (c.x + shrink);
  for (int l = L - 1; l >= 0; l--) {
    if (l == 0) {
      const float4 f = fine[by * nbx + bx];
      c = make_float4 (f.z, f.z * f.x, f.z * f.y, 0.f);
    } else {
      c = sums[pull_offset (nbx, nby, l)
          + (size_t)(by >> l) * level_cells (nbx, l) + (bx >> l)];
    }
    const float a = fminf (c.x / shrink, 1.f);
    const float wsum = fmaxf (c.x, 1e-9f);
    vx = a * c.y / wsum + (1.f - a) * vx;
    vy = a * c.z / wsum + (1.f - a) * vy;
  }
  field[by * nbx + bx] = make_float2 (vx, vy);
}

/* ------------------------------------------------------------------ */
/* The scene cut: on the quarter-size level, the pixels whose 3 x 3 mean
 * of (current - compensated previous) a gate of the temporal sigma
 * rejects (g < 0.1: above sqrt (2 ln 10) sigma). The quarter-size level
 * separates cuts from motion as well as the half-size one for a quarter
 * of the work (what-was-tried.md). */

__global__ void count_rejected (Level cur, cudaTextureObject_t prev,
    const float2 *field, int nbx, int nby, float limit, unsigned int *count)
{
  __shared__ float tile[kMotionTileH + 2][kMotionTileW + 2];
  const int w = cur.w, h = cur.h;
  const int x0 = blockIdx.x * kMotionTileW - 1;
  const int y0 = blockIdx.y * kMotionTileH - 1;
  for (int i = threadIdx.y * kMotionTileW + threadIdx.x;
       i < (kMotionTileW + 2) * (kMotionTileH + 2);
       i += kMotionTileW * kMotionTileH) {
    const int x = clampi (x0 + i % (kMotionTileW + 2), 0, w - 1);
    const int y = clampi (y0 + i / (kMotionTileW + 2), 0, h - 1);
    const float2 v
        = motion_at (field, nbx, nby, 4.f * x + 1.5f, 4.f * y + 1.5f);
    tile[i / (kMotionTileW + 2)][i % (kMotionTileW + 2)]
        = cur.at (x, y) - fetch (prev, x + 0.25f * v.x, y + 0.25f * v.y);
  }
  __syncthreads ();
  const int x = x0 + 1 + threadIdx.x, y = y0 + 1 + threadIdx.y;
  bool rejected = false;
  if (x < w && y < h) {
    float s = 0.f;
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++)
        s += tile[threadIdx.y + j][threadIdx.x + i];
    rejected = fabsf (s) * (1.f / 9) > limit;
  }
  const unsigned int votes = __ballot_sync (0xffffffffu, rejected);
  if ((threadIdx.x & 31) == 0 && votes)
    atomicAdd (count, (unsigned int)__popc (votes));
}

} /* namespace */

extern "C" {

cudaError_t cbf_motion_scratch_alloc (
    CbfMotionScratch *s, int width, int height)
{
  const int nbx = (width + kB - 1) / kB, nby = (height + kB - 1) / kB;
  cudaError_t err = cudaSuccess;
  if (s->cur0 && s->width == width && s->height == height)
    return cudaSuccess;
  cbf_motion_scratch_free (s);
  s->width = width;
  s->height = height;
  s->blocks_x = nbx;
  s->blocks_y = nby;
  for (int l = 0; l < CBF_MOTION_LEVELS && err == cudaSuccess; l++) {
    /* Rows of whole 128-byte lines, as the texture units need them. */
    const int lw = width >> l, lh = height >> l;
    const int lbx = (lw + kB - 1) / kB, lby = (lh + kB - 1) / kB;
    const size_t sample = l ? sizeof (float) : sizeof (__half);
    const int per_line = (int)(128 / sample);
    s->pitch[l] = (lw + per_line - 1) / per_line * per_line;
    const size_t bytes = (size_t)s->pitch[l] * (lh > 0 ? lh : 1) * sample;
    void *prev = nullptr;
    if (l == 0) {
      err = cudaMalloc (&s->cur0, bytes);
      if (err == cudaSuccess)
        err = cudaMalloc (&s->prev0, bytes);
      prev = s->prev0;
    } else {
      err = cudaMalloc (&s->cur[l], bytes);
      if (err == cudaSuccess)
        err = cudaMalloc (&s->prev[l], bytes);
      prev = s->prev[l];
    }
    if (err == cudaSuccess && l > 0)
      err = cudaMalloc (&s->coarse[l],
          (size_t)(lbx > 0 ? lbx : 1) * (lby > 0 ? lby : 1) * sizeof (int2));
    if (err == cudaSuccess && lw > 0 && lh > 0) {
      cudaResourceDesc res = {};
      cudaTextureDesc tex = {};
      res.resType = cudaResourceTypePitch2D;
      res.res.pitch2D.devPtr = prev;
      res.res.pitch2D.desc
          = l ? cudaCreateChannelDesc<float> () : cudaCreateChannelDescHalf ();
      res.res.pitch2D.width = lw;
      res.res.pitch2D.height = lh;
      res.res.pitch2D.pitchInBytes = (size_t)s->pitch[l] * sample;
      tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
      tex.filterMode = cudaFilterModeLinear;
      tex.readMode = cudaReadModeElementType;
      err = cudaCreateTextureObject (&s->prev_tex[l], &res, &tex, nullptr);
    }
  }
  if (err == cudaSuccess)
    err = cudaMalloc (&s->fine, (size_t)nbx * nby * sizeof (float4));
  if (err == cudaSuccess)
    err = cudaMalloc (&s->pull,
        (pull_offset (nbx, nby, kMotionPullLevels + 1) + 1) * sizeof (float4));
  if (err == cudaSuccess)
    err = cudaMalloc (&s->field, (size_t)nbx * nby * sizeof (float2));
  if (err == cudaSuccess)
    err = cudaMalloc (&s->cut_count, sizeof (unsigned int));
  if (err == cudaSuccess)
    err = cudaMalloc (&s->luma_d,
        (size_t)(width > 0 ? width : 1) * (height > 0 ? height : 1)
            * sizeof (float));
  if (err != cudaSuccess)
    cbf_motion_scratch_free (s);
  return err;
}

void cbf_motion_scratch_free (CbfMotionScratch *s)
{
  for (int l = 0; l < CBF_MOTION_LEVELS; l++) {
    if (s->prev_tex[l])
      cudaDestroyTextureObject (s->prev_tex[l]);
    cudaFree (s->cur[l]);
    cudaFree (s->prev[l]);
    cudaFree (s->coarse[l]);
  }
  cudaFree (s->cur0);
  cudaFree (s->prev0);
  cudaFree (s->fine);
  cudaFree (s->pull);
  cudaFree (s->field);
  cudaFree (s->cut_count);
  cudaFree (s->luma_d);
  *s = CbfMotionScratch ();
}

static Level0 level0_of (uint16_t *p, const CbfMotionScratch *s)
{
  Level0 v;
  v.p = reinterpret_cast<__half *> (p);
  v.w = s->width;
  v.h = s->height;
  v.pitch = s->pitch[0];
  return v;
}

static Level level_of (float *const *levels, const CbfMotionScratch *s, int l)
{
  Level v;
  v.p = levels[l];
  v.w = s->width >> l;
  v.h = s->height >> l;
  v.pitch = s->pitch[l];
  return v;
}

cudaError_t cbf_motion_estimate (const CbfMotionView *cur,
    const CbfMotionView *prev, const CbfMotionLuma *luma, float gate_sigma,
    CbfMotionScratch *s, cudaStream_t stream)
{
  const int w = s->width, h = s->height;
  const dim3 tile (kMotionTileW, kMotionTileH);
  const float noise = fmaxf (luma->noise, 1.f);
  auto blocks_of = [] (int n) {
    return (unsigned)((n + kMotionWarps - 1) / kMotionWarps);
  };
  cudaError_t err
      = cudaMemsetAsync (s->cut_count, 0, sizeof (unsigned int), stream);

  /* No previous output, or a frame too small for the coarsest level: no
   * motion. */
  if (!prev || (w >> (CBF_MOTION_LEVELS - 1)) < 1
      || (h >> (CBF_MOTION_LEVELS - 1)) < 1) {
    if (err == cudaSuccess)
      err = cudaMemsetAsync (s->field, 0,
          (size_t)s->blocks_x * s->blocks_y * sizeof (float2), stream);
    return err;
  }
  if (err != cudaSuccess)
    return err;

  const dim3 grid0 ((w + 2 * kMotionTileW - 1) / (2 * kMotionTileW),
      (h + 2 * kMotionTileH - 1) / (2 * kMotionTileH));
  const Level0 cur0 = level0_of (s->cur0, s), prev0 = level0_of (s->prev0, s);
  const Level cur1 = level_of (s->cur, s, 1), prev1 = level_of (s->prev, s, 1);
  const Level cur2 = level_of (s->cur, s, 2), prev2 = level_of (s->prev, s, 2);
  const bool color = cur->channels == 3;
  switch (cur->samples) {
  case CBF_MOTION_SAMPLES_8:
    (color ? levels_of_view<CBF_MOTION_SAMPLES_8, true>
           : levels_of_view<CBF_MOTION_SAMPLES_8,
               false>)<<<grid0, tile, 0, stream>>> (
        *cur, *luma, cur0, cur1, cur2);
    break;
  case CBF_MOTION_SAMPLES_16:
    (color ? levels_of_view<CBF_MOTION_SAMPLES_16, true>
           : levels_of_view<CBF_MOTION_SAMPLES_16,
               false>)<<<grid0, tile, 0, stream>>> (
        *cur, *luma, cur0, cur1, cur2);
    break;
  default:
    levels_of_view<CBF_MOTION_SAMPLES_10A2, true>
        <<<grid0, tile, 0, stream>>> (*cur, *luma, cur0, cur1, cur2);
    break;
  }
  if (prev->samples == CBF_MOTION_SAMPLES_8) {
    if (color)
      levels_of_state<<<grid0, tile, 0, stream>>> (
          state_of<3, false> (prev), *luma, prev0, prev1, prev2);
    else
      levels_of_state<<<grid0, tile, 0, stream>>> (
          state_of<1, false> (prev), *luma, prev0, prev1, prev2);
  } else if (color) {
    levels_of_state<<<grid0, tile, 0, stream>>> (
        state_of<3, true> (prev), *luma, prev0, prev1, prev2);
  } else {
    levels_of_state<<<grid0, tile, 0, stream>>> (
        state_of<1, true> (prev), *luma, prev0, prev1, prev2);
  }
  /* The search, coarsest level first. */
  const float lambda = kMotionLambda * fmaxf (luma->noise, 2.f);
  int L = CBF_MOTION_LEVELS - 1;
  int lbx = ((w >> L) + kB - 1) / kB, lby = ((h >> L) + kB - 1) / kB;
  search_coarse<<<blocks_of (lbx * lby), 32 * kMotionWarps, 0, stream>>> (
      level_of (s->cur, s, L), level_of (s->prev, s, L), lbx, lby,
      lambda / (1 << L), s->coarse[L]);
  for (int l = L - 1; l >= 1; l--) {
    const int pbx = lbx, pby = lby;
    lbx = ((w >> l) + kB - 1) / kB;
    lby = ((h >> l) + kB - 1) / kB;
    search_refine<<<blocks_of (lbx * lby), 32 * kMotionWarps, 0, stream>>> (
        level_of (s->cur, s, l), level_of (s->prev, s, l), lbx, lby,
        s->coarse[l + 1], pbx, pby, lambda / (1 << l), s->coarse[l]);
  }
  const int pbx = lbx, pby = lby;
  lbx = s->blocks_x;
  lby = s->blocks_y;
  subpixel<<<dim3 ((lbx + kSubX - 1) / kSubX, (lby + kSubY - 1) / kSubY),
      32 * kSubX * kSubY, 0, stream>>> (
      cur0, s->prev_tex[0], lbx, lby, s->coarse[1], pbx, pby, noise, s->fine);
  const float energy = (float)(kWin * kWin) * noise * noise;
  pull<<<dim3 ((lbx + kPullTile - 1) / kPullTile,
             (lby + kPullTile - 1) / kPullTile),
      kPullTile * kPullTile, 0, stream>>> (s->fine, lbx, lby, s->pull);
  push<<<dim3 ((lbx + 127) / 128, lby), 128, 0, stream>>> (
      s->fine, s->pull, lbx, lby, kMotionShrink * energy, s->field);

  count_rejected<<<dim3 ((cur2.w + kMotionTileW - 1) / kMotionTileW,
                       (cur2.h + kMotionTileH - 1) / kMotionTileH),
      tile, 0, stream>>> (cur2, s->prev_tex[2], s->field, lbx, lby,
      2.1459660f * gate_sigma, s->cut_count);
  return cudaGetLastError ();
}

} /* extern "C" */
