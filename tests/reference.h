/* gst-cudabilateral: plain C reference of the filter's semantics, the
 * oracle the GPU output is compared with where no golden file exists. It is
 * itself checked against OpenCV's golden files (test_reference).
 *
 * It shares no code with the element: every rule, weight, table and
 * constant it needs is computed here from OpenCV's definitions or from the
 * element's documentation (docs/kernels.md, "The bilateral grid, exactly"),
 * and it includes nothing from kernels/, so that a bug in the element's
 * tables or rules cannot hide in its oracle too. */

#ifndef CBF_TEST_REFERENCE_H
#define CBF_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* OpenCV's radius rule of bilateralFilter: @diameter / 2 for
 * @diameter > 0, else cvRound (1.5 * @sigma_space) (a sigma_space <= 0
 * taken as 1), at least 1. */
int cbf_reference_radius (int diameter, double sigma_space);

/* The element's parameters of a chroma plane subsampled by @factor in
 * width: @diameter / @factor (integer division, at least 1) when
 * @diameter > 0, else @diameter kept; @sigma_space / @factor. */
void cbf_reference_chroma_params (int diameter, double sigma_space,
    int factor, int *chroma_diameter, double *chroma_sigma_space);

/* The bilateral filter's weights in double: the range weight of an L1
 * distance @distance, exp (-d^2 / (2 s^2)) with s = @sigma_color (8-bit
 * levels) x (2^@bits - 1) / 255, and the spatial weight of tap (@dx, @dy),
 * exp (-r^2 / (2 @sigma_space^2)) with r = sqrt (dx^2 + dy^2) as OpenCV
 * computes it, or 0 where r > @radius (the tap is not in the window). */
double cbf_reference_range_weight (double distance, int bits,
    double sigma_color);
double cbf_reference_space_weight (int dx, int dy, int radius,
    double sigma_space);

/* The border rules of the element's border property, OpenCV's
 * BORDER_REFLECT_101 (BORDER_DEFAULT, what the functions without _border
 * use), BORDER_REPLICATE, BORDER_REFLECT, BORDER_WRAP and BORDER_CONSTANT,
 * applied as cv::bilateralFilter applies them: the picture padded by the
 * radius on every side, the padding read as borderInterpolate defines it
 * (a window wider than the picture repeats the rule). */
typedef enum
{
  CBF_REFERENCE_BORDER_REFLECT_101,     /* gfedcb|abcdefgh|gfedcba */
  CBF_REFERENCE_BORDER_REPLICATE,       /* aaaaaa|abcdefgh|hhhhhhh */
  CBF_REFERENCE_BORDER_REFLECT, /* fedcba|abcdefgh|hgfedcb */
  CBF_REFERENCE_BORDER_WRAP,    /* cdefgh|abcdefgh|abcdefg */
  CBF_REFERENCE_BORDER_CONSTANT /* iiiiii|abcdefgh|iiiiiii */
} CbfReferenceBorder;

/* The rule the element's border property names @nick (reflect-101,
 * replicate, reflect, wrap, constant), or -1 for another name. */
int cbf_reference_border_from_nick (const char *nick);

/* The index inside [0, @len) that position @p of a line of @len samples
 * reads under @border, or -1 where it reads the constant
 * (CBF_REFERENCE_BORDER_CONSTANT outside the line). The reflections give
 * 0 on a line of one sample. */
int cbf_reference_border_index (CbfReferenceBorder border, int p, int len);

/* The constant border's sample of @bits bits (8 to 16) for the element's
 * border-value @value (8-bit levels): round (value (2^bits - 1) / 255). */
int cbf_reference_border_sample (int value, int bits);

/* Filters @channels (1 or 3) colour bytes starting at byte @color_offset of
 * each @pixel_bytes-byte pixel, as cv::bilateralFilter with BORDER_DEFAULT
 * does (within +-1: the weights and sums in double, the quotient rounded
 * half to even); the pixel's other bytes are copied from @src. Either
 * sigma at most 1e-6 copies @src, as OpenCV 5.0 does. */
void cbf_reference_bilateral (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space);

/* The same with the border rule @border; where it is
 * CBF_REFERENCE_BORDER_CONSTANT, every channel of the padding is
 * @border_sample (the samples' own units, as every _border function
 * here takes it). */
void cbf_reference_bilateral_border (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space, CbfReferenceBorder border,
    int border_sample);

/* The filter on samples of @bits bits (9 to 16, each in a uint16_t, values
 * 0 to 2^bits - 1), in double precision: the circular window of
 * cbf_reference_radius (@diameter, @sigma_space), reflect-101 borders, the
 * L1 distance of the @channels samples from @color_offset of each
 * @pixel_samples-sample pixel, the weights of cbf_reference_range_weight
 * and cbf_reference_space_weight (sigma-color given in 8-bit levels), and
 * the result rounded to the nearest, half to even. Strides are in samples;
 * the pixel's other samples are copied from @src. */
void cbf_reference_bilateral_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int bits,
    int diameter, double sigma_color, double sigma_space);
void cbf_reference_bilateral_deep_border (const uint16_t * src,
    size_t src_stride, uint16_t * dst, size_t dst_stride, int width,
    int height, int pixel_samples, int color_offset, int channels,
    int bits, int diameter, double sigma_color, double sigma_space,
    CbfReferenceBorder border, int border_sample);

/* The kernel size and sigma of OpenCV's GaussianBlur that the element's
 * @diameter and @sigma_space stand for in mode=gaussian (the element's
 * rule, restated): @diameter > 0: @diameter | 1, sigma @sigma_space as
 * given (<= 0: derived from the size); else cvRound (6 sigma + 1) | 1
 * with sigma = @sigma_space (<= 0 taken as 1); the size at most 1201. */
void cbf_reference_gaussian_params (int diameter, double sigma_space,
    int *ksize, double *sigma);

/* OpenCV's getGaussianKernel (@ksize, @sigma) in double into @coeffs
 * (@ksize values): the fixed kernels for odd sizes up to 7 with
 * @sigma <= 0, else exp (-x^2 / (2 sigma^2)) normalised to a sum of 1,
 * sigma <= 0 derived from the size as 0.3 ((ksize - 1) / 2 - 1) + 0.8. */
void cbf_reference_gaussian_kernel (double *coeffs, int ksize, double sigma);

/* The same pixels blurred as cv::GaussianBlur does (kernel of
 * cbf_reference_gaussian_params (@diameter, @sigma_space),
 * BORDER_DEFAULT), within +-1: separable, the coefficients rounded to
 * float and float sums, horizontal then vertical. */
void cbf_reference_gaussian (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_space);
void cbf_reference_gaussian_border (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, int diameter,
    double sigma_space, CbfReferenceBorder border, int border_sample);

/* The same blur on samples of up to 16 bits (each in a uint16_t; strides
 * and pixels in samples): the coefficients and both passes in double with
 * no rounding between them, the result rounded to the nearest. What the
 * deep formats' mode=gaussian must give within their tolerance. */
void cbf_reference_gaussian_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_space);
void cbf_reference_gaussian_deep_border (const uint16_t * src,
    size_t src_stride, uint16_t * dst, size_t dst_stride, int width,
    int height, int pixel_samples, int color_offset, int channels,
    int diameter, double sigma_space, CbfReferenceBorder border,
    int border_sample);

/* method=grid (docs/kernels.md, "The bilateral grid, exactly"): a grid's
 * cells, range blur passes and size for a @width x @height view of
 * @channels (1 or 3) samples of @bits bits. */
typedef struct
{
  float cell_space;             /* pixels a cell, both spatial axes */
  float cell_range;             /* sample levels a cell, range axis */
  int range_passes;             /* blurs along the range axis */
  float range_max;              /* 2^bits - 1 */
  int w, h, d;                  /* cells along x, y and range, padded */
} CbfReferenceGridCells;

void cbf_reference_grid_cells (int width, int height, int channels,
    int bits, double sigma_color, double sigma_space,
    CbfReferenceGridCells * cells);

/* The bilateral grid as the element computes it, on @channels (1 or 3)
 * bytes from @color_offset of each @pixel_bytes-byte pixel (a grid per
 * channel for colour); the other bytes copied. Cell choices in float as
 * the GPU makes them, sums in double: the element's output is within +-1.
 * Either sigma at most 1e-6 copies @src. */
void cbf_reference_grid (const uint8_t * src, size_t src_stride,
    uint8_t * dst, size_t dst_stride, int width, int height,
    int pixel_bytes, int color_offset, int channels, double sigma_color,
    double sigma_space);

/* The same on samples of @bits bits (9 to 16, strides and pixels in
 * samples), sigma-color in 8-bit levels. */
void cbf_reference_grid_deep (const uint16_t * src, size_t src_stride,
    uint16_t * dst, size_t dst_stride, int width, int height,
    int pixel_samples, int color_offset, int channels, int bits,
    double sigma_color, double sigma_space);

/* The strength mask as the element documents it: the @src_w x @src_h mask
 * (rows @pitch bytes apart) scaled to @dst_w x @dst_h, pixel centres
 * aligned as cv::resize INTER_LINEAR does (source position
 * (x + 0.5) src / dst - 0.5, clamped to [0, src - 1]), bilinear, in
 * double: the level at destination pixel (@x, @y), unrounded, and rounded
 * to the nearest (half up). The element's 11-bit fixed point may give one
 * level more or less than the rounded value. */
double cbf_reference_mask_level (const uint8_t * mask, size_t pitch,
    int src_w, int src_h, int dst_w, int dst_h, int x, int y);
int cbf_reference_mask_sample (const uint8_t * mask, size_t pitch,
    int src_w, int src_h, int dst_w, int dst_h, int x, int y);

/* A sample blended by a mask level @m (0 to 255): @in + (@filtered - @in)
 * @m / 255 rounded to the nearest (half away from zero; 255 is odd, so
 * that no value lies halfway): 0 gives @in, 255 gives @filtered. */
int cbf_reference_mask_blend (int in, int filtered, int m);

/* The temporal filter (the element's temporal-strength and
 * temporal-sigma). First the spatial result B before rounding, of @mode
 * on channels [@color_offset, + @channels) of each @pixel_samples-sample
 * pixel of @src (samples of @sample_bytes bytes, 1: 8 bits, 2: @bits;
 * strides in samples), as the rounded references above compute it (the
 * input itself where they copy it), into @values, width x height x
 * channels doubles. */
typedef enum
{
  CBF_REFERENCE_BILATERAL,
  CBF_REFERENCE_GAUSSIAN,
  CBF_REFERENCE_GRID
} CbfReferenceMode;

void cbf_reference_values (CbfReferenceMode mode, const void *src,
    size_t src_stride, int sample_bytes, int bits, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space, double *values);
/* The same with the border rule @border (and @border_sample, as the
 * _border functions above take it); the grid has no border and ignores
 * them. */
void cbf_reference_values_border (CbfReferenceMode mode, const void *src,
    size_t src_stride, int sample_bytes, int bits, int width, int height,
    int pixel_samples, int color_offset, int channels, int diameter,
    double sigma_color, double sigma_space, CbfReferenceBorder border,
    int border_sample, double *values);

/* Then, with P the previous output @prev (laid out as @dst; NULL: no
 * previous frame, Y = B): D = sum over the channels of |B - P|,
 * g = exp (-D^2 / (2 s^2)) with s = @sigma (8-bit levels) x (2^bits - 1)
 * / 255 for deeper samples, Y = B + @strength g (P - B), rounded half to
 * even into the channels' samples of @dst (its other samples untouched). */
void cbf_reference_temporal (const double *values, const void *prev,
    size_t prev_stride, void *dst, size_t dst_stride, int sample_bytes,
    int bits, int width, int height, int pixel_samples, int color_offset,
    int channels, double strength, double sigma);

/* A region's weight as the element documents it, in double: pixel (@x,
 * @y) of a plane whose pixels stand for @fx x @fy luma pixels, its centre
 * ((x + 0.5) fx, (y + 0.5) fy), d the distance from it to the nearest of
 * the @n boxes (@boxes[i] = x0, y0, x1, y1: columns [x0, x1), rows [y0,
 * y1)), m = 1 inside, else max (0, 1 - d / @feather) (0 without feather),
 * round (255 m) half up; 255 - that for @outside. */
int cbf_reference_region_weight (const int (*boxes)[4], int n,
    double feather, int outside, int fx, int fy, int x, int y);

#endif
