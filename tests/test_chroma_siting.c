/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral on a GPU: where chroma-guide=luma's guide samples luma.
 * Its kernel (cbf_chroma_guide, called directly) against the C reference
 * (reference_chroma.h) bit for bit, in every siting, subsampling and luma
 * layout; against an outside oracle, videoconvert's chroma resampler, for
 * chroma-site jpeg and mpeg2; and the element following its caps'
 * chroma-site (mpeg2, cosited, jpeg) on 4:2:0 and 4:2:2, against the
 * reference of that siting, on content where the sitings differ. The rest
 * of the chroma tests are in test_chroma and test_chroma_features. Exits
 * 77 without a CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <string.h>

#include <cuda_runtime_api.h>

#include "chroma_support.h"
#include "gpu_support.h"
#include "guide.h"
#include "reference_chroma.h"

/* ------------------------------------------------------------------ */
/* The guide's chroma siting */

#define CUDA_OK(call) G_STMT_START {                                     \
    cudaError_t e_ = (call);                                           \
    fail_unless (e_ == cudaSuccess, "%s: %s", #call,                   \
        cudaGetErrorString (e_));                                      \
  } G_STMT_END

/* @site's two COSITED flags as the kernel takes them (guide.h's
 * CbfChromaSite), restated here: which flags the element passes for its
 * caps is checked through its output (test_guided_siting). */
static gint
kernel_site (GstVideoChromaSite site)
{
  return ((site & GST_VIDEO_CHROMA_SITE_H_COSITED) ?
      CBF_CHROMA_SITE_H_COSITED : 0) |
      ((site & GST_VIDEO_CHROMA_SITE_V_COSITED) ?
      CBF_CHROMA_SITE_V_COSITED : 0);
}

static const gchar *
site_name (gint site)
{
  static const gchar *names[] = { "centred", "H cosited", "V cosited",
    "H and V cosited"
  };

  return names[site & 3];
}

/* How kernel_guide lays luma out in device memory. */
typedef struct
{
  const gchar *name;
  gint bits;                    /* the samples' */
  gint pixel_bytes;             /* from one luma sample to the next */
  gint shift;                   /* of 16-bit containers' samples */
  gsize offset;                 /* of the plane's first byte past a 256-byte
                                 * boundary: 1 breaks the x4 path's 8-byte
                                 * alignment */
} LumaLayout;

/* The guide that cbf_chroma_guide (guide.h), the very kernel the element
 * runs, makes on the GPU from @luma laid out as @layout says (8-bit: a
 * byte a sample, the bytes between samples junk; deeper: 16-bit
 * containers, the sample @layout->shift bits up and junk in the bits
 * below, which the kernel must not read), for chroma subsampled by
 * @sub_x x @sub_y and sited @site (CbfChromaSite flags): its rows in two
 * calls, [0, h / 2) and [h / 2, h), as a frame's bands may ask, into a
 * poisoned guide; its samples' low bits must come back zero. */
static Channel
kernel_guide (const Channel * luma, const LumaLayout * layout, gint sub_x,
    gint sub_y, gint site)
{
  gint w = luma->width, h = luma->height, bytes = layout->bits > 8 ? 2 : 1;
  gint gw = (w + sub_x - 1) / sub_x, gh = (h + sub_y - 1) / sub_y, x, y;
  gsize luma_pitch = ((gsize) w * layout->pixel_bytes + 255) / 256 * 256;
  gsize guide_pitch = ((gsize) gw * bytes + 255) / 256 * 256;
  guint8 *host_luma = g_malloc (luma_pitch * h);
  guint8 *host_guide = g_malloc (guide_pitch * gh);
  guint8 *dev_luma = NULL, *dev_guide = NULL;
  guint16 low = (guint16) ((1u << layout->shift) - 1);
  CbfPlane lp, gp;
  Channel g = channel_new (gw, gh, luma->bits);

  fail_unless (luma->bits == layout->bits);
  memset (host_luma, 0xa5, luma_pitch * h);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint8 *p = host_luma + y * luma_pitch + (gsize) x * layout->pixel_bytes;
      guint v = luma->data[(gsize) y * w + x];

      if (bytes == 1) {
        *p = (guint8) v;
      } else {
        guint16 c = (guint16) (v << layout->shift | (0x5a5a & low));

        memcpy (p, &c, sizeof (c));
      }
    }
  CUDA_OK (cudaMalloc ((void **) &dev_luma, luma_pitch * h + 256));
  CUDA_OK (cudaMalloc ((void **) &dev_guide, guide_pitch * gh));
  CUDA_OK (cudaMemcpy (dev_luma + layout->offset, host_luma, luma_pitch * h,
          cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemset (dev_guide, 0xee, guide_pitch * gh));
  memset (&lp, 0, sizeof (lp));
  lp.data = dev_luma + layout->offset;
  lp.pitch_bytes = luma_pitch;
  lp.pixel_bytes = layout->pixel_bytes;
  lp.width = w;
  lp.height = h;
  lp.sample_shift = layout->shift;
  lp.sample_bits = bytes == 2 ? layout->bits : 0;
  gp = lp;
  gp.data = dev_guide;
  gp.pitch_bytes = guide_pitch;
  gp.pixel_bytes = bytes;
  gp.width = gw;
  gp.height = gh;
  if (gh / 2 > 0)
    CUDA_OK (cbf_chroma_guide (&lp, &gp, sub_x, sub_y, site, 0, gh / 2, 0));
  CUDA_OK (cbf_chroma_guide (&lp, &gp, sub_x, sub_y, site, gh / 2, gh, 0));
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaMemcpy (host_guide, dev_guide, guide_pitch * gh,
          cudaMemcpyDeviceToHost));
  for (y = 0; y < gh; y++)
    for (x = 0; x < gw; x++) {
      const guint8 *p = host_guide + y * guide_pitch + (gsize) x * bytes;
      guint16 c = *p;

      if (bytes == 2)
        memcpy (&c, p, sizeof (c));
      fail_unless ((c & low) == 0, "cbf_chroma_guide (%s) wrote 0x%04x at "
          "(%d, %d): bits below the sample's shift %d set", layout->name, c,
          x, y, layout->shift);
      g.data[(gsize) y * gw + x] = (guint16) (c >> layout->shift);
    }
  cudaFree (dev_luma);
  cudaFree (dev_guide);
  g_free (host_luma);
  g_free (host_guide);
  return g;
}

/* Uniform noise over @bits bits: every rounding of the guide is met. */
static Channel
channel_noise (gint width, gint height, gint bits, guint32 seed)
{
  Channel ch = channel_new (width, height, bits);
  GRand *rand = g_rand_new_with_seed (seed);
  gsize k;

  for (k = 0; k < (gsize) width * height; k++)
    ch.data[k] = (guint16) g_rand_int_range (rand, 0, 1 << bits);
  g_rand_free (rand);
  return ch;
}

/* The guide's kernels (chroma_guide_x4, for 8-bit 4:2:x luma of a byte a
 * sample in 8-byte words, centred or cosited horizontally; chroma_guide
 * for the rest) against the reference's definition (reference_chroma.h),
 * bit for bit: every siting (centred, H, V, H and V cosited) and
 * subsampling (4:2:0, 4:2:2, 4:4:4); widths the x4 path takes in whole
 * words (64), with a rest for the plain kernel (70, 37, 17, 9) and too
 * narrow for it (8 is one word; 5, 2, 1), heights even and odd; 8-bit
 * luma of a byte a sample (NV12's and I420's: the x4 path), the same one
 * byte off 8-byte alignment (the plain kernel), of two bytes a sample
 * (YUY2's Y), 10-bit samples in the low bits (I420_10LE) and MSB-aligned
 * with junk below (P010_10LE), 16-bit (P016_LE). */
GST_START_TEST (test_guide_kernel)
{
  static const LumaLayout layouts[] = {
    {"8-bit", 8, 1, 0, 0}, {"8-bit misaligned", 8, 1, 0, 1},
    {"8-bit of 2 bytes", 8, 2, 0, 0}, {"10-bit LSB", 10, 2, 0, 0},
    {"10-bit MSB", 10, 2, 6, 0}, {"16-bit", 16, 2, 0, 0}
  };
  static const gint sizes[][2] = { {64, 48}, {70, 46}, {37, 23}, {17, 5},
  {9, 3}, {8, 2}, {5, 4}, {2, 2}, {1, 1}
  };
  static const gint subs[][2] = { {2, 2}, {2, 1}, {1, 1} };
  guint l, z, u, seed = 1;
  gint site, x, y;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (u = 0; u < G_N_ELEMENTS (subs); u++)
        for (site = 0; site < 4; site++) {
          gint w = sizes[z][0], h = sizes[z][1];
          gint sx = subs[u][0], sy = subs[u][1];
          Channel luma = channel_noise (w, h, layouts[l].bits, seed++);
          Channel got = kernel_guide (&luma, &layouts[l], sx, sy, site);
          Channel want = channel_new (got.width, got.height, luma.bits);

          cbf_reference_chroma_guide (luma.data, w, want.data, want.width, 2,
              w, h, sx, sy, (site & CBF_CHROMA_SITE_H_COSITED) != 0,
              (site & CBF_CHROMA_SITE_V_COSITED) != 0);
          for (y = 0; y < got.height; y++)
            for (x = 0; x < got.width; x++) {
              gsize k = (gsize) y * got.width + x;

              fail_unless (got.data[k] == want.data[k], "cbf_chroma_guide, "
                  "%s luma %dx%d, chroma subsampled %dx%d, %s: guide sample "
                  "(%d, %d) is %u, the reference's definition %u",
                  layouts[l].name, w, h, sx, sy, site_name (site), x, y,
                  got.data[k], want.data[k]);
            }
          channels_free (&luma, 1);
          channels_free (&got, 1);
          channels_free (&want, 1);
        }
}

GST_END_TEST;

/* videoconvert's 4:2:0 chroma of @luma (8 bits): a Y444 frame whose three
 * planes are @luma, converted to I420 of chroma-site @site by a
 * GstVideoConverter (videoconvert's own converter), its U plane. The
 * converter's fast path from Y444 to I420 scales the chroma planes as
 * pictures, blind to the siting; a dither-quantization other than 1 turns
 * every fast path off, and dither=none keeps it from dithering, so the
 * frame takes the generic path: unpacked to AYUV, video-chroma.c's
 * downsampler for @site, packed. matrix-mode=none: no colour conversion,
 * U stays luma's values. */
static Channel
videoconvert_chroma (const Channel * luma, GstVideoChromaSite site)
{
  gint w = luma->width, h = luma->height, x, y;
  guint p;
  GstVideoInfo in_info, out_info;
  GstVideoFrame in_frame, out_frame;
  GstBuffer *in_buf, *out_buf;
  GstVideoConverter *convert;
  Channel u;

  fail_unless (luma->bits == 8);
  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_Y444, w, h);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_I420, w, h);
  out_info.chroma_site = site;
  in_buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&in_info), NULL);
  out_buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&out_info),
      NULL);
  fail_unless (gst_video_frame_map (&in_frame, &in_info, in_buf,
          GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&out_frame, &out_info, out_buf,
          GST_MAP_WRITE));
  for (p = 0; p < 3; p++)
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&in_frame, p))[y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, p) + x] =
            (guint8) luma->data[(gsize) y * w + x];
  convert = gst_video_converter_new (&in_info, &out_info,
      gst_structure_new ("options",
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
          GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_DITHER_QUANTIZATION,
          G_TYPE_UINT, 2, GST_VIDEO_CONVERTER_OPT_MATRIX_MODE,
          GST_TYPE_VIDEO_MATRIX_MODE, GST_VIDEO_MATRIX_MODE_NONE, NULL));
  fail_unless (convert != NULL, "no GstVideoConverter from Y444 to I420");
  gst_video_converter_frame (convert, &in_frame, &out_frame);
  u = channel_new (GST_VIDEO_INFO_COMP_WIDTH (&out_info, 1),
      GST_VIDEO_INFO_COMP_HEIGHT (&out_info, 1), 8);
  for (y = 0; y < u.height; y++)
    for (x = 0; x < u.width; x++)
      u.data[(gsize) y * u.width + x] =
          ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&out_frame, 1))[y *
          GST_VIDEO_FRAME_COMP_STRIDE (&out_frame, 1) + x];
  gst_video_converter_free (convert);
  gst_video_frame_unmap (&in_frame);
  gst_video_frame_unmap (&out_frame);
  gst_buffer_unref (in_buf);
  gst_buffer_unref (out_buf);
  return u;
}

/* The guide against an outside oracle, videoconvert's chroma resampler
 * (GstVideoConverter, video-chroma.c): the guide that cbf_chroma_guide
 * (the element's kernel) makes for 4:2:0 chroma-site=jpeg and mpeg2 from
 * a luma picture (the shapes picture's luma; uniform noise), against the
 * U plane that videoconvert makes for that chroma-site from a Y444 frame
 * whose U is that luma. videoconvert filters each column pair
 * ((a + b + 1) >> 1) and rounds, then each row ((a + b + 1) >> 1 for jpeg;
 * for mpeg2 (a + 2b + c + 2) >> 2, and (3b + c + 2) >> 2 at the left edge:
 * column -1 clamped to 0) and rounds again; the guide rounds once. Both
 * round half up: videoconvert's first rounding lifts the values by at
 * most half a level, so its sample is the guide's or one more (0 <= vc -
 * guide <= 1), everywhere but at the last chroma column of an even width
 * with mpeg2, where videoconvert's loop ends a step early and takes
 * (a + 3b + 2) >> 2 of luma columns W - 3 and W - 2, leaving out column
 * W - 1, which the guide's [1 2 1] reads: that column is skipped.
 * videoconvert has no vertical cositing (its downsampler for it, v2_cs, is
 * a FIXME that only decimates), so chroma-site=cosited is held to the C
 * reference alone (test_guide_kernel, test_guided_siting). The oracle must
 * tell the sitings apart: the centred guide and videoconvert's mpeg2
 * chroma differ by more than 1 somewhere. */
GST_START_TEST (test_guide_videoconvert)
{
  static const struct
  {
    const gchar *name;
    GstVideoChromaSite site;
  } sites[] = { {"jpeg", GST_VIDEO_CHROMA_SITE_JPEG},
  {"mpeg2", GST_VIDEO_CHROMA_SITE_MPEG2}
  };
  static const gint sizes[][2] = { {64, 48}, {70, 46}, {37, 23}, {9, 7},
  {5, 3}, {2, 2}, {1, 1}
  };
  static const LumaLayout layout = { "8-bit", 8, 1, 0, 0 };
  guint s, z, k, told = 0;
  gint x, y;

  for (z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (k = 0; k < 2; k++) {
      gint w = sizes[z][0], h = sizes[z][1];
      Channel luma;

      if (k == 0) {
        Channel in[3];

        picture_channels ("I420", w, h, 500 + z, in);
        luma = in[0];
        channels_free (in + 1, 2);
      } else {
        luma = channel_noise (w, h, 8, 510 + z);
      }
      for (s = 0; s < G_N_ELEMENTS (sites); s++) {
        gint site = kernel_site (sites[s].site);
        Channel guide = kernel_guide (&luma, &layout, 2, 2, site);
        Channel vc = videoconvert_chroma (&luma, sites[s].site);
        gboolean h_cosited = (site & CBF_CHROMA_SITE_H_COSITED) != 0;

        fail_unless (vc.width == guide.width && vc.height == guide.height);
        for (y = 0; y < vc.height; y++)
          for (x = 0; x < vc.width; x++) {
            gsize i = (gsize) y * vc.width + x;
            gint d = (gint) vc.data[i] - (gint) guide.data[i];

            if (h_cosited && w % 2 == 0 && x == vc.width - 1)
              continue;
            fail_unless (d == 0 || d == 1, "%dx%d %s luma, chroma-site=%s: "
                "guide sample (%d, %d) is %u, videoconvert's chroma %u: it "
                "must be the guide's or one more (videoconvert rounds "
                "twice, half up)", w, h, k ? "noise" : "picture",
                sites[s].name, x, y, guide.data[i], vc.data[i]);
          }
        if (h_cosited) {
          Channel centred = kernel_guide (&luma, &layout, 2, 2, 0);

          told += count_differing (&centred, &vc, 1);
          channels_free (&centred, 1);
        }
        channels_free (&guide, 1);
        channels_free (&vc, 1);
      }
      channels_free (&luma, 1);
    }
  fail_unless (told > 0, "the centred guide is within 1 of videoconvert's "
      "mpeg2 chroma everywhere: the oracle cannot tell the sitings apart");
}

GST_END_TEST;

/* The element follows the caps' chroma-site: I420, NV12, P010_10LE and
 * I422_10LE (4:2:2: horizontal siting only, cosited's vertical flag
 * ignored) with chroma-site=mpeg2, cosited and jpeg in the caps, a
 * specialised window (d = 9) and a wide one (chroma-diameter 41),
 * 64 x 48 and 37 x 23: the guided chroma against the reference's with the
 * guide of that siting, within +-1. So that an element that ignores
 * chroma-site, or one of its flags, fails: for each format, the reference
 * of each siting must differ by more than 2 somewhere from that of every
 * other siting whose guide differs (all three for 4:2:0; for 4:2:2 mpeg2's
 * and cosited's guides are one). */
GST_START_TEST (test_guided_siting)
{
  static const gchar *fmts[] = { "I420", "NV12", "P010_10LE", "I422_10LE" };
  static const gchar *sites[] = { "jpeg", "mpeg2", "cosited" };
  static const gint sizes[][2] = { {64, 48}, {37, 23} };
  Setup setups[2];
  guint f, si, o, z, k, c;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (9, 30, 4, TRUE);
  setups[1].chroma_diameter = 41;
  setups[1].chroma_sigma_color = 50;
  setups[1].chroma_sigma_space = 10;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    guint told[G_N_ELEMENTS (sites)][G_N_ELEMENTS (sites)];
    gboolean rows_subsampled = FALSE;

    memset (told, 0, sizeof (told));
    for (z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (k = 0; k < G_N_ELEMENTS (setups); k++) {
        gint w = sizes[z][0], h = sizes[z][1];
        guint32 seed = 900 + 10 * f + 2 * z + k;
        Channel in[3], ref[G_N_ELEMENTS (sites)][3];

        picture_channels (fmts[f], w, h, seed, in);
        for (si = 0; si < G_N_ELEMENTS (sites); si++) {
          Setup s = setups[k];
          GstVideoInfo info;

          s.chroma_site = sites[si];
          info = setup_info (fmts[f], w, h, &s);
          rows_subsampled = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, 1) > 0;
          check_setup (fmts[f], w, h, &s, seed, NULL);
          expected_by_plane (&info, in, &s, ref[si]);
        }
        for (si = 0; si < G_N_ELEMENTS (sites); si++)
          for (o = 0; o < G_N_ELEMENTS (sites); o++)
            for (c = 1; c < 3; c++)
              told[si][o] += count_differing (&ref[si][c], &ref[o][c], 2);
        channels_free (in, 3);
        for (si = 0; si < G_N_ELEMENTS (sites); si++)
          channels_free (ref[si], 3);
      }
    for (si = 0; si < G_N_ELEMENTS (sites); si++)
      for (o = si + 1; o < G_N_ELEMENTS (sites); o++) {
        /* mpeg2 and cosited differ only in their vertical flag */
        if (!rows_subsampled && si == 1 && o == 2)
          continue;
        fail_unless (told[si][o] > 0, "%s: the reference's guided chroma "
            "with chroma-site=%s is within 2 of chroma-site=%s's "
            "everywhere: the content cannot tell whether the element "
            "follows chroma-site", fmts[f], sites[si], sites[o]);
      }
  }
}

GST_END_TEST;

static Suite *
chroma_siting_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-chroma-siting", 600, &tc);

  tcase_add_test (tc, test_guide_kernel);
  tcase_add_test (tc, test_guide_videoconvert);
  tcase_add_test (tc, test_guided_siting);
  return s;
}

TEST_MAIN (chroma_siting_suite, TEST_NEEDS_GPU, NULL);
