/* gst-cudabilateral test support: frames of packed 8-bit pixels as whole
 * images (packed_image.h). */

#include "packed_image.h"
#include "golden.h"
#include "reference.h"

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

const PackedFormat packed_formats[] = {
  {"RGBA", 4, 0, 3}, {"BGRA", 4, 0, 3}, {"RGBx", 4, 0, 3}, {"BGRx", 4, 0, 3},
  {"ARGB", 4, 1, 3}, {"ABGR", 4, 1, 3}, {"xRGB", 4, 1, 3}, {"xBGR", 4, 1, 3},
  {"GRAY8", 1, 0, 1},
};

Image
image_new (const PackedFormat * f, gint width, gint height, gsize extra_stride)
{
  Image im = { f, width, height, (gsize) width * f->pixel_bytes + extra_stride,
    NULL
  };
  im.pixels = g_malloc0 (im.stride * height);
  return im;
}

/* Gradient, an edge and noise; the passthrough byte random. */
Image
image_random (const PackedFormat * f, gint width, gint height,
    gsize extra_stride, guint32 seed)
{
  Image im = image_new (f, width, height, extra_stride);
  GRand *rand = g_rand_new_with_seed (seed);
  gint x, y, b;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (b = 0; b < f->pixel_bytes; b++) {
        gint v = (x * 7 + y * 3 + b * 50) % 256 + ((x > width / 2) ? 60 : 0) +
            g_rand_int_range (rand, -25, 26);
        im.pixels[y * im.stride + x * f->pixel_bytes + b] = CLAMP (v, 0, 255);
      }
  g_rand_free (rand);
  return im;
}

GstCaps *
image_caps (const Image * im)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      im->format->name, "width", G_TYPE_INT, im->width, "height", G_TYPE_INT,
      im->height, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

void
image_border_apply (GstElement * element, const ImageBorder * b)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);

  if (b && b->border && !g_str_equal (b->border, "reflect-101")) {
    GParamSpec *spec = g_object_class_find_property (klass, "border");
    GEnumValue *rule;

    fail_unless (spec != NULL && G_IS_PARAM_SPEC_ENUM (spec),
        "the element has no border property");
    /* By its nick, so that a misspelt or renamed rule fails here. */
    rule = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (spec)->enum_class,
        b->border);
    fail_unless (rule != NULL, "the border property has no %s", b->border);
    g_object_set (element, "border", rule->value, NULL);
  }
  if (b && b->value != 0) {
    fail_unless (g_object_class_find_property (klass, "border-value") !=
        NULL, "the element has no border-value property");
    g_object_set (element, "border-value", b->value, NULL);
  }
}

GstHarness *
image_harness_new_border (const Image * im, const Params * p,
    const ImageBorder * b)
{
  GstHarness *h = gst_harness_new ("cudabilateral");

  params_apply (h->element, p);
  image_border_apply (h->element, b);
  gst_harness_set_caps (h, image_caps (im), image_caps (im));
  return h;
}

GstHarness *
image_harness_new (const Image * im, const Params * p)
{
  return image_harness_new_border (im, p, NULL);
}

/* Writes @im into @buf through a video frame: @buf's video meta (its
 * strides) decides the layout. */
void
image_fill_buffer (GstBuffer * buf, const Image * im)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  gint y;
  GstCaps *caps = image_caps (im);

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < im->height; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), im->pixels +
        y * im->stride, (gsize) im->width * im->format->pixel_bytes);
  gst_video_frame_unmap (&frame);
}

/* A system-memory buffer with @im's own stride, described by a video
 * meta. */
static GstBuffer *
image_buffer_new (const Image * im)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, im->stride * im->height,
      NULL);
  GstVideoInfo info;
  GstCaps *caps = image_caps (im);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { (gint) im->stride, };

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), im->width, im->height, 1, offset, stride);
  image_fill_buffer (buf, im);
  return buf;
}

/* Pushes @in (taking it) and returns the output read back into an Image. */
Image
image_filter_buffer (GstHarness * h, const Image * im, GstBuffer * in)
{
  GstBuffer *out;
  GstVideoInfo info;
  GstVideoFrame frame;
  GstCaps *caps = image_caps (im);
  Image result = image_new (im->format, im->width, im->height, 0);
  gint y;

  gpu_test_poison_output_pool (h->element);

  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL, "no output buffer");
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
          "CbfPinnedMemory"), "output is not in pinned memory");
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (y = 0; y < im->height; y++)
    memcpy (result.pixels + y * result.stride,
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), result.stride);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  return result;
}

Image
image_filter (GstHarness * h, const Image * im)
{
  return image_filter_buffer (h, im, image_buffer_new (im));
}

/* Expected output by the C reference (itself checked against OpenCV), of
 * @p's mode or (@grid) of the reference grid. */
static Image
reference_of (const Image * im, const Params * p, gboolean grid)
{
  Image ref = image_new (im->format, im->width, im->height, 0);

  (grid ? params_reference_grid : params_reference) (p, im->pixels,
      im->stride, ref.pixels, ref.stride, im->width, im->height,
      im->format->pixel_bytes, im->format->color_offset, im->format->channels);
  return ref;
}

Image
image_reference (const Image * im, const Params * p)
{
  return reference_of (im, p, FALSE);
}

Image
image_reference_grid (const Image * im, const Params * p)
{
  return reference_of (im, p, TRUE);
}

Image
image_reference_border (const Image * im, const Params * p,
    const ImageBorder * b)
{
  Image ref = image_new (im->format, im->width, im->height, 0);
  gint rule = cbf_reference_border_from_nick (b && b->border ? b->border :
      "reflect-101");
  gint sample = b ? cbf_reference_border_sample ((gint) b->value, 8) : 0;

  fail_unless (rule >= 0, "no border rule %s", b->border);
  if (p->gaussian)
    cbf_reference_gaussian_border (im->pixels, im->stride, ref.pixels,
        ref.stride, im->width, im->height, im->format->pixel_bytes,
        im->format->color_offset, im->format->channels, p->diameter,
        p->sigma_space, rule, sample);
  else
    cbf_reference_bilateral_border (im->pixels, im->stride, ref.pixels,
        ref.stride, im->width, im->height, im->format->pixel_bytes,
        im->format->color_offset, im->format->channels, p->diameter,
        p->sigma_color, p->sigma_space, rule, sample);
  return ref;
}

/* Colour bytes within +-1, the passthrough byte exact. */
void
image_assert_matches (const Image * out, const Image * expected,
    const Image * in, const gchar * what)
{
  const PackedFormat *f = out->format;
  gint max_diff, fx, fy, x, y, b;
  guint bad = images_diff_beyond_one (out->pixels, out->stride,
      expected->pixels, expected->stride, out->width, out->height,
      f->pixel_bytes, f->color_offset, f->pixel_bytes, f->color_offset,
      f->channels, &max_diff, &fx, &fy);

  fail_unless (bad == 0, "%s (%s %dx%d): %u values off by more than 1, max "
      "%d, first at %d,%d", what, f->name, out->width, out->height, bad,
      max_diff, fx, fy);
  for (y = 0; y < out->height; y++)
    for (x = 0; x < out->width; x++)
      for (b = 0; b < f->pixel_bytes; b++) {
        if (b >= f->color_offset && b < f->color_offset + f->channels)
          continue;
        fail_unless_equals_int (out->pixels[y * out->stride +
                x * f->pixel_bytes + b],
            in->pixels[y * in->stride + x * f->pixel_bytes + b]);
      }
}

void
image_check_filtered (GstHarness * h, const Image * in, const Params * p,
    const gchar * what)
{
  Image expected = image_reference (in, p);
  Image out = image_filter (h, in);

  image_assert_matches (&out, &expected, in, what);
  image_free (&out);
  image_free (&expected);
}

void
image_free (Image * im)
{
  g_free (im->pixels);
  im->pixels = NULL;
}

/* A golden case's pixels (packed, 1 or 3 bytes) placed into @f's layout,
 * the passthrough byte random. */
Image
image_from_golden (const PackedFormat * f, const guint8 * pnm, gint width,
    gint height, gint channels, gsize extra_stride, guint32 seed)
{
  Image im = image_random (f, width, height, extra_stride, seed);
  gint x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++)
        im.pixels[y * im.stride + x * f->pixel_bytes + f->color_offset + c] =
            pnm[(y * width + x) * channels + c];
  return im;
}
