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
 * space_lut[dx^2 + dy^2] * range_lut[L1 colour distance], float sums,
 * round half to even. One thread per output pixel; a block stages its tile
 * and halo in shared memory together with the weight tables. */

#include "bilateral.h"

namespace {

constexpr int kBlockW = 32;
constexpr int kBlockH = 8;
/* Up to this radius a block's tile with its halo ((32 + 2r) x (8 + 2r)
 * 32-bit pixels) plus all tables fit in the 48 KiB of shared memory every
 * supported GPU gives without opt-in (35 KiB at r = 32). Larger windows read
 * the source through the L1 cache instead. */
constexpr int kMaxTiledRadius = 32;

__host__ __device__ constexpr int tables_len (int radius)
{
  return CBF_RANGE_LUT_LEN + radius * radius + 1 + radius + 1;
}

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
bilateral_kernel (CbfPlane src, CbfPlane dst, int radius,
    const float *__restrict__ tables)
{
  typedef typename T::Pixel Pixel;
  extern __shared__ float smem[];

  const int tid = threadIdx.y * kBlockW + threadIdx.x;
  const int n_threads = kBlockW * kBlockH;
  /* The tiled path keeps all tables in shared memory; the large-radius path
   * only the range table (its space table can be 360 KiB). */
  const int n_shared_tables = kTiled ? tables_len (radius) : CBF_RANGE_LUT_LEN;
  for (int i = tid; i < n_shared_tables; i += n_threads)
    smem[i] = tables[i];
  const float *range_lut = smem;
  const float *space_lut = (kTiled ? smem : tables) + CBF_RANGE_LUT_LEN;
  const float *half_width = space_lut + radius * radius + 1;

  const int x0 = blockIdx.x * kBlockW;
  const int y0 = blockIdx.y * kBlockH;
  const int tile_w = kBlockW + 2 * radius;
  Pixel *tile = reinterpret_cast < Pixel * >(smem + n_shared_tables);
  if (kTiled) {
    const int tile_h = kBlockH + 2 * radius;
    for (int i = tid; i < tile_w * tile_h; i += n_threads) {
      int ty = i / tile_w, tx = i - ty * tile_w;
      int gy = reflect101 (y0 + ty - radius, src.height);
      int gx = reflect101 (x0 + tx - radius, src.width);
      tile[i] = T::load (src.data + (size_t) gy * src.pitch_bytes, gx);
    }
  }
  __syncthreads ();

  const int x = x0 + threadIdx.x;
  const int y = y0 + threadIdx.y;
  if (x >= src.width || y >= src.height)
    return;

  const Pixel centre =
      T::load (src.data + (size_t) y * src.pitch_bytes, x);
  typename T::Sum sum;
  for (int dy = -radius; dy <= radius; dy++) {
    const int hw = (int) half_width[dy < 0 ? -dy : dy];
    const Pixel *tile_row =
        tile + (threadIdx.y + radius + dy) * tile_w + threadIdx.x + radius;
    const uint8_t *src_row = src.data +
        (size_t) reflect101 (y + dy, src.height) * src.pitch_bytes;
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

template < class T >
cudaError_t launch (const CbfPlane * src, const CbfPlane * dst, int radius,
    const float *tables_dev, cudaStream_t stream)
{
  if (src->width <= 0 || src->height <= 0 || radius < 1
      || radius > CBF_MAX_RADIUS || src->width != dst->width
      || src->height != dst->height)
    return cudaErrorInvalidValue;

  /* Drop an error left by an earlier, unrelated runtime call on this thread
   * (a failed allocation, say), so that only this launch's is returned. */
  cudaGetLastError ();

  dim3 block (kBlockW, kBlockH);
  dim3 grid ((src->width + kBlockW - 1) / kBlockW,
      (src->height + kBlockH - 1) / kBlockH);
  if (radius <= kMaxTiledRadius) {
    size_t tile_bytes = (size_t) (kBlockW + 2 * radius) *
        (kBlockH + 2 * radius) * sizeof (typename T::Pixel);
    size_t smem = tables_len (radius) * sizeof (float) + tile_bytes;
    bilateral_kernel < T, true > <<<grid, block, smem, stream >>> (*src, *dst,
        radius, tables_dev);
  } else {
    bilateral_kernel < T, false > <<<grid, block,
        CBF_RANGE_LUT_LEN * sizeof (float), stream >>> (*src, *dst, radius,
        tables_dev);
  }
  return cudaGetLastError ();
}

}                               /* namespace */

extern "C" cudaError_t
cbf_bilateral_gray8 (const CbfPlane * src, const CbfPlane * dst, int radius,
    const float *tables_dev, cudaStream_t stream)
{
  return launch < Gray8 > (src, dst, radius, tables_dev, stream);
}

extern "C" cudaError_t
cbf_bilateral_colour_first (const CbfPlane * src, const CbfPlane * dst,
    int radius, const float *tables_dev, cudaStream_t stream)
{
  return launch < Colour32 < 0 > >(src, dst, radius, tables_dev, stream);
}

extern "C" cudaError_t
cbf_bilateral_colour_last (const CbfPlane * src, const CbfPlane * dst,
    int radius, const float *tables_dev, cudaStream_t stream)
{
  return launch < Colour32 < 1 > >(src, dst, radius, tables_dev, stream);
}
