/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfhostregister.h"

#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC (cbf_host_register_debug);
#define GST_CAT_DEFAULT cbf_host_register_debug

/* A registered memory's record, its qdata until it is freed. */
typedef struct
{
  CbfContext *context;
  void *base;
  gsize size;
} Registration;

/* The qdata of memories seen once, and of memories the driver refused:
 * markers, no allocation. */
static gchar seen_marker, refused_marker;

/* The registration records and the bytes they hold, under this lock. */
G_LOCK_DEFINE_STATIC (registrations);
static gsize registered_bytes;

static GQuark
registration_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark)) {
    GST_DEBUG_CATEGORY_INIT (cbf_host_register_debug, "cbfhostregister", 0,
        "page-locking of recycled host memory");
    g_once_init_leave (&quark, g_quark_from_static_string ("cbf-registration"));
  }
  return (GQuark) quark;
}

/* The memory is being freed: its pages are unlocked first. */
static void
registration_free (gpointer data)
{
  Registration *reg = data;

  if (cbf_context_push (reg->context)) {
    cudaError_t err = cudaHostUnregister (reg->base);

    if (err != cudaSuccess) {
      GST_WARNING ("cudaHostUnregister (%p): %s", reg->base,
          cudaGetErrorName (err));
      cudaGetLastError ();
    }
    cbf_context_pop ();
  }
  GST_DEBUG ("unregistered %" G_GSIZE_FORMAT " bytes at %p", reg->size,
      reg->base);
  G_LOCK (registrations);
  registered_bytes -= reg->size;
  G_UNLOCK (registrations);
  cbf_context_unref (reg->context);
  g_free (reg);
}

gboolean
cbf_host_register_recycled (CbfContext * context, GstMemory * mem,
    const GstMapInfo * map)
{
  GQuark quark = registration_quark ();
  GstMiniObject *obj = GST_MINI_OBJECT_CAST (mem);
  gpointer state;
  Registration *reg;
  cudaError_t err;

  if (mem->parent)
    return FALSE;
  G_LOCK (registrations);
  state = gst_mini_object_get_qdata (obj, quark);
  if (state == NULL) {
    gst_mini_object_set_qdata (obj, quark, &seen_marker, NULL);
    G_UNLOCK (registrations);
    return FALSE;
  }
  if (state != &seen_marker) {
    G_UNLOCK (registrations);
    return state != &refused_marker;
  }
  if (registered_bytes + mem->maxsize > CBF_MAX_REGISTERED_BYTES) {
    /* seen again later, when others have been freed */
    G_UNLOCK (registrations);
    return FALSE;
  }

  reg = g_new0 (Registration, 1);
  reg->base = map->data - mem->offset;
  reg->size = mem->maxsize;
  err = cudaHostRegister (reg->base, reg->size, cudaHostRegisterPortable);
  if (err != cudaSuccess) {
    GST_DEBUG ("cudaHostRegister (%p, %" G_GSIZE_FORMAT "): %s", reg->base,
        reg->size, cudaGetErrorName (err));
    cudaGetLastError ();
    gst_mini_object_set_qdata (obj, quark, &refused_marker, NULL);
    G_UNLOCK (registrations);
    g_free (reg);
    return FALSE;
  }
  reg->context = cbf_context_ref (context);
  registered_bytes += reg->size;
  GST_DEBUG ("registered %" G_GSIZE_FORMAT " bytes at %p (%" G_GSIZE_FORMAT
      " in all)", reg->size, reg->base, registered_bytes);
  gst_mini_object_set_qdata (obj, quark, reg, registration_free);
  G_UNLOCK (registrations);
  return TRUE;
}

gsize
cbf_host_registered_bytes (void)
{
  gsize bytes;

  G_LOCK (registrations);
  bytes = registered_bytes;
  G_UNLOCK (registrations);
  return bytes;
}
