/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter's transform of a frame (gstcbffilterprivate.h): in system
 * memory through the bands, or in CUDA memory on the device's stream. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcbffilterprivate.h"
#include "cbfallocation.h"
#include "gstcbfpinnedallocator.h"

#define GST_CAT_DEFAULT gst_cbf_filter_debug

/* The subclass's filter, as the device and the bands call it. */
static cudaError_t
filter_rows (gpointer user_data, const CbfPlane * in, const CbfPlane * out,
    gint row_begin, gint row_end, cudaStream_t stream)
{
  GstCbfFilter *self = user_data;

  return GST_CBF_FILTER_GET_CLASS (self)->filter (self, in, out, row_begin,
      row_end, stream);
}

/* The process's copier, taken at the first frame in pageable memory (its
 * threads are not needed otherwise). */
static void
take_copier (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = gst_cbf_filter_get_private (self);
  gchar *warning = NULL;

  if (!cbf_bands_take_copier (&priv->bands, &warning))
    return;
  if (warning)
    GST_WARNING_OBJECT (self, "%s", warning);
  g_free (warning);
  GST_INFO_OBJECT (self, "pageable frames: copied to and from staging "
      "memory by %u threads", cbf_copier_threads (priv->bands.copier));
}

/* Whether @outbuf is pinned memory of our own allocator throughout, which
 * can be pushed while the GPU still copies the frame into it: whoever maps
 * it waits for the copies, as for GstCudaMemory, so that the next frame's
 * uploads and kernels overlap this one's downloads. */
static gboolean
output_takes_pending_write (GstCbfFilterPrivate * priv, GstBuffer * outbuf)
{
  guint i, n = gst_buffer_n_memory (outbuf);

  for (i = 0; i < n; i++)
    if (gst_buffer_peek_memory (outbuf, i)->allocator !=
        priv->device.pinned_allocator)
      return FALSE;
  return n > 0;
}

/* Marks @outbuf's memory as written by the download stream's copies;
 * where a mark cannot be made, waits for them instead. */
static cudaError_t
mark_output_pending (GstCbfFilterPrivate * priv, GstBuffer * outbuf)
{
  guint i, n = gst_buffer_n_memory (outbuf);

  for (i = 0; i < n; i++)
    if (!gst_cbf_pinned_memory_write_pending (gst_buffer_peek_memory (outbuf,
                i), priv->device.download_stream))
      return cudaStreamSynchronize (priv->device.download_stream);
  return cudaSuccess;
}

GstFlowReturn
gst_cbf_filter_transform_system_memory (GstCbfFilter * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCbfFilterPrivate *priv = gst_cbf_filter_get_private (self);
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  CbfHostFrame in, out;
  const gchar *what = NULL;
  gchar *why = NULL;
  gint halo_rows = 0;
  GstFlowReturn ret = GST_FLOW_ERROR;

  if (!cbf_host_frame_map (&priv->shape, priv->context, &vfilter->in_info,
          inbuf, GST_MAP_READ, &in, &why))
    return cbf_frame_error (GST_ELEMENT (self), inbuf, FALSE, why);
  if (!cbf_host_frame_map (&priv->shape, priv->context, &vfilter->out_info,
          outbuf, GST_MAP_WRITE, &out, &why)) {
    cbf_host_frame_unmap (inbuf, &in);
    return cbf_frame_error (GST_ELEMENT (self), outbuf, TRUE, why);
  }
  if (GST_CBF_FILTER_GET_CLASS (self)->prepare (self,
          priv->device.compute_stream, &halo_rows)) {
    gboolean leave_download = output_takes_pending_write (priv, outbuf);
    cudaError_t err;

    if (!in.pinned || !out.pinned)
      take_copier (self);
    err = cbf_bands_filter_host_frame (&priv->bands, &priv->device, &in,
        &out, halo_rows, leave_download, filter_rows, self, &what);
    if (err == cudaSuccess && leave_download)
      err = mark_output_pending (priv, outbuf);
    if (gst_cbf_filter_check (self, err, what))
      ret = GST_FLOW_OK;
  }
  cbf_host_frame_unmap (outbuf, &out);
  cbf_host_frame_unmap (inbuf, &in);
  return ret;
}

#if CBF_HAVE_CUDA_MEMORY
GstFlowReturn
gst_cbf_filter_transform_cuda_memory (GstCbfFilter * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCbfFilterPrivate *priv = gst_cbf_filter_get_private (self);
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  GstVideoFrame in_frame, out_frame;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstFlowReturn ret = GST_FLOW_ERROR;
  gint halo_rows;
  gchar *why;

  if (!cbf_device_owns_memory (&priv->device, inbuf)
      || !cbf_device_owns_memory (&priv->device, outbuf)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Buffer is not CUDA memory of this element's CUDA context, as its "
            "memory:CUDAMemory caps promise."),
        ("input %" GST_PTR_FORMAT ", output %" GST_PTR_FORMAT, inbuf, outbuf));
    return GST_FLOW_ERROR;
  }
  /* The kernels read and write every row the caps describe, so memory
   * that ends early (GStreamer 1.24's CUDA allocator gives NV21 of odd
   * height one chroma row too few) is refused, never overrun. */
  why = cbf_frame_layout (&priv->shape, &vfilter->in_info, inbuf, offset,
      stride);
  if (why)
    return cbf_frame_error (GST_ELEMENT (self), inbuf, FALSE, why);
  why = cbf_frame_layout (&priv->shape, &vfilter->out_info, outbuf, offset,
      stride);
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
  if (GST_CBF_FILTER_GET_CLASS (self)->prepare (self,
          priv->device.memory_stream, &halo_rows)
      && gst_cbf_filter_check (self,
          cbf_device_filter_cuda_frame (&priv->device, &priv->shape,
              &in_frame, &out_frame, filter_rows, self),
          "filtering a frame in CUDA memory"))
    ret = GST_FLOW_OK;
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return ret;
}
#endif
