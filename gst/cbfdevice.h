/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A CUDA filter's device state in one CUDA context: the streams its work
 * runs on and the events that order them with other elements' work, and
 * frames in CUDA memory filtered in place. A plain object: it calls no
 * element and posts nothing; its calls say what failed with a cudaError_t,
 * and expect the context current on the calling thread. */

#ifndef __CBF_DEVICE_H__
#define __CBF_DEVICE_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "cbfcontext.h"
#include "cbfframeshape.h"
#include "plane.h"

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/gstcudamemory.h>
#endif

G_BEGIN_DECLS

/* GStreamer 1.24's CUDA memory carries the stream its work is on. */
#define CBF_HAVE_CUDA_STREAMS \
    (CBF_HAVE_CUDA_MEMORY && GST_CHECK_VERSION (1, 24, 0))

/* What a frame's filter enqueues, called by the device (once, the whole
 * frame) and by the bands (once per band): output rows [@row_begin,
 * @row_end) of plane 0, the other planes of a frame of several whole, from
 * the device planes @in into @out, on @stream, without synchronising. */
typedef cudaError_t (*CbfFilterRowsFunc) (gpointer user_data,
    const CbfPlane * in, const CbfPlane * out, gint row_begin, gint row_end,
    cudaStream_t stream);

/* The streams and events of one context, from cbf_device_init to
 * cbf_device_clear. */
typedef struct
{
  CbfContext *context;          /* a reference, the one they were made in */
  gint device;                  /* the context's */
  GstAllocator *pinned_allocator;       /* in the context */
  /* Frames in system memory: uploads, kernels and downloads overlap on
   * three streams (cbfbands.h). */
  cudaStream_t upload_stream;
  cudaStream_t compute_stream;
  cudaStream_t download_stream;
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
   * written (cbf_device_needs_sync). */
  gboolean sync_cuda_memory;
} CbfDevice;

/* The pinned allocator, streams and events of @context, which is current;
 * on failure what was made is released again. */
cudaError_t cbf_device_init (CbfDevice * dev, CbfContext * context);

/* Waits for everything enqueued on the device's streams. */
void cbf_device_synchronize (CbfDevice * dev);

/* Everything cbf_device_init made, released once the work on it is done,
 * the context current (a device never made, or cleared, is left as is).
 * The context reference is dropped last. */
void cbf_device_clear (CbfDevice * dev);

/* Whether frames in CUDA memory must be synchronised: a build against
 * GStreamer 1.22 (no CUDA streams) cannot see the streams that 1.24's CUDA
 * elements leave their work pending on, and must not read or overwrite a
 * frame before that work is done. */
gboolean cbf_device_needs_sync (void);

#if CBF_HAVE_CUDA_MEMORY
/* Whether @buf is one GstCudaMemory of the device's context, which its
 * kernels can use directly. */
gboolean cbf_device_owns_memory (CbfDevice * dev, GstBuffer * buf);

/* A frame in CUDA memory, mapped with GST_MAP_CUDA, of @shape: no copies,
 * @filter over the whole frame on the memory stream, ordered with
 * upstream's and downstream's work on the memories' own streams (see
 * finish_frame in cbfdevice.c). */
cudaError_t cbf_device_filter_cuda_frame (CbfDevice * dev,
    const CbfFrameShape * shape, GstVideoFrame * in, GstVideoFrame * out,
    CbfFilterRowsFunc filter, gpointer user_data);
#endif

G_END_DECLS

#endif /* __CBF_DEVICE_H__ */
