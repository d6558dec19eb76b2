/* The copier of frames in pageable memory (gst/cbfcopier.c), without a GPU:
 * every copy, packed or strided, cut among one to eight threads, lands
 * byte for byte where memcpy would put it and nothing else is written,
 * with every kind of store the processor has, at any alignment;
 * small jobs are done by the caller alone; a thousand jobs in a row end,
 * each complete before the next (a lost wake-up would hang the test); the
 * process's shared copier takes jobs from several threads at once, each
 * complete when its call returns; GST_CBF_COPY_THREADS is bounded. */

#include <gst/check/gstcheck.h>
#include <string.h>

#include "cbfcopier.h"
#include "gpu_support.h"

/* A plane of @rows rows of @row_bytes bytes, @stride apart, in a buffer
 * with @stride bytes of guard before and after. */
typedef struct
{
  guint8 *buffer;
  guint8 *data;
  gsize stride, row_bytes;
  gint rows;
} Plane;

static Plane
plane_new (gsize row_bytes, gsize stride, gint rows, guint8 fill)
{
  Plane p = { NULL, NULL, stride, row_bytes, rows };
  gsize size = stride * (gsize) (rows + 2);

  p.buffer = g_malloc (size);
  memset (p.buffer, fill, size);
  p.data = p.buffer + stride;
  return p;
}

static void
plane_noise (Plane * p, GRand * rand)
{
  gint y;
  gsize x;

  for (y = 0; y < p->rows; y++)
    for (x = 0; x < p->row_bytes; x++)
      p->data[y * p->stride + x] = g_rand_int_range (rand, 0, 256);
}

/* @dst holds @src's rows, and its guard and padding bytes still @fill. */
static void
check_plane (const Plane * dst, const Plane * src, guint8 fill,
    const gchar * what)
{
  gsize size = dst->stride * (gsize) (dst->rows + 2), i;
  guint8 want = 0;

  /* one assertion at the end: check marks every assertion it passes */
  for (i = 0; i < size; i++) {
    gsize off = i - dst->stride;
    gboolean inside = i >= dst->stride && i < size - dst->stride
        && off % dst->stride < dst->row_bytes;

    want = inside ? src->data[off / dst->stride * src->stride +
        off % dst->stride] : fill;
    if (dst->buffer[i] != want)
      break;
  }
  fail_unless (i == size, "%s: byte %" G_GSIZE_FORMAT " is %u, expected %u",
      what, i, i < size ? dst->buffer[i] : 0, want);
}

static void
plane_free (Plane * p)
{
  g_free (p->buffer);
}

/* Two planes a job (a frame's luma and chroma, say), packed and strided
 * either side, among 1 to 8 threads. */
GST_START_TEST (test_copies_exact)
{
  static const gint rows[] = { 0, 1, 7, 64, 301 };
  static const gsize widths[] = { 1, 33, 4096, 7680 };
  GRand *rand = g_rand_new_with_seed (7);
  guint helpers;

  for (helpers = 0; helpers < 8; helpers++) {
    CbfCopier *copier = cbf_copier_new (helpers);
    guint r, w;

    fail_unless_equals_int (cbf_copier_threads (copier), helpers + 1);
    for (r = 0; r < G_N_ELEMENTS (rows); r++) {
      for (w = 0; w < G_N_ELEMENTS (widths); w++) {
        gsize row_bytes = widths[w];
        Plane src[2], dst[2];
        CbfCopy copies[2];
        gchar *what;
        guint k;

        for (k = 0; k < 2; k++) {
          /* plane 0 packed to strided, plane 1 strided to packed */
          src[k] = plane_new (row_bytes, row_bytes + (k ? 64 : 0), rows[r],
              0x11);
          dst[k] = plane_new (row_bytes, row_bytes + (k ? 0 : 48), rows[r],
              0xa5);
          plane_noise (&src[k], rand);
          copies[k] = cbf_copy_rows (dst[k].data, dst[k].stride, src[k].data,
              src[k].stride, row_bytes, rows[r]);
        }
        cbf_copier_run (copier, copies, 2);
        what = g_strdup_printf ("%u threads, %d rows of %" G_GSIZE_FORMAT
            " bytes", helpers + 1, rows[r], row_bytes);
        for (k = 0; k < 2; k++) {
          check_plane (&dst[k], &src[k], 0xa5, what);
          plane_free (&src[k]);
          plane_free (&dst[k]);
        }
        g_free (what);
      }
    }
    cbf_copier_free (copier);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Every kind of store this processor has copies any length between any
 * alignments exactly, and writes nothing past either end: the streaming
 * stores' aligned middle, the bytes before and after it. */
GST_START_TEST (test_stores_exact)
{
  static const gsize lengths[] = { 0, 1, 15, 16, 31, 32, 33, 63, 64, 65,
    127, 128, 129, 255, 1000, 4099, 65536 + 17
  };
  const gsize guard = 64, max_offset = 33;
  const gsize size = guard * 2 + max_offset + lengths[G_N_ELEMENTS (lengths)
      - 1];
  guint8 *src = g_malloc (size), *dst = g_malloc (size);
  CbfCopyStores best = cbf_copy_stores_best (), stores;
  GRand *rand = g_rand_new_with_seed (3);
  gsize i, l, s_off, d_off, bad = 0;

  for (i = 0; i < size; i++)
    src[i] = g_rand_int_range (rand, 0, 256);
  for (stores = CBF_COPY_STORES_CACHED; stores <= best; stores++)
    for (l = 0; l < G_N_ELEMENTS (lengths); l++)
      for (d_off = 0; d_off <= max_offset; d_off += 11)
        for (s_off = 0; s_off <= max_offset; s_off += 3) {
          guint8 *d = dst + guard + d_off;
          const guint8 *s = src + guard + s_off;

          memset (dst, 0xa5, size);
          cbf_copy_bytes (d, s, lengths[l], stores);
          for (i = 0; i < size && !bad; i++) {
            gboolean inside = dst + i >= d && dst + i < d + lengths[l];

            if (dst[i] != (inside ? s[dst + i - d] : 0xa5))
              bad = i + 1;
          }
          fail_unless (bad == 0, "stores %d, %" G_GSIZE_FORMAT " bytes, "
              "offsets %" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT ": byte %"
              G_GSIZE_FORMAT " wrong", stores, lengths[l], d_off, s_off,
              bad - 1);
        }
  g_rand_free (rand);
  g_free (src);
  g_free (dst);
}

GST_END_TEST;

/* A thousand jobs in a row on four threads, each checked before the next
 * is posted: none is lost or left half done. */
GST_START_TEST (test_many_jobs)
{
  const gsize row_bytes = 4096;
  const gint n_rows = 128;      /* 512 KiB: shared among the threads */
  CbfCopier *copier = cbf_copier_new (3);
  GRand *rand = g_rand_new_with_seed (11);
  Plane src = plane_new (row_bytes, row_bytes, n_rows, 0);
  Plane dst = plane_new (row_bytes, row_bytes, n_rows, 0);
  gint job;

  for (job = 0; job < 1000; job++) {
    CbfCopy copy = cbf_copy_rows (dst.data, dst.stride, src.data, src.stride,
        row_bytes, n_rows);
    gint probe = g_rand_int_range (rand, 0, n_rows);

    /* a different byte each job, in a row any thread may copy */
    src.data[probe * src.stride + job % row_bytes] = (guint8) job;
    cbf_copier_run (copier, &copy, 1);
    fail_unless (memcmp (dst.data, src.data, row_bytes * n_rows) == 0,
        "job %d: the copy differs", job);
  }
  plane_free (&src);
  plane_free (&dst);
  g_rand_free (rand);
  cbf_copier_free (copier);
}

GST_END_TEST;

/* Freed straight after it is made, and with no job run: its threads end. */
GST_START_TEST (test_free_idle)
{
  cbf_copier_free (cbf_copier_new (5));
  cbf_copier_free (cbf_copier_new (0));
  cbf_copier_free (NULL);
}

GST_END_TEST;

/* One of the threads that share the copier: @n_jobs jobs of its own
 * geometry, each checked when its call returns. */
typedef struct
{
  CbfCopier *copier;
  guint index;
  guint n_jobs;
  guint bad_job;                /* 0, or the first job that differed + 1 */
} Sharer;

static gpointer
share_jobs (gpointer data)
{
  Sharer *sharer = data;
  GRand *rand = g_rand_new_with_seed (100 + sharer->index);
  /* two planes, 300 KiB to 1 MiB a job, so that the helpers share them */
  gsize row_bytes = 2048 + 512 * sharer->index;
  gint rows = 160 + 32 * (gint) sharer->index;
  Plane src[2], dst[2];
  guint job, k;

  for (k = 0; k < 2; k++) {
    src[k] = plane_new (row_bytes, row_bytes + (k ? 64 : 0), rows, 0);
    dst[k] = plane_new (row_bytes, row_bytes + (k ? 0 : 96), rows, 0);
  }
  for (job = 0; job < sharer->n_jobs && !sharer->bad_job; job++) {
    CbfCopy copies[2];

    for (k = 0; k < 2; k++) {
      gint y;

      /* rows new each job, a few bytes anywhere too: a part copied late,
       * twice or not at all shows */
      for (y = 0; y < rows; y++)
        memset (src[k].data + y * src[k].stride, (job * 7 + y + k) & 0xff,
            row_bytes);
      for (y = 0; y < 16; y++)
        src[k].data[g_rand_int_range (rand, 0, rows) * src[k].stride +
            g_rand_int_range (rand, 0, row_bytes)] = g_rand_int (rand);
      copies[k] = cbf_copy_rows (dst[k].data, dst[k].stride, src[k].data,
          src[k].stride, row_bytes, rows);
    }
    cbf_copier_run (sharer->copier, copies, 2);
    for (k = 0; k < 2; k++) {
      gint y;

      for (y = 0; y < rows; y++)
        if (memcmp (dst[k].data + y * dst[k].stride,
                src[k].data + y * src[k].stride, row_bytes) != 0)
          sharer->bad_job = job + 1;
    }
  }
  for (k = 0; k < 2; k++) {
    plane_free (&src[k]);
    plane_free (&dst[k]);
  }
  g_rand_free (rand);
  return NULL;
}

/* Four threads (four elements' streaming threads) post jobs to the shared
 * copier at once, new content every job: each job is complete and right
 * when its call returns, and no call waits for ever. */
GST_START_TEST (test_shared_concurrent_jobs)
{
  Sharer sharers[4];
  GThread *threads[G_N_ELEMENTS (sharers)];
  CbfCopier *copier;
  gchar *warning = NULL;
  guint i;

  g_unsetenv ("GST_CBF_COPY_THREADS");
  copier = cbf_copier_acquire_shared (4, &warning);
  fail_unless (warning == NULL);
  fail_unless_equals_int (cbf_copier_threads (copier), 4);
  for (i = 0; i < G_N_ELEMENTS (sharers); i++) {
    sharers[i].copier = cbf_copier_acquire_shared (4, NULL);
    fail_unless (sharers[i].copier == copier, "a second shared copier");
    sharers[i].index = i;
    sharers[i].n_jobs = 40;
    sharers[i].bad_job = 0;
    threads[i] = g_thread_new ("sharer", share_jobs, &sharers[i]);
  }
  for (i = 0; i < G_N_ELEMENTS (sharers); i++) {
    g_thread_join (threads[i]);
    fail_unless_equals_int (sharers[i].bad_job, 0);
    cbf_copier_release_shared (sharers[i].copier);
  }
  cbf_copier_release_shared (copier);
}

GST_END_TEST;

/* GST_CBF_COPY_THREADS outside 1 to CBF_COPIER_MAX_THREADS: the default
 * or the bound, and a warning; -1 once asked g_new0 for 4,294,967,294
 * threads and aborted. */
GST_START_TEST (test_env_bounded)
{
  static const struct
  {
    const gchar *value;
    guint threads;
    gboolean warned;
  } cases[] = {
    {NULL, 3, FALSE},
    {"1", 1, FALSE},
    {"7", 7, FALSE},
    {"64", 64, FALSE},
    {"65", 64, TRUE},
    {"100000", 64, TRUE},
    {"99999999999999999999999", 64, TRUE},
    {"-1", 3, TRUE},
    {"0", 3, TRUE},
    {"", 3, TRUE},
    {"four", 3, TRUE},
    {"4 threads", 3, TRUE},
  };
  guint i;

  fail_unless_equals_int (CBF_COPIER_MAX_THREADS, 64);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *warning = NULL;
    CbfCopier *copier;

    fail_unless_equals_int (cbf_copier_threads_for (cases[i].value, 3,
            &warning), cases[i].threads);
    fail_unless ((warning != NULL) == cases[i].warned, "\"%s\": warning %s",
        GST_STR_NULL (cases[i].value), GST_STR_NULL (warning));
    g_free (warning);

    /* the shared copier, made with the variable set so */
    if (cases[i].value)
      g_setenv ("GST_CBF_COPY_THREADS", cases[i].value, TRUE);
    else
      g_unsetenv ("GST_CBF_COPY_THREADS");
    copier = cbf_copier_acquire_shared (3, &warning);
    fail_unless_equals_int (cbf_copier_threads (copier), cases[i].threads);
    fail_unless ((warning != NULL) == cases[i].warned);
    if (warning)
      GST_INFO ("%s", warning);
    g_free (warning);
    /* only the call that makes it warns */
    fail_unless (cbf_copier_acquire_shared (3, &warning) == copier);
    fail_unless (warning == NULL);
    cbf_copier_release_shared (copier);
    cbf_copier_release_shared (copier);
  }
  g_unsetenv ("GST_CBF_COPY_THREADS");

  /* a default out of bounds, and a private copier asked for too many */
  fail_unless_equals_int (cbf_copier_threads_for (NULL, 0, NULL), 1);
  fail_unless_equals_int (cbf_copier_threads_for (NULL, 1000, NULL), 64);
  {
    CbfCopier *copier = cbf_copier_new (100000);

    fail_unless_equals_int (cbf_copier_threads (copier), 64);
    cbf_copier_free (copier);
  }
}

GST_END_TEST;

static Suite *
copier_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cbf-copier", 300, &tc);

  tcase_add_test (tc, test_copies_exact);
  tcase_add_test (tc, test_stores_exact);
  tcase_add_test (tc, test_many_jobs);
  tcase_add_test (tc, test_free_idle);
  tcase_add_test (tc, test_shared_concurrent_jobs);
  tcase_add_test (tc, test_env_bounded);
  return s;
}

TEST_MAIN (copier_suite, TEST_NEEDS_NOTHING, NULL);
