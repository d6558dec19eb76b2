/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "device.h"

int
cbf_cuda_device_count (cudaError_t * error)
{
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);

  if (error)
    *error = err;
  if (err != cudaSuccess)
    return -1;
  return count;
}

typedef CUresult (CUDAAPI * PrimaryCtxRetainFunc) (CUcontext * ctx,
    CUdevice dev);

cudaError_t
cbf_cuda_primary_context (int device, CUcontext * context)
{
  static PrimaryCtxRetainFunc retain;

  /* The driver's entry point through the runtime, which loaded it: no
   * link against libcuda, so the plugin still loads without a driver. */
  if (!retain) {
    enum cudaDriverEntryPointQueryResult found =
        cudaDriverEntryPointSymbolNotFound;
    PrimaryCtxRetainFunc func = NULL;
    cudaError_t err = cudaGetDriverEntryPointByVersion
        ("cuDevicePrimaryCtxRetain", (void **) &func, 12000, cudaEnableDefault,
        &found);

    if (err != cudaSuccess)
      return err;
    if (!func || found != cudaDriverEntryPointSuccess)
      return cudaErrorSymbolNotFound;
    retain = func;
  }
  return retain (context, (CUdevice) device) == CUDA_SUCCESS ?
      cudaSuccess : cudaErrorInitializationError;
}
