/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The band pipeline for frames in system memory: the device and staging
 * buffers, the events that order the bands on a CbfDevice's streams, the
 * copy threads for pageable frames, and the call that runs a frame through
 * them. A plain object, as CbfDevice: it calls no element and posts
 * nothing; its calls say what failed with a cudaError_t, and expect the
 * device's context current on the calling thread. */

#ifndef __CBF_BANDS_H__
#define __CBF_BANDS_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "cbfcopier.h"
#include "cbfdevice.h"
#include "cbfframeshape.h"
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

typedef struct
{
  /* From cbf_bands_make_events to cbf_bands_destroy_events. */
  cudaEvent_t uploaded[CBF_MAX_BANDS];  /* band's rows are on the device */
  cudaEvent_t filtered[CBF_MAX_BANDS];  /* band's output rows are ready */
  cudaEvent_t downloaded[CBF_MAX_BANDS];        /* and in host memory */
  cudaEvent_t input_read[2];    /* every read of dev_in[slot] is done */
  CbfCopier *copier;            /* made at the first pageable frame */

  /* From cbf_bands_set to cbf_bands_free. Where each plane of frames of
   * @shape lives: its device buffers are dev_in[slot][p] and dev_out[p], its
   * rows packed at staging_offset[p] in the staging buffers. Frames take
   * turns between two input slots, so that a frame's uploads do not wait
   * for the previous frame's kernels. */
  CbfFrameShape shape;
  gsize staging_offset[GST_VIDEO_MAX_PLANES];
  CbfPlane dev_in[2][GST_VIDEO_MAX_PLANES];
  guint in_slot;
  CbfPlane dev_out[GST_VIDEO_MAX_PLANES];
  guint8 *staging_in;           /* pinned, for input that is not */
  guint8 *staging_out;          /* pinned, for output that is not */
  guint n_bands;
  gint band_rows;               /* rows of plane 0 per band, the last less */
} CbfBands;

/* The events of the bands, made in the current context, and destroyed. */
cudaError_t cbf_bands_make_events (CbfBands * bands);
void cbf_bands_destroy_events (CbfBands * bands);

/* Device and staging buffers for frames of @shape in system memory, and
 * the band layout; frames in CUDA memory (@cuda_memory) need none. The
 * previous ones are freed first: @dev's queued work that may use them is
 * waited for. On failure nothing is held. */
cudaError_t cbf_bands_set (CbfBands * bands, CbfDevice * dev,
    const CbfFrameShape * shape, gboolean cuda_memory);

/* The buffers cbf_bands_set made, freed. */
void cbf_bands_free (CbfBands * bands);

/* The process's copier, taken for frames in pageable memory if the bands
 * have none yet; TRUE if taken now. @warning: why it has fewer threads
 * than asked, or NULL (to free). */
gboolean cbf_bands_take_copier (CbfBands * bands, gchar ** warning);

/* The process's copier, given back if the bands took it. */
void cbf_bands_release_copier (CbfBands * bands);

/* Uploads, filters (@filter, once per band, with @halo_rows rows above
 * and below a band read by it) and downloads a frame in bands on @dev's
 * streams (see the top of cbfbands.c), and waits for it; with
 * @leave_download, pinned output only, it waits for the uploads alone
 * (@in may then be reused) and leaves the downloads running on @dev's
 * download stream, for the caller to mark. Pageable frames need the
 * copier (cbf_bands_take_copier). On failure, @what says what failed and
 * the device's work is waited for. */
cudaError_t cbf_bands_filter_host_frame (CbfBands * bands, CbfDevice * dev,
    const CbfHostFrame * in, const CbfHostFrame * out, gint halo_rows,
    gboolean leave_download, CbfFilterRowsFunc filter, gpointer user_data,
    const gchar ** what);

G_END_DECLS

#endif /* __CBF_BANDS_H__ */
