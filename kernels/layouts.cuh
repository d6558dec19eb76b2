/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What every kernel of the library shares: the border rule, where a
 * launch reads and writes (Io: layouts_io.cuh), the pixel layouts that turn
 * a source pixel into a 32-bit tile word and back (layouts_8bit.cuh,
 * layouts_deep.cuh, layouts_guided.cuh), the checks of a launch's planes
 * (make_io), and CBF_ENTRY, which makes a layout's C entry point. */

#ifndef CBF_LAYOUTS_CUH
#define CBF_LAYOUTS_CUH

#include "device.h"
#include "layouts_guided.cuh"

#include <cuda_fp16.h>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace {

/* Whether layout T computes its range weights (T::kExactRange). */
template <class T, class = void> struct LayoutExactRange
{
  static constexpr bool value = false;
};
template <class T>
struct LayoutExactRange<T, std::void_t<decltype (T::kExactRange)>>
{
  static constexpr bool value = T::kExactRange;
};

/* The range weight of tap word @p for the output whose word is @c, as the
 * wide and generic kernels take it: the range table's entry for their
 * distance, or the layout's computed weight. */
template <class T>
__device__ __forceinline__ float range_weight (const Io &io,
    const float *range_lut, const typename T::Word &p,
    const typename T::Word &c)
{
  if constexpr (LayoutExactRange<T>::value)
    return T::exact_range (io, p, c);
  else
    return range_at (range_lut, T::lut_offset (p, c));
}

typedef DeepGuided<2, 3> DeepGuidedPair16;
typedef DeepGuided<2, 0> DeepGuidedPair12;
typedef DeepPlanar<5> DeepPlanar16;
typedef DeepPlanar<0> DeepPlanar10;

/* Whether tap (dx, dy) is inside the disc of radius R. */
template <int R> __host__ __device__ constexpr bool in_disc (int dx, int dy)
{
  return dy >= -R && dy <= R && dx * dx + dy * dy <= R * R;
}

/* ------------------------------------------------------------------ */
/* Shared tiles */

/* A tile entry from a source pixel's word: the word itself, or its
 * channels as floats (converted once, for kernels that read each pixel
 * many times). */
template <class T>
__device__ __forceinline__ void tile_put (uint32_t &entry, uint32_t word)
{
  entry = word;
}
template <class T>
__device__ __forceinline__ void tile_put (uint2 &entry, uint2 word)
{
  entry = word;
}
template <class T>
__device__ __forceinline__ void tile_put (uint8_t &entry, uint32_t word)
{
  entry = (uint8_t)word;
}
template <class T>
__device__ __forceinline__ void tile_put (
    typename T::Value &entry, typename T::Word word)
{
  entry = T::template unpack<false> (word);
}

/* C consecutive words (32 or 64 bits) from an address aligned to their
 * size, in 16-byte loads where they fill them. */
template <int C, class W>
__device__ __forceinline__ void wide_load (const W *at, W (&to)[C])
{
  constexpr int kBytes = C * (int)sizeof (W);
  static_assert (sizeof (W) == 4 || sizeof (W) == 8, "32- or 64-bit words");
  if constexpr (kBytes % 16 == 0) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; i++) {
      const uint4 v = reinterpret_cast<const uint4 *> (at)[i];
      memcpy (reinterpret_cast<char *> (to) + 16 * i, &v, 16);
    }
  } else if constexpr (kBytes == 8) {
    const uint2 v = *reinterpret_cast<const uint2 *> (at);
    memcpy (to, &v, 8);
  } else {
    to[0] = at[0];
  }
}

/* A block's tile of source pixels (x0 - R, y0 - R) .. (x0 - R + kTileW - 1,
 * y0 - R + kTileH - 1), read by the border rule past its edges, walked as one
 * array by the block's kThreads threads: what the Gaussian's column kernel
 * uses, whose tile holds float triples (walked row by row, as the
 * bilateral kernels' tiles are, it was slower: what-was-tried.md,
 * "Gaussian"). */
template <class T, int kTileW, int kTileH, int R, int kThreads, class Entry>
__device__ __forceinline__ void load_tile_flat (
    Entry *tile, const Io &io, int x0, int y0, int tid)
{
  if (x0 >= R && y0 >= R && x0 + kTileW - R <= io.width
      && y0 + kTileH - R <= io.height) {
    for (int i = tid; i < kTileW * kTileH; i += kThreads) {
      int ty = i / kTileW, tx = i - ty * kTileW;
      tile_put<T> (tile[i], T::load (io, y0 + ty - R, x0 + tx - R));
    }
  } else {
    for (int i = tid; i < kTileW * kTileH; i += kThreads) {
      int ty = i / kTileW, tx = i - ty * kTileW;
      tile_put<T> (tile[i],
          T::template load<true> (
              io, io.row (y0 + ty - R), io.col (x0 + tx - R)));
    }
  }
}

/* CASE (R) for each radius that has compile-time kernels (the cases of a
 * launcher's switch over the radius). */
#define CBF_EACH_FAST_RADIUS(CASE)                                             \
  CASE (1) CASE (2) CASE (3) CASE (4) CASE (5) CASE (6) CASE (7) CASE (8)
static_assert (CBF_FAST_MAX_RADIUS == 8,
    "CBF_EACH_FAST_RADIUS names each specialised radius");
/* CASE (R) for the radii above those that one 8-bit channel's and 32-bit
 * colour's specialised kernels take too. */
#define CBF_EACH_FAST_EXTENDED_RADIUS(CASE) CASE (9) CASE (10)
static_assert (CBF_FAST_EXTENDED_MAX_RADIUS == 10,
    "CBF_EACH_FAST_EXTENDED_RADIUS names each specialised radius");

/* The most a sample of layout T keeps: its kSampleMask, where it has one
 * (the deep layouts), else every bit of a 16-bit container. */
template <class T, class = void> struct LayoutSampleMask
{
  static constexpr uint32_t value = 0xffffu;
};
template <class T>
struct LayoutSampleMask<T, std::void_t<decltype (T::kSampleMask)>>
{
  static constexpr uint32_t value = T::kSampleMask;
};

/* The Io of a launch, after checking the planes against the layout and
 * taking the temporal filter's part of @w. */
template <class T>
cudaError_t make_io (const CbfPlane *src, const CbfPlane *dst, int row_begin,
    int row_end, const CbfFilterParams *w, Io *io)
{
  *io = Io{};
  /* The temporal filter's state: one a channel filtered on its own, or
   * one for three filtered together (T::kStates), every one or none. */
  for (int l = 0; dst[0].state && l < T::kStates; l++) {
    if (!dst[l].state || w->temporal_gain < 0.f || w->temporal_gate <= 0.f)
      return cudaErrorInvalidValue;
    io->state[l] = dst[l].state;
    io->state_pitch[l] = dst[l].state_pitch;
  }
  io->temporal_gain = w->temporal_gain;
  io->temporal_gate = w->temporal_gate;
  if (w->border < CBF_BORDER_REFLECT_101 || w->border > CBF_BORDER_CONSTANT
      || (w->border == CBF_BORDER_CONSTANT && !w->border_pixel))
    return cudaErrorInvalidValue;
  io->border = w->border;
  io->border_pixel = w->border == CBF_BORDER_CONSTANT
      ? static_cast<const uint8_t *> (w->border_pixel) + CBF_BORDER_PIXEL_MARGIN
      : nullptr;
  for (int p = 0; p < T::kPlanes; p++) {
    if (src[p].width != src[0].width || src[p].height != src[0].height
        || dst[p].width != src[0].width || dst[p].height != src[0].height
        || src[p].pixel_bytes != src[0].pixel_bytes
        || dst[p].pixel_bytes != src[0].pixel_bytes)
      return cudaErrorInvalidValue;
    io->src[p] = src[p].data;
    io->dst[p] = dst[p].data;
    io->src_pitch[p] = src[p].pitch_bytes;
    io->dst_pitch[p] = dst[p].pitch_bytes;
  }
  /* The guide: the plane after the channels' (GuidedPair). */
  if constexpr (T::kGuided) {
    const CbfPlane &g = src[T::kPlanes];
    if (!g.data || g.width != src[0].width || g.height != src[0].height)
      return cudaErrorInvalidValue;
    io->src[2] = g.data;
    io->src_pitch[2] = g.pitch_bytes;
  }
  if (src->width <= 0 || src->height <= 0 || src->pixel_bytes < 1
      || (T::kPixelBytes && src->pixel_bytes != T::kPixelBytes) || row_begin < 0
      || row_end > src->height || row_begin >= row_end || src->sample_shift < 0
      || src->sample_shift > 15 || dst->sample_shift != src->sample_shift
      || src->sample_bits < 0 || src->sample_bits > 16
      || dst->sample_bits != src->sample_bits)
    return cudaErrorInvalidValue;
  io->pixel_bytes = src->pixel_bytes;
  io->sample_shift = src->sample_shift;
  io->sample_mask = ((src->sample_bits ? (1u << src->sample_bits) - 1 : 0xffffu)
                        & LayoutSampleMask<T>::value)
      << src->sample_shift;
  io->width = src->width;
  io->height = src->height;
  /* Drop an error left by an earlier, unrelated runtime call on this thread
   * (a failed allocation, say), so that only this launch's is returned. */
  cudaGetLastError ();
  return cudaSuccess;
}

/* Allows @kernel, whose shared memory depends on run-time parameters, all
 * the dynamic shared memory the current device has, once a device (the
 * first time it is asked for, recorded in @allowed), and gives that
 * amount in @limit. */
template <class Kernel>
cudaError_t allow_device_smem (
    Kernel kernel, std::atomic<int> (&allowed)[64], int *limit)
{
  int device = 0;
  CbfDeviceFigures figures;
  cudaError_t err = cudaGetDevice (&device);
  if (err != cudaSuccess)
    return err;
  *limit = device < 64 ? allowed[device].load (std::memory_order_relaxed) : 0;
  if (*limit)
    return cudaSuccess;
  err = cbf_device_figures (&figures);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute (kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        figures.smem_per_block_optin);
  if (err != cudaSuccess)
    return err;
  *limit = figures.smem_per_block_optin;
  if (device < 64)
    allowed[device].store (*limit, std::memory_order_relaxed);
  return cudaSuccess;
}

} /* namespace */

/* The C entry point @name: @launcher for @Layout. A filter's kernel file
 * makes one for each line of bilateral.h's layout tables (CBF_LAYOUTS_8BIT,
 * CBF_LAYOUTS_DEEP) with a callback of its own that names its launcher. */
#define CBF_ENTRY(name, launcher, Layout)                                      \
  extern "C" cudaError_t name (const CbfPlane *src, const CbfPlane *dst,       \
      int row_begin, int row_end, const CbfFilterParams *w,                    \
      cudaStream_t stream)                                                     \
  {                                                                            \
    return launcher<Layout> (src, dst, row_begin, row_end, w, stream);         \
  }

#endif /* CBF_LAYOUTS_CUH */
