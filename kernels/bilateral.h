/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Plain C interface to the filters: the bilateral filter's weight tables
 * (built on the host, shared by the CUDA kernels and the CPU reference in
 * tests/), the parameters every filter entry takes, and the bilateral
 * kernel entry points, which take device planes (plane.h), their weights
 * and a stream (gaussian.h and grid.h declare the other filters' entries).
 * Callers own all memory and streams. */

#ifndef CBF_BILATERAL_H
#define CBF_BILATERAL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "plane.h"

/* Largest L1 colour distance over three 8-bit channels is 3 * 255 = 765;
 * the range table is padded to a multiple of 32 entries. */
#define CBF_RANGE_LUT_LEN 768

/* Radii up to this have kernels specialised at compile time (the window's
 * taps unrolled, several output rows per thread); larger ones up to
 * CBF_WIDE_MAX_RADIUS take the wide kernel (several output rows per
 * thread, the radius known at run time), and the rest the generic
 * kernel. The 8-bit layouts' specialised kernels go on to
 * CBF_FAST_EXTENDED_MAX_RADIUS (colour's where two blocks of it fit an
 * SM's shared memory: sm_80, sm_90); the deep layouts' stop at
 * CBF_FAST_MAX_RADIUS, where a template per radius and layout would cost
 * more machine code than their speed is worth, but for one channel of
 * 16-bit samples, which goes on to CBF_FAST_EXTENDED_MAX_RADIUS. */
#define CBF_FAST_MAX_RADIUS 8
#define CBF_FAST_EXTENDED_MAX_RADIUS 10
#define CBF_WIDE_MAX_RADIUS 30
#define CBF_FAST_MAX_TAPS ((2 * CBF_FAST_MAX_RADIUS + 1) * (2 * CBF_FAST_MAX_RADIUS + 1))
#define CBF_FAST_EXTENDED_MAX_TAPS \
  ((2 * CBF_FAST_EXTENDED_MAX_RADIUS + 1) \
      * (2 * CBF_FAST_EXTENDED_MAX_RADIUS + 1))

#ifdef __CUDACC__
#define CBF_CONSTEXPR __host__ __device__ constexpr
#else
#define CBF_CONSTEXPR static inline
#endif

/* Whether @v is dx^2 + dy^2 of a tap of the disc of @radius. */
CBF_CONSTEXPR int
cbf_is_tap_distance (int radius, int v)
{
  for (int a = 0; a <= radius; a++)
    for (int b = a; b <= radius; b++)
      if (a * a + b * b == v && v <= radius * radius)
        return 1;
  return 0;
}

/* Distance class of a tap with dx^2 + dy^2 = @d2: its index among the
 * distinct values of dx^2 + dy^2 in the disc, ascending. Taps of one class
 * share their spatial weight. cbf_distance_class (r, r * r + 1) is the
 * number of classes. */
CBF_CONSTEXPR int
cbf_distance_class (int radius, int d2)
{
  int n = 0;
  for (int v = 0; v < d2; v++)
    n += cbf_is_tap_distance (radius, v);
  return n;
}

/* Floats of the tables' generic part (see cbf_bilateral_tables_len): the
 * range table, the space table and the half widths, all that the generic
 * kernel reads. The per-class or folded weights after it start at the next
 * multiple of 4, the padding zeroed. */
CBF_CONSTEXPR int
cbf_tables_class_weights_offset (int radius)
{
  return CBF_RANGE_LUT_LEN + radius * radius + 1 + radius + 1;
}

/* Floats before colour's per-class weights as half floats (radius <=
 * CBF_FAST_EXTENDED_MAX_RADIUS; read by the guided chroma kernel, and by
 * the colour kernel above CBF_FAST_MAX_RADIUS): the generic kernel's part
 * rounded up to a multiple of 4, so that in a 16-byte aligned buffer the
 * half floats start 16-byte aligned too (free to read with vector
 * loads). */
CBF_CONSTEXPR int
cbf_tables_color_class_weights_offset (int radius)
{
  return (cbf_tables_class_weights_offset (radius) + 3) / 4 * 4;
}

/* Floats a class of colour weights takes: CBF_RANGE_LUT_LEN half floats. */
#define CBF_COLOR_CLASS_FLOATS (CBF_RANGE_LUT_LEN / 2)

/* Floats before the one-channel kernel's integer weights (radius <=
 * CBF_FAST_EXTENDED_MAX_RADIUS): after colour's, a multiple of 4 like
 * them, so that a block copies them with 16-byte loads. */
CBF_CONSTEXPR int
cbf_tables_int_weights_offset (int radius)
{
  return cbf_tables_color_class_weights_offset (radius) +
      cbf_distance_class (radius, radius * radius + 1) *
      CBF_COLOR_CLASS_FLOATS;
}

/* Floats a class of integer weights takes: 256 16-bit integers. */
#define CBF_INT_CLASS_FLOATS 128

/* Floats before the colour weights as 16-bit integers (radius <=
 * CBF_FAST_MAX_RADIUS), CBF_COLOR_CLASS_FLOATS a class: after the integer
 * weights, a multiple of 4 like them. */
CBF_CONSTEXPR int
cbf_tables_color_int_weights_offset (int radius)
{
  return cbf_tables_int_weights_offset (radius) +
      cbf_distance_class (radius, radius * radius + 1) * CBF_INT_CLASS_FLOATS;
}

/* The colour integer weights' scale: a weight w is stored as w x 65535
 * rounded (a weight of 1 still fits 16 bits). */
#define CBF_COLOR_INT_WEIGHT_ONE 65535

/* The integer weights' scale: a weight w is stored as w x 2^15 rounded. */
#define CBF_INT_WEIGHT_ONE 32768

/* Floats before the wide kernel's folded tables (CBF_FAST_EXTENDED_MAX_RADIUS
 * < radius <= CBF_WIDE_MAX_RADIUS): after the generic kernel's, a multiple
 * of 4 so that they start 16-byte aligned. */
CBF_CONSTEXPR int
cbf_tables_wide_fold_offset (int radius)
{
  return (cbf_tables_class_weights_offset (radius) + 3) / 4 * 4;
}

/* Floats the folded tables take: a table of CBF_RANGE_LUT_LEN a column
 * offset |dx| from 0 to radius, a table of zeros (each table's last two
 * entries the range scale and its log2 spatial weight, below), then the
 * row factors (radius + 1 floats), padded to a multiple of 4. */
CBF_CONSTEXPR int
cbf_tables_wide_fold_len (int radius)
{
  return (radius + 2) * CBF_RANGE_LUT_LEN + (radius + 1 + 3) / 4 * 4;
}

/* Floats before the wide one-channel kernel's weights
 * (CBF_FAST_EXTENDED_MAX_RADIUS < radius <= CBF_WIDE_MAX_RADIUS): after the
 * folded tables, a multiple of 4 like them. */
CBF_CONSTEXPR int
cbf_tables_wide_channel_offset (int radius)
{
  return cbf_tables_wide_fold_offset (radius) +
      cbf_tables_wide_fold_len (radius);
}

/* Floats before those weights' tables: after a header of four words (the
 * tables' count first) and a table index per dx^2 + dy^2 (radius^2 + 1
 * 32-bit integers), padded to a multiple of 4. */
CBF_CONSTEXPR int
cbf_tables_wide_channel_tables_offset (int radius)
{
  return cbf_tables_wide_channel_offset (radius) + 4 +
      (radius * radius + 1 + 3) / 4 * 4;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Largest radius the tables can be built for: diameter is limited to 255 and
 * sigma-space to 200 (radius cvRound (1.5 * 200) = 300). */
#define CBF_MAX_RADIUS 300

/* Largest cbf_bilateral_tables_len or cbf_deep_tables_len over all
 * radii: what a buffer must hold to take the tables of any parameters. */
size_t cbf_bilateral_tables_max_len (void);

/* The bilateral filter passes its input through unchanged when
 * sigma-color or sigma-space is at most this, as OpenCV 5.0's
 * bilateralFilter does (earlier versions took such sigmas as 1). */
#define CBF_BILATERAL_MIN_SIGMA 1e-6

/* Window radius exactly as OpenCV's bilateralFilter derives it: d / 2 for
 * d > 0, cvRound (1.5 * sigma_space) otherwise, at least 1. */
int cbf_bilateral_radius (int diameter, double sigma_space);

/* The taps a bilateral window leaves out may weigh together at most
 * 1 / (this x the sample's largest level) of the centre tap. */
#define CBF_WALK_SLACK 32

/* The radius the kernels walk a window of @radius and @sigma_space to, for
 * samples of at most @max_level: the smallest whose disc leaves out taps
 * of spatial weights summing to at most 1 / (CBF_WALK_SLACK x
 * @max_level). An output is sum (w p) / sum (w), where the centre's weight
 * is 1 and every weight at most its spatial one, so those taps together
 * move it by less than 1 / CBF_WALK_SLACK of a level: a small sigma-space
 * in a wide window (sigma 5 at d = 61) gets the work of the taps that
 * count, and the output stays within OpenCV's. */
int cbf_bilateral_walk_radius (int radius, double sigma_space, int max_level);

/* The parameters of a chroma channel subsampled by @factor (a power of
 * two) in width, so that its window covers about the same part of the
 * picture as luma's: diameter / factor, integer division, at least 1, when
 * diameter > 0; otherwise the diameter is kept and the radius follows from
 * the scaled sigma-space, sigma_space / factor (exact in binary).
 * sigma-color is not scaled. */
void cbf_bilateral_chroma_params (int diameter, double sigma_space,
    int factor, int *chroma_diameter, double *chroma_sigma_space);

/* Number of floats in the weight tables for @radius:
 *   [0, CBF_RANGE_LUT_LEN)            range_lut[L1 distance]
 *   then radius * radius + 1 floats   space_lut[dx * dx + dy * dy]
 *   then radius + 1 floats            half_width[|dy|]: the circular window's
 *                                     row spans dx in [-hw, hw]
 *   then 0 to 3 floats of 0 (padding to a multiple of 4)
 *   then, for radius <= CBF_FAST_EXTENDED_MAX_RADIUS, from
 *                                     cbf_tables_color_class_weights_offset,
 *                                     CBF_RANGE_LUT_LEN half floats (IEEE
 *                                     binary16, two a float, native byte
 *                                     order) per class (cbf_distance_class):
 *                                     the colour weight, the float product
 *                                     space_lut[class] * range_lut[d]
 *                                     rounded to half, whose loads conflict
 *                                     less (two weights a shared word)
 *   then, from cbf_tables_int_weights_offset, 256 16-bit integers (two a
 *                                     float, native byte order) per class:
 *                                     that float product times
 *                                     CBF_INT_WEIGHT_ONE (above
 *                                     CBF_FAST_MAX_RADIUS, times
 *                                     cbf_extended_int_scale), rounded to the
 *                                     nearest (ties to even), for the
 *                                     one-channel kernel's integer sums
 *   then, for radius <= CBF_FAST_MAX_RADIUS, from
 *                                     cbf_tables_color_int_weights_offset,
 *                                     CBF_RANGE_LUT_LEN 16-bit integers per
 *                                     class: the colour weight (the float
 *                                     product) times
 *                                     CBF_COLOR_INT_WEIGHT_ONE, rounded to
 *                                     the nearest (ties to even), for the
 *                                     colour kernel's integer sums
 *   or, for CBF_FAST_EXTENDED_MAX_RADIUS < radius <= CBF_WIDE_MAX_RADIUS,
 *                                     from cbf_tables_wide_fold_offset, the
 *                                     wide kernel's folded tables: for each
 *                                     |dx| from 0 to radius, CBF_RANGE_LUT_LEN
 *                                     floats space_lut[dx * dx] *
 *                                     range_lut[d] (the weight of tap
 *                                     (dx, 0)) for d up to 765, then the
 *                                     range scale sqrt (1 / (2 ln 2)) /
 *                                     sigma-color and log2
 *                                     (space_lut[dx * dx]) (-inf where that
 *                                     is 0); then a table of zeros but for
 *                                     the range scale and -inf in its last
 *                                     two entries; then the
 *                                     row factors: for k from 1 to radius,
 *                                     space_lut[k * k] / space_lut[(k - 1)^2]
 *                                     in float (0 where the divisor is 0),
 *                                     factor 0 unused;
 *                                     then, from
 *                                     cbf_tables_wide_channel_offset, the wide
 *                                     one-channel kernel's: the number of
 *                                     tables n, the index of the table of
 *                                     each dx^2 + dy^2 (0 outside the disc),
 *                                     then, from
 *                                     cbf_tables_wide_channel_tables_offset, n
 *                                     tables of 256 half floats (IEEE
 *                                     binary16, two a float, native byte
 *                                     order): table 0 all zeros (every class
 *                                     whose weights all round to 0 shares
 *                                     it), the others a class's weights
 *                                     space_lut[class] * range_lut[d]
 *                                     rounded to half */
size_t cbf_bilateral_tables_len (int radius);

/* The scale of the specialised one-channel kernel's integer weights above
 * CBF_FAST_MAX_RADIUS (whose 2^15 would move a result by up to
 * 317 x 2^-16 x 255 = 1.2 levels at radius 10), for a space table
 * @space_lut: 65535 (a weight of 1 still fits 16 bits), or less where the
 * sums could pass 2^32, which they must not: a tap's weight is at most its
 * space weight times the scale, rounded, and its level 255. About
 * 2^32 / 255 / (the space weights' sum) there, so that the weights'
 * rounding moves a result by at most 0.76 levels to radius 10; wider
 * windows' many small weights would round away (the wide one-channel
 * kernel's are half floats). */
float cbf_extended_int_scale (const float *space_lut, int radius);

/* Fills @tables (cbf_bilateral_tables_len (radius) floats) with the weights
 * OpenCV uses: float (exp (i * i * -0.5 / sigma^2)) computed in double, a
 * sigma <= 0 taken as 1, and a tap kept when sqrt (dx^2 + dy^2) <= radius. */
void cbf_bilateral_tables_fill (float *tables, int radius,
    double sigma_color, double sigma_space);

static inline const float *
cbf_tables_space (const float *tables)
{
  return tables + CBF_RANGE_LUT_LEN;
}

static inline const float *
cbf_tables_half_width (const float *tables, int radius)
{
  return tables + CBF_RANGE_LUT_LEN + radius * radius + 1;
}


/* Samples of 9 to 16 bits: the range table's entries, as many as keep
 * three 16-bit channels well inside their tolerance and the table small
 * enough for shared memory (what-was-tried.md, "Deep samples").
 * A distance is looked up as distance >> cbf_deep_range_shift (bits,
 * channels). */
#define CBF_DEEP_RANGE_LUT_LEN 8192

/* The right shift that brings every L1 distance of @channels samples of
 * @bits bits under CBF_DEEP_RANGE_LUT_LEN: 0 up to 8191 (10-bit samples,
 * one 12-bit channel), 1 for three 12-bit channels, 3 for one 16-bit
 * channel, 5 for three. */
int cbf_deep_range_shift (int bits, int channels);

/* Fills @range (CBF_DEEP_RANGE_LUT_LEN floats): entry i is the range
 * weight, float (exp (-d^2 / (2 s^2))) computed in double, of the distance
 * d at the middle of bucket i (i << shift .. ((i + 1) << shift) - 1), with
 * s = @sigma_color (8-bit levels; <= 0 taken as 1) x (2^@bits - 1) / 255. */
void cbf_deep_range_fill (float *range, int bits, int channels,
    double sigma_color);

/* sigma-color (8-bit levels; <= 0 taken as 1) in the units of samples of
 * @bits bits: x (2^@bits - 1) / 255. */
double cbf_deep_sigma_color (int bits, double sigma_color);

/* Number of floats in the deep entries' tables for @radius: as the 8-bit
 * tables' first three parts (cbf_bilateral_tables_len), the range table
 * CBF_DEEP_RANGE_LUT_LEN long: range, space_lut, half widths. */
size_t cbf_deep_tables_len (int radius);

/* Fills @tables (cbf_deep_tables_len (radius) floats): the range table of
 * cbf_deep_range_fill, then the space table and half widths of
 * cbf_bilateral_tables_fill. */
void cbf_deep_tables_fill (float *tables, int radius, int bits, int channels,
    double sigma_color, double sigma_space);

/* Device scratch of the bilateral grid (grid.h): two buffers of
 * @capacity floats each, the grid's cell size in pixels and in sample
 * values along the range axis, how many times the range axis is blurred,
 * and the largest sample value (255, or 2^bits - 1 for deep samples)
 * (cbf_grid_cells sets the last four). */
typedef struct
{
  float *cells[2];
  size_t capacity;
  float cell_space;
  float cell_range;
  int range_passes;
  float range_max;
} CbfGridScratch;

/* How a window reads past the picture's edges: OpenCV's border types as
 * cv::bilateralFilter applies them (it pads the source by the radius with
 * copyMakeBorder, so a window wider than the picture repeats the rule).
 * Every entry but the grid's, whose cells have no border, takes it. */
typedef enum
{
  CBF_BORDER_REFLECT_101,       /* gfedcb|abcdefgh|gfedcba, BORDER_DEFAULT */
  CBF_BORDER_REPLICATE,         /* aaaaaa|abcdefgh|hhhhhhh */
  CBF_BORDER_REFLECT,           /* fedcba|abcdefgh|hgfedcb */
  CBF_BORDER_WRAP,              /* cdefgh|abcdefgh|abcdefg */
  CBF_BORDER_CONSTANT           /* iiiiii|abcdefgh|iiiiiii */
} CbfBorder;

/* The constant border's pixel, as a launch's planes hold it, repeated over
 * CBF_BORDER_PIXEL_BYTES bytes of device memory: the kernels read it
 * CBF_BORDER_PIXEL_MARGIN bytes in, where their widest loads around it
 * (16 bytes, and 8 before) stay inside. */
#define CBF_BORDER_PIXEL_BYTES 128
#define CBF_BORDER_PIXEL_MARGIN 64

/* The bilateral entries' parameters (cbf_bilateral_weights_init). */
typedef struct
{
  const float *tables_dev;      /* cbf_bilateral_tables_len (radius) floats */
  /* Spatial weight of tap (dx, dy) at [(dy + r) * (2r + 1) + dx + r], 0
   * outside the disc, for the streaming kernel and the deep specialised
   * kernel's taps that read the range table, whose launches carry them;
   * filled when radius <= CBF_FAST_MAX_RADIUS. */
  float space_taps[CBF_FAST_MAX_TAPS];
  /* For the deep specialised kernel, which computes its taps' weights (but
   * those it reads from the range table) as
   * 2^(log2 (space) - y^2), y the distance times range_scale (in sample
   * units, sqrt (log2 (e) / 2) / s with s the scaled sigma-color):
   * log2 of each tap's spatial weight, at space_taps' indices, and
   * range_scale (cbf_deep_weights_init); filled when radius <=
   * CBF_FAST_EXTENDED_MAX_RADIUS. */
  float space_log2_taps[CBF_FAST_EXTENDED_MAX_TAPS];
  float range_scale;
  /* The wide one-channel kernel's tables (cbf_bilateral_tables_len): how
   * many, 0 where the radius has none. */
  int wide_channel_tables;
} CbfBilateralParams;

/* The Gaussian entries' parameters (gaussian.h,
 * cbf_gaussian_weights_init). */
typedef struct
{
  const float *coeffs_dev;      /* the 2 radius + 1 coefficients */
} CbfGaussianParams;

/* The grid entries' parameters (grid.h, cbf_grid_weights_init). */
typedef struct
{
  const CbfGridScratch *scratch;
} CbfGridParams;

/* What a filter entry needs of its parameters, built on the host when they
 * change: the window's radius, which every mode has (the rows a band
 * reads above and below its own; 0 for the grid), and the parameters of
 * the entry's own mode, which alone it reads. */
typedef struct
{
  int radius;
  union
  {
    CbfBilateralParams bilateral;
    CbfGaussianParams gaussian;
    CbfGridParams grid;
  };
  /* The temporal filter, for outputs that carry a state (temporal.h):
   * its gain, 0 where the state holds no previous frame (it is then only
   * written), and gate (cbf_temporal_gate). Every mode takes them. */
  float temporal_gain;
  float temporal_gate;
  /* The border rule, and for CBF_BORDER_CONSTANT its pixel
   * (CBF_BORDER_PIXEL_BYTES bytes in device memory, 16-byte aligned). */
  CbfBorder border;
  const void *border_pixel;
  /* The launch is a small window of the frame (a region's): the 8-bit
   * colour entries then run the generic kernel, whose many short blocks
   * spread over the GPU, where the specialised kernel's few long ones
   * would each hold an SM for the whole launch. */
  int small_launch;
  /* Which form of the 8-bit layouts' wide kernel runs: 0 the folded one
   * where its grid is large enough (bilateral_wide.cuh), 1 the folded one
   * wherever it fits, -1 the unfolded one; for tests and tuning, which
   * would otherwise see only the form their frame size and GPU pick. One
   * 8-bit channel asked for either form takes it in place of its own wide
   * kernel: the unfolded one is its fallback where that one's tables do
   * not fit. */
  int wide_fold;
} CbfFilterParams;

/* Fills @weights for the bilateral entries from tables built by
 * cbf_bilateral_tables_fill on the host (@host_tables) and their copy on
 * the device (@dev_tables). */
void cbf_bilateral_weights_init (CbfFilterParams * weights, int radius,
    const float *host_tables, const float *dev_tables);

/* Fills @weights for the deep bilateral entries from tables built by
 * cbf_deep_tables_fill on the host (@host_tables) and their copy on the
 * device (@dev_tables), for samples of @bits bits and @sigma_color, as
 * the tables were filled. */
void cbf_deep_weights_init (CbfFilterParams * weights, int radius, int bits,
    double sigma_color, const float *host_tables, const float *dev_tables);

/* Enqueues on @stream the filter of output rows [@row_begin, @row_end) of
 * @src into @dst (same size, distinct memory). Rows outside that range are
 * read (the window reaches them) but not written, so a frame can be
 * filtered in bands as its rows arrive. Of each pixel only the bytes the
 * entry filters are written. @src and @dst are one plane, or for the
 * channel_pair and color_planar entries an array of two or three. Returns the launch error,
 * if any (cudaErrorInvalidValue for sizes or pixel_bytes the entry does not
 * take); errors during execution surface at the caller's next
 * synchronisation. */
typedef cudaError_t CbfFilterEntry (const CbfPlane * src,
    const CbfPlane * dst, int row_begin, int row_end,
    const CbfFilterParams * weights, cudaStream_t stream);
typedef CbfFilterEntry *CbfFilterFunc;

/* The pixel layouts the filters take, a line each:
 * X (arg, layout, Layout): @arg is passed through (the filter's name, say),
 * @layout is the suffix of the layout's entry names (cbf_FILTER_layout,
 * below), @Layout the C++ type of layouts_8bit.cuh or layouts_deep.cuh that
 * reads and writes its pixels (a name without a comma; C never expands
 * it). From these tables come the declarations below, the Gaussian's and
 * the grid's entries (gaussian.cu, grid.cu), the deep bilateral entries
 * and the frame plan's entries of each layout (cbfframeplan.c); the 8-bit
 * bilateral entries are written out in the kernel file of their family,
 * which compile in parallel (bilateral_channel.cu, bilateral_color32.cu,
 * bilateral_color24.cu, bilateral_planar.cu). The lines are in the order
 * of the entries in the kernel files.
 *
 * The six 8-bit layouts, all CbfFilterEntry:
 * - cbf_FILTER_channel: one 8-bit channel filtered on its own (OpenCV's
 *   1-channel semantics): GRAY8, a plane of planar YUV, or one channel of
 *   interleaved ones (NV12's U or V, YUY2's Y, U or V), any pixel_bytes;
 * - cbf_FILTER_channel_pair: two channels of one size (pixel_bytes may
 *   differ from 1, data and pitch from each other), each filtered on its
 *   own, in one launch: @src and @dst are arrays of two (I420's or NV12's
 *   U and V);
 * and three colour channels filtered together (OpenCV's 3-channel
 * semantics, L1 colour distance):
 * - cbf_FILTER_colour_first: 32-bit pixels whose colour bytes are bytes
 *   0..2 (RGBA, BGRA, RGBx, BGRx); byte 3 is copied unchanged;
 * - cbf_FILTER_colour_last: 32-bit pixels whose colour bytes are bytes
 *   1..3 (ARGB, ABGR, xRGB, xBGR); byte 0 is copied unchanged;
 * - cbf_FILTER_colour_packed24: 24-bit pixels (RGB, BGR);
 * - cbf_FILTER_colour_planar: one channel per plane, three planes of one
 *   size (Y444, GBR): @src and @dst are arrays of three, pixel_bytes 1. */
#define CBF_LAYOUTS_8BIT(X, arg) \
  X (arg, channel, Channels<1>) \
  X (arg, channel_pair, Channels<2>) \
  X (arg, color_first, Color32<0>) \
  X (arg, color_last, Color32<1>) \
  X (arg, color_packed24, Color24) \
  X (arg, color_planar, ColorPlanar)

/* The eight layouts of samples of 10 to 16 bits, each in a 16-bit
 * little-endian container (pixel_bytes counts bytes, as above), or a
 * 10-bit field of a 32-bit word; the bilateral entries read tables made by
 * cbf_deep_tables_fill for the samples' bits and channels. One channel at
 * a time:
 * - cbf_FILTER_deep_channel, cbf_FILTER_deep_channel_pair: as
 *   cbf_FILTER_channel and cbf_FILTER_channel_pair, on 16-bit samples
 *   (GRAY16_LE, P016_LE);
 * - cbf_FILTER_deep12_channel, cbf_FILTER_deep12_channel_pair: the same on
 *   samples of at most 12 bits, LSB-aligned (I420_10LE, I422_12LE, ...) or
 *   MSB-aligned (P010_10LE, P012_LE: the planes' sample_shift), of the
 *   planes' sample_bits (at most 12 whatever it says); */
#define CBF_LAYOUTS_DEEP_CHANNEL(X, arg) \
  X (arg, deep_channel, DeepChannel16) \
  X (arg, deep_channel_pair, DeepChannelPair16) \
  X (arg, deep12_channel, DeepChannel12) \
  X (arg, deep12_channel_pair, DeepChannelPair12)

/* three colour channels together:
 * - cbf_FILTER_deep_colour_planar, cbf_FILTER_deep10_colour_planar: three
 *   planes of 16-bit (Y444_16LE) or 10-bit samples (Y444_10LE, GBR_10LE),
 *   pixel_bytes 2;
 * - cbf_FILTER_deep_colour64: 64-bit pixels, colour in 16-bit samples 0..2
 *   and the fourth copied unchanged (RGBA64_LE, BGRA64_LE);
 * - cbf_FILTER_deep_colour10a2: 32-bit pixels, colour in bits 0..29 (three
 *   10-bit fields) and the 2-bit alpha copied unchanged (BGR10A2_LE,
 *   RGB10A2_LE). */
#define CBF_LAYOUTS_DEEP_COLOR(X, arg) \
  X (arg, deep_color_planar, DeepPlanar16) \
  X (arg, deep10_color_planar, DeepPlanar10) \
  X (arg, deep_color64, DeepColor64) \
  X (arg, deep_color10a2, DeepColor10A2)

#define CBF_LAYOUTS_DEEP(X, arg) \
  CBF_LAYOUTS_DEEP_CHANNEL (X, arg) \
  CBF_LAYOUTS_DEEP_COLOR (X, arg)

/* Declare @filter's entry of every layout: cbf_FILTER_channel and the
 * others of CBF_LAYOUTS_8BIT, or the deep ones. */
#define CBF_DECLARE_ENTRY(filter, layout, Layout) \
  CbfFilterEntry cbf_##filter##_##layout;
#define CBF_DECLARE_LAYOUT_ENTRIES(filter) \
  CBF_LAYOUTS_8BIT (CBF_DECLARE_ENTRY, filter)
#define CBF_DECLARE_DEEP_ENTRIES(filter) \
  CBF_LAYOUTS_DEEP (CBF_DECLARE_ENTRY, filter)

CBF_DECLARE_LAYOUT_ENTRIES (bilateral);
CBF_DECLARE_DEEP_ENTRIES (bilateral);

/* Chroma guided by luma (a joint bilateral filter): as the
 * cbf_bilateral_channel_pair family, the range weight of each tap taken
 * from the distance of the guide's samples (guide.h) instead of the
 * channel's own: @src is an array of three, the two channels and the
 * guide, a plane of their size (pixel_bytes 1, or 2 for the deep ones,
 * whose samples it holds as the channels do). The 8-bit entry reads the
 * tables of cbf_bilateral_tables_fill, the deep ones those of
 * cbf_deep_tables_fill for one channel. */
CbfFilterEntry cbf_bilateral_guided_channel_pair,
    cbf_bilateral_guided_deep_channel_pair,
    cbf_bilateral_guided_deep12_channel_pair;

/* The generic kernels alone: one thread per output pixel, tile and tables
 * in shared memory, any radius. The entries above use them beyond
 * CBF_WIDE_MAX_RADIUS; the benchmark compares against them. */
cudaError_t cbf_bilateral_channel_generic (const CbfPlane * src,
    const CbfPlane * dst, int row_begin, int row_end,
    const CbfFilterParams * weights, cudaStream_t stream);
cudaError_t cbf_bilateral_color_first_generic (const CbfPlane * src,
    const CbfPlane * dst, int row_begin, int row_end,
    const CbfFilterParams * weights, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* CBF_BILATERAL_H */
