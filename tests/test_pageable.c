/* cudabilateral on a GPU with frames in pageable memory, as appsrc
 * applications, v4l2src's own buffers and upstream pools of system memory
 * hand them over: a memory that comes back (a pool's) is page-locked for
 * the driver from its second frame, and unlocked when it is freed; memory
 * new every frame is never page-locked; frames large enough for several
 * bands and the copier's threads, into pageable output (downstream's own
 * pool), match the C reference within +-1. Exits 77 without a CUDA
 * device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>


#include "gpu_support.h"

static const Params params = { 9, 30.0, 5.0, FALSE };

/* Whether the CUDA driver holds [@data, @data + 1) as page-locked. */
static gboolean
is_page_locked (const void *data)
{
  struct cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, data) != cudaSuccess) {
    cudaGetLastError ();
    return FALSE;
  }
  return attr.type == cudaMemoryTypeHost;
}

/* A page-aligned area of @size bytes of noise, as malloc gives frames. */
static guint8 *
noise_area (gsize size, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *area = g_aligned_alloc (size, 1, 4096);
  gsize i;

  for (i = 0; i < size; i++)
    area[i] = g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
  return area;
}

/* What the area's memory saw when it was freed. */
typedef struct
{
  guint8 *area;
  gboolean freed;
  gboolean locked_at_free;
} AreaState;

static void
area_freed (gpointer data)
{
  AreaState *state = data;

  state->locked_at_free = is_page_locked (state->area);
  state->freed = TRUE;
  g_aligned_free (state->area);
}

/* Checks @out (RGBA, packed) against the C reference of @in. */
static void
check_rgba (GstBuffer * out, const guint8 * in, gint w, gint h,
    const gchar * what)
{
  gsize size = (gsize) w * h * 4;
  guint8 *expected = g_malloc (size);
  GstVideoFrame frame;
  GstVideoInfo info = info_for ("RGBA", w, h);
  gint x, y;

  params_reference (&params, in, w * 4, expected, w * 4, w, h, 4, 0, 3);
  fail_unless (out != NULL, "%s: no output", what);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (y = 0; y < h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

    for (x = 0; x < w * 4; x++) {
      gint d = (gint) row[x] - expected[y * w * 4 + x];

      fail_unless (x % 4 == 3 ? d == 0 : ABS (d) <= 1,
          "%s: byte %d of row %d is %u, the reference %u", what, x, y,
          row[x], expected[y * w * 4 + x]);
    }
  }
  gst_video_frame_unmap (&frame);
  g_free (expected);
}

static GstHarness *
rgba_harness (gint w, gint h)
{
  GstHarness *h_ = gst_harness_new ("cudabilateral");

  params_apply (h_->element, &params);
  gst_harness_set_caps (h_, caps_for ("RGBA", w, h), caps_for ("RGBA", w, h));
  return h_;
}

/* One memory pushed again and again, as a pool's: page-locked from its
 * second frame on, unlocked before it is freed. */
GST_START_TEST (test_recycled_memory_registered)
{
  const gint w = 320, h = 240;
  const gsize size = (gsize) w * h * 4;
  AreaState state = { noise_area (size, 1), FALSE, FALSE };
  GstHarness *harness = rgba_harness (w, h);
  GstBuffer *frame = gst_buffer_new ();
  gint i;

  gst_buffer_append_memory (frame, gst_memory_new_wrapped (0, state.area,
          size, 0, size, &state, area_freed));
  for (i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_push_and_pull (harness,
        gst_buffer_copy (frame));
    gchar *what = g_strdup_printf ("recycled memory, frame %d", i + 1);

    check_rgba (out, state.area, w, h, what);
    fail_unless (is_page_locked (state.area) == (i > 0),
        "%s: page-locked %d", what, is_page_locked (state.area));
    gst_buffer_unref (out);
    g_free (what);
  }
  gst_buffer_unref (frame);
  gst_harness_teardown (harness);
  fail_unless (state.freed, "the memory was not freed");
  fail_if (state.locked_at_free, "the memory was still page-locked when it "
      "was freed");
}

GST_END_TEST;

/* A new memory every frame on the same area, as an application wrapping
 * its own buffers gives: never page-locked, however often. */
GST_START_TEST (test_fresh_memory_not_registered)
{
  const gint w = 320, h = 240;
  const gsize size = (gsize) w * h * 4;
  guint8 *area = noise_area (size, 2);
  GstHarness *harness = rgba_harness (w, h);
  gint i;

  for (i = 0; i < 4; i++) {
    GstBuffer *in = gst_buffer_new ();
    GstBuffer *out;

    gst_buffer_append_memory (in, gst_memory_new_wrapped (0, area, size, 0,
            size, NULL, NULL));
    out = gst_harness_push_and_pull (harness, in);
    check_rgba (out, area, w, h, "fresh memory");
    fail_if (is_page_locked (area), "fresh memory page-locked at frame %d",
        i + 1);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (harness);
  g_aligned_free (area);
}

GST_END_TEST;

/* A 1080p frame in fresh pageable memory into downstream's own pool of
 * system memory: several bands, each staged by the copier's threads (four,
 * as GST_CBF_COPY_THREADS asks) and copied out as it arrives. Twice, so
 * that the second frame's output goes to a page-locked pool buffer. */
GST_START_TEST (test_staged_bands)
{
  const gint w = 1920, h = 1080;
  const gsize size = (gsize) w * h * 4;
  guint8 *area = noise_area (size, 3);
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstHarness *harness;
  gint i;

  g_setenv ("GST_CBF_COPY_THREADS", "4", TRUE);
  gst_buffer_pool_config_set_params (config, caps_for ("RGBA", w, h), size,
      1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  harness = gst_harness_new ("cudabilateral");
  params_apply (harness->element, &params);
  gpu_test_offer_pool (harness, pool);
  gst_harness_set_caps (harness, caps_for ("RGBA", w, h), caps_for ("RGBA",
          w, h));

  for (i = 0; i < 2; i++) {
    GstBuffer *in = gst_buffer_new ();
    GstBuffer *out;

    gst_buffer_append_memory (in, gst_memory_new_wrapped (0, area, size, 0,
            size, NULL, NULL));
    gpu_test_poison_output_pool (harness->element);
    out = gst_harness_push_and_pull (harness, in);
    fail_unless (out && out->pool == pool, "output not from downstream's "
        "pool");
    check_rgba (out, area, w, h, "1080p, fresh memory, pageable output");
    gst_buffer_unref (out);
  }
  gst_harness_teardown (harness);
  gst_object_unref (pool);
  g_aligned_free (area);
  g_unsetenv ("GST_CBF_COPY_THREADS");
}

GST_END_TEST;

static Suite *
pageable_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-pageable", 600, &tc);

  tcase_add_test (tc, test_recycled_memory_registered);
  tcase_add_test (tc, test_fresh_memory_not_registered);
  tcase_add_test (tc, test_staged_bands);
  return s;
}

TEST_MAIN (pageable_suite, TEST_NEEDS_GPU, NULL);
