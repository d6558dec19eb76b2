/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* CUDA kernels of the bilateral filter, OpenCV-exact semantics:
 * circular window of radius r, reflect-101 borders, weight
 * space(dx, dy) * range_lut[L1 colour distance], float sums, round half to
 * even.
 *
 * Two kernels:
 * - the specialised one (radius <= CBF_FAST_MAX_RADIUS, a template per
 *   radius): each thread computes a column of K output pixels, so every
 *   neighbour it loads from the shared tile serves up to K outputs from a
 *   register; the window's taps are unrolled at compile time (no tap outside
 *   the disc is visited, no index arithmetic), and the spatial weights are
 *   kernel parameters, i.e. constant-bank operands of the multiply. Per tap
 *   that leaves: one SIMD sum of absolute byte differences, one range-table
 *   load, one multiply and the multiply-adds of the sums.
 * - the generic one, any radius: one thread per output pixel, tile and
 *   tables in shared memory (or read through L1 for very large radii). */

#include "bilateral.h"

#include <utility>

namespace {

/* ------------------------------------------------------------------ */
/* Shared pieces */

/* OpenCV's borderInterpolate for BORDER_REFLECT_101 (gfedcb|abcdefgh|gfedcba),
 * repeated for windows larger than the image, and 0 for a 1-pixel line. */
__device__ __forceinline__ int reflect101 (int p, int len)
{
  if (len == 1)
    return 0;
  while ((unsigned) p >= (unsigned) len)
    p = p < 0 ? -p : 2 * len - 2 - p;
  return p;
}

/* What the generic kernel reads of the tables. */
__host__ __device__ constexpr int generic_tables_len (int radius)
{
  return cbf_tables_class_weights_offset (radius);
}

__device__ __forceinline__ const uint8_t *plane_row (const CbfPlane & p, int y)
{
  return p.data + (size_t) y * p.pitch_bytes;
}

/* The range weight at a byte offset into the table (4 x the distance). */
__device__ __forceinline__ float range_at (const float *range_lut,
    uint32_t byte_offset)
{
  return *reinterpret_cast < const float *>(reinterpret_cast < const char
      *>(range_lut) + byte_offset);
}

/* ------------------------------------------------------------------ */
/* Pixel layouts for the specialised kernel. A pixel in the shared tile is
 * one 32-bit word made so that the range-table offset is cheap. */

#ifndef CBF_COLOUR_ROWS
#define CBF_COLOUR_ROWS 4
#endif
#ifndef CBF_COLOUR_MIN_BLOCKS
#define CBF_COLOUR_MIN_BLOCKS 4
#endif
#ifndef CBF_GRAY_ROWS
#define CBF_GRAY_ROWS 8
#endif
#ifndef CBF_GRAY_MIN_BLOCKS
#define CBF_GRAY_MIN_BLOCKS 2
#endif

/* kRows: output rows per thread; kMinBlocks: blocks per SM the compiler
 * must fit (it caps registers to that). More rows reuse each loaded
 * neighbour more often; more resident warps hide the latency of the shared
 * loads each tap waits on. Measured on an H100 (docs/performance-notes.md),
 * 4K RGBA d = 15: 8 rows / 2 blocks 0.63 ms, 8 / 3 0.56, 6 / 3 0.51,
 * 4 / 4 0.50, 4 / 5 0.51, 3 / 6 0.52, 2 / 8 0.56. GRAY8 d = 15: 8 / 2
 * 0.32, 8 / 3 0.32, 6 / 3 0.32, 4 / 4 0.34. CBF_{COLOUR,GRAY}_ROWS and
 * CBF_{COLOUR,GRAY}_MIN_BLOCKS override the choice at build time, for such
 * experiments. */

struct FastGray
{
  static constexpr int kMinBlocks = CBF_GRAY_MIN_BLOCKS;
  static constexpr int kRows = CBF_GRAY_ROWS;
  /* The weight of a tap is read whole from the per-class table
   * (space x range, see bilateral.h): no multiply. */
  static constexpr bool kClassWeights = true;
  template < int R > static constexpr int lut_len ()
  {
    return cbf_distance_class (R, R * R + 1) * 256;
  }
  template < int R > static constexpr int lut_offset_in_tables ()
  {
    return cbf_tables_class_weights_offset (R);
  }

  /* 4 x value: |a - b| is then directly the table's byte offset. */
  static __device__ __forceinline__ uint32_t to_tile (const uint8_t * row,
      int x, unsigned)
  {
    return (uint32_t) row[x] << 2;
  }
  static __device__ __forceinline__ uint32_t lut_offset (uint32_t a,
      uint32_t b)
  {
    return __usad (a, b, 0);
  }
  struct Value
  {
    float v;
  };
  static __device__ __forceinline__ Value unpack (uint32_t p)
  {
    return Value { (float) p };
  }
  struct Sum
  {
    float v = 0.f, w = 0.f;
  };
  static __device__ __forceinline__ void add (Sum & s, const Value & p,
      float w)
  {
    s.v += w * p.v;
    s.w += w;
  }
  /* The sum of w * 4p is exactly 4 x the sum of w * p (a power of two), so
   * the quotient is exactly OpenCV's before the final scaling. */
  static __device__ __forceinline__ void store (uint8_t * out,
      const uint8_t *, int x, const Sum & s, unsigned)
  {
    out[x] = (uint8_t) __float2int_rn ((s.v / s.w) * 0.25f);
  }
};

struct FastColour
{
  static constexpr int kMinBlocks = CBF_COLOUR_MIN_BLOCKS;
  static constexpr int kRows = CBF_COLOUR_ROWS;
  static constexpr bool kClassWeights = false;
  template < int R > static constexpr int lut_len ()
  {
    return CBF_RANGE_LUT_LEN;
  }
  template < int R > static constexpr int lut_offset_in_tables ()
  {
    return 0;
  }

  /* The three colour bytes moved to bytes 0..2, the passthrough byte 0. */
  static __device__ __forceinline__ uint32_t to_tile (const uint8_t * row,
      int x, unsigned shift)
  {
    return (reinterpret_cast < const uint32_t *>(row)[x] >> shift) & 0xffffffu;
  }
  static __device__ __forceinline__ uint32_t lut_offset (uint32_t a,
      uint32_t b)
  {
    return __vsadu4 (a, b) << 2;
  }
  struct Value
  {
    float c0, c1, c2;
  };
  static __device__ __forceinline__ Value unpack (uint32_t p)
  {
    return Value { (float) (p & 0xff), (float) ((p >> 8) & 0xff),
        (float) (p >> 16) };
  }
  struct Sum
  {
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, w = 0.f;
  };
  static __device__ __forceinline__ void add (Sum & s, const Value & p,
      float w)
  {
    s.c0 += w * p.c0;
    s.c1 += w * p.c1;
    s.c2 += w * p.c2;
    s.w += w;
  }
  static __device__ __forceinline__ void store (uint8_t * out,
      const uint8_t * in, int x, const Sum & s, unsigned shift)
  {
    const uint32_t colour_mask = 0xffffffu << shift;
    float inv = 1.f / s.w;
    uint32_t c = (uint32_t) __float2int_rn (s.c0 * inv)
        | ((uint32_t) __float2int_rn (s.c1 * inv) << 8)
        | ((uint32_t) __float2int_rn (s.c2 * inv) << 16);
    uint32_t passthrough = reinterpret_cast < const uint32_t *>(in)[x];
    reinterpret_cast < uint32_t * >(out)[x] =
        (c << shift) | (passthrough & ~colour_mask);
  }
};


constexpr int kFastBlockX = 32;
constexpr int kFastBlockY = 8;

struct SpaceTaps
{
  float w[CBF_FAST_MAX_TAPS];
};

/* Whether tap (dx, dy) is inside the disc of radius R. */
template < int R >
__host__ __device__ constexpr bool in_disc (int dx, int dy)
{
  return dy >= -R && dy <= R && dx * dx + dy * dy <= R * R;
}

/* Whether source row @s (0 = R rows above the thread's first output) at
 * column offset @dx is inside the window of any of the thread's outputs. */
template < int R, int K >
__host__ __device__ constexpr bool tap_used (int s, int dx)
{
  for (int k = 0; k < K; k++)
    if (in_disc < R > (dx, s - R - k))
      return true;
  return false;
}

/* The window's taps are expanded from template parameters (not left to the
 * loop unroller, which gives up on the larger windows): every condition
 * below is a compile-time constant, every tile offset and spatial weight an
 * immediate. */
template < class T, int R, int K > struct FastWindow
{
  const uint32_t *col;          /* tile, column dx = 0 of source row 0 */
  const float *range_lut;
  const SpaceTaps *space;
  uint32_t centre[K];
  typename T::Sum sum[K];

  /* Tap (DX, S - R - k) of output k, if it is in that output's disc. */
  template < int S, int DX, int k >
  __device__ __forceinline__ void tap_output (uint32_t p,
      const typename T::Value & value)
  {
    constexpr int dy = S - R - k;
    if constexpr (in_disc < R > (DX, dy)) {
      const uint32_t offset = T::lut_offset (p, centre[k]);
      float w;
      if constexpr (T::kClassWeights) {
        constexpr int kClass = cbf_distance_class (R, DX * DX + dy * dy);
        w = range_at (range_lut + 256 * kClass, offset);
      } else {
        w = range_at (range_lut, offset) *
            space->w[(dy + R) * (2 * R + 1) + DX + R];
      }
      T::add (sum[k], value, w);
    }
  }

  template < int S, int DX, int... k >
  __device__ __forceinline__ void tap_outputs (uint32_t p,
      const typename T::Value & value, std::integer_sequence < int, k... >)
  {
    (tap_output < S, DX, k > (p, value), ...);
  }

  /* Source pixel (DX, S): loaded and converted once, used by every output
   * whose window holds it. */
  template < int S, int DX > __device__ __forceinline__ void tap ()
  {
    if constexpr (tap_used < R, K > (S, DX)) {
      constexpr int kTileW = kFastBlockX + 2 * R;
      const uint32_t p = col[S * kTileW + DX];
      tap_outputs < S, DX > (p, T::unpack (p),
          std::make_integer_sequence < int, K > ());
    }
  }

  template < int S, int... I >
  __device__ __forceinline__ void row (std::integer_sequence < int, I... >)
  {
    (tap < S, I - R > (), ...);
  }

  template < int... S >
  __device__ __forceinline__ void rows (std::integer_sequence < int, S... >)
  {
    (row < S > (std::make_integer_sequence < int, 2 * R + 1 > ()), ...);
  }

  __device__ __forceinline__ void run ()
  {
    rows (std::make_integer_sequence < int, K + 2 * R > ());
  }
};

template < class T, int R >
__global__ void __launch_bounds__ (kFastBlockX * kFastBlockY, T::kMinBlocks)
bilateral_fast (CbfPlane src, CbfPlane dst, int row_begin, int row_end,
    unsigned shift, const float *__restrict__ tables, SpaceTaps space)
{
  constexpr int K = T::kRows;
  constexpr int kTileW = kFastBlockX + 2 * R;
  constexpr int kTileH = kFastBlockY * K + 2 * R;
  /* The range table, or GRAY8's per-class weights. */
  __shared__ float range_lut[T::template lut_len < R > ()];
  __shared__ uint32_t tile[kTileH * kTileW];

  const int tid = threadIdx.y * kFastBlockX + threadIdx.x;
  const int x0 = blockIdx.x * kFastBlockX;
  const int y0 = row_begin + blockIdx.y * kFastBlockY * K;

  for (int i = tid; i < T::template lut_len < R > ();
      i += kFastBlockX * kFastBlockY)
    range_lut[i] = tables[T::template lut_offset_in_tables < R > () + i];
  if (x0 >= R && y0 >= R && x0 + kTileW - R <= src.width
      && y0 + kTileH - R <= src.height) {
    /* Inside the picture (most blocks): no border rule to apply. */
    const uint8_t *origin = plane_row (src, y0 - R);
    for (int i = tid; i < kTileW * kTileH; i += kFastBlockX * kFastBlockY) {
      int ty = i / kTileW, tx = i - ty * kTileW;
      tile[i] = T::to_tile (origin + (size_t) ty * src.pitch_bytes,
          x0 + tx - R, shift);
    }
  } else {
    for (int i = tid; i < kTileW * kTileH; i += kFastBlockX * kFastBlockY) {
      int ty = i / kTileW, tx = i - ty * kTileW;
      int gy = reflect101 (y0 + ty - R, src.height);
      int gx = reflect101 (x0 + tx - R, src.width);
      tile[i] = T::to_tile (plane_row (src, gy), gx, shift);
    }
  }
  __syncthreads ();

  FastWindow < T, R, K > window;
  window.col = tile + threadIdx.y * K * kTileW + threadIdx.x + R;
  window.range_lut = range_lut;
  window.space = &space;
#pragma unroll
  for (int k = 0; k < K; k++)
    window.centre[k] = window.col[(k + R) * kTileW];
  window.run ();

  const int x = x0 + threadIdx.x;
  if (x >= src.width)
    return;
#pragma unroll
  for (int k = 0; k < K; k++) {
    const int y = y0 + threadIdx.y * K + k;
    if (y < row_end)
      T::store (dst.data + (size_t) y * dst.pitch_bytes, plane_row (src, y),
          x, window.sum[k], shift);
  }
}

/* ------------------------------------------------------------------ */
/* The generic kernel */

constexpr int kBlockW = 32;
constexpr int kBlockH = 8;
/* Up to this radius a block's tile with its halo ((32 + 2r) x (8 + 2r)
 * 32-bit pixels) plus all tables fit in the 48 KiB of shared memory every
 * supported GPU gives without opt-in (35 KiB at r = 32). Larger windows read
 * the source through the L1 cache instead. */
constexpr int kMaxTiledRadius = 32;

struct Gray8
{
  typedef uint8_t Pixel;
  struct Sum
  {
    float value = 0.f, weight = 0.f;
  };

  static __device__ __forceinline__ Pixel load (const uint8_t * row, int x)
  {
    return row[x];
  }
  static __device__ __forceinline__ unsigned distance (Pixel a, Pixel b)
  {
    return a > b ? a - b : b - a;
  }
  static __device__ __forceinline__ void add (Sum & s, Pixel p, float w)
  {
    s.value += w * p;
    s.weight += w;
  }
  static __device__ __forceinline__ void store (uint8_t * row, int x,
      const Sum & s, Pixel)
  {
    row[x] = (uint8_t) __float2int_rn (s.value / s.weight);
  }
};

/* 32-bit pixels with three colour bytes starting at byte kFirst (0 or 1,
 * little-endian) and one byte (alpha or padding) that is copied through. */
template < int kFirst > struct Colour32
{
  typedef uint32_t Pixel;
  static constexpr int kShift = 8 * kFirst;
  static constexpr uint32_t kColourMask = 0xffffffu << kShift;
  struct Sum
  {
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, weight = 0.f;
  };

  static __device__ __forceinline__ Pixel load (const uint8_t * row, int x)
  {
    return reinterpret_cast < const uint32_t *>(row)[x];
  }
  /* L1 distance over the three colour bytes: the passthrough byte is masked
   * off so the SIMD sum of absolute byte differences ignores it. */
  static __device__ __forceinline__ unsigned distance (Pixel a, Pixel b)
  {
    return __vsadu4 (a & kColourMask, b & kColourMask);
  }
  static __device__ __forceinline__ void add (Sum & s, Pixel p, float w)
  {
    uint32_t c = p >> kShift;
    s.c0 += w * (float) (c & 0xff);
    s.c1 += w * (float) ((c >> 8) & 0xff);
    s.c2 += w * (float) ((c >> 16) & 0xff);
    s.weight += w;
  }
  static __device__ __forceinline__ void store (uint8_t * row, int x,
      const Sum & s, Pixel centre)
  {
    float inv = 1.f / s.weight;
    uint32_t c = (uint32_t) __float2int_rn (s.c0 * inv)
        | ((uint32_t) __float2int_rn (s.c1 * inv) << 8)
        | ((uint32_t) __float2int_rn (s.c2 * inv) << 16);
    reinterpret_cast < uint32_t * >(row)[x] =
        (c << kShift) | (centre & ~kColourMask);
  }
};

template < class T, bool kTiled >
__global__ void __launch_bounds__ (kBlockW * kBlockH)
bilateral_generic (CbfPlane src, CbfPlane dst, int row_begin, int row_end,
    int radius, const float *__restrict__ tables)
{
  typedef typename T::Pixel Pixel;
  extern __shared__ float smem[];

  const int tid = threadIdx.y * kBlockW + threadIdx.x;
  const int n_threads = kBlockW * kBlockH;
  /* The tiled path keeps all tables in shared memory; the large-radius path
   * only the range table (its space table can be 360 KiB). */
  const int n_shared_tables = kTiled ? generic_tables_len (radius) : CBF_RANGE_LUT_LEN;
  for (int i = tid; i < n_shared_tables; i += n_threads)
    smem[i] = tables[i];
  const float *range_lut = smem;
  const float *space_lut = (kTiled ? smem : tables) + CBF_RANGE_LUT_LEN;
  const float *half_width = space_lut + radius * radius + 1;

  const int x0 = blockIdx.x * kBlockW;
  const int y0 = row_begin + blockIdx.y * kBlockH;
  const int tile_w = kBlockW + 2 * radius;
  Pixel *tile = reinterpret_cast < Pixel * >(smem + n_shared_tables);
  if (kTiled) {
    const int tile_h = kBlockH + 2 * radius;
    for (int i = tid; i < tile_w * tile_h; i += n_threads) {
      int ty = i / tile_w, tx = i - ty * tile_w;
      int gy = reflect101 (y0 + ty - radius, src.height);
      int gx = reflect101 (x0 + tx - radius, src.width);
      tile[i] = T::load (plane_row (src, gy), gx);
    }
  }
  __syncthreads ();

  const int x = x0 + threadIdx.x;
  const int y = y0 + threadIdx.y;
  if (x >= src.width || y >= row_end)
    return;

  const Pixel centre = T::load (plane_row (src, y), x);
  typename T::Sum sum;
  for (int dy = -radius; dy <= radius; dy++) {
    const int hw = (int) half_width[dy < 0 ? -dy : dy];
    const Pixel *tile_row =
        tile + (threadIdx.y + radius + dy) * tile_w + threadIdx.x + radius;
    const uint8_t *src_row = plane_row (src, reflect101 (y + dy, src.height));
    for (int dx = -hw; dx <= hw; dx++) {
      const Pixel p = kTiled ? tile_row[dx] :
          T::load (src_row, reflect101 (x + dx, src.width));
      const float w = space_lut[dy * dy + dx * dx] *
          range_lut[T::distance (p, centre)];
      T::add (sum, p, w);
    }
  }
  T::store (dst.data + (size_t) y * dst.pitch_bytes, x, sum, centre);
}

/* ------------------------------------------------------------------ */
/* Launchers */

cudaError_t check_args (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w)
{
  if (src->width <= 0 || src->height <= 0 || w->radius < 1
      || w->radius > CBF_MAX_RADIUS || src->width != dst->width
      || src->height != dst->height || row_begin < 0 || row_end > src->height
      || row_begin >= row_end)
    return cudaErrorInvalidValue;
  /* Drop an error left by an earlier, unrelated runtime call on this thread
   * (a failed allocation, say), so that only this launch's is returned. */
  cudaGetLastError ();
  return cudaSuccess;
}

template < class T >
cudaError_t launch_generic (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w,
    cudaStream_t stream)
{
  const int radius = w->radius;
  cudaError_t err = check_args (src, dst, row_begin, row_end, w);
  if (err != cudaSuccess)
    return err;

  dim3 block (kBlockW, kBlockH);
  dim3 grid ((src->width + kBlockW - 1) / kBlockW,
      (row_end - row_begin + kBlockH - 1) / kBlockH);
  if (radius <= kMaxTiledRadius) {
    size_t tile_bytes = (size_t) (kBlockW + 2 * radius) *
        (kBlockH + 2 * radius) * sizeof (typename T::Pixel);
    size_t smem = generic_tables_len (radius) * sizeof (float) + tile_bytes;
    bilateral_generic < T, true > <<<grid, block, smem, stream >>> (*src,
        *dst, row_begin, row_end, radius, w->tables_dev);
  } else {
    bilateral_generic < T, false > <<<grid, block,
        CBF_RANGE_LUT_LEN * sizeof (float), stream >>> (*src, *dst,
        row_begin, row_end, radius, w->tables_dev);
  }
  return cudaGetLastError ();
}

template < class T, int R >
void launch_fast_radius (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, unsigned shift,
    const CbfBilateralWeights * w, cudaStream_t stream)
{
  constexpr int rows_per_block = kFastBlockY * T::kRows;
  dim3 block (kFastBlockX, kFastBlockY);
  dim3 grid ((src->width + kFastBlockX - 1) / kFastBlockX,
      (row_end - row_begin + rows_per_block - 1) / rows_per_block);
  SpaceTaps space;
  for (int i = 0; i < CBF_FAST_MAX_TAPS; i++)
    space.w[i] = w->space_taps[i];
  bilateral_fast < T, R > <<<grid, block, 0, stream >>> (*src, *dst,
      row_begin, row_end, shift, w->tables_dev, space);
}

template < class T, class Generic >
cudaError_t launch (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, unsigned shift,
    const CbfBilateralWeights * w, cudaStream_t stream)
{
  cudaError_t err = check_args (src, dst, row_begin, row_end, w);
  if (err != cudaSuccess)
    return err;

  switch (w->radius) {
#define CBF_FAST_CASE(R) \
    case R: \
      launch_fast_radius < T, R > (src, dst, row_begin, row_end, shift, w, \
          stream); \
      break;
      CBF_FAST_CASE (1) CBF_FAST_CASE (2) CBF_FAST_CASE (3)
      CBF_FAST_CASE (4) CBF_FAST_CASE (5) CBF_FAST_CASE (6)
      CBF_FAST_CASE (7) CBF_FAST_CASE (8)
#undef CBF_FAST_CASE
    default:
      return launch_generic < Generic > (src, dst, row_begin, row_end, w,
          stream);
  }
  return cudaGetLastError ();
}

static_assert (CBF_FAST_MAX_RADIUS == 8, "one case per specialised radius");

}                               /* namespace */

extern "C" cudaError_t
cbf_bilateral_gray8 (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w,
    cudaStream_t stream)
{
  return launch < FastGray, Gray8 > (src, dst, row_begin, row_end, 0, w,
      stream);
}

extern "C" cudaError_t
cbf_bilateral_colour_first (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w,
    cudaStream_t stream)
{
  return launch < FastColour, Colour32 < 0 > >(src, dst, row_begin, row_end,
      0, w, stream);
}

extern "C" cudaError_t
cbf_bilateral_colour_last (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w,
    cudaStream_t stream)
{
  return launch < FastColour, Colour32 < 1 > >(src, dst, row_begin, row_end,
      8, w, stream);
}

extern "C" cudaError_t
cbf_bilateral_gray8_generic (const CbfPlane * src, const CbfPlane * dst,
    int row_begin, int row_end, const CbfBilateralWeights * w,
    cudaStream_t stream)
{
  return launch_generic < Gray8 > (src, dst, row_begin, row_end, w, stream);
}

extern "C" cudaError_t
cbf_bilateral_colour_first_generic (const CbfPlane * src,
    const CbfPlane * dst, int row_begin, int row_end,
    const CbfBilateralWeights * w, cudaStream_t stream)
{
  return launch_generic < Colour32 < 0 > >(src, dst, row_begin, row_end, w,
      stream);
}
