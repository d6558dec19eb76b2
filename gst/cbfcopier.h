/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef __CBF_COPIER_H__
#define __CBF_COPIER_H__

#include <glib.h>

G_BEGIN_DECLS

/* @rows rows of @row_bytes bytes from @src to @dst. */
typedef struct
{
  guint8 *dst;
  gsize dst_stride;
  const guint8 *src;
  gsize src_stride;
  gsize row_bytes;
  gint rows;
} CbfCopy;

static inline CbfCopy
cbf_copy_rows (guint8 * dst, gsize dst_stride, const guint8 * src,
    gsize src_stride, gsize row_bytes, gint rows)
{
  CbfCopy copy = { dst, dst_stride, src, src_stride, row_bytes, rows };
  return copy;
}

/* Copies between pageable and pinned host memory on several threads: one
 * thread's memcpy moves far fewer bytes a second than the GPU's copy
 * engines take, so that a frame in pageable memory would otherwise wait
 * for the CPU. The helper threads are made once, by cbf_copier_new, and
 * sleep between jobs. */
typedef struct _CbfCopier CbfCopier;

/* A copier with @n_helpers threads besides the caller's (0: the caller
 * copies alone); fewer if the system cannot make them. */
CbfCopier *cbf_copier_new (guint n_helpers);

/* Copies @copies, each cut into as many row ranges as there are threads,
 * and returns when all are done. One job at a time: the caller's. */
void cbf_copier_run (CbfCopier * copier, const CbfCopy * copies,
    guint n_copies);

guint cbf_copier_threads (CbfCopier * copier);

void cbf_copier_free (CbfCopier * copier);

G_END_DECLS

#endif /* __CBF_COPIER_H__ */
