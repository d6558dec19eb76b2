/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter's private part and what its files share: gstcbffilter.c
 * (the class) and cbffilterframes.c (a frame's transform). Not for any
 * other file. */

#ifndef __GST_CBF_FILTER_PRIVATE_H__
#define __GST_CBF_FILTER_PRIVATE_H__

#include "gstcbffilter.h"
#include "cbfbands.h"
#include "cbfdevice.h"
#include "cbfhostframe.h"

G_BEGIN_DECLS

typedef struct
{
  /* Under the object lock, which the threads other than the streaming one
   * that read them take (the context query, set_context): the property;
   * the CUDA context, from start (or a context of the pipeline's) to stop;
   * running, between a successful start and stop. */
  gint device_id;               /* -1: the pipeline's device, or the first */
  CbfContext *context;
  gboolean running;

  /* From start to stop, made in the context. */
  CbfDevice device;             /* streams and events */
  CbfBands bands;               /* frames in system memory */

  /* From set_info to the next set_info or stop. */
  CbfFrameShape shape;          /* what a buffer must hold */
  gboolean cuda_memory;         /* caps with memory:CUDAMemory */

  gint refused_height;          /* of the last caps refused for it */
} GstCbfFilterPrivate;

GstCbfFilterPrivate *gst_cbf_filter_get_private (GstCbfFilter * self);

/* A frame in system memory, whatever its layout. A buffer that does not
 * hold a frame of the caps is an element error and nothing is pushed
 * (GstVideoFilter's own transform would warn and push an unwritten
 * buffer). */
GstFlowReturn gst_cbf_filter_transform_system_memory (GstCbfFilter * self,
    GstBuffer * inbuf, GstBuffer * outbuf);

#if CBF_HAVE_CUDA_MEMORY
/* A frame in CUDA memory: no copies, one kernel sequence over the whole
 * frame on the device's memory stream (cbf_device_filter_cuda_frame). A
 * buffer that is not CUDA memory of the element's context, or does not
 * hold a frame of the caps, is an element error. */
GstFlowReturn gst_cbf_filter_transform_cuda_memory (GstCbfFilter * self,
    GstBuffer * inbuf, GstBuffer * outbuf);
#endif

G_END_DECLS

#endif /* __GST_CBF_FILTER_PRIVATE_H__ */
