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

/* How a copier's threads write: through the caches (memcpy), or with
 * stores that bypass them (16 or 32 bytes each). Bypassing, a frame's copy
 * reads no destination line before writing it and leaves no dirty lines
 * for the copy engines to snoop: it moves fewer bytes through memory. */
typedef enum
{
  CBF_COPY_STORES_CACHED,
  CBF_COPY_STORES_STREAM_SSE2,
  CBF_COPY_STORES_STREAM_AVX2,
} CbfCopyStores;

/* The stores this processor has that copy fastest: AVX2 streaming stores,
 * else SSE2's (every x86-64 has them), else (other processors) memcpy. */
CbfCopyStores cbf_copy_stores_best (void);

/* Copies @n bytes from @src to @dst with @stores (at most
 * cbf_copy_stores_best ()), any alignment. Streaming stores are ordered
 * before the call returns. */
void cbf_copy_bytes (guint8 * dst, const guint8 * src, gsize n,
    CbfCopyStores stores);

/* Copies between pageable and pinned host memory on several threads: one
 * thread's memcpy moves far fewer bytes a second than the GPU's copy
 * engines take, so that a frame in pageable memory would otherwise wait
 * for the CPU. The helper threads are made once, by cbf_copier_new, and
 * sleep between jobs. Jobs from several threads may run at once: each
 * caller copies parts of its own job and the helpers take the parts no
 * one has taken yet, oldest job first, so that no caller ever waits for
 * another caller's job. */
typedef struct _CbfCopier CbfCopier;

/* Most threads a copier has, the caller's included: more cannot copy
 * faster (memory bandwidth bounds them long before) and each costs a
 * stack. */
#define CBF_COPIER_MAX_THREADS 64

/* A copier with @n_helpers threads besides the caller's (0: the caller
 * copies alone), at most CBF_COPIER_MAX_THREADS - 1; fewer if the system
 * cannot make them. Its threads write with cbf_copy_stores_best (). */
CbfCopier *cbf_copier_new (guint n_helpers);

/* Copies @copies, each cut into as many row ranges as the copier has
 * threads, and returns when all are done. */
void cbf_copier_run (CbfCopier * copier, const CbfCopy * copies,
    guint n_copies);

guint cbf_copier_threads (CbfCopier * copier);

void cbf_copier_free (CbfCopier * copier);

/* The threads (the caller's included) that the environment variable
 * GST_CBF_COPY_THREADS, whose value is @value, asks for: @default_threads
 * where it is unset (NULL); where it is not a whole number from 1 to
 * CBF_COPIER_MAX_THREADS, @default_threads or the bound, and in @warning
 * (to free; may be NULL) why. */
guint cbf_copier_threads_for (const gchar * value, guint default_threads,
    gchar ** warning);

/* The process's copier, shared by every element, made by the first call
 * with the threads GST_CBF_COPY_THREADS asks for (cbf_copier_threads_for,
 * @default_threads where unset), and a reference to it; @warning as for
 * cbf_copier_threads_for, set only by the call that makes it. Threads
 * woken per job then stay bounded however many elements copy. */
CbfCopier *cbf_copier_acquire_shared (guint default_threads,
    gchar ** warning);

/* Drops a reference cbf_copier_acquire_shared gave; the last one frees
 * the copier and ends its threads. */
void cbf_copier_release_shared (CbfCopier * copier);

G_END_DECLS

#endif /* __CBF_COPIER_H__ */
