/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter's band pipeline for frames in system memory: the device
 * and staging buffers, the events that order the bands on the device's
 * streams, the copy threads for pageable frames, and the call that runs a
 * frame through them. */

#ifndef __CBF_BANDS_H__
#define __CBF_BANDS_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "cbfcopier.h"
#include "cbfdevice.h"
#include "cbfhostframe.h"

G_BEGIN_DECLS

/* Bands per frame: enough for the copies and the kernel to overlap well,
 * few enough that the per-band launch costs (a few microseconds each) stay
 * small: a band has at least CBF_MIN_BAND_ROWS rows and
 * CBF_DEFAULT_BAND_BYTES bytes, the size that measured fastest
 * (docs/what-was-tried.md, "System memory, contexts"); the environment
 * variable GST_CBF_BAND_BYTES overrides it, for tests and tuning. */
#define CBF_MAX_BANDS 8
#define CBF_MIN_BAND_ROWS 64
#define CBF_DEFAULT_BAND_BYTES (3 << 19)

struct _CbfBands
{
  /* From start to stop. */
  cudaEvent_t uploaded[CBF_MAX_BANDS];  /* band's rows are on the device */
  cudaEvent_t filtered[CBF_MAX_BANDS];  /* band's output rows are ready */
  cudaEvent_t downloaded[CBF_MAX_BANDS];        /* and in host memory */
  CbfCopier *copier;            /* made at the first pageable frame */

  /* From set_info to the next set_info or stop. Where each plane lives:
   * its device buffers are dev_in[p] and dev_out[p], its rows packed at
   * staging_offset[p] in the staging buffers. */
  CbfFrameShape shape;
  gsize staging_offset[GST_VIDEO_MAX_PLANES];
  CbfPlane dev_in[GST_VIDEO_MAX_PLANES];
  CbfPlane dev_out[GST_VIDEO_MAX_PLANES];
  guint8 *staging_in;           /* pinned, for input that is not */
  guint8 *staging_out;          /* pinned, for output that is not */
  guint n_bands;
  gint band_rows;               /* rows of plane 0 per band, the last less */
};

/* The events of the bands, made by cbf_device_make_streams in the
 * element's context, and destroyed. */
cudaError_t cbf_bands_make_events (CbfBands * bands);
void cbf_bands_destroy_events (CbfBands * bands);

/* Device and staging buffers for frames of @in_info in system memory, and
 * the band layout; frames in CUDA memory (@cuda_memory) need none, only
 * the planes' sizes. Waits for @dev's queued work first. An element error
 * if they cannot be made. */
gboolean cbf_bands_set (GstCbfFilter * self, CbfBands * bands,
    CbfDevice * dev, GstCaps * incaps, GstVideoInfo * in_info,
    gboolean cuda_memory);

/* The buffers cbf_bands_set made, freed. */
void cbf_bands_free (CbfBands * bands);

/* The process's copier, given back if the element took it. */
void cbf_bands_release_copier (CbfBands * bands);

/* Uploads, filters and downloads a frame in bands on @dev's streams (see
 * the top of cbfbands.c). */
GstFlowReturn cbf_bands_filter_host_frame (GstCbfFilter * self,
    CbfBands * bands, CbfDevice * dev, const CbfHostFrame * in,
    const CbfHostFrame * out);

G_END_DECLS

#endif /* __CBF_BANDS_H__ */
