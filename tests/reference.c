/* gst-cudabilateral: plain C reference of the filter's semantics. Written
 * for clarity, not speed: every tap reads through the border rule. Nothing
 * here comes from kernels/ (reference.h says why): the constants below
 * restate the element's on purpose. */

#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* OpenCV 5.0's bilateralFilter returns its input unchanged when either
 * sigma is at most this (earlier versions took such sigmas as 1); restated
 * here on purpose, the element has its own. */
#define MIN_SIGMA 1e-6

/* The element's largest Gaussian kernel, restated on purpose. */
#define GAUSSIAN_MAX_KSIZE 1201

/* The grid's constants, restated on purpose from the element's design
 * (docs/kernels.md, "The bilateral grid, exactly"): cells of padding on
 * each side of the spatial axes (and per range blur pass on the range
 * axis), the fewest levels a range cell holds (255 / 96), the fewest
 * pixels a spatial cell holds, colour's range sigma as a fraction of
 * sigma-color, and the most blur passes along a one-channel range axis. */
#define GRID_PAD 2
#define GRID_MAX_RANGE_CELLS 96
#define GRID_MIN_CELL_SPACE 4.0
#define GRID_COLOR_RANGE 0.4
#define GRID_MAX_RANGE_PASSES 4

int
cbf_reference_border_from_nick (const char *nick)
{
  static const char *const nicks[] = { "reflect-101", "replicate", "reflect",
    "wrap", "constant"
  };
  int i;

  for (i = 0; i < (int) (sizeof nicks / sizeof nicks[0]); i++)
    if (strcmp (nick, nicks[i]) == 0)
      return i;
  return -1;
}

int
cbf_reference_border_index (CbfReferenceBorder border, int p, int len)
{
  int skip;

  if (p >= 0 && p < len)
    return p;
  switch (border) {
    case CBF_REFERENCE_BORDER_REPLICATE:
      return p < 0 ? 0 : len - 1;
    case CBF_REFERENCE_BORDER_WRAP:
      /* C's % keeps the sign of @p: the modulo made positive. */
      return (p % len + len) % len;
    case CBF_REFERENCE_BORDER_CONSTANT:
      return -1;
    case CBF_REFERENCE_BORDER_REFLECT:
    case CBF_REFERENCE_BORDER_REFLECT_101:
    default:
      /* Mirrored about the edge (REFLECT) or about the edge sample
       * (REFLECT_101), again until inside: a window wider than the line
       * reflects it repeatedly. */
      if (len == 1)
        return 0;
      skip = border == CBF_REFERENCE_BORDER_REFLECT_101;
      while (p < 0 || p >= len)
        p = p < 0 ? -p - 1 + skip : 2 * len - 1 - p - skip;
      return p;
  }
}

int
cbf_reference_border_sample (int value, int bits)
{
  /* 255 is odd, so no value lies halfway between two samples. */
  return (int) (((long) value * ((1L << bits) - 1) * 2 + 255) / 510);
}

/* cbf_reference_border_index (@border, i - @radius, @len) for i in
 * [0, @len + 2 @radius): the border rule looked up once per row or
 * column, -1 where the constant is read. */
static int *
border_indices (CbfReferenceBorder border, int len, int radius)
{
  int *idx = malloc ((size_t) (len + 2 * radius) * sizeof (int));
  int i;

  for (i = 0; i < len + 2 * radius; i++)
    idx[i] = cbf_reference_border_index (border, i - radius, len);
  return idx;
}

/* Sample @i of an image of 8-bit (@bytes 1) or 16-bit samples. */
static inline int
sample_at (const void *image, size_t i, int bytes)
{
  return bytes == 1 ? ((const uint8_t *) image)[i] :
      ((const uint16_t *) image)[i];
}

static inline void
sample_set (void *image, size_t i, int bytes, long v)
{
  if (bytes == 1)
    ((uint8_t *) image)[i] = (uint8_t) v;
  else
    ((uint16_t *) image)[i] = (uint16_t) v;
}

static int
passes_through (double sigma_color, double sigma_space)
{
  return sigma_color <= MIN_SIGMA || sigma_space <= MIN_SIGMA;
}

/* Copies the pixels of an image of samples of @bytes bytes (strides and
 * pixels in samples). */
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

int
cbf_reference_radius (int diameter, double sigma_space)
{
  int radius;

  if (sigma_space <= 0)
    sigma_space = 1;
  /* cvRound rounds half to even, as lrint does in the default mode. */
  radius = diameter > 0 ? diameter / 2 : (int) lrint (sigma_space * 1.5);
  return radius < 1 ? 1 : radius;
}

void
cbf_reference_chroma_params (int diameter, double sigma_space, int factor,
    int *chroma_diameter, double *chroma_sigma_space)
{
  if (diameter > 0)
    *chroma_diameter = diameter / factor > 1 ? diameter / factor : 1;
  else
    *chroma_diameter = diameter;
  *chroma_sigma_space = sigma_space / factor;
}

double
cbf_reference_range_weight (double distance, int bits, double sigma_color)
{
  double s = (sigma_color > 0 ? sigma_color : 1) * ((1 << bits) - 1) / 255.0;

  return exp (-(distance * distance) / (2 * s * s));
}

double
cbf_reference_space_weight (int dx, int dy, int radius, double sigma_space)
{
  /* OpenCV: r = sqrt (i^2 + j^2) in double, the tap left out when
   * r > radius, the weight exp (r * r * (-0.5 / sigma^2)). */
  double r = sqrt ((double) dx * dx + (double) dy * dy);
  double s = sigma_space > 0 ? sigma_space : 1;

  if (r > radius)
    return 0;
  return exp (-(r * r) / (2 * s * s));
}

/* The bilateral filter in double on samples of @bytes bytes and @bits bits
 * (strides and pixels in samples), borders by @border (the constant
 * @border_sample in every channel); @values (NULL: none) takes the
 * results before rounding, width x height x channels. */
static void
exact_bilateral (const void *src, size_t src_stride, void *dst,
    size_t dst_stride, int bytes, int bits, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space, CbfReferenceBorder border,
    int border_sample, double *values)
{
  int radius = cbf_reference_radius (diameter, sigma_space);
  int side = 2 * radius + 1, n_taps = 0, largest = channels * ((1 << bits) - 1);
  int *tap_dx = malloc ((size_t) side * side * sizeof (int));
  int *tap_dy = malloc ((size_t) side * side * sizeof (int));
  double *tap_w = malloc ((size_t) side * side * sizeof (double));
  double *range = malloc ((size_t) (largest + 1) * sizeof (double));
  int *cols = border_indices (border, width, radius);
  int *rows = border_indices (border, height, radius);
  int x, y, t, c, d;

  for (d = 0; d <= largest; d++)
    range[d] = cbf_reference_range_weight (d, bits, sigma_color);
  for (y = -radius; y <= radius; y++)
    for (x = -radius; x <= radius; x++) {
      double w = cbf_reference_space_weight (x, y, radius, sigma_space);

      if (sqrt ((double) x * x + (double) y * y) > radius)
        continue;
      tap_dx[n_taps] = x;
      tap_dy[n_taps] = y;
      tap_w[n_taps++] = w;
    }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      size_t centre = y * src_stride + (size_t) x * pixel_samples;
      size_t out = y * dst_stride + (size_t) x * pixel_samples;
      double sum[3] = { 0, 0, 0 }, wsum = 0;

      for (t = 0; t < n_taps; t++) {
        int row = rows[y + tap_dy[t] + radius];
        int col = cols[x + tap_dx[t] + radius];
        size_t p = (size_t) row * src_stride + (size_t) col * pixel_samples +
            color_offset;
        int tap[3], distance = 0;
        double w;

        for (c = 0; c < channels; c++) {
          tap[c] = row < 0 || col < 0 ? border_sample :
              sample_at (src, p + c, bytes);
          distance += abs (tap[c] - sample_at (src, centre + color_offset + c,
                  bytes));
        }
        w = tap_w[t] * range[distance];
        for (c = 0; c < channels; c++)
          sum[c] += w * tap[c];
        wsum += w;
      }
      memcpy ((uint8_t *) dst + out * bytes,
          (const uint8_t *) src + centre * bytes,
          (size_t) pixel_samples * bytes);
      for (c = 0; c < channels; c++) {
        sample_set (dst, out + color_offset + c, bytes, lrint (sum[c] / wsum));
        if (values)
          values[((size_t) y * width + x) * channels + c] = sum[c] / wsum;
      }
    }
  free (tap_dx);
  free (tap_dy);
  free (tap_w);
  free (range);
  free (cols);
  free (rows);
}

void
cbf_reference_bilateral_border (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space, CbfReferenceBorder border,
    int border_sample)
{
  if (passes_through (sigma_color, sigma_space))
    copy_image (src, src_stride, dst, dst_stride, 1, width, height,
        pixel_bytes);
  else
    exact_bilateral (src, src_stride, dst, dst_stride, 1, 8, width, height,
        pixel_bytes, color_offset, channels, diameter, sigma_color,
        sigma_space, border, border_sample, NULL);
}

void
cbf_reference_bilateral (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space)
{
  cbf_reference_bilateral_border (src, src_stride, dst, dst_stride, width,
      height, pixel_bytes, color_offset, channels, diameter, sigma_color,
      sigma_space, CBF_REFERENCE_BORDER_REFLECT_101, 0);
}

void
cbf_reference_bilateral_deep_border (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int bits,
    int diameter, double sigma_color, double sigma_space,
    CbfReferenceBorder border, int border_sample)
{
  if (passes_through (sigma_color, sigma_space))
    copy_image (src, src_stride, dst, dst_stride, 2, width, height,
        pixel_samples);
  else
    exact_bilateral (src, src_stride, dst, dst_stride, 2, bits, width,
        height, pixel_samples, color_offset, channels, diameter,
        sigma_color, sigma_space, border, border_sample, NULL);
}

void
cbf_reference_bilateral_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int bits,
    int diameter, double sigma_color, double sigma_space)
{
  cbf_reference_bilateral_deep_border (src, src_stride, dst, dst_stride,
      width, height, pixel_samples, color_offset, channels, bits, diameter,
      sigma_color, sigma_space, CBF_REFERENCE_BORDER_REFLECT_101, 0);
}

void
cbf_reference_gaussian_params (int diameter, double sigma_space, int *ksize,
    double *sigma)
{
  /* The element's rule (its own is cbf_gaussian_params in kernels/),
   * restated: a positive diameter is the size, made odd upwards, with
   * sigma-space as given (getGaussianKernel derives a sigma <= 0 from the
   * size); otherwise OpenCV's size for 8-bit images from sigma-space,
   * which is taken as 1 where <= 0 (OpenCV would refuse both <= 0). */
  *sigma = sigma_space;
  if (diameter > 0) {
    *ksize = diameter | 1;
  } else {
    if (*sigma <= 0)
      *sigma = 1;
    *ksize = (int) lrint (*sigma * 6 + 1) | 1;
  }
  if (*ksize > GAUSSIAN_MAX_KSIZE)
    *ksize = GAUSSIAN_MAX_KSIZE;
}

void
cbf_reference_gaussian_kernel (double *coeffs, int ksize, double sigma)
{
  /* getGaussianKernel's fixed kernels (sizes 1, 3, 5, 7 with sigma <= 0). */
  static const double fixed[4][7] = {
    {1},
    {0.25, 0.5, 0.25},
    {0.0625, 0.25, 0.375, 0.25, 0.0625},
    {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125},
  };
  double sum = 0;
  int i;

  if (ksize % 2 == 1 && ksize <= 7 && sigma <= 0) {
    memcpy (coeffs, fixed[ksize / 2], ksize * sizeof (double));
    return;
  }
  if (sigma <= 0)
    sigma = 0.3 * ((ksize - 1) * 0.5 - 1) + 0.8;
  for (i = 0; i < ksize; i++) {
    double x = i - (ksize - 1) / 2.0;

    coeffs[i] = exp (-(x * x) / (2 * sigma * sigma));
    sum += coeffs[i];
  }
  for (i = 0; i < ksize; i++)
    coeffs[i] /= sum;
}

/* The separable Gaussian of both references, unrounded: channels
 * [@color_offset, + @channels) of each pixel of @src (samples of
 * @sample_bytes; @src_stride and @pixel_samples in samples), filtered
 * along the rows, then along the columns, into width x height x channels
 * values. @float_sums: the coefficients rounded to float and every product
 * and sum rounded to float, as OpenCV's 8-bit blur computes (double holds
 * a float product or sum exactly, so that rounding it to float is float
 * arithmetic); else double throughout. Borders by @border, the constant
 * @border_sample. */
static double *
separable_gaussian (const void *src, size_t src_stride, int sample_bytes,
    int width, int height, int pixel_samples, int color_offset,
    int channels, int diameter, double sigma_space, int float_sums,
    CbfReferenceBorder border, int border_sample)
{
  size_t n = (size_t) width * height * channels;
  double *rows = malloc (n * sizeof (double));
  double *out = malloc (n * sizeof (double));
  int ksize, radius, x, y, c, i;
  double sigma, *coeffs, padding_row = 0;

  cbf_reference_gaussian_params (diameter, sigma_space, &ksize, &sigma);
  radius = ksize / 2;
  coeffs = malloc (ksize * sizeof (double));
  cbf_reference_gaussian_kernel (coeffs, ksize, sigma);
  if (float_sums)
    for (i = 0; i < ksize; i++)
      coeffs[i] = (float) coeffs[i];
  /* A row of the constant padding after the horizontal pass, as a picture
   * padded before the blur gives it. */
  for (i = -radius; i <= radius; i++) {
    double term = coeffs[i + radius] * (double) border_sample;

    padding_row = float_sums ? (float) (padding_row + (float) term) :
        padding_row + term;
  }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++) {
        double sum = 0;

        for (i = -radius; i <= radius; i++) {
          int col = cbf_reference_border_index (border, x + i, width);
          double term = coeffs[i + radius] * (double) (col < 0 ?
              border_sample : sample_at (src, y * src_stride +
                  (size_t) col * pixel_samples + color_offset + c,
                  sample_bytes));

          sum = float_sums ? (float) (sum + (float) term) : sum + term;
        }
        rows[((size_t) y * width + x) * channels + c] = sum;
      }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++) {
        double sum = 0;

        for (i = -radius; i <= radius; i++) {
          int row = cbf_reference_border_index (border, y + i, height);
          double term = coeffs[i + radius] * (row < 0 ? padding_row :
              rows[((size_t) row * width + x) * channels + c]);

          sum = float_sums ? (float) (sum + (float) term) : sum + term;
        }
        out[((size_t) y * width + x) * channels + c] = sum;
      }
  free (rows);
  free (coeffs);
  return out;
}

void
cbf_reference_gaussian_border (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_space, CbfReferenceBorder border, int border_sample)
{
  double *sums = separable_gaussian (src, src_stride, 1, width, height,
      pixel_bytes, color_offset, channels, diameter, sigma_space, 1, border,
      border_sample);
  int x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      uint8_t *out = dst + y * dst_stride + x * pixel_bytes;

      memcpy (out, src + y * src_stride + x * pixel_bytes, pixel_bytes);
      for (c = 0; c < channels; c++)
        out[color_offset + c] = (uint8_t) lrintf ((float)
            sums[((size_t) y * width + x) * channels + c]);
    }
  free (sums);
}

void
cbf_reference_gaussian (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_space)
{
  cbf_reference_gaussian_border (src, src_stride, dst, dst_stride, width,
      height, pixel_bytes, color_offset, channels, diameter, sigma_space,
      CBF_REFERENCE_BORDER_REFLECT_101, 0);
}

void
cbf_reference_gaussian_deep_border (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_space, CbfReferenceBorder border, int border_sample)
{
  double *sums = separable_gaussian (src, src_stride, 2, width, height,
      pixel_samples, color_offset, channels, diameter, sigma_space, 0,
      border, border_sample);
  int x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      uint16_t *out = dst + y * dst_stride + x * pixel_samples;

      memcpy (out, src + y * src_stride + x * pixel_samples,
          pixel_samples * sizeof (uint16_t));
      for (c = 0; c < channels; c++) {
        double sum = sums[((size_t) y * width + x) * channels + c];

        /* The coefficients' sum may exceed 1 by a rounding. */
        out[color_offset + c] = (uint16_t) (sum > 65535 ? 65535 : lrint (sum));
      }
    }
  free (sums);
}

void
cbf_reference_gaussian_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_space)
{
  cbf_reference_gaussian_deep_border (src, src_stride, dst, dst_stride,
      width, height, pixel_samples, color_offset, channels, diameter,
      sigma_space, CBF_REFERENCE_BORDER_REFLECT_101, 0);
}

/* ---------------------------------------------------------------- */
/* method=grid, as docs/kernels.md ("The bilateral grid, exactly") states
 * it. */

void
cbf_reference_grid_cells (int width, int height, int channels, int bits,
    double sigma_color, double sigma_space, CbfReferenceGridCells * cells)
{
  /* Splat (1/12 cell^2) and trilinear read (1/6) beside the blur passes'
   * 1 cell^2 each. */
  const double splat_and_read = 0.25;
  double range_sigma, n;
  int max_passes, passes;

  if (sigma_space <= 0)
    sigma_space = 1;
  if (sigma_color <= 0)
    sigma_color = 1;
  range_sigma = channels == 1 ? sigma_color : GRID_COLOR_RANGE * sigma_color;
  max_passes = channels == 1 ? GRID_MAX_RANGE_PASSES : 1;
  cells->cell_space = (float) fmax (sigma_space / sqrt (1 + splat_and_read),
      GRID_MIN_CELL_SPACE);
  cells->cell_range = (float) fmax (range_sigma / sqrt (max_passes +
          splat_and_read), 255.0 / GRID_MAX_RANGE_CELLS);
  n = range_sigma / cells->cell_range;
  passes = (int) lround (n * n - splat_and_read);
  cells->range_passes = passes < 1 ? 1 : passes > max_passes ? max_passes :
      passes;
  cells->range_max = (float) ((1 << bits) - 1);
  cells->cell_range = (float) (cells->cell_range * (cells->range_max / 255.0));
  /* The sizes in float, as the element computes them. */
  cells->w = (int) ((width - 1) / cells->cell_space + 0.5f) + 1 + 2 * GRID_PAD;
  cells->h = (int) ((height - 1) / cells->cell_space + 0.5f) + 1 + 2 * GRID_PAD;
  cells->d = (int) (cells->range_max / cells->cell_range + 0.5f) + 1 +
      2 * GRID_PAD * cells->range_passes;
}

/* Where a pixel lies in the grid, in float as the GPU computes it: one
 * fused multiply-add per axis (nvcc contracts a * b + c into one). */
typedef struct
{
  float inv_space, inv_range, range_pad, range_max;
} GridPlace;

static inline void
grid_place (const GridPlace * g, int x, int y, int level, float *gx,
    float *gy, float *gz)
{
  *gx = fmaf ((float) x, g->inv_space, (float) GRID_PAD);
  *gy = fmaf ((float) y, g->inv_space, (float) GRID_PAD);
  *gz = fmaf (fminf ((float) level, g->range_max), g->inv_range, g->range_pad);
}

/* One axis of the blur, [1 4 6 4 1] / 16, zero outside the grid: @in into
 * @out, @n_cells cells of two values (sum, count), @len along the axis,
 * @stride cells apart. */
static void
grid_blur (const double *in, double *out, const CbfReferenceGridCells * g,
    int axis)
{
  static const double taps[5] = { 1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0,
    1 / 16.0
  };
  size_t stride = axis == 0 ? 1 : axis == 1 ? (size_t) g->w :
      (size_t) g->w * g->h;
  int len = axis == 0 ? g->w : axis == 1 ? g->h : g->d;
  int x, y, z, k;

  for (z = 0; z < g->d; z++)
    for (y = 0; y < g->h; y++)
      for (x = 0; x < g->w; x++) {
        size_t i = ((size_t) z * g->h + y) * g->w + x;
        int pos = axis == 0 ? x : axis == 1 ? y : z;
        double sum = 0, count = 0;

        for (k = -2; k <= 2; k++)
          if (pos + k >= 0 && pos + k < len) {
            size_t j = (size_t) ((ptrdiff_t) i + k * (ptrdiff_t) stride);

            sum += taps[k + 2] * in[2 * j];
            count += taps[k + 2] * in[2 * j + 1];
          }
        out[2 * i] = sum;
        out[2 * i + 1] = count;
      }
}

/* The grid of one channel of samples of @bytes bytes (@bits bits), the
 * channel's samples at @offset of each @pixel_samples-sample pixel, its
 * results into the same place of @dst, and before rounding (clamped to
 * the samples' range as the rounded ones are) into @values[(y width + x)
 * channels] (NULL: none). */
static void
grid_channel (const void *src, size_t src_stride, void *dst,
    size_t dst_stride, int bytes, int bits, int width, int height,
    int pixel_samples, int offset, int channels, double sigma_color,
    double sigma_space, double *values)
{
  CbfReferenceGridCells g;
  GridPlace place;
  size_t n;
  double *cells[2];
  int x, y, pass, cur;

  cbf_reference_grid_cells (width, height, channels, bits, sigma_color,
      sigma_space, &g);
  place.inv_space = 1.f / g.cell_space;
  place.inv_range = 1.f / g.cell_range;
  place.range_pad = (float) (GRID_PAD * g.range_passes);
  place.range_max = g.range_max;
  n = (size_t) g.w * g.h * g.d;
  cells[0] = calloc (2 * n, sizeof (double));
  cells[1] = calloc (2 * n, sizeof (double));

  /* Splat: each pixel's level and a count of 1 into its nearest cell. */
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      int level = sample_at (src, y * src_stride + (size_t) x * pixel_samples
          + offset, bytes);
      float gx, gy, gz;
      size_t i;

      grid_place (&place, x, y, level, &gx, &gy, &gz);
      i = ((size_t) (int) (gz + 0.5f) * g.h + (int) (gy + 0.5f)) * g.w +
          (int) (gx + 0.5f);
      cells[0][2 * i] += level;
      cells[0][2 * i + 1] += 1;
    }
  /* Blur along x, y, then range_passes times along the range axis. */
  grid_blur (cells[0], cells[1], &g, 0);
  grid_blur (cells[1], cells[0], &g, 1);
  cur = 0;
  for (pass = 0; pass < g.range_passes; pass++) {
    grid_blur (cells[cur], cells[1 - cur], &g, 2);
    cur = 1 - cur;
  }
  /* Slice: trilinear at the pixel's own position, sum over count. */
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      int level = sample_at (src, y * src_stride + (size_t) x * pixel_samples
          + offset, bytes);
      float gx, gy, gz, f[3];
      int base[3], corner;
      double sum = 0, count = 0, v;

      grid_place (&place, x, y, level, &gx, &gy, &gz);
      base[0] = (int) gx;
      base[1] = (int) gy;
      base[2] = (int) gz;
      f[0] = gx - base[0];
      f[1] = gy - base[1];
      f[2] = gz - base[2];
      for (corner = 0; corner < 8; corner++) {
        int dx = corner & 1, dy = (corner >> 1) & 1, dz = corner >> 2;
        double w = (dx ? f[0] : 1.0 - f[0]) * (dy ? f[1] : 1.0 - f[1]) *
            (dz ? f[2] : 1.0 - f[2]);
        size_t i = ((size_t) (base[2] + dz) * g.h + base[1] + dy) * g.w +
            base[0] + dx;

        sum += w * cells[cur][2 * i];
        count += w * cells[cur][2 * i + 1];
      }
      v = sum / count;
      sample_set (dst, y * dst_stride + (size_t) x * pixel_samples + offset,
          bytes, v > g.range_max ? (long) g.range_max : lrint (v));
      if (values)
        values[((size_t) y * width + x) * channels] =
            v > g.range_max ? g.range_max : v;
    }
  free (cells[0]);
  free (cells[1]);
}

static void
grid_image (const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int bytes, int bits, int width, int height, int pixel_samples,
    int color_offset, int channels, double sigma_color, double sigma_space,
    double *values)
{
  int c;

  copy_image (src, src_stride, dst, dst_stride, bytes, width, height,
      pixel_samples);
  if (passes_through (sigma_color, sigma_space))
    return;
  /* One grid per channel, each placed and averaged by its own level. */
  for (c = 0; c < channels; c++)
    grid_channel (src, src_stride, dst, dst_stride, bytes, bits, width,
        height, pixel_samples, color_offset + c, channels, sigma_color,
        sigma_space, values ? values + c : NULL);
}

void
cbf_reference_grid (const uint8_t * src, size_t src_stride, uint8_t * dst,
    size_t dst_stride, int width, int height, int pixel_bytes,
    int color_offset, int channels, double sigma_color, double sigma_space)
{
  grid_image (src, src_stride, dst, dst_stride, 1, 8, width, height,
      pixel_bytes, color_offset, channels, sigma_color, sigma_space, NULL);
}

void
cbf_reference_grid_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int bits,
    double sigma_color, double sigma_space)
{
  grid_image (src, src_stride, dst, dst_stride, 2, bits, width, height,
      pixel_samples, color_offset, channels, sigma_color, sigma_space, NULL);
}

/* ---------------------------------------------------------------- */
/* The strength mask. */

/* The source position of destination column (or row) @x. */
static double
mask_position (int x, int src_len, int dst_len)
{
  double p = (x + 0.5) * src_len / dst_len - 0.5;

  return p < 0 ? 0 : p > src_len - 1 ? src_len - 1 : p;
}

double
cbf_reference_mask_level (const uint8_t * mask, size_t pitch, int src_w,
    int src_h, int dst_w, int dst_h, int x, int y)
{
  double sx = mask_position (x, src_w, dst_w);
  double sy = mask_position (y, src_h, dst_h);
  int x0 = (int) floor (sx), y0 = (int) floor (sy);
  int x1 = x0 + 1 < src_w ? x0 + 1 : x0, y1 = y0 + 1 < src_h ? y0 + 1 : y0;
  double a = sx - x0, b = sy - y0;
  const uint8_t *r0 = mask + (size_t) y0 * pitch;
  const uint8_t *r1 = mask + (size_t) y1 * pitch;

  return (1 - b) * ((1 - a) * r0[x0] + a * r0[x1]) +
      b * ((1 - a) * r1[x0] + a * r1[x1]);
}

int
cbf_reference_mask_sample (const uint8_t * mask, size_t pitch, int src_w,
    int src_h, int dst_w, int dst_h, int x, int y)
{
  return (int) floor (cbf_reference_mask_level (mask, pitch, src_w, src_h,
          dst_w, dst_h, x, y) + 0.5);
}

int
cbf_reference_mask_blend (int in, int filtered, int m)
{
  return in + (int) lround ((double) (filtered - in) * m / 255.0);
}

/* ---------------------------------------------------------------- */
/* The temporal filter. */

void
cbf_reference_values (CbfReferenceMode mode, const void *src,
    size_t src_stride, int sample_bytes, int bits, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space, double *values)
{
  cbf_reference_values_border (mode, src, src_stride, sample_bytes, bits,
      width, height, pixel_samples, color_offset, channels, diameter,
      sigma_color, sigma_space, CBF_REFERENCE_BORDER_REFLECT_101, 0, values);
}

void
cbf_reference_values_border (CbfReferenceMode mode, const void *src,
    size_t src_stride, int sample_bytes, int bits, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space, CbfReferenceBorder border,
    int border_sample, double *values)
{
  size_t scratch_stride = (size_t) width * pixel_samples;
  void *scratch;
  int x, y, c;

  if (mode == CBF_REFERENCE_GAUSSIAN) {
    double *sums = separable_gaussian (src, src_stride, sample_bytes, width,
        height, pixel_samples, color_offset, channels, diameter, sigma_space,
        sample_bytes == 1, border, border_sample);

    /* 8-bit sums are float sums, as the rounded reference takes them. */
    memcpy (values, sums, (size_t) width * height * channels * sizeof (double));
    free (sums);
    return;
  }
  if (passes_through (sigma_color, sigma_space)) {
    for (y = 0; y < height; y++)
      for (x = 0; x < width; x++)
        for (c = 0; c < channels; c++)
          values[((size_t) y * width + x) * channels + c] = sample_at (src,
              y * src_stride + (size_t) x * pixel_samples + color_offset + c,
              sample_bytes);
    return;
  }
  scratch = malloc (scratch_stride * height * sample_bytes);
  if (mode == CBF_REFERENCE_GRID)
    grid_image (src, src_stride, scratch, scratch_stride, sample_bytes, bits,
        width, height, pixel_samples, color_offset, channels, sigma_color,
        sigma_space, values);
  else
    exact_bilateral (src, src_stride, scratch, scratch_stride, sample_bytes,
        bits, width, height, pixel_samples, color_offset, channels,
        diameter, sigma_color, sigma_space, border, border_sample, values);
  free (scratch);
}

void
cbf_reference_temporal (const double *values, const void *prev,
    size_t prev_stride, void *dst, size_t dst_stride, int sample_bytes,
    int bits, int width, int height, int pixel_samples, int color_offset,
    int channels, double strength, double sigma)
{
  double s = bits > 8 ? sigma * ((1 << bits) - 1) / 255.0 : sigma;
  int x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      const double *b = values + ((size_t) y * width + x) * channels;
      size_t at = (size_t) x * pixel_samples + color_offset;
      double p[3] = { 0, 0, 0 }, d = 0, g = 0;

      if (prev) {
        for (c = 0; c < channels; c++) {
          p[c] = sample_at (prev, y * prev_stride + at + c, sample_bytes);
          d += fabs (b[c] - p[c]);
        }
        g = strength * exp (-d * d / (2 * s * s));
      }
      for (c = 0; c < channels; c++)
        sample_set (dst, y * dst_stride + at + c, sample_bytes,
            lrint (b[c] + g * (p[c] - b[c])));
    }
}

/* ---------------------------------------------------------------- */
/* Regions. */

int
cbf_reference_region_weight (const int (*boxes)[4], int n, double feather,
    int outside, int fx, int fy, int x, int y)
{
  double cx = (x + 0.5) * fx, cy = (y + 0.5) * fy, best = 0;
  int i, m;

  for (i = 0; i < n; i++) {
    double dx = fmax (fmax (boxes[i][0] - cx, cx - boxes[i][2]), 0);
    double dy = fmax (fmax (boxes[i][1] - cy, cy - boxes[i][3]), 0);
    double d = sqrt (dx * dx + dy * dy);
    double w = d == 0 ? 1 : feather > 0 ? 1 - d / feather : 0;

    best = fmax (best, w);
  }
  m = (int) floor (255 * best + 0.5);
  return outside ? 255 - m : m;
}
