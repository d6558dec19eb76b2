/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#include "cbfcopier.h"

#include <string.h>

/* Jobs smaller than this are copied by the caller alone: waking the
 * helpers costs more than they would save. */
#define MIN_SHARED_BYTES (256 * 1024)

typedef struct
{
  CbfCopier *copier;
  guint index;                  /* its part of each copy; the caller's is 0 */
  GThread *thread;
} Helper;

struct _CbfCopier
{
  GMutex lock;
  GCond work;                   /* a job is posted, or quit */
  GCond done;                   /* the last helper finished its part */
  Helper *helpers;
  guint n_helpers;
  /* The job, under lock: its number, its copies, the helpers still at it. */
  guint64 job;
  const CbfCopy *copies;
  guint n_copies;
  guint pending;
  gboolean quit;
};

/* Part @part of @parts of @copy's rows; one memcpy where both sides are
 * packed, so that large copies take the C library's streaming stores. */
static void
copy_part (const CbfCopy * copy, guint part, guint parts)
{
  gint begin = (gint) ((gint64) copy->rows * part / parts);
  gint end = (gint) ((gint64) copy->rows * (part + 1) / parts);
  guint8 *dst = copy->dst + begin * copy->dst_stride;
  const guint8 *src = copy->src + begin * copy->src_stride;
  gint y;

  if (begin >= end)
    return;
  if (copy->dst_stride == copy->row_bytes
      && copy->src_stride == copy->row_bytes) {
    memcpy (dst, src, (gsize) (end - begin) * copy->row_bytes);
    return;
  }
  for (y = begin; y < end; y++, dst += copy->dst_stride,
      src += copy->src_stride)
    memcpy (dst, src, copy->row_bytes);
}

static gpointer
helper_main (gpointer data)
{
  Helper *helper = data;
  CbfCopier *copier = helper->copier;
  guint64 seen = 0;

  g_mutex_lock (&copier->lock);
  for (;;) {
    const CbfCopy *copies;
    guint n, i;

    while (copier->job == seen && !copier->quit)
      g_cond_wait (&copier->work, &copier->lock);
    if (copier->quit)
      break;
    seen = copier->job;
    copies = copier->copies;
    n = copier->n_copies;
    g_mutex_unlock (&copier->lock);

    for (i = 0; i < n; i++)
      copy_part (&copies[i], helper->index, copier->n_helpers + 1);

    g_mutex_lock (&copier->lock);
    if (--copier->pending == 0)
      g_cond_signal (&copier->done);
  }
  g_mutex_unlock (&copier->lock);
  return NULL;
}

CbfCopier *
cbf_copier_new (guint n_helpers)
{
  CbfCopier *copier = g_new0 (CbfCopier, 1);
  guint i;

  g_mutex_init (&copier->lock);
  g_cond_init (&copier->work);
  g_cond_init (&copier->done);
  copier->helpers = g_new0 (Helper, MAX (n_helpers, 1));
  for (i = 0; i < n_helpers; i++) {
    Helper *helper = &copier->helpers[copier->n_helpers];

    helper->copier = copier;
    helper->index = copier->n_helpers + 1;
    helper->thread = g_thread_try_new ("cbf-copy", helper_main, helper, NULL);
    if (!helper->thread)
      break;
    copier->n_helpers++;
  }
  return copier;
}

guint
cbf_copier_threads (CbfCopier * copier)
{
  return copier->n_helpers + 1;
}

void
cbf_copier_run (CbfCopier * copier, const CbfCopy * copies, guint n_copies)
{
  gsize bytes = 0;
  guint i;

  for (i = 0; i < n_copies; i++)
    bytes += copies[i].row_bytes * (gsize) MAX (copies[i].rows, 0);
  if (copier->n_helpers == 0 || bytes < MIN_SHARED_BYTES) {
    for (i = 0; i < n_copies; i++)
      copy_part (&copies[i], 0, 1);
    return;
  }

  g_mutex_lock (&copier->lock);
  copier->copies = copies;
  copier->n_copies = n_copies;
  copier->pending = copier->n_helpers;
  copier->job++;
  g_cond_broadcast (&copier->work);
  g_mutex_unlock (&copier->lock);

  for (i = 0; i < n_copies; i++)
    copy_part (&copies[i], 0, copier->n_helpers + 1);

  g_mutex_lock (&copier->lock);
  while (copier->pending > 0)
    g_cond_wait (&copier->done, &copier->lock);
  g_mutex_unlock (&copier->lock);
}

void
cbf_copier_free (CbfCopier * copier)
{
  guint i;

  if (!copier)
    return;
  g_mutex_lock (&copier->lock);
  copier->quit = TRUE;
  g_cond_broadcast (&copier->work);
  g_mutex_unlock (&copier->lock);
  for (i = 0; i < copier->n_helpers; i++)
    g_thread_join (copier->helpers[i].thread);
  g_free (copier->helpers);
  g_mutex_clear (&copier->lock);
  g_cond_clear (&copier->work);
  g_cond_clear (&copier->done);
  g_free (copier);
}
