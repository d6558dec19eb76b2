/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-cudabilateral
 * @title: cudabilateral
 *
 * Edge-preserving bilateral filter on an NVIDIA GPU. Each output pixel is
 * the average of the pixels in a circular window, weighted by their distance
 * (#GstCudaBilateral:sigma-space) and by how far their colour is from the
 * centre's (#GstCudaBilateral:sigma-color), so noise is smoothed while edges
 * stay sharp. The output equals OpenCV's cv::bilateralFilter (8-bit, with
 * its border type, #GstCudaBilateral:border) within ±1 on every pixel, in
 * any of the formats below, without conversion:
 *
 * - RGB formats (RGBA, BGRx, RGB, BGR, ...) and Y444: the three colour
 *   channels are filtered together, as OpenCV's 3-channel filter does (L1
 *   colour distance); alpha or padding passes unchanged. Y444 goes plane by
 *   plane, as below, once a per-plane property is set.
 * - GRAY8, and chroma-subsampled YUV (I420, YV12, NV12, NV21, YUY2, UYVY):
 *   each channel is filtered on its own, as OpenCV's 1-channel filter. Luma
 *   takes the element's parameters. Chroma, subsampled by 2 in width in all
 *   these formats, takes them scaled by 2 so that its window covers about
 *   the same part of the picture: diameter / 2 (integer division, at least
 *   1) when diameter > 0, and sigma-space / 2; sigma-color is kept; or its
 *   own, #GstCudaBilateral:chroma-diameter and the other chroma-* ones.
 *   #GstCudaBilateral:filter-chroma and #GstCudaBilateral:filter-luma copy
 *   a plane untouched; #GstCudaBilateral:chroma-guide=luma takes chroma's
 *   range weights from luma (a joint bilateral filter).
 *
 * Samples of 10, 12 and 16 bits (HEVC Main 10 and HDR video, raw cameras)
 * are filtered in their own precision, with the same semantics:
 *
 * - one channel at a time: GRAY16_LE, P010_10LE, P012_LE, P016_LE,
 *   I420_10LE, I422_10LE, I420_12LE, I422_12LE (the MSB-aligned samples of
 *   P010_10LE and P012_LE filtered as the 10 and 12 bits they hold, the
 *   bits below them written zero);
 * - three colour channels together: Y444_16LE, Y444_10LE, GBR_10LE,
 *   RGBA64_LE, BGRA64_LE (alpha passes unchanged), BGR10A2_LE, RGB10A2_LE
 *   (the 2-bit alpha passes unchanged).
 *
 * #GstCudaBilateral:sigma-color stays in 8-bit levels at every depth: it is
 * scaled inside by (2^bits - 1) / 255 (1023 / 255 for P010_10LE), so one
 * setting smooths a picture the same at every depth.
 * The output is within ±1 of the filter computed in double precision for
 * 10- and 12-bit samples and within ±16 (12-bit precision) for 16-bit
 * ones; an 8-bit picture widened to 16 bits (v × 257) comes out, narrowed
 * back, within ±1 of OpenCV's 8-bit output. Modes, the grid and the mask
 * work on these formats too.
 *
 * With #GstCudaBilateral:mode=gaussian the range weight is off: the output
 * equals OpenCV's cv::GaussianBlur (kernel size #GstCudaBilateral:diameter,
 * sigma #GstCudaBilateral:sigma-space, the same border) within ±1, computed
 * as two 1-D passes, so its cost grows with the diameter, not its square.
 *
 * With #GstCudaBilateral:method=grid the bilateral filter is approximated
 * with a bilateral grid, whose cost per pixel does not grow with the window:
 * for large #GstCudaBilateral:sigma-space (8 and more), where the exact
 * filter slows down. #GstCudaBilateral:mask-location sets a strength mask:
 * a gray picture that says, per pixel, how much of the filter to apply.
 *
 * The element never converts: input and output caps are the same, in
 * system memory or in CUDA memory (memory:CUDAMemory, GStreamer's
 * GstCudaMemory). CUDA memory is preferred where the neighbours take it:
 * frames from nvh264dec, cudaupload or another cudabilateral are filtered
 * where they are, with no copy, in the pipeline's CUDA context. Frames in
 * system memory are uploaded, filtered and downloaded in overlapping bands;
 * the element offers upstream a pool of pinned (page-locked) buffers that
 * the GPU reads directly (at most 16 buffers). Buffers in any layout are
 * taken: with or without a video meta, padded, in several memories; the
 * output goes into a pool downstream offers where it has reasons of its
 * own (its own pool type, padded buffers), else into pinned memory.
 *
 * Progressive video only, of at most 65535 rows: interlaced caps are
 * refused (put deinterlace before the element), taller frames too.
 *
 * Choosing the parameters: sigma-color decides what counts as noise (10 to
 * 20 keeps texture; 60 and more flattens skin and fabric), sigma-space how
 * far the smoothing reaches; diameter=0 derives the window from
 * sigma-space. The bilateral filter's cost grows with the square of the
 * window's radius (method=grid excepted), the Gaussian's with the radius;
 * sigma-color does not change it.
 *
 * Video noise is new in every frame: #GstCudaBilateral:temporal-strength
 * moves each output towards the previous output frame where the two are
 * close (#GstCudaBilateral:temporal-sigma), averaging noise through time
 * where the picture holds still, with no frame held back.
 *
 * #GstCudaBilateral:regions filters only inside (or outside) the boxes a
 * detector upstream attached to the frame (or, from GStreamer 1.26, the
 * pixels of a segmentation mask's classes), with a soft edge: skin
 * smoothing on faces, a blur of faces and plates (a blur is not redaction:
 * what it hides may still be recognised), held through missed detections
 * (#GstCudaBilateral:region-hold) and sized to each box
 * (#GstCudaBilateral:region-size-scale).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudabilateral diameter=9 sigma-color=30 sigma-space=5 ! videoconvert ! autovideosink
 * ]| Filters a test pattern and shows it.
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! cudabilateral sigma-color=40 sigma-space=5 ! x264enc ! mp4mux ! filesink location=out.mp4
 * ]| Denoises a video file, in the decoder's own format (I420 or NV12), and
 * encodes the result.
 * |[
 * gst-launch-1.0 v4l2src ! video/x-raw,format=YUY2,width=1280,height=720 ! cudabilateral diameter=7 sigma-color=30 ! videoconvert ! autovideosink sync=false
 * ]| Live camera preview, filtered straight from the camera's YUY2. The
 * element holds no frames: it adds its processing time to the latency and
 * nothing more.
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudabilateral sigma-color=40 sigma-space=5 ! cudadownload ! videoconvert ! autovideosink
 * ]| Decoded and filtered on the GPU without a copy: nvh264dec hands over
 * CUDA memory, which the element filters in the decoder's CUDA context;
 * cudadownload brings the result to system memory for display.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudaupload ! cudabilateral diameter=5 ! cudabilateral diameter=9 ! cudadownload ! videoconvert ! autovideosink
 * ]| Frames uploaded once by cudaupload stay in CUDA memory through both
 * filters, which share one CUDA context, until cudadownload.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudabilateral mode=gaussian diameter=15 sigma-space=4 ! videoconvert ! autovideosink
 * ]| A Gaussian blur (OpenCV's GaussianBlur with ksize 15, sigma 4).
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! cudabilateral method=grid sigma-color=40 sigma-space=16 ! videoconvert ! autovideosink
 * ]| Strong, wide smoothing with the bilateral grid: with method=exact the
 * same sigma-space would take a window of diameter 49 (diameter is not
 * used by the grid).
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! cudabilateral mask-location=mask.png diameter=15 sigma-color=40 ! videoconvert ! autovideosink
 * ]| Filters only where mask.png is white (for example a face), leaves the
 * picture untouched where it is black, and blends in between. The mask is
 * scaled to the frame; it can be changed while playing.
 * |[
 * gst-launch-1.0 v4l2src ! video/x-raw,format=YUY2 ! cudabilateral diameter=5 sigma-color=30 temporal-strength=0.8 temporal-sigma=6 ! videoconvert ! autovideosink
 * ]| Denoises a camera through time as well: still parts lose their noise
 * within a few frames, moving ones keep their edges.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! facedetect display=false ! videoconvert ! cudabilateral regions=inside region-types=face region-padding=16 region-feather=24 diameter=15 sigma-color=35 ! videoconvert ! autovideosink
 * ]| Smooths the skin of the faces facedetect finds, fading out around them.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudabilateral.h"
#include "cbfengine.h"
#include "cbfmaskloader.h"
#include "cbfregions.h"
#include "cbfregiontrack.h"
#include "cbfplaneprops.h"
#include "cbffilterprops.h"
#include "cbfformats.h"

#if CBF_HAVE_CUDA_MEMORY
#define GST_USE_UNSTABLE_API    /* GStreamer's CUDA library, 1.22 */
#include <gst/cuda/gstcudamemory.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cuda_bilateral_debug);
#define GST_CAT_DEFAULT gst_cuda_bilateral_debug

/* The filter's own properties (cbffilterprops.h), those of the regions
 * (cbfregions.h) and of the planes (cbfplaneprops.h) from an id on each. */
enum
{
  PROP_0,
  PROP_FILTER,
  PROP_FILTER_LAST = PROP_FILTER + CBF_FILTER_N_PROPS - 1,
  PROP_MASK_LOCATION,
  PROP_SCENE_CUTS,
  PROP_MEASURED_NOISE_SIGMA,
  PROP_REGIONS,
  PROP_REGIONS_LAST = PROP_REGIONS + CBF_REGION_N_PROPS - 1,
  PROP_PLANES,
  PROP_PLANES_LAST = PROP_PLANES + CBF_PLANE_N_PROPS - 1,
};

struct _GstCudaBilateral
{
  GstCbfFilter parent;

  /* Properties, under the object lock; any change sets params_dirty. */
  CbfParams params;
  CbfRegionSettings regions;
  gchar *mask_location;
  gboolean params_dirty;
  gboolean started;             /* from the start of start to stop */

  /* The decoded strength mask: replaced by start, stop and the thread that
   * sets mask-location, read by the streaming thread when its serial has
   * moved on. */
  CbfMaskLoader *mask;

  /* Streaming thread: the GPU work, for the negotiated format, from
   * configure to release. */
  CbfEngine *engine;
  guint mask_serial_on_device;
  gboolean mask_scaled;         /* for the current caps */
  gint width, height;
  /* The regions of the frame about to be filtered, from its metadata. */
  gboolean regions_on;
  CbfRegionSet region_set;
  /* A segmentation mask's cells of the regions' types, from the frame's
   * analytics metadata (GStreamer 1.26 on). */
  CbfRegionCellBuffer region_cells;
  /* region-size-scale set where it cannot apply: said once (a warning),
   * until it applies again. */
  gboolean size_scale_ignored;
  /* region-hold's boxes, from frame to frame; the held ones go on the
   * output as ROI metas. */
  CbfRegionTrack region_track;
  /* Set where the next frame follows no previous one (a flush, a new
   * segment or stream, a discontinuity), taken by prepare; the last
   * segment, which a repeated one does not change. */
  gint restart;
  GstSegment segment;
  gboolean have_segment;
  /* Scene cuts: counted since start (under the object lock, for the
   * property), and those of the engine already counted. */
  guint64 scene_cuts;
  guint64 engine_cuts;
  /* noise-sigma=-1's measurement (under the object lock), -1: none. */
  gdouble measured_noise;
};

/* The formats of cbfformats.h, in its order. */
static const GstVideoFormat formats[] = {
#define FORMAT(format, layout, bits) GST_VIDEO_FORMAT_##format,
  CBF_FORMATS (FORMAT)
#undef FORMAT
};

/* The caps of @formats in system memory. Progressive frames only: a
 * window across the lines of an interlaced frame would mix its two fields
 * (deinterlace first). At most CBF_MAX_HEIGHT rows, the kernels' launch
 * limit: said in the caps, so that negotiation (a videoscale upstream,
 * say) can keep within it. */
static GstCaps *
video_caps (void)
{
  GValue list = G_VALUE_INIT;
  GstStructure *s = gst_structure_new_empty ("video/x-raw");
  guint i;

  g_value_init (&list, GST_TYPE_LIST);
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GValue format = G_VALUE_INIT;

    g_value_init (&format, G_TYPE_STRING);
    g_value_set_static_string (&format,
        gst_video_format_to_string (formats[i]));
    gst_value_list_append_and_take_value (&list, &format);
  }
  gst_structure_take_value (s, "format", &list);
  gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
      "height", GST_TYPE_INT_RANGE, 1, CBF_MAX_HEIGHT,
      "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1,
      "interlace-mode", G_TYPE_STRING, "progressive", NULL);
  return gst_caps_new_full (s, NULL);
}

/* Both pads take the same caps. CUDA memory first: preferred where both
 * sides can have it, so frames that are on the GPU stay there. The element
 * never changes the kind of memory: cudaupload and cudadownload do. */
static void
add_pad_templates (GstElementClass * element_class)
{
  GstCaps *caps = gst_caps_new_empty ();

#if CBF_HAVE_CUDA_MEMORY
  {
    GstCaps *cuda = video_caps ();

    gst_caps_set_features_simple (cuda,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    gst_caps_append (caps, cuda);
  }
#endif
  gst_caps_append (caps, video_caps ());
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

G_DEFINE_TYPE (GstCudaBilateral, gst_cuda_bilateral, GST_TYPE_CBF_FILTER);

GST_ELEMENT_REGISTER_DEFINE (cudabilateral, "cudabilateral", GST_RANK_NONE,
    GST_TYPE_CUDA_BILATERAL);

/* When @starting, marks the element started, so that a change of
 * mask-location from then on loads its mask itself, and puts the mask of
 * mask-location in place; when stopping, puts none in place. Requests are
 * ticketed under the object lock, the lock that orders the property's
 * changes: the latest one wins whichever load finishes first. */
static gboolean
load_mask_for_state (GstCudaBilateral * self, gboolean starting)
{
  gchar *location = NULL;
  guint64 ticket;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  self->started = starting;
  if (starting)
    location = g_strdup (self->mask_location);
  ticket = cbf_mask_loader_request (self->mask);
  GST_OBJECT_UNLOCK (self);
  ok = cbf_mask_loader_load (self->mask, GST_ELEMENT (self), location,
      ticket, TRUE);
  g_free (location);
  return ok;
}

/* The engine, freed with the context current where it holds device
 * memory (where that context cannot be pushed, the memory stays). */
static void
gst_cuda_bilateral_release (GstCbfFilter * filter)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (filter);
  gboolean pushed = FALSE;

  if (self->engine && cbf_engine_on_device (self->engine)
      && !(pushed = gst_cbf_filter_push_context (filter)))
    return;
  if (self->engine)
    GST_DEBUG_OBJECT (self, "freeing the engine and its %u device holdings",
        cbf_engine_device_holdings (self->engine));
  cbf_engine_free (self->engine);
  self->engine = NULL;
  if (pushed)
    gst_cbf_filter_pop_context (filter);
}

static gboolean
gst_cuda_bilateral_start (GstBaseTransform * trans)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (trans);

  /* The mask first: a file that cannot be read stops the start, before
   * any device is opened. */
  if (!load_mask_for_state (self, TRUE))
    goto failed;
  /* The first frame uploads the mask, whatever its serial. */
  self->mask_scaled = FALSE;
  self->have_segment = FALSE;
  GST_OBJECT_LOCK (self);
  self->scene_cuts = 0;
  self->measured_noise = -1;
  GST_OBJECT_UNLOCK (self);
  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_bilateral_parent_class)->start
      (trans))
    goto failed;
  return TRUE;

failed:
  /* As stopped: properties set now post nothing, a later start begins
   * afresh. */
  load_mask_for_state (self, FALSE);
  return FALSE;
}

static gboolean
gst_cuda_bilateral_stop (GstBaseTransform * trans)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (trans);

  load_mask_for_state (self, FALSE);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_bilateral_parent_class)->stop
      (trans);
}

static gboolean
gst_cuda_bilateral_configure (GstCbfFilter * filter, const GstVideoInfo * info)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (filter);
  GError *error = NULL;

  if (!self->engine)
    self->engine_cuts = 0;
  if (self->engine ? !cbf_engine_set_info (self->engine, info, &error) :
      !(self->engine = cbf_engine_new (info, &error))) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message), (NULL));
    g_error_free (error);
    return FALSE;
  }
  self->width = GST_VIDEO_INFO_WIDTH (info);
  self->height = GST_VIDEO_INFO_HEIGHT (info);
  cbf_region_track_reset (&self->region_track);
  /* A new engine has no parameters yet; the mask depends on the size. */
  GST_OBJECT_LOCK (self);
  self->params_dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
  self->mask_scaled = FALSE;
  return TRUE;
}

typedef struct
{
  CbfEngine *engine;
  cudaStream_t stream;
  guint serial;
  cudaError_t err;
  const gchar *what;
} MaskUpload;

/* Under the mask loader's lock: the mask in place to the engine. */
static void
upload_mask (const CbfMask * mask, gpointer user_data)
{
  MaskUpload *upload = user_data;

  upload->err = cbf_engine_set_mask (upload->engine, mask->pixels,
      mask->width, mask->height, upload->stream, &upload->what);
  upload->serial = mask->serial;
}

/* Counts the scene cuts the engine found since the last frame and
 * announces each: an element message "cudabilateral-scene-cut" whose
 * "count" is the cuts found since start. */
static void
post_scene_cuts (GstCudaBilateral * self)
{
  guint64 n = cbf_engine_get_scene_cuts (self->engine), count;

  while (self->engine_cuts < n) {
    self->engine_cuts++;
    GST_OBJECT_LOCK (self);
    count = ++self->scene_cuts;
    GST_OBJECT_UNLOCK (self);
    GST_DEBUG_OBJECT (self, "scene cut %" G_GUINT64_FORMAT, count);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("cudabilateral-scene-cut", "count",
                G_TYPE_UINT64, count, NULL)));
  }
}

/* region-size-scale applies only where the boxes are filtered in windows;
 * where the whole frame is filtered, the user hears so once. */
static void
warn_size_scale (GstCudaBilateral * self)
{
  gboolean ignored = self->regions_on && self->region_set.size_scale > 0.f
      && !cbf_engine_regions_sized (self->engine);

  if (ignored && !self->size_scale_ignored)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("region-size-scale is ignored: the whole frame is filtered with the "
            "element's diameter."), ("regions=outside, the temporal filter, "
            "method=grid and border=wrap filter the whole frame"));
  self->size_scale_ignored = ignored;
}

/* Once per frame: after a property change, hands the engine the new
 * parameters, whose tables it uploads ahead of the frame's kernels, on the
 * same stream, so all bands of a frame use one set of parameters; after a
 * change of the mask or of the caps, the mask. What cannot be made is an
 * element error for this frame, and the next frame tries again. */
static gboolean
gst_cuda_bilateral_prepare (GstCbfFilter * filter, cudaStream_t stream,
    gint * halo_rows)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (filter);
  CbfParams params;
  gboolean dirty;
  const gchar *what = NULL;
  cudaError_t err;

  GST_OBJECT_LOCK (self);
  dirty = self->params_dirty;
  params = self->params;
  self->params_dirty = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (dirty)
    cbf_engine_set_params (self->engine, &params);
  if (g_atomic_int_exchange (&self->restart, FALSE))
    cbf_engine_reset (self->engine);
  cbf_engine_set_regions (self->engine,
      self->regions_on ? &self->region_set : NULL);

  err = cbf_engine_prepare (self->engine, stream, halo_rows, &what);
  if (err != cudaSuccess) {
    /* Handed again with the next frame. */
    GST_OBJECT_LOCK (self);
    self->params_dirty |= dirty;
    GST_OBJECT_UNLOCK (self);
    goto failed;
  }
  post_scene_cuts (self);
  warn_size_scale (self);
  if (params.noise == CBF_NOISE_MEASURED) {
    gdouble noise = cbf_engine_get_noise (self->engine);

    GST_OBJECT_LOCK (self);
    self->measured_noise = noise;
    GST_OBJECT_UNLOCK (self);
  }
  if (dirty)
    GST_DEBUG_OBJECT (self, "mode %d method %d diameter %d sigma-color %g "
        "sigma-space %g filter-chroma %d: %d rows of halo", params.mode,
        params.method, params.diameter, params.sigma_color,
        params.sigma_space, params.filter_chroma, *halo_rows);
  if (!self->mask_scaled
      || cbf_mask_loader_serial (self->mask) != self->mask_serial_on_device) {
    MaskUpload upload = { self->engine, stream, 0, cudaSuccess, NULL };

    cbf_mask_loader_peek (self->mask, upload_mask, &upload);
    err = upload.err;
    what = upload.what;
    /* A mask that did not reach the device is uploaded again by the next
     * frame. */
    if (err != cudaSuccess)
      goto failed;
    self->mask_serial_on_device = upload.serial;
    self->mask_scaled = TRUE;
  }
  return TRUE;

failed:
  cudaGetLastError ();          /* reported here, not by a later call */
  gst_cbf_filter_check (filter, err, what);
  return FALSE;
}

static cudaError_t
gst_cuda_bilateral_filter (GstCbfFilter * filter, const CbfPlane * in,
    const CbfPlane * out, gint row_begin, gint row_end, cudaStream_t stream)
{
  return cbf_engine_run (GST_CUDA_BILATERAL (filter)->engine, in, out,
      row_begin, row_end, stream);
}

/* The temporal filter starts again after a flush, at a new stream, at a
 * segment other than the one in force (a segment sent again, as elements
 * do after a renegotiation, is no jump) and at a discontinuity (new caps
 * reset it in the engine). */
static gboolean
gst_cuda_bilateral_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      g_atomic_int_set (&self->restart, TRUE);
      break;
    case GST_EVENT_STREAM_START:
      g_atomic_int_set (&self->restart, TRUE);
      self->have_segment = FALSE;
      break;
    case GST_EVENT_SEGMENT:{
      const GstSegment *segment;

      gst_event_parse_segment (event, &segment);
      if (!self->have_segment || !gst_segment_is_equal (&self->segment,
              segment))
        g_atomic_int_set (&self->restart, TRUE);
      gst_segment_copy_into (segment, &self->segment);
      self->have_segment = TRUE;
      break;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_bilateral_parent_class)->sink_event
      (trans, event);
}

/* Also where the frame's regions are read (prepare has no buffer), once
 * the base class has given the controlled properties this frame's
 * values. */
static void
gst_cuda_bilateral_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (trans);

  GST_BASE_TRANSFORM_CLASS (gst_cuda_bilateral_parent_class)->before_transform
      (trans, buffer);
  if (GST_BUFFER_IS_DISCONT (buffer))
    g_atomic_int_set (&self->restart, TRUE);
  /* Nothing held across what restarts the temporal filter (prepare takes
   * the flag, after this). */
  if (g_atomic_int_get (&self->restart))
    cbf_region_track_reset (&self->region_track);
  GST_OBJECT_LOCK (self);
  self->regions_on = cbf_region_track_collect (&self->region_track,
      &self->regions, buffer, self->width, self->height, &self->region_set);
  if (self->regions_on)
    cbf_region_set_take_cells (&self->region_set,
        cbf_regions_collect_cells (buffer, self->width, self->height,
            (const gchar * const *) self->regions.type_list,
            &self->region_cells) ? &self->region_cells : NULL,
        self->regions.padding, self->width, self->height);
  GST_OBJECT_UNLOCK (self);
}

/* The boxes region-hold held in this frame as ROI metas on its output
 * (cbf_region_track_add_metas), so that downstream sees what was
 * filtered. */
static GstFlowReturn
gst_cuda_bilateral_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (trans);
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (gst_cuda_bilateral_parent_class)->transform
      (trans, inbuf, outbuf);

  if (ret == GST_FLOW_OK && self->regions_on)
    cbf_region_track_add_metas (&self->region_track, outbuf);
  return ret;
}

static void
gst_cuda_bilateral_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (object);

  if (prop_id == PROP_MASK_LOCATION) {
    gchar *location = g_value_dup_string (value);
    gboolean started;
    guint64 ticket;

    GST_OBJECT_LOCK (self);
    g_free (self->mask_location);
    self->mask_location = g_strdup (location);
    started = self->started;
    ticket = cbf_mask_loader_request (self->mask);
    GST_OBJECT_UNLOCK (self);
    /* Decoded here, in the caller's thread, not in the streaming thread;
     * a running element takes the new mask from its next frame. */
    if (started)
      cbf_mask_loader_load (self->mask, GST_ELEMENT (self), location,
          ticket, FALSE);
    g_free (location);
    return;
  }

  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_FILTER && prop_id <= PROP_FILTER_LAST) {
    cbf_filter_props_set (&self->params, prop_id - PROP_FILTER, value);
    self->params_dirty = TRUE;
  } else if (prop_id >= PROP_REGIONS && prop_id <= PROP_REGIONS_LAST) {
    cbf_region_settings_set (&self->regions, prop_id - PROP_REGIONS, value);
  } else if (prop_id >= PROP_PLANES && prop_id <= PROP_PLANES_LAST) {
    cbf_plane_props_set (&self->params, prop_id - PROP_PLANES, value);
    self->params_dirty = TRUE;
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_bilateral_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (object);

  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_FILTER && prop_id <= PROP_FILTER_LAST)
    cbf_filter_props_get (&self->params, prop_id - PROP_FILTER, value);
  else if (prop_id >= PROP_REGIONS && prop_id <= PROP_REGIONS_LAST)
    cbf_region_settings_get (&self->regions, prop_id - PROP_REGIONS, value);
  else if (prop_id >= PROP_PLANES && prop_id <= PROP_PLANES_LAST)
    cbf_plane_props_get (&self->params, prop_id - PROP_PLANES, value);
  else if (prop_id == PROP_MASK_LOCATION)
    g_value_set_string (value, self->mask_location);
  else if (prop_id == PROP_SCENE_CUTS)
    g_value_set_uint64 (value, self->scene_cuts);
  else if (prop_id == PROP_MEASURED_NOISE_SIGMA)
    g_value_set_double (value, self->measured_noise);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_bilateral_finalize (GObject * object)
{
  GstCudaBilateral *self = GST_CUDA_BILATERAL (object);

  g_free (self->mask_location);
  cbf_region_settings_clear (&self->regions);
  cbf_region_track_clear (&self->region_track);
  cbf_region_cell_buffer_clear (&self->region_cells);
  cbf_mask_loader_free (self->mask);
  G_OBJECT_CLASS (gst_cuda_bilateral_parent_class)->finalize (object);
}

static void
gst_cuda_bilateral_class_init (GstCudaBilateralClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCbfFilterClass *filter_class = GST_CBF_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_bilateral_set_property;
  gobject_class->get_property = gst_cuda_bilateral_get_property;

  cbf_filter_props_install (gobject_class, PROP_FILTER);
  /**
   * GstCudaBilateral:scene-cuts:
   *
   * The scene cuts temporal-motion=compensated has found since the
   * element started, each counted once its frame's work is done (by the
   * next frame at the latest).
   */
  g_object_class_install_property (gobject_class, PROP_SCENE_CUTS,
      g_param_spec_uint64 ("scene-cuts", "Scene cuts",
          "Scene cuts found by temporal-motion=compensated, at which the "
          "temporal filter started again", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaBilateral:measured-noise-sigma:
   *
   * With noise-sigma=-1, the noise measured so far (8-bit levels), each
   * frame's counted by the next frame; -1 before the first.
   */
  g_object_class_install_property (gobject_class, PROP_MEASURED_NOISE_SIGMA,
      g_param_spec_double ("measured-noise-sigma", "Measured noise sigma",
          "The noise measured with noise-sigma=-1 (standard deviation, "
          "8-bit levels); -1: none yet", -1, G_MAXDOUBLE, -1,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaBilateral:mask-location:
   *
   * A strength mask: a PNG or JPEG file (colour converted to gray) of at
   * most 8192 x 8192 pixels, scaled to the frame bilinearly (as cv::resize's
   * INTER_LINEAR). Per pixel, 0 leaves the input untouched, 255 takes the
   * full filter, values between blend: out = in + (filtered - in) * m / 255,
   * rounded. Read at start and at every change, also while PLAYING; one
   * that cannot be read is an element error at start, later a warning (the
   * mask in use stays). Unset (the default): the whole frame is filtered.
   */
  g_object_class_install_property (gobject_class, PROP_MASK_LOCATION,
      g_param_spec_string ("mask-location", "Mask location",
          "Strength mask: path of a PNG or JPEG file, scaled to the frame; "
          "per pixel 0 = unfiltered, 255 = fully filtered, between = "
          "blended. Unset: the whole frame is filtered", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  cbf_region_settings_install (gobject_class, PROP_REGIONS);
  cbf_plane_props_install (gobject_class, PROP_PLANES);

  gst_element_class_set_static_metadata (element_class,
      "CUDA bilateral filter", "Filter/Effect/Video",
      "Edge-preserving bilateral filter on an NVIDIA GPU (CUDA), equal to "
      "OpenCV's bilateralFilter within ±1, for RGB, YUV and GRAY of 8 to 16 "
      "bits in system or CUDA memory, with a Gaussian blur (mode=gaussian), a "
      "bilateral grid for large windows (method=grid), a strength mask "
      "(mask-location), regions from analytics metadata (regions) and a "
      "temporal filter (temporal-strength).", "gst-cudabilateral authors");
  add_pad_templates (element_class);

  gobject_class->finalize = gst_cuda_bilateral_finalize;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_sink_event);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_bilateral_before_transform);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_transform);
  filter_class->configure = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_configure);
  filter_class->prepare = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_prepare);
  filter_class->filter = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_filter);
  filter_class->release = GST_DEBUG_FUNCPTR (gst_cuda_bilateral_release);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_bilateral_debug, "cudabilateral", 0,
      "CUDA bilateral filter");
}

static void
gst_cuda_bilateral_init (GstCudaBilateral * self)
{
  cbf_filter_props_init (&self->params);
  self->measured_noise = -1;
  self->params_dirty = TRUE;
  cbf_region_settings_init (&self->regions);
  cbf_region_track_init (&self->region_track);
  cbf_plane_props_init (&self->params);
  self->mask = cbf_mask_loader_new ();
}
