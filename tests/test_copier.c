/* The copier of frames in pageable memory (gst/cbfcopier.c), without a GPU:
 * every copy, packed or strided, cut among one to eight threads, lands
 * byte for byte where memcpy would put it and nothing else is written;
 * small jobs are done by the caller alone; a thousand jobs in a row end,
 * each complete before the next (a lost wake-up would hang the test). */

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

static Suite *
copier_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cbf-copier", 300, &tc);

  tcase_add_test (tc, test_copies_exact);
  tcase_add_test (tc, test_many_jobs);
  tcase_add_test (tc, test_free_idle);
  return s;
}

TEST_MAIN (copier_suite, TEST_NEEDS_NOTHING, NULL);
