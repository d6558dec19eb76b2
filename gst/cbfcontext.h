/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef __CBF_CONTEXT_H__
#define __CBF_CONTEXT_H__

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <cuda_runtime_api.h>

#if CBF_HAVE_CUDA_MEMORY
#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API    /* GStreamer's CUDA library, 1.22 */
#endif
#include <gst/cuda/gstcudacontext.h>
#endif

G_BEGIN_DECLS

/* The CUDA context the element's work runs in. Built with GStreamer's CUDA
 * library it is a GstCudaContext, which the element shares with the
 * pipeline's other CUDA elements; built without (GStreamer 1.20, or the
 * cuda-memory option disabled) it is a device's primary context, pushed
 * on the driver's context stack of the thread as GStreamer's does. */
#if CBF_HAVE_CUDA_MEMORY
typedef GstCudaContext CbfContext;
#else
typedef struct _CbfContext CbfContext;
#endif

/* A context on the primary context of @device (the runtime's own, made
 * once per process: a context per element would cost a driver
 * initialisation and a load of the kernels each time it starts), or NULL
 * with @err set. */
CbfContext *cbf_context_new_primary (gint device, cudaError_t * err);

CbfContext *cbf_context_ref (CbfContext * context);
void cbf_context_unref (CbfContext * context);

/* The device @context is on. */
gint cbf_context_device (CbfContext * context);

/* Makes @context current on the calling thread (FALSE if it cannot be),
 * until cbf_context_pop, which makes the context and the device the
 * thread had before current again: pushes nest, and a thread that frees
 * memory the element registered keeps its own device. */
gboolean cbf_context_push (CbfContext * context);
void cbf_context_pop (void);

#if CBF_HAVE_CUDA_MEMORY
/* Looks for the pipeline's CUDA context for @element, of @device_id's
 * device (-1: any), and puts it in @slot under @element's object lock,
 * which other threads that read @slot take: one set on the element before
 * (kept by GstElement across stop and start), then its neighbours' (a
 * context query through each of @pads' peers), then the application's
 * (need-context message, answered through set_context, which may fill
 * @slot on this thread: no lock is held while asking). TRUE if found. */
gboolean cbf_context_find_in_pipeline (GstElement * element,
    GstPad * const *pads, guint n_pads, gint device_id, CbfContext ** slot);

/* The CUDA context the peer of @pad answers the context query with (a
 * decoder, cudaupload, another filter), or NULL. */
CbfContext *cbf_context_of_peer (GstPad * pad);
#endif

G_END_DECLS

#endif /* __CBF_CONTEXT_H__ */
