/* Which memory the element may page-lock (gst/cbfhostregister.c), without a
 * GPU. The driver knows a registration by its address, the element keeps
 * it on the memory: only memory whose address stays its own qualifies.
 * memfd-backed GstFdMemory without GST_FD_MEMORY_FLAG_KEEP_MAPPED is mapped
 * anew at each map, and two such memories mapped in turn take the same
 * address (shown here); such memory, dma-buf memory and sub-memories are
 * never registered, however often they come back, and nothing is asked of
 * the driver for them. System memory and keep-mapped fd memory qualify. */

#define _GNU_SOURCE

#include <gst/check/gstcheck.h>
#include <gst/allocators/allocators.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cbfhostregister.h"
#include "gpu_support.h"

/* A GstFdMemory of @size bytes on a new memfd, of @allocator (an fd or a
 * dma-buf allocator), which closes the fd when it is freed. */
static GstMemory *
memfd_memory (GstAllocator * allocator, gsize size, GstFdMemoryFlags flags)
{
  gint fd = memfd_create ("cbf-test", MFD_CLOEXEC);
  GstMemory *mem;

  fail_unless (fd >= 0, "memfd_create: %s", g_strerror (errno));
  fail_unless (ftruncate (fd, size) == 0);
  if (GST_IS_DMABUF_ALLOCATOR (allocator))
    mem = gst_dmabuf_allocator_alloc_with_flags (allocator, fd, size, flags);
  else
    mem = gst_fd_allocator_alloc (allocator, fd, size, flags);
  fail_unless (mem != NULL);
  return mem;
}

/* Maps @mem for @flags, writes @fill to its first byte when writing, and
 * returns where it was mapped, unmapped again. */
static guint8 *
map_once (GstMemory * mem, GstMapFlags flags, guint8 fill, guint8 * first)
{
  GstMapInfo map;
  guint8 *data;

  fail_unless (gst_memory_map (mem, &map, flags));
  if (flags & GST_MAP_WRITE)
    map.data[0] = fill;
  if (first)
    *first = map.data[0];
  data = map.data;
  gst_memory_unmap (mem, &map);
  return data;
}

/* Two fd memories without KEEP_MAPPED, mapped in turn (an upstream pool of
 * two, upstream writing, the element reading): each map lands where the
 * other's last one was, on different pages. What the driver holds
 * page-locked at that address is the first memory's pages. */
GST_START_TEST (test_fd_memories_share_an_address)
{
  GstAllocator *allocator = gst_fd_allocator_new ();
  const gsize size = 320 * 240 * 4;
  GstMemory *x = memfd_memory (allocator, size, GST_FD_MEMORY_FLAG_NONE);
  GstMemory *y = memfd_memory (allocator, size, GST_FD_MEMORY_FLAG_NONE);
  guint8 *at[6], held[6];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (at); i += 2) {
    map_once (x, GST_MAP_WRITE, 'x' + i, NULL);
    at[i] = map_once (x, GST_MAP_READ, 0, &held[i]);
    map_once (y, GST_MAP_WRITE, 'y' + i, NULL);
    at[i + 1] = map_once (y, GST_MAP_READ, 0, &held[i + 1]);
  }
  for (i = 0; i < G_N_ELEMENTS (at); i++) {
    GST_INFO ("map %u of %c at %p holds %c", i / 2 + 1, i % 2 ? 'y' : 'x',
        at[i], held[i]);
    fail_unless (at[i] == at[0], "map %u at %p, the first at %p", i, at[i],
        at[0]);
    {
      /* (Computed first: a '%' in the macro's argument would become part
       * of its message's format.) */
      gint expected = (i % 2 ? 'y' : 'x') + i / 2 * 2;

      fail_unless_equals_int (held[i], expected);
    }
  }
  gst_memory_unref (x);
  gst_memory_unref (y);
  gst_object_unref (allocator);
}

GST_END_TEST;

/* Keep-mapped fd memories stay where they were first mapped, each at its
 * own address, whatever is mapped meanwhile. */
GST_START_TEST (test_keep_mapped_stays)
{
  GstAllocator *allocator = gst_fd_allocator_new ();
  const gsize size = 64 * 1024;
  GstMemory *x = memfd_memory (allocator, size,
      GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  GstMemory *y = memfd_memory (allocator, size,
      GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  guint8 *x_at = map_once (x, GST_MAP_READWRITE, 'x', NULL);
  guint8 *y_at = map_once (y, GST_MAP_READWRITE, 'y', NULL);
  guint i;

  fail_if (x_at == y_at);
  for (i = 0; i < 4; i++) {
    fail_unless (map_once (x, GST_MAP_READ, 0, NULL) == x_at);
    fail_unless (map_once (y, GST_MAP_WRITE, 'y', NULL) == y_at);
  }
  gst_memory_unref (x);
  gst_memory_unref (y);
  gst_object_unref (allocator);
}

GST_END_TEST;

GST_START_TEST (test_eligible)
{
  GstAllocator *fd_allocator = gst_fd_allocator_new ();
  GstAllocator *dmabuf_allocator = gst_dmabuf_allocator_new ();
  const gsize size = 64 * 1024;
  guint8 *area = g_malloc (size);
  GstMemory *sysmem = gst_allocator_alloc (NULL, size, NULL);
  GstMemory *wrapped = gst_memory_new_wrapped (0, area, size, 0, size, area,
      g_free);
  GstMemory *sub = gst_memory_share (sysmem, 4096, 4096);
  GstMemory *fd_plain = memfd_memory (fd_allocator, size,
      GST_FD_MEMORY_FLAG_NONE);
  GstMemory *fd_private = memfd_memory (fd_allocator, size,
      GST_FD_MEMORY_FLAG_MAP_PRIVATE);
  GstMemory *fd_kept = memfd_memory (fd_allocator, size,
      GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  GstMemory *fd_kept_sub = gst_memory_share (fd_kept, 4096, 4096);
  GstMemory *dmabuf_kept = memfd_memory (dmabuf_allocator, size,
      GST_FD_MEMORY_FLAG_KEEP_MAPPED);

  fail_unless (cbf_host_register_eligible (sysmem), "system memory");
  fail_unless (cbf_host_register_eligible (wrapped), "wrapped memory");
  fail_if (cbf_host_register_eligible (sub), "a system sub-memory");
  fail_if (cbf_host_register_eligible (fd_plain), "fd memory");
  fail_if (cbf_host_register_eligible (fd_private), "private fd memory");
  fail_unless (cbf_host_register_eligible (fd_kept), "keep-mapped fd memory");
  fail_if (cbf_host_register_eligible (fd_kept_sub), "a keep-mapped fd "
      "sub-memory");
  fail_if (cbf_host_register_eligible (dmabuf_kept), "dma-buf memory");

  gst_memory_unref (sub);
  gst_memory_unref (sysmem);
  gst_memory_unref (wrapped);
  gst_memory_unref (fd_plain);
  gst_memory_unref (fd_private);
  gst_memory_unref (fd_kept_sub);
  gst_memory_unref (fd_kept);
  gst_memory_unref (dmabuf_kept);
  gst_object_unref (fd_allocator);
  gst_object_unref (dmabuf_allocator);
}

GST_END_TEST;

/* Memory that is not eligible, seen again and again as a pool's: never
 * registered, and the driver never asked (the CUDA context passed is
 * NULL: a call that reached it would fail the test with a critical). Its
 * planes are never taken as page-locked. */
GST_START_TEST (test_ineligible_never_registered)
{
  GstAllocator *fd_allocator = gst_fd_allocator_new ();
  const gsize size = 64 * 1024;
  GstMemory *mems[3];
  GstMemory *sysmem = gst_allocator_alloc (NULL, size, NULL);
  guint i, round;

  mems[0] = memfd_memory (fd_allocator, size, GST_FD_MEMORY_FLAG_NONE);
  mems[1] = memfd_memory (fd_allocator, size, GST_FD_MEMORY_FLAG_NONE);
  mems[2] = gst_memory_share (sysmem, 0, size / 2);
  for (round = 0; round < 4; round++) {
    for (i = 0; i < G_N_ELEMENTS (mems); i++) {
      GstMapInfo map;

      fail_unless (gst_memory_map (mems[i], &map, GST_MAP_READ));
      fail_if (cbf_host_register_recycled (NULL, mems[i], &map),
          "memory %u registered in round %u", i, round);
      fail_if (cbf_host_register_covers (mems[i], map.data, map.size));
      gst_memory_unmap (mems[i], &map);
    }
  }
  fail_unless_equals_uint64 (cbf_host_registered_bytes (), 0);

  /* Eligible memory seen once is only marked: nothing registered, no
   * driver call either. */
  {
    GstMapInfo map;

    fail_unless (gst_memory_map (sysmem, &map, GST_MAP_READ));
    fail_if (cbf_host_register_recycled (NULL, sysmem, &map));
    fail_if (cbf_host_register_covers (sysmem, map.data, map.size));
    gst_memory_unmap (sysmem, &map);
  }
  fail_unless_equals_uint64 (cbf_host_registered_bytes (), 0);

  for (i = 0; i < G_N_ELEMENTS (mems); i++)
    gst_memory_unref (mems[i]);
  gst_memory_unref (sysmem);
  gst_object_unref (fd_allocator);
}

GST_END_TEST;

static Suite *
hostregister_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cbf-hostregister", 60, &tc);

  tcase_add_test (tc, test_fd_memories_share_an_address);
  tcase_add_test (tc, test_keep_mapped_stays);
  tcase_add_test (tc, test_eligible);
  tcase_add_test (tc, test_ineligible_never_registered);
  return s;
}

TEST_MAIN (hostregister_suite, TEST_NEEDS_NOTHING, NULL);
