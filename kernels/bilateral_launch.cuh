/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The bilateral filter's launcher, OpenCV-exact semantics:
 * circular window of radius r, the border rule (border_index), weight
 * space(dx, dy) * range_lut[L1 colour distance], float sums, round half to
 * even.
 *
 * It picks one of three kernels:
 * - the specialised one (radius <= CBF_FAST_MAX_RADIUS; one 8-bit
 *   channel's, and 8-bit colour's where it fits (fast_color_fits), to
 *   CBF_FAST_EXTENDED_MAX_RADIUS, there one instantiation for the four
 *   colour layouts (ColorAny); a template per radius): each thread
 *   computes K rows of one or two adjacent output
 *   pixels, so every neighbour it loads from the shared tile serves up to
 *   2K outputs from a register; the window's taps are unrolled at compile
 *   time (no tap outside the disc is visited, no index arithmetic), and the
 *   spatial weights are read whole with the range weight from a table per
 *   distance class. Per tap that leaves: one SIMD sum of absolute byte
 *   differences, one table load (colour above radius 8 and guided: and a
 *   half-to-float conversion), and the multiply-adds of the sums (colour
 *   to radius 8: 16-bit integer weights and integer sums of the bytes; one
 *   channel: the same, an integer multiply-add and half an add; its tile
 *   of source bytes read four at a time, and the taps between a thread's
 *   own outputs summed once for both) (bilateral_fast_channel.cuh,
 *   bilateral_fast_color.cuh, on bilateral_fast.cuh); samples deeper than
 *   8 bits take their own (bilateral_fast_deep.cuh), one channel of 16-bit
 *   samples to CBF_FAST_EXTENDED_MAX_RADIUS (deep_fast_max_radius);
 * - the wide one, radius above the specialised one's up to
 *   CBF_WIDE_MAX_RADIUS: the same K x C outputs a thread with the radius
 *   known at run time, each tap's spatial weight from a table padded with
 *   zeros around the disc, times its range weight (bilateral_wide.cuh);
 * - the generic one, any radius (above CBF_WIDE_MAX_RADIUS, or where the
 *   wide kernel's shared memory exceeds the device's): one thread per
 *   output pixel, tile and tables in shared memory (or read through L1 for
 *   very large radii) (bilateral_generic.cuh);
 * and at radius 1 for 32-bit colour the streaming one
 * (bilateral_stream.cuh). */

#ifndef CBF_BILATERAL_LAUNCH_CUH
#define CBF_BILATERAL_LAUNCH_CUH

#include "bilateral_fast_channel.cuh"
#include "bilateral_fast_color.cuh"
#include "bilateral_fast_deep.cuh"
#include "bilateral_generic.cuh"
#include "bilateral_stream.cuh"
#include "bilateral_wide.cuh"
#include "bilateral_wide_channel.cuh"

namespace {

/* The specialised kernel of layout T at radius R: one channel's or
 * colour's. */
template <class T, int R>
cudaError_t launch_fast_radius (const Io &io, int row_begin, int row_end,
    const CbfFilterParams *w, cudaStream_t stream)
{
  if constexpr (T::kClassWeights)
    return launch_fast_channel<T, R> (io, row_begin, row_end, w, stream);
  else
    return launch_fast_color<T, R> (io, row_begin, row_end, w, stream);
}

/* The wide kernel where it takes the radius and its shared memory fits
 * the device, else the generic one. One 8-bit channel has a wide kernel
 * of its own, which parameters that ask for a form pass over (wide_fold):
 * its fallback, the unfolded form, then runs on any GPU. */
template <class T>
cudaError_t launch_wide_or_generic (const Io &io, const CbfPlane *src,
    const CbfPlane *dst, int row_begin, int row_end, const CbfFilterParams *w,
    cudaStream_t stream)
{
  if (w->radius <= CBF_WIDE_MAX_RADIUS) {
    bool launched = false;
    cudaError_t err = cudaSuccess;
    if constexpr (T::kClassWeights && !T::kDeep) {
      if (w->wide_fold == 0)
        err = launch_wide_channel<T> (
            io, row_begin, row_end, w, stream, &launched);
    }
    if (err == cudaSuccess && !launched)
      err = launch_wide<T> (io, row_begin, row_end, w, stream, &launched);
    if (err != cudaSuccess || launched)
      return err == cudaSuccess ? cudaGetLastError () : err;
  }
  return launch_generic<T> (src, dst, row_begin, row_end, w, stream);
}

template <class T>
cudaError_t launch (const CbfPlane *src, const CbfPlane *dst, int row_begin,
    int row_end, const CbfFilterParams *w, cudaStream_t stream)
{
  Io io;
  cudaError_t err = bilateral_io<T> (src, dst, row_begin, row_end, w, &io);
  if (err != cudaSuccess)
    return err;
  /* 8-bit colour: the specialised kernel's blocks are the largest. */
  if constexpr (!T::kDeep && !T::kClassWeights) {
    if (w->small_launch)
      return launch_generic<T> (src, dst, row_begin, row_end, w, stream);
  }

  /* Deep samples: their own specialised kernel, no streaming one; a pair
   * of channels (P010's U and V) in two launches of the one-channel
   * kernel, whose machine code a kernel for pairs would double. */
  if constexpr (T::kDeep && T::kGridLayers > 1) {
    if (w->radius <= deep_fast_max_radius<typename T::Single> ()) {
      for (int c = 0; c < T::kGridLayers && err == cudaSuccess; c++)
        err = launch<typename T::Single> (
            src + c, dst + c, row_begin, row_end, w, stream);
      return err;
    }
    return launch_wide_or_generic<T> (
        io, src, dst, row_begin, row_end, w, stream);
  } else if constexpr (T::kDeep) {
    switch (w->radius) {
#define CBF_DEEP_CASE(R)                                                       \
  case R:                                                                      \
    if constexpr (R <= deep_fast_max_radius<T> ()) {                           \
      err = launch_fast_deep<T, R> (io, row_begin, row_end, w, stream);        \
      return err == cudaSuccess ? cudaGetLastError () : err;                   \
    }                                                                          \
    break;
      CBF_EACH_FAST_RADIUS (CBF_DEEP_CASE)
      CBF_EACH_FAST_EXTENDED_RADIUS (CBF_DEEP_CASE)
#undef CBF_DEEP_CASE
    default:
      break;
    }
    return launch_wide_or_generic<T> (
        io, src, dst, row_begin, row_end, w, stream);
  } else {
    if (w->radius == 1 && stream_serves<T> (src, dst, w->border)) {
      launch_bilateral_stream<T> (io, row_begin, row_end, w, stream);
      return cudaGetLastError ();
    }
    switch (w->radius) {
#define CBF_FAST_CASE(R)                                                       \
  case R:                                                                      \
    err = launch_fast_radius<T, R> (io, row_begin, row_end, w, stream);        \
    if (err != cudaSuccess)                                                    \
      return err;                                                              \
    break;
      CBF_EACH_FAST_RADIUS (CBF_FAST_CASE)
#undef CBF_FAST_CASE
#define CBF_FAST_EXTENDED_CASE(R)                                              \
  case R: {                                                                    \
    bool fits = true;                                                          \
    if constexpr (ColorLayoutIndex<T>::value >= 0) {                           \
      err = cbf_bilateral_color_extended (ColorLayoutIndex<T>::value, src,     \
          dst, row_begin, row_end, w, stream, &fits);                          \
    } else {                                                                   \
      if constexpr (!T::kClassWeights)                                         \
        err = fast_color_fits<T, R> (&fits);                                   \
      if (err == cudaSuccess && fits)                                          \
        err = launch_fast_radius<T, R> (io, row_begin, row_end, w, stream);    \
    }                                                                          \
    if (err != cudaSuccess)                                                    \
      return err;                                                              \
    if (fits)                                                                  \
      break;                                                                   \
    return launch_wide_or_generic<T> (                                         \
        io, src, dst, row_begin, row_end, w, stream);                          \
  }
      CBF_EACH_FAST_EXTENDED_RADIUS (CBF_FAST_EXTENDED_CASE)
#undef CBF_FAST_EXTENDED_CASE
    default:
      return launch_wide_or_generic<T> (
          io, src, dst, row_begin, row_end, w, stream);
    }
    return cudaGetLastError ();
  }
}

} /* namespace */

#endif /* CBF_BILATERAL_LAUNCH_CUH */
