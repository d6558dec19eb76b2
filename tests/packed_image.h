/* gst-cudabilateral test support: frames of one plane of packed 8-bit
 * pixels (the 32-bit RGB formats and GRAY8) as whole images, with the
 * bytes the element passes through (alpha, padding) kept beside the
 * filtered ones; the element's output of one, the C reference's, and the
 * comparison of the two (filtered bytes within +-1, the others exact).
 * For test_golden, test_mask, test_grid, test_element_gpu and test_border. */

#ifndef CBF_TEST_PACKED_IMAGE_H
#define CBF_TEST_PACKED_IMAGE_H

#include <gst/gst.h>
#include <gst/check/gstharness.h>

#include "gpu_support.h"

typedef struct
{
  const gchar *name;
  gint pixel_bytes;
  gint color_offset;           /* first filtered byte */
  gint channels;                /* filtered bytes */
} PackedFormat;

/* RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR (the colour formats,
 * N_PACKED_COLOR of them) and GRAY8 (PACKED_GRAY8), in that order. */
extern const PackedFormat packed_formats[];

#define N_PACKED_COLOR 8
#define PACKED_GRAY8 (&packed_formats[N_PACKED_COLOR])

/* A frame in system memory, packed or with padded rows. */
typedef struct
{
  const PackedFormat *format;
  gint width, height;
  gsize stride;
  guint8 *pixels;
} Image;

/* An image of zeros, its rows @extra_stride bytes longer than its pixels. */
Image image_new (const PackedFormat * f, gint width, gint height,
    gsize extra_stride);

/* Gradient, an edge and noise; the passthrough byte random. */
Image image_random (const PackedFormat * f, gint width, gint height,
    gsize extra_stride, guint32 seed);

/* A golden case's pixels (packed, 1 or 3 bytes) placed into @f's layout,
 * the passthrough byte random. */
Image image_from_golden (const PackedFormat * f, const guint8 * pnm,
    gint width, gint height, gint channels, gsize extra_stride,
    guint32 seed);

void image_free (Image * im);

GstCaps *image_caps (const Image * im);

/* The element's border and border-value properties: @border the rule's
 * nick (NULL: the default, reflect-101), @value the constant's value in
 * 8-bit levels (the default 0). */
typedef struct
{
  const gchar *border;
  guint value;
} ImageBorder;

/* Sets @b (NULL: nothing) on @element, each property only where it is not
 * the default, so that a build without them still runs the tests that
 * leave them so. */
void image_border_apply (GstElement * element, const ImageBorder * b);

/* A harness around cudabilateral with @p, negotiated for @im;
 * image_harness_new_border: and with the border @b (NULL: the default). */
GstHarness *image_harness_new (const Image * im, const Params * p);
GstHarness *image_harness_new_border (const Image * im, const Params * p,
    const ImageBorder * b);

/* Writes @im into @buf through a video frame: @buf's video meta (its
 * strides) decides the layout. */
void image_fill_buffer (GstBuffer * buf, const Image * im);

/* Pushes @in (taking it) through @h, its output pool poisoned first, and
 * returns the output, which must be in pinned memory, read back into an
 * Image. */
Image image_filter_buffer (GstHarness * h, const Image * im, GstBuffer * in);

/* The same for a system-memory buffer with @im's own stride, described by
 * a video meta. */
Image image_filter (GstHarness * h, const Image * im);

/* Expected output by the C reference (itself checked against OpenCV), of
 * @p's mode; image_reference_grid: of method=grid, by the reference
 * grid. */
Image image_reference (const Image * im, const Params * p);
/* The same with the border @b (NULL: reflect-101), the constant's value
 * taken as 8-bit samples. */
Image image_reference_border (const Image * im, const Params * p,
    const ImageBorder * b);
Image image_reference_grid (const Image * im, const Params * p);

/* Fails the test unless the filtered bytes of @out are within +-1 of
 * @expected's and the others are @in's. */
void image_assert_matches (const Image * out, const Image * expected,
    const Image * in, const gchar * what);

/* @in filtered by @h (set to @p) against the C reference of @p, as
 * image_assert_matches compares them. */
void image_check_filtered (GstHarness * h, const Image * in,
    const Params * p, const gchar * what);

#endif
