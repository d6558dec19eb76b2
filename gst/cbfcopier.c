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

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_STREAMING_STORES 1
#include <immintrin.h>
#endif

/* Jobs smaller than this are copied by the caller alone: waking the
 * helpers costs more than they would save. */
#define MIN_SHARED_BYTES (256 * 1024)

/* A job, on its caller's stack until its last part is done: each copy cut
 * into @parts row ranges, part i of every copy taken by one thread. */
typedef struct
{
  GList link;                   /* in the copier's queue while parts are left */
  const CbfCopy *copies;
  guint n_copies;
  guint parts;
  guint next;                   /* the first part no thread has taken */
  guint pending;                /* parts not finished */
  GCond done;                   /* pending reached 0 */
} Job;

struct _CbfCopier
{
  GMutex lock;
  GCond work;                   /* a job is posted, or quit */
  GThread **helpers;
  guint n_helpers;
  /* Under lock: the jobs with parts not taken yet, oldest first. */
  GQueue jobs;
  gboolean quit;
  CbfCopyStores stores;
};

#ifdef HAVE_STREAMING_STORES
/* Streaming stores want an aligned destination: the bytes before the first
 * @align-byte boundary of @dst, at most @n. */
static gsize
unaligned_head (const guint8 * dst, gsize n, gsize align)
{
  return MIN ((align - (guintptr) dst % align) % align, n);
}

static void
copy_stream_sse2 (guint8 * dst, const guint8 * src, gsize n)
{
  gsize i = unaligned_head (dst, n, 16);

  memcpy (dst, src, i);
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128 ((const __m128i *) (src + i));
    __m128i b = _mm_loadu_si128 ((const __m128i *) (src + i + 16));
    __m128i c = _mm_loadu_si128 ((const __m128i *) (src + i + 32));
    __m128i d = _mm_loadu_si128 ((const __m128i *) (src + i + 48));

    _mm_stream_si128 ((__m128i *) (dst + i), a);
    _mm_stream_si128 ((__m128i *) (dst + i + 16), b);
    _mm_stream_si128 ((__m128i *) (dst + i + 32), c);
    _mm_stream_si128 ((__m128i *) (dst + i + 48), d);
  }
  memcpy (dst + i, src + i, n - i);
}

/* Compiled for AVX2 whatever the build's target: called only where the
 * processor has it. */
static void copy_stream_avx2 (guint8 * dst, const guint8 * src, gsize n)
    __attribute__((target ("avx2")));

static void
copy_stream_avx2 (guint8 * dst, const guint8 * src, gsize n)
{
  gsize i = unaligned_head (dst, n, 32);

  memcpy (dst, src, i);
  for (; i + 128 <= n; i += 128) {
    __m256i a = _mm256_loadu_si256 ((const __m256i *) (src + i));
    __m256i b = _mm256_loadu_si256 ((const __m256i *) (src + i + 32));
    __m256i c = _mm256_loadu_si256 ((const __m256i *) (src + i + 64));
    __m256i d = _mm256_loadu_si256 ((const __m256i *) (src + i + 96));

    _mm256_stream_si256 ((__m256i *) (dst + i), a);
    _mm256_stream_si256 ((__m256i *) (dst + i + 32), b);
    _mm256_stream_si256 ((__m256i *) (dst + i + 64), c);
    _mm256_stream_si256 ((__m256i *) (dst + i + 96), d);
  }
  memcpy (dst + i, src + i, n - i);
}
#endif

CbfCopyStores
cbf_copy_stores_best (void)
{
#ifdef HAVE_STREAMING_STORES
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx2") ? CBF_COPY_STORES_STREAM_AVX2 :
      CBF_COPY_STORES_STREAM_SSE2;
#else
  return CBF_COPY_STORES_CACHED;
#endif
}

/* cbf_copy_bytes without the fence, for a run of rows. */
static void
copy_unfenced (guint8 * dst, const guint8 * src, gsize n, CbfCopyStores stores)
{
  switch (stores) {
#ifdef HAVE_STREAMING_STORES
    case CBF_COPY_STORES_STREAM_SSE2:
      copy_stream_sse2 (dst, src, n);
      return;
    case CBF_COPY_STORES_STREAM_AVX2:
      copy_stream_avx2 (dst, src, n);
      return;
#endif
    default:
      memcpy (dst, src, n);
      return;
  }
}

/* Orders streaming stores before whatever this thread does next: another
 * thread, told the copy is done, then sees every byte. */
static void
fence_stores (CbfCopyStores stores)
{
#ifdef HAVE_STREAMING_STORES
  if (stores != CBF_COPY_STORES_CACHED)
    _mm_sfence ();
#endif
}

void
cbf_copy_bytes (guint8 * dst, const guint8 * src, gsize n, CbfCopyStores stores)
{
  copy_unfenced (dst, src, n, stores);
  fence_stores (stores);
}

/* Part @part of @parts of @copy's rows, in one run where both sides are
 * packed. */
static void
copy_part (const CbfCopy * copy, guint part, guint parts, CbfCopyStores stores)
{
  gint begin = (gint) ((gint64) copy->rows * part / parts);
  gint end = (gint) ((gint64) copy->rows * (part + 1) / parts);
  guint8 *dst = copy->dst + begin * copy->dst_stride;
  const guint8 *src = copy->src + begin * copy->src_stride;
  gint y;

  if (begin >= end)
    return;
  if (copy->dst_stride == copy->row_bytes
      && copy->src_stride == copy->row_bytes)
    copy_unfenced (dst, src, (gsize) (end - begin) * copy->row_bytes, stores);
  else
    for (y = begin; y < end; y++, dst += copy->dst_stride,
        src += copy->src_stride)
      copy_unfenced (dst, src, copy->row_bytes, stores);
  fence_stores (stores);
}

/* Takes @job's next part, under the copier's lock; the job leaves the
 * queue with its last part. */
static guint
take_part (CbfCopier * copier, Job * job)
{
  guint part = job->next++;

  if (job->next == job->parts)
    g_queue_unlink (&copier->jobs, &job->link);
  return part;
}

/* Copies part @part of @job, with the copier's lock released meanwhile,
 * and counts it done. */
static void
run_part (CbfCopier * copier, Job * job, guint part)
{
  guint i;

  g_mutex_unlock (&copier->lock);
  for (i = 0; i < job->n_copies; i++)
    copy_part (&job->copies[i], part, job->parts, copier->stores);
  g_mutex_lock (&copier->lock);
  /* The caller may return as soon as it sees 0: the job is not touched
   * after this. */
  if (--job->pending == 0)
    g_cond_signal (&job->done);
}

static gpointer
helper_main (gpointer data)
{
  CbfCopier *copier = data;

  g_mutex_lock (&copier->lock);
  for (;;) {
    Job *job;

    while (g_queue_is_empty (&copier->jobs) && !copier->quit)
      g_cond_wait (&copier->work, &copier->lock);
    if (copier->quit)
      break;
    job = g_queue_peek_head (&copier->jobs);
    run_part (copier, job, take_part (copier, job));
  }
  g_mutex_unlock (&copier->lock);
  return NULL;
}

CbfCopier *
cbf_copier_new (guint n_helpers)
{
  CbfCopier *copier = g_new0 (CbfCopier, 1);
  guint i;

  n_helpers = MIN (n_helpers, CBF_COPIER_MAX_THREADS - 1);
  g_mutex_init (&copier->lock);
  g_cond_init (&copier->work);
  g_queue_init (&copier->jobs);
  copier->stores = cbf_copy_stores_best ();
  copier->helpers = g_new0 (GThread *, MAX (n_helpers, 1));
  for (i = 0; i < n_helpers; i++) {
    GThread *thread = g_thread_try_new ("cbf-copy", helper_main, copier,
        NULL);

    if (!thread)
      break;
    copier->helpers[copier->n_helpers++] = thread;
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
  Job job;
  gsize bytes = 0;
  guint i;

  for (i = 0; i < n_copies; i++)
    bytes += copies[i].row_bytes * (gsize) MAX (copies[i].rows, 0);
  if (copier->n_helpers == 0 || bytes < MIN_SHARED_BYTES) {
    for (i = 0; i < n_copies; i++)
      copy_part (&copies[i], 0, 1, copier->stores);
    return;
  }

  memset (&job, 0, sizeof (job));
  job.link.data = &job;
  job.copies = copies;
  job.n_copies = n_copies;
  job.parts = job.pending = copier->n_helpers + 1;
  g_cond_init (&job.done);
  g_mutex_lock (&copier->lock);
  g_queue_push_tail_link (&copier->jobs, &job.link);
  g_cond_broadcast (&copier->work);
  /* The caller copies its own job's parts too, as many as the helpers,
   * busy with other callers' jobs, leave it. */
  while (job.next < job.parts)
    run_part (copier, &job, take_part (copier, &job));
  while (job.pending > 0)
    g_cond_wait (&job.done, &copier->lock);
  g_mutex_unlock (&copier->lock);
  g_cond_clear (&job.done);
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
    g_thread_join (copier->helpers[i]);
  g_free (copier->helpers);
  g_mutex_clear (&copier->lock);
  g_cond_clear (&copier->work);
  g_free (copier);
}

guint
cbf_copier_threads_for (const gchar * value, guint default_threads,
    gchar ** warning)
{
  gchar *end = NULL;
  gint64 n;

  default_threads = CLAMP (default_threads, 1, CBF_COPIER_MAX_THREADS);
  if (warning)
    *warning = NULL;
  if (!value)
    return default_threads;

  n = g_ascii_strtoll (value, &end, 10);
  if (end == value || *end != '\0' || n < 1) {
    if (warning)
      *warning = g_strdup_printf ("GST_CBF_COPY_THREADS=\"%s\" is not a "
          "number of threads from 1 to %d: copying with %u, the default",
          value, CBF_COPIER_MAX_THREADS, default_threads);
    return default_threads;
  }
  if (n > CBF_COPIER_MAX_THREADS) {
    if (warning)
      *warning = g_strdup_printf ("GST_CBF_COPY_THREADS=%s is more threads "
          "than a copier may have: copying with %d", value,
          CBF_COPIER_MAX_THREADS);
    return CBF_COPIER_MAX_THREADS;
  }
  return (guint) n;
}

/* The shared copier and its references. */
G_LOCK_DEFINE_STATIC (shared);
static CbfCopier *shared_copier;
static guint shared_refs;

CbfCopier *
cbf_copier_acquire_shared (guint default_threads, gchar ** warning)
{
  CbfCopier *copier;

  if (warning)
    *warning = NULL;
  G_LOCK (shared);
  if (!shared_copier)
    shared_copier =
        cbf_copier_new (cbf_copier_threads_for (g_getenv
            ("GST_CBF_COPY_THREADS"), default_threads, warning) - 1);
  shared_refs++;
  copier = shared_copier;
  G_UNLOCK (shared);
  return copier;
}

void
cbf_copier_release_shared (CbfCopier * copier)
{
  CbfCopier *last = NULL;

  if (!copier)
    return;
  G_LOCK (shared);
  if (copier != shared_copier || shared_refs == 0) {
    G_UNLOCK (shared);
    g_critical ("%p is not the shared copier", copier);
    return;
  }
  if (--shared_refs == 0) {
    last = shared_copier;
    shared_copier = NULL;
  }
  G_UNLOCK (shared);
  /* Its threads end outside the lock: a copier made meanwhile does not
   * wait for them. */
  cbf_copier_free (last);
}
