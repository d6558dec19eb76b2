/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter's device, owned here: its CUDA context, the pipeline's or
 * one made on the device's primary context, found at start, shared with
 * the pipeline's other CUDA elements through the context query and
 * message, and followed where upstream's frames come in another context;
 * the streams and events made in it, and everything made there released
 * before the element leaves it. All CUDA work runs in the element's
 * context, pushed on the calling thread around each piece of work (the
 * CUDA runtime then uses it).
 *
 * Frames in CUDA memory (caps feature memory:CUDAMemory, GStreamer's
 * GstCudaMemory) take none of the band pipeline (cbfbands.c): the kernel
 * reads and writes the buffers' own device memory, on the memory stream;
 * with GStreamer 1.22 the frame is finished before the buffer goes
 * downstream (what its CUDA elements expect of each other), since 1.24 it
 * leaves with the work pending on that stream (see finish_frame). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfdevice.h"
#include "cbfbands.h"
#include "gstcbfpinnedallocator.h"

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/gstcudautils.h>
#endif

#define GST_CAT_DEFAULT gst_cbf_filter_debug

/* What make_streams made, the bands' events first. */
static void
destroy_streams (CbfDevice * dev, CbfBands * bands)
{
  cbf_bands_destroy_events (bands);
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
  cudaStreamSynchronize (dev->upload_stream);
  cudaStreamSynchronize (dev->compute_stream);
  if (dev->memory_stream != dev->compute_stream)
    cudaStreamSynchronize (dev->memory_stream);
  cudaStreamSynchronize (dev->download_stream);
}

#if CBF_HAVE_CUDA_MEMORY
/* Takes the CUDA context in @context if the element has none yet and it is
 * of @device_id's device (-1: any). */
static void
take_context (GstCbfFilter * self, CbfDevice * dev, GstContext * context,
    gint device_id)
{
  GST_OBJECT_LOCK (self);
  gst_cuda_handle_set_context (GST_ELEMENT (self), context, device_id,
      &dev->context);
  GST_OBJECT_UNLOCK (self);
}

static gboolean
have_context (GstCbfFilter * self, CbfDevice * dev)
{
  gboolean have;

  GST_OBJECT_LOCK (self);
  have = dev->context != NULL;
  GST_OBJECT_UNLOCK (self);
  return have;
}

/* Looks for the pipeline's CUDA context: one set on the element before
 * (kept by GstElement across stop and start), then its neighbours' (a
 * context query both ways), then the application's (need-context message,
 * answered through set_context). No lock is held while asking: the answer
 * may come back through set_context on this thread. */
static void
find_pipeline_context (GstCbfFilter * self, CbfDevice * dev, gint device_id)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstPad *pads[] = { GST_BASE_TRANSFORM_SRC_PAD (trans),
    GST_BASE_TRANSFORM_SINK_PAD (trans)
  };
  GstContext *context;
  guint i;

  context = gst_element_get_context (GST_ELEMENT (self), GST_CUDA_CONTEXT_TYPE);
  if (context) {
    take_context (self, dev, context, device_id);
    gst_context_unref (context);
  }
  for (i = 0; i < G_N_ELEMENTS (pads) && !have_context (self, dev); i++) {
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);

    if (gst_pad_peer_query (pads[i], query)) {
      gst_query_parse_context (query, &context);
      if (context)
        take_context (self, dev, context, device_id);
    }
    gst_query_unref (query);
  }
  if (!have_context (self, dev))
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_need_context (GST_OBJECT (self),
            GST_CUDA_CONTEXT_TYPE));
}

#endif

gboolean
cbf_device_ensure_context (GstCbfFilter * self, CbfDevice * dev, gint device_id)
{
  gint device = MAX (device_id, 0);
  CbfContext *made;
  cudaError_t err;

#if CBF_HAVE_CUDA_MEMORY
  find_pipeline_context (self, dev, device_id);
  if (have_context (self, dev))
    return TRUE;
#endif

  made = cbf_context_new_primary (device, &err);
  if (!made) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot set up a CUDA context on device %d.", device),
        ("%s", cudaGetErrorString (err)));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  dev->context = made;
  GST_OBJECT_UNLOCK (self);
#if CBF_HAVE_CUDA_MEMORY
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_have_context (GST_OBJECT (self),
          gst_context_new_cuda_context (made)));
#endif
  return TRUE;
}

/* What the element and its subclass made in its context, released once
 * their work there is done. */
static void
leave_context (GstCbfFilter * self, CbfDevice * dev, CbfBands * bands)
{
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);

  if (dev->download_stream && gst_cbf_filter_push_context (self)) {
    cbf_device_synchronize (dev);
    cbf_bands_free (bands);
    destroy_streams (dev, bands);
    gst_cbf_filter_pop_context (self);
  }
  if (dev->context)
    klass->release (self);
  gst_clear_object (&dev->pinned_allocator);
}

void
cbf_device_release (GstCbfFilter * self, CbfDevice * dev, CbfBands * bands)
{
  CbfContext *context;

  leave_context (self, dev, bands);
  cbf_bands_release_copier (bands);
  GST_OBJECT_LOCK (self);
  context = dev->context;
  dev->context = NULL;
  dev->running = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (context)
    cbf_context_unref (context);
}

gboolean
cbf_device_make_streams (GstCbfFilter * self, CbfDevice * dev, CbfBands * bands)
{
  cudaError_t err;

  dev->device = cbf_context_device (dev->context);
  dev->pinned_allocator = gst_cbf_pinned_allocator_new (dev->context);
  if (!gst_cbf_filter_push_context (self))
    return FALSE;
  /* Non-blocking: the element's work must not wait on, nor stall, the legacy
   * default stream other code in the process may use. */
  err = cudaStreamCreateWithFlags (&dev->upload_stream, cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&dev->compute_stream,
        cudaStreamNonBlocking);
  dev->memory_stream = dev->compute_stream;
#if CBF_HAVE_CUDA_STREAMS
  if (err == cudaSuccess) {
    dev->cuda_stream = gst_cuda_stream_new (dev->context);
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
  if (err == cudaSuccess)
    err = cbf_bands_make_events (bands);
  if (!gst_cbf_filter_check (self, err, "creating streams"))
    destroy_streams (dev, bands);
  gst_cbf_filter_pop_context (self);
  return err == cudaSuccess;
}

gboolean
cbf_device_needs_sync (G_GNUC_UNUSED GstCbfFilter * self)
{
#if CBF_HAVE_CUDA_MEMORY && !CBF_HAVE_CUDA_STREAMS
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  if (major > 1 || minor >= 24) {
    GST_INFO_OBJECT (self, "built against GStreamer %d.%d, running on "
        "%u.%u: frames in CUDA memory are synchronised before they are "
        "read and written (build against this GStreamer for stream-ordered "
        "work)", GST_VERSION_MAJOR, GST_VERSION_MINOR, major, minor);
    return TRUE;
  }
#endif
  return FALSE;
}

#if CBF_HAVE_CUDA_MEMORY
CbfContext *
cbf_device_upstream_context (GstCbfFilter * self)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstContext *context = NULL;
  CbfContext *found = NULL;

  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query)) {
    gst_query_parse_context (query, &context);
    if (context)
      gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &found, NULL);
  }
  gst_query_unref (query);
  return found;
}

gboolean
cbf_device_follow_context (GstCbfFilter * self, CbfDevice * dev,
    CbfBands * bands, CbfContext * context)
{
  gint device = cbf_context_device (context), device_id;
  CbfContext *old;

  if (context == dev->context)
    return TRUE;
  GST_OBJECT_LOCK (self);
  device_id = dev->device_id;
  GST_OBJECT_UNLOCK (self);
  if (device_id >= 0 && device != device_id) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Frames come in CUDA memory of device %d, but cuda-device-id is %d.",
            device, device_id), ("Set cuda-device-id to -1 (the device of "
            "upstream's frames) or %d, or bring the frames to device %d "
            "(cudadownload ! cudaupload cuda-device-id=%d).", device,
            device_id, device_id));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "following upstream's CUDA context, from device "
      "%d to %d", dev->device, device);
  leave_context (self, dev, bands);
  GST_OBJECT_LOCK (self);
  old = dev->context;
  dev->context = cbf_context_ref (context);
  GST_OBJECT_UNLOCK (self);
  cbf_context_unref (old);
  return cbf_device_make_streams (self, dev, bands);
}

/* Whether @buf is one GstCudaMemory of the element's context, which its
 * kernels can use directly. */
static gboolean
is_own_cuda_memory (CbfDevice * dev, GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  return gst_buffer_n_memory (buf) == 1 && gst_is_cuda_memory (mem) &&
      GST_CUDA_MEMORY_CAST (mem)->context == dev->context;
}

/* The device planes of a frame mapped with GST_MAP_CUDA: its own device
 * memory and pitches, sizes as set_info found them. */
static void
planes_of_cuda_frame (CbfBands * bands, GstVideoFrame * frame,
    CbfPlane * planes)
{
  guint p;

  for (p = 0; p < bands->shape.n_planes; p++) {
    planes[p] = bands->dev_in[p];
    planes[p].data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    planes[p].pitch_bytes = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
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

GstFlowReturn
cbf_device_transform_cuda_memory (GstCbfFilter * self, CbfDevice * dev,
    CbfBands * bands, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  CbfPlane in[GST_VIDEO_MAX_PLANES], out[GST_VIDEO_MAX_PLANES];
  GstVideoFrame in_frame, out_frame;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  gchar *why;
  GstFlowReturn ret;
  cudaError_t err;
  gint halo_rows;

  if (!is_own_cuda_memory (dev, inbuf) || !is_own_cuda_memory (dev, outbuf)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Buffer is not CUDA memory of this element's CUDA context, as its "
            "memory:CUDAMemory caps promise."),
        ("input %" GST_PTR_FORMAT ", output %" GST_PTR_FORMAT, inbuf, outbuf));
    return GST_FLOW_ERROR;
  }
  /* The kernels read and write every row the caps describe, so memory
   * that ends early (GStreamer 1.24's CUDA allocator gives NV21 of odd
   * height one chroma row too few) is refused, never overrun. */
  why = cbf_frame_layout (&bands->shape, &vfilter->in_info, inbuf,
      offset, stride);
  if (why)
    return cbf_frame_error (GST_ELEMENT (self), inbuf, FALSE, why);
  why = cbf_frame_layout (&bands->shape, &vfilter->out_info, outbuf,
      offset, stride);
  if (why)
    return cbf_frame_error (GST_ELEMENT (self), outbuf, TRUE, why);
  if (!gst_video_frame_map (&in_frame, &vfilter->in_info, inbuf,
          GST_MAP_READ | GST_MAP_CUDA)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map the input frame."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&out_frame, &vfilter->out_info, outbuf,
          GST_MAP_WRITE | GST_MAP_CUDA)) {
    gst_video_frame_unmap (&in_frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map the output frame."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  planes_of_cuda_frame (bands, &in_frame, in);
  planes_of_cuda_frame (bands, &out_frame, out);

  err = wait_for_input (dev, gst_buffer_peek_memory (inbuf, 0));
  if (err == cudaSuccess)
    err = wait_for_output (dev, gst_buffer_peek_memory (outbuf, 0));
  if (err == cudaSuccess && !klass->prepare (self, dev->memory_stream,
          &halo_rows)) {
    ret = GST_FLOW_ERROR;
  } else {
    if (err == cudaSuccess)
      err = klass->filter (self, in, out, 0, in[0].height, dev->memory_stream);
    if (err == cudaSuccess)
      err = finish_frame (dev, gst_buffer_peek_memory (inbuf, 0),
          gst_buffer_peek_memory (outbuf, 0));
    else
      cudaStreamSynchronize (dev->memory_stream);
    ret = gst_cbf_filter_check (self, err, "filtering a frame in CUDA memory")
        ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return ret;
}
#endif
