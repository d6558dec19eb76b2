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

#include "gstcbfpinnedallocator.h"

#include <string.h>
#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC (gst_cbf_pinned_allocator_debug);
#define GST_CAT_DEFAULT gst_cbf_pinned_allocator_debug

struct _GstCbfPinnedAllocator
{
  GstAllocator parent;

  CbfContext *context;
};

typedef struct
{
  GstMemory mem;
  /* Start of the cudaHostAlloc block; NULL for a shared sub-memory, which
   * points into its parent's block. */
  guint8 *block;
  guint8 *data;
  /* Of a block's memory: recorded after the copies that fill it, made at
   * its first pending write; whether it is recorded and not yet waited
   * for (atomic: any thread may map). */
  cudaEvent_t written;
  gint pending;
} GstCbfPinnedMemory;

G_DEFINE_TYPE (GstCbfPinnedAllocator, gst_cbf_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static void
pinned_memory_init (GstCbfPinnedMemory * mem, GstAllocator * allocator,
    GstMemory * parent, GstMemoryFlags flags, gsize maxsize, gsize align,
    gsize offset, gsize size)
{
  gst_memory_init (GST_MEMORY_CAST (mem), flags, allocator, parent, maxsize,
      align, offset, size);
}

static GstMemory *
gst_cbf_pinned_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstCbfPinnedAllocator *self = GST_CBF_PINNED_ALLOCATOR (allocator);
  GstCbfPinnedMemory *mem;
  gsize maxsize = size + params->prefix + params->padding;
  void *block = NULL;
  cudaError_t err;

  if (!cbf_context_push (self->context)) {
    GST_WARNING_OBJECT (allocator, "cannot make the CUDA context current");
    return NULL;
  }
  /* cudaHostAlloc returns page-aligned memory, which satisfies any alignment
   * GStreamer asks for up to a page. Portable: usable from every context. */
  err = cudaHostAlloc (&block, maxsize, cudaHostAllocPortable);
  cbf_context_pop ();
  if (err != cudaSuccess) {
    GST_WARNING_OBJECT (allocator, "cudaHostAlloc of %" G_GSIZE_FORMAT
        " bytes failed: %s", maxsize, cudaGetErrorString (err));
    cudaGetLastError ();
    return NULL;
  }

  mem = g_new0 (GstCbfPinnedMemory, 1);
  pinned_memory_init (mem, allocator, NULL, params->flags, maxsize,
      params->align, params->prefix, size);
  mem->block = block;
  mem->data = block;

  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, params->padding);

  return GST_MEMORY_CAST (mem);
}

/* The memory whose block @memory is in: the one that holds its pending
 * write. */
static GstCbfPinnedMemory *
block_owner (GstMemory * memory)
{
  return (GstCbfPinnedMemory *) (memory->parent ? memory->parent : memory);
}

/* Waits for the copies a pending write left filling @memory's block;
 * FALSE if they failed, or cannot be waited for (logged). */
static gboolean
wait_written (GstMemory * memory)
{
  GstCbfPinnedAllocator *self = GST_CBF_PINNED_ALLOCATOR (memory->allocator);
  GstCbfPinnedMemory *owner = block_owner (memory);
  cudaError_t err = cudaErrorDeviceUninitialized;

  if (!g_atomic_int_get (&owner->pending))
    return TRUE;
  if (cbf_context_push (self->context)) {
    err = cudaEventSynchronize (owner->written);
    cbf_context_pop ();
  }
  if (err != cudaSuccess) {
    GST_ERROR_OBJECT (self, "the GPU's copies into %p failed: %s", owner,
        cudaGetErrorString (err));
    return FALSE;
  }
  g_atomic_int_set (&owner->pending, 0);
  return TRUE;
}

gboolean
gst_cbf_pinned_memory_write_pending (GstMemory * memory, cudaStream_t stream)
{
  GstCbfPinnedMemory *owner;

  if (!gst_memory_is_type (memory, GST_CBF_PINNED_MEMORY_TYPE))
    return FALSE;
  owner = block_owner (memory);
  if (!owner->written && cudaEventCreateWithFlags (&owner->written,
          cudaEventDisableTiming) != cudaSuccess) {
    cudaGetLastError ();
    owner->written = NULL;
    return FALSE;
  }
  if (cudaEventRecord (owner->written, stream) != cudaSuccess) {
    cudaGetLastError ();
    return FALSE;
  }
  g_atomic_int_set (&owner->pending, 1);
  return TRUE;
}

static void
gst_cbf_pinned_allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  GstCbfPinnedAllocator *self = GST_CBF_PINNED_ALLOCATOR (allocator);
  GstCbfPinnedMemory *mem = (GstCbfPinnedMemory *) memory;

  if (mem->block) {
    cudaError_t err = cudaErrorDeviceUninitialized;

    /* No copy may still be writing into the block. */
    wait_written (memory);
    if (cbf_context_push (self->context)) {
      if (mem->written)
        cudaEventDestroy (mem->written);
      err = cudaFreeHost (mem->block);
      cbf_context_pop ();
    }
    if (err != cudaSuccess)
      GST_WARNING_OBJECT (allocator, "cudaFreeHost failed: %s",
          cudaGetErrorString (err));
  }
  g_free (mem);
}

/* A memory whose pixels the GPU is still copying in is mapped once they
 * are there, as GstCudaMemory is once its stream is done. */
static gpointer
pinned_mem_map (GstMemory * memory, G_GNUC_UNUSED gsize maxsize,
    G_GNUC_UNUSED GstMapFlags flags)
{
  if (!wait_written (memory))
    return NULL;
  return ((GstCbfPinnedMemory *) memory)->data;
}

static void
pinned_mem_unmap (G_GNUC_UNUSED GstMemory * memory)
{
}

static GstMemory *
pinned_mem_share (GstMemory * memory, gssize offset, gssize size)
{
  GstCbfPinnedMemory *mem = (GstCbfPinnedMemory *) memory;
  GstCbfPinnedMemory *sub;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;

  sub = g_new0 (GstCbfPinnedMemory, 1);
  pinned_memory_init (sub, memory->allocator, parent,
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->maxsize, memory->align, memory->offset + offset, size);
  sub->block = NULL;
  sub->data = mem->data;
  return GST_MEMORY_CAST (sub);
}

static GstMemory *
pinned_mem_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstCbfPinnedMemory *mem = (GstCbfPinnedMemory *) memory;
  GstAllocationParams params;
  GstMemory *copy;

  if (!wait_written (memory))
    return NULL;
  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;
  gst_allocation_params_init (&params);
  params.align = memory->align;

  copy = gst_cbf_pinned_allocator_alloc (memory->allocator, size, &params);
  if (copy)
    memcpy (((GstCbfPinnedMemory *) copy)->data,
        mem->data + memory->offset + offset, size);
  return copy;
}

static gboolean
pinned_mem_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  GstCbfPinnedMemory *a = (GstCbfPinnedMemory *) mem1;
  GstCbfPinnedMemory *b = (GstCbfPinnedMemory *) mem2;

  if (offset)
    *offset = mem1->offset - mem1->parent->offset;
  return a->data + mem1->offset + mem1->size == b->data + mem2->offset;
}

static void
gst_cbf_pinned_allocator_dispose (GObject * object)
{
  GstCbfPinnedAllocator *self = GST_CBF_PINNED_ALLOCATOR (object);

  g_clear_pointer (&self->context, cbf_context_unref);
  G_OBJECT_CLASS (gst_cbf_pinned_allocator_parent_class)->dispose (object);
}

static void
gst_cbf_pinned_allocator_class_init (GstCbfPinnedAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->dispose = gst_cbf_pinned_allocator_dispose;
  allocator_class->alloc = gst_cbf_pinned_allocator_alloc;
  allocator_class->free = gst_cbf_pinned_allocator_free;

  GST_DEBUG_CATEGORY_INIT (gst_cbf_pinned_allocator_debug,
      "cbfpinnedallocator", 0, "CUDA pinned host memory allocator");
}

static void
gst_cbf_pinned_allocator_init (GstCbfPinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_CBF_PINNED_MEMORY_TYPE;
  allocator->mem_map = pinned_mem_map;
  allocator->mem_unmap = pinned_mem_unmap;
  allocator->mem_share = pinned_mem_share;
  allocator->mem_copy = pinned_mem_copy;
  allocator->mem_is_span = pinned_mem_is_span;
}

GstAllocator *
gst_cbf_pinned_allocator_new (CbfContext * context)
{
  GstCbfPinnedAllocator *self;

  g_return_val_if_fail (context != NULL, NULL);
  self = g_object_new (GST_TYPE_CBF_PINNED_ALLOCATOR, NULL);
  self->context = cbf_context_ref (context);
  return GST_ALLOCATOR_CAST (gst_object_ref_sink (self));
}
