/* Host frames as GstCbfFilter maps and checks them (gst/cbfhostframe.c),
 * without a GPU: a buffer without a video meta takes the caps' default
 * layout and must hold the caps' size; a meta's planes must be of the caps'
 * format and size, with rows no shorter than the caps' and inside the
 * buffer (the error strings say which rule failed); padded planes are read
 * where the meta puts them; a buffer of one memory per plane is mapped
 * memory by memory, planes that share a memory share its map, and a plane
 * across memories maps the whole buffer; a memory that cannot be mapped is
 * an error that leaves nothing mapped. Pinned: every plane in memory of
 * the element's pinned allocator, never system memory that is not
 * registered (seen once, it is only marked: no CUDA call, no device). The
 * element's error for such a buffer names input or output. */

#include <gst/check/gstcheck.h>
#include <string.h>

#include "cbfhostframe.h"
#include "cbfhostregister.h"
#include "gstcbfpinnedallocator.h"
#include "gpu_support.h"

#define WIDTH 64
#define HEIGHT 48
#define PADDING 0xee

/* A memory of a test allocator: its bytes, and whether mapping it fails. */
typedef struct
{
  GstMemory mem;
  guint8 *data;
  gboolean broken;
} TestMemory;

typedef struct
{
  GstAllocator parent;
} TestAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} TestAllocatorClass;

G_DEFINE_TYPE (TestAllocator, test_allocator, GST_TYPE_ALLOCATOR);

static gpointer
test_memory_map (GstMemory * mem, G_GNUC_UNUSED gsize maxsize,
    G_GNUC_UNUSED GstMapFlags flags)
{
  TestMemory *tm = (TestMemory *) mem;

  return tm->broken ? NULL : tm->data;
}

static void
test_memory_unmap (G_GNUC_UNUSED GstMemory * mem)
{
}

/* No copy either: a memory that cannot be mapped stays so. */
static GstMemory *
test_memory_copy (G_GNUC_UNUSED GstMemory * mem, G_GNUC_UNUSED gssize offset,
    G_GNUC_UNUSED gssize size)
{
  return NULL;
}

static void
test_allocator_free (G_GNUC_UNUSED GstAllocator * allocator, GstMemory * mem)
{
  g_free (((TestMemory *) mem)->data);
  g_free (mem);
}

static void
test_allocator_class_init (TestAllocatorClass * klass)
{
  GST_ALLOCATOR_CLASS (klass)->free = test_allocator_free;
}

static void
test_allocator_init (TestAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  allocator->mem_map = test_memory_map;
  allocator->mem_unmap = test_memory_unmap;
  allocator->mem_copy = test_memory_copy;
  GST_OBJECT_FLAG_SET (allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* An allocator whose memories are of @mem_type: the element's pinned
 * memory (GST_CBF_PINNED_MEMORY_TYPE) without cudaHostAlloc, or memory
 * that cannot be mapped. */
static GstAllocator *
test_allocator_new (const gchar * mem_type)
{
  GstAllocator *allocator = g_object_new (test_allocator_get_type (), NULL);

  gst_object_ref_sink (allocator);
  allocator->mem_type = mem_type;
  return allocator;
}

static GstMemory *
test_memory_new (GstAllocator * allocator, const guint8 * bytes, gsize size,
    gboolean broken)
{
  TestMemory *tm = g_new0 (TestMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (tm), 0, allocator, NULL, size, 0, 0, size);
  tm->data = g_memdup2 (bytes, size);
  tm->broken = broken;
  return GST_MEMORY_CAST (tm);
}

/* The planes of @info as the caps describe them: rows of their first
 * component's width times its pixel stride. */
static CbfFrameShape
shape_for (const GstVideoInfo * info)
{
  CbfFrameShape shape = { 0, };
  guint p;

  shape.n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (p = 0; p < shape.n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    shape.planes[p].row_bytes = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    shape.planes[p].height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
  }
  return shape;
}

static guint8
pattern (guint p, gint y, gsize x)
{
  return (guint8) (p * 61 + y * 7 + x * 3);
}

/* Bytes from a plane's first byte to the end of its last row. */
static gsize
span (const CbfPlaneShape * plane, gint stride)
{
  return (gsize) (plane->height - 1) * stride + plane->row_bytes;
}

/* A frame of @shape, plane p at @offset[p] with rows @stride[p] apart
 * (GST_VIDEO_MAX_PLANES of each), in PADDING, the buffer's first @size
 * bytes of it (less than the frame: cut short), cut into system memories
 * at @cuts (ascending, below @size; none: one memory), with a video meta
 * that says where the planes are if @meta. */
static GstBuffer *
frame_buffer (const GstVideoInfo * info, const CbfFrameShape * shape,
    const gsize * offset, const gint * stride, gsize size,
    const gsize * cuts, guint n_cuts, gboolean meta)
{
  GstBuffer *buf = gst_buffer_new ();
  gsize begin = 0, alloc = size;
  guint8 *bytes;
  guint p, i;
  gint y;

  for (p = 0; p < shape->n_planes; p++)
    alloc = MAX (alloc, offset[p] + span (&shape->planes[p], stride[p]));
  bytes = g_malloc (alloc);
  memset (bytes, PADDING, alloc);
  for (p = 0; p < shape->n_planes; p++)
    for (y = 0; y < shape->planes[p].height; y++) {
      gsize x;

      for (x = 0; x < shape->planes[p].row_bytes; x++)
        bytes[offset[p] + y * stride[p] + x] = pattern (p, y, x);
    }
  for (i = 0; i <= n_cuts; i++) {
    gsize end = i < n_cuts ? cuts[i] : size;
    GstMemory *mem = gst_allocator_alloc (NULL, end - begin, NULL);

    gst_buffer_append_memory (buf, mem);
    gst_buffer_fill (buf, begin, bytes + begin, end - begin);
    begin = end;
  }
  if (meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), shape->n_planes, (gsize *) offset,
        (gint *) stride);
  g_free (bytes);
  return buf;
}

/* A buffer of @info's default layout, in one memory of @size bytes,
 * without a meta. */
static GstBuffer *
default_buffer (const GstVideoInfo * info, const CbfFrameShape * shape,
    gsize size)
{
  return frame_buffer (info, shape, info->offset, info->stride, size, NULL,
      0, FALSE);
}

/* Every row of every plane of @frame holds the pattern. */
static void
check_pixels (const CbfHostFrame * frame, const CbfFrameShape * shape)
{
  guint p, wrong = 0;
  gint y;

  for (p = 0; p < shape->n_planes; p++)
    for (y = 0; y < shape->planes[p].height; y++) {
      gsize x;

      for (x = 0; x < shape->planes[p].row_bytes; x++)
        wrong += frame->data[p][y * frame->stride[p] + x] != pattern (p, y, x);
    }
  fail_unless_equals_int (wrong, 0);
}

/* cbf_frame_layout's verdict on @buf, a frame of @info and @shape: NULL,
 * else the reason, which cbf_host_frame_map then gives too, mapping
 * nothing. */
static gchar *
layout_error (const GstVideoInfo * info, const CbfFrameShape * shape,
    GstBuffer * buf)
{
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  gchar *why = cbf_frame_layout (shape, info, buf, offset, stride);

  if (why) {
    CbfHostFrame frame;
    gchar *why_map = NULL;

    fail_if (cbf_host_frame_map (shape, NULL, info, buf, GST_MAP_READ,
            &frame, &why_map));
    fail_unless_equals_string (why_map, why);
    fail_unless_equals_int (frame.n_maps, 0);
    g_free (why_map);
  }
  return why;
}

static void
map_ok (const CbfFrameShape * shape, const GstVideoInfo * info,
    GstBuffer * buf, GstMapFlags flags, CbfHostFrame * frame)
{
  gchar *why = NULL;

  fail_unless (cbf_host_frame_map (shape, NULL, info, buf, flags, frame,
          &why), "not mapped: %s", why);
  fail_unless (why == NULL);
}

static GstVideoInfo
info_for_format (GstVideoFormat format)
{
  GstVideoInfo info;

  fail_unless (gst_video_info_set_format (&info, format, WIDTH, HEIGHT));
  return info;
}

/* No meta: the caps' default layout, in one map; a buffer one byte short
 * is refused, saying why. */
GST_START_TEST (test_without_meta)
{
  GstVideoInfo info = info_for_format (GST_VIDEO_FORMAT_I420);
  CbfFrameShape shape = shape_for (&info);
  GstBuffer *buf = default_buffer (&info, &shape, info.size);
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  CbfHostFrame frame;
  gchar *why;
  guint p;

  fail_unless_equals_int (shape.n_planes, 3);
  fail_unless (cbf_frame_layout (&shape, &info, buf, offset, stride) == NULL);
  for (p = 0; p < shape.n_planes; p++) {
    fail_unless_equals_uint64 (offset[p], info.offset[p]);
    fail_unless_equals_int (stride[p], info.stride[p]);
  }
  map_ok (&shape, &info, buf, GST_MAP_READ, &frame);
  fail_unless_equals_int (frame.n_maps, 1);
  for (p = 0; p < shape.n_planes; p++) {
    fail_unless_equals_int (frame.plane_map[p], 0);
    fail_unless (frame.data[p] == frame.maps[0].data + info.offset[p]);
    fail_unless_equals_uint64 (frame.stride[p], info.stride[p]);
  }
  fail_if (frame.pinned);
  check_pixels (&frame, &shape);
  cbf_host_frame_unmap (buf, &frame);
  fail_unless_equals_int (frame.n_maps, 0);
  gst_buffer_unref (buf);

  buf = default_buffer (&info, &shape, info.size - 1);
  why = layout_error (&info, &shape, buf);
  fail_unless_equals_string (why, "buffer of 4607 bytes, caps need 4608 for "
      "a 64x48 I420 frame (the buffer has no video meta)");
  g_free (why);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* A meta with padded rows and gaps between the planes: each plane read
 * where the meta says, the padding never. */
GST_START_TEST (test_padded_meta)
{
  GstVideoInfo info = info_for_format (GST_VIDEO_FORMAT_I420);
  CbfFrameShape shape = shape_for (&info);
  const gint stride[GST_VIDEO_MAX_PLANES] = { 80, 48, 40 };
  const gsize offset[GST_VIDEO_MAX_PLANES] = { 16, 16 + 80 * 48 + 64,
    16 + 80 * 48 + 64 + 48 * 24 + 8
  };
  const gsize size = offset[2] + 40 * 24 + 100;
  GstBuffer *buf = frame_buffer (&info, &shape, offset, stride, size, NULL,
      0, TRUE);
  gsize got_offset[GST_VIDEO_MAX_PLANES];
  gint got_stride[GST_VIDEO_MAX_PLANES];
  CbfHostFrame frame;
  guint p;

  fail_unless (cbf_frame_layout (&shape, &info, buf, got_offset,
          got_stride) == NULL);
  map_ok (&shape, &info, buf, GST_MAP_WRITE, &frame);
  fail_unless_equals_int (frame.n_maps, 1);
  for (p = 0; p < shape.n_planes; p++) {
    fail_unless_equals_uint64 (got_offset[p], offset[p]);
    fail_unless_equals_int (got_stride[p], stride[p]);
    fail_unless (frame.data[p] == frame.maps[0].data + offset[p]);
    fail_unless_equals_uint64 (frame.stride[p], stride[p]);
  }
  check_pixels (&frame, &shape);
  fail_if (frame.pinned);
  cbf_host_frame_unmap (buf, &frame);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* A meta that does not describe a frame of the caps, with rows shorter than
 * the caps', or with a plane past the buffer's end: refused, each saying
 * why. */
GST_START_TEST (test_meta_errors)
{
  GstVideoInfo info = info_for_format (GST_VIDEO_FORMAT_I420);
  CbfFrameShape shape = shape_for (&info);
  gint stride[GST_VIDEO_MAX_PLANES] = { 64, 32, 32 };
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, 64 * 48, 64 * 48 + 32 * 24 };
  GstBuffer *buf;
  gchar *why;

  buf = default_buffer (&info, &shape, info.size);
  gst_buffer_add_video_meta (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_NV12, WIDTH, HEIGHT);
  why = layout_error (&info, &shape, buf);
  fail_unless_equals_string (why, "its video meta describes a 64x48 NV12 "
      "frame of 2 planes, the caps a 64x48 I420 frame");
  g_free (why);
  gst_buffer_unref (buf);

  buf = default_buffer (&info, &shape, info.size);
  gst_buffer_add_video_meta (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_I420, WIDTH, HEIGHT - 2);
  why = layout_error (&info, &shape, buf);
  fail_unless_equals_string (why, "its video meta describes a 64x46 I420 "
      "frame of 3 planes, the caps a 64x48 I420 frame");
  g_free (why);
  gst_buffer_unref (buf);

  stride[1] = 16;
  buf = frame_buffer (&info, &shape, offset, stride, info.size, NULL, 0, TRUE);
  why = layout_error (&info, &shape, buf);
  fail_unless_equals_string (why, "its video meta gives plane 1 a stride of "
      "16 bytes, less than the 32 bytes of a row");
  g_free (why);
  gst_buffer_unref (buf);

  /* plane 2's last row runs 100 bytes past the end */
  stride[1] = 32;
  buf = frame_buffer (&info, &shape, offset, stride, info.size - 100, NULL,
      0, TRUE);
  why = layout_error (&info, &shape, buf);
  fail_unless_equals_string (why, "its video meta puts plane 2 (offset 3840, "
      "stride 32, 24 rows of 32 bytes) at bytes 3840 to 4608, outside the "
      "buffer's 4508 bytes");
  g_free (why);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* One memory per plane: mapped memory by memory, in place; planes that
 * share a memory share its map; a plane across two memories maps the whole
 * buffer (merged). */
GST_START_TEST (test_split_memories)
{
  GstVideoInfo info = info_for_format (GST_VIDEO_FORMAT_I420);
  CbfFrameShape shape = shape_for (&info);
  const gsize cuts_each[] = { info.offset[1], info.offset[2] };
  const gsize cuts_two[] = { info.offset[1] };
  const gsize cut_inside[] = { info.offset[1] / 2 };
  GstBuffer *buf;
  CbfHostFrame frame;
  guint p;

  buf = frame_buffer (&info, &shape, info.offset, info.stride, info.size,
      cuts_each, G_N_ELEMENTS (cuts_each), TRUE);
  map_ok (&shape, &info, buf, GST_MAP_READ, &frame);
  fail_unless_equals_int (frame.n_maps, 3);
  for (p = 0; p < shape.n_planes; p++) {
    fail_unless_equals_int (frame.plane_map[p], p);
    fail_unless (frame.maps[p].memory == gst_buffer_peek_memory (buf, p));
    fail_unless (frame.data[p] == frame.maps[p].data);
  }
  check_pixels (&frame, &shape);
  cbf_host_frame_unmap (buf, &frame);
  gst_buffer_unref (buf);

  buf = frame_buffer (&info, &shape, info.offset, info.stride, info.size,
      cuts_two, G_N_ELEMENTS (cuts_two), TRUE);
  map_ok (&shape, &info, buf, GST_MAP_READ, &frame);
  fail_unless_equals_int (frame.n_maps, 2);
  fail_unless_equals_int (frame.plane_map[0], 0);
  fail_unless_equals_int (frame.plane_map[1], 1);
  fail_unless_equals_int (frame.plane_map[2], 1);
  fail_unless (frame.data[2] == frame.maps[1].data + info.offset[2] -
      info.offset[1]);
  check_pixels (&frame, &shape);
  cbf_host_frame_unmap (buf, &frame);
  gst_buffer_unref (buf);

  buf = frame_buffer (&info, &shape, info.offset, info.stride, info.size,
      cut_inside, G_N_ELEMENTS (cut_inside), TRUE);
  fail_unless_equals_int (gst_buffer_n_memory (buf), 2);
  map_ok (&shape, &info, buf, GST_MAP_READ, &frame);
  fail_unless_equals_int (frame.n_maps, 1);
  for (p = 0; p < shape.n_planes; p++)
    fail_unless (frame.data[p] == frame.maps[0].data + info.offset[p]);
  check_pixels (&frame, &shape);
  cbf_host_frame_unmap (buf, &frame);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* A memory that cannot be mapped, after two that were: an error naming the
 * access, and the maps made are undone. */
GST_START_TEST (test_map_failure)
{
  GstVideoInfo info = info_for_format (GST_VIDEO_FORMAT_I420);
  CbfFrameShape shape = shape_for (&info);
  GstAllocator *broken = test_allocator_new ("CbfTestUnmappable");
  const gsize cuts[] = { info.offset[1], info.offset[2] };
  GstBuffer *buf = frame_buffer (&info, &shape, info.offset, info.stride,
      info.size, cuts, G_N_ELEMENTS (cuts), FALSE);
  guint8 *bytes = g_malloc0 (info.size - info.offset[2]);
  CbfHostFrame frame;
  gchar *why = NULL;

  /* plane 2's memory cannot be mapped */
  gst_buffer_replace_memory (buf, 2, test_memory_new (broken, bytes,
          info.size - info.offset[2], TRUE));
  fail_if (cbf_host_frame_map (&shape, NULL, &info, buf, GST_MAP_READ, &frame,
          &why));
  fail_unless_equals_string (why, "it cannot be mapped for reading");
  fail_unless_equals_int (frame.n_maps, 0);
  g_free (why);
  fail_if (cbf_host_frame_map (&shape, NULL, &info, buf, GST_MAP_WRITE,
          &frame, &why));
  fail_unless_equals_string (why, "it cannot be mapped for writing");
  g_free (why);
  g_free (bytes);
  gst_buffer_unref (buf);
  gst_object_unref (broken);
}

GST_END_TEST;

/* Pinned only where every plane is in the element's pinned memory; system
 * memory seen the first time is not registered, and no CUDA device is
 * needed to tell. */
GST_START_TEST (test_pinned)
{
  GstVideoInfo info = info_for_format (GST_VIDEO_FORMAT_NV12);
  CbfFrameShape shape = shape_for (&info);
  GstAllocator *pinned = test_allocator_new (GST_CBF_PINNED_MEMORY_TYPE);
  guint8 *bytes = g_malloc0 (info.size);
  GstBuffer *buf;
  CbfHostFrame frame;

  fail_unless_equals_int (shape.n_planes, 2);
  fail_unless_equals_int (shape.planes[1].row_bytes, WIDTH);

  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, test_memory_new (pinned, bytes, info.size,
          FALSE));
  map_ok (&shape, &info, buf, GST_MAP_WRITE, &frame);
  fail_unless (frame.pinned);
  cbf_host_frame_unmap (buf, &frame);
  gst_buffer_unref (buf);

  /* chroma in system memory */
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, test_memory_new (pinned, bytes,
          info.offset[1], FALSE));
  gst_buffer_append_memory (buf, gst_allocator_alloc (NULL,
          info.size - info.offset[1], NULL));
  map_ok (&shape, &info, buf, GST_MAP_READ, &frame);
  fail_unless_equals_int (frame.n_maps, 2);
  fail_if (frame.pinned);
  cbf_host_frame_unmap (buf, &frame);
  gst_buffer_unref (buf);

  buf = default_buffer (&info, &shape, info.size);
  map_ok (&shape, &info, buf, GST_MAP_READ, &frame);
  fail_if (frame.pinned);
  fail_unless_equals_uint64 (cbf_host_registered_bytes (), 0);
  cbf_host_frame_unmap (buf, &frame);
  gst_buffer_unref (buf);

  g_free (bytes);
  gst_object_unref (pinned);
}

GST_END_TEST;

/* The error for a buffer the element cannot filter: a stream format error
 * for the input, a stream error for the output, each with the reason. */
GST_START_TEST (test_frame_error)
{
  GstElement *element = gst_bin_new ("filter");
  GstBus *bus = gst_bus_new ();
  GstBuffer *buf = gst_buffer_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (element, bus);
  fail_unless_equals_int (cbf_frame_error (element, buf, FALSE,
          g_strdup ("reason one")), GST_FLOW_ERROR);
  fail_unless_equals_int (cbf_frame_error (element, buf, TRUE,
          g_strdup ("reason two")), GST_FLOW_ERROR);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT));
  fail_unless_equals_string (err->message,
      "Input buffer cannot be filtered: reason one.");
  g_clear_error (&err);
  gst_message_unref (msg);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FAILED));
  fail_unless_equals_string (err->message,
      "Output buffer cannot be written: reason two.");
  g_clear_error (&err);
  gst_message_unref (msg);

  gst_element_set_bus (element, NULL);
  gst_object_unref (bus);
  gst_object_unref (element);
  gst_buffer_unref (buf);
}

GST_END_TEST;

static Suite *
hostframe_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cbf-hostframe", 60, &tc);

  tcase_add_test (tc, test_without_meta);
  tcase_add_test (tc, test_padded_meta);
  tcase_add_test (tc, test_meta_errors);
  tcase_add_test (tc, test_split_memories);
  tcase_add_test (tc, test_map_failure);
  tcase_add_test (tc, test_pinned);
  tcase_add_test (tc, test_frame_error);
  return s;
}

TEST_MAIN (hostframe_suite, TEST_NEEDS_NOTHING, NULL);
