/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Data path of a frame in system memory:
 *
 *   host frame --(DMA if pinned, else memcpy to a pinned staging buffer
 *   first)--> device buffer --kernel--> device buffer --(DMA)--> host frame
 *
 * all enqueued on the element's stream, then one cudaStreamSynchronize. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcbffilter.h"
#include "gstcbfpinnedallocator.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cbf_filter_debug);
#define GST_CAT_DEFAULT gst_cbf_filter_debug

#define DEFAULT_DEVICE_ID -1

enum
{
  PROP_0,
  PROP_DEVICE_ID,
};

/* Where one plane of a frame lives on the device and in the staging
 * buffers. */
typedef struct
{
  CbfPlane in;
  CbfPlane out;
  gsize row_bytes;
  gsize staging_offset;         /* in the staging buffers, rows packed */
} PlaneBuffers;

typedef struct
{
  gint device_id;               /* property: -1 = first device */

  /* From start to stop. */
  gint device;
  cudaStream_t stream;

  /* From set_info to the next set_info or stop. */
  guint n_planes;
  PlaneBuffers planes[GST_VIDEO_MAX_PLANES];
  CbfPlane dev_in[GST_VIDEO_MAX_PLANES];
  CbfPlane dev_out[GST_VIDEO_MAX_PLANES];
  guint8 *staging_in;           /* pinned, for input that is not */
  guint8 *staging_out;          /* pinned, for output that is not */
} GstCbfFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCbfFilter, gst_cbf_filter,
    GST_TYPE_VIDEO_FILTER);

#define PRIV(self) \
    ((GstCbfFilterPrivate *) gst_cbf_filter_get_instance_private (self))

gboolean
gst_cbf_filter_check (GstCbfFilter * self, cudaError_t err, const gchar * what)
{
  GstCbfFilterPrivate *priv = PRIV (self);

  if (err == cudaSuccess)
    return TRUE;

  if (err == cudaErrorMemoryAllocation) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory on CUDA device %d while %s.", priv->device, what),
        ("%s: %s", cudaGetErrorName (err), cudaGetErrorString (err)));
  } else {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("CUDA error on device %d while %s: %s.", priv->device, what,
            cudaGetErrorString (err)),
        ("%s (%d)", cudaGetErrorName (err), (int) err));
  }
  return FALSE;
}

gboolean
gst_cbf_filter_make_current (GstCbfFilter * self)
{
  return gst_cbf_filter_check (self, cudaSetDevice (PRIV (self)->device),
      "selecting the device");
}

static void
free_frame_buffers (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  guint i;

  for (i = 0; i < priv->n_planes; i++) {
    cudaFree (priv->planes[i].in.data);
    cudaFree (priv->planes[i].out.data);
  }
  cudaFreeHost (priv->staging_in);
  cudaFreeHost (priv->staging_out);
  memset (priv->planes, 0, sizeof (priv->planes));
  priv->staging_in = priv->staging_out = NULL;
  priv->n_planes = 0;
}

static gboolean
gst_cbf_filter_start (GstBaseTransform * trans)
{
  GstCbfFilter *self = GST_CBF_FILTER (trans);
  GstCbfFilterPrivate *priv = PRIV (self);
  cudaError_t err;
  gint n_devices, device_id;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  n_devices = cbf_cuda_device_count (&err);
  if (n_devices <= 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device: %s. cudabilateral needs an NVIDIA GPU and "
            "its driver.", n_devices < 0 ? cudaGetErrorString (err) :
            "no CUDA-capable device is detected"),
        ("cudaGetDeviceCount: %s (%d)", cudaGetErrorName (err), (int) err));
    return FALSE;
  }
  if (device_id >= n_devices) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("cuda-device-id %d does not exist: this machine has %d CUDA "
            "device(s), numbered from 0.", device_id, n_devices), (NULL));
    return FALSE;
  }

  priv->device = device_id < 0 ? 0 : device_id;
  if (!gst_cbf_filter_make_current (self))
    return FALSE;
  /* Non-blocking: the element's work must not wait on, nor stall, the legacy
   * default stream other code in the process may use. */
  err = cudaStreamCreateWithFlags (&priv->stream, cudaStreamNonBlocking);
  if (!gst_cbf_filter_check (self, err, "creating a stream"))
    return FALSE;

  GST_INFO_OBJECT (self, "using CUDA device %d of %d", priv->device,
      n_devices);
  return TRUE;
}

static gboolean
gst_cbf_filter_stop (GstBaseTransform * trans)
{
  GstCbfFilter *self = GST_CBF_FILTER (trans);
  GstCbfFilterPrivate *priv = PRIV (self);

  if (priv->stream) {
    cudaSetDevice (priv->device);
    cudaStreamSynchronize (priv->stream);
    free_frame_buffers (self);
    cudaStreamDestroy (priv->stream);
    priv->stream = NULL;
  }
  return TRUE;
}

static gboolean
gst_cbf_filter_set_info (GstVideoFilter * vfilter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstCbfFilter *self = GST_CBF_FILTER (vfilter);
  GstCbfFilterPrivate *priv = PRIV (self);
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);
  gsize staging_size = 0;
  cudaError_t err = cudaSuccess;
  guint p;

  if (!gst_cbf_filter_make_current (self))
    return FALSE;
  /* Buffers of the previous caps may still be in use by queued work. */
  cudaStreamSynchronize (priv->stream);
  free_frame_buffers (self);

  priv->n_planes = GST_VIDEO_INFO_N_PLANES (in_info);
  for (p = 0; p < priv->n_planes && err == cudaSuccess; p++) {
    PlaneBuffers *pb = &priv->planes[p];
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint width, height;

    gst_video_format_info_component (in_info->finfo, p, comp);
    width = GST_VIDEO_INFO_COMP_WIDTH (in_info, comp[0]);
    height = GST_VIDEO_INFO_COMP_HEIGHT (in_info, comp[0]);
    pb->row_bytes = (gsize) width * GST_VIDEO_INFO_COMP_PSTRIDE (in_info,
        comp[0]);
    pb->in.width = pb->out.width = width;
    pb->in.height = pb->out.height = height;
    pb->staging_offset = staging_size;
    staging_size += pb->row_bytes * height;

    err = cudaMallocPitch ((void **) &pb->in.data, &pb->in.pitch_bytes,
        pb->row_bytes, height);
    if (err == cudaSuccess)
      err = cudaMallocPitch ((void **) &pb->out.data, &pb->out.pitch_bytes,
          pb->row_bytes, height);
    priv->dev_in[p] = pb->in;
    priv->dev_out[p] = pb->out;
  }
  if (err == cudaSuccess)
    err = cudaHostAlloc ((void **) &priv->staging_in, staging_size,
        cudaHostAllocPortable);
  if (err == cudaSuccess)
    err = cudaHostAlloc ((void **) &priv->staging_out, staging_size,
        cudaHostAllocPortable);
  if (err != cudaSuccess) {
    gchar *what = g_strdup_printf ("allocating buffers for %dx%d %s frames",
        GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
        GST_VIDEO_INFO_NAME (in_info));
    gst_cbf_filter_check (self, err, what);
    g_free (what);
    cudaGetLastError ();        /* reported: do not leave it to later calls */
    free_frame_buffers (self);
    return FALSE;
  }

  GST_DEBUG_OBJECT (self, "device buffers for %" GST_PTR_FORMAT, incaps);
  return klass->configure (self, in_info);
}

/* Pinned memory can be copied by DMA straight away. The common case, a
 * buffer of our own pool, is told from the memory type without a CUDA
 * call. */
static gboolean
frame_plane_is_pinned (GstVideoFrame * frame, guint plane, gsize span)
{
  if (gst_buffer_n_memory (frame->buffer) == 1 &&
      gst_memory_is_type (gst_buffer_peek_memory (frame->buffer, 0),
          GST_CBF_PINNED_MEMORY_TYPE))
    return TRUE;
  return gst_cbf_host_memory_is_pinned (GST_VIDEO_FRAME_PLANE_DATA (frame,
          plane), span);
}

static gsize
plane_span (GstVideoFrame * frame, const PlaneBuffers * pb, guint plane)
{
  return (gsize) (pb->in.height - 1) * GST_VIDEO_FRAME_PLANE_STRIDE (frame,
      plane) + pb->row_bytes;
}

static void
copy_rows (guint8 * dst, gsize dst_stride, const guint8 * src,
    gsize src_stride, gsize row_bytes, gint rows)
{
  gint y;

  for (y = 0; y < rows; y++)
    memcpy (dst + y * dst_stride, src + y * src_stride, row_bytes);
}

static cudaError_t
upload_plane (GstCbfFilterPrivate * priv, GstVideoFrame * frame, guint p)
{
  const PlaneBuffers *pb = &priv->planes[p];
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);

  if (!frame_plane_is_pinned (frame, p, plane_span (frame, pb, p))) {
    guint8 *staging = priv->staging_in + pb->staging_offset;
    copy_rows (staging, pb->row_bytes, data, stride, pb->row_bytes,
        pb->in.height);
    data = staging;
    stride = pb->row_bytes;
  }
  return cudaMemcpy2DAsync (pb->in.data, pb->in.pitch_bytes, data, stride,
      pb->row_bytes, pb->in.height, cudaMemcpyHostToDevice, priv->stream);
}

/* Enqueues the download of plane @p; sets @staged when the frame's memory
 * is not pinned and the rows land in the staging buffer first. */
static cudaError_t
download_plane (GstCbfFilterPrivate * priv, GstVideoFrame * frame, guint p,
    gboolean * staged)
{
  const PlaneBuffers *pb = &priv->planes[p];
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);

  *staged = !frame_plane_is_pinned (frame, p, plane_span (frame, pb, p));
  if (*staged) {
    data = priv->staging_out + pb->staging_offset;
    stride = pb->row_bytes;
  }
  return cudaMemcpy2DAsync (data, stride, pb->out.data, pb->out.pitch_bytes,
      pb->row_bytes, pb->out.height, cudaMemcpyDeviceToHost, priv->stream);
}

static GstFlowReturn
gst_cbf_filter_transform_frame (GstVideoFilter * vfilter,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame)
{
  GstCbfFilter *self = GST_CBF_FILTER (vfilter);
  GstCbfFilterPrivate *priv = PRIV (self);
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);
  gboolean staged[GST_VIDEO_MAX_PLANES] = { FALSE, };
  cudaError_t err = cudaSuccess;
  guint p;

  if (!gst_cbf_filter_make_current (self))
    return GST_FLOW_ERROR;

  for (p = 0; p < priv->n_planes && err == cudaSuccess; p++)
    err = upload_plane (priv, in_frame, p);
  if (!gst_cbf_filter_check (self, err, "uploading a frame"))
    return GST_FLOW_ERROR;

  err = klass->filter (self, priv->dev_in, priv->dev_out, priv->stream);
  if (!gst_cbf_filter_check (self, err, "launching the filter"))
    return GST_FLOW_ERROR;

  for (p = 0; p < priv->n_planes && err == cudaSuccess; p++)
    err = download_plane (priv, out_frame, p, &staged[p]);
  if (!gst_cbf_filter_check (self, err, "downloading a frame"))
    return GST_FLOW_ERROR;

  /* The one synchronisation of the frame; it also reports errors of the
   * kernel's execution. */
  err = cudaStreamSynchronize (priv->stream);
  if (!gst_cbf_filter_check (self, err, "filtering a frame"))
    return GST_FLOW_ERROR;

  for (p = 0; p < priv->n_planes; p++) {
    const PlaneBuffers *pb = &priv->planes[p];
    if (staged[p])
      copy_rows (GST_VIDEO_FRAME_PLANE_DATA (out_frame, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (out_frame, p),
          priv->staging_out + pb->staging_offset, pb->row_bytes,
          pb->row_bytes, pb->out.height);
  }
  return GST_FLOW_OK;
}

/* Controlled properties (GstController) take their value for this frame's
 * stream time before it is filtered. */
static void
gst_cbf_filter_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

static GstBufferPool *
new_pinned_pool (GstCaps * caps, guint size, guint min, guint max)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = gst_cbf_pinned_allocator_get ();

  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_object_unref (allocator);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* Offer upstream a pool of pinned buffers, so that its frames reach the GPU
 * by DMA without a staging copy. */
static gboolean
gst_cbf_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCaps *caps;
  GstVideoInfo info;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  if (gst_query_get_n_allocation_pools (query) == 0) {
    GstAllocator *allocator = gst_cbf_pinned_allocator_get ();
    GstBufferPool *pool = need_pool ? new_pinned_pool (caps, info.size, 0,
        0) : NULL;

    gst_query_add_allocation_param (query, allocator, NULL);
    gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
    gst_object_unref (allocator);
    if (pool)
      gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

static gboolean
allocator_is_system_memory (GstAllocator * allocator)
{
  return allocator == NULL ||
      g_strcmp0 (allocator->mem_type, GST_ALLOCATOR_SYSMEM) == 0;
}

/* Output into pinned memory unless downstream asks for memory of its own
 * kind (then the download is staged). */
static gboolean
gst_cbf_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean keep_downstream = FALSE;

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool) {
      GstStructure *config = gst_buffer_pool_get_config (pool);
      GstAllocator *pool_allocator = NULL;

      gst_buffer_pool_config_get_allocator (config, &pool_allocator, NULL);
      keep_downstream = !allocator_is_system_memory (pool_allocator) ||
          !g_type_is_a (G_OBJECT_TYPE (pool), GST_TYPE_VIDEO_BUFFER_POOL);
      gst_structure_free (config);
    }
  }
  if (!keep_downstream && gst_query_get_n_allocation_params (query) > 0) {
    gst_query_parse_nth_allocation_param (query, 0, &allocator, NULL);
    keep_downstream = !allocator_is_system_memory (allocator);
    if (allocator)
      gst_object_unref (allocator);
  }

  if (!keep_downstream) {
    GstAllocator *pinned = gst_cbf_pinned_allocator_get ();

    /* A NULL pool makes GstVideoFilter create a video pool, which the base
     * class configures with the first allocation param: ours. */
    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_set_nth_allocation_pool (query, 0, NULL, size, min, max);
    if (gst_query_get_n_allocation_params (query) > 0)
      gst_query_set_nth_allocation_param (query, 0, pinned, NULL);
    else
      gst_query_add_allocation_param (query, pinned, NULL);
    gst_object_unref (pinned);
  }
  GST_DEBUG_OBJECT (trans, "output into %s memory",
      keep_downstream ? "downstream's" : "pinned");
  if (pool)
    gst_object_unref (pool);

  return GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)
      ->decide_allocation (trans, query);
}

static void
gst_cbf_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCbfFilter *self = GST_CBF_FILTER (object);
  GstCbfFilterPrivate *priv = PRIV (self);

  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      priv->device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cbf_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCbfFilter *self = GST_CBF_FILTER (object);
  GstCbfFilterPrivate *priv = PRIV (self);

  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      g_value_set_int (value, priv->device_id);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cbf_filter_class_init (GstCbfFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vfilter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cbf_filter_set_property;
  gobject_class->get_property = gst_cbf_filter_get_property;

  /**
   * GstCbfFilter:cuda-device-id:
   *
   * The CUDA device to run on, as numbered by the CUDA runtime (and by
   * GStreamer's own CUDA elements); -1 picks the first one. Read when the
   * element starts.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = first device)", -1, G_MAXINT,
          DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cbf_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cbf_filter_stop);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cbf_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cbf_filter_decide_allocation);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cbf_filter_before_transform);
  /* Never pass a frame through unfiltered. */
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;

  vfilter_class->set_info = GST_DEBUG_FUNCPTR (gst_cbf_filter_set_info);
  vfilter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_cbf_filter_transform_frame);

  gst_type_mark_as_plugin_api (GST_TYPE_CBF_FILTER, 0);

  GST_DEBUG_CATEGORY_INIT (gst_cbf_filter_debug, "cbffilter", 0,
      "CUDA filter base class");
}

static void
gst_cbf_filter_init (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);

  priv->device_id = DEFAULT_DEVICE_ID;
}
