/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The kernels' tunables, in one place: block and tile shapes, outputs a
 * thread, blocks an SM, rows ahead. Each was chosen by measurement; the
 * figures of what lost are in docs/what-was-tried.md, the section named
 * beside it, and the kernels' shapes in docs/kernels.md. */

#ifndef CBF_TUNABLES_CUH
#define CBF_TUNABLES_CUH

namespace {

/* ------------------------------------------------------------------ */
/* The specialised bilateral kernels (bilateral_fast.cuh and its
 * bilateral_fast_channel.cuh, bilateral_fast_color.cuh) */

/* A specialised kernel's shape: output rows and columns a thread (the
 * columns adjacent, so that a loaded neighbour serves both), blocks per SM
 * the compiler must fit (it caps registers to that), and the block's rows
 * of 32 threads. More outputs a thread reuse each loaded neighbour more
 * often; more resident warps hide the latency of the shared loads each tap
 * waits on; a taller block shares its weight tables and its tile's halo
 * among more outputs. */
struct FastShapeOf
{
  int rows, cols, min_blocks, block_rows;
  /* Colour: whether a thread loads all its tile pixels before storing any
   * (load_tile_rows), and whether the weights are copied in 16-byte words
   * loaded before the tile (FastWeightCopy). Each helps at some radii and
   * hurts at others. One channel does not read them (ChannelShape). */
  bool batched_fill = false, word_copy = false;
};

/* Chosen per radius as the fastest of the shapes measured, at 4K and
 * 1080p. Colour: two adjacent columns a thread from radius 2 (one 64-bit
 * tile load serves both), one at radius 1; blocks of 32 x 16 threads, two
 * an SM, at radii 5 to 8, where the taller block shares its tables and
 * its tile's halo among twice the outputs (at radii 6, 7 and 8 it needs
 * dynamic shared memory: 51, 60, 60 KiB; 8-bit colour at 9 and 10: 71,
 * 83 KiB); 2 x 2 outputs from radius 8, where 2 x 4 spills; batched_fill
 * and word_copy where they were faster.
 * One channel: the byte tile (bilateral_fast_channel) needs four columns a thread, here
 * of two rows, with five blocks an SM at radii 1 to 3 and four beyond
 * (what-was-tried.md, "Kernel shapes"). */
__host__ __device__ constexpr FastShapeOf color_shape (
    int radius, bool guided = false)
{
  return radius == 2 || radius == 3 ? FastShapeOf{ 4, 2, 4, 8, false, true }
      : radius == 4                 ? FastShapeOf{ 3, 2, 4, 8, true, true }
      : radius == 5 || radius == 6  ? FastShapeOf{ 4, 2, 2, 16, false, true }
      : radius == 7                 ? FastShapeOf{ 4, 2, 2, 16, false, false }
      /* chroma guided by luma (two outputs' stores a pixel) spills at two
       * blocks an SM */
      : radius >= 8 ? FastShapeOf{ 2, 2, guided ? 1 : 2, 16, false, true }
                    : FastShapeOf{ 4, 1, 4, 8 };
}

/* Blocks an SM of the one-channel kernel at radius 10: four on sm_90, where
 * it was measured; elsewhere it spills at four (48 bytes), so three. Only
 * the launch bounds change, not the block's geometry. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
constexpr int kGrayRadius10Blocks = 3;
#else
constexpr int kGrayRadius10Blocks = 4;
#endif

__host__ __device__ constexpr FastShapeOf gray_shape (int radius, int planes)
{
  return radius <= 3 ? FastShapeOf{ 2, 4, 5, 8 }
      /* two planes a launch (blockIdx.z) take a register more than 64 at
       * radius 8, where 4 blocks an SM would spill */
      : radius >= 8 && planes > 1 ? FastShapeOf{ 2, 4, 3, 8 }
      : radius == 10              ? FastShapeOf{ 2, 4, kGrayRadius10Blocks, 8 }
                                  : FastShapeOf{ 2, 4, 4, 8 };
}

/* A specialised kernel's block is 32 threads wide. */
constexpr int kFastBlockX = 32;

/* From radius 7 the one-channel kernel's warps take 8 x 4 of the block's
 * thread positions (with 2 x 3 outputs a thread, as measured here, a warp
 * made 16 x 12 pixels) instead of a row of 32 (64 x 3 pixels): fewer
 * warps straddle an edge,
 * and those that do read weights of fewer distinct level differences, so
 * that the table's loads conflict less (distances 64 levels apart meet in
 * a bank), which made radii 7 and 8 faster. At small radii the stores,
 * whose rows a warp then writes 16 bytes at a time, weigh more than the
 * taps: with it, radii 1 to 3 were slower than with the word fill alone;
 * radii 4 to 6, not measured alone, keep the row of 32
 * (what-was-tried.md, "Kernel shapes"). */
constexpr int kIntWarpMinRadius = 7;
constexpr int kIntWarpCols = 8;
constexpr int kIntWarpRows = 32 / kIntWarpCols;

/* Whether 8-bit colour's specialised kernel is built above
 * CBF_FAST_MAX_RADIUS: for sm_80 and sm_90 (and what their code runs on),
 * whose SMs hold two of its blocks; not for sm_75, 86 and 89, which hold
 * none or one, and where fast_color_fits keeps it from launching. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 800 && __CUDA_ARCH__ < 900
constexpr bool kFastExtendedColor = false;
#else
constexpr bool kFastExtendedColor = true;
#endif

/* The deep specialised kernel (bilateral_fast_deep.cuh): its shape at
 * @radius, as color_shape's; @table: a one-channel kernel that reads
 * some range weights from its table (deep_table). With no table in
 * shared memory, registers bound the blocks an SM: colour 2 x 2 outputs a
 * thread and four blocks, one channel 2 x 4 and five, the fastest of the
 * shapes measured at 4K, d = 15 (what-was-tried.md, "Deep samples"); at
 * radius 8, where those spill, colour three and one channel four. The
 * table's kernel holds each output's tile word besides its range key:
 * three. @extended: one channel whose kernels go on to radius 10 (16-bit
 * samples); from radius 8 it takes 1 x 2 outputs in six blocks, a third of
 * 2 x 4's machine code, so that radii 9 and 10 fit the plugin's size
 * budget; a little slower at radius 8, faster at 9 and 10 (what-was-tried.md,
 * "Deep samples"). */
__host__ __device__ constexpr FastShapeOf deep_shape (
    bool color, int radius, bool table, bool extended)
{
  return color                  ? FastShapeOf{ 2, 2, radius >= 8 ? 3 : 4, 8 }
      : extended && radius >= 8 ? FastShapeOf{ 1, 2, 6, 8 }
      : table                   ? FastShapeOf{ 2, 4, 3, 8 }
      : radius >= 8             ? FastShapeOf{ 2, 4, 4, 8 }
                                : FastShapeOf{ 2, 4, 5, 8 };
}

/* Whether the deep one-channel kernel on samples of at most 12 bits (whose
 * exact distances index the range table) reads some of its range weights
 * from the table at @radius: from 4 to 7. Below, a block's taps are too
 * few to repay the table's copy; at radius 8 the kernel would spill at
 * three blocks an SM and is slower at two (what-was-tried.md, "Deep
 * samples").
 * Its three blocks of 34 KiB of shared memory (tile and table) fit an SM
 * of compute capability 8.0 or 9.0 (164 and 228 KiB); 7.5, 8.6 and 8.9
 * (64 to 100 KiB) would hold one or two, so they keep the computed
 * weights, as does the host's view of the shape (the launch's geometry is
 * the same either way). */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900)
constexpr bool kDeepTableFits = true;
#else
constexpr bool kDeepTableFits = false;
#endif
__host__ __device__ constexpr bool deep_table (int radius)
{
  return kDeepTableFits && radius >= 4 && radius <= 7;
}

/* Which taps of that kernel read their range weight from the table in
 * shared memory: kDeepTableTaps of every kDeepTableCycle, spread over the
 * window and the thread's outputs; the others compute it on the
 * special-function unit, so that the two work side by side
 * (what-was-tried.md, "Deep samples"). */
constexpr int kDeepTableTaps = 1;
constexpr int kDeepTableCycle = 3;
__host__ __device__ constexpr bool deep_table_tap (int dx, int dy, int o)
{
  return (dx + 2 * dy + o + 64 * kDeepTableCycle) % kDeepTableCycle
      < kDeepTableTaps;
}

/* ------------------------------------------------------------------ */
/* The wide bilateral kernel (bilateral_wide.cuh): radii above the
 * specialised kernels' */

/* Its shape: K rows of C adjacent outputs a thread, blocks an SM the
 * compiler must fit, warps a block; a warp's lanes warp_cols threads
 * across (32 / warp_cols down), the block's warps warps_across across.
 * Eight columns a thread, whose pixels are then each unpacked for eight
 * outputs, in warps of 4 x 8 threads (the rows' words then meet in
 * distinct banks, WideGeometry), blocks of 128 x 16 outputs. */
struct WideShapeOf
{
  int rows, cols, min_blocks, warps, warp_cols, warps_across;
};

constexpr WideShapeOf kWideShape{ 1, 8, 3, 8, 4, 4 };
/* Deep colour (64-bit tile words and range keys, four sums an output)
 * spills at eight outputs a thread: four, in warps of 8 x 4 threads. */
constexpr WideShapeOf kWideDeepColorShape{ 1, 4, 3, 8, 8, 4 };
/* The folded kernel (8-bit layouts, a range table a column offset): its
 * tables take most of a block's shared memory, so that two blocks at most
 * fit an SM; blocks of 128 x 24 outputs then keep the warps of three
 * blocks of the shape above. */
constexpr WideShapeOf kWideFoldShape{ 1, 8, 2, 12, 4, 4 };
/* The folded 8-bit colour kernel, whose loop is bound by its issue slots
 * where the one-channel one is bound by its table loads: from the radius
 * at which two blocks of the shape above no longer fit an SM, its one
 * block an SM has 28 warps (128 x 56 outputs), so that it has warps enough
 * to keep the SM issuing; the registers that 28 warps leave a thread also
 * hold two blocks of the shape above, which it runs below that radius
 * (bilateral_wide.cuh chooses at launch). Fewer or more warps were slower
 * (what-was-tried.md, "Wide kernel"). */
constexpr WideShapeOf kWideFoldTallShape{ 1, 8, 1, 28, 4, 4 };
/* The folded kernel is launched where its grid takes at least this many
 * rounds of the blocks the GPU holds at once: its blocks are larger and
 * fewer fit an SM, and on the smaller grids of 1080p frames it was slower
 * than the unfolded kernel (what-was-tried.md, "Wide kernel"). */
constexpr int kWideFoldMinWaves = 8;
/* The folded 8-bit colour kernel's pairs whose range weight it computes
 * on the special-function unit rather than reads from its tables: those
 * of the step's columns in this mask (C bits), one pair in four, so that
 * the computations and the tables' loads work side by side; one in eight,
 * three in eight and one in two were slower (what-was-tried.md, "Wide kernel"). */
constexpr unsigned kWideFoldComputed = 0x11;

/* The wide one-channel kernel (bilateral_wide_channel.cuh): output rows
 * and adjacent columns a thread (4 or 8: whole words of the byte tile),
 * rows of 32 threads a block, blocks an SM the compiler must fit; its
 * warps take the specialised kernel's 8 x 4 thread positions
 * (kIntWarpCols). 2 x 4 outputs in blocks of 512 threads, two an SM, were
 * faster than 1 x 8, which takes fewer instructions a tap, in blocks of
 * 512 or 1024 (what-was-tried.md, "Wide kernel"). */
constexpr int kWideChannelRows = 2;
constexpr int kWideChannelCols = 4;
constexpr int kWideChannelBlockRows = 16;
constexpr int kWideChannelMinBlocks = 2;

/* ------------------------------------------------------------------ */
/* The generic bilateral kernel (bilateral_generic.cuh), whose blocks the
 * grid's kernels (grid.cu) take too */

constexpr int kBlockW = 32;
constexpr int kBlockH = 8;
/* Its blocks an SM: as many as the SM holds for 32-bit tile words (the
 * registers ptxas chooses by itself: 32), four for the deep layouts'
 * 64-bit words, which spill in 32. An SM holds 1024 threads on sm_75,
 * 1536 on sm_86, sm_87 and sm_89, 2048 on sm_80 and sm_90. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kGenericMinBlocks = 4;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ > 800 && __CUDA_ARCH__ < 900
constexpr int kGenericMinBlocks = 6;
#else
constexpr int kGenericMinBlocks = 8;
#endif
constexpr int kGenericWideWordMinBlocks = 4;
/* Up to this radius a block's tile with its halo ((32 + 2r) x (8 + 2r)
 * 32-bit words) plus all tables fit in the 48 KiB of shared memory every
 * supported GPU gives without opt-in (35 KiB at r = 32). Larger windows read
 * the source through the L1 cache instead. */
constexpr int kMaxTiledRadius = 32;

/* ------------------------------------------------------------------ */
/* The streaming kernels (stream.cuh, bilateral_stream.cuh, gaussian.cu) */

/* Pixels a thread: one 16-byte word of 32-bit pixels. */
constexpr int kStreamPixels = 4;

/* Output rows a strip: short strips, as a bilateral output row costs far
 * more than the halo's loads, and more strips fill the GPU at 1080p; 8
 * rows and 8 blocks an SM were among the fastest shapes measured at radius
 * 1, all faster than the specialised kernel. At radius 2 every shape was
 * slower than the specialised kernel, so only radius 1 streams
 * (what-was-tried.md, "Streaming kernels"). */
constexpr int kBilateralStreamThreads = 64;
constexpr int kBilateralStreamRows = 8;
constexpr int kBilateralStreamMinBlocks = 8;

/* The Gaussian's streaming kernel (gaussian_stream): threads a block. */
constexpr int kGaussStreamThreads = 64;
/* Output rows a strip, at most: the 2r halo rows are read and filtered
 * again by the strip below, so long strips waste less, but a frame (or a
 * band) must give enough strips to fill the GPU (stream_strip_rows). */
constexpr int kGaussStreamRows = 32;
constexpr int kGaussStreamMaxRadius = 2;
/* Source rows loaded ahead of the one being filtered: two were as fast as
 * three and faster than four. The rows' slots are fixed (a shifted array
 * of loaded rows made the copies wait for the loads, and was slower)
 * (what-was-tried.md, "Streaming kernels"). */
constexpr int kGaussStreamAhead = 2;
/* Rows ahead whose words are asked into L2 (0: none): four rows ahead
 * made the stream faster where its inputs come from DRAM, at 4K and above
 * (what-was-tried.md, "Streaming kernels"). */
constexpr int kGaussStreamPrefetch = 4;
static_assert (kGaussStreamMaxRadius <= 2, "the loads cover two pixels a side");
/* 128 registers a thread at most (8 blocks of 64): 16 warps an SM keep
 * enough row loads in flight. */
constexpr int kGaussStreamMinBlocks = 8;

/* ------------------------------------------------------------------ */
/* The Gaussian's tiled kernels (gaussian.cu): blocks of kGaussBlockX x
 * kGaussBlockY threads, kGaussOutputRows output rows a thread, source rows
 * kGaussChunkRows at a time through shared memory (what-was-tried.md,
 * "Gaussian"). */

constexpr int kGaussBlockX = 32;
constexpr int kGaussBlockY = 8;
constexpr int kGaussOutputRows = 8;
constexpr int kGaussBlockRows = kGaussBlockY * kGaussOutputRows;
constexpr int kGaussChunkRows = 2 * kGaussBlockY;

/* ------------------------------------------------------------------ */
/* The bilateral grid (grid.cu) */

/* Warp-aggregated adds from cells of this many pixels on
 * (what-was-tried.md, "Grid"). */
constexpr float kAggregateCellSpace = 20.f;
/* Threads a block of the blur, a thread per cell. */
constexpr int kBlurThreads = 64;

/* ------------------------------------------------------------------ */
/* The strength mask (mask.cu) and the regions (regions.cu): blocks of
 * pixels */

constexpr int kMaskBlockW = 32;
constexpr int kMaskBlockH = 8;

/* The regions' copy: threads a block (a 16-byte chunk each at a time), and
 * blocks an SM, which leave room for the filter running beside it. */
constexpr int kCopyBlock = 256;
constexpr int kCopyBlocksPerSm = 4;

/* A segmentation mask's index (region_cells_index): threads a block, a
 * row of cells each; small blocks, as a mask has few rows to spread. */
constexpr int kCellIndexBlock = 32;

/* ------------------------------------------------------------------ */
/* The chroma guide (guide.cu): a block of guide samples, a warp a row. */

constexpr int kGuideBlockX = 32;
constexpr int kGuideBlockY = 8;

/* ------------------------------------------------------------------ */
/* The motion-compensated temporal filter (motion_estimate.cu,
 * motion_blend.cu). The estimator's constants were chosen on a CPU model
 * of it over the evaluation clips (what-was-tried.md, "Motion-compensated
 * temporal filter"); the noise sigma they scale by is temporal-sigma's. */

/* Integer search at the coarsest level: +-kMotionSearch pixels there. */
constexpr int kMotionSearch = 4;
/* A match's cost: mean |difference| + kMotionLambda x noise x the
 * vector's L1 distance to its prediction (levels a pixel of distance, at
 * full size; halved at each coarser level). */
constexpr float kMotionLambda = 0.05f;
/* Lucas-Kanade: the window's margin around a block, iterations, and the
 * Tikhonov term (a share of the window's noise energy); the blocks a block
 * of threads takes, a warp each, sharing a tile of the current frame. */
constexpr int kMotionSubX = 4, kMotionSubY = 2;
constexpr int kMotionMargin = 4;
constexpr int kMotionIterations = 4;
constexpr float kMotionDamping = 0.05f;
/* A block's confidence: its structure tensor's smaller eigenvalue (Sobel
 * / 8 gradients) less kMotionFloor x the window's noise energy; the
 * pull-push keeps a block's own vector from kMotionShrink x that energy
 * up. */
constexpr float kMotionFloor = 0.07f;
constexpr float kMotionShrink = 0.05f;
/* Levels of the pull-push over the block field. */
constexpr int kMotionPullLevels = 5;
/* Blocks of threads of the per-pixel kernels (the pyramid, a 2 x 2 cell
 * of pixels a thread; the cut count and the blend, a pixel). */
constexpr int kMotionTileW = 32;
constexpr int kMotionTileH = 8;
/* Warps a block of the per-block kernels (search, refinement), a
 * warp a block of the field. */
constexpr int kMotionWarps = 4;
/* The noise estimate (noise.cu): blocks of threads down each column of
 * tiles, each adding its histogram to the frame's once. */
constexpr int kNoiseStrips = 8;

} /* namespace */

#endif /* CBF_TUNABLES_CUH */
