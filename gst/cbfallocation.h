/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter's allocation: the pinned and CUDA pools it proposes and
 * decides, in its device's context. */

#ifndef __CBF_ALLOCATION_H__
#define __CBF_ALLOCATION_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

#include "cbfdevice.h"

G_BEGIN_DECLS

/* The base class's debug category, "cbffilter" (gstcbffilter.c), which
 * the allocation logs to. */
GST_DEBUG_CATEGORY_EXTERN (gst_cbf_filter_debug);

/* Whether @caps (their first structure) have the memory:CUDAMemory
 * feature: frames in CUDA memory. Never, built without GStreamer's CUDA
 * library. */
gboolean cbf_caps_are_cuda_memory (GstCaps * caps);

/* GstBaseTransform's decide_allocation of the element's parent class,
 * which a decision ends with. */
typedef gboolean (*CbfDecideAllocation) (GstBaseTransform * trans,
    GstQuery * query);

/* Offer upstream a pool of pinned buffers (at most MAX_PINNED_POOL_BUFFERS),
 * so that its frames reach the GPU by DMA without a staging copy; for
 * frames in CUDA memory, a CUDA pool of @dev's context. */
gboolean cbf_propose_allocation (CbfDevice * dev, GstQuery * query);

/* Output into pinned memory unless downstream asks for memory or a pool of
 * its own (then the download is staged); frames in CUDA memory
 * (@cuda_memory) into a CUDA pool of @dev's context. Ends with
 * @parent_decide. */
gboolean cbf_decide_allocation (GstBaseTransform * trans, CbfDevice * dev,
    gboolean cuda_memory, GstQuery * query,
    CbfDecideAllocation parent_decide);

G_END_DECLS

#endif /* __CBF_ALLOCATION_H__ */
