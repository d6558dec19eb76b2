/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter's device: its CUDA context (shared with the pipeline, or
 * upstream's followed), the streams and events made in it, and frames in
 * CUDA memory filtered in place, in order with other elements' work. */

#ifndef __CBF_DEVICE_H__
#define __CBF_DEVICE_H__

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#include "cbfcontext.h"
#include "gstcbffilter.h"

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/gstcudamemory.h>
#endif

G_BEGIN_DECLS

/* The base class's debug category, "cbffilter" (gstcbffilter.c), which
 * the files of the class log to. */
GST_DEBUG_CATEGORY_EXTERN (gst_cbf_filter_debug);

/* GStreamer 1.24's CUDA memory carries the stream its work is on. */
#define CBF_HAVE_CUDA_STREAMS \
    (CBF_HAVE_CUDA_MEMORY && GST_CHECK_VERSION (1, 24, 0))

typedef struct _CbfDevice CbfDevice;
typedef struct _CbfBands CbfBands;      /* cbfbands.h */

struct _CbfDevice
{
  gint device_id;               /* property: -1 = first device */
  /* From start (or a context of the pipeline's) to stop, under the object
   * lock where threads other than the streaming one read it (the context
   * query, set_context); running: between a successful start and stop. */
  CbfContext *context;
  gboolean running;

  /* From start to stop. */
  gint device;                  /* the context's */
  GstAllocator *pinned_allocator;       /* in the context */
  cudaStream_t upload_stream;
  cudaStream_t compute_stream;
  /* Frames in CUDA memory are filtered on memory_stream: since 1.24 a
   * stream of GStreamer's own (cuda_stream), which the element's pools put
   * on their buffers, so that the output goes downstream with the work on
   * it still pending; before, the compute stream. */
  cudaStream_t memory_stream;
#if CBF_HAVE_CUDA_STREAMS
  GstCudaStream *cuda_stream;
#endif
  cudaEvent_t input_ready;      /* upstream's work on an input frame */
  cudaEvent_t output_free;      /* the last readers' work on an output */
  cudaEvent_t frame_done;       /* this element's work on a frame */
  /* Built without GStreamer's CUDA streams (1.22) but run by 1.24 or
   * later, whose CUDA elements hand on memory with their work pending:
   * frames in CUDA memory are synchronised before they are read and
   * written. */
  gboolean sync_cuda_memory;
  cudaStream_t download_stream;
};

/* The pipeline's CUDA context, else one made here on the device's primary
 * context (see cbf_context_new_primary) and announced to the others
 * (have-context). Built without GStreamer's CUDA library, there is nothing
 * to share: always the primary context. */
gboolean cbf_device_ensure_context (GstCbfFilter * self, CbfDevice * dev,
    gint device_id);

/* The pinned allocator, streams and events of the element's context (the
 * device's from start, or upstream's after a move), @bands' events among
 * them; an element error if they cannot be made. */
gboolean cbf_device_make_streams (GstCbfFilter * self, CbfDevice * dev,
    CbfBands * bands);

/* Waits for everything the element enqueued. */
void cbf_device_synchronize (CbfDevice * dev);

/* Whether frames in CUDA memory must be synchronised: a build against
 * GStreamer 1.22 (no CUDA streams) cannot see the streams that 1.24's CUDA
 * elements leave their work pending on, and must not read or overwrite a
 * frame before that work is done. */
gboolean cbf_device_needs_sync (GstCbfFilter * self);

/* Everything start made, released: also what a start that failed half way
 * made, so that the element is then as a stopped one. */
void cbf_device_release (GstCbfFilter * self, CbfDevice * dev,
    CbfBands * bands);

#if CBF_HAVE_CUDA_MEMORY
/* The CUDA context upstream answers the context query with (a decoder,
 * cudaupload, another filter), or NULL. */
CbfContext *cbf_device_upstream_context (GstCbfFilter * self);

/* Frames in CUDA memory are filtered in the context they are in. The
 * element starts before its upstream (states change from sink to source),
 * so an upstream on another device (cudaupload cuda-device-id=1) is found
 * only now: the element moves to its context where cuda-device-id allows
 * (-1, or that device), else it is an error before any frame, saying what
 * to change. */
gboolean cbf_device_follow_context (GstCbfFilter * self, CbfDevice * dev,
    CbfBands * bands, CbfContext * context);

/* A frame in CUDA memory: no copies, one kernel sequence over the whole
 * frame on the memory stream, ordered with upstream's and downstream's
 * work (see finish_frame in cbfdevice.c); planes sized as @bands found them
 * at set_info. A buffer that is not CUDA memory of the element's context,
 * or does not hold a frame of the caps, is an element error. */
GstFlowReturn cbf_device_transform_cuda_memory (GstCbfFilter * self,
    CbfDevice * dev, CbfBands * bands, GstBuffer * inbuf,
    GstBuffer * outbuf);
#endif

G_END_DECLS

#endif /* __CBF_DEVICE_H__ */
