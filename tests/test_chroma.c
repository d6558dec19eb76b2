/* cudabilateral on a GPU: the properties of YUV's planes. chroma-guide=luma
 * (chroma's range weights from luma brought to chroma's resolution, a
 * joint bilateral filter): Y444 against OpenCV's
 * ximgproc::jointBilateralFilter golden files (make_golden_joint.py; luma
 * against bilateralFilter), Y444_16LE against the same functions run on
 * float samples, and I420, NV12, YUY2, P010_10LE, I420_10LE and Y444_16LE
 * against the C reference of the guide and the guided filter
 * (reference_chroma.h), odd and tiny sizes, every kernel family's radius.
 * chroma-diameter, chroma-sigma-color and chroma-sigma-space, filter-luma
 * and filter-chroma against the reference plane by plane, YUV 4:4:4 then
 * filtered plane by plane (and as colour again when they are back at
 * their defaults). The guide and chroma's own sigma-color must change the
 * output on this content (chroma edges on luma's, under strong chroma
 * noise), so that an element ignoring them fails. The guide's chroma
 * siting is tested in test_chroma_siting, the guide with the element's
 * other features in test_chroma_features; what they share is in
 * chroma_support.c. Output pools are poisoned first. Exits 77 without a
 * CUDA device. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <stdio.h>
#include <string.h>

#include "chroma_support.h"
#include "golden.h"
#include "gpu_support.h"

/* ------------------------------------------------------------------ */
/* OpenCV's golden files */

/* A golden PGM of maxval 255 or 65535 (two bytes a sample, most
 * significant first) as a channel of 8 or 16 bits. */
static Channel
channel_from_golden (const gchar * file)
{
  gchar *path = g_build_filename (golden_dir (), file, NULL);
  gchar *data = NULL, magic[3] = "";
  gsize size = 0, k;
  gint w = 0, h = 0, maxval = 0, header = 0, bytes;
  Channel ch;

  fail_unless (g_file_get_contents (path, &data, &size, NULL),
      "cannot read %s", path);
  fail_unless (sscanf (data, "%2s %d %d %d%n", magic, &w, &h, &maxval,
          &header) == 4 && strcmp (magic, "P5") == 0 && w > 0 && h > 0
      && (maxval == 255 || maxval == 65535), "bad PGM header in %s", path);
  header++;                     /* the single white space after maxval */
  bytes = maxval == 255 ? 1 : 2;
  fail_unless (size >= (gsize) header + (gsize) w * h * bytes,
      "%s is truncated", path);
  ch = channel_new (w, h, bytes == 1 ? 8 : 16);
  for (k = 0; k < (gsize) w * h; k++) {
    const guint8 *p = (const guint8 *) data + header + k * bytes;

    ch.data[k] = bytes == 1 ? p[0] : (guint16) (p[0] << 8 | p[1]);
  }
  g_free (data);
  g_free (path);
  return ch;
}

/* A line of joint_cases.txt (make_golden_joint.py documents it). */
typedef struct
{
  gchar *name;
  gint bits, width, height;
  Setup setup;
  gchar *files[6];              /* y, u, v, y_out, u_out, v_out */
} JointCase;

static void
joint_case_free (gpointer data)
{
  JointCase *jc = data;
  guint i;

  g_free (jc->name);
  for (i = 0; i < G_N_ELEMENTS (jc->files); i++)
    g_free (jc->files[i]);
  g_free (jc);
}

static GPtrArray *
load_joint_cases (void)
{
  gchar *path = g_build_filename (golden_dir (), "joint_cases.txt", NULL);
  gchar *text = NULL, **lines;
  GPtrArray *cases = g_ptr_array_new_with_free_func (joint_case_free);
  guint i, f;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL),
      "cannot read %s", path);
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    JointCase *jc;
    gchar name[256], files[6][256];
    gint bits, w, h, d, cd;
    gdouble sc, ss, csc, css;

    if (lines[i][0] == '#' || lines[i][0] == '\0')
      continue;
    fail_unless (sscanf (lines[i], "%255s %d %d %d %d %lf %lf %d %lf %lf "
            "%255s %255s %255s %255s %255s %255s", name, &bits, &w, &h, &d,
            &sc, &ss, &cd, &csc, &css, files[0], files[1], files[2],
            files[3], files[4], files[5]) == 16 && (bits == 8 || bits == 16),
        "malformed line %u of %s: %s", i + 1, path, lines[i]);
    jc = g_new0 (JointCase, 1);
    jc->name = g_strdup (name);
    jc->bits = bits;
    jc->width = w;
    jc->height = h;
    jc->setup = setup_make (d, sc, ss, TRUE);
    jc->setup.chroma_diameter = cd;
    jc->setup.chroma_sigma_color = csc;
    jc->setup.chroma_sigma_space = css;
    for (f = 0; f < 6; f++)
      jc->files[f] = g_strdup (files[f]);
    g_ptr_array_add (cases, jc);
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  return cases;
}

/* Every golden case through Y444 (8 bits) or Y444_16LE (16): Y within
 * +-1 of bilateralFilter, U and V of jointBilateralFilter with Y as the
 * joint image, every other frame padded. OpenCV's float functions, which
 * wrote the 16-bit files, were within 0.1 level of the exact filter before
 * rounding (the script checks that): U and V within +-1 at both depths,
 * and 16-bit Y, which the element may put its documented 16 levels from
 * the exact filter, within 17. */
GST_START_TEST (test_joint_golden)
{
  GPtrArray *cases = load_joint_cases ();
  guint i, c, n_checked[2] = { 0, 0 };

  for (i = 0; i < cases->len; i++) {
    const JointCase *jc = g_ptr_array_index (cases, i);
    const gchar *format = jc->bits == 8 ? "Y444" : "Y444_16LE";
    gint luma_tol = jc->bits == 8 ? 1 :
        format_tolerance (GST_VIDEO_FORMAT_Y444_16LE) + 1;
    GstHarness *h = chroma_harness_new (format, jc->width, jc->height,
        &jc->setup);
    Channel in[3], expected[3], out[3];

    for (c = 0; c < 3; c++) {
      in[c] = channel_from_golden (jc->files[c]);
      expected[c] = channel_from_golden (jc->files[3 + c]);
      fail_unless (in[c].width == jc->width && in[c].height == jc->height
          && in[c].bits == jc->bits, "%s: %s is not %dx%d of %d bits",
          jc->name, jc->files[c], jc->width, jc->height, jc->bits);
    }
    filter_frame (h, format, jc->width, jc->height,
        frame_from_channels (format, jc->width, jc->height, in, i % 2, i), out);
    for (c = 0; c < 3; c++)
      assert_channel_matches (&out[c], &expected[c], c ? 1 : luma_tol,
          jc->name, format, c);
    n_checked[jc->bits == 16]++;
    channels_free (in, 3);
    channels_free (expected, 3);
    channels_free (out, 3);
    filter_harness_free (h);
  }
  fail_unless (n_checked[0] >= 15 && n_checked[1] >= 15, "only %u 8-bit and "
      "%u 16-bit golden cases", n_checked[0], n_checked[1]);
  g_ptr_array_unref (cases);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Against the C reference */

/* The guided chroma of the 8-bit 4:2:0 and 4:2:2 formats and the deep
 * ones against the reference, luma too: chroma radii 2, 3 and 4 (the
 * specialised kernels), 9 and 10 (8-bit: the specialised kernels where
 * they fit; deep: the wide one), 20 (the wide one) and 35 (the generic
 * one), one derived from sigma-space; sizes even, odd and smaller than
 * the windows. */
GST_START_TEST (test_guided_formats)
{
  static const gchar *fmts[] = { "I420", "NV12", "YUY2", "P010_10LE",
    "I420_10LE", "Y444_16LE"
  };
  static const gint sizes[][2] = { {64, 48}, {37, 23}, {5, 3}, {1, 1} };
  Setup setups[7];
  guint f, z, s;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (15, 60, 8, TRUE);
  setups[2] = setup_make (0, 35, 5, TRUE);
  setups[3] = setup_make (9, 30, 4, TRUE);
  setups[3].chroma_diameter = 41;
  setups[3].chroma_sigma_color = 50;
  setups[3].chroma_sigma_space = 10;
  setups[4] = setup_make (5, 30, 3, TRUE);
  setups[4].chroma_diameter = 71;
  setups[4].chroma_sigma_color = 25;
  setups[4].chroma_sigma_space = 20;
  setups[5] = setup_make (7, 30, 3, TRUE);
  setups[5].chroma_diameter = 19;
  setups[5].chroma_sigma_color = 45;
  setups[5].chroma_sigma_space = 6;
  setups[6] = setup_make (5, 35, 2, TRUE);
  setups[6].chroma_diameter = 21;
  setups[6].chroma_sigma_color = 30;
  setups[6].chroma_sigma_space = 9;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (z = 0; z < G_N_ELEMENTS (sizes); z++)
      for (s = 0; s < G_N_ELEMENTS (setups); s++)
        check_setup (fmts[f], sizes[z][0], sizes[z][1], &setups[s],
            100 * f + 10 * z + s, NULL);
}

GST_END_TEST;

/* The guide on the other YUV formats, a specialised and a wide window. */
GST_START_TEST (test_guided_every_format)
{
  static const gchar *fmts[] = { "YV12", "NV21", "UYVY", "Y444", "P012_LE",
    "P016_LE", "I420_12LE", "I422_10LE", "I422_12LE", "Y444_10LE"
  };
  Setup setups[2];
  guint f, s;

  setups[0] = setup_make (9, 40, 4, TRUE);
  setups[1] = setup_make (9, 30, 4, TRUE);
  setups[1].chroma_diameter = 41;
  setups[1].chroma_sigma_color = 50;
  setups[1].chroma_sigma_space = 10;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (s = 0; s < G_N_ELEMENTS (setups); s++)
      check_setup (fmts[f], 37, 23, &setups[s], 700 + 10 * f + s, NULL);
}

GST_END_TEST;

/* The 8-bit wide kernel's two forms (radii 11 to 30), each asked for by
 * GST_CBF_WIDE_KERNEL (left to itself, only a large grid takes the folded
 * one; asked for, it runs where its shared memory fits, every case here
 * on a GPU of 227 KiB a block): planar colour (Y444 with the defaults, its
 * planes filtered together) against the colour reference, chroma guided
 * by luma against the guided reference, and NV12's planes each on its
 * own (one channel asked for either form takes it in place of its own
 * wide kernel) against the reference a plane. Whether the form asked for
 * ran is test_golden's to see, on 4K frames: on frames this small two
 * float kernels may round every value alike. */
GST_START_TEST (test_wide_forms)
{
  static const gchar *forms[] = { "folded", "unfolded" };
  /* the last: one channel's wide kernel on luma, a pair of channels' on
   * chroma, unguided */
  static const gchar *fmts[] = { "NV12", "I420", "Y444", "NV12" };
  const gint width = 150, height = 94;
  GstVideoInfo info = info_for ("Y444", width, height);
  Setup color = setup_make (41, 40, 8, FALSE), setups[G_N_ELEMENTS (fmts)];
  guint form, i;

  for (i = 0; i < G_N_ELEMENTS (fmts); i++) {
    setups[i] = i == 3 ? setup_make (41, 40, 8, FALSE)
        : setup_make (9, 30, 4, TRUE);
    setups[i].chroma_diameter = i == 1 ? 61 : 25;
    setups[i].chroma_sigma_color = 50;
    setups[i].chroma_sigma_space = 10;
  }
  for (form = 0; form < G_N_ELEMENTS (forms); form++) {
    GstHarness *h;
    Channel in[3], got[3], expected[3];
    guint c;

    g_setenv ("GST_CBF_WIDE_KERNEL", forms[form], TRUE);
    for (i = 0; i < G_N_ELEMENTS (fmts); i++)
      check_setup (fmts[i], width, height, &setups[i], 900 + 10 * form + i,
          NULL);

    picture_channels ("Y444", width, height, 950 + form, in);
    h = chroma_harness_new ("Y444", width, height, &color);
    filter_frame (h, "Y444", width, height, frame_from_channels ("Y444",
            width, height, in, form, 950 + form), got);
    channels_reference_for_format (&info, in, &color.p, expected);
    for (c = 0; c < 3; c++)
      assert_channel_matches (&got[c], &expected[c], 1, forms[form], "Y444", c);
    channels_free (in, 3);
    channels_free (got, 3);
    channels_free (expected, 3);
    filter_harness_free (h);
  }
}

GST_END_TEST;

/* A test that asked for a wide kernel's form and failed leaves it to no
 * other (the tests share one process). */
static void
wide_form_reset (void)
{
  g_unsetenv ("GST_CBF_WIDE_KERNEL");
}

/* chroma-diameter (0: from chroma-sigma-space), chroma-sigma-color (0:
 * chroma copied) and chroma-sigma-space without the guide, and
 * filter-luma=false (luma the input's, bit for bit; with the guide too)
 * on the subsampled formats. */
GST_START_TEST (test_plane_params)
{
  static const gchar *fmts[] = { "I420", "NV12", "YUY2", "I420_10LE" };
  Setup setups[9];
  guint f, s;

  for (s = 0; s < G_N_ELEMENTS (setups); s++)
    setups[s] = setup_make (9, 30, 4, FALSE);
  setups[0].chroma_diameter = 7;
  setups[1].chroma_sigma_color = 70;
  setups[2].chroma_sigma_space = 6;
  setups[3].chroma_diameter = 0;
  setups[3].chroma_sigma_color = 50;
  setups[3].chroma_sigma_space = 3;
  setups[4].chroma_diameter = 11;
  setups[4].chroma_sigma_color = 15;
  setups[4].chroma_sigma_space = 20;
  setups[5].chroma_sigma_color = 0;
  setups[6].luma_off = TRUE;
  setups[7].luma_off = TRUE;
  setups[7].guide = TRUE;
  setups[8].chroma_off = TRUE;
  setups[8].guide = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (s = 0; s < G_N_ELEMENTS (setups); s++) {
      Channel out[3];

      check_setup (fmts[f], 37, 23, &setups[s], 10 * f + s, out);
      if (setups[s].chroma_sigma_color == 0) {
        Channel in[3];
        guint c;

        /* Passed through: the input, bit for bit. */
        picture_channels (fmts[f], 37, 23, 10 * f + s, in);
        for (c = 1; c < 3; c++)
          assert_channel_matches (&out[c], &in[c], 0, "chroma-sigma-color=0",
              fmts[f], c);
        channels_free (in, 3);
      }
      channels_free (out, 3);
    }
}

GST_END_TEST;

/* YUV 4:4:4 plane by plane: filter-chroma=false leaves chroma as it came
 * and filters luma as one channel, which the colour filter's luma is not
 * (checked, so that the test tells them apart); filter-luma=false,
 * chroma's own sigma-color and the guide each filter chroma as one
 * channel with luma's diameter and sigma-space (factor 1). */
GST_START_TEST (test_y444_by_plane)
{
  static const gchar *fmts[] = { "Y444", "Y444_10LE", "Y444_16LE" };
  Setup setups[5];
  guint f, s;

  for (s = 0; s < G_N_ELEMENTS (setups); s++)
    setups[s] = setup_make (9, 40, 4, FALSE);
  setups[0].chroma_off = TRUE;
  setups[1].chroma_off = TRUE;
  setups[1].guide = TRUE;
  setups[2].luma_off = TRUE;
  setups[3].chroma_sigma_color = 40;
  setups[4].guide = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], 64, 48);
    Channel in[3], color[3];

    picture_channels (fmts[f], 64, 48, 7, in);
    channels_reference_for_format (&info, in, &setups[0].p, color);
    for (s = 0; s < G_N_ELEMENTS (setups); s++) {
      Channel out[3];

      check_setup (fmts[f], 64, 48, &setups[s], 7, out);
      if (s == 0)
        fail_unless (count_differing (&out[0], &color[0],
                2 * format_tolerance (GST_VIDEO_INFO_FORMAT (&info))) > 0,
            "%s filter-chroma=false: luma " "is the colour filter's", fmts[f]);
      channels_free (out, 3);
    }
    channels_free (in, 3);
    channels_free (color, 3);
  }
}

GST_END_TEST;

/* Y444 switched while PLAYING: colour (three channels together) by
 * default, plane by plane guided from the frame after chroma-guide=luma,
 * colour again after chroma-guide=none. */
GST_START_TEST (test_y444_switch)
{
  static const gchar *fmts[] = { "Y444", "Y444_16LE" };
  const gint w = 64, h = 48;
  Setup plain = setup_make (9, 40, 4, FALSE), guided = plain;
  guint f, step, c;

  guided.guide = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    GstHarness *harness = chroma_harness_new (fmts[f], w, h, &plain);

    for (step = 0; step < 3; step++) {
      const Setup *s = step == 1 ? &guided : &plain;
      Channel in[3], out[3], expected[3];

      picture_channels (fmts[f], w, h, 30 + step, in);
      gst_util_set_object_arg (G_OBJECT (harness->element), "chroma-guide",
          s->guide ? "luma" : "none");
      filter_frame (harness, fmts[f], w, h,
          frame_from_channels (fmts[f], w, h, in, step % 2, step), out);
      if (s->guide)
        expected_by_plane (&info, in, s, expected);
      else
        channels_reference_for_format (&info, in, &s->p, expected);
      for (c = 0; c < 3; c++)
        assert_channel_matches (&out[c], &expected[c],
            plane_tolerance (&info, s, c), s->guide ?
            "switched to chroma-guide=luma" :
            "chroma-guide=none (colour)", fmts[f], c);
      channels_free (in, 3);
      channels_free (out, 3);
      channels_free (expected, 3);
    }
    filter_harness_free (harness);
  }
}

GST_END_TEST;

/* What a wrong element would not give: on this content (chroma edges on
 * luma's under strong chroma noise) the guided chroma differs from the
 * unguided in at least a quarter of the samples, in the reference and in
 * the element, whose luma stays bit for bit the same; chroma-sigma-color
 * changes chroma (guided or not) in at least an eighth of the samples (a
 * third in the reference) and leaves luma alone. */
GST_START_TEST (test_guide_matters)
{
  static const gchar *fmts[] = { "NV12", "Y444", "P010_10LE" };
  const gint w = 64, h = 48;
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info = info_for (fmts[f], w, h);
    gint tol = format_tolerance (GST_VIDEO_INFO_FORMAT (&info));
    /* Y444's unguided plane by plane: chroma-sigma-color set to luma's. */
    Setup unguided = setup_make (9, 40, 4, FALSE), guided, sharper[2];
    Channel in[3], out_unguided[3], out_guided[3], out_sharper[2][3];
    Channel ref_unguided[3], ref_guided[3];
    guint k;

    unguided.chroma_sigma_color = 40;
    guided = unguided;
    guided.guide = TRUE;
    sharper[0] = unguided;
    sharper[1] = guided;
    for (k = 0; k < 2; k++)
      sharper[k].chroma_sigma_color = 5;

    picture_channels (fmts[f], w, h, 3, in);
    check_setup (fmts[f], w, h, &unguided, 3, out_unguided);
    check_setup (fmts[f], w, h, &guided, 3, out_guided);
    for (k = 0; k < 2; k++)
      check_setup (fmts[f], w, h, &sharper[k], 3, out_sharper[k]);
    expected_by_plane (&info, in, &unguided, ref_unguided);
    expected_by_plane (&info, in, &guided, ref_guided);

    assert_channel_matches (&out_guided[0], &out_unguided[0], 0,
        "luma with and without the guide", fmts[f], 0);
    for (k = 0; k < 2; k++)
      assert_channel_matches (&out_sharper[k][0], &out_unguided[0], 0,
          "luma with chroma-sigma-color=5", fmts[f], 0);
    for (c = 1; c < 3; c++) {
      guint n = in[c].width * in[c].height;
      guint ref_diff = count_differing (&ref_guided[c], &ref_unguided[c],
          2 * tol);
      guint diff = count_differing (&out_guided[c], &out_unguided[c],
          2 * tol);

      fail_unless (ref_diff >= n / 4, "%s component %u: the reference's "
          "guided chroma differs from the unguided in %u of %u samples: "
          "the content cannot tell the guide", fmts[f], c, ref_diff, n);
      fail_unless (diff >= n / 4, "%s component %u: chroma-guide=luma "
          "changed %u of %u samples", fmts[f], c, diff, n);
      for (k = 0; k < 2; k++) {
        guint moved = count_differing (&out_sharper[k][c],
            k ? &out_guided[c] : &out_unguided[c], 2 * tol);

        fail_unless (moved >= n / 8, "%s component %u%s: chroma-sigma-color "
            "5 instead of 40 changed %u of %u samples", fmts[f], c,
            k ? " guided" : "", moved, n);
      }
    }
    channels_free (in, 3);
    channels_free (out_unguided, 3);
    channels_free (out_guided, 3);
    for (k = 0; k < 2; k++)
      channels_free (out_sharper[k], 3);
    channels_free (ref_unguided, 3);
    channels_free (ref_guided, 3);
  }
}

GST_END_TEST;

static Suite *
chroma_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-chroma", 600, &tc);

  tcase_add_checked_fixture (tc, NULL, wide_form_reset);
  tcase_add_test (tc, test_joint_golden);
  tcase_add_test (tc, test_guided_formats);
  tcase_add_test (tc, test_guided_every_format);
  tcase_add_test (tc, test_wide_forms);
  tcase_add_test (tc, test_plane_params);
  tcase_add_test (tc, test_y444_by_plane);
  tcase_add_test (tc, test_y444_switch);
  tcase_add_test (tc, test_guide_matters);
  return s;
}

TEST_MAIN (chroma_suite, TEST_NEEDS_GPU, NULL);
