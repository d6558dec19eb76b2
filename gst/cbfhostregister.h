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

/* Page-locks (cudaHostRegister) the pageable memory @mem, mapped in @map,
 * the second time it is seen here: a memory that comes back has been
 * recycled by upstream's pool (or downstream's), and will likely come back
 * again, so that the GPU's copy engines can then reach it directly, where
 * every frame would otherwise be copied through staging memory. A memory
 * seen once is only marked (its qdata), so that memory that is never
 * recycled, fresh every frame, is never registered. The registration
 * lasts as long as the memory and is undone when it is freed, in @context
 * (held until then). Memory shared from a parent, memory the driver
 * refuses (already page-locked, read-only, device mappings) and memory
 * past CBF_MAX_REGISTERED_BYTES are left as they are. Returns whether
 * @mem is registered. */
gboolean cbf_host_register_recycled (CbfContext * context, GstMemory * mem,
    const GstMapInfo * map);

/* Bytes registered by cbf_host_register_recycled now, for tests. */
gsize cbf_host_registered_bytes (void);

G_END_DECLS

#endif /* __CBF_HOST_REGISTER_H__ */
