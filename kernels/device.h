/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The CUDA devices the plugin may use, their primary contexts (the
 * runtime's own, which the elements' contexts wrap) and the figures the
 * launchers size their work by. */

#ifndef CBF_DEVICE_H
#define CBF_DEVICE_H

#include <cuda.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CUDA devices, or -1 with @error set when the runtime cannot see
 * any (no driver, driver too old, ...). */
int cbf_cuda_device_count (cudaError_t * error);

/* The primary context of @device (the CUDA runtime's own context for it),
 * retained (a reference per call, never released: the runtime keeps it for
 * the life of the process anyway). Elements that create a
 * context for a pipeline wrap this one: it is made once per process, where
 * a new context per element costs a fresh initialisation and module load
 * each time. */
cudaError_t cbf_cuda_primary_context (int device, CUcontext * context);

/* What launchers size their grids and shared memory by, for one device. */
typedef struct
{
  int sms;                      /* multiprocessors */
  int smem_per_sm;              /* shared memory an SM, bytes */
  int smem_per_block_optin;     /* the most a block may ask for, bytes */
  int smem_reserved_per_block;  /* taken from an SM's for each block */
  int major, minor;             /* compute capability */
} CbfDeviceFigures;

/* The current device's figures, read from the runtime once a device and
 * kept: launchers ask at every launch, and the queries are driver calls. */
cudaError_t cbf_device_figures (CbfDeviceFigures * figures);

#ifdef __cplusplus
}
#endif
#endif /* CBF_DEVICE_H */
