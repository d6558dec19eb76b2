/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef __CBF_HOST_REGISTER_H__
#define __CBF_HOST_REGISTER_H__

#include <gst/gst.h>

#include "cbfcontext.h"

G_BEGIN_DECLS

/* Most bytes of other elements' memory registered at once, process-wide:
 * registered memory is page-locked, taken from what the system can page. */
#define CBF_MAX_REGISTERED_BYTES ((gsize) 1 << 30)

/* Whether @mem may be page-locked: whether the address it is mapped at
 * stays its own for as long as it lives, since the driver knows a
 * registration by its address while the element keeps it on the memory.
 * System memory (GstAllocatorSysmem's: gst_allocator_alloc's default and
 * gst_memory_new_wrapped) is mapped where it was allocated; fd memory
 * flagged GST_FD_MEMORY_FLAG_KEEP_MAPPED is mapped once for good. Not
 * other fd or dma-buf memory, which is mapped anew at each map, so that
 * two such memories mapped in turn take each other's address; not memory
 * shared from a parent (a sub-buffer's), whose pages another memory
 * holds; not any other allocator's, whose mapping is unknown. Needs no
 * GPU. */
gboolean cbf_host_register_eligible (GstMemory * mem);

/* Page-locks (cudaHostRegister) the pageable memory @mem, mapped in @map,
 * the second time it is seen here: a memory that comes back has been
 * recycled by upstream's pool (or downstream's), and will likely come back
 * again, so that the GPU's copy engines can then reach it directly, where
 * every frame would otherwise be copied through staging memory. A memory
 * seen once is only marked (its qdata), so that memory that is never
 * recycled, fresh every frame, is never registered. The registration
 * records the address and size it covers and lasts as long as the memory;
 * it is undone when the memory is freed, in @context (held until then).
 * Memory that is not eligible (cbf_host_register_eligible) is left alone,
 * before any call to the driver; memory the driver refuses (already
 * page-locked, read-only, device mappings, inside another registration)
 * and memory past CBF_MAX_REGISTERED_BYTES are left as they are. A
 * registered memory found mapped elsewhere than its registration is
 * unregistered and never registered again. Returns whether @map lies in
 * @mem's registration. */
gboolean cbf_host_register_recycled (CbfContext * context, GstMemory * mem,
    const GstMapInfo * map);

/* Whether [@data, @data + @size) lies inside the registration made on
 * @mem itself by cbf_host_register_recycled: what may be copied by DMA
 * from a frame's plane mapped from @mem at @data. A registration of
 * another memory that covers the same addresses does not count: it is
 * undone when that memory is freed, and it holds that memory's pages,
 * not necessarily those mapped at @data now. */
gboolean cbf_host_register_covers (GstMemory * mem, const void *data,
    gsize size);

/* Bytes registered by cbf_host_register_recycled now, for tests. */
gsize cbf_host_registered_bytes (void);

G_END_DECLS

#endif /* __CBF_HOST_REGISTER_H__ */
