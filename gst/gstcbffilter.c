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
 *   first)--> device buffer --kernel--> device buffer --(DMA, through the
 *   staging buffer if not pinned)--> host frame
 *
 * Pageable memory that comes back (a pool's, upstream's or downstream's)
 * is page-locked for the driver the second time it is seen, for as long
 * as it lives (cbfhostregister.h), so that it takes the DMA path from
 * then on; pageable memory new every frame is copied to and from the
 * staging buffers by several threads (cbfcopier.h), band by band, the
 * output as each band arrives.
 *
 * The frame is cut into horizontal bands that flow through three streams:
 * band b is uploaded on the upload stream while band b - 1 is filtered on
 * the compute stream and band b - 2 downloaded on the download stream, so
 * the two copy engines and the SMs work at once within one frame: a frame
 * costs about its slowest stage instead of the sum of the three, without
 * holding frames back (no added latency). Events order the streams: a
 * band's kernel waits for the upload of every row its window reaches (the
 * halo, brought by the band's own upload), its download for the kernel.
 * One synchronisation per frame, on the download stream, which by then
 * depends on all the work of the frame.
 *
 * Frames in CUDA memory (caps feature memory:CUDAMemory, GStreamer's
 * GstCudaMemory) take none of that: the kernel reads and writes the
 * buffers' own device memory, on the memory stream; with GStreamer 1.22
 * the frame is finished before the buffer goes downstream (what its CUDA
 * elements expect of each other), since 1.24 it leaves with the work
 * pending on that stream (see finish_frame). Either way all CUDA work runs in the element's
 * GstCudaContext, shared with the pipeline's other CUDA elements through
 * the context query and message, and pushed on the calling thread around
 * each piece of work (the CUDA runtime then uses it). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcbffilter.h"
#include "gstcbfpinnedallocator.h"
#include "cbfcopier.h"
#include "cbfhostframe.h"

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif
#include "cbfframeplan.h"

#include <string.h>

/* GStreamer 1.24's CUDA memory carries the stream its work is on. */
#define CBF_HAVE_CUDA_STREAMS \
    (CBF_HAVE_CUDA_MEMORY && GST_CHECK_VERSION (1, 24, 0))

GST_DEBUG_CATEGORY_STATIC (gst_cbf_filter_debug);
#define GST_CAT_DEFAULT gst_cbf_filter_debug

#define DEFAULT_DEVICE_ID -1

/* Bands per frame: enough for the copies and the kernel to overlap well,
 * few enough that the per-band launch costs (a few microseconds each) stay
 * small: a band has at least MIN_BAND_ROWS rows and DEFAULT_BAND_BYTES
 * bytes, the size that measured fastest (design.md, "Bands, halos and
 * events"); the environment variable GST_CBF_BAND_BYTES overrides it, for
 * tests and tuning. */
#define MAX_BANDS 8
#define MIN_BAND_ROWS 64
#define DEFAULT_BAND_BYTES (3 << 19)

/* Buffers at most in the pinned pool offered upstream: page-locked memory
 * is taken from what the whole system can page, so it is bounded; an
 * upstream that needs more keeps a pool of its own (then its frames are
 * staged). */
#define MAX_PINNED_POOL_BUFFERS 16

/* Threads besides the streaming one that copy frames in pageable memory to
 * and from the staging buffers (cbfcopier.h): the count that measured
 * fastest (design.md, "Pageable frames"), at most half the processors. One
 * copier serves every element of the process, so that many pipelines do
 * not start and wake threads of their own; the environment variable
 * GST_CBF_COPY_THREADS sets its total, 1 to CBF_COPIER_MAX_THREADS, for
 * tests and tuning. */
#define MAX_COPY_HELPERS 5

enum
{
  PROP_0,
  PROP_DEVICE_ID,
};

typedef struct
{
  gint device_id;               /* property: -1 = first device */
  /* From start (or a context of the pipeline's) to stop, under the object
   * lock where threads other than the streaming one read it (the context
   * query, set_context); running: between a successful start and stop. */
  CbfContext *context;
  gboolean running;
  gint refused_height;          /* of the last caps refused for it */

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
  cudaEvent_t uploaded[MAX_BANDS];      /* band's rows are on the device */
  cudaEvent_t filtered[MAX_BANDS];      /* band's output rows are ready */
  cudaEvent_t downloaded[MAX_BANDS];    /* and in host memory */
  CbfCopier *copier;            /* made at the first pageable frame */

  /* From set_info to the next set_info or stop. */
  gboolean cuda_memory;         /* caps with memory:CUDAMemory */
  /* Where each plane lives: its device buffers are dev_in[p] and
   * dev_out[p], its rows packed at staging_offset[p] in the staging
   * buffers. */
  CbfFrameShape shape;
  gsize staging_offset[GST_VIDEO_MAX_PLANES];
  CbfPlane dev_in[GST_VIDEO_MAX_PLANES];
  CbfPlane dev_out[GST_VIDEO_MAX_PLANES];
  guint8 *staging_in;           /* pinned, for input that is not */
  guint8 *staging_out;          /* pinned, for output that is not */
  guint n_bands;
  gint band_rows;               /* rows of plane 0 per band, the last less */
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
gst_cbf_filter_push_context (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);

  if (!priv->context || !cbf_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot make the CUDA context of device %d current.", priv->device),
        (NULL));
    return FALSE;
  }
  return TRUE;
}

void
gst_cbf_filter_pop_context (G_GNUC_UNUSED GstCbfFilter * self)
{
  cbf_context_pop ();
}

static void
free_frame_buffers (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  guint i;

  for (i = 0; i < priv->shape.n_planes; i++) {
    cudaFree (priv->dev_in[i].data);
    cudaFree (priv->dev_out[i].data);
  }
  cudaFreeHost (priv->staging_in);
  cudaFreeHost (priv->staging_out);
  memset (priv->shape.planes, 0, sizeof (priv->shape.planes));
  memset (priv->staging_offset, 0, sizeof (priv->staging_offset));
  memset (priv->dev_in, 0, sizeof (priv->dev_in));
  memset (priv->dev_out, 0, sizeof (priv->dev_out));
  priv->staging_in = priv->staging_out = NULL;
  priv->shape.n_planes = 0;
}

static void
destroy_streams (GstCbfFilterPrivate * priv)
{
  gint i;

  for (i = 0; i < MAX_BANDS; i++) {
    if (priv->uploaded[i])
      cudaEventDestroy (priv->uploaded[i]);
    if (priv->filtered[i])
      cudaEventDestroy (priv->filtered[i]);
    if (priv->downloaded[i])
      cudaEventDestroy (priv->downloaded[i]);
    priv->uploaded[i] = priv->filtered[i] = priv->downloaded[i] = NULL;
  }
  if (priv->upload_stream)
    cudaStreamDestroy (priv->upload_stream);
  if (priv->input_ready)
    cudaEventDestroy (priv->input_ready);
  if (priv->output_free)
    cudaEventDestroy (priv->output_free);
  if (priv->frame_done)
    cudaEventDestroy (priv->frame_done);
  priv->input_ready = priv->output_free = priv->frame_done = NULL;
#if CBF_HAVE_CUDA_STREAMS
  if (priv->cuda_stream)
    gst_clear_cuda_stream (&priv->cuda_stream);
#endif
  priv->memory_stream = NULL;
  if (priv->compute_stream)
    cudaStreamDestroy (priv->compute_stream);
  if (priv->download_stream)
    cudaStreamDestroy (priv->download_stream);
  priv->upload_stream = priv->compute_stream = priv->download_stream = NULL;
}

/* Waits for everything the element enqueued. */
static void
synchronize_all (GstCbfFilterPrivate * priv)
{
  cudaStreamSynchronize (priv->upload_stream);
  cudaStreamSynchronize (priv->compute_stream);
  if (priv->memory_stream != priv->compute_stream)
    cudaStreamSynchronize (priv->memory_stream);
  cudaStreamSynchronize (priv->download_stream);
}

#if CBF_HAVE_CUDA_MEMORY
/* Takes the CUDA context in @context if the element has none yet and it is
 * of @device_id's device (-1: any). */
static void
take_context (GstCbfFilter * self, GstContext * context, gint device_id)
{
  GstCbfFilterPrivate *priv = PRIV (self);

  GST_OBJECT_LOCK (self);
  gst_cuda_handle_set_context (GST_ELEMENT (self), context, device_id,
      &priv->context);
  GST_OBJECT_UNLOCK (self);
}

static gboolean
have_context (GstCbfFilter * self)
{
  gboolean have;

  GST_OBJECT_LOCK (self);
  have = PRIV (self)->context != NULL;
  GST_OBJECT_UNLOCK (self);
  return have;
}

/* Looks for the pipeline's CUDA context: one set on the element before
 * (kept by GstElement across stop and start), then its neighbours' (a
 * context query both ways), then the application's (need-context message,
 * answered through set_context). No lock is held while asking: the answer
 * may come back through set_context on this thread. */
static void
find_pipeline_context (GstCbfFilter * self, gint device_id)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstPad *pads[] = { GST_BASE_TRANSFORM_SRC_PAD (trans),
    GST_BASE_TRANSFORM_SINK_PAD (trans)
  };
  GstContext *context;
  guint i;

  context = gst_element_get_context (GST_ELEMENT (self), GST_CUDA_CONTEXT_TYPE);
  if (context) {
    take_context (self, context, device_id);
    gst_context_unref (context);
  }
  for (i = 0; i < G_N_ELEMENTS (pads) && !have_context (self); i++) {
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);

    if (gst_pad_peer_query (pads[i], query)) {
      gst_query_parse_context (query, &context);
      if (context)
        take_context (self, context, device_id);
    }
    gst_query_unref (query);
  }
  if (!have_context (self))
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_need_context (GST_OBJECT (self),
            GST_CUDA_CONTEXT_TYPE));
}

#endif

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
  find_pipeline_context (self, device_id);
  if (have_context (self))
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
  priv->context = made;
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
leave_context (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);

  if (priv->download_stream && gst_cbf_filter_push_context (self)) {
    synchronize_all (priv);
    free_frame_buffers (self);
    destroy_streams (priv);
    gst_cbf_filter_pop_context (self);
  }
  if (priv->context)
    klass->release (self);
  gst_clear_object (&priv->pinned_allocator);
}

/* Everything start made, released: also what a start that failed half way
 * made, so that the element is then as a stopped one. */
static void
release_device (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  CbfContext *context;

  leave_context (self);
  g_clear_pointer (&priv->copier, cbf_copier_release_shared);
  GST_OBJECT_LOCK (self);
  context = priv->context;
  priv->context = NULL;
  priv->running = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (context)
    cbf_context_unref (context);
}

/* The pinned allocator, streams and events of the element's context (the
 * device's from start, or upstream's after a move); an element error if
 * they cannot be made. */
static gboolean
make_streams (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  cudaError_t err;
  gint i;

  priv->device = cbf_context_device (priv->context);
  priv->pinned_allocator = gst_cbf_pinned_allocator_new (priv->context);
  if (!gst_cbf_filter_push_context (self))
    return FALSE;
  /* Non-blocking: the element's work must not wait on, nor stall, the legacy
   * default stream other code in the process may use. */
  err = cudaStreamCreateWithFlags (&priv->upload_stream, cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&priv->compute_stream,
        cudaStreamNonBlocking);
  priv->memory_stream = priv->compute_stream;
#if CBF_HAVE_CUDA_STREAMS
  if (err == cudaSuccess) {
    priv->cuda_stream = gst_cuda_stream_new (priv->context);
    if (priv->cuda_stream)
      priv->memory_stream =
          (cudaStream_t) gst_cuda_stream_get_handle (priv->cuda_stream);
    else
      err = cudaErrorInitializationError;
  }
#endif
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&priv->download_stream,
        cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&priv->input_ready, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&priv->output_free, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&priv->frame_done, cudaEventDisableTiming);
  for (i = 0; i < MAX_BANDS && err == cudaSuccess; i++) {
    err = cudaEventCreateWithFlags (&priv->uploaded[i], cudaEventDisableTiming);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&priv->filtered[i],
          cudaEventDisableTiming);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&priv->downloaded[i],
          cudaEventDisableTiming);
  }
  if (!gst_cbf_filter_check (self, err, "creating streams"))
    destroy_streams (priv);
  gst_cbf_filter_pop_context (self);
  return err == cudaSuccess;
}

/* Whether frames in CUDA memory must be synchronised: a build against
 * GStreamer 1.22 (no CUDA streams) cannot see the streams that 1.24's CUDA
 * elements leave their work pending on, and must not read or overwrite a
 * frame before that work is done. */
static gboolean
cuda_memory_needs_sync (G_GNUC_UNUSED GstCbfFilter * self)
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
  if (!ensure_context (self, device_id))
    goto failed;
  if (!make_streams (self))
    goto failed;
  priv->sync_cuda_memory = cuda_memory_needs_sync (self);

  GST_OBJECT_LOCK (self);
  priv->running = TRUE;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "using CUDA device %d of %d", priv->device, n_devices);
  return TRUE;

failed:
  release_device (self);
  return FALSE;
}

static gboolean
gst_cbf_filter_stop (GstBaseTransform * trans)
{
  release_device (GST_CBF_FILTER (trans));
  return TRUE;
}

static gboolean
caps_are_cuda_memory (G_GNUC_UNUSED GstCaps * caps)
{
#if CBF_HAVE_CUDA_MEMORY
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  return FALSE;
#endif
}

/* Device and staging buffers for frames in system memory, and the band
 * layout. Frames in CUDA memory need none. */
static gboolean
set_frame_buffers (GstCbfFilter * self, GstCaps * incaps,
    GstVideoInfo * in_info)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  gsize staging_size = 0;
  cudaError_t err = cudaSuccess;
  guint p;

  /* Buffers of the previous caps may still be in use by queued work. */
  synchronize_all (priv);
  free_frame_buffers (self);

  priv->cuda_memory = caps_are_cuda_memory (incaps);
  priv->shape.n_planes = GST_VIDEO_INFO_N_PLANES (in_info);
  for (p = 0; p < priv->shape.n_planes && err == cudaSuccess; p++) {
    CbfPlaneShape *pb = &priv->shape.planes[p];
    CbfPlane *in = &priv->dev_in[p], *out = &priv->dev_out[p];
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint width, height;

    gst_video_format_info_component (in_info->finfo, p, comp);
    width = GST_VIDEO_INFO_COMP_WIDTH (in_info, comp[0]);
    height = GST_VIDEO_INFO_COMP_HEIGHT (in_info, comp[0]);
    pb->row_bytes = cbf_plane_row_bytes (in_info, p);
    pb->height = in->height = out->height = height;
    in->width = out->width = width;
    in->pixel_bytes = out->pixel_bytes =
        GST_VIDEO_INFO_COMP_PSTRIDE (in_info, comp[0]);
    priv->staging_offset[p] = staging_size;
    staging_size += pb->row_bytes * height;
    if (priv->cuda_memory)
      continue;

    err = cudaMallocPitch ((void **) &in->data, &in->pitch_bytes,
        pb->row_bytes, height);
    if (err == cudaSuccess)
      err = cudaMallocPitch ((void **) &out->data, &out->pitch_bytes,
          pb->row_bytes, height);
  }
  if (err == cudaSuccess && !priv->cuda_memory)
    err = cudaHostAlloc ((void **) &priv->staging_in, staging_size,
        cudaHostAllocPortable);
  if (err == cudaSuccess && !priv->cuda_memory)
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

  /* Bands only for one-plane formats, whose rows map one to one, in system
   * memory. */
  priv->n_bands = 1;
  if (priv->shape.n_planes == 1 && !priv->cuda_memory) {
    const gchar *env = g_getenv ("GST_CBF_BAND_BYTES");
    gsize band_bytes = env ? MAX (g_ascii_strtoull (env, NULL, 10), 1) :
        DEFAULT_BAND_BYTES;
    gsize n = MIN ((gsize) (priv->shape.planes[0].height / MIN_BAND_ROWS),
        staging_size / band_bytes);
    priv->n_bands = CLAMP (n, 1, MAX_BANDS);
  }
  priv->band_rows = (priv->shape.planes[0].height + priv->n_bands - 1) /
      priv->n_bands;

  GST_DEBUG_OBJECT (self, "%s for %" GST_PTR_FORMAT ", %u bands of %d rows",
      priv->cuda_memory ? "no device buffers" : "device buffers", incaps,
      priv->n_bands, priv->band_rows);
  return TRUE;
}

/* The element's buffers for frames of @incaps, and its subclass's. */
static gboolean
configure_frames (GstCbfFilter * self, GstCaps * incaps, GstVideoInfo * in_info)
{
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);
  gboolean ret;

  if (!gst_cbf_filter_push_context (self))
    return FALSE;
  ret = set_frame_buffers (self, incaps, in_info) &&
      klass->configure (self, in_info);
  gst_cbf_filter_pop_context (self);
  return ret;
}

#if CBF_HAVE_CUDA_MEMORY
/* The CUDA context upstream answers the context query with (a decoder,
 * cudaupload, another filter), or NULL. */
static CbfContext *
upstream_context (GstCbfFilter * self)
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
      "%d to %d", priv->device, device);
  leave_context (self);
  GST_OBJECT_LOCK (self);
  old = priv->context;
  priv->context = cbf_context_ref (context);
  GST_OBJECT_UNLOCK (self);
  cbf_context_unref (old);
  return make_streams (self);
}

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
        GST_CUDA_MEMORY_CAST (mem)->context) && configure_frames (self, caps,
        &GST_VIDEO_FILTER (self)->in_info);

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
  if (caps_are_cuda_memory (incaps)) {
    CbfContext *context = upstream_context (self);
    gboolean followed = !context || follow_context (self, context);

    if (context)
      cbf_context_unref (context);
    if (!followed)
      return FALSE;
  }
#endif
  return configure_frames (self, incaps, in_info);
}

/* ------------------------------------------------------------------ */
/* Frames in system memory */

/* The process's copier for frames in pageable memory, taken the first
 * time one comes (its threads are not needed otherwise). */
static void
ensure_copier (GstCbfFilter * self)
{
  GstCbfFilterPrivate *priv = PRIV (self);

  if (!priv->copier) {
    guint helpers = MIN (MAX_COPY_HELPERS, g_get_num_processors () / 2);
    gchar *warning = NULL;

    priv->copier = cbf_copier_acquire_shared (helpers + 1, &warning);
    if (warning)
      GST_WARNING_OBJECT (self, "%s", warning);
    g_free (warning);
    GST_INFO_OBJECT (self, "pageable frames: copied to and from staging "
        "memory by %u threads", cbf_copier_threads (priv->copier));
  }
}

/* Rows [begin, end) of plane @p of each band; planes other than the first
 * go whole with band 0 (one-plane formats only are cut into bands). */
static void
band_rows (GstCbfFilterPrivate * priv, guint band, guint p, gint * begin,
    gint * end)
{
  gint height = priv->shape.planes[p].height;

  if (priv->n_bands == 1) {
    *begin = 0;
    *end = height;
    return;
  }
  *begin = MIN ((gint) band * priv->band_rows, height);
  *end = MIN (*begin + priv->band_rows, height);
}

/* Band @band's upload: its rows shifted down by @halo_rows, so that it
 * also brings the rows the band's kernel reads below the band, and that
 * kernel waits for this one upload only. The uploads still cover each row
 * once. */
static void
upload_rows (GstCbfFilterPrivate * priv, guint band, guint p,
    gint halo_rows, gint * begin, gint * end)
{
  gint height = priv->shape.planes[p].height;

  band_rows (priv, band, p, begin, end);
  if (priv->n_bands == 1)
    return;
  *begin = band == 0 ? 0 : MIN (*begin + halo_rows, height);
  *end = band == priv->n_bands - 1 ? height : MIN (*end + halo_rows, height);
}

/* Band @band's upload; pageable rows are first copied to the staging
 * buffer, on the copier's threads, while the previous band's copy to the
 * device runs. */
static cudaError_t
upload_band (GstCbfFilterPrivate * priv, const CbfHostFrame * frame, guint band,
    gint halo_rows)
{
  cudaError_t err = cudaSuccess;
  CbfCopy staged[GST_VIDEO_MAX_PLANES];
  gint begin[GST_VIDEO_MAX_PLANES], end[GST_VIDEO_MAX_PLANES];
  guint p, n_staged = 0;

  for (p = 0; p < priv->shape.n_planes; p++) {
    const CbfPlaneShape *pb = &priv->shape.planes[p];

    upload_rows (priv, band, p, halo_rows, &begin[p], &end[p]);
    if (!frame->pinned && begin[p] < end[p])
      staged[n_staged++] =
          cbf_copy_rows (priv->staging_in + priv->staging_offset[p] +
          begin[p] * pb->row_bytes, pb->row_bytes,
          frame->data[p] + begin[p] * frame->stride[p], frame->stride[p],
          pb->row_bytes, end[p] - begin[p]);
  }
  if (n_staged)
    cbf_copier_run (priv->copier, staged, n_staged);

  for (p = 0; p < priv->shape.n_planes && err == cudaSuccess; p++) {
    const CbfPlaneShape *pb = &priv->shape.planes[p];
    const CbfPlane *dev = &priv->dev_in[p];
    const guint8 *data = frame->data[p];
    gsize stride = frame->stride[p];

    if (begin[p] >= end[p])
      continue;
    if (!frame->pinned) {
      data = priv->staging_in + priv->staging_offset[p];
      stride = pb->row_bytes;
    }
    err = cudaMemcpy2DAsync (dev->data + begin[p] * dev->pitch_bytes,
        dev->pitch_bytes, data + begin[p] * stride, stride, pb->row_bytes,
        end[p] - begin[p], cudaMemcpyHostToDevice, priv->upload_stream);
  }
  return err;
}

/* Copies band @band of the output from the staging buffer to pageable
 * @frame, once it has arrived there. */
static void
copy_out_band (GstCbfFilterPrivate * priv, const CbfHostFrame * frame,
    guint band)
{
  CbfCopy copies[GST_VIDEO_MAX_PLANES];
  guint p, n = 0;

  for (p = 0; p < priv->shape.n_planes; p++) {
    const CbfPlaneShape *pb = &priv->shape.planes[p];
    gint begin, end;

    band_rows (priv, band, p, &begin, &end);
    if (begin >= end)
      continue;
    copies[n++] = cbf_copy_rows (frame->data[p] + begin * frame->stride[p],
        frame->stride[p], priv->staging_out + priv->staging_offset[p] +
        begin * pb->row_bytes, pb->row_bytes, pb->row_bytes, end - begin);
  }
  cbf_copier_run (priv->copier, copies, n);
}

/* Whether band @band's download has finished, without waiting. A band
 * not there yet is not an error: the runtime's last error is cleared of
 * it, so that the next launch's check does not report it. */
static gboolean
band_arrived (GstCbfFilterPrivate * priv, guint band)
{
  cudaError_t err = cudaEventQuery (priv->downloaded[band]);

  if (err == cudaErrorNotReady)
    cudaGetLastError ();
  return err == cudaSuccess;
}

/* Pageable output lands in the staging buffer, copied out band by band
 * as each arrives (filter_host_frame). */
static cudaError_t
download_band (GstCbfFilterPrivate * priv, const CbfHostFrame * frame,
    guint band)
{
  cudaError_t err = cudaSuccess;
  guint p;

  for (p = 0; p < priv->shape.n_planes && err == cudaSuccess; p++) {
    const CbfPlaneShape *pb = &priv->shape.planes[p];
    guint8 *data = frame->data[p];
    gsize stride = frame->stride[p];
    gint begin, end;

    band_rows (priv, band, p, &begin, &end);
    if (begin >= end)
      continue;
    if (!frame->pinned) {
      data = priv->staging_out + priv->staging_offset[p];
      stride = pb->row_bytes;
    }
    err = cudaMemcpy2DAsync (data + begin * stride, stride,
        priv->dev_out[p].data + begin * priv->dev_out[p].pitch_bytes,
        priv->dev_out[p].pitch_bytes,
        pb->row_bytes, end - begin, cudaMemcpyDeviceToHost,
        priv->download_stream);
  }
  return err;
}

/* Uploads, filters and downloads a frame in bands (see the top of this
 * file). */
static GstFlowReturn
filter_host_frame (GstCbfFilter * self, const CbfHostFrame * in,
    const CbfHostFrame * out)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  GstCbfFilterClass *klass = GST_CBF_FILTER_GET_CLASS (self);
  cudaError_t err = cudaSuccess;
  gint halo_rows = 0;
  guint b, copied_out = 0;

  if (!klass->prepare (self, priv->compute_stream, &halo_rows))
    return GST_FLOW_ERROR;
  if (!in->pinned || !out->pinned)
    ensure_copier (self);

  for (b = 0; b < priv->n_bands && err == cudaSuccess; b++) {
    gint begin, end;

    err = upload_band (priv, in, b, halo_rows);
    if (err == cudaSuccess)
      err = cudaEventRecord (priv->uploaded[b], priv->upload_stream);
    if (err == cudaSuccess)
      err = cudaStreamWaitEvent (priv->compute_stream, priv->uploaded[b], 0);
    band_rows (priv, b, 0, &begin, &end);
    if (err == cudaSuccess && begin < end)
      err = klass->filter (self, priv->dev_in, priv->dev_out, begin, end,
          priv->compute_stream);
    if (err == cudaSuccess)
      err = cudaEventRecord (priv->filtered[b], priv->compute_stream);
    if (err == cudaSuccess)
      err = cudaStreamWaitEvent (priv->download_stream, priv->filtered[b], 0);
    if (err == cudaSuccess)
      err = download_band (priv, out, b);
    if (err == cudaSuccess && !out->pinned)
      err = cudaEventRecord (priv->downloaded[b], priv->download_stream);
    /* Pageable output: the bands already in the staging buffer are copied
     * out while the next band is staged and copied in. */
    while (err == cudaSuccess && !out->pinned && copied_out < b
        && band_arrived (priv, copied_out))
      copy_out_band (priv, out, copied_out++);
  }
  if (!gst_cbf_filter_check (self, err, "enqueuing a frame")) {
    synchronize_all (priv);
    return GST_FLOW_ERROR;
  }

  /* The frame's synchronisation: the download stream's last copy depends
   * on every kernel, and the last kernel on every upload; it also reports
   * errors of the kernels' execution. Pageable output waits band by band,
   * each copied out as soon as it has arrived. */
  for (; !out->pinned && copied_out < priv->n_bands; copied_out++) {
    err = cudaEventSynchronize (priv->downloaded[copied_out]);
    if (err != cudaSuccess)
      break;
    copy_out_band (priv, out, copied_out);
  }
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (priv->download_stream);
  if (!gst_cbf_filter_check (self, err, "filtering a frame"))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

/* A frame in system memory, whatever its layout. A buffer that does not
 * hold a frame of the caps is an element error and nothing is pushed
 * (GstVideoFilter's own transform would warn and push an unwritten
 * buffer). */
static GstFlowReturn
transform_system_memory (GstCbfFilter * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCbfFilterPrivate *priv = PRIV (self);
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  CbfHostFrame in, out;
  gchar *why = NULL;
  GstFlowReturn ret;

  if (!cbf_host_frame_map (&priv->shape, priv->context, &vfilter->in_info,
          inbuf, GST_MAP_READ, &in, &why))
    return cbf_frame_error (GST_ELEMENT (self), inbuf, FALSE, why);
  if (!cbf_host_frame_map (&priv->shape, priv->context, &vfilter->out_info,
          outbuf, GST_MAP_WRITE, &out, &why)) {
    cbf_host_frame_unmap (inbuf, &in);
    return cbf_frame_error (GST_ELEMENT (self), outbuf, TRUE, why);
  }
  ret = filter_host_frame (self, &in, &out);
  cbf_host_frame_unmap (outbuf, &out);
  cbf_host_frame_unmap (inbuf, &in);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Frames in CUDA memory */

#if CBF_HAVE_CUDA_MEMORY

/* Whether @buf is one GstCudaMemory of the element's context, which its
 * kernels can use directly. */
static gboolean
is_own_cuda_memory (GstCbfFilterPrivate * priv, GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  return gst_buffer_n_memory (buf) == 1 && gst_is_cuda_memory (mem) &&
      GST_CUDA_MEMORY_CAST (mem)->context == priv->context;
}

/* The device planes of a frame mapped with GST_MAP_CUDA: its own device
 * memory and pitches, sizes as set_info found them. */
static void
planes_of_cuda_frame (GstCbfFilterPrivate * priv, GstVideoFrame * frame,
    CbfPlane * planes)
{
  guint p;

  for (p = 0; p < priv->shape.n_planes; p++) {
    planes[p] = priv->dev_in[p];
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
wait_for_input (GstCbfFilterPrivate * priv, GstMemory * in)
{
  cudaStream_t stream = stream_of (in);
  cudaError_t err;

  if (!stream || stream == priv->memory_stream ||
      !GST_MEMORY_FLAG_IS_SET (in, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC))
    return cudaSuccess;
  err = cudaEventRecord (priv->input_ready, stream);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (priv->memory_stream, priv->input_ready, 0);
  return err;
}

/* The output memory comes back from a pool whose last readers may still
 * be at it on the memory's own stream (a downstream element that proposed
 * the pool reads its input on its stream and returns at once; memory
 * without a stream is read on the context's default stream): the kernels
 * wait for that work on the GPU before they write it, as GStreamer's CUDA
 * elements write on the memory's stream. */
static cudaError_t
wait_for_output (GstCbfFilterPrivate * priv, GstMemory * out)
{
  cudaStream_t stream = stream_of (out);
  cudaError_t err;

  if (stream == priv->memory_stream)
    return cudaSuccess;
  err = cudaEventRecord (priv->output_free, stream ? stream : cudaStreamLegacy);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (priv->memory_stream, priv->output_free, 0);
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
finish_frame (GstCbfFilterPrivate * priv, GstMemory * in, GstMemory * out)
{
  cudaStream_t in_stream = stream_of (in), out_stream = stream_of (out);
  cudaError_t err;

  if (!out_stream)
    return cudaStreamSynchronize (priv->memory_stream);
  err = cudaEventRecord (priv->frame_done, priv->memory_stream);
  if (err == cudaSuccess && in_stream != priv->memory_stream)
    err = cudaStreamWaitEvent (in_stream ? in_stream : cudaStreamLegacy,
        priv->frame_done, 0);
  if (err == cudaSuccess && out_stream != priv->memory_stream)
    err = cudaStreamWaitEvent (out_stream, priv->frame_done, 0);
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
wait_for_input (GstCbfFilterPrivate * priv, G_GNUC_UNUSED GstMemory * in)
{
  return priv->sync_cuda_memory ? cudaDeviceSynchronize () : cudaSuccess;
}

static cudaError_t
wait_for_output (G_GNUC_UNUSED GstCbfFilterPrivate * priv,
    G_GNUC_UNUSED GstMemory * out)
{
  return cudaSuccess;
}

static cudaError_t
finish_frame (GstCbfFilterPrivate * priv, G_GNUC_UNUSED GstMemory * in,
    G_GNUC_UNUSED GstMemory * out)
{
  return cudaStreamSynchronize (priv->memory_stream);
}
#endif

/* A frame in CUDA memory: no copies, one kernel sequence over the whole
 * frame on the memory stream, ordered with upstream's and downstream's
 * work (see finish_frame). */
static GstFlowReturn
transform_cuda_memory (GstCbfFilter * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCbfFilterPrivate *priv = PRIV (self);
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

  if (!is_own_cuda_memory (priv, inbuf) || !is_own_cuda_memory (priv, outbuf)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Buffer is not CUDA memory of this element's CUDA context, as its "
            "memory:CUDAMemory caps promise."),
        ("input %" GST_PTR_FORMAT ", output %" GST_PTR_FORMAT, inbuf, outbuf));
    return GST_FLOW_ERROR;
  }
  /* The kernels read and write every row the caps describe, so memory
   * that ends early (GStreamer 1.24's CUDA allocator gives NV21 of odd
   * height one chroma row too few) is refused, never overrun. */
  why = cbf_frame_layout (&priv->shape, &vfilter->in_info, inbuf,
      offset, stride);
  if (why)
    return cbf_frame_error (GST_ELEMENT (self), inbuf, FALSE, why);
  why = cbf_frame_layout (&priv->shape, &vfilter->out_info, outbuf,
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
  planes_of_cuda_frame (priv, &in_frame, in);
  planes_of_cuda_frame (priv, &out_frame, out);

  err = wait_for_input (priv, gst_buffer_peek_memory (inbuf, 0));
  if (err == cudaSuccess)
    err = wait_for_output (priv, gst_buffer_peek_memory (outbuf, 0));
  if (err == cudaSuccess && !klass->prepare (self, priv->memory_stream,
          &halo_rows)) {
    ret = GST_FLOW_ERROR;
  } else {
    if (err == cudaSuccess)
      err = klass->filter (self, in, out, 0, in[0].height, priv->memory_stream);
    if (err == cudaSuccess)
      err = finish_frame (priv, gst_buffer_peek_memory (inbuf, 0),
          gst_buffer_peek_memory (outbuf, 0));
    else
      cudaStreamSynchronize (priv->memory_stream);
    ret = gst_cbf_filter_check (self, err, "filtering a frame in CUDA memory")
        ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return ret;
}
#endif

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
  GstFlowReturn ret;

  if (!gst_cbf_filter_push_context (self))
    return GST_FLOW_ERROR;
#if CBF_HAVE_CUDA_MEMORY
  if (PRIV (self)->cuda_memory)
    ret = transform_cuda_memory (self, inbuf, outbuf);
  else
#endif
    ret = transform_system_memory (self, inbuf, outbuf);
  gst_cbf_filter_pop_context (self);
  return ret;
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

static GstBufferPool *
new_pinned_pool (GstAllocator * allocator, GstCaps * caps, guint size)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, 0,
      MAX_PINNED_POOL_BUFFERS);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

#if CBF_HAVE_CUDA_MEMORY
/* Since 1.24: buffers of a CUDA pool the element configures are on its
 * memory stream, unless the pool has a stream already (downstream's). */
static void
config_set_stream (G_GNUC_UNUSED GstCbfFilterPrivate * priv,
    G_GNUC_UNUSED GstStructure * config)
{
#if CBF_HAVE_CUDA_STREAMS
  GstCudaStream *stream = gst_buffer_pool_config_get_cuda_stream (config);

  if (stream)
    gst_cuda_stream_unref (stream);
  else if (priv->cuda_stream)
    gst_buffer_pool_config_set_cuda_stream (config, priv->cuda_stream);
#endif
}

/* The caps a CUDA pool is configured with for frames of @caps. GStreamer's
 * CUDA allocator (1.24 and later) rounds the height of NV12 up to even
 * before it sizes the chroma plane but not that of NV21, which it leaves
 * one chroma row short at odd heights; such pools are asked for one row
 * more, which their buffers' video meta then describes (a frame larger than
 * the caps' is a valid layout). */
static GstCaps *
cuda_pool_caps (GstCaps * caps)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps) ||
      GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_NV21 ||
      GST_VIDEO_INFO_HEIGHT (&info) % 2 == 0)
    return gst_caps_ref (caps);
  caps = gst_caps_copy (caps);
  gst_caps_set_simple (caps, "height", G_TYPE_INT,
      GST_VIDEO_INFO_HEIGHT (&info) + 1, NULL);
  return caps;
}

/* Configures @config of a CUDA pool for frames of @caps. */
static void
config_set_cuda_params (GstCbfFilterPrivate * priv, GstStructure * config,
    GstCaps * caps, guint size, guint min, guint max)
{
  GstCaps *pool_caps = cuda_pool_caps (caps);

  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, pool_caps, size, min, max);
  config_set_stream (priv, config);
  gst_caps_unref (pool_caps);
}

/* GstBaseTransform configures the output pool again with the caps
 * themselves; where they need a taller pool (cuda_pool_caps), it is
 * configured once more. */
static gboolean
keep_cuda_pool_caps (GstCbfFilterPrivate * priv, GstQuery * query,
    GstCaps * caps)
{
  GstCaps *pool_caps = cuda_pool_caps (caps);
  GstBufferPool *pool = NULL;
  gboolean ok = TRUE;

  if (pool_caps != caps && gst_query_get_n_allocation_pools (query) > 0) {
    guint size, min, max;

    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool) {
      GstStructure *config = gst_buffer_pool_get_config (pool);

      config_set_cuda_params (priv, config, caps, size, min, max);
      ok = gst_buffer_pool_set_config (pool, config);
      gst_object_unref (pool);
    }
  }
  gst_caps_unref (pool_caps);
  return ok;
}

/* A pool of GstCudaMemory of the element's context (pitched device
 * memory, with video meta), or NULL. */
static GstBufferPool *
new_cuda_pool (GstCbfFilterPrivate * priv, GstCaps * caps, guint size,
    guint min, guint max)
{
  GstBufferPool *pool;
  GstStructure *config;

  if (!priv->context)
    return NULL;
  pool = gst_cuda_buffer_pool_new (priv->context);
  config = gst_buffer_pool_get_config (pool);
  config_set_cuda_params (priv, config, caps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* The buffer size a configured pool settled on (pitched planes make CUDA
 * buffers larger than the caps' size). */
static guint
pool_buffer_size (GstBufferPool * pool)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint size = 0;

  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  return size;
}

/* Output into a CUDA pool of our context: downstream's if it offers one,
 * else our own. */
static gboolean
decide_cuda_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCbfFilterPrivate *priv = PRIV (GST_CBF_FILTER (trans));
  GstBufferPool *pool = NULL;
  GstCaps *caps = NULL;
  GstVideoInfo info;
  guint size = 0, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  size = info.size;
  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
            GST_CUDA_BUFFER_POOL (pool)->context != priv->context))
      gst_clear_object (&pool);
  }
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);

    config_set_cuda_params (priv, config, caps, size, min, max);
    if (!gst_buffer_pool_set_config (pool, config))
      gst_clear_object (&pool);
  }
  if (!pool)
    pool = new_cuda_pool (priv, caps, size, min, max);
  if (!pool)
    return FALSE;
  size = pool_buffer_size (pool);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  GST_DEBUG_OBJECT (trans, "output into CUDA memory");
  return GST_BASE_TRANSFORM_CLASS (gst_cbf_filter_parent_class)
      ->decide_allocation (trans, query) &&
      keep_cuda_pool_caps (priv, query, caps);
}
#endif

/* Offer upstream a pool of pinned buffers (at most MAX_PINNED_POOL_BUFFERS),
 * so that its frames reach the GPU by DMA without a staging copy. */
static gboolean
gst_cbf_filter_propose_allocation (GstBaseTransform * trans,
    G_GNUC_UNUSED GstQuery * decide_query, GstQuery * query)
{
  GstAllocator *pinned = PRIV (GST_CBF_FILTER (trans))->pinned_allocator;
  GstCaps *caps;
  GstVideoInfo info;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

#if CBF_HAVE_CUDA_MEMORY
  if (caps_are_cuda_memory (caps)) {
    if (gst_query_get_n_allocation_pools (query) == 0) {
      GstBufferPool *pool = new_cuda_pool (PRIV (GST_CBF_FILTER (trans)),
          caps, info.size, 0, 0);
      guint size;

      if (!pool)
        return FALSE;
      size = pool_buffer_size (pool);
      gst_query_add_allocation_pool (query, pool, size, 0, 0);
      gst_object_unref (pool);
    }
  } else
#endif
  if (pinned && gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = need_pool ? new_pinned_pool (pinned, caps,
        info.size) : NULL;

    gst_query_add_allocation_param (query, pinned, NULL);
    gst_query_add_allocation_pool (query, pool, info.size, 0,
        MAX_PINNED_POOL_BUFFERS);
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

/* Whether downstream's system-memory @pool serves a purpose of its own: a
 * pool type of its own, or a video pool whose buffers it asked to be
 * padded (GstVideoAlignment). Else it is replaced by pinned memory. */
static gboolean
pool_is_downstreams_own (GstBufferPool * pool, GstStructure * config)
{
  return !g_type_is_a (G_OBJECT_TYPE (pool), GST_TYPE_VIDEO_BUFFER_POOL) ||
      gst_buffer_pool_config_has_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
}

/* Output into pinned memory unless downstream asks for memory or a pool of
 * its own (then the download is staged). */
static gboolean
gst_cbf_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean keep_downstream = FALSE;

#if CBF_HAVE_CUDA_MEMORY
  if (PRIV (GST_CBF_FILTER (trans))->cuda_memory)
    return decide_cuda_allocation (trans, query);
#endif

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool) {
      GstStructure *config = gst_buffer_pool_get_config (pool);
      GstAllocator *pool_allocator = NULL;

      gst_buffer_pool_config_get_allocator (config, &pool_allocator, NULL);
      keep_downstream = !allocator_is_system_memory (pool_allocator) ||
          pool_is_downstreams_own (pool, config);
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
    GstAllocator *pinned = PRIV (GST_CBF_FILTER (trans))->pinned_allocator;

    /* A NULL pool makes GstVideoFilter create a video pool, which the base
     * class configures with the first allocation param: ours. */
    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_set_nth_allocation_pool (query, 0, NULL, size, min, max);
    if (gst_query_get_n_allocation_params (query) > 0)
      gst_query_set_nth_allocation_param (query, 0, pinned, NULL);
    else
      gst_query_add_allocation_param (query, pinned, NULL);
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
gst_cbf_filter_dispose (GObject * object)
{
  g_clear_pointer (&PRIV (GST_CBF_FILTER (object))->context, cbf_context_unref);
  G_OBJECT_CLASS (gst_cbf_filter_parent_class)->dispose (object);
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
