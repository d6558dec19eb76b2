/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfcontext.h"
#include "device.h"

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#endif

/* The driver's context stack, reached through the runtime (as
 * cbf_cuda_primary_context does), so that the plugin needs no link
 * against libcuda. */
typedef CUresult (CUDAAPI * CtxPushFunc) (CUcontext ctx);
typedef CUresult (CUDAAPI * CtxPopFunc) (CUcontext * ctx);
typedef CUresult (CUDAAPI * CtxGetFunc) (CUcontext * ctx);
typedef CUresult (CUDAAPI * CtxSetFunc) (CUcontext ctx);

static struct
{
  CtxPushFunc push;
  CtxPopFunc pop;
  CtxGetFunc get;
  CtxSetFunc set;
} driver;

/* The runtime's device of each push, as the thread had it before: pushes
 * nest (the element's streaming thread frees memory registered by
 * another element, on another device). */
static GPrivate previous_devices = G_PRIVATE_INIT ((GDestroyNotify)
    g_array_unref);

static gpointer
driver_entry_point (const gchar * name)
{
  enum cudaDriverEntryPointQueryResult found =
      cudaDriverEntryPointSymbolNotFound;
  void *func = NULL;

  if (cudaGetDriverEntryPointByVersion (name, &func, 12000,
          cudaEnableDefault, &found) != cudaSuccess
      || found != cudaDriverEntryPointSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return func;
}

static gboolean
load_driver (void)
{
  static gsize loaded;

  if (g_once_init_enter (&loaded)) {
    driver.push = (CtxPushFunc) driver_entry_point ("cuCtxPushCurrent");
    driver.pop = (CtxPopFunc) driver_entry_point ("cuCtxPopCurrent");
    driver.get = (CtxGetFunc) driver_entry_point ("cuCtxGetCurrent");
    driver.set = (CtxSetFunc) driver_entry_point ("cuCtxSetCurrent");
    g_once_init_leave (&loaded, (driver.push && driver.pop && driver.get
            && driver.set) ? 1 : 2);
  }
  return loaded == 1;
}

/* The calling thread's device as the runtime has it, -1 if it cannot
 * tell: read before a push. */
static gint
runtime_device (void)
{
  gint device = -1;

  if (cudaGetDevice (&device) != cudaSuccess) {
    cudaGetLastError ();
    return -1;
  }
  return device;
}

/* A push succeeded: @previous is what its pop restores. */
static void
remember_device (gint previous)
{
  GArray *stack = g_private_get (&previous_devices);

  if (!stack) {
    stack = g_array_new (FALSE, FALSE, sizeof (gint));
    g_private_set (&previous_devices, stack);
  }
  g_array_append_val (stack, previous);
}

/* After the driver's pop: the runtime follows the context current again;
 * should it still name the pushed device (a thread with no current
 * context, whose runtime took the pushed one for its own), the device the
 * thread had is set back, the context that was current kept. */
static void
restore_device (void)
{
  GArray *stack = g_private_get (&previous_devices);
  CUcontext restored = NULL;
  gint previous, now;

  if (!stack || stack->len == 0) {
    g_critical ("cbf_context_pop without a push");
    return;
  }
  previous = g_array_index (stack, gint, stack->len - 1);
  g_array_set_size (stack, stack->len - 1);
  now = runtime_device ();
  if (previous < 0 || now < 0 || now == previous || !load_driver ()
      || driver.get (&restored) != CUDA_SUCCESS)
    return;
  if (cudaSetDevice (previous) != cudaSuccess)
    cudaGetLastError ();
  driver.set (restored);
}

#if CBF_HAVE_CUDA_MEMORY

CbfContext *
cbf_context_new_primary (gint device, cudaError_t * err)
{
  CUcontext primary = NULL;
  CUdevice handle;
  CbfContext *context = NULL;

  *err = cbf_cuda_primary_context (device, &primary);
  if (*err == cudaSuccess && CuDeviceGet (&handle, device) == CUDA_SUCCESS)
    context = gst_cuda_context_new_wrapped (primary, handle);
  if (!context && *err == cudaSuccess)
    *err = cudaErrorInitializationError;
  return context;
}

CbfContext *
cbf_context_ref (CbfContext * context)
{
  return gst_object_ref (context);
}

void
cbf_context_unref (CbfContext * context)
{
  gst_object_unref (context);
}

gint
cbf_context_device (CbfContext * context)
{
  guint device = 0;

  g_object_get (context, "cuda-device-id", &device, NULL);
  return device;
}

gboolean
cbf_context_push (CbfContext * context)
{
  gint previous = runtime_device ();

  if (!gst_cuda_context_push (context))
    return FALSE;
  remember_device (previous);
  return TRUE;
}

void
cbf_context_pop (void)
{
  gst_cuda_context_pop (NULL);
  restore_device ();
}

#else

struct _CbfContext
{
  gint device;
  CUcontext primary;            /* retained for the life of the process */
};

CbfContext *
cbf_context_new_primary (gint device, cudaError_t * err)
{
  CbfContext *context;
  CUcontext primary = NULL;

  *err = cbf_cuda_primary_context (device, &primary);
  if (*err == cudaSuccess && !load_driver ())
    *err = cudaErrorSymbolNotFound;
  if (*err != cudaSuccess)
    return NULL;
  context = g_atomic_rc_box_new0 (CbfContext);
  context->device = device;
  context->primary = primary;
  /* The runtime's state for the device made now, not at the first frame,
   * without making the device the calling thread's. */
  if (!cbf_context_push (context)) {
    *err = cudaErrorInitializationError;
  } else {
    *err = cudaFree (NULL);
    cbf_context_pop ();
  }
  if (*err != cudaSuccess) {
    cudaGetLastError ();
    cbf_context_unref (context);
    return NULL;
  }
  return context;
}

CbfContext *
cbf_context_ref (CbfContext * context)
{
  return g_atomic_rc_box_acquire (context);
}

void
cbf_context_unref (CbfContext * context)
{
  g_atomic_rc_box_release (context);
}

gint
cbf_context_device (CbfContext * context)
{
  return context->device;
}

/* The device's primary context pushed on the driver's context stack of
 * the calling thread, which the runtime then works in, as GStreamer's CUDA
 * library does: cudaSetDevice would instead replace the thread's current
 * context and leave it switched for whoever runs there next (the thread
 * that frees registered memory is anyone's). */
gboolean
cbf_context_push (CbfContext * context)
{
  gint previous = runtime_device ();

  if (!load_driver () || driver.push (context->primary) != CUDA_SUCCESS)
    return FALSE;
  remember_device (previous);
  return TRUE;
}

void
cbf_context_pop (void)
{
  CUcontext popped = NULL;

  driver.pop (&popped);
  restore_device ();
}
#endif

#if CBF_HAVE_CUDA_MEMORY
/* Takes the CUDA context in @context if @slot is empty and it is of
 * @device_id's device. */
static void
take_context (GstElement * element, GstContext * context, gint device_id,
    CbfContext ** slot)
{
  GST_OBJECT_LOCK (element);
  gst_cuda_handle_set_context (element, context, device_id, slot);
  GST_OBJECT_UNLOCK (element);
}

static gboolean
have_context (GstElement * element, CbfContext ** slot)
{
  gboolean have;

  GST_OBJECT_LOCK (element);
  have = *slot != NULL;
  GST_OBJECT_UNLOCK (element);
  return have;
}

gboolean
cbf_context_find_in_pipeline (GstElement * element, GstPad * const *pads,
    guint n_pads, gint device_id, CbfContext ** slot)
{
  GstContext *context;
  guint i;

  context = gst_element_get_context (element, GST_CUDA_CONTEXT_TYPE);
  if (context) {
    take_context (element, context, device_id, slot);
    gst_context_unref (context);
  }
  for (i = 0; i < n_pads && !have_context (element, slot); i++) {
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);

    if (gst_pad_peer_query (pads[i], query)) {
      gst_query_parse_context (query, &context);
      if (context)
        take_context (element, context, device_id, slot);
    }
    gst_query_unref (query);
  }
  if (have_context (element, slot))
    return TRUE;
  gst_element_post_message (element,
      gst_message_new_need_context (GST_OBJECT (element),
          GST_CUDA_CONTEXT_TYPE));
  return have_context (element, slot);
}

CbfContext *
cbf_context_of_peer (GstPad * pad)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstContext *context = NULL;
  CbfContext *found = NULL;

  if (gst_pad_peer_query (pad, query)) {
    gst_query_parse_context (query, &context);
    if (context)
      gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &found, NULL);
  }
  gst_query_unref (query);
  return found;
}
#endif
