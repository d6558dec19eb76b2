/* gst-cudabilateral test support for the tests that need a GPU: devices,
 * suites and harnesses, frames and channels, pictures. What the output
 * should be by the C reference (params_reference*, channel_reference*,
 * channels_reference_*, channels_temporal_for_format) is in
 * gpu_reference.c. */

#include "gpu_support.h"
#include "golden.h"

#include <gst/check/gstcheck.h>
#include <gst/base/gstbasetransform.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#include <cuda_runtime_api.h>
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>

gint
gpu_test_devices (void)
{
  void *driver = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  cudaError_t err;
  gint count = 0;

  /* No NVIDIA driver at all (a machine without a GPU, as CI's), or one
   * that sees no device (CUDA_VISIBLE_DEVICES empty), or the toolkit's
   * stub library: nothing to test on. */
  if (!driver) {
    g_print ("SKIP: no CUDA device: no NVIDIA driver (%s)\n", dlerror ());
    return 0;
  }
  dlclose (driver);
  err = cudaGetDeviceCount (&count);
  if (err == cudaErrorNoDevice || err == cudaErrorStubLibrary
      || (err == cudaSuccess && count == 0)) {
    g_print ("SKIP: no CUDA device (%s)\n", cudaGetErrorString (err));
    return 0;
  }
  /* A driver that is there but cannot run the runtime (older than it, or
   * broken) must not turn a GPU machine's suite into skips. */
  if (err != cudaSuccess) {
    g_print ("FAIL: an NVIDIA driver is installed but CUDA cannot use it: "
        "%s (%s)\n", cudaGetErrorString (err), cudaGetErrorName (err));
    return -1;
  }
  return count;
}

static const gchar *suite_name;

Suite *
test_suite_new (const gchar * name, guint timeout_s, TCase ** tc)
{
  Suite *s = suite_create (name);

  *tc = tcase_create ("general");
  if (timeout_s)
    tcase_set_timeout (*tc, timeout_s);
  suite_add_tcase (s, *tc);
  suite_name = name;
  return s;
}

int
test_main (int argc, char **argv, TestNeeds needs,
    const gchar * const *elements, Suite * (*make_suite) (void),
    const gchar * file)
{
  Suite *suite;
  guint i;

  if (needs != TEST_NEEDS_NOTHING) {
    gint devices = gpu_test_devices ();

    if (devices < 0)
      return 1;
    if (devices == 0)
      return 77;
    if (needs == TEST_NEEDS_TWO_GPUS && devices < 2) {
      g_print ("SKIP: one CUDA device, this test needs two\n");
      return 77;
    }
  }
  /* CUDA does not survive fork (): every test runs in this process. */
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  /* Where there is a GPU, what else the test needs must be there too: a
   * missing element is a failure, not a skip. */
  for (i = 0; elements[i]; i++) {
    GstElementFactory *f = gst_element_factory_find (elements[i]);

    if (!f) {
      g_print ("FAIL: no %s element here (GStreamer's %s)\n", elements[i],
          g_str_has_prefix (elements[i], "nv") ||
          g_str_has_prefix (elements[i], "cuda") ?
          "nvcodec plugin, gst-plugins-bad" : "plugins");
      return 1;
    }
    gst_object_unref (f);
  }
  suite = make_suite ();
  return gst_check_run_suite (suite, suite_name, file);
}

void
gpu_test_poison_output_pool (GstElement * element)
{
  GstBufferPool *pool =
      gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (element));
  GstBuffer *bufs[4];
  guint i;

  fail_unless (pool != NULL, "no output pool after negotiation");
  /* The element activates it at its first frame; activating it earlier is
   * the same. */
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < G_N_ELEMENTS (bufs); i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
    gst_buffer_memset (bufs[i], 0, 0xcd, gst_buffer_get_size (bufs[i]));
  }
  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    gst_buffer_unref (bufs[i]);
  gst_object_unref (pool);
}

GstCaps *
caps_for (const gchar * format, gint width, gint height)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

GstVideoInfo
info_for (const gchar * format, gint width, gint height)
{
  GstVideoInfo info;
  GstCaps *caps = caps_for (format, width, height);

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  return info;
}

/* A system-memory frame whose rows are padded left and right and whose
 * planes start after padding rows, all described by a video meta, as a
 * decoder with alignment constraints would hand it out. Filled with noise
 * first, so bytes no component owns are random. */
GstVideoInfo
padded_info (const GstVideoInfo * base, guint top, guint bottom, guint left,
    guint right)
{
  GstVideoInfo info = *base;
  GstVideoAlignment align;

  gst_video_alignment_reset (&align);
  align.padding_top = top;
  align.padding_bottom = bottom;
  align.padding_left = left;
  align.padding_right = right;
  fail_unless (gst_video_info_align (&info, &align));
  return info;
}

GstBuffer *
padded_buffer_new (const GstVideoInfo * base, gboolean padded, guint32 seed)
{
  GstVideoInfo info = padded ? padded_info (base, 2, 2, 4, 12) :
      padded_info (base, 0, 0, 0, 0);
  GstBuffer *buf;
  GstMapInfo map;
  GRand *rand = g_rand_new_with_seed (seed);
  gsize i;

  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (base),
      GST_VIDEO_INFO_HEIGHT (base), GST_VIDEO_INFO_N_PLANES (&info),
      info.offset, info.stride);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++)
    map.data[i] = g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  return buf;
}

gint
format_bits (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_GRAY16_LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_Y444_16LE:
    case GST_VIDEO_FORMAT_RGBA64_LE:
    case GST_VIDEO_FORMAT_BGRA64_LE:
      return 16;
    case GST_VIDEO_FORMAT_P012_LE:
    case GST_VIDEO_FORMAT_I420_12LE:
    case GST_VIDEO_FORMAT_I422_12LE:
      return 12;
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_I420_10LE:
    case GST_VIDEO_FORMAT_I422_10LE:
    case GST_VIDEO_FORMAT_Y444_10LE:
    case GST_VIDEO_FORMAT_GBR_10LE:
    case GST_VIDEO_FORMAT_BGR10A2_LE:
    case GST_VIDEO_FORMAT_RGB10A2_LE:
      return 10;
    default:
      fail_unless (GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info
              (format), 0) == 8, "the bits of %s are not known here",
          gst_video_format_to_string (format));
      return 8;
  }
}

gint
format_tolerance (GstVideoFormat format)
{
  return format_bits (format) > 12 ? 16 : 1;
}

/* Where component @c of a 10A2 format lies in its 32-bit word: GStreamer's
 * format info gives every component shift 0 there (they are unpacked by
 * code), so the layout is spelled out. BGR10A2_LE holds B in bits 0-9 and R
 * in 20-29, RGB10A2_LE the reverse; alpha is bits 30-31 in both. Returns
 * FALSE for the formats of 8- and 16-bit samples. */
static gboolean
word_field (GstVideoFormat format, guint c, guint * shift, guint32 * mask)
{
  static const guint bgr[] = { 20, 10, 0, 30 }, rgb[] = { 0, 10, 20, 30 };

  if (format != GST_VIDEO_FORMAT_BGR10A2_LE
      && format != GST_VIDEO_FORMAT_RGB10A2_LE)
    return FALSE;
  fail_unless (c < 4);
  *shift = format == GST_VIDEO_FORMAT_BGR10A2_LE ? bgr[c] : rgb[c];
  *mask = c == 3 ? 0x3 : 0x3ff;
  return TRUE;
}

/* Where and how component @c of a mapped frame holds its values. */
typedef struct
{
  gboolean deep;                /* in 16-bit containers or 32-bit words */
  gboolean in_word;             /* a field of a 10A2 word (word_field) */
  guint8 *data;                 /* the first sample */
  gint stride, pstride;
  guint shift;                  /* in_word: where the field lies */
  guint32 mask;                 /* in_word: the field's bits */
  guint sample_shift;           /* MSB-aligned samples: the bits below */
} Samples;

/* GStreamer's format table (1.20 to 1.26 at least) gives V of P010_10LE,
 * P012_LE and P016_LE NV12's byte offset, 1, where the sample lies at 2
 * (as GStreamer's own pack and unpack code has it); samples deeper than 8
 * bits lie at even offsets, so their offset is rounded up to one. */
static Samples
component_samples (GstVideoFrame * frame, guint c)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (frame);
  guint offset = GST_VIDEO_FRAME_COMP_POFFSET (frame, c);
  Samples s = { format_bits (format) > 8, FALSE, NULL,
    GST_VIDEO_FRAME_COMP_STRIDE (frame, c),
    GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c), 0, 0,
    GST_VIDEO_FORMAT_INFO_SHIFT (frame->info.finfo, c)
  };

  s.in_word = word_field (format, c, &s.shift, &s.mask);
  s.data = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame,
      GST_VIDEO_FRAME_COMP_PLANE (frame, c)) + (s.deep ?
      GST_ROUND_UP_2 (offset) : offset);
  return s;
}

Channel
channel_new (gint width, gint height, gint bits)
{
  Channel ch = { width, height, bits,
    g_new0 (guint16, (gsize) width * height)
  };

  return ch;
}

void
write_component (GstVideoFrame * frame, guint c, const Channel * ch)
{
  Samples s = component_samples (frame, c);
  gint x, y;

  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_WIDTH (frame, c), ch->width);
  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_HEIGHT (frame, c), ch->height);
  for (y = 0; y < ch->height; y++)
    for (x = 0; x < ch->width; x++) {
      guint8 *p = s.data + (gsize) y * s.stride + (gsize) x * s.pstride;
      guint32 v = ch->data[(gsize) y * ch->width + x];

      if (!s.deep) {
        /* (Checked without fail_unless, which marks every pass: 4K
         * frames are written here.) */
        if (v > G_MAXUINT8)
          fail ("%u does not fit component %u", v, c);
        *p = (guint8) v;
      } else if (s.in_word) {
        fail_unless (v <= s.mask, "%u does not fit component %u", v, c);
        GST_WRITE_UINT32_LE (p, (GST_READ_UINT32_LE (p) &
                ~(s.mask << s.shift)) | (v << s.shift));
      } else {
        fail_unless (v << s.sample_shift <= G_MAXUINT16,
            "%u does not fit component %u", v, c);
        GST_WRITE_UINT16_LE (p, v << s.sample_shift);
      }
    }
}

Channel
read_component (GstVideoFrame * frame, guint c)
{
  Samples s = component_samples (frame, c);
  guint below = (1u << s.sample_shift) - 1;
  Channel ch = channel_new (GST_VIDEO_FRAME_COMP_WIDTH (frame, c),
      GST_VIDEO_FRAME_COMP_HEIGHT (frame, c),
      GST_VIDEO_FRAME_COMP_DEPTH (frame, c));
  gint x, y;

  for (y = 0; y < ch.height; y++)
    for (x = 0; x < ch.width; x++) {
      const guint8 *p = s.data + (gsize) y * s.stride + (gsize) x * s.pstride;
      guint v;

      if (!s.deep) {
        ch.data[(gsize) y * ch.width + x] = *p;
        continue;
      }
      v = s.in_word ? GST_READ_UINT32_LE (p) : GST_READ_UINT16_LE (p);
      fail_unless (s.in_word || (v & below) == 0, "%s component %u at %d,%d: "
          "0x%04x has bits set below its sample",
          gst_video_format_to_string (GST_VIDEO_FRAME_FORMAT (frame)), c, x,
          y, v);
      ch.data[(gsize) y * ch.width + x] = s.in_word ? (v >> s.shift) & s.mask :
          v >> s.sample_shift;
    }
  return ch;
}

/* A frame of @format holding @in[c] in component c. */
GstBuffer *
frame_from_channels (const gchar * format, gint width, gint height,
    const Channel * in, gboolean padded, guint32 seed)
{
  GstVideoInfo info = info_for (format, width, height);
  GstBuffer *buf = padded_buffer_new (&info, padded, seed);
  GstVideoFrame frame;
  guint c;

  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
    write_component (&frame, c, &in[c]);
  gst_video_frame_unmap (&frame);
  return buf;
}

/* The harness's output for @buf (taken); fails the test, saying why where
 * it can, if there is none. */
static GstBuffer *
push_and_pull_checked (GstHarness * h, const gchar * format, gint width,
    gint height, GstBuffer * buf)
{
  GstBuffer *result = gst_harness_push_and_pull (h, buf);

  if (!result) {
    /* Say why, where the test gave the element a bus. */
    GstBus *bus = gst_element_get_bus (h->element);
    GstMessage *msg = bus ? gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) :
        NULL;
    GError *error = NULL;
    gchar *debug = NULL;

    if (msg)
      gst_message_parse_error (msg, &error, &debug);
    fail ("no output buffer for %dx%d %s: %s (%s)", width, height, format,
        error ? error->message : "no error posted", debug ? debug : "");
  }
  return result;
}

void
push_and_read_channels (GstHarness * h, const gchar * format, gint width,
    gint height, GstBuffer * buf, Channel * out)
{
  GstVideoInfo info = info_for (format, width, height);
  GstVideoFrame frame;
  GstBuffer *result = push_and_pull_checked (h, format, width, height, buf);
  guint c;

  fail_unless (gst_video_frame_map (&frame, &info, result, GST_MAP_READ));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
    out[c] = read_component (&frame, c);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (result);
}

void
filter_frame (GstHarness * h, const gchar * format, gint width, gint height,
    GstBuffer * buf, Channel * out)
{
  gpu_test_poison_output_pool (h->element);
  push_and_read_channels (h, format, width, height, buf, out);
}

void
assert_channel_matches (const Channel * out, const Channel * expected,
    gint tolerance, const gchar * what, const gchar * format, guint c)
{
  gint max_diff = 0, fx = -1, fy = -1, x, y;
  guint bad = 0;

  fail_unless (out->width == expected->width
      && out->height == expected->height, "%s %s component %u: %dx%d, "
      "expected %dx%d", what, format, c, out->width, out->height,
      expected->width, expected->height);
  for (y = 0; y < out->height; y++)
    for (x = 0; x < out->width; x++) {
      gsize k = (gsize) y * out->width + x;
      gint d = ABS ((gint) out->data[k] - (gint) expected->data[k]);

      if (d > tolerance && bad++ == 0) {
        fx = x;
        fy = y;
      }
      max_diff = MAX (max_diff, d);
    }
  fail_unless (bad == 0, "%s %s component %u: %u values off by more than %d, "
      "max %d, first at %d,%d (%u, expected %u)", what, format, c, bad,
      tolerance, max_diff, fx, fy, bad ? out->data[(gsize) fy * out->width +
          fx] : 0, bad ? expected->data[(gsize) fy * out->width + fx] : 0);
}

void
channels_free (Channel * ch, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    g_free (ch[i].data);
    ch[i].data = NULL;
  }
}

Channel
channel_from_pgm (const gchar * file)
{
  gint width, height, channels;
  guint8 *pixels = golden_load_pnm (file, &width, &height, &channels);
  Channel ch;
  gsize k;

  fail_unless_equals_int (channels, 1);
  ch = channel_new (width, height, 8);
  for (k = 0; k < (gsize) width * height; k++)
    ch.data[k] = pixels[k];
  g_free (pixels);
  return ch;
}

Channel
channel_random (gint width, gint height, guint32 seed)
{
  Channel ch = channel_new (width, height, 8);
  GRand *rand = g_rand_new_with_seed (seed);
  gint x, y;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      gint v = (x * 5 + y * 3) % 200 + (x > width / 3 ? 50 : 0) +
          g_rand_int_range (rand, -20, 21);
      ch.data[y * width + x] = CLAMP (v, 0, 255);
    }
  g_rand_free (rand);
  return ch;
}

guint8 *
picture_crop (const gchar * name, gint channels, gint x, gint y, gint width,
    gint height)
{
  gchar *path = g_build_filename (CBF_DATA_DIR, name, NULL);
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! pngdec ! "
      "videoconvert ! video/x-raw,format=%s ! appsink name=sink", path,
      channels == 1 ? "GRAY8" : "RGB");
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstSample *sample;
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *pixels = g_malloc ((gsize) width * height * channels);
  gint row;

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message :
      "no pipeline");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  fail_unless (sample != NULL, "no picture from %s", path);
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  fail_unless (x >= 0 && y >= 0 && x + width <= GST_VIDEO_INFO_WIDTH (&info)
      && y + height <= GST_VIDEO_INFO_HEIGHT (&info), "%s is %dx%d, no crop "
      "of %dx%d at %d,%d", path, GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), width, height, x, y);
  fail_unless (gst_video_frame_map (&frame, &info,
          gst_sample_get_buffer (sample), GST_MAP_READ));
  for (row = 0; row < height; row++)
    memcpy (pixels + (gsize) row * width * channels,
        (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) (y + row) * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) +
        (gsize) x * channels, (gsize) width * channels);
  gst_video_frame_unmap (&frame);
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (path);
  return pixels;
}

/* The longest a PNG takes to write: 8193 x 8193 pixels under valgrind on
 * two cores take minutes. */
#define WRITE_PNG_TIMEOUT_S 600

/* @pixels (packed rows of @format: GRAY8 or RGB) written as a PNG file
 * with GStreamer's pngenc (its fastest compression: what matters is the
 * pixels). The pipeline is stopped before any failure is reported: a
 * check that fails without forking leaves the test, and a task left
 * running would hang the next test's cleanup. */
void
write_png (const gchar * path, const gchar * format, const guint8 * pixels,
    gint width, gint height)
{
  GstElement *pipeline = gst_parse_launch ("appsrc name=src ! pngenc "
      "compression-level=1 ! filesink name=sink", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstCaps *caps = caps_for (format, width, height);
  GstVideoInfo info = info_for (format, width, height);
  gsize row = (gsize) width * GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  GstVideoFrame frame;
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean started, pushed, written;
  gint y;

  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < height; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        pixels + (gsize) y * row, row);
  gst_video_frame_unmap (&frame);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  g_object_set (sink, "location", path, NULL);
  gst_caps_unref (caps);
  started = gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE;
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  pushed = started
      && gst_app_src_push_buffer (GST_APP_SRC (src), buf) == GST_FLOW_OK;
  if (!started)
    gst_buffer_unref (buf);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = pushed ? gst_bus_timed_pop_filtered (bus,
      WRITE_PNG_TIMEOUT_S * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR) :
      NULL;
  written = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  fail_unless (written, "writing %s failed (%s)", path, !started ?
      "the pipeline did not start" : !pushed ? "the frame was not taken" :
      "no end of stream");
}

void
write_gray_png (const gchar * path, const guint8 * pixels, gint width,
    gint height)
{
  write_png (path, "GRAY8", pixels, width, height);
}

void
params_apply (GstElement * element, const Params * p)
{
  g_object_set (element, "diameter", p->diameter, "sigma-color",
      p->sigma_color, "sigma-space", p->sigma_space, NULL);
  gst_util_set_object_arg (G_OBJECT (element), "mode",
      p->gaussian ? "gaussian" : "bilateral");
}

void
channels_yuv_from_rgb (const guint8 * rgb, gint width, gint height,
    Channel * yuv)
{
  gint c, i;

  for (c = 0; c < 3; c++)
    yuv[c] = channel_new (width, height, 8);
  for (i = 0; i < width * height; i++) {
    gdouble r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    gdouble v[3] = { 0.299 * r + 0.587 * g + 0.114 * b,
      128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
      128 + 0.5 * r - 0.418688 * g - 0.081312 * b
    };

    for (c = 0; c < 3; c++)
      yuv[c].data[i] = (guint8) CLAMP (lrint (v[c]), 0, 255);
  }
}

Channel
channel_subsample (const Channel * in, gint width, gint height)
{
  gint fx = in->width / width, fy = in->height / height, x, y, i, j;
  Channel out = channel_new (width, height, in->bits);

  fail_unless (fx * width == in->width && fy * height == in->height);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      gint sum = 0;

      for (j = 0; j < fy; j++)
        for (i = 0; i < fx; i++)
          sum += in->data[(y * fy + j) * in->width + x * fx + i];
      out.data[y * width + x] = (guint16) ((2 * sum + fx * fy) / (2 * fx * fy));
    }
  return out;
}

guint
channels_for_format (const gchar * format, gint width, gint height,
    guint32 seed, Channel * ch)
{
  GstVideoInfo info = info_for (format, width, height);
  gint bits = format_bits (GST_VIDEO_INFO_FORMAT (&info));
  guint n = GST_VIDEO_INFO_N_COMPONENTS (&info), c;

  for (c = 0; c < n; c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
    gboolean alpha = GST_VIDEO_INFO_HAS_ALPHA (&info) && c == GST_VIDEO_COMP_A;
    gint top = alpha ? (1 << GST_VIDEO_INFO_COMP_DEPTH (&info, c)) - 1 :
        (1 << bits) - 1;
    GRand *rand;
    Channel base = channel_random (w, h, seed + c);
    gsize k;

    if (bits == 8) {
      ch[c] = base;
      continue;
    }
    rand = g_rand_new_with_seed (seed + c);
    ch[c] = channel_new (w, h, GST_VIDEO_INFO_COMP_DEPTH (&info, c));
    for (k = 0; k < (gsize) w * h; k++) {
      /* Alpha is noise over its depth: it must come back as it was. */
      gint v = alpha ? g_rand_int_range (rand, 0, top + 1) :
          base.data[k] * top / 255 + g_rand_int_range (rand, 0,
          MAX (top / 255, 1));

      ch[c].data[k] = (guint16) MIN (v, top);
    }
    channels_free (&base, 1);
    g_rand_free (rand);
  }
  return n;
}

GPtrArray *
gpu_test_hog_memory (void)
{
  GPtrArray *blocks = g_ptr_array_new ();
  size_t free_bytes = 0, total = 0, chunk;
  void *block;

  fail_unless_equals_int (cudaMemGetInfo (&free_bytes, &total), cudaSuccess);
  if (free_bytes > (64 << 20)
      && cudaMalloc (&block, free_bytes - (64 << 20)) == cudaSuccess)
    g_ptr_array_add (blocks, block);
  for (chunk = 16 << 20; chunk >= 4096; chunk /= 4)
    while (cudaMalloc (&block, chunk) == cudaSuccess)
      g_ptr_array_add (blocks, block);
  cudaGetLastError ();
  return blocks;
}

void
gpu_test_free_hog (GPtrArray * blocks)
{
  guint i;

  for (i = 0; i < blocks->len; i++)
    fail_unless_equals_int (cudaFree (g_ptr_array_index (blocks, i)),
        cudaSuccess);
  g_ptr_array_unref (blocks);
}

static GstPadProbeReturn
offer_pool (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool *pool = user_data;

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    guint size = 0;

    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
  }
  return GST_PAD_PROBE_OK;
}

void
gpu_test_offer_pool (GstHarness * h, GstBufferPool * pool)
{
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      offer_pool, gst_object_ref (pool), gst_object_unref);
}

gpointer
gpu_test_driver_function (const gchar * name)
{
  typedef CUresult (*InitFunc) (unsigned int flags);
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  InitFunc init;
  gpointer func;

  fail_unless (lib != NULL, "%s", dlerror ());
  init = (InitFunc) dlsym (lib, "cuInit");
  func = dlsym (lib, name);
  fail_unless (init && func, "no %s in libcuda", name);
  fail_unless_equals_int (init (0), CUDA_SUCCESS);
  /* libcuda stays loaded: the runtime holds it too */
  dlclose (lib);
  return func;
}

GstHarness *
filter_harness_full (const gchar * format, gint width, gint height,
    const gchar * cuda_middle, FilterSetup setup, gconstpointer data,
    GstCaps * caps)
{
  GstHarness *h;
  GstBus *bus = gst_bus_new ();

  if (cuda_middle) {
    gchar *desc = g_strdup_printf ("cudaupload ! "
        "video/x-raw(memory:CUDAMemory),format=%s ! %s ! "
        "video/x-raw(memory:CUDAMemory),format=%s ! cudadownload", format,
        cuda_middle, format);

    h = gst_harness_new_parse (desc);
    g_free (desc);
  } else {
    h = gst_harness_new ("cudabilateral");
  }
  /* The bus first, so that what setting the filter up posts is kept. */
  gst_element_set_bus (h->element, bus);
  gst_object_unref (bus);
  if (setup && GST_IS_BIN (h->element)) {
    GstIterator *it = gst_bin_iterate_all_by_element_factory_name (GST_BIN
        (h->element), "cudabilateral");
    GValue item = G_VALUE_INIT;

    while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
      setup (g_value_get_object (&item), data);
      g_value_reset (&item);
    }
    g_value_unset (&item);
    gst_iterator_free (it);
  } else if (setup) {
    setup (h->element, data);
  }
  if (!caps)
    caps = caps_for (format, width, height);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  return h;
}

void
filter_setup_params (GstElement * filter, gconstpointer p)
{
  params_apply (filter, p);
}

GstHarness *
filter_harness_new (const gchar * format, gint width, gint height,
    const Params * p)
{
  return filter_harness_full (format, width, height, NULL,
      p ? filter_setup_params : NULL, p, NULL);
}

void
filter_harness_free (GstHarness * h)
{
  /* The messages queued on the bus hold the element that holds the bus:
   * neither would be freed. */
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
}
