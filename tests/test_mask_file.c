/* The strength mask's file is untrusted input. Without a GPU (CI), since
 * the element reads its mask before it opens a device: a mask-location
 * that is a FIFO, a directory, a device node, an empty file or no picture
 * stops the start within a second with an element error naming the file
 * and the reason; a picture over CBF_MASK_MAX_PIXELS is refused naming its
 * size; positions in a mask of the largest accepted width are exact (64-bit
 * arithmetic). Only PNG and JPEG are decoded, by the type and size their
 * headers give before any decoder runs: an HLS playlist named mask.png
 * reaches no URL and opens no FIFO it names, PNGs of 46000x46000 and
 * 65535x65535 pixels cost no memory, other kinds of picture are refused for
 * what they are, and a PNG or a JPEG still loads with its pixels. A picture
 * whose data does not hold all of it is refused before any decoder runs,
 * the error saying what is missing: PNGs whose zlib stream ends after half
 * their rows (pngdec gave the rest uninitialised) or is cut (libpng failed
 * with no word of what is missing), an Adam7 PNG a byte short, a JPEG cut
 * in its scan (with an end-of-image marker put back or not) or whose frame
 * header says twice its height, a progressive JPEG without its last scan
 * and one of a scan per component without its last (jpegdec made up the
 * missing part); whole ones of these kinds (Adam7, more data than needed,
 * progressive) still load. The loader's rules (the latest request wins,
 * a failed reload keeps the mask, a failed start stops the element) are
 * tested in test_mask_loader, the element-level tests of the running cases
 * in test_mask; the files both mask file tests write are made by
 * mask_file_support.c. */

/* O_CLOEXEC and mkfifo under -std=c11. */
#define _XOPEN_SOURCE 700

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>


#include "cbfmaskloader.h"
#include "gpu_support.h"
#include "mask_file_support.h"
#include "picture_bytes.h"
#include "mask.h"

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
  assert_start_refuses (text, "not a PNG or JPEG picture");
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

/* A field of /proc/self/status in KiB, or -1. */
static gint64
status_kib (const gchar * field)
{
  gchar *status = NULL, *line;
  gint64 kib = -1;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  line = strstr (status, field);
  if (line)
    kib = g_ascii_strtoll (line + strlen (field), NULL, 10);
  g_free (status);
  return kib;
}

/* Sets the peak resident size (VmHWM) to the present one, so that the
 * peak measures what follows (this process has run the other tests). */
static gboolean
reset_peak_rss (void)
{
  FILE *f = fopen ("/proc/self/clear_refs", "w");
  gboolean done;

  if (!f)
    return FALSE;
  done = fputs ("5", f) >= 0;
  return fclose (f) == 0 && done;
}

/* PNGs of 46000x46000 and 65535x65535 pixels (2 and 4 MB files, every
 * row there): refused naming that size, the peak resident memory growing
 * less than 64 MiB (a decoder that trusted the header took 2 GB for the
 * first). */
GST_START_TEST (test_huge_png_headers)
{
  static const guint32 sizes[] = { 46000, 65535 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GByteArray *png = png_header_bytes (sizes[i], sizes[i], TRUE);
    gchar *name = g_strdup_printf ("header-%u.png", sizes[i]);
    gchar *path = bytes_file (name, png->data, png->len);
    gchar *size = g_strdup_printf ("%ux%u", sizes[i], sizes[i]);
    gboolean reset = reset_peak_rss ();
    gint64 before = status_kib (reset ? "VmHWM:" : "VmRSS:"), after;
    GError *error = NULL;
    gint w = 0, h = 0;
    guint8 *pixels = cbf_mask_file_decode (path, &w, &h, &error);

    after = status_kib (reset ? "VmHWM:" : "VmRSS:");
    fail_unless (before > 0 && after > 0, "no memory figures");
    GST_INFO ("%s: %s grew by %" G_GINT64_FORMAT " KiB", path,
        reset ? "VmHWM" : "VmRSS", after - before);
    fail_unless (after - before < 64 * 1024, "%s: memory grew by %"
        G_GINT64_FORMAT " MiB decoding a %s header", path,
        (after - before) / 1024, size);
    fail_unless (pixels == NULL && error != NULL, "%s was decoded", path);
    fail_unless (strstr (error->message, size) != NULL
        && strstr (error->message, "more than") != NULL, "%s", error->message);
    g_error_free (error);
    assert_start_refuses (path, size);
    g_unlink (path);
    g_free (size);
    g_free (path);
    g_free (name);
    g_byte_array_unref (png);
  }
}

GST_END_TEST;

/* A load run in a thread of its own, so that a load that never returns
 * fails the test instead of hanging it. */
typedef struct
{
  gchar *location;
  GMutex lock;
  GCond cond;
  gboolean done;
  guint8 *pixels;
  GError *error;
} AsyncLoad;

static gpointer
async_load_run (gpointer data)
{
  AsyncLoad *load = data;
  gint w, h;
  guint8 *pixels = cbf_mask_file_decode (load->location, &w, &h,
      &load->error);

  g_mutex_lock (&load->lock);
  load->pixels = pixels;
  load->done = TRUE;
  g_cond_signal (&load->cond);
  g_mutex_unlock (&load->lock);
  return NULL;
}

/* Starts decoding @location in a thread. */
static AsyncLoad *
async_load_start (const gchar * location, GThread ** thread)
{
  AsyncLoad *load = g_new0 (AsyncLoad, 1);

  load->location = g_strdup (location);
  g_mutex_init (&load->lock);
  g_cond_init (&load->cond);
  *thread = g_thread_new ("mask-load", async_load_run, load);
  return load;
}

/* Waits until @load is done or @deadline (monotonic time) has passed,
 * polling @fd meanwhile (-1: none) and returning early once it is
 * readable; returns whether the load is done. */
static gboolean
async_load_wait (AsyncLoad * load, gint64 deadline, int fd, gboolean * ready)
{
  gboolean done;

  *ready = FALSE;
  g_mutex_lock (&load->lock);
  while (!load->done && g_get_monotonic_time () < deadline && !*ready) {
    if (fd >= 0) {
      struct pollfd p = { fd, POLLIN, 0 };

      g_mutex_unlock (&load->lock);
      *ready = poll (&p, 1, 50) > 0;
      g_mutex_lock (&load->lock);
    } else {
      g_cond_wait_until (&load->cond, &load->lock, deadline);
    }
  }
  done = load->done;
  g_mutex_unlock (&load->lock);
  return done;
}

/* Frees a load that is done, joining its thread; one that is not is left
 * to its thread (the test has failed). */
static void
async_load_finish (AsyncLoad * load, GThread * thread, gboolean done)
{
  if (!done) {
    g_thread_unref (thread);
    return;
  }
  g_thread_join (thread);
  g_free (load->pixels);
  g_clear_error (&load->error);
  g_mutex_clear (&load->lock);
  g_cond_clear (&load->cond);
  g_free (load->location);
  g_free (load);
}

/* An HLS playlist saved as a mask "PNG", naming a media segment on a port
 * of 127.0.0.1 where this test listens: refused as no picture, and nothing
 * connects (decodebin had hlsdemux fetch the URL). */
GST_START_TEST (test_playlist_reaches_no_url)
{
  struct sockaddr_in addr = { 0 };
  socklen_t len = sizeof (addr);
  int listener = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  gchar *playlist, *path;
  AsyncLoad *load;
  GThread *thread;
  gboolean done, connected;
  struct pollfd p = { 0 };

  fail_unless (listener >= 0);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  fail_unless_equals_int (bind (listener, (struct sockaddr *) &addr,
          sizeof (addr)), 0);
  fail_unless_equals_int (listen (listener, 4), 0);
  fail_unless_equals_int (getsockname (listener, (struct sockaddr *) &addr,
          &len), 0);
  playlist = g_strdup_printf ("#EXTM3U\n#EXT-X-VERSION:3\n"
      "#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n"
      "http://127.0.0.1:%d/x.ts\n#EXT-X-ENDLIST\n", ntohs (addr.sin_port));
  path = bytes_file ("playlist.png", (const guint8 *) playlist,
      strlen (playlist));

  load = async_load_start (path, &thread);
  done = async_load_wait (load, g_get_monotonic_time () +
      (CBF_MASK_DECODE_TIMEOUT + 10) * G_USEC_PER_SEC, listener, &connected);
  /* And once more after the load: a connection made at its end counts. */
  p.fd = listener;
  p.events = POLLIN;
  connected = connected || poll (&p, 1, 100) > 0;
  fail_if (connected, "the load connected to 127.0.0.1:%d, the URL in the "
      "playlist", ntohs (addr.sin_port));
  fail_unless (done, "the load did not return within %d s",
      CBF_MASK_DECODE_TIMEOUT + 10);
  fail_unless (load->pixels == NULL && load->error != NULL,
      "a playlist was decoded");
  fail_unless (strstr (load->error->message, "not a PNG or JPEG picture")
      != NULL, "%s", load->error->message);
  async_load_finish (load, thread, done);

  close (listener);
  g_unlink (path);
  g_free (path);
  g_free (playlist);
}

GST_END_TEST;

/* A playlist naming a FIFO: refused within 10 s, and the load's thread
 * joined (decodebin's HLS demuxer opened the FIFO, which waits for a
 * writer, and stopping the pipeline then waited for ever). */
GST_START_TEST (test_playlist_opens_no_fifo)
{
  gchar *dir = g_dir_make_tmp ("cbf-maskfile-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "segment.ts", NULL);
  gchar *uri = gst_filename_to_uri (fifo, NULL);
  gchar *playlist, *path;
  AsyncLoad *load;
  GThread *thread;
  gboolean done, unused;
  gint64 t0 = g_get_monotonic_time ();
  int writer;

  fail_unless (dir != NULL && uri != NULL);
  fail_unless_equals_int (mkfifo (fifo, 0600), 0);
  playlist = g_strdup_printf ("#EXTM3U\n#EXT-X-VERSION:3\n"
      "#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n"
      "%s\n#EXT-X-ENDLIST\n", uri);
  path = g_build_filename (dir, "mask.png", NULL);
  fail_unless (g_file_set_contents (path, playlist, -1, NULL));

  load = async_load_start (path, &thread);
  done = async_load_wait (load, t0 + 10 * G_USEC_PER_SEC, -1, &unused);
  /* A reader stuck opening the FIFO is let go (a writer opening it
   * without blocking succeeds only then), so that it ends. */
  writer = open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (writer >= 0)
    close (writer);
  fail_unless (done, "the load of a playlist naming a FIFO did not return "
      "within 10 s%s", writer >= 0 ? " (it had the FIFO open)" : "");
  GST_INFO ("refused in %.3f s", (g_get_monotonic_time () - t0) / 1e6);
  fail_unless (load->pixels == NULL && load->error != NULL,
      "a playlist was decoded");
  fail_unless (strstr (load->error->message, "not a PNG or JPEG picture")
      != NULL, "%s", load->error->message);
  async_load_finish (load, thread, done);

  g_unlink (path);
  g_unlink (fifo);
  g_rmdir (dir);
  g_free (path);
  g_free (playlist);
  g_free (uri);
  g_free (fifo);
  g_free (dir);
}

GST_END_TEST;

/* Files of other kinds, pictures included, are refused for what they are
 * not before any decoder sees them: an SVG, a BMP, a GIF and text named
 * .png. */
GST_START_TEST (test_other_kinds_refused)
{
  static const gchar svg[] = "<?xml version=\"1.0\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\">"
      "<rect width=\"4\" height=\"4\" fill=\"#808080\"/></svg>\n";
  static const guint8 gif[] = { 'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0,
    0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0,
    2, 2, 0x44, 0x01, 0, 0x3b
  };
  guint8 bmp[58] = { 'B', 'M' };
  const struct
  {
    const gchar *name;
    const guint8 *data;
    gsize size;
  } files[] = {
    {"mask.svg", (const guint8 *) svg, sizeof (svg) - 1},
    {"mask.bmp", bmp, sizeof (bmp)},
    {"mask.gif", gif, sizeof (gif)},
    {"words.png", (const guint8 *) "just some words\n", 16},
  };
  guint i;

  /* A 1x1 24-bit BMP: file header, BITMAPINFOHEADER, one padded row. */
  put_le32 (bmp + 2, sizeof (bmp));
  put_le32 (bmp + 10, 54);
  put_le32 (bmp + 14, 40);
  put_le32 (bmp + 18, 1);
  put_le32 (bmp + 22, 1);
  put_le16 (bmp + 26, 1);
  put_le16 (bmp + 28, 24);
  put_le32 (bmp + 34, 4);
  memset (bmp + 54, 0x80, 3);

  for (i = 0; i < G_N_ELEMENTS (files); i++) {
    gchar *path = bytes_file (files[i].name, files[i].data, files[i].size);

    assert_start_refuses (path, "it is not a PNG or JPEG picture");
    g_unlink (path);
    g_free (path);
  }
}

GST_END_TEST;

/* PNG and JPEG masks still load: a gray PNG with every pixel as written; a
 * gray JPEG (made from a PNG of one value) with that value; a colour JPEG
 * (4:2:0, as cameras write them) with its size. Through the element's
 * loader too. */
GST_START_TEST (test_png_and_jpeg_load)
{
  const gint w = 37, h = 19;
  guint8 *gradient = g_malloc (w * h);
  gchar *png = temp_path ("gradient.png");
  gchar *flat = png_file ("flat.png", 40, 24, 77);
  gchar *gray_jpeg = temp_path ("gray.jpg");
  gchar *color_jpeg = temp_path ("colour.jpg");
  gchar *launch;
  GError *error = NULL;
  gint x, y, mw = 0, mh = 0;
  guint8 *pixels;
  CbfMaskLoader *loader;
  Peeked m;
  GstElement *owner = gst_element_factory_make ("cudabilateral", NULL);

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      gradient[y * w + x] = (guint8) (x * 7 + y * 13);
  write_gray_png (png, gradient, w, h);
  pixels = cbf_mask_file_decode (png, &mw, &mh, &error);
  fail_unless (pixels != NULL, "%s", error ? error->message : "");
  fail_unless (mw == w && mh == h, "%dx%d", mw, mh);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      fail_unless (pixels[y * w + x] == gradient[y * w + x],
          "(%d, %d): %u, expected %u", x, y, pixels[y * w + x],
          gradient[y * w + x]);
  g_free (pixels);

  launch = g_strdup_printf ("filesrc location=%s ! pngdec ! jpegenc "
      "quality=100 ! filesink location=%s", flat, gray_jpeg);
  run_to_eos (launch);
  g_free (launch);
  pixels = cbf_mask_file_decode (gray_jpeg, &mw, &mh, &error);
  fail_unless (pixels != NULL, "%s", error ? error->message : "");
  fail_unless (mw == 40 && mh == 24, "%dx%d", mw, mh);
  for (x = 0; x < 40 * 24; x++)
    fail_unless (ABS (pixels[x] - 77) <= 1, "pixel %d: %u, expected 77", x,
        pixels[x]);
  g_free (pixels);

  launch = g_strdup_printf ("videotestsrc num-buffers=1 pattern=smpte ! "
      "video/x-raw,format=I420,width=64,height=48 ! jpegenc ! "
      "filesink location=%s", color_jpeg);
  run_to_eos (launch);
  g_free (launch);
  loader = cbf_mask_loader_new ();
  fail_unless (cbf_mask_loader_load (loader, owner, color_jpeg,
          cbf_mask_loader_request (loader), TRUE));
  m = peek (loader);
  fail_unless (m.mask.pixels != NULL && m.mask.width == 64
      && m.mask.height == 48, "%dx%d", m.mask.width, m.mask.height);
  cbf_mask_loader_free (loader);

  gst_object_unref (owner);
  g_unlink (png);
  g_unlink (flat);
  g_unlink (gray_jpeg);
  g_unlink (color_jpeg);
  g_free (png);
  g_free (flat);
  g_free (gray_jpeg);
  g_free (color_jpeg);
  g_free (gradient);
}

GST_END_TEST;

/* A picture whose header is good and whose data is not: the decoder's
 * error fails the load at once, with the decoder's reason (a decoder left
 * to its defaults drops up to ten broken pictures with a warning only). A
 * JPEG only: GStreamer's pngdec leaks its frame (0.5 KB) on a libpng error,
 * which would fail this test under valgrind. */
GST_START_TEST (test_broken_data_refused)
{
  gchar *flat = png_file ("broken.png", 40, 24, 77);
  gchar *jpeg = temp_path ("broken.jpg");
  gchar *launch, *data;
  gsize size, i;
  GError *error = NULL;
  gint w, h;
  guint8 *pixels;

  launch = g_strdup_printf ("filesrc location=%s ! pngdec ! jpegenc ! "
      "filesink location=%s", flat, jpeg);
  run_to_eos (launch);
  g_free (launch);

  /* The JPEG's frame header says 12-bit samples, which jpegdec cannot
   * decode. */
  fail_unless (g_file_get_contents (jpeg, &data, &size, NULL));
  i = 0;
  while (i + 4 < size && ((guint8) data[i] != 0xff
          || (guint8) data[i + 1] != 0xc0))
    i++;
  fail_unless (i + 4 < size, "no baseline frame header");
  data[i + 4] = 12;
  fail_unless (g_file_set_contents (jpeg, data, size, NULL));
  g_free (data);
  pixels = cbf_mask_file_decode (jpeg, &w, &h, &error);
  fail_unless (pixels == NULL && error != NULL, "a broken JPEG was decoded");
  fail_unless (strstr (error->message, "the JPEG picture could not be "
          "decoded") != NULL, "%s", error->message);
  g_clear_error (&error);

  g_unlink (flat);
  g_unlink (jpeg);
  g_free (flat);
  g_free (jpeg);
}

GST_END_TEST;

/* Probes @data: refused with @reason in the message, or (@reason NULL)
 * accepted as @type of @width x @height and @length bytes. */
static void
assert_probe (const guint8 * data, gsize size, const gchar * reason,
    CbfMaskPicture type, gint width, gint height, gsize length)
{
  CbfMaskPicture t = -1;
  gint w = -1, h = -1;
  gsize l = 0;
  GError *error = NULL;
  gboolean ok = cbf_mask_picture_probe (data, size, &t, &w, &h, &l, &error);

  if (reason) {
    fail_if (ok, "accepted, as %dx%d, where \"%s\" was expected", w, h, reason);
    fail_unless (error && strstr (error->message, reason) != NULL,
        "\"%s\" does not say \"%s\"", error ? error->message : "", reason);
    g_error_free (error);
  } else {
    fail_unless (ok, "refused: %s", error ? error->message : "");
    fail_unless (t == type && w == width && h == height && l == length,
        "type %d, %dx%d, %" G_GSIZE_FORMAT " bytes; expected type %d, %dx%d, %"
        G_GSIZE_FORMAT " bytes", t, w, h, l, type, width, height, length);
  }
}

/* The header reader alone: types from the bytes, sizes from the headers,
 * truncated and malformed headers refused, a PNG cut after IEND. */
GST_START_TEST (test_picture_probe)
{
  GByteArray *png = png_header_bytes (8192, 8192, FALSE), *second, *jpeg;
  gsize png_len = png->len;
  guint8 *bytes;

  assert_probe (png->data, png->len, NULL, CBF_MASK_PICTURE_PNG, 8192, 8192,
      png_len);
  /* Whatever follows IEND (here a second PNG, huge) is not the decoder's. */
  second = png_header_bytes (65535, 65535, FALSE);
  g_byte_array_append (png, second->data, second->len);
  g_byte_array_unref (second);
  assert_probe (png->data, png->len, NULL, CBF_MASK_PICTURE_PNG, 8192, 8192,
      png_len);
  assert_probe (png->data, 30, "truncated or malformed PNG", 0, 0, 0, 0);
  assert_probe (png->data, png_len - 1, "no IEND", 0, 0, 0, 0);
  put_be32 (png->data + 33, 0x7fffff00);        /* IDAT's length */
  assert_probe (png->data, png_len, "past the end", 0, 0, 0, 0);
  g_byte_array_unref (png);
  png = png_header_bytes (8193, 8193, FALSE);
  assert_probe (png->data, png->len, "8193x8193 pixels, more than", 0, 0, 0, 0);
  g_byte_array_unref (png);
  png = png_header_bytes (0, 5, FALSE);
  assert_probe (png->data, png->len, "0x5", 0, 0, 0, 0);
  g_byte_array_unref (png);
  png = png_header_bytes (G_MAXUINT32, 1, FALSE);
  assert_probe (png->data, png->len, "4294967295x1", 0, 0, 0, 0);
  g_byte_array_unref (png);

  jpeg = jpeg_bytes (20, 10, 1);
  assert_probe (jpeg->data, jpeg->len, NULL, CBF_MASK_PICTURE_JPEG, 20, 10,
      jpeg->len);
  /* Cut in its scan, or right after it (the decoder would end it and make
   * up the rest), or in its header: refused. */
  assert_probe (jpeg->data, jpeg->len - 4, "the JPEG picture is cut short: "
      "its data ends at byte 36, in its scans, before its end-of-image marker",
      0, 0, 0, 0);
  assert_probe (jpeg->data, jpeg->len - 2, "cut short", 0, 0, 0, 0);
  assert_probe (jpeg->data, 12, "truncated or malformed JPEG", 0, 0, 0, 0);
  assert_probe (jpeg->data, 8, "truncated or malformed JPEG", 0, 0, 0, 0);
  bytes = g_memdup2 (jpeg->data, jpeg->len);
  bytes[8] = 0x00;              /* no marker where the frame header was */
  assert_probe (bytes, jpeg->len, "no marker", 0, 0, 0, 0);
  bytes[8] = 0xff;
  bytes[26] = 0x02;             /* the scan's component: not the frame's */
  assert_probe (bytes, jpeg->len, "none of its scans holds its component 1",
      0, 0, 0, 0);
  g_free (bytes);
  g_byte_array_unref (jpeg);
  jpeg = jpeg_bytes (65535, 65535, 1);
  assert_probe (jpeg->data, jpeg->len, "65535x65535 pixels, more than", 0, 0,
      0, 0);
  g_byte_array_unref (jpeg);
  jpeg = jpeg_bytes (20, 0, 1);
  assert_probe (jpeg->data, jpeg->len, "20x0", 0, 0, 0, 0);
  g_byte_array_unref (jpeg);
  jpeg = jpeg_bytes (20, 10, 0);
  assert_probe (jpeg->data, jpeg->len, "before its first scan", 0, 0, 0, 0);
  g_byte_array_unref (jpeg);
  jpeg = jpeg_bytes (20, 10, CBF_MASK_MAX_JPEG_SCANS);
  assert_probe (jpeg->data, jpeg->len, NULL, CBF_MASK_PICTURE_JPEG, 20, 10,
      jpeg->len);
  g_byte_array_unref (jpeg);
  jpeg = jpeg_bytes (20, 10, CBF_MASK_MAX_JPEG_SCANS + 1);
  assert_probe (jpeg->data, jpeg->len, "scans", 0, 0, 0, 0);
  g_byte_array_unref (jpeg);

  assert_probe ((const guint8 *) "\x89PN", 3, "not a PNG or JPEG", 0, 0, 0, 0);
  assert_probe ((const guint8 *) "\xff\xd8", 2, "not a PNG or JPEG", 0, 0, 0,
      0);
}

GST_END_TEST;

/* Pictures whose data does not hold all of them are refused before any
 * decoder runs, the message saying what is missing: by the loader, and at
 * the element's start as an error naming the file. */
GST_START_TEST (test_incomplete_pictures_refused)
{
  const gchar *reason;
  gchar *path;
  guint i;

  for (i = 0; (path = incomplete_file (i, &reason)); i++) {
    GError *error = NULL;
    gint w = 0, h = 0;
    guint8 *pixels = cbf_mask_file_decode (path, &w, &h, &error);

    fail_unless (pixels == NULL, "%s (kind %u) was taken, as %dx%d", path, i,
        w, h);
    fail_unless (error != NULL && strstr (error->message, reason) != NULL,
        "kind %u: \"%s\" does not say \"%s\"", i, error ? error->message : "",
        reason);
    g_error_free (error);
    assert_start_refuses (path, reason);
    g_unlink (path);
    g_free (path);
  }
}

GST_END_TEST;

/* Decodes @path: it must be @width x @height, every pixel within @slack of
 * @expected (NULL: not checked). */
static void
assert_loads (const gchar * path, gint width, gint height,
    const guint8 * expected, gint slack)
{
  GError *error = NULL;
  gint w = 0, h = 0, i;
  guint8 *pixels = cbf_mask_file_decode (path, &w, &h, &error);

  fail_unless (pixels != NULL, "%s: %s", path, error ? error->message : "");
  fail_unless (w == width && h == height, "%s: %dx%d, expected %dx%d", path,
      w, h, width, height);
  for (i = 0; expected && i < width * height; i++)
    fail_unless (ABS (pixels[i] - expected[i]) <= slack,
        "%s: pixel %d is %u, expected %u", path, i, pixels[i], expected[i]);
  g_free (pixels);
}

/* Whole pictures of the kinds the check counts still load with their
 * pixels: gray PNGs of 32x24 whose zlib stream holds every row, or more
 * (the decoder drops the rest); Adam7 PNGs of 5x3 and 32x24 (813 bytes of
 * image data); a progressive gray JPEG and a sequential YCbCr one of a
 * scan per component, from libjpeg. */
GST_START_TEST (test_whole_pictures_load)
{
  const struct
  {
    gboolean interlaced;
    guint32 width, height;
    guint64 data;
  } pngs[] = {
    {FALSE, 32, 24, 24 * 33},
    {FALSE, 32, 24, 24 * 33 + 100},
    {TRUE, 5, 3, 22},
    {TRUE, 32, 24, 813},
  };
  guint8 *zeros = g_malloc0 (32 * 24), *gradient = gradient_pixels (64, 48);
  GByteArray *bytes;
  gchar *path;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pngs); i++) {
    bytes = png_zeros_bytes (pngs[i].width, pngs[i].height,
        pngs[i].interlaced, pngs[i].data, 0);
    path = bytes_file ("whole.png", bytes->data, bytes->len);
    assert_loads (path, pngs[i].width, pngs[i].height, zeros, 0);
    g_unlink (path);
    g_free (path);
    g_byte_array_unref (bytes);
  }

  bytes = libjpeg_bytes (gradient, 64, 48, 1, TRUE);
  path = bytes_file ("progressive.jpg", bytes->data, bytes->len);
  assert_loads (path, 64, 48, gradient, 2);
  g_unlink (path);
  g_free (path);
  g_byte_array_unref (bytes);
  bytes = libjpeg_bytes (gradient, 64, 48, 3, FALSE);
  path = bytes_file ("scan-per-component.jpg", bytes->data, bytes->len);
  assert_loads (path, 64, 48, NULL, 0);
  g_unlink (path);
  g_free (path);
  g_byte_array_unref (bytes);

  g_free (zeros);
  g_free (gradient);
}

GST_END_TEST;

static Suite *
mask_file_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-mask-file", 120, &tc);

  tcase_add_test (tc, test_refused_files);
  tcase_add_test (tc, test_too_many_pixels);
  tcase_add_test (tc, test_huge_png_headers);
  tcase_add_test (tc, test_playlist_reaches_no_url);
  tcase_add_test (tc, test_playlist_opens_no_fifo);
  tcase_add_test (tc, test_other_kinds_refused);
  tcase_add_test (tc, test_png_and_jpeg_load);
  tcase_add_test (tc, test_broken_data_refused);
  tcase_add_test (tc, test_picture_probe);
  tcase_add_test (tc, test_incomplete_pictures_refused);
  tcase_add_test (tc, test_whole_pictures_load);
  return s;
}

TEST_MAIN (mask_file_suite, TEST_NEEDS_NOTHING, NULL);
