/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter, base class of the plugin's CUDA video filters (see
 * gstcbffilter.h), owned here: its GObject and GstBaseTransform vfuncs,
 * the cuda-device-id property, caps (what it accepts, CUDA memory first
 * in its answers), set_info and the subclass's configure, and each frame's
 * dispatch between system and CUDA memory. What they run on is owned by
 * the files beside it, each a struct of the private part
 * (gstcbffilterprivate.h) and functions that take it:
 *
 *   cbffilterframes.c  a frame's transform, in system or CUDA memory
 *   cbfdevice.c      the CUDA context shared with the pipeline, streams,
 *                    frames in CUDA memory (CbfDevice)
 *   cbfbands.c       frames in system memory: device and staging buffers,
 *                    the band pipeline, copy threads (CbfBands)
 *   cbfhostframe.c   host frames mapped, checked and found pinned or not
 *   cbfallocation.c  the pinned and CUDA pools proposed and decided */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcbffilterprivate.h"
#include "cbfallocation.h"
#include "cbfbands.h"
#include "cbfdevice.h"
#include "cbfhostframe.h"
#include "device.h"
#include "gstcbfpinnedallocator.h"

#include <dlfcn.h>

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

/* Shared with the allocation (see cbfallocation.h). */
GST_DEBUG_CATEGORY (gst_cbf_filter_debug);
#define GST_CAT_DEFAULT gst_cbf_filter_debug

#define DEFAULT_DEVICE_ID -1

enum
{
  PROP_0,
  PROP_DEVICE_ID,
};


G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCbfFilter, gst_cbf_filter,
    GST_TYPE_VIDEO_FILTER);

GstCbfFilterPrivate *
gst_cbf_filter_get_private (GstCbfFilter * self)
{
  return gst_cbf_filter_get_instance_private (self);
}

#define PRIV(self) gst_cbf_filter_get_private (self)

gboolean
gst_cbf_filter_check (GstCbfFilter * self, cudaError_t err, const gchar * what)
{
  CbfDevice *dev = &PRIV (self)->device;

  if (err == cudaSuccess)
    return TRUE;

  if (err == cudaErrorMemoryAllocation) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory on CUDA device %d while %s.", dev->device, what),
        ("%s: %s", cudaGetErrorName (err), cudaGetErrorString (err)));
  } else {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("CUDA error on device %d while %s: %s.", dev->device, what,
            cudaGetErrorString (err)),
        ("%s (%d)", cudaGetErrorName (err), (int) err));
  }
  return FALSE;
}

gboolean
gst_cbf_filter_push_context (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);

  if (!priv->context || !cbf_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot make the CUDA context of device %d current.",
            priv->context ? cbf_context_device (priv->context) : -1), (NULL));
    return FALSE;
  }
  return TRUE;
}

void
gst_cbf_filter_pop_context (G_GNUC_UNUSED GstCbfFilter * self)
{
  cbf_context_pop ();
}

/* Why the CUDA runtime sees no device, in words a user can act on: the
 * runtime says "driver version is insufficient" both where the driver is
 * too old and where none is installed, which only loading it tells
 * apart. */
static const gchar *
no_device_reason (cudaError_t err)
{
  if (err == cudaErrorInsufficientDriver) {
    void *driver = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

    if (!driver)
      return "no NVIDIA driver is installed (libcuda.so.1 not found)";
    dlclose (driver);
    return "the NVIDIA driver is older than this plugin's CUDA runtime "
        "needs (CUDA driver version is insufficient for CUDA runtime "
        "version): update the driver";
  }
  return cudaGetErrorString (err);
}

/* The pipeline's CUDA context, else one made here on the device's primary
 * context (see cbf_context_new_primary) and announced to the others
 * (have-context). Built without GStreamer's CUDA library, there is nothing
 * to share: always the primary context. */
static gboolean
ensure_context (GstCbfFilter * self, gint device_id)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  gint device = MAX (device_id, 0);
  CbfContext *made;
  cudaError_t err;

#if CBF_HAVE_CUDA_MEMORY
  {
    GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
    GstPad *pads[] = { GST_BASE_TRANSFORM_SRC_PAD (trans),
      GST_BASE_TRANSFORM_SINK_PAD (trans)
    };

    if (cbf_context_find_in_pipeline (GST_ELEMENT (self), pads,
            G_N_ELEMENTS (pads), device_id, &priv->context))
      return TRUE;
  }
#endif

  made = cbf_context_new_primary (device, &err);
  if (!made) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot set up a CUDA context on device %d.", device),
        ("%s", cudaGetErrorString (err)));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  priv->context = made;
  GST_OBJECT_UNLOCK (self);
#if CBF_HAVE_CUDA_MEMORY
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_have_context (GST_OBJECT (self),
          gst_context_new_cuda_context (made)));
#endif
  return TRUE;
}

/* The streams and events of the element's context (the device's from
 * start, or upstream's after a move); an element error if they cannot be
 * made. */
static gboolean
make_streams (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  cudaError_t err;

  if (!gst_cbf_filter_push_context (self))
    return FALSE;
  err = cbf_device_init (&priv->device, priv->context);
  if (err == cudaSuccess) {
    err = cbf_bands_make_events (&priv->bands);
    if (err != cudaSuccess) {
      cbf_bands_destroy_events (&priv->bands);
      cbf_device_clear (&priv->device);
    }
  }
  gst_cbf_filter_pop_context (self);
  if (err == cudaSuccess && priv->device.sync_cuda_memory)
    GST_INFO_OBJECT (self, "built against GStreamer %d.%d, running on a "
        "later one: frames in CUDA memory are synchronised before they are "
        "read and written (build against this GStreamer for stream-ordered "
        "work)", GST_VERSION_MAJOR, GST_VERSION_MINOR);
  return gst_cbf_filter_check (self, err, "creating streams");
}

/* What the element and its subclass made in its context, released once
 * their work there is done. */
static void
leave_context (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);

  if (priv->device.context && gst_cbf_filter_push_context (self)) {
    cbf_device_synchronize (&priv->device);
    cbf_bands_free (&priv->bands);
    cbf_bands_destroy_events (&priv->bands);
    cbf_device_clear (&priv->device);
    gst_cbf_filter_pop_context (self);
  }
  if (priv->context)
    GST_CBF_FILTER_GET_CLASS (self)->release (self);
}

/* Everything start made, released: also what a start that failed half way
 * made, so that the element is then as a stopped one. */
static void
release_device (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  CbfContext *context;

  leave_context (self);
  cbf_bands_release_copier (&priv->bands);
  GST_OBJECT_LOCK (self);
  context = priv->context;
  priv->context = NULL;
  priv->running = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (context)
    cbf_context_unref (context);
}

#if CBF_HAVE_CUDA_MEMORY
/* Frames in CUDA memory are filtered in the context they are in. The
 * element starts before its upstream (states change from sink to source),
 * so an upstream on another device (cudaupload cuda-device-id=1) is found
 * only now: the element moves to its context where cuda-device-id allows
 * (-1, or that device), else it is an error before any frame, saying what
 * to change. */
static gboolean
follow_context (GstCbfFilter * self, CbfContext * context)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  gint device = cbf_context_device (context), device_id;
  CbfContext *old;

  if (context == priv->context)
    return TRUE;
  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
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
      "%d to %d", priv->device.device, device);
  leave_context (self);
  GST_OBJECT_LOCK (self);
  old = priv->context;
  priv->context = cbf_context_ref (context);
  GST_OBJECT_UNLOCK (self);
  cbf_context_unref (old);
  return make_streams (self);
}
#endif

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
            "its driver.", n_devices < 0 ? no_device_reason (err) :
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
#if CBF_HAVE_CUDA_MEMORY
  /* GStreamer's CUDA library drives the driver API, loaded at run time. */
  if (!gst_cuda_load_library ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Cannot load the NVIDIA driver's CUDA library (libcuda.so.1)."),
        (NULL));
    return FALSE;
  }
  gst_cuda_memory_init_once ();
#endif
  if (!ensure_context (self, device_id) || !make_streams (self)) {
    release_device (self);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  priv->running = TRUE;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "using CUDA device %d of %d", priv->device.device,
      n_devices);
  return TRUE;
}

static gboolean
gst_cbf_filter_stop (GstBaseTransform * trans)
{
  release_device (GST_CBF_FILTER (trans));
  return TRUE;
}

/* The element's buffers for frames of @incaps, and its subclass's. */
static gboolean
configure_frames (GstCbfFilter * self, GstCaps * incaps, GstVideoInfo * in_info)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);
  cudaError_t err;
  gboolean ret;

  if (!gst_cbf_filter_push_context (self))
    return FALSE;
  priv->cuda_memory = cbf_caps_are_cuda_memory (incaps);
  cbf_frame_shape_init (&priv->shape, in_info);
  err = cbf_bands_set (&priv->bands, &priv->device, &priv->shape,
      priv->cuda_memory);
  if (err != cudaSuccess) {
    gchar *what = g_strdup_printf ("allocating buffers for %dx%d %s frames",
        GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
        GST_VIDEO_INFO_NAME (in_info));

    gst_cbf_filter_check (self, err, what);
    g_free (what);
  } else {
    GST_DEBUG_OBJECT (self, "%s for %" GST_PTR_FORMAT ", %u bands of %d "
        "rows", priv->cuda_memory ? "no device buffers" : "device buffers",
        incaps, priv->bands.n_bands, priv->bands.band_rows);
  }
  ret = err == cudaSuccess && klass->configure (self, in_info);
  gst_cbf_filter_pop_context (self);
  return ret;
}

#if CBF_HAVE_CUDA_MEMORY
/* Upstream's frames may come in another context than the one negotiation
 * found (an upstream that answers no context query, or that changes its
 * context): the element follows before the frame's output buffer is taken,
 * from a pool of the new context (the source pad renegotiates its
 * allocation). */
static GstFlowReturn
gst_cbf_filter_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstCbfFilter *self = GST_CBF_FILTER (trans);
  GstCbfFilterPrivate *priv = PRIV (self);
  GstMemory *mem = gst_buffer_n_memory (input) > 0 ?
      gst_buffer_peek_memory (input, 0) : NULL;

  if (priv->cuda_memory && mem && gst_is_cuda_memory (mem) &&
      GST_CUDA_MEMORY_CAST (mem)->context != priv->context) {
    GstCaps *caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD
        (trans));
    gboolean ok = caps && follow_context (self,
        GST_CUDA_MEMORY_CAST (mem)->context)
        && configure_frames (self, caps, &GST_VIDEO_FILTER (self)->in_info);

    gst_clear_caps (&caps);
    if (!ok) {
      gst_buffer_unref (input);
      return GST_FLOW_NOT_NEGOTIATED;
    }
    gst_base_transform_reconfigure_src (trans);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)
      ->submit_input_buffer (trans, is_discont, input);
}
#endif

static gboolean
gst_cbf_filter_set_info (GstVideoFilter * vfilter, GstCaps * incaps,
    GstVideoInfo * in_info, G_GNUC_UNUSED GstCaps * outcaps,
    G_GNUC_UNUSED GstVideoInfo * out_info)
{
  GstCbfFilter *self = GST_CBF_FILTER (vfilter);

#if CBF_HAVE_CUDA_MEMORY
  if (cbf_caps_are_cuda_memory (incaps)) {
    CbfContext *context =
        cbf_context_of_peer (GST_BASE_TRANSFORM_SINK_PAD (self));
    gboolean followed = !context || follow_context (self, context);

    if (context)
      cbf_context_unref (context);
    if (!followed)
      return FALSE;
  }
#endif
  return configure_frames (self, incaps, in_info);
}

/* Caps the kernels cannot launch for (taller than CBF_MAX_HEIGHT rows) are
 * outside the pad templates, so negotiation refuses them, never a frame;
 * the first refusal of such caps says why, as a warning (upstream then
 * fails with not-negotiated). */
static gboolean
gst_cbf_filter_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  GstCbfFilterPrivate *priv = PRIV (GST_CBF_FILTER (trans));
  GstVideoInfo info;
  gboolean first;

  if (GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)->accept_caps
      (trans, direction, caps))
    return TRUE;
  if (!gst_caps_is_fixed (caps) || !gst_video_info_from_caps (&info, caps)
      || GST_VIDEO_INFO_HEIGHT (&info) <= CBF_MAX_HEIGHT)
    return FALSE;
  GST_OBJECT_LOCK (trans);
  first = priv->refused_height != GST_VIDEO_INFO_HEIGHT (&info);
  priv->refused_height = GST_VIDEO_INFO_HEIGHT (&info);
  GST_OBJECT_UNLOCK (trans);
  if (first)
    GST_ELEMENT_WARNING (trans, STREAM, FORMAT,
        ("Frames of %dx%d are not supported: at most %d rows.",
            GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
            CBF_MAX_HEIGHT), ("%" GST_PTR_FORMAT, caps));
  return FALSE;
}

/* GstVideoFilter makes a filter without a transform_frame (this one maps
 * frames itself) work in place; this one never does. */
static gboolean
gst_cbf_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  if (!GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)->set_caps
      (trans, incaps, outcaps))
    return FALSE;
  gst_base_transform_set_in_place (trans, FALSE);
  return TRUE;
}

/* Every frame runs with the element's CUDA context current. */
static GstFlowReturn
gst_cbf_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCbfFilter *self = GST_CBF_FILTER (trans);
#if CBF_HAVE_CUDA_MEMORY
  GstCbfFilterPrivate *priv = PRIV (self);
#endif
  GstFlowReturn ret;

  if (!gst_cbf_filter_push_context (self))
    return GST_FLOW_ERROR;
#if CBF_HAVE_CUDA_MEMORY
  if (priv->cuda_memory)
    ret = gst_cbf_filter_transform_cuda_memory (self, inbuf, outbuf);
  else
#endif
    ret = gst_cbf_filter_transform_system_memory (self, inbuf, outbuf);
  gst_cbf_filter_pop_context (self);
  return ret;
}

/* Frames pushed while their downloads still ran (output_takes_pending_write)
 * have finished before the end of the stream goes on, so that a failure
 * of the last of them is the element's error, not only its reader's. */
static gboolean
gst_cbf_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCbfFilter *self = GST_CBF_FILTER (trans);
  GstCbfFilterPrivate *priv = PRIV (self);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && priv->device.download_stream
      && gst_cbf_filter_push_context (self)) {
    cudaError_t err = cudaStreamSynchronize (priv->device.download_stream);

    gst_cbf_filter_pop_context (self);
    if (!gst_cbf_filter_check (self, err, "finishing the last frames")) {
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)->sink_event
      (trans, event);
}

#if CBF_HAVE_CUDA_MEMORY
/* The pipeline's CUDA context, taken before start only: streams and
 * buffers made in one context cannot move to another. */
static void
gst_cbf_filter_set_context (GstElement * element, GstContext * context)
{
  GstCbfFilter *self = GST_CBF_FILTER (element);
  GstCbfFilterPrivate *priv = PRIV (self);

  GST_OBJECT_LOCK (self);
  if (!priv->running)
    gst_cuda_handle_set_context (element, context, priv->device_id,
        &priv->context);
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_CLASS (gst_cbf_filter_parent_class)->set_context (element,
      context);
}

/* CUDA memory first in the caps the element answers, whatever the order
 * of the asker's filter: cudaupload, for one, lists system memory first
 * and takes the first its peer answers, so without this the frames would
 * come back to system memory before the element. */
static void
prefer_cuda_memory (GstQuery * query)
{
  GstCaps *caps, *cuda, *other;
  guint i;

  gst_query_parse_caps_result (query, &caps);
  if (!caps || gst_caps_is_any (caps))
    return;
  cuda = gst_caps_new_empty ();
  other = gst_caps_new_empty ();
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);

    if (features && gst_caps_features_contains (features,
            GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
      gst_caps_append (cuda, gst_caps_copy_nth (caps, i));
    else
      gst_caps_append (other, gst_caps_copy_nth (caps, i));
  }
  if (!gst_caps_is_empty (cuda) && !gst_caps_is_empty (other)) {
    gst_caps_append (cuda, other);
    gst_query_set_caps_result (query, cuda);
  } else {
    gst_caps_unref (other);
  }
  gst_caps_unref (cuda);
}

/* Answers neighbours' context queries, from their threads: the context is
 * read under the lock that stop takes to drop it. */
static gboolean
gst_cbf_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    if (!GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)->query
        (trans, direction, query))
      return FALSE;
    prefer_cuda_memory (query);
    return TRUE;
  }
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GstCbfFilterPrivate *priv = PRIV (GST_CBF_FILTER (trans));
    GstCudaContext *context = NULL;
    gboolean answered;

    GST_OBJECT_LOCK (trans);
    if (priv->context)
      context = gst_object_ref (priv->context);
    GST_OBJECT_UNLOCK (trans);
    answered = gst_cuda_handle_context_query (GST_ELEMENT (trans), query,
        context);
    gst_clear_object (&context);
    if (answered)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)->query (trans,
      direction, query);
}
#endif

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

static gboolean
gst_cbf_filter_propose_allocation (GstBaseTransform * trans,
    G_GNUC_UNUSED GstQuery * decide_query, GstQuery * query)
{
  return cbf_propose_allocation (&PRIV (GST_CBF_FILTER (trans))->device, query);
}

static gboolean
gst_cbf_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCbfFilterPrivate *priv = PRIV (GST_CBF_FILTER (trans));

  return cbf_decide_allocation (trans, &priv->device, priv->cuda_memory,
      query, GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)
      ->decide_allocation);
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
gst_cbf_filter_dispose (GObject * object)
{
  g_clear_pointer (&PRIV (GST_CBF_FILTER (object))->context, cbf_context_unref);
  G_OBJECT_CLASS (gst_cbf_filter_parent_class)->dispose (object);
}

/* The frame keeps its size, orientation and colours: metadata tied to
 * those alone (regions of interest, as a detector attaches) still holds
 * on the output; the rest as GstBaseTransform decides. */
static gboolean
gst_cbf_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  static const gchar *kept[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, NULL
  };
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);

  for (; tags && *tags; tags++)
    if (!g_strv_contains (kept, *tags))
      return
          GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)->transform_meta
          (trans, outbuf, meta, inbuf);
  return TRUE;
}

static void
gst_cbf_filter_class_init (GstCbfFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vfilter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cbf_filter_set_property;
  gobject_class->get_property = gst_cbf_filter_get_property;
  gobject_class->dispose = gst_cbf_filter_dispose;

  /**
   * GstCbfFilter:cuda-device-id:
   *
   * The CUDA device to run on, as numbered by the CUDA runtime (and by
   * GStreamer's own CUDA elements); -1 takes the device of the pipeline's
   * CUDA context (shared with nvh264dec, cudaupload, ...) or else the first
   * one. Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = the device of the pipeline's CUDA context, "
          "else the first)", -1, G_MAXINT,
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
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cbf_filter_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cbf_filter_sink_event);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cbf_filter_transform_meta);
#if CBF_HAVE_CUDA_MEMORY
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cbf_filter_submit_input_buffer);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cbf_filter_query);
  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_cbf_filter_set_context);
#endif
  /* Never pass a frame through unfiltered. */
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;

  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cbf_filter_set_caps);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_cbf_filter_accept_caps);
  vfilter_class->set_info = GST_DEBUG_FUNCPTR (gst_cbf_filter_set_info);

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
