/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Kernel entries for the three colour bytes of 32-bit pixels (RGBA, BGRx,
 * ARGB, ...), and the specialised colour kernel above CBF_FAST_MAX_RADIUS
 * for every 8-bit colour layout (ColorAny). The kernels are in
 * bilateral_launch.cuh and what it includes; each pixel layout is
 * compiled in a file of its own so that the long template instantiations
 * build in parallel. */

#include "bilateral_launch.cuh"

namespace {

/* cbf_bilateral_color_extended for layout T at radius R. */
template <class T, int R>
cudaError_t color_extended (const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, const CbfFilterParams *w, cudaStream_t stream,
    bool *launched)
{
  Io io;
  cudaError_t err = bilateral_io<T> (src, dst, row_begin, row_end, w, &io);
  if (err == cudaSuccess)
    err = fast_color_fits<ColorAny, R> (launched);
  if (err != cudaSuccess || !*launched)
    return err;
  io.color_layout = ColorLayoutIndex<T>::value;
  return launch_fast_color<ColorAny, R> (io, row_begin, row_end, w, stream);
}

template <class T>
cudaError_t color_extended (const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, const CbfFilterParams *w, cudaStream_t stream,
    bool *launched)
{
  switch (w->radius) {
#define CBF_COLOR_EXTENDED_CASE(R)                                             \
  case R:                                                                      \
    return color_extended<T, R> (                                              \
        src, dst, row_begin, row_end, w, stream, launched);
    CBF_EACH_FAST_EXTENDED_RADIUS (CBF_COLOR_EXTENDED_CASE)
#undef CBF_COLOR_EXTENDED_CASE
  default:
    *launched = false;
    return cudaErrorInvalidValue;
  }
}

} /* namespace */

cudaError_t cbf_bilateral_color_extended (int layout, const CbfPlane *src,
    const CbfPlane *dst, int row_begin, int row_end, const CbfFilterParams *w,
    cudaStream_t stream, bool *launched)
{
  switch (layout) {
  case ColorLayoutIndex<Color32<0>>::value:
    return color_extended<Color32<0>> (
        src, dst, row_begin, row_end, w, stream, launched);
  case ColorLayoutIndex<Color32<1>>::value:
    return color_extended<Color32<1>> (
        src, dst, row_begin, row_end, w, stream, launched);
  case ColorLayoutIndex<Color24>::value:
    return color_extended<Color24> (
        src, dst, row_begin, row_end, w, stream, launched);
  case ColorLayoutIndex<ColorPlanar>::value:
    return color_extended<ColorPlanar> (
        src, dst, row_begin, row_end, w, stream, launched);
  default:
    *launched = false;
    return cudaErrorInvalidValue;
  }
}

CBF_ENTRY (cbf_bilateral_color_first, launch, Color32<0>)
CBF_ENTRY (cbf_bilateral_color_last, launch, Color32<1>)
CBF_ENTRY (cbf_bilateral_color_first_generic, launch_generic, Color32<0>)
