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

#include <gst/allocators/gstfdmemory.h>
#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC (cbf_host_register_debug);
#define GST_CAT_DEFAULT cbf_host_register_debug

/* A registered memory's record, its qdata until it is freed: the range
 * the driver holds page-locked. */
typedef struct
{
  CbfContext *context;
  void *base;
  gsize size;
} Registration;

/* The qdata of memories seen once, and of memories the driver refused or
 * that moved: markers, no allocation. */
static gchar seen_marker, refused_marker;

/* The registration records and the bytes they hold, under this lock. */
G_LOCK_DEFINE_STATIC (registrations);
static gsize registered_bytes;

/* The start of GstFdMemory, whose definition GStreamer keeps private and
 * which has no getter for its flags. Read only from memory that the fd
 * allocator's own functions map (they take it for a GstFdMemory), and
 * only where memories made here with known flags read back as made. */
typedef struct
{
  GstMemory mem;
  GstFdMemoryFlags flags;
  gint fd;
} FdMemoryHead;

/* How an allocator maps its memory: the functions that say where. */
typedef struct
{
  GstMemoryMapFunction map;
  GstMemoryMapFullFunction map_full;
  GstMemoryUnmapFunction unmap;
  GstMemoryUnmapFullFunction unmap_full;
} MapFunctions;

static struct
{
  MapFunctions sysmem, fd;
  gboolean fd_flags_readable;
} allocators;

static MapFunctions
map_functions (GstAllocator * allocator)
{
  MapFunctions f = { allocator->mem_map, allocator->mem_map_full,
    allocator->mem_unmap, allocator->mem_unmap_full
  };
  return f;
}

static gboolean
maps_as (GstAllocator * allocator, const MapFunctions * f)
{
  return f->map && allocator->mem_map == f->map
      && allocator->mem_map_full == f->map_full
      && allocator->mem_unmap == f->unmap
      && allocator->mem_unmap_full == f->unmap_full;
}

/* Whether FdMemoryHead reads GstFdMemory's flags: two memories on a
 * made-up descriptor, never mapped or closed. */
static gboolean
fd_flags_readable (GstAllocator * fd_allocator)
{
  static const GstFdMemoryFlags flags[] = {
    GST_FD_MEMORY_FLAG_DONT_CLOSE,
    GST_FD_MEMORY_FLAG_KEEP_MAPPED | GST_FD_MEMORY_FLAG_DONT_CLOSE,
  };
  const gint fd = 0x5ca1ab1e;
  gboolean readable = TRUE;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (flags); i++) {
    GstMemory *mem = gst_fd_allocator_alloc (fd_allocator, fd, 4096,
        flags[i]);
    const FdMemoryHead *head = (const FdMemoryHead *) mem;

    readable &= mem && head->flags == flags[i] && head->fd == fd
        && gst_fd_memory_get_fd (mem) == fd;
    if (mem)
      gst_memory_unref (mem);
  }
  return readable;
}

static GQuark
registration_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark)) {
    GstAllocator *sysmem = gst_allocator_find (GST_ALLOCATOR_SYSMEM);
    GstAllocator *fd = gst_fd_allocator_new ();

    GST_DEBUG_CATEGORY_INIT (cbf_host_register_debug, "cbfhostregister", 0,
        "page-locking of recycled host memory");
    if (sysmem) {
      allocators.sysmem = map_functions (sysmem);
      gst_object_unref (sysmem);
    }
    allocators.fd = map_functions (fd);
    allocators.fd_flags_readable = fd_flags_readable (fd);
    if (!allocators.fd_flags_readable)
      GST_WARNING ("GstFdMemory's flags cannot be read here: fd memory is "
          "never page-locked");
    gst_object_unref (fd);
    g_once_init_leave (&quark, g_quark_from_static_string ("cbf-registration"));
  }
  return (GQuark) quark;
}

gboolean
cbf_host_register_eligible (GstMemory * mem)
{
  GstAllocator *allocator = mem->allocator;

  registration_quark ();
  if (mem->parent || !allocator)
    return FALSE;
  if (maps_as (allocator, &allocators.sysmem))
    return TRUE;
  /* Plain fd memory only: dma-buf memory maps through functions of its
   * own (cache synchronisation), which the driver's DMA would bypass. */
  if (gst_is_fd_memory (mem) && maps_as (allocator, &allocators.fd)
      && allocators.fd_flags_readable)
    return (((const FdMemoryHead *) mem)->flags &
        GST_FD_MEMORY_FLAG_KEEP_MAPPED) != 0;
  return FALSE;
}

static gboolean
is_registration (gpointer state)
{
  return state && state != (gpointer) & seen_marker
      && state != (gpointer) & refused_marker;
}

/* Whether [@data, @data + @size) lies inside @reg's range. */
static gboolean
range_inside (const Registration * reg, const void *data, gsize size)
{
  guintptr begin = (guintptr) data, base = (guintptr) reg->base;

  return begin >= base && size <= reg->size && begin - base <= reg->size - size;
}

/* The memory is being freed, or was found elsewhere than its
 * registration: its pages are unlocked. No other registration can
 * overlap this one (the driver refuses overlapping ranges), so that the
 * unregistration undoes this one only, wherever the memory is now. */
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
  cudaError_t err = cudaErrorInitializationError;

  if (!cbf_host_register_eligible (mem))
    return FALSE;
  G_LOCK (registrations);
  state = gst_mini_object_get_qdata (obj, quark);
  if (state == NULL) {
    gst_mini_object_set_qdata (obj, quark, &seen_marker, NULL);
    G_UNLOCK (registrations);
    return FALSE;
  }
  if (is_registration (state)) {
    reg = state;
    if (range_inside (reg, map->data, map->size)) {
      G_UNLOCK (registrations);
      return TRUE;
    }
    /* Its allocator moved it after all: staged from now on. */
    gst_mini_object_steal_qdata (obj, quark);
    gst_mini_object_set_qdata (obj, quark, &refused_marker, NULL);
    G_UNLOCK (registrations);
    GST_WARNING ("memory %p registered at %p is now mapped at %p: "
        "unregistered", mem, reg->base, map->data);
    registration_free (reg);
    return FALSE;
  }
  if (state != &seen_marker) {
    G_UNLOCK (registrations);
    return FALSE;
  }
  if (registered_bytes + mem->maxsize > CBF_MAX_REGISTERED_BYTES) {
    /* seen again later, when others have been freed */
    G_UNLOCK (registrations);
    return FALSE;
  }

  reg = g_new0 (Registration, 1);
  reg->base = map->data - mem->offset;
  reg->size = mem->maxsize;
  if (cbf_context_push (context)) {
    err = cudaHostRegister (reg->base, reg->size, cudaHostRegisterPortable);
    if (err != cudaSuccess)
      cudaGetLastError ();
    cbf_context_pop ();
  }
  if (err != cudaSuccess) {
    GST_DEBUG ("cudaHostRegister (%p, %" G_GSIZE_FORMAT "): %s", reg->base,
        reg->size, cudaGetErrorName (err));
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

gboolean
cbf_host_register_covers (GstMemory * mem, const void *data, gsize size)
{
  GQuark quark = registration_quark ();
  gpointer state;
  gboolean covers;

  G_LOCK (registrations);
  state = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), quark);
  covers = is_registration (state) && range_inside (state, data, size);
  G_UNLOCK (registrations);
  return covers;
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
