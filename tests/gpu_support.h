/* gst-cudabilateral test support for the tests that need a GPU. */

#ifndef CBF_TEST_GPU_SUPPORT_H
#define CBF_TEST_GPU_SUPPORT_H

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "../gst/cbfformats.h"

/* How many CUDA devices there are: 0 (saying why: no NVIDIA driver, or
 * none that sees a device; the caller then exits 77, "skipped"), or -1
 * (saying why) where a driver is installed but CUDA cannot use it, which
 * is a failure. Asks the CUDA runtime itself, not the plugin's code. */
gint gpu_test_devices (void);

/* A suite @name of one test case, "general", with a timeout of @timeout_s
 * seconds (0: check's default), returned in @tc to add the tests to. */
Suite *test_suite_new (const gchar * name, guint timeout_s, TCase ** tc);

/* What a test program needs to run. */
typedef enum
{
  TEST_NEEDS_NOTHING,           /* runs anywhere, in this process */
  TEST_NEEDS_GPU,               /* a CUDA device, else skipped */
  TEST_NEEDS_TWO_GPUS,          /* two CUDA devices, else skipped */
} TestNeeds;

/* The body of a test program's main (): exits 77 ("skipped") without the
 * CUDA devices @needs asks for, fails where a driver is broken or where
 * one of the GStreamer elements in @elements (NULL-terminated) is missing
 * on a machine that has them, else runs the suite @make_suite makes (made
 * with test_suite_new) and returns check's verdict. */
int test_main (int argc, char **argv, TestNeeds needs,
    const gchar * const *elements, Suite * (*make_suite) (void),
    const gchar * file);

/* main () of a test program: TEST_MAIN (suite_func, TEST_NEEDS_GPU,
 * "cudaupload", NULL) */
#define TEST_MAIN(make_suite, needs, ...)                                   \
  int main (int argc, char **argv)                                          \
  {                                                                         \
    static const gchar *const elements[] = { __VA_ARGS__ };                 \
    return test_main (argc, argv, needs, elements, make_suite, __FILE__);   \
  }

/* Makes the sink pad of @h answer the allocation query with @pool,
 * downstream's own, before the harness adds its allocator and metas. */
void gpu_test_offer_pool (GstHarness * h, GstBufferPool * pool);

/* Fills the output pool of @element (a negotiated GstBaseTransform) with
 * poison, so that a byte the element does not write shows up as a
 * mismatch. */
void gpu_test_poison_output_pool (GstElement * element);

typedef struct
{
  gint diameter;
  gdouble sigma_color, sigma_space;
  gboolean gaussian;            /* mode=gaussian (sigma_color unused) */
} Params;

/* A @width x @height crop at (@x, @y) of the picture @name in data/
 * (camera.png, astronaut.png), decoded by GStreamer (pngdec) and converted
 * to GRAY8 (@channels 1) or RGB (3): packed rows of @width x @channels
 * bytes. Real pictures, for the checks an approximation (method=grid)
 * needs. */
guint8 *picture_crop (const gchar * name, gint channels, gint x, gint y,
    gint width, gint height);

/* Writes @pixels (packed rows of @format: GRAY8 or RGB) as a PNG file,
 * with GStreamer's pngenc; write_gray_png: GRAY8. */
void write_png (const gchar * path, const gchar * format,
    const guint8 * pixels, gint width, gint height);
void write_gray_png (const gchar * path, const guint8 * pixels, gint width,
    gint height);

/* The element's parameters and mode set from @p. */
void params_apply (GstElement * element, const Params * p);

/* The C reference of @p's mode (cbf_reference_bilateral or
 * cbf_reference_gaussian) on @channels bytes at @color_offset of each
 * @pixel_bytes-byte pixel; the other bytes copied. */
void params_reference (const Params * p, const guint8 * src, gsize src_stride,
    guint8 * dst, gsize dst_stride, gint width, gint height,
    gint pixel_bytes, gint color_offset, gint channels);

/* The same for method=grid in mode=bilateral: cbf_reference_grid with @p's
 * sigmas (its diameter unused). */
void params_reference_grid (const Params * p, const guint8 * src,
    gsize src_stride, guint8 * dst, gsize dst_stride, gint width,
    gint height, gint pixel_bytes, gint color_offset, gint channels);

/* Caps and video info of a system-memory frame. */
GstCaps *caps_for (const gchar * format, gint width, gint height);
GstVideoInfo info_for (const gchar * format, gint width, gint height);

/* @base aligned by GstVideoAlignment paddings of @top, @bottom, @left and
 * @right pixels (all 0: the default layout, made even where subsampling
 * needs it). */
GstVideoInfo padded_info (const GstVideoInfo * base, guint top,
    guint bottom, guint left, guint right);

/* A system-memory frame of @base's format and size, its rows padded left
 * and right and its planes after padding rows when @padded (a video meta
 * says where), filled with noise. */
GstBuffer *padded_buffer_new (const GstVideoInfo * base, gboolean padded,
    guint32 seed);

/* The bits of the range a format's samples are filtered in, what the
 * element scales sigma-color to (times (2^bits - 1) / 255): 8 for the
 * 8-bit formats, 16 for 16-bit samples, 10 or 12 for samples of that many
 * bits in the low or the high bits of 16 (I420_10LE, P010_10LE) and for
 * the 10-bit fields of BGR10A2_LE and RGB10A2_LE. Fails for a format it
 * does not know. */
gint format_bits (GstVideoFormat format);

/* Every format the element takes, in its caps' order (cbfformats.h), for
 * the tests that run them all: static const gchar *fmts[] = {
 * GPU_TEST_ALL_FORMATS }; GPU_TEST_8BIT_FORMATS and GPU_TEST_DEEP_FORMATS
 * the same for those of 8 bits and of 10 to 16 bits. */
#define GPU_TEST_FORMAT_NAME(format, layout, bits) #format,
#define GPU_TEST_ALL_FORMATS CBF_FORMATS (GPU_TEST_FORMAT_NAME)
#define GPU_TEST_FORMAT_8BIT(format, layout, bits) \
  GPU_TEST_IF_8BIT_##bits (#format)
#define GPU_TEST_FORMAT_DEEP(format, layout, bits) \
  GPU_TEST_IF_DEEP_##bits (#format)
#define GPU_TEST_8BIT_FORMATS CBF_FORMATS (GPU_TEST_FORMAT_8BIT)
#define GPU_TEST_DEEP_FORMATS CBF_FORMATS (GPU_TEST_FORMAT_DEEP)
/* By the bits of a line of cbfformats.h: its name or nothing (bits
 * missing here fail to compile). */
#define GPU_TEST_IF_8BIT_8(name) name,
#define GPU_TEST_IF_8BIT_10(name)
#define GPU_TEST_IF_8BIT_12(name)
#define GPU_TEST_IF_8BIT_16(name)
#define GPU_TEST_IF_DEEP_8(name)
#define GPU_TEST_IF_DEEP_10(name) name,
#define GPU_TEST_IF_DEEP_12(name) name,
#define GPU_TEST_IF_DEEP_16(name) name,

/* The largest difference from the reference a filtered sample of @format
 * may show: 1 at 8, 10 and 12 bits, 16 at 16 bits (the 12-bit precision
 * of the deep range weights). */
gint format_tolerance (GstVideoFormat format);

/* One component of a frame, packed: width x height values as the element
 * filters them, of @bits bits: an 8-bit format's bytes (8), a 16-bit
 * sample's value (P010's and P012's MSB-aligned samples shifted down to
 * their 10 or 12 bits, I420_10LE's as stored in the low bits), or a field
 * of the 32-bit word of BGR10A2_LE and RGB10A2_LE (10 bits, or the 2 of
 * alpha). The reference takes a channel of 8 bits with the 8-bit
 * reference (OpenCV's arithmetic), a deeper one with the double-precision
 * deep reference at its bits. */
typedef struct
{
  gint width, height;
  gint bits;
  guint16 *data;
} Channel;

/* A channel of @width x @height values of @bits bits, all 0. */
Channel channel_new (gint width, gint height, gint bits);

/* Component @c of a mapped frame from / into a packed channel; components
 * numbered as GStreamer does (R, G, B, A; Y, U, V). The channel read has
 * the component's depth as its bits. MSB-aligned samples are shifted;
 * reading fails where a bit below one is set (the element leaves them
 * zero, as decoders write them), writing where a value does not fit. */
void write_component (GstVideoFrame * frame, guint c, const Channel * ch);
Channel read_component (GstVideoFrame * frame, guint c);

/* A frame of @format holding @in[c] in component c. */
GstBuffer *frame_from_channels (const gchar * format, gint width,
    gint height, const Channel * in, gboolean padded, guint32 seed);

/* Pushes @buf (taking it) through the harness; the output's components
 * into @out. */
void push_and_read_channels (GstHarness * h, const gchar * format,
    gint width, gint height, GstBuffer * buf, Channel * out);

/* The same, the output pool of the harness's element (a GstBaseTransform)
 * poisoned first. */
void filter_frame (GstHarness * h, const gchar * format, gint width,
    gint height, GstBuffer * buf, Channel * out);

/* Fails the test unless every value of @out is within @tolerance of
 * @expected's. */
void assert_channel_matches (const Channel * out, const Channel * expected,
    gint tolerance, const gchar * what, const gchar * format, guint c);

void channels_free (Channel * ch, guint n);
/* A PGM file's picture (8 bits). */
Channel channel_from_pgm (const gchar * file);
/* Gradient, an edge and noise (8 bits). */
Channel channel_random (gint width, gint height, guint32 seed);
/* The reference of @p's mode on @in at its bits, with @p, or with chroma's
 * parameters derived from @p; channel_reference_grid: method=grid's. */
Channel channel_reference (const Channel * in, const Params * p,
    gboolean chroma);
Channel channel_reference_grid (const Channel * in, const Params * p,
    gboolean chroma);
/* The expected output channels, by the reference at the format's bits, of
 * a frame of @info holding @in: the three colour channels filtered
 * together where chroma is not subsampled (the RGB formats, Y444 and its
 * deep kin), else each channel on its own (chroma with chroma's
 * parameters). Returns how many it wrote into @expected: the filtered
 * ones (an alpha channel, which passes unchanged, is not among them). */
guint channels_reference_for_format (const GstVideoInfo * info,
    const Channel * in, const Params * p, Channel * expected);
/* The same for method=grid (mode=bilateral): the colour formats' three
 * channels together (a grid each, colour's cells), the others each on its
 * own. */
guint channels_reference_grid_for_format (const GstVideoInfo * info,
    const Channel * in, const Params * p, Channel * expected);

/* The temporal filter's expected output channels, grouped as
 * channels_reference_for_format groups them: B, the spatial result before
 * rounding of @p's mode (or of method=grid where @grid), moved towards
 * @prev, the element's previous output (NULL: none), with @strength and
 * @sigma (cbf_reference_values, cbf_reference_temporal). Returns how many
 * it wrote. */
guint channels_temporal_for_format (const GstVideoInfo * info,
    const Channel * in, const Channel * prev, const Params * p,
    gboolean grid, gdouble strength, gdouble sigma, Channel * expected);
/* Y, U and V of packed RGB pixels (@width x @height), BT.601 full range,
 * each rounded, at full size, into @yuv[0..2] (8 bits). */
void channels_yuv_from_rgb (const guint8 * rgb, gint width, gint height,
    Channel * yuv);

/* @in averaged down by whole factors to @width x @height (each value the
 * rounded mean of its block): the chroma of a subsampled format. */
Channel channel_subsample (const Channel * in, gint width, gint height);

/* Random channels of @format's component sizes and depths, one per
 * component (up to GST_VIDEO_MAX_COMPONENTS), seeded @seed + c: for 8-bit
 * formats channel_random's; for deeper ones its gradient, edge and noise
 * scaled to the format's bits with noise in the bits below, alpha uniform
 * over its own depth. Returns the number of components. */
guint channels_for_format (const gchar * format, gint width, gint height,
    guint32 seed, Channel * ch);

/* The expected output channels of a frame of @info holding @in with the
 * border rule @border (a nick of the element's border property) and, for
 * the constant, @border_value in 8-bit levels scaled to the format's bits:
 * grouped as channels_reference_for_format groups them, chroma with
 * chroma's parameters and the same constant. Returns how many it wrote
 * (an alpha channel, which passes unchanged, is not among them). */
guint channels_reference_border_for_format (const GstVideoInfo * info,
    const Channel * in, const Params * p, const gchar * border,
    guint border_value, Channel * expected);

/* Takes all of the current device's free memory but a few KiB, in blocks,
 * so that the next allocation of any size fails; gpu_test_free_hog gives
 * it back. */
GPtrArray *gpu_test_hog_memory (void);
void gpu_test_free_hog (GPtrArray * blocks);

/* A function of the CUDA driver API, from libcuda itself (cuInit called),
 * so that calling it goes through no runtime state. */
gpointer gpu_test_driver_function (const gchar * name);

/* How filter_harness_full sets a filter up, with its @data. */
typedef void (*FilterSetup) (GstElement * filter, gconstpointer data);

/* A harness around cudabilateral in system memory or, with @cuda_middle
 * (a gst-launch description holding cudabilateral), around "cudaupload !
 * CUDA caps ! @cuda_middle ! CUDA caps ! cudadownload"; every cudabilateral
 * in it set up by @setup (NULL: none) before the caps, so that the first
 * plan is the one asked for; a bus of its own, so that a missing output is
 * explained by the element's error; then @caps (transfer full; NULL: those
 * of a @format @width x @height frame) on both sides. Freed with
 * filter_harness_free. */
GstHarness *filter_harness_full (const gchar * format, gint width,
    gint height, const gchar * cuda_middle, FilterSetup setup,
    gconstpointer data, GstCaps * caps);

/* A FilterSetup applying a Params (params_apply). */
void filter_setup_params (GstElement * filter, gconstpointer p);

/* filter_harness_full in system memory with @p's parameters (none if
 * NULL) and caps of @format. */
GstHarness *filter_harness_new (const gchar * format, gint width,
    gint height, const Params * p);
void filter_harness_free (GstHarness * h);

#endif
