/* cudabilateral with a real detector, end to end: facedetect (OpenCV,
 * gst-plugins-bad) finds the face in data/astronaut.png and attaches a
 * "face" region of interest; cudabilateral regions=inside smooths it. The
 * output keeps the meta (the boxes checked are facedetect's own); outside
 * every box grown by the feather the picture comes out bit for bit,
 * inside each box within +-1 of the reference filter, and in the soft edge
 * between as the reference's blend of the two. Exits 77 without a
 * CUDA device or without facedetect (Debian: gstreamer1.0-opencv). */

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "gpu_support.h"
#include "reference.h"

#define FEATHER 8

/* The first frame of @desc's appsink named out, RGB packed. */
static GstBuffer *
first_frame (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstSample *sample;
  GstBuffer *buf;

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND);
  fail_unless (sample != NULL, "no frame from %s", desc);
  buf = gst_buffer_ref (gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return buf;
}

GST_START_TEST (test_facedetect_smooths_the_face)
{
  static const Params p = {.diameter = 15,.sigma_color = 40,.sigma_space = 5 };
  gchar *png = g_build_filename (CBF_DATA_DIR, "astronaut.png", NULL);
  gchar *src = g_strdup_printf ("filesrc location=\"%s\" ! pngdec ! "
      "videoconvert ! video/x-raw,format=RGB", png);
  gchar *in_desc = g_strdup_printf ("%s ! appsink name=out", src);
  gchar *out_desc = g_strdup_printf ("%s ! facedetect display=false ! "
      "cudabilateral regions=inside region-types=face region-feather=%d "
      "diameter=%d sigma-color=%g sigma-space=%g ! appsink name=out", src,
      FEATHER, p.diameter, p.sigma_color, p.sigma_space);
  GstBuffer *in = first_frame (in_desc), *out = first_frame (out_desc);
  GstVideoInfo info = info_for ("RGB", 512, 512);
  GstVideoFrame fin, fout;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  int boxes[16][4];
  gint n = 0, x, y, inside = 0, changed = 0, feathered = 0;
  guint8 *ref;
  gsize stride;

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) && n < 16) {
    boxes[n][0] = roi->x;
    boxes[n][1] = roi->y;
    boxes[n][2] = roi->x + roi->w;
    boxes[n][3] = roi->y + roi->h;
    fail_unless (roi->w > 0 && roi->h > 0 && boxes[n][2] <= 512
        && boxes[n][3] <= 512);
    n++;
  }
  fail_unless (n > 0, "facedetect found no face in astronaut.png, or the "
      "output lost its meta");
  fail_unless (gst_video_frame_map (&fin, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, &info, out, GST_MAP_READ));
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&fin, 0);
  ref = g_malloc (stride * 512);
  params_reference (&p, GST_VIDEO_FRAME_PLANE_DATA (&fin, 0), stride, ref,
      stride, 512, 512, 3, 0, 3);
  for (y = 0; y < 512; y++)
    for (x = 0; x < 512 * 3; x++) {
      gint m = cbf_reference_region_weight ((const int (*)[4]) boxes, n,
          FEATHER, 0, 1, 1, x / 3, y);
      const guint8 *a = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fin, 0) +
          y * stride;
      const guint8 *b = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fout, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fout, 0);

      if (m == 0)
        fail_unless (b[x] == a[x], "(%d, %d) outside the faces: %d, the "
            "input %d", x / 3, y, b[x], a[x]);
      if (m == 255) {
        fail_unless (ABS (b[x] - ref[y * stride + x]) <= 1, "(%d, %d) in a "
            "face: %d, the filter %d", x / 3, y, b[x], ref[y * stride + x]);
        inside++;
        changed += b[x] != a[x];
      }
      if (m > 0 && m < 255) {
        /* The soft edge: the input blended with the filter by m, within
         * one more than the filter's tolerance and what a weight a level
         * off moves. */
        gint want = cbf_reference_mask_blend (a[x], ref[y * stride + x], m);
        gint limit = 2 + (ABS (ref[y * stride + x] - a[x]) + 254) / 255;

        fail_unless (ABS (b[x] - want) <= limit, "(%d, %d) in a face's soft "
            "edge, weight %d: %d, expected %d (input %d, filter %d)", x / 3,
            y, m, b[x], want, a[x], ref[y * stride + x]);
        feathered++;
      }
    }
  fail_unless (feathered > 0, "no sample in the faces' soft edges");
  /* The filter changed the face: a skin under d = 15, sigma-color 40. */
  fail_unless (changed > inside / 4, "only %d of %d samples in the faces "
      "changed", changed, inside);
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_free (ref);
  g_free (png);
  g_free (src);
  g_free (in_desc);
  g_free (out_desc);
}

GST_END_TEST;

static Suite *
facedetect_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-facedetect", 300, &tc);

  tcase_add_test (tc, test_facedetect_smooths_the_face);
  return s;
}

int
main (int argc, char **argv)
{
  static const gchar *const elements[] = { "pngdec", "videoconvert", NULL };
  GstElementFactory *facedetect;

  gst_init (NULL, NULL);
  facedetect = gst_element_factory_find ("facedetect");
  if (!facedetect) {
    g_print ("SKIP: no facedetect element (Debian: gstreamer1.0-opencv)\n");
    return 77;
  }
  gst_object_unref (facedetect);
  return test_main (argc, argv, TEST_NEEDS_GPU, elements, facedetect_suite,
      __FILE__);
}
