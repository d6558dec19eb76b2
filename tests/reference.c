/* gst-cudabilateral: plain C reference of the bilateral filter. Written
 * for clarity, not speed: every tap reads through the border rule. */

#include "reference.h"
#include "bilateral.h"
#include "gaussian.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* OpenCV's borderInterpolate for BORDER_REFLECT_101. */
static int
reflect101 (int p, int len)
{
  if (len == 1)
    return 0;
  while (p < 0 || p >= len)
    p = p < 0 ? -p : 2 * len - 2 - p;
  return p;
}

/* Sample @i of an image of 8-bit (@bytes 1) or 16-bit samples. */
static inline int
sample_at (const void *image, size_t i, int bytes)
{
  return bytes == 1 ? ((const uint8_t *) image)[i] :
      ((const uint16_t *) image)[i];
}

/* OpenCV 5.0's bilateralFilter returns its input unchanged when either
 * sigma is at most 1e-6 (earlier versions took such sigmas as 1). */
static int
passes_through (double sigma_color, double sigma_space)
{
  return sigma_color <= 1e-6 || sigma_space <= 1e-6;
}

static void
copy_image (const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int bytes, int width, int height, int pixel_samples)
{
  int y;

  for (y = 0; y < height; y++)
    memcpy ((uint8_t *) dst + y * dst_stride * bytes,
        (const uint8_t *) src + y * src_stride * bytes,
        (size_t) width * pixel_samples * bytes);
}

/* The filter in float, OpenCV's arithmetic, on samples of @bytes bytes
 * (strides and pixels in samples): weight space_lut[dx^2 + dy^2] x
 * @range[L1 distance >> @shift], float sums, the quotient rounded. Both
 * references below: the 8-bit one with OpenCV's tables, the deep one with
 * the deep range table. */
static void
float_bilateral (const void *src, size_t src_stride, void *dst,
    size_t dst_stride, int bytes, int width, int height, int pixel_samples,
    int colour_offset, int channels, int radius, const float *tables,
    const float *range, int shift)
{
  const float *space_lut = cbf_tables_space (tables);
  const float *half_width = cbf_tables_half_width (tables, radius);
  int x, y, dx, dy, c;

  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      size_t centre = y * src_stride + x * pixel_samples;
      size_t out = y * dst_stride + x * pixel_samples;
      float sum[3] = { 0, 0, 0 }, wsum = 0;

      for (dy = -radius; dy <= radius; dy++) {
        int hw = (int) half_width[abs (dy)];
        size_t row = reflect101 (y + dy, height) * src_stride;

        for (dx = -hw; dx <= hw; dx++) {
          size_t p = row + reflect101 (x + dx, width) * pixel_samples;
          int distance = 0;
          float w;

          for (c = 0; c < channels; c++)
            distance += abs (sample_at (src, p + colour_offset + c, bytes) -
                sample_at (src, centre + colour_offset + c, bytes));
          w = space_lut[dx * dx + dy * dy] * range[distance >> shift];
          for (c = 0; c < channels; c++)
            sum[c] += w * sample_at (src, p + colour_offset + c, bytes);
          wsum += w;
        }
      }
      memcpy ((uint8_t *) dst + out * bytes,
          (const uint8_t *) src + centre * bytes, pixel_samples * bytes);
      for (c = 0; c < channels; c++) {
        long v = lrintf (sum[c] / wsum);

        if (bytes == 1)
          ((uint8_t *) dst)[out + colour_offset + c] = (uint8_t) v;
        else
          ((uint16_t *) dst)[out + colour_offset + c] = (uint16_t) v;
      }
    }
  }
}

void
cbf_reference_bilateral (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_color, double sigma_space)
{
  int radius = cbf_bilateral_radius (diameter, sigma_space);
  float *tables;

  if (passes_through (sigma_color, sigma_space)) {
    copy_image (src, src_stride, dst, dst_stride, 1, width, height,
        pixel_bytes);
    return;
  }
  tables = malloc (cbf_bilateral_tables_len (radius) * sizeof (float));
  cbf_bilateral_tables_fill (tables, radius, sigma_color, sigma_space);
  float_bilateral (src, src_stride, dst, dst_stride, 1, width, height,
      pixel_bytes, colour_offset, channels, radius, tables, tables, 0);
  free (tables);
}

void
cbf_reference_bilateral_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int colour_offset, int channels, int bits,
    int diameter, double sigma_color, double sigma_space)
{
  int radius = cbf_bilateral_radius (diameter, sigma_space);
  double sc = (sigma_color > 0 ? sigma_color : 1) * ((1 << bits) - 1) / 255.0;
  double ss = sigma_space > 0 ? sigma_space : 1;
  double gauss_color = -0.5 / (sc * sc), gauss_space = -0.5 / (ss * ss);
  int x, y, dx, dy, c;

  if (passes_through (sigma_color, sigma_space)) {
    copy_image (src, src_stride, dst, dst_stride, 2, width, height,
        pixel_samples);
    return;
  }
  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      const uint16_t *centre = src + y * src_stride + x * pixel_samples;
      uint16_t *out = dst + y * dst_stride + x * pixel_samples;
      double sum[3] = { 0, 0, 0 }, wsum = 0;

      for (dy = -radius; dy <= radius; dy++) {
        const uint16_t *row = src + reflect101 (y + dy, height) * src_stride;

        for (dx = -radius; dx <= radius; dx++) {
          const uint16_t *p;
          double distance = 0, w;

          if (sqrt ((double) (dx * dx + dy * dy)) > radius)
            continue;
          p = row + reflect101 (x + dx, width) * pixel_samples;
          for (c = 0; c < channels; c++)
            distance += abs (p[colour_offset + c] - centre[colour_offset + c]);
          w = exp ((dx * dx + dy * dy) * gauss_space) *
              exp (distance * distance * gauss_color);
          for (c = 0; c < channels; c++)
            sum[c] += w * p[colour_offset + c];
          wsum += w;
        }
      }
      memcpy (out, centre, pixel_samples * sizeof (uint16_t));
      for (c = 0; c < channels; c++)
        out[colour_offset + c] = (uint16_t) lrint (sum[c] / wsum);
    }
  }
}

void
cbf_reference_bilateral_deep_table (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int colour_offset, int channels, int bits,
    int diameter, double sigma_color, double sigma_space)
{
  int radius = cbf_bilateral_radius (diameter, sigma_space);
  float *tables, *range;

  if (passes_through (sigma_color, sigma_space)) {
    copy_image (src, src_stride, dst, dst_stride, 2, width, height,
        pixel_samples);
    return;
  }
  tables = malloc (cbf_bilateral_tables_len (radius) * sizeof (float));
  range = malloc (CBF_DEEP_RANGE_LUT_LEN * sizeof (float));
  cbf_bilateral_tables_fill (tables, radius, sigma_color, sigma_space);
  cbf_deep_range_fill (range, bits, channels, sigma_color);
  float_bilateral (src, src_stride, dst, dst_stride, 2, width, height,
      pixel_samples, colour_offset, channels, radius, tables, range,
      cbf_deep_range_shift (bits, channels));
  free (tables);
  free (range);
}

/* The separable Gaussian of both references, unrounded: channels
 * [@colour_offset, + @channels) of each pixel of @src (samples of
 * @sample_bytes; @src_stride and @pixel_samples in samples), filtered
 * along the rows, then along the columns, into width x height x channels
 * values. @float_sums: every product and sum rounded to float, as the 8-bit
 * kernels compute (double holds a float product or sum exactly, so that
 * rounding it to float is float arithmetic); else double throughout. */
static double *
separable_gaussian (const void *src, size_t src_stride, int sample_bytes,
    int width, int height, int pixel_samples, int colour_offset,
    int channels, int diameter, double sigma_space, int float_sums)
{
  size_t n = (size_t) width * height * channels;
  double *rows = malloc (n * sizeof (double));
  double *out = malloc (n * sizeof (double));
  int ksize, radius, x, y, c, i;
  double sigma;
  float *coeffs;

  cbf_gaussian_params (diameter, sigma_space, &ksize, &sigma);
  radius = ksize / 2;
  coeffs = malloc (ksize * sizeof (float));
  cbf_gaussian_kernel_fill (coeffs, ksize, sigma);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++) {
        double sum = 0;

        for (i = -radius; i <= radius; i++) {
          double term = coeffs[i + radius] * (double) sample_at (src,
              y * src_stride + reflect101 (x + i, width) * pixel_samples +
              colour_offset + c, sample_bytes);

          sum = float_sums ? (float) (sum + (float) term) : sum + term;
        }
        rows[((size_t) y * width + x) * channels + c] = sum;
      }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++) {
        double sum = 0;

        for (i = -radius; i <= radius; i++) {
          double term = coeffs[i + radius] *
              rows[((size_t) reflect101 (y + i, height) * width + x) *
              channels + c];

          sum = float_sums ? (float) (sum + (float) term) : sum + term;
        }
        out[((size_t) y * width + x) * channels + c] = sum;
      }
  free (rows);
  free (coeffs);
  return out;
}

void
cbf_reference_gaussian (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_space)
{
  double *sums = separable_gaussian (src, src_stride, 1, width, height,
      pixel_bytes, colour_offset, channels, diameter, sigma_space, 1);
  int x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      uint8_t *out = dst + y * dst_stride + x * pixel_bytes;

      memcpy (out, src + y * src_stride + x * pixel_bytes, pixel_bytes);
      for (c = 0; c < channels; c++)
        out[colour_offset + c] = (uint8_t) lrintf ((float)
            sums[((size_t) y * width + x) * channels + c]);
    }
  free (sums);
}

void
cbf_reference_gaussian_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int colour_offset, int channels, int diameter,
    double sigma_space)
{
  double *sums = separable_gaussian (src, src_stride, 2, width, height,
      pixel_samples, colour_offset, channels, diameter, sigma_space, 0);
  int x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      uint16_t *out = dst + y * dst_stride + x * pixel_samples;

      memcpy (out, src + y * src_stride + x * pixel_samples,
          pixel_samples * sizeof (uint16_t));
      for (c = 0; c < channels; c++) {
        double sum = sums[((size_t) y * width + x) * channels + c];

        /* The coefficients' float sum may exceed 1 by a rounding. */
        out[colour_offset + c] = (uint16_t) (sum > 65535 ? 65535 : lrint (sum));
      }
    }
  free (sums);
}
