/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef __GST_CUDA_BILATERAL_H__
#define __GST_CUDA_BILATERAL_H__

#include "gstcbffilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_BILATERAL (gst_cuda_bilateral_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaBilateral, gst_cuda_bilateral, GST,
    CUDA_BILATERAL, GstCbfFilter)

#define GST_TYPE_CUDA_BILATERAL_MODE (gst_cuda_bilateral_mode_get_type ())
GType gst_cuda_bilateral_mode_get_type (void);
#define GST_TYPE_CUDA_BILATERAL_METHOD (gst_cuda_bilateral_method_get_type ())
GType gst_cuda_bilateral_method_get_type (void);
#define GST_TYPE_CUDA_BILATERAL_TEMPORAL_MOTION \
  (gst_cuda_bilateral_temporal_motion_get_type ())
GType gst_cuda_bilateral_temporal_motion_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (cudabilateral);

G_END_DECLS

#endif /* __GST_CUDA_BILATERAL_H__ */
