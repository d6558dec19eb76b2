/* gst-cudabilateral: plain C reference of chroma guided by luma. Written
 * for clarity, not speed; nothing here comes from kernels/ or gst/
 * (reference_chroma.h says why). */

#include "reference_chroma.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sigma at or below which the filter passes its input (reference.c's
 * rule, OpenCV 5.0's), restated on purpose. */
#define MIN_SIGMA 1e-6

static inline int
sample_get (const void *image, size_t i, int bytes)
{
  return bytes == 1 ? ((const uint8_t *) image)[i] :
      ((const uint16_t *) image)[i];
}

static inline void
sample_put (void *image, size_t i, int bytes, long v)
{
  if (bytes == 1)
    ((uint8_t *) image)[i] = (uint8_t) v;
  else
    ((uint16_t *) image)[i] = (uint16_t) v;
}

/* The guide's filter along one direction subsampled by @sub: how many
 * luma samples it weighs, their offsets from 2x (or x) and weights. */
static int
guide_taps (int sub, int cosited, int offset[3], int weight[3])
{
  if (sub == 1) {
    offset[0] = 0;
    weight[0] = 1;
    return 1;
  }
  if (cosited) {
    offset[0] = -1;
    weight[0] = 1;
    offset[1] = 0;
    weight[1] = 2;
    offset[2] = 1;
    weight[2] = 1;
    return 3;
  }
  offset[0] = 0;
  weight[0] = 1;
  offset[1] = 1;
  weight[1] = 1;
  return 2;
}

static int
clamp_index (int p, int len)
{
  return p < 0 ? 0 : p >= len ? len - 1 : p;
}

void
cbf_reference_chroma_guide (const void *luma, size_t luma_stride,
    void *guide, size_t guide_stride, int sample_bytes, int width,
    int height, int sub_x, int sub_y, int h_cosited, int v_cosited)
{
  int gw = (width + sub_x - 1) / sub_x, gh = (height + sub_y - 1) / sub_y;
  int off_x[3], w_x[3], off_y[3], w_y[3];
  int n_x = guide_taps (sub_x, h_cosited, off_x, w_x);
  int n_y = guide_taps (sub_y, v_cosited, off_y, w_y);
  int x, y, i, j;

  for (y = 0; y < gh; y++)
    for (x = 0; x < gw; x++) {
      long sum = 0, total = 0;

      for (j = 0; j < n_y; j++)
        for (i = 0; i < n_x; i++) {
          int lx = clamp_index (x * sub_x + off_x[i], width);
          int ly = clamp_index (y * sub_y + off_y[j], height);
          long w = (long) w_x[i] * w_y[j];

          sum += w * sample_get (luma, (size_t) ly * luma_stride + lx,
              sample_bytes);
          total += w;
        }
      sample_put (guide, (size_t) y * guide_stride + x, sample_bytes,
          (sum + total / 2) / total);
    }
}

void
cbf_reference_chroma_guided_values (const void *guide, size_t guide_stride,
    const void *src, size_t src_stride, int sample_bytes, int bits,
    int width, int height, int diameter, double sigma_color,
    double sigma_space, CbfReferenceBorder border, int border_sample,
    double *values)
{
  int radius, side, top = (1 << bits) - 1, x, y, dx, dy, d;
  double *space, *range;

  if (sigma_color <= MIN_SIGMA || sigma_space <= MIN_SIGMA) {
    for (y = 0; y < height; y++)
      for (x = 0; x < width; x++)
        values[(size_t) y * width + x] = sample_get (src,
            (size_t) y * src_stride + x, sample_bytes);
    return;
  }
  radius = cbf_reference_radius (diameter, sigma_space);
  side = 2 * radius + 1;
  space = malloc ((size_t) side * side * sizeof (double));
  range = malloc ((size_t) (top + 1) * sizeof (double));
  for (dy = -radius; dy <= radius; dy++)
    for (dx = -radius; dx <= radius; dx++)
      space[(dy + radius) * side + dx + radius] =
          cbf_reference_space_weight (dx, dy, radius, sigma_space);
  for (d = 0; d <= top; d++)
    range[d] = cbf_reference_range_weight (d, bits, sigma_color);

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      int centre = sample_get (guide, (size_t) y * guide_stride + x,
          sample_bytes);
      double sum = 0, wsum = 0;

      for (dy = -radius; dy <= radius; dy++) {
        int row = cbf_reference_border_index (border, y + dy, height);

        for (dx = -radius; dx <= radius; dx++) {
          double ws = space[(dy + radius) * side + dx + radius], w;
          int col = cbf_reference_border_index (border, x + dx, width);
          int g, c;

          if (ws == 0)
            continue;
          /* The constant border: both planes read the constant there. */
          if (row < 0 || col < 0) {
            g = c = border_sample;
          } else {
            g = sample_get (guide, (size_t) row * guide_stride + col,
                sample_bytes);
            c = sample_get (src, (size_t) row * src_stride + col, sample_bytes);
          }
          w = ws * range[abs (g - centre)];
          sum += w * c;
          wsum += w;
        }
      }
      /* The centre tap's weight is 1: wsum is never 0. */
      values[(size_t) y * width + x] = sum / wsum;
    }
  free (space);
  free (range);
}

void
cbf_reference_chroma_guided_border (const void *guide, size_t guide_stride,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int sample_bytes, int bits, int width, int height, int diameter,
    double sigma_color, double sigma_space, CbfReferenceBorder border,
    int border_sample)
{
  double *values = malloc ((size_t) width * height * sizeof (double));
  int x, y;

  cbf_reference_chroma_guided_values (guide, guide_stride, src, src_stride,
      sample_bytes, bits, width, height, diameter, sigma_color, sigma_space,
      border, border_sample, values);
  /* lrint rounds half to even in the default rounding mode. */
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      sample_put (dst, (size_t) y * dst_stride + x, sample_bytes,
          lrint (values[(size_t) y * width + x]));
  free (values);
}

void
cbf_reference_chroma_guided (const void *guide, size_t guide_stride,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int sample_bytes, int bits, int width, int height, int diameter,
    double sigma_color, double sigma_space)
{
  cbf_reference_chroma_guided_border (guide, guide_stride, src, src_stride,
      dst, dst_stride, sample_bytes, bits, width, height, diameter,
      sigma_color, sigma_space, CBF_REFERENCE_BORDER_REFLECT_101, 0);
}
