/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfcontext.h"
#include "bilateral.h"

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>

CbfContext *
cbf_context_new_primary (gint device, cudaError_t * err)
{
  CUcontext primary = NULL;
  CUdevice handle;
  CbfContext *context = NULL;

  *err = cbf_cuda_primary_context (device, &primary);
  if (*err == cudaSuccess && CuDeviceGet (&handle, device) == CUDA_SUCCESS)
    context = gst_cuda_context_new_wrapped (primary, handle);
  if (!context && *err == cudaSuccess)
    *err = cudaErrorInitializationError;
  return context;
}

CbfContext *
cbf_context_ref (CbfContext * context)
{
  return gst_object_ref (context);
}

void
cbf_context_unref (CbfContext * context)
{
  gst_object_unref (context);
}

gint
cbf_context_device (CbfContext * context)
{
  guint device = 0;

  g_object_get (context, "cuda-device-id", &device, NULL);
  return device;
}

gboolean
cbf_context_push (CbfContext * context)
{
  return gst_cuda_context_push (context);
}

void
cbf_context_pop (void)
{
  gst_cuda_context_pop (NULL);
}

#else

struct _CbfContext
{
  gint device;
};

CbfContext *
cbf_context_new_primary (gint device, cudaError_t * err)
{
  CbfContext *context;

  /* Initialises the device's primary context now, not at the first frame. */
  *err = cudaSetDevice (device);
  if (*err == cudaSuccess)
    *err = cudaFree (NULL);
  if (*err != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  context = g_atomic_rc_box_new0 (CbfContext);
  context->device = device;
  return context;
}

CbfContext *
cbf_context_ref (CbfContext * context)
{
  return g_atomic_rc_box_acquire (context);
}

void
cbf_context_unref (CbfContext * context)
{
  g_atomic_rc_box_release (context);
}

gint
cbf_context_device (CbfContext * context)
{
  return context->device;
}

/* The runtime binds the device's primary context to the calling thread;
 * it stays bound, as nothing else in such a build changes it. */
gboolean
cbf_context_push (CbfContext * context)
{
  return cudaSetDevice (context->device) == cudaSuccess;
}

void
cbf_context_pop (void)
{
}
#endif
