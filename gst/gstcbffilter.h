/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef __GST_CBF_FILTER_H__
#define __GST_CBF_FILTER_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include <cuda_runtime_api.h>

#include "plane.h"

G_BEGIN_DECLS

#define GST_TYPE_CBF_FILTER (gst_cbf_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCbfFilter, gst_cbf_filter, GST, CBF_FILTER,
    GstVideoFilter)

/**
 * GstCbfFilterClass:
 * @configure: called from set_info once the device frame buffers exist, in
 *   the streaming thread with the element's device current: pick the kernel
 *   for @info and make what depends on the caps.
 * @prepare: called once per frame before its first band, on the @stream
 *   its kernels run on (the compute stream, or for frames in CUDA memory
 *   the memory stream): apply parameter changes (upload tables), and
 *   return in @halo_rows how many rows above and below a band its kernel
 *   reads. If
 *   it cannot (out of memory, say), it posts an element error
 *   (gst_cbf_filter_check) and returns FALSE; the frame is not filtered,
 *   and the next one calls it again.
 * @filter: enqueue the filter of output rows [@row_begin, @row_end) of the
 *   device planes @in into @out on @stream, without synchronising. Called
 *   once per band of a frame, in order. Rows are those of plane 0; frames
 *   of several planes are one band (rows 0 to plane 0's height), so their
 *   other planes are filtered whole.
 * @release: free what @configure and @prepare made on the device, before
 *   the element leaves its CUDA context (at stop, or to follow upstream's
 *   context); called with no context pushed (push it to free). The next
 *   @configure starts afresh.
 *
 * Base class of the CUDA video filters of this plugin. It owns what every
 * such filter needs: the device and its selection (cuda-device-id), a
 * GstCudaContext shared with the pipeline, CUDA streams per instance; for
 * frames in system memory, device frame buffers, a pool of pinned host
 * memory offered upstream and used downstream where allowed, and the
 * asynchronous upload, filter, download sequence, overlapped in bands; for
 * frames in CUDA memory (memory:CUDAMemory), GstCudaBufferPools and the
 * buffers' own device memory (finished before they leave with GStreamer
 * 1.22, handed on with the work pending since 1.24).
 */
struct _GstCbfFilterClass
{
  GstVideoFilterClass parent_class;

  gboolean (*configure) (GstCbfFilter * filter, const GstVideoInfo * info);
  gboolean (*prepare) (GstCbfFilter * filter, cudaStream_t stream,
      gint * halo_rows);
  cudaError_t (*filter) (GstCbfFilter * filter, const CbfPlane * in,
      const CbfPlane * out, gint row_begin, gint row_end,
      cudaStream_t stream);
  void (*release) (GstCbfFilter * filter);
};

/* Posts an element error naming @what and the CUDA error, and returns FALSE,
 * unless @err is cudaSuccess (then returns TRUE). */
gboolean gst_cbf_filter_check (GstCbfFilter * filter, cudaError_t err,
    const gchar * what);

/* Makes the element's CUDA context current on the calling thread (posting
 * an element error if it cannot), so that CUDA runtime calls act in it;
 * each successful push is paired with a pop. set_info, transform and stop
 * run the subclass's vfuncs with it pushed already. */
gboolean gst_cbf_filter_push_context (GstCbfFilter * filter);
void gst_cbf_filter_pop_context (GstCbfFilter * filter);

G_END_DECLS

#endif /* __GST_CBF_FILTER_H__ */
