/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The engine's temporal filter: its state (one frame, or with
 * temporal-motion=compensated the two histories and the estimator's
 * buffers), the motion field and the scene cuts counted on their way back
 * to the host, and noise-sigma=-1's measure. */

#include "cbfengineprivate.h"

#include <math.h>
#include <string.h>

static void
free_state (CbfEngine * engine)
{
  guint i;

  cbf_engine_release_temporal (engine);
  for (i = 0; i < 2; i++)
    engine->noise_pending[i] = engine->cut_pending[i] = FALSE;
  cbf_engine_reset (engine);
}

/* Makes @state for every view of the plan's passes (one of colour's),
 * keeping what it has where the sizes are the same. */
static cudaError_t
ensure_frame_state (const CbfFramePlan * plan, CbfFrameState * state_of)
{
  cudaError_t err = cudaSuccess;
  guint i, v;

  for (i = 0; i < plan->n_passes && err == cudaSuccess; i++) {
    const CbfPass *pass = &plan->passes[i];
    guint views = pass->channels == 3 ? 1 : pass->n_views;
    gint bytes = cbf_temporal_state_bytes (pass->channels, plan->bits);

    for (v = 0; v < views && err == cudaSuccess; v++) {
      CbfPlane *state = &(*state_of)[i][v];

      if (state->data && state->width == pass->width
          && state->height == pass->height && state->pixel_bytes == bytes)
        continue;
      cudaFree (state->data);
      memset (state, 0, sizeof (*state));
      err = cudaMallocPitch ((void **) &state->data, &state->pitch_bytes,
          (size_t) pass->width * bytes, pass->height);
      if (err == cudaSuccess) {
        state->width = pass->width;
        state->height = pass->height;
        state->pixel_bytes = bytes;
      }
    }
  }
  return err;
}

/* Makes the state of every view of the plan's passes, with
 * temporal-motion=compensated the histories and the estimator's buffers
 * too, and the identity's coefficient. */
static cudaError_t
ensure_state (CbfEngine * engine, cudaStream_t stream)
{
  const CbfFramePlan *plan = &engine->plan;
  cudaError_t err = cudaSuccess;

  if (!engine->identity_dev) {
    const float one = 1.f;

    err = cudaMalloc ((void **) &engine->identity_dev, sizeof (float));
    /* On the frames' stream: a copy from pageable memory on the legacy
     * stream may return before it has landed, and that stream need not
     * wait for it. */
    if (err == cudaSuccess)
      err = cudaMemcpyAsync (engine->identity_dev, &one, sizeof (float),
          cudaMemcpyHostToDevice, stream);
    if (err != cudaSuccess)
      return err;
    engine->identity_luma.radius = 0;
    engine->identity_luma.gaussian.coeffs_dev = engine->identity_dev;
    engine->identity_chroma = engine->identity_luma;
  }
  err = ensure_frame_state (plan, &engine->state);
  if (err == cudaSuccess && engine->motion_on) {
    err = ensure_frame_state (plan, &engine->history[0]);
    if (err == cudaSuccess)
      err = ensure_frame_state (plan, &engine->history[1]);
    if (err == cudaSuccess)
      err = cbf_motion_scratch_alloc (&engine->motion,
          plan->passes[0].width, plan->passes[0].height);
    if (err == cudaSuccess && !engine->cut_host)
      err = cudaHostAlloc ((void **) &engine->cut_host, 2 * sizeof (guint),
          cudaHostAllocPortable);
    if (err == cudaSuccess && !engine->sync.cut_copied[0])
      err = cudaEventCreateWithFlags (&engine->sync.cut_copied[0],
          cudaEventDisableTiming);
    if (err == cudaSuccess && !engine->sync.cut_copied[1])
      err = cudaEventCreateWithFlags (&engine->sync.cut_copied[1],
          cudaEventDisableTiming);
  }
  if (err != cudaSuccess)
    free_state (engine);
  return err;
}

/* Counts the scene cut of the frame whose count slot @k holds, once its
 * copy is done; @wait: waits for it. */
static void
collect_cut (CbfEngine * engine, guint k, gboolean wait)
{
  cudaError_t err;

  if (!engine->cut_pending[k])
    return;
  err = wait ? cudaEventSynchronize (engine->sync.cut_copied[k]) :
      cudaEventQuery (engine->sync.cut_copied[k]);
  if (err == cudaErrorNotReady) {
    cudaGetLastError ();        /* not an error: not done yet */
    return;
  }
  engine->cut_pending[k] = FALSE;
  if (err == cudaSuccess && engine->cut_host[k] > engine->cut_limit)
    engine->scene_cuts++;
}

/* The cuts of the frames whose counts have arrived, oldest first. */
static void
collect_cuts (CbfEngine * engine, gboolean wait)
{
  collect_cut (engine, engine->cut_slot, wait);
  collect_cut (engine, engine->cut_slot ^ 1, wait);
}

/* The temporal filter's part of this frame's weights: on, each group's
 * gain (0 where its state does not hold the previous output) and the
 * gate; off, nothing to read or write. The frame about to be enqueued
 * overwrites the state, which holds the previous output again only once
 * its last band is enqueued (cbf_engine_run): a frame that fails on the
 * way leaves the next one without a previous frame. A plane the frame
 * copies (filter-luma=false, filter-chroma=false) writes no state, so
 * its state is stale from then on until the plane is filtered again. */
cudaError_t
cbf_engine_prepare_temporal (CbfEngine * engine, cudaStream_t stream,
    const gchar ** what)
{
  const CbfParams *p = &engine->params;
  float luma_gain = 0.f, chroma_gain = 0.f, gate = 1.f;
  gboolean motion_on;

  collect_cuts (engine, FALSE);
  engine->field_made = FALSE;
  engine->temporal_on = p->temporal_strength > 0;
  /* The two modes keep their previous outputs in different places. */
  motion_on = engine->temporal_on
      && p->temporal_motion == CBF_TEMPORAL_MOTION_COMPENSATED;
  if (motion_on != engine->motion_on)
    cbf_engine_reset (engine);
  engine->motion_on = motion_on;
  if (engine->temporal_on) {
    cudaError_t err;

    *what = "allocating the temporal filter's state";
    err = ensure_state (engine, stream);
    if (err != cudaSuccess) {
      engine->temporal_on = engine->motion_on = FALSE;
      cbf_engine_reset (engine);
      return err;
    }
    if (engine->luma_state_valid)
      luma_gain = (float) p->temporal_strength;
    if (engine->chroma_state_valid)
      chroma_gain = (float) p->temporal_strength;
    gate = cbf_temporal_gate (p->temporal_sigma, engine->plan.bits);
  }
  if (engine->motion_on) {
    CbfMotionRun *m = &engine->motion_run;

    /* The spatial kernels only leave their result in the state. */
    m->prev = &engine->history[engine->history_slot];
    m->next = &engine->history[engine->history_slot ^ 1];
    /* Chroma follows luma's motion: without a previous luma (luma copied
     * by filter-luma=false, or starting again) there is no field, and
     * chroma starts again too rather than blend where things moved. */
    if (luma_gain <= 0.f)
      chroma_gain = 0.f;
    m->luma_prev = luma_gain > 0.f;
    m->chroma_prev = chroma_gain > 0.f;
    m->luma_gain = luma_gain;
    m->chroma_gain = chroma_gain;
    m->gate = gate;
    m->scratch = &engine->motion;
    engine->cut_limit = cbf_motion_cut_limit (engine->plan.passes[0].width,
        engine->plan.passes[0].height);
    luma_gain = chroma_gain = 0.f;
  }
  engine->luma_writes_state = engine->temporal_on && !engine->luma_copied;
  engine->chroma_writes_state = engine->temporal_on && p->filter_chroma;
  cbf_engine_reset (engine);
  engine->luma.weights.temporal_gain = luma_gain;
  engine->identity_luma.temporal_gain = luma_gain;
  engine->chroma.weights.temporal_gain = chroma_gain;
  engine->identity_chroma.temporal_gain = chroma_gain;
  engine->luma.weights.temporal_gate = gate;
  engine->identity_luma.temporal_gate = gate;
  engine->chroma.weights.temporal_gate = gate;
  engine->identity_chroma.temporal_gate = gate;
  return cudaSuccess;
}

/* temporal-motion=compensated, before the frame's first band: the field
 * from the current frame @in to the previous output, or none (zero, and no
 * cut) where luma has no previous output; the cut count on its way to the
 * host. */
cudaError_t
cbf_engine_estimate_motion (CbfEngine * engine, const CbfPlane * in,
    cudaStream_t stream)
{
  const CbfPass *pass = &engine->plan.passes[0];
  CbfMotionView cur, prev;
  cudaError_t err;

  cbf_pass_motion_view (pass, in, 0, &cur);
  cbf_state_motion_view (pass, engine->plan.bits,
      &(*engine->motion_run.prev)[0][0], &prev);
  err = cbf_motion_estimate (&cur, engine->motion_run.luma_prev ? &prev :
      NULL, &engine->motion_luma, (float) engine->params.temporal_sigma,
      &engine->motion, stream);
  if (err == cudaSuccess && engine->motion_run.luma_prev) {
    guint k = engine->cut_slot;

    /* The count of two frames ago, long done, read before its slot is
     * written again. */
    collect_cut (engine, k, TRUE);
    err = cudaMemcpyAsync (&engine->cut_host[k], engine->motion.cut_count,
        sizeof (guint), cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess)
      err = cudaEventRecord (engine->sync.cut_copied[k], stream);
    engine->cut_pending[k] = err == cudaSuccess;
    engine->field_made = err == cudaSuccess;
    engine->cut_slot ^= 1;
  }
  return err;
}

guint64
cbf_engine_get_scene_cuts (CbfEngine * engine)
{
  collect_cuts (engine, FALSE);
  return engine->scene_cuts;
}

gboolean
cbf_engine_get_motion (CbfEngine * engine, gfloat ** field, gint * blocks_x,
    gint * blocks_y)
{
  gsize n;
  gfloat *host;

  if (!engine->field_made
      || cudaEventSynchronize (engine->sync.cut_copied[engine->cut_slot ^ 1]) !=
      cudaSuccess)
    return FALSE;
  n = (gsize) engine->motion.blocks_x * engine->motion.blocks_y * 2;
  host = g_new (gfloat, n);
  if (cudaMemcpy (host, engine->motion.field, n * sizeof (gfloat),
          cudaMemcpyDeviceToHost) != cudaSuccess) {
    g_free (host);
    return FALSE;
  }
  *field = host;
  *blocks_x = engine->motion.blocks_x;
  *blocks_y = engine->motion.blocks_y;
  return TRUE;
}

/* Takes the estimate in noise slot @k once its copy is done (@wait:
 * waits for it) into the average over frames. */
static void
collect_noise (CbfEngine * engine, guint k, gboolean wait)
{
  cudaError_t err;

  if (!engine->noise_pending[k])
    return;
  err = wait ? cudaEventSynchronize (engine->sync.noise_copied[k]) :
      cudaEventQuery (engine->sync.noise_copied[k]);
  if (err == cudaErrorNotReady) {
    cudaGetLastError ();        /* not an error: not done yet */
    return;
  }
  engine->noise_pending[k] = FALSE;
  if (err != cudaSuccess || engine->noise_host[k] < 0)
    return;
  engine->noise_estimate = engine->noise_estimate < 0 ?
      engine->noise_host[k] :
      0.9 * engine->noise_estimate + 0.1 * engine->noise_host[k];
}

/* noise-sigma=-1: the estimates that have arrived, and new settings once
 * the average has moved by more than 2 % (and a twentieth of a level)
 * from the one in use, so that the tables are not made again every
 * frame; the estimator's buffers. */
cudaError_t
cbf_engine_prepare_noise (CbfEngine * engine, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  gdouble e;

  if (engine->user.noise != CBF_NOISE_MEASURED)
    return cudaSuccess;
  collect_noise (engine, engine->noise_slot, FALSE);
  collect_noise (engine, engine->noise_slot ^ 1, FALSE);
  e = engine->noise_estimate;
  if (e >= 0 && (engine->noise_in_use < 0
          || fabs (e - engine->noise_in_use) >
          0.02 * engine->noise_in_use + 0.05)) {
    engine->noise_in_use = e;
    cbf_engine_derive_params (engine);
    engine->dirty = TRUE;
  }
  if (!engine->noise.counts)
    err = cbf_noise_scratch_alloc (&engine->noise, stream);
  if (err == cudaSuccess && !engine->noise_host)
    err = cudaHostAlloc ((void **) &engine->noise_host, 2 * sizeof (gfloat),
        cudaHostAllocPortable);
  if (err == cudaSuccess && !engine->sync.noise_copied[0])
    err = cudaEventCreateWithFlags (&engine->sync.noise_copied[0],
        cudaEventDisableTiming);
  if (err == cudaSuccess && !engine->sync.noise_copied[1])
    err = cudaEventCreateWithFlags (&engine->sync.noise_copied[1],
        cudaEventDisableTiming);
  return err;
}

/* noise-sigma=-1, once the frame @in is whole on the device: its noise,
 * on its way to the host. */
cudaError_t
cbf_engine_measure_noise (CbfEngine * engine, const CbfPlane * in,
    cudaStream_t stream)
{
  guint k = engine->noise_slot;
  CbfMotionView luma;
  cudaError_t err;

  cbf_pass_motion_view (&engine->plan.passes[0], in, 0, &luma);
  /* The estimate of two frames ago, long done, read before its slot is
   * written again. */
  collect_noise (engine, k, TRUE);
  err = cbf_noise_measure (&luma, &engine->motion_luma, &engine->noise, stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (&engine->noise_host[k], engine->noise.sigma,
        sizeof (gfloat), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaEventRecord (engine->sync.noise_copied[k], stream);
  engine->noise_pending[k] = err == cudaSuccess;
  engine->noise_slot ^= 1;
  return err;
}

gdouble
cbf_engine_get_noise (CbfEngine * engine)
{
  if (engine->noise_host) {
    collect_noise (engine, engine->noise_slot, FALSE);
    collect_noise (engine, engine->noise_slot ^ 1, FALSE);
  }
  return engine->noise_estimate;
}
