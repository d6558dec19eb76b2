/* The strength mask's file is untrusted input. Without a GPU (CI), since
 * the element reads its mask before it opens a device: a mask-location
 * that is a FIFO, a directory, a device node, an empty file or no picture
 * stops the start within a second with an element error naming the file
 * and the reason; a picture over CBF_MASK_MAX_PIXELS is refused naming its
 * size; positions in a mask of the largest accepted width are exact (64-bit
 * arithmetic). The loader the element uses: the latest request wins
 * whichever load finishes first (a change made during start is not lost),
 * a failed reload while running is a warning and keeps the mask, at start
 * an error. And an element whose start failed is a stopped element: setting
 * properties then posts nothing. The element-level tests of the running
 * cases are in test_gpu. */

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cbfmaskloader.h"
#include "gpu_support.h"
#include "mask.h"

static gchar *
temp_path (const gchar * name)
{
  gchar *base = g_strdup_printf ("cbf-maskfile-%d-%s", (int) getpid (), name);
  gchar *path = g_build_filename (g_get_tmp_dir (), base, NULL);

  g_free (base);
  return path;
}

/* A GRAY8 PNG of @width x @height, every pixel @value. */
static gchar *
png_file (const gchar * name, gint width, gint height, guint8 value)
{
  gchar *path = temp_path (name);
  guint8 *pixels = g_malloc ((gsize) width * height);

  memset (pixels, value, (gsize) width * height);
  write_gray_png (path, pixels, width, height);
  g_free (pixels);
  return path;
}

/* Starts cudabilateral with @location as its mask: the start must fail
 * with an element error within a second, naming @location and containing
 * @reason. */
static void
assert_start_refuses (const gchar * location, const gchar * reason)
{
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gint64 t0;

  gst_element_set_bus (e, bus);
  g_object_set (e, "mask-location", location, NULL);
  t0 = g_get_monotonic_time ();
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  fail_unless (g_get_monotonic_time () - t0 < G_USEC_PER_SEC,
      "%s: the start took %.2f s", location,
      (g_get_monotonic_time () - t0) / 1e6);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no element error", location);
  gst_message_parse_error (msg, &error, NULL);
  GST_INFO ("%s: %s", location, error->message);
  fail_unless (strstr (error->message, location) != NULL,
      "\"%s\" does not name the file", error->message);
  fail_unless (strstr (error->message, reason) != NULL,
      "\"%s\" does not say \"%s\"", error->message, reason);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_START_TEST (test_refused_files)
{
  gchar *fifo = temp_path ("fifo");
  gchar *dir = temp_path ("dir");
  gchar *text = temp_path ("text.png");
  gchar *empty = temp_path ("empty.png");

  fail_unless_equals_int (mkfifo (fifo, 0600), 0);
  fail_unless_equals_int (g_mkdir (dir, 0700), 0);
  fail_unless (g_file_set_contents (text, "this is no picture\n", -1, NULL));
  fail_unless (g_file_set_contents (empty, "", 0, NULL));

  assert_start_refuses (fifo, "FIFO");
  assert_start_refuses (dir, "directory");
  assert_start_refuses ("/dev/zero", "device node");
  assert_start_refuses (text, "not a picture");
  assert_start_refuses (empty, "empty");
  assert_start_refuses ("/nonexistent/cbf-mask.png", "No such file");

  g_unlink (fifo);
  g_rmdir (dir);
  g_unlink (text);
  g_unlink (empty);
  g_free (fifo);
  g_free (dir);
  g_free (text);
  g_free (empty);
}

GST_END_TEST;

/* One pixel more than 8192 x 8192 in each direction: refused, the error
 * naming the size. */
GST_START_TEST (test_too_many_pixels)
{
  gchar *huge = png_file ("huge.png", 8193, 8193, 0);
  GError *error = NULL;
  gint w = 0, h = 0;
  guint8 *pixels;

  assert_start_refuses (huge, "8193x8193");
  pixels = cbf_mask_file_decode (huge, &w, &h, &error);
  fail_unless (pixels == NULL && error != NULL);
  fail_unless (strstr (error->message, "8193x8193") != NULL, "%s",
      error->message);
  g_error_free (error);
  g_unlink (huge);
  g_free (huge);
}

GST_END_TEST;

/* A mask of CBF_MASK_MAX_PIXELS x 1, the widest accepted, scaled to a few
 * columns: its positions carry 37 bits. Each sample must equal the
 * bilinear value computed in double precision. */
GST_START_TEST (test_widest_mask_positions)
{
  const gint src_w = (gint) CBF_MASK_MAX_PIXELS, dst_w = 7;
  guint8 *mask = g_malloc (src_w);
  gint i, x;

  for (i = 0; i < src_w; i++)
    mask[i] = (guint8) (i >> 18);       /* 0 at the left, 255 at the right */
  for (x = 0; x < dst_w; x++) {
    double pos = (x + 0.5) * src_w / dst_w - 0.5;
    gint64 fixed = cbf_mask_source_position (x, src_w, dst_w);
    gint x0 = (gint) pos;
    double frac = pos - x0, expected;
    guint8 got = cbf_mask_sample (mask, src_w, src_w, 1, dst_w, 1, x, 0);

    fail_unless (fixed >= 0
        && fixed <= ((gint64) (src_w - 1) << CBF_MASK_COEF_BITS));
    fail_unless (ABS ((double) fixed / (1 << CBF_MASK_COEF_BITS) - pos) <
        1.0 / (1 << CBF_MASK_COEF_BITS), "column %d: position %" G_GINT64_FORMAT
        ", expected %f", x, fixed, pos);
    expected = mask[x0] * (1 - frac) + mask[MIN (x0 + 1, src_w - 1)] * frac;
    fail_unless (ABS (got - expected) <= 0.5 + 1e-9, "column %d: %u, "
        "expected %f", x, got, expected);
  }
  g_free (mask);
}

GST_END_TEST;

/* The first message of @type on @bus, or NULL. */
static GError *
pop (GstBus * bus, GstMessageType type)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, type);
  GError *error = NULL;

  if (!msg)
    return NULL;
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, NULL);
  else
    gst_message_parse_warning (msg, &error, NULL);
  gst_message_unref (msg);
  return error;
}

/* The loader the element uses: a failed load while running warns and keeps
 * the mask in place; at start it is an error. */
GST_START_TEST (test_failed_reload_keeps_mask)
{
  GstElement *owner = gst_element_factory_make ("cudabilateral", NULL);
  GstBus *bus = gst_bus_new ();
  gchar *good = png_file ("good.png", 20, 10, 77);
  const gchar *missing = "/nonexistent/cbf-mask.png";
  CbfMaskLoader loader;
  GError *error;
  guint serial;

  gst_element_set_bus (owner, bus);
  cbf_mask_loader_init (&loader);
  fail_unless (cbf_mask_loader_load (&loader, owner, good,
          cbf_mask_loader_request (&loader), FALSE));
  fail_unless (loader.pixels != NULL && loader.width == 20
      && loader.height == 10 && loader.pixels[0] == 77);
  serial = loader.serial;

  fail_if (cbf_mask_loader_load (&loader, owner, missing,
          cbf_mask_loader_request (&loader), FALSE));
  error = pop (bus, GST_MESSAGE_WARNING);
  fail_unless (error != NULL, "no warning for a failed reload");
  fail_unless (strstr (error->message, missing) != NULL, "%s", error->message);
  g_error_free (error);
  fail_if (pop (bus, GST_MESSAGE_ERROR) != NULL, "a failed reload is an "
      "error");
  fail_unless (loader.serial == serial && loader.width == 20
      && loader.pixels[0] == 77, "the mask in use was not kept");

  fail_if (cbf_mask_loader_load (&loader, owner, missing,
          cbf_mask_loader_request (&loader), TRUE));
  error = pop (bus, GST_MESSAGE_ERROR);
  fail_unless (error != NULL, "no error for a failed load at start");
  g_error_free (error);

  cbf_mask_loader_clear (&loader);
  gst_element_set_bus (owner, NULL);
  gst_object_unref (bus);
  gst_object_unref (owner);
  g_unlink (good);
  g_free (good);
}

GST_END_TEST;

typedef struct
{
  CbfMaskLoader *loader;
  GstElement *owner;
  const gchar *location;
  guint64 ticket;
} Load;

static gpointer
run_load (gpointer data)
{
  Load *load = data;

  cbf_mask_loader_load (load->loader, load->owner, load->location,
      load->ticket, TRUE);
  return NULL;
}

/* Requests are ordered by their tickets, not by when their loads finish:
 * a slow load requested first (the start's) cannot replace the mask of a
 * request made after it (a change of mask-location during the start). */
GST_START_TEST (test_latest_request_wins)
{
  GstElement *owner = gst_element_factory_make ("cudabilateral", NULL);
  gchar *slow = png_file ("slow.png", 4096, 2048, 11);
  gchar *quick = png_file ("quick.png", 16, 8, 22);
  CbfMaskLoader loader;
  Load first;
  GThread *thread;
  guint64 ticket;

  cbf_mask_loader_init (&loader);
  /* In order: the later ticket's mask put in place first stays. */
  first = (Load) {
  &loader, owner, slow, cbf_mask_loader_request (&loader)};
  ticket = cbf_mask_loader_request (&loader);
  fail_unless (cbf_mask_loader_load (&loader, owner, quick, ticket, FALSE));
  fail_unless (loader.installed == ticket && loader.width == 16);
  run_load (&first);
  fail_unless (loader.width == 16 && loader.pixels[0] == 22,
      "an earlier request replaced a later one");

  /* At once: the first (slow) load runs in a thread while the second is
   * requested and loaded; whichever ends last, the second stays. */
  first.ticket = cbf_mask_loader_request (&loader);
  thread = g_thread_new ("slow-load", run_load, &first);
  ticket = cbf_mask_loader_request (&loader);
  fail_unless (cbf_mask_loader_load (&loader, owner, quick, ticket, FALSE));
  g_thread_join (thread);
  fail_unless (loader.installed == ticket && loader.width == 16
      && loader.pixels[0] == 22, "the later request's mask was lost");

  /* And no mask (stop) is a request like the others. */
  fail_unless (cbf_mask_loader_load (&loader, owner, NULL,
          cbf_mask_loader_request (&loader), TRUE));
  fail_unless (loader.pixels == NULL);

  cbf_mask_loader_clear (&loader);
  gst_object_unref (owner);
  g_unlink (slow);
  g_unlink (quick);
  g_free (slow);
  g_free (quick);
}

GST_END_TEST;

/* A start that fails (here for a device that does not exist, after the
 * mask was read) leaves a stopped element: changing mask-location in NULL
 * reads nothing and posts nothing. */
GST_START_TEST (test_failed_start_is_stopped)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=16,height=8 ! cudabilateral name=f "
      "cuda-device-id=4096 ! fakesink", NULL);
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstBus *bus = gst_element_get_bus (pipeline);
  gchar *good = png_file ("start.png", 16, 8, 200);
  GstMessage *msg;

  g_object_set (e, "mask-location", good, NULL);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for the failed start");
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);

  g_object_set (e, "mask-location", "/nonexistent/cbf-mask.png", NULL);
  g_object_set (e, "mask-location", good, NULL);
  msg = gst_bus_pop (bus);
  fail_unless (msg == NULL, "%s posted after a failed start",
      msg ? GST_MESSAGE_TYPE_NAME (msg) : "");

  gst_object_unref (bus);
  gst_object_unref (e);
  gst_object_unref (pipeline);
  g_unlink (good);
  g_free (good);
}

GST_END_TEST;

static Suite *
mask_file_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-mask-file", 120, &tc);

  tcase_add_test (tc, test_refused_files);
  tcase_add_test (tc, test_too_many_pixels);
  tcase_add_test (tc, test_widest_mask_positions);
  tcase_add_test (tc, test_failed_reload_keeps_mask);
  tcase_add_test (tc, test_latest_request_wins);
  tcase_add_test (tc, test_failed_start_is_stopped);
  return s;
}

TEST_MAIN (mask_file_suite, TEST_NEEDS_NOTHING, NULL);
