/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "device.h"

#include <stdatomic.h>

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

/* Figures kept for the first devices: 0 none, 1 being stored, 2 kept. */
#define CBF_KEPT_DEVICES 64
static atomic_int figures_state[CBF_KEPT_DEVICES];
static CbfDeviceFigures figures_kept[CBF_KEPT_DEVICES];

static cudaError_t
read_figures (int device, CbfDeviceFigures * f)
{
  const struct
  {
    int *to;
    enum cudaDeviceAttr attr;
  } reads[] = {
    {&f->sms, cudaDevAttrMultiProcessorCount},
    {&f->smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor},
    {&f->smem_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin},
    {&f->smem_reserved_per_block, cudaDevAttrReservedSharedMemoryPerBlock},
    {&f->major, cudaDevAttrComputeCapabilityMajor},
    {&f->minor, cudaDevAttrComputeCapabilityMinor},
  };
  size_t i;

  for (i = 0; i < sizeof reads / sizeof reads[0]; i++) {
    cudaError_t err = cudaDeviceGetAttribute (reads[i].to, reads[i].attr,
        device);
    if (err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}

cudaError_t
cbf_device_figures (CbfDeviceFigures * figures)
{
  int device = 0, state = 0;
  cudaError_t err = cudaGetDevice (&device);

  if (err != cudaSuccess)
    return err;
  if (device < 0 || device >= CBF_KEPT_DEVICES)
    return read_figures (device, figures);
  if (atomic_load (&figures_state[device]) == 2) {
    *figures = figures_kept[device];
    return cudaSuccess;
  }
  err = read_figures (device, figures);
  /* One thread keeps them; one that finds another keeping them uses its
   * own reading. */
  if (err == cudaSuccess
      && atomic_compare_exchange_strong (&figures_state[device], &state, 1)) {
    figures_kept[device] = *figures;
    atomic_store_explicit (&figures_state[device], 2, memory_order_release);
  }
  return err;
}
