/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The band pipeline of a CUDA filter, owned here: the device and staging buffers
 * of frames in system memory, the events that order their bands, the copy
 * threads (the process's copier) for pageable frames, and the call that
 * runs a frame.
 *
 * Data path of a frame in system memory:
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
 * depends on all the work of the frame; or, for output into the element's
 * own pinned memory, on the last upload only: the frame leaves while its
 * last kernels and downloads run, whoever maps it waits for them
 * (gstcbfpinnedallocator.h), and the next frame's uploads start at once,
 * so that consecutive frames overlap as bands do. Frames then take turns
 * between two device input buffers (a frame's uploads must not overwrite
 * what the previous frame's kernels still read), and a band's kernel
 * waits for the previous frame's download of the same rows. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfbands.h"

#include <string.h>

/* Threads besides the streaming one that copy frames in pageable memory to
 * and from the staging buffers (cbfcopier.h): the count that measured
 * fastest (docs/what-was-tried.md, "System memory, contexts"), at most
 * half the processors. One copier serves every element of the process, so
 * that many pipelines do not start and wake threads of their own; the
 * environment variable GST_CBF_COPY_THREADS sets its total, 1 to
 * CBF_COPIER_MAX_THREADS, for tests and tuning. */
#define MAX_COPY_HELPERS 7

cudaError_t
cbf_bands_make_events (CbfBands * bands)
{
  cudaError_t err = cudaSuccess;
  gint i;

  for (i = 0; i < CBF_MAX_BANDS && err == cudaSuccess; i++) {
    err = cudaEventCreateWithFlags (&bands->uploaded[i],
        cudaEventDisableTiming);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&bands->filtered[i],
          cudaEventDisableTiming);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&bands->downloaded[i],
          cudaEventDisableTiming);
  }
  for (i = 0; i < 2 && err == cudaSuccess; i++)
    err = cudaEventCreateWithFlags (&bands->input_read[i],
        cudaEventDisableTiming);
  return err;
}

void
cbf_bands_destroy_events (CbfBands * bands)
{
  gint i;

  for (i = 0; i < CBF_MAX_BANDS; i++) {
    if (bands->uploaded[i])
      cudaEventDestroy (bands->uploaded[i]);
    if (bands->filtered[i])
      cudaEventDestroy (bands->filtered[i]);
    if (bands->downloaded[i])
      cudaEventDestroy (bands->downloaded[i]);
    bands->uploaded[i] = bands->filtered[i] = bands->downloaded[i] = NULL;
  }
  for (i = 0; i < 2; i++) {
    if (bands->input_read[i])
      cudaEventDestroy (bands->input_read[i]);
    bands->input_read[i] = NULL;
  }
}

void
cbf_bands_free (CbfBands * bands)
{
  guint i;

  for (i = 0; i < bands->shape.n_planes; i++) {
    cudaFree (bands->dev_in[0][i].data);
    cudaFree (bands->dev_in[1][i].data);
    cudaFree (bands->dev_out[i].data);
  }
  cudaFreeHost (bands->staging_in);
  cudaFreeHost (bands->staging_out);
  memset (bands->shape.planes, 0, sizeof (bands->shape.planes));
  memset (bands->staging_offset, 0, sizeof (bands->staging_offset));
  memset (bands->dev_in, 0, sizeof (bands->dev_in));
  memset (bands->dev_out, 0, sizeof (bands->dev_out));
  bands->staging_in = bands->staging_out = NULL;
  bands->shape.n_planes = 0;
}

cudaError_t
cbf_bands_set (CbfBands * bands, CbfDevice * dev, const CbfFrameShape * shape,
    gboolean cuda_memory)
{
  gsize staging_size = 0;
  cudaError_t err = cudaSuccess;
  guint p;

  /* Buffers of the previous caps may still be in use by queued work. */
  cbf_device_synchronize (dev);
  cbf_bands_free (bands);

  bands->shape = *shape;
  for (p = 0; p < shape->n_planes; p++) {
    bands->staging_offset[p] = staging_size;
    staging_size += shape->planes[p].row_bytes * shape->planes[p].height;
  }
  for (p = 0; p < shape->n_planes && !cuda_memory && err == cudaSuccess; p++) {
    const CbfPlaneShape *pb = &shape->planes[p];
    CbfPlane *planes[3] = { &bands->dev_in[0][p], &bands->dev_in[1][p],
      &bands->dev_out[p]
    };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (planes) && err == cudaSuccess; i++) {
      planes[i]->width = pb->width;
      planes[i]->height = pb->height;
      planes[i]->pixel_bytes = pb->pixel_bytes;
      err = cudaMallocPitch ((void **) &planes[i]->data,
          &planes[i]->pitch_bytes, pb->row_bytes, pb->height);
    }
  }
  if (err == cudaSuccess && !cuda_memory)
    err = cudaHostAlloc ((void **) &bands->staging_in, staging_size,
        cudaHostAllocPortable);
  if (err == cudaSuccess && !cuda_memory)
    err = cudaHostAlloc ((void **) &bands->staging_out, staging_size,
        cudaHostAllocPortable);
  if (err != cudaSuccess) {
    cudaGetLastError ();        /* returned: do not leave it to later calls */
    cbf_bands_free (bands);
    return err;
  }

  /* Bands only for one-plane formats, whose rows map one to one, in system
   * memory. */
  bands->n_bands = 1;
  if (shape->n_planes == 1 && !cuda_memory) {
    const gchar *env = g_getenv ("GST_CBF_BAND_BYTES");
    gsize band_bytes = env ? MAX (g_ascii_strtoull (env, NULL, 10), 1) :
        CBF_DEFAULT_BAND_BYTES;
    gsize n = MIN ((gsize) (shape->planes[0].height / CBF_MIN_BAND_ROWS),
        staging_size / band_bytes);
    bands->n_bands = CLAMP (n, 1, CBF_MAX_BANDS);
  }
  bands->band_rows = (shape->planes[0].height + bands->n_bands - 1) /
      bands->n_bands;
  return cudaSuccess;
}

void
cbf_bands_release_copier (CbfBands * bands)
{
  g_clear_pointer (&bands->copier, cbf_copier_release_shared);
}

gboolean
cbf_bands_take_copier (CbfBands * bands, gchar ** warning)
{
  *warning = NULL;
  if (bands->copier)
    return FALSE;
  bands->copier = cbf_copier_acquire_shared (MIN (MAX_COPY_HELPERS,
          g_get_num_processors () / 2) + 1, warning);
  return TRUE;
}

/* Rows [begin, end) of plane @p of each band; planes other than the first
 * go whole with band 0 (one-plane formats only are cut into bands). */
static void
band_rows (CbfBands * bands, guint band, guint p, gint * begin, gint * end)
{
  gint height = bands->shape.planes[p].height;

  if (bands->n_bands == 1) {
    *begin = 0;
    *end = height;
    return;
  }
  *begin = MIN ((gint) band * bands->band_rows, height);
  *end = MIN (*begin + bands->band_rows, height);
}

/* Band @band's upload: its rows shifted down by @halo_rows, so that it
 * also brings the rows the band's kernel reads below the band, and that
 * kernel waits for this one upload only. The uploads still cover each row
 * once. */
static void
upload_rows (CbfBands * bands, guint band, guint p,
    gint halo_rows, gint * begin, gint * end)
{
  gint height = bands->shape.planes[p].height;

  band_rows (bands, band, p, begin, end);
  if (bands->n_bands == 1)
    return;
  *begin = band == 0 ? 0 : MIN (*begin + halo_rows, height);
  *end = band == bands->n_bands - 1 ? height : MIN (*end + halo_rows, height);
}

/* Band @band's upload, on @stream; pageable rows are first copied to the
 * staging buffer, on the copier's threads, while the previous band's copy
 * to the device runs. */
static cudaError_t
upload_band (CbfBands * bands, const CbfHostFrame * frame, guint band,
    gint halo_rows, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  CbfCopy staged[GST_VIDEO_MAX_PLANES];
  gint begin[GST_VIDEO_MAX_PLANES], end[GST_VIDEO_MAX_PLANES];
  guint p, n_staged = 0;

  for (p = 0; p < bands->shape.n_planes; p++) {
    const CbfPlaneShape *pb = &bands->shape.planes[p];

    upload_rows (bands, band, p, halo_rows, &begin[p], &end[p]);
    if (!frame->pinned && begin[p] < end[p])
      staged[n_staged++] =
          cbf_copy_rows (bands->staging_in + bands->staging_offset[p] +
          begin[p] * pb->row_bytes, pb->row_bytes,
          frame->data[p] + begin[p] * frame->stride[p], frame->stride[p],
          pb->row_bytes, end[p] - begin[p]);
  }
  if (n_staged)
    cbf_copier_run (bands->copier, staged, n_staged);

  for (p = 0; p < bands->shape.n_planes && err == cudaSuccess; p++) {
    const CbfPlaneShape *pb = &bands->shape.planes[p];
    const CbfPlane *dev = &bands->dev_in[bands->in_slot][p];
    const guint8 *data = frame->data[p];
    gsize stride = frame->stride[p];

    if (begin[p] >= end[p])
      continue;
    if (!frame->pinned) {
      data = bands->staging_in + bands->staging_offset[p];
      stride = pb->row_bytes;
    }
    err = cudaMemcpy2DAsync (dev->data + begin[p] * dev->pitch_bytes,
        dev->pitch_bytes, data + begin[p] * stride, stride, pb->row_bytes,
        end[p] - begin[p], cudaMemcpyHostToDevice, stream);
  }
  return err;
}

/* Copies band @band of the output from the staging buffer to pageable
 * @frame, once it has arrived there. */
static void
copy_out_band (CbfBands * bands, const CbfHostFrame * frame, guint band)
{
  CbfCopy copies[GST_VIDEO_MAX_PLANES];
  guint p, n = 0;

  for (p = 0; p < bands->shape.n_planes; p++) {
    const CbfPlaneShape *pb = &bands->shape.planes[p];
    gint begin, end;

    band_rows (bands, band, p, &begin, &end);
    if (begin >= end)
      continue;
    copies[n++] = cbf_copy_rows (frame->data[p] + begin * frame->stride[p],
        frame->stride[p], bands->staging_out + bands->staging_offset[p] +
        begin * pb->row_bytes, pb->row_bytes, pb->row_bytes, end - begin);
  }
  cbf_copier_run (bands->copier, copies, n);
}

/* Whether band @band's download has finished, without waiting. A band
 * not there yet is not an error: the runtime's last error is cleared of
 * it, so that the next launch's check does not report it. */
static gboolean
band_arrived (CbfBands * bands, guint band)
{
  cudaError_t err = cudaEventQuery (bands->downloaded[band]);

  if (err == cudaErrorNotReady)
    cudaGetLastError ();
  return err == cudaSuccess;
}

/* Band @band's download, on @stream. Pageable output lands in the staging
 * buffer, copied out band by band as each arrives
 * (cbf_bands_filter_host_frame). */
static cudaError_t
download_band (CbfBands * bands, const CbfHostFrame * frame, guint band,
    cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  guint p;

  for (p = 0; p < bands->shape.n_planes && err == cudaSuccess; p++) {
    const CbfPlaneShape *pb = &bands->shape.planes[p];
    guint8 *data = frame->data[p];
    gsize stride = frame->stride[p];
    gint begin, end;

    band_rows (bands, band, p, &begin, &end);
    if (begin >= end)
      continue;
    if (!frame->pinned) {
      data = bands->staging_out + bands->staging_offset[p];
      stride = pb->row_bytes;
    }
    err = cudaMemcpy2DAsync (data + begin * stride, stride,
        bands->dev_out[p].data + begin * bands->dev_out[p].pitch_bytes,
        bands->dev_out[p].pitch_bytes,
        pb->row_bytes, end - begin, cudaMemcpyDeviceToHost, stream);
  }
  return err;
}

cudaError_t
cbf_bands_filter_host_frame (CbfBands * bands, CbfDevice * dev,
    const CbfHostFrame * in, const CbfHostFrame * out, gint halo_rows,
    gboolean leave_download, CbfFilterRowsFunc filter, gpointer user_data,
    const gchar ** what)
{
  const guint slot = bands->in_slot;
  cudaError_t err;
  guint b, copied_out = 0;

  g_return_val_if_fail ((in->pinned && out->pinned) || bands->copier,
      cudaErrorInvalidValue);
  g_return_val_if_fail (!leave_download || out->pinned, cudaErrorInvalidValue);

  /* The previous frame may still be running: this one's uploads go into
   * the other input slot, once the frame before that has read it. */
  err = cudaStreamWaitEvent (dev->upload_stream, bands->input_read[slot], 0);
  for (b = 0; b < bands->n_bands && err == cudaSuccess; b++) {
    gint begin, end;

    err = upload_band (bands, in, b, halo_rows, dev->upload_stream);
    if (err == cudaSuccess)
      err = cudaEventRecord (bands->uploaded[b], dev->upload_stream);
    if (err == cudaSuccess)
      err = cudaStreamWaitEvent (dev->compute_stream, bands->uploaded[b], 0);
    /* Nor may the band's output rows be written before the previous
     * frame's download of them. */
    if (err == cudaSuccess)
      err = cudaStreamWaitEvent (dev->compute_stream, bands->downloaded[b], 0);
    band_rows (bands, b, 0, &begin, &end);
    if (err == cudaSuccess && begin < end)
      err = filter (user_data, bands->dev_in[slot], bands->dev_out, begin,
          end, dev->compute_stream);
    if (err == cudaSuccess)
      err = cudaEventRecord (bands->filtered[b], dev->compute_stream);
    if (err == cudaSuccess)
      err = cudaStreamWaitEvent (dev->download_stream, bands->filtered[b], 0);
    if (err == cudaSuccess)
      err = download_band (bands, out, b, dev->download_stream);
    if (err == cudaSuccess)
      err = cudaEventRecord (bands->downloaded[b], dev->download_stream);
    /* Pageable output: the bands already in the staging buffer are copied
     * out while the next band is staged and copied in. */
    while (err == cudaSuccess && !out->pinned && copied_out < b
        && band_arrived (bands, copied_out))
      copy_out_band (bands, out, copied_out++);
  }
  if (err == cudaSuccess)
    err = cudaEventRecord (bands->input_read[slot], dev->compute_stream);
  if (err != cudaSuccess) {
    *what = "enqueuing a frame";
    cbf_device_synchronize (dev);
    return err;
  }
  bands->in_slot = slot ^ 1;

  /* The frame's synchronisation: the download stream's last copy depends
   * on every kernel, and the last kernel on every upload; it also reports
   * errors of the kernels' execution. Pageable output waits band by band,
   * each copied out as soon as it has arrived; output left downloading
   * waits for the uploads only, the input's last use (the kernels' errors
   * then come with a later frame, or its reader's map). */
  for (; !out->pinned && copied_out < bands->n_bands; copied_out++) {
    err = cudaEventSynchronize (bands->downloaded[copied_out]);
    if (err != cudaSuccess)
      break;
    copy_out_band (bands, out, copied_out);
  }
  if (err == cudaSuccess)
    err = leave_download ?
        cudaEventSynchronize (bands->uploaded[bands->n_bands - 1]) :
        cudaStreamSynchronize (dev->download_stream);
  if (err != cudaSuccess) {
    *what = "filtering a frame";
    cbf_device_synchronize (dev);
  }
  return err;
}
