/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Kernel entries for chroma guided by luma (GuidedPair, DeepGuided).
 * 8-bit pairs take bilateral_launch.cuh's kernels as colour does (the
 * specialised colour kernel up to CBF_FAST_EXTENDED_MAX_RADIUS where it
 * fits, then the wide and the generic ones); deep pairs the wide and the
 * generic kernels at every radius (the deep specialised kernel computes
 * its range weights from the tap's own value). */

#include "bilateral_launch.cuh"

namespace {

template <class T>
cudaError_t launch_guided (const CbfPlane *src, const CbfPlane *dst,
    int row_begin, int row_end, const CbfFilterParams *w, cudaStream_t stream)
{
  if constexpr (T::kDeep) {
    Io io;
    cudaError_t err = bilateral_io<T> (src, dst, row_begin, row_end, w, &io);
    if (err != cudaSuccess)
      return err;
    return launch_wide_or_generic<T> (
        io, src, dst, row_begin, row_end, w, stream);
  } else {
    return launch<T> (src, dst, row_begin, row_end, w, stream);
  }
}

} /* namespace */

CBF_ENTRY (cbf_bilateral_guided_channel_pair, launch_guided, GuidedPair)
CBF_ENTRY (
    cbf_bilateral_guided_deep_channel_pair, launch_guided, DeepGuidedPair16)
CBF_ENTRY (
    cbf_bilateral_guided_deep12_channel_pair, launch_guided, DeepGuidedPair12)
