/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Weight tables of the bilateral filter, computed exactly as OpenCV's
 * bilateralFilter_8u does (modules/imgproc/src/bilateral_filter.dispatch.cpp)
 * so that the GPU and the CPU reference share one definition. */

#include "bilateral.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* OpenCV's cvRound: round half to even, as lrint does in the default
 * rounding mode. */
static int
cv_round (double value)
{
  return (int) lrint (value);
}

int
cbf_bilateral_radius (int diameter, double sigma_space)
{
  int radius;

  if (sigma_space <= 0)
    sigma_space = 1;
  if (diameter <= 0)
    radius = cv_round (sigma_space * 1.5);
  else
    radius = diameter / 2;
  return radius < 1 ? 1 : radius;
}

/* The largest x with x * x <= @v (v >= 0). */
static int
isqrt (int v)
{
  int x = (int) sqrt ((double) v);

  while (x * x > v)
    x--;
  while ((x + 1) * (x + 1) <= v)
    x++;
  return x;
}

int
cbf_bilateral_walk_radius (int radius, double sigma_space, int max_level)
{
  const double bound = 1.0 / ((double) CBF_WALK_SLACK * max_level);
  double space_coeff, left_out = 0;
  int walk, dx, dy;

  if (sigma_space <= 0)
    sigma_space = 1;
  space_coeff = -0.5 / (sigma_space * sigma_space);
  /* Down from the full disc, each radius's ring (the taps of its disc
   * outside the next smaller one) joins what is left out while that stays
   * within the bound; a ring is walked a row dy at a time, its columns
   * those beyond the smaller disc's half width, mirrored. */
  for (walk = radius; walk > 1; walk--) {
    double ring = 0;
    for (dy = -walk; dy <= walk; dy++) {
      int inner = (walk - 1) * (walk - 1) - dy * dy;
      int from = inner < 0 ? 0 : isqrt (inner) + 1;
      for (dx = from; dx <= isqrt (walk * walk - dy * dy); dx++)
        ring += (dx ? 2 : 1) * exp ((dx * dx + dy * dy) * space_coeff);
    }
    if (left_out + ring > bound)
      break;
    left_out += ring;
  }
  return walk;
}

void
cbf_bilateral_chroma_params (int diameter, double sigma_space, int factor,
    int *chroma_diameter, double *chroma_sigma_space)
{
  *chroma_diameter = diameter <= 0 ? diameter :
      diameter / factor < 1 ? 1 : diameter / factor;
  *chroma_sigma_space = sigma_space / factor;
}

size_t
cbf_bilateral_tables_len (int radius)
{
  size_t len = cbf_tables_class_weights_offset (radius);

  if (radius <= CBF_FAST_MAX_RADIUS)
    len = cbf_tables_color_int_weights_offset (radius) +
        (size_t) cbf_distance_class (radius, radius * radius + 1) *
        CBF_COLOR_CLASS_FLOATS;
  else if (radius <= CBF_FAST_EXTENDED_MAX_RADIUS)
    len = cbf_tables_int_weights_offset (radius) +
        (size_t) cbf_distance_class (radius, radius * radius + 1) *
        CBF_INT_CLASS_FLOATS;
  else if (radius <= CBF_WIDE_MAX_RADIUS)
    /* at most a table a class, and the zero table */
    len = cbf_tables_wide_channel_tables_offset (radius) +
        (size_t) (cbf_distance_class (radius, radius * radius + 1) + 1) *
        CBF_INT_CLASS_FLOATS;
  return len;
}

size_t
cbf_deep_tables_len (int radius)
{
  return CBF_DEEP_RANGE_LUT_LEN + radius * radius + 1 + radius + 1;
}

size_t
cbf_bilateral_tables_max_len (void)
{
  size_t max = 0;
  int r;

  for (r = 1; r <= CBF_MAX_RADIUS; r++) {
    if (cbf_bilateral_tables_len (r) > max)
      max = cbf_bilateral_tables_len (r);
    if (cbf_deep_tables_len (r) > max)
      max = cbf_deep_tables_len (r);
  }
  return max;
}

/* The IEEE binary16 bits of @value in [0, 1], rounded to nearest even. */
static uint16_t
half_bits (float value)
{
  int exponent;

  if (!(value > 0))
    return 0;
  if (value < 0x1p-14f)         /* subnormal: a multiple of 2^-24 */
    return (uint16_t) lrintf (value * 0x1p24f);
  /* value = 2^(exponent - 1) x [1, 2): 11 significant bits, 1024..2048 (a
   * 2048 carries into the exponent field by itself). */
  frexpf (value, &exponent);
  return (uint16_t) (((exponent - 1 + 15) << 10) +
      lrintf (ldexpf (value, 11 - exponent)) - 1024);
}

/* The space table and the half widths (cbf_bilateral_tables_len) from
 * @space_lut on. */
static void
fill_space (float *space_lut, int radius, double sigma_space)
{
  float *half_width = space_lut + radius * radius + 1;
  double space_coeff;
  int i;

  if (sigma_space <= 0)
    sigma_space = 1;
  space_coeff = -0.5 / (sigma_space * sigma_space);

  /* OpenCV takes r = sqrt (dx^2 + dy^2) and the weight exp (r * r * coeff);
   * indexing by the squared distance keeps the table small (radius^2 + 1). */
  for (i = 0; i <= radius * radius; i++) {
    double r = sqrt ((double) i);
    space_lut[i] = (float) exp (r * r * space_coeff);
  }

  /* A tap is kept when sqrt (dx^2 + dy^2) <= radius, i.e. when
   * dx^2 + dy^2 <= radius^2 (both sides are exact in double). */
  for (i = 0; i <= radius; i++) {
    int hw = 0;
    while ((hw + 1) * (hw + 1) + i * i <= radius * radius)
      hw++;
    half_width[i] = (float) hw;
  }
}

float
cbf_extended_int_scale (const float *space_lut, int radius)
{
  /* the largest sum of weights times 255 that stays below 2^32 */
  const double limit = 4294967295.0 / 255;
  double space_sum = 0;
  int dx, dy, taps = 0;

  for (dy = -radius; dy <= radius; dy++)
    for (dx = -radius; dx <= radius; dx++)
      if (dx * dx + dy * dy <= radius * radius) {
        space_sum += space_lut[dx * dx + dy * dy];
        taps++;
      }
  /* each weight rounds up by at most a half, and the scale's own rounding
   * to float by far less than the one taken off */
  if (65535 * space_sum + taps / 2.0 < limit)
    return 65535.f;
  return (float) floor ((limit - taps / 2.0) / space_sum) - 1;
}

/* The wide kernel's folded tables (bilateral.h): Gaussian spatial weights
 * are separable, the weight of (dx, dy) that of (dx, 0) times that of
 * (0, dy), so a table a column offset holds the first times the range
 * weight and the kernel carries the second by scaling its sums from row to
 * row. */
static void
fill_wide_fold (float *tables, int radius, const float *range_lut,
    const float *space_lut, double sigma_color)
{
  float *fold = tables + cbf_tables_wide_fold_offset (radius);
  float *factor = fold + (radius + 2) * CBF_RANGE_LUT_LEN;
  int j, d, k;

  memset (fold, 0, cbf_tables_wide_fold_len (radius) * sizeof *fold);
  for (j = 0; j <= radius; j++)
    for (d = 0; d < CBF_RANGE_LUT_LEN; d++)
      fold[j * CBF_RANGE_LUT_LEN + d] = space_lut[j * j] * range_lut[d];
  /* past the largest distance (765), for the pairs whose weight the
   * kernel computes, 2^(log2 (space) - y^2): the range scale (y over the
   * distance) and the log2 of the column's spatial weight (-inf for the
   * zero table's) */
  for (j = 0; j <= radius + 1; j++) {
    float *last = fold + (j + 1) * CBF_RANGE_LUT_LEN;
    last[-2] = (float) (sqrt (0.5 / log (2.0)) / sigma_color);
    last[-1] = j <= radius && space_lut[j * j] > 0.f ?
        (float) log2 (space_lut[j * j]) : -INFINITY;
  }
  for (k = 1; k <= radius; k++) {
    float inner = space_lut[(k - 1) * (k - 1)];
    factor[k] = inner > 0.f ? space_lut[k * k] / inner : 0.f;
  }
}

/* The wide one-channel kernel's weights (bilateral.h): a table a class
 * but for the classes whose weights all round to 0, which share table 0. */
static void
fill_wide_channel (float *tables, int radius, const float *range_lut,
    const float *space_lut)
{
  int32_t *header =
      (int32_t *) (tables + cbf_tables_wide_channel_offset (radius));
  int32_t *table_of = header + 4;
  uint16_t *weights = (uint16_t *) (tables +
      cbf_tables_wide_channel_tables_offset (radius));
  int v, d, n = 1;

  memset (header, 0, (size_t) ((char *) weights - (char *) header));
  memset (weights, 0, 256 * sizeof *weights);
  for (v = 0; v <= radius * radius; v++) {
    uint16_t *table = weights + (size_t) n * 256;
    int nonzero = 0;
    if (!cbf_is_tap_distance (radius, v))
      continue;
    for (d = 0; d < 256; d++) {
      /* the product as the float kernels form it, in half: its relative
       * rounding, unlike an integer's absolute one, keeps the many small
       * weights of a wide window */
      table[d] = half_bits (space_lut[v] * range_lut[d]);
      nonzero |= table[d];
    }
    if (nonzero)
      table_of[v] = n++;
  }
  header[0] = n;
}

void
cbf_deep_tables_fill (float *tables, int radius, int bits, int channels,
    double sigma_color, double sigma_space)
{
  cbf_deep_range_fill (tables, bits, channels, sigma_color);
  fill_space (tables + CBF_DEEP_RANGE_LUT_LEN, radius, sigma_space);
}

void
cbf_bilateral_tables_fill (float *tables, int radius, double sigma_color,
    double sigma_space)
{
  float *range_lut = tables;
  float *space_lut = tables + CBF_RANGE_LUT_LEN;
  double color_coeff;
  int i;

  if (sigma_color <= 0)
    sigma_color = 1;
  color_coeff = -0.5 / (sigma_color * sigma_color);
  for (i = 0; i < CBF_RANGE_LUT_LEN; i++)
    range_lut[i] = (float) exp ((double) i * i * color_coeff);
  fill_space (space_lut, radius, sigma_space);

  /* The per-class weights: the same float product the kernels would form
   * per tap (space * range), made once; one channel's as 16-bit integers,
   * colour's as half floats and 16-bit integers (bilateral.h); or the
   * wide kernels' tables. A class is numbered by counting the tap
   * distances below it, in step with v (the count per v from
   * cbf_distance_class alone costs O(r^4) each). The padding before
   * either is zeroed, so that the same parameters give the same copy. */
  if (radius <= CBF_WIDE_MAX_RADIUS)
    for (i = cbf_tables_class_weights_offset (radius);
        i < cbf_tables_color_class_weights_offset (radius); i++)
      tables[i] = 0.f;
  if (radius <= CBF_FAST_EXTENDED_MAX_RADIUS) {
    char *color = (char *) (tables +
        cbf_tables_color_class_weights_offset (radius));
    char *int_weights = (char *) (tables +
        cbf_tables_int_weights_offset (radius));
    char *color_ints = (char *) (tables +
        cbf_tables_color_int_weights_offset (radius));
    float int_scale = radius <= CBF_FAST_MAX_RADIUS ?
        (float) CBF_INT_WEIGHT_ONE : cbf_extended_int_scale (space_lut, radius);
    int v, d, class_index = 0;
    for (v = 0; v <= radius * radius; v++) {
      if (!cbf_is_tap_distance (radius, v))
        continue;
      for (d = 0; d < 256; d++) {
        float w = space_lut[v] * range_lut[d];
        /* w <= 1, so w x 2^15 (or the scale, at most 65535) fits 16
         * bits; lrintf rounds ties to even (the default rounding mode). */
        uint16_t scaled = (uint16_t) lrintf (w * int_scale);
        memcpy (int_weights + 2 * ((size_t) class_index * 256 + d), &scaled,
            sizeof scaled);
      }
      for (d = 0; d < CBF_RANGE_LUT_LEN; d++) {
        float w = space_lut[v] * range_lut[d];
        uint16_t h = half_bits (w);
        size_t at = 2 * ((size_t) class_index * CBF_RANGE_LUT_LEN + d);
        memcpy (color + at, &h, sizeof h);
        if (radius <= CBF_FAST_MAX_RADIUS) {
          uint16_t scaled =
              (uint16_t) lrintf (w * (float) CBF_COLOR_INT_WEIGHT_ONE);
          memcpy (color_ints + at, &scaled, sizeof scaled);
        }
      }
      class_index++;
    }
  } else if (radius <= CBF_WIDE_MAX_RADIUS) {
    fill_wide_fold (tables, radius, range_lut, space_lut, sigma_color);
    fill_wide_channel (tables, radius, range_lut, space_lut);
  }
}

/* The weights' parameters with the space table @space_lut. */
static void
weights_init (CbfFilterParams * weights, int radius, const float *space_lut,
    const float *dev_tables)
{
  int dx, dy, side = 2 * radius + 1;

  memset (weights, 0, sizeof (*weights));
  weights->radius = radius;
  weights->bilateral.tables_dev = dev_tables;
  if (radius > CBF_FAST_EXTENDED_MAX_RADIUS)
    return;
  for (dy = -radius; dy <= radius; dy++)
    for (dx = -radius; dx <= radius; dx++)
      if (dx * dx + dy * dy <= radius * radius) {
        int i = (dy + radius) * side + dx + radius;
        /* the taps that read the range table stop at radius 8 */
        if (radius <= CBF_FAST_MAX_RADIUS)
          weights->bilateral.space_taps[i] = space_lut[dx * dx + dy * dy];
        weights->bilateral.space_log2_taps[i] =
            (float) log2 (space_lut[dx * dx + dy * dy]);
      }
}

void
cbf_bilateral_weights_init (CbfFilterParams * weights, int radius,
    const float *host_tables, const float *dev_tables)
{
  weights_init (weights, radius, cbf_tables_space (host_tables), dev_tables);
  if (radius > CBF_FAST_EXTENDED_MAX_RADIUS && radius <= CBF_WIDE_MAX_RADIUS)
    memcpy (&weights->bilateral.wide_channel_tables,
        host_tables + cbf_tables_wide_channel_offset (radius),
        sizeof (int32_t));
}

void
cbf_deep_weights_init (CbfFilterParams * weights, int radius, int bits,
    double sigma_color, const float *host_tables, const float *dev_tables)
{
  weights_init (weights, radius, host_tables + CBF_DEEP_RANGE_LUT_LEN,
      dev_tables);
  /* 2^(-y^2) = exp (-d^2 / (2 s^2)) for y = d sqrt (log2 (e) / 2) / s */
  weights->bilateral.range_scale =
      (float) (sqrt (0.5 / log (2.0)) / cbf_deep_sigma_color (bits,
          sigma_color));
}
