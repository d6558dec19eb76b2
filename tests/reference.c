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

void
cbf_reference_bilateral (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_color, double sigma_space)
{
  int radius = cbf_bilateral_radius (diameter, sigma_space);
  float *tables = malloc (cbf_bilateral_tables_len (radius) * sizeof (float));
  const float *range_lut = tables;
  const float *space_lut = cbf_tables_space (tables);
  const float *half_width = cbf_tables_half_width (tables, radius);
  int x, y, dx, dy, c;

  cbf_bilateral_tables_fill (tables, radius, sigma_color, sigma_space);

  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      const uint8_t *centre = src + y * src_stride + x * pixel_bytes;
      uint8_t *out = dst + y * dst_stride + x * pixel_bytes;
      float sum[3] = { 0, 0, 0 }, wsum = 0;

      for (dy = -radius; dy <= radius; dy++) {
        int hw = (int) half_width[abs (dy)];
        const uint8_t *row = src + reflect101 (y + dy, height) * src_stride;
        for (dx = -hw; dx <= hw; dx++) {
          const uint8_t *p = row + reflect101 (x + dx, width) * pixel_bytes;
          int distance = 0;
          float w;
          for (c = 0; c < channels; c++)
            distance += abs (p[colour_offset + c] - centre[colour_offset + c]);
          w = space_lut[dx * dx + dy * dy] * range_lut[distance];
          for (c = 0; c < channels; c++)
            sum[c] += w * p[colour_offset + c];
          wsum += w;
        }
      }
      memcpy (out, centre, pixel_bytes);
      for (c = 0; c < channels; c++)
        out[colour_offset + c] = (uint8_t) lrintf (sum[c] / wsum);
    }
  }
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
  int shift = cbf_deep_range_shift (bits, channels);
  float *tables = malloc (cbf_bilateral_tables_len (radius) * sizeof (float));
  float *range = malloc (CBF_DEEP_RANGE_LUT_LEN * sizeof (float));
  const float *space, *half_width;
  int x, y, dx, dy, c;

  cbf_bilateral_tables_fill (tables, radius, sigma_color, sigma_space);
  space = cbf_tables_space (tables);
  half_width = cbf_tables_half_width (tables, radius);
  cbf_deep_range_fill (range, bits, channels, sigma_color);
  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      const uint16_t *centre = src + y * src_stride + x * pixel_samples;
      uint16_t *out = dst + y * dst_stride + x * pixel_samples;
      float sum[3] = { 0, 0, 0 }, wsum = 0;

      for (dy = -radius; dy <= radius; dy++) {
        const uint16_t *row = src + reflect101 (y + dy, height) * src_stride;
        int hw = (int) half_width[dy < 0 ? -dy : dy];

        for (dx = -hw; dx <= hw; dx++) {
          const uint16_t *p = row + reflect101 (x + dx, width) * pixel_samples;
          int distance = 0;
          float w;

          for (c = 0; c < channels; c++)
            distance += abs (p[colour_offset + c] - centre[colour_offset + c]);
          w = space[dx * dx + dy * dy] * range[distance >> shift];
          for (c = 0; c < channels; c++)
            sum[c] += w * p[colour_offset + c];
          wsum += w;
        }
      }
      memcpy (out, centre, pixel_samples * sizeof (uint16_t));
      for (c = 0; c < channels; c++)
        out[colour_offset + c] = (uint16_t) lrintf (sum[c] / wsum);
    }
  }
  free (tables);
  free (range);
}

void
cbf_reference_gaussian (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int colour_offset, int channels, int diameter,
    double sigma_space)
{
  int ksize, radius;
  double sigma;
  float *coeffs;
  /* Rows after the horizontal pass, all of them, one float per channel. */
  float *rows = malloc ((size_t) width * height * channels * sizeof (float));
  int x, y, c, i;

  cbf_gaussian_params (diameter, sigma_space, &ksize, &sigma);
  radius = ksize / 2;
  coeffs = malloc (ksize * sizeof (float));
  cbf_gaussian_kernel_fill (coeffs, ksize, sigma);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++) {
        float sum = 0;
        for (i = -radius; i <= radius; i++)
          sum += coeffs[i + radius] * src[y * src_stride +
              reflect101 (x + i, width) * pixel_bytes + colour_offset + c];
        rows[((size_t) y * width + x) * channels + c] = sum;
      }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      uint8_t *out = dst + y * dst_stride + x * pixel_bytes;

      memcpy (out, src + y * src_stride + x * pixel_bytes, pixel_bytes);
      for (c = 0; c < channels; c++) {
        float sum = 0;
        for (i = -radius; i <= radius; i++)
          sum += coeffs[i + radius] * rows[((size_t) reflect101 (y + i,
                      height) * width + x) * channels + c];
        out[colour_offset + c] = (uint8_t) lrintf (sum);
      }
    }
  free (rows);
  free (coeffs);
}
