/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A CUDA filter's streams and events in one context, and frames in CUDA
 * memory (caps feature memory:CUDAMemory, GStreamer's GstCudaMemory),
 * which take none of the band pipeline (cbfbands.c): the kernels read and
 * write the buffers' own device memory, on the memory stream; with
 * GStreamer 1.22 the frame is finished before the buffer goes downstream
 * (what its CUDA elements expect of each other), since 1.24 it leaves with
 * the work pending on that stream (see finish_frame). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfdevice.h"
#include "gstcbfpinnedallocator.h"

#include <string.h>

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/gstcudautils.h>
#endif

/* What cbf_device_init made (whatever part of it), destroyed. */
static void
destroy_streams (CbfDevice * dev)
{
  if (dev->upload_stream)
    cudaStreamDestroy (dev->upload_stream);
  if (dev->input_ready)
    cudaEventDestroy (dev->input_ready);
  if (dev->output_free)
    cudaEventDestroy (dev->output_free);
  if (dev->frame_done)
    cudaEventDestroy (dev->frame_done);
  dev->input_ready = dev->output_free = dev->frame_done = NULL;
#if CBF_HAVE_CUDA_STREAMS
  if (dev->cuda_stream)
    gst_clear_cuda_stream (&dev->cuda_stream);
#endif
  dev->memory_stream = NULL;
  if (dev->compute_stream)
    cudaStreamDestroy (dev->compute_stream);
  if (dev->download_stream)
    cudaStreamDestroy (dev->download_stream);
  dev->upload_stream = dev->compute_stream = dev->download_stream = NULL;
}

void
cbf_device_synchronize (CbfDevice * dev)
{
  if (!dev->download_stream)
    return;
  cudaStreamSynchronize (dev->upload_stream);
  cudaStreamSynchronize (dev->compute_stream);
  if (dev->memory_stream != dev->compute_stream)
    cudaStreamSynchronize (dev->memory_stream);
  cudaStreamSynchronize (dev->download_stream);
}

cudaError_t
cbf_device_init (CbfDevice * dev, CbfContext * context)
{
  cudaError_t err;

  memset (dev, 0, sizeof (*dev));
  dev->context = cbf_context_ref (context);
  dev->device = cbf_context_device (context);
  dev->pinned_allocator = gst_cbf_pinned_allocator_new (context);
  /* Non-blocking: the element's work must not wait on, nor stall, the legacy
   * default stream other code in the process may use. */
  err = cudaStreamCreateWithFlags (&dev->upload_stream, cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&dev->compute_stream,
        cudaStreamNonBlocking);
  dev->memory_stream = dev->compute_stream;
#if CBF_HAVE_CUDA_STREAMS
  if (err == cudaSuccess) {
    dev->cuda_stream = gst_cuda_stream_new (context);
    if (dev->cuda_stream)
      dev->memory_stream =
          (cudaStream_t) gst_cuda_stream_get_handle (dev->cuda_stream);
    else
      err = cudaErrorInitializationError;
  }
#endif
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&dev->download_stream,
        cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&dev->input_ready, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&dev->output_free, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&dev->frame_done, cudaEventDisableTiming);
  dev->sync_cuda_memory = cbf_device_needs_sync ();
  if (err != cudaSuccess)
    cbf_device_clear (dev);
  return err;
}

void
cbf_device_clear (CbfDevice * dev)
{
  cbf_device_synchronize (dev);
  destroy_streams (dev);
  gst_clear_object (&dev->pinned_allocator);
  g_clear_pointer (&dev->context, cbf_context_unref);
}

gboolean
cbf_device_needs_sync (void)
{
#if CBF_HAVE_CUDA_MEMORY && !CBF_HAVE_CUDA_STREAMS
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  return major > 1 || minor >= 24;
#else
  return FALSE;
#endif
}

#if CBF_HAVE_CUDA_MEMORY
gboolean
cbf_device_owns_memory (CbfDevice * dev, GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_n_memory (buf) == 1 ?
      gst_buffer_peek_memory (buf, 0) : NULL;

  return mem && gst_is_cuda_memory (mem) &&
      GST_CUDA_MEMORY_CAST (mem)->context == dev->context;
}

/* The device planes of a frame mapped with GST_MAP_CUDA: its own device
 * memory and pitches, sizes as @shape gives them. */
static void
planes_of_cuda_frame (const CbfFrameShape * shape, GstVideoFrame * frame,
    CbfPlane * planes)
{
  guint p;

  for (p = 0; p < shape->n_planes; p++) {
    planes[p].data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    planes[p].pitch_bytes = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    planes[p].width = shape->planes[p].width;
    planes[p].height = shape->planes[p].height;
    planes[p].pixel_bytes = shape->planes[p].pixel_bytes;
  }
}

#if CBF_HAVE_CUDA_STREAMS
static cudaStream_t
stream_of (GstMemory * mem)
{
  GstCudaStream *stream = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST
      (mem));

  return stream ? (cudaStream_t) gst_cuda_stream_get_handle (stream) : NULL;
}

/* Since 1.24 a GstCudaMemory may arrive with its producer's work still
 * pending on the producer's stream (TRANSFER_NEED_SYNC): the element's
 * stream waits for it on the GPU, no host waits. */
static cudaError_t
wait_for_input (CbfDevice * dev, GstMemory * in)
{
  cudaStream_t stream = stream_of (in);
  cudaError_t err;

  if (!stream || stream == dev->memory_stream ||
      !GST_MEMORY_FLAG_IS_SET (in, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC))
    return cudaSuccess;
  err = cudaEventRecord (dev->input_ready, stream);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (dev->memory_stream, dev->input_ready, 0);
  return err;
}

/* The output memory comes back from a pool whose last readers may still
 * be at it on the memory's own stream (a downstream element that proposed
 * the pool reads its input on its stream and returns at once; memory
 * without a stream is read on the context's default stream): the kernels
 * wait for that work on the GPU before they write it, as GStreamer's CUDA
 * elements write on the memory's stream. */
static cudaError_t
wait_for_output (CbfDevice * dev, GstMemory * out)
{
  cudaStream_t stream = stream_of (out);
  cudaError_t err;

  if (stream == dev->memory_stream)
    return cudaSuccess;
  err = cudaEventRecord (dev->output_free, stream ? stream : cudaStreamLegacy);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (dev->memory_stream, dev->output_free, 0);
  return err;
}

/* Hands the output on with the work still pending, flagged so
 * (TRANSFER_NEED_SYNC): its readers wait for its stream, which the
 * element's work is on or which is made to wait for it. The input's stream
 * (or, for memory without one, the context's default stream) waits for it
 * too, so that its producer cannot write it again while the kernels still
 * read it. An output without a stream is for a reader that knows none: it
 * is finished before it goes. */
static cudaError_t
finish_frame (CbfDevice * dev, GstMemory * in, GstMemory * out)
{
  cudaStream_t in_stream = stream_of (in), out_stream = stream_of (out);
  cudaError_t err;

  if (!out_stream)
    return cudaStreamSynchronize (dev->memory_stream);
  err = cudaEventRecord (dev->frame_done, dev->memory_stream);
  if (err == cudaSuccess && in_stream != dev->memory_stream)
    err = cudaStreamWaitEvent (in_stream ? in_stream : cudaStreamLegacy,
        dev->frame_done, 0);
  if (err == cudaSuccess && out_stream != dev->memory_stream)
    err = cudaStreamWaitEvent (out_stream, dev->frame_done, 0);
  GST_MINI_OBJECT_FLAG_SET (out, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  return err;
}
#else
/* GStreamer 1.22's CUDA memory carries no stream: finished memory goes
 * downstream, and comes from upstream. Run by 1.24 or later, other
 * elements may hand on memory with their work pending on streams this
 * build cannot see: everything queued in the context is waited for, once
 * for the input and the output. */
static cudaError_t
wait_for_input (CbfDevice * dev, G_GNUC_UNUSED GstMemory * in)
{
  return dev->sync_cuda_memory ? cudaDeviceSynchronize () : cudaSuccess;
}

static cudaError_t
wait_for_output (G_GNUC_UNUSED CbfDevice * dev, G_GNUC_UNUSED GstMemory * out)
{
  return cudaSuccess;
}

static cudaError_t
finish_frame (CbfDevice * dev, G_GNUC_UNUSED GstMemory * in,
    G_GNUC_UNUSED GstMemory * out)
{
  return cudaStreamSynchronize (dev->memory_stream);
}
#endif

cudaError_t
cbf_device_filter_cuda_frame (CbfDevice * dev, const CbfFrameShape * shape,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame,
    CbfFilterRowsFunc filter, gpointer user_data)
{
  GstMemory *in_mem = gst_buffer_peek_memory (in_frame->buffer, 0);
  GstMemory *out_mem = gst_buffer_peek_memory (out_frame->buffer, 0);
  CbfPlane in[GST_VIDEO_MAX_PLANES], out[GST_VIDEO_MAX_PLANES];
  cudaError_t err;

  memset (in, 0, sizeof (in));
  memset (out, 0, sizeof (out));
  planes_of_cuda_frame (shape, in_frame, in);
  planes_of_cuda_frame (shape, out_frame, out);
  err = wait_for_input (dev, in_mem);
  if (err == cudaSuccess)
    err = wait_for_output (dev, out_mem);
  if (err == cudaSuccess)
    err = filter (user_data, in, out, 0, in[0].height, dev->memory_stream);
  if (err == cudaSuccess)
    err = finish_frame (dev, in_mem, out_mem);
  else
    cudaStreamSynchronize (dev->memory_stream);
  return err;
}
#endif
