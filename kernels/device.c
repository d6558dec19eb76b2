/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "bilateral.h"

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
