/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef __GST_CBF_PINNED_ALLOCATOR_H__
#define __GST_CBF_PINNED_ALLOCATOR_H__

#include <gst/gst.h>

#include <cuda_runtime_api.h>

#include "cbfcontext.h"

G_BEGIN_DECLS

/* Page-locked (pinned) host memory from cudaHostAlloc: the GPU's copy
 * engines read and write it directly (DMA), asynchronously to the host. */
#define GST_CBF_PINNED_MEMORY_TYPE "CbfPinnedMemory"

#define GST_TYPE_CBF_PINNED_ALLOCATOR (gst_cbf_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCbfPinnedAllocator, gst_cbf_pinned_allocator,
    GST, CBF_PINNED_ALLOCATOR, GstAllocator)

/* A pinned allocator that allocates and frees in @context (made current
 * around each call, whichever thread calls), so that no other context (the
 * primary one of device 0, say) is created for it. Its memory is portable:
 * every context can copy from it. */
GstAllocator *gst_cbf_pinned_allocator_new (CbfContext * context);

/* Marks @memory (of a pinned allocator, in whose context the caller is)
 * as being written by the copies enqueued so far on @stream: mapping or
 * copying it, from any thread, waits for them, and so does freeing it.
 * FALSE, and nothing marked, for other memory or if the mark could not be
 * recorded (then the caller waits itself). */
gboolean gst_cbf_pinned_memory_write_pending (GstMemory * memory,
    cudaStream_t stream);

G_END_DECLS

#endif /* __GST_CBF_PINNED_ALLOCATOR_H__ */
