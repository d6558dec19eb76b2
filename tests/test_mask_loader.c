/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The strength mask's loader (gst/cbfmaskloader.c) as the element uses it,
 * without a GPU (CI): a failed load while running (of a missing file or
 * any kind of picture whose data does not hold all of it) is a warning
 * that keeps the mask in place, at start an error; requests are ordered
 * by their tickets, so that the latest wins whichever load finishes first
 * (a change of mask-location made during start is not lost); and an
 * element whose start failed is a stopped element: setting mask-location
 * then reads nothing and posts nothing. The files themselves, refused or
 * loaded, are tested in test_mask_file. */

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include <string.h>

#include "cbfmaskloader.h"
#include "gpu_support.h"
#include "mask_file_support.h"

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
 * the mask in place, for a missing file as for every kind of picture whose
 * data does not hold all of it; at start it is an error. */
GST_START_TEST (test_failed_reload_keeps_mask)
{
  GstElement *owner = gst_element_factory_make ("cudabilateral", NULL);
  GstBus *bus = gst_bus_new ();
  gchar *good = png_file ("good.png", 20, 10, 77);
  const gchar *missing = "/nonexistent/cbf-mask.png";
  CbfMaskLoader *loader = cbf_mask_loader_new ();
  const gchar *reason;
  gchar *broken;
  GError *error;
  guint serial, i;
  Peeked m;

  gst_element_set_bus (owner, bus);
  fail_unless (cbf_mask_loader_load (loader, owner, good,
          cbf_mask_loader_request (loader), FALSE));
  m = peek (loader);
  fail_unless (m.mask.pixels != NULL && m.mask.width == 20
      && m.mask.height == 10 && m.first == 77);
  serial = m.mask.serial;

  fail_if (cbf_mask_loader_load (loader, owner, missing,
          cbf_mask_loader_request (loader), FALSE));
  error = pop (bus, GST_MESSAGE_WARNING);
  fail_unless (error != NULL, "no warning for a failed reload");
  fail_unless (strstr (error->message, missing) != NULL, "%s", error->message);
  g_error_free (error);
  fail_if (pop (bus, GST_MESSAGE_ERROR) != NULL, "a failed reload is an "
      "error");
  m = peek (loader);
  fail_unless (m.mask.serial == serial && m.mask.width == 20
      && m.first == 77, "the mask in use was not kept");

  for (i = 0; (broken = incomplete_file (i, &reason)); i++) {
    fail_if (cbf_mask_loader_load (loader, owner, broken,
            cbf_mask_loader_request (loader), FALSE), "%s was taken", broken);
    error = pop (bus, GST_MESSAGE_WARNING);
    fail_unless (error != NULL, "no warning for %s", broken);
    fail_unless (strstr (error->message, broken) != NULL
        && strstr (error->message, reason) != NULL
        && strstr (error->message, "The mask in use is kept") != NULL, "%s",
        error->message);
    g_error_free (error);
    fail_if (pop (bus, GST_MESSAGE_ERROR) != NULL, "a failed reload is an "
        "error");
    m = peek (loader);
    fail_unless (m.mask.serial == serial && m.mask.width == 20
        && m.first == 77, "%s replaced the mask in use", broken);
    g_unlink (broken);
    g_free (broken);
  }

  fail_if (cbf_mask_loader_load (loader, owner, missing,
          cbf_mask_loader_request (loader), TRUE));
  error = pop (bus, GST_MESSAGE_ERROR);
  fail_unless (error != NULL, "no error for a failed load at start");
  g_error_free (error);

  cbf_mask_loader_free (loader);
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
  CbfMaskLoader *loader = cbf_mask_loader_new ();
  Load first;
  GThread *thread;
  guint64 ticket;
  Peeked m;

  /* In order: the later ticket's mask put in place first stays. */
  first = (Load) {
  loader, owner, slow, cbf_mask_loader_request (loader)};
  ticket = cbf_mask_loader_request (loader);
  fail_unless (cbf_mask_loader_load (loader, owner, quick, ticket, FALSE));
  m = peek (loader);
  fail_unless (m.mask.ticket == ticket && m.mask.width == 16);
  run_load (&first);
  m = peek (loader);
  fail_unless (m.mask.width == 16 && m.first == 22,
      "an earlier request replaced a later one");

  /* At once: the first (slow) load runs in a thread while the second is
   * requested and loaded; whichever ends last, the second stays. */
  first.ticket = cbf_mask_loader_request (loader);
  thread = g_thread_new ("slow-load", run_load, &first);
  ticket = cbf_mask_loader_request (loader);
  fail_unless (cbf_mask_loader_load (loader, owner, quick, ticket, FALSE));
  g_thread_join (thread);
  m = peek (loader);
  fail_unless (m.mask.ticket == ticket && m.mask.width == 16
      && m.first == 22, "the later request's mask was lost");

  /* And no mask (stop) is a request like the others. */
  fail_unless (cbf_mask_loader_load (loader, owner, NULL,
          cbf_mask_loader_request (loader), TRUE));
  m = peek (loader);
  fail_unless (m.mask.pixels == NULL);

  cbf_mask_loader_free (loader);
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
mask_loader_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral-mask-loader", 120, &tc);

  tcase_add_test (tc, test_failed_reload_keeps_mask);
  tcase_add_test (tc, test_latest_request_wins);
  tcase_add_test (tc, test_failed_start_is_stopped);
  return s;
}

TEST_MAIN (mask_loader_suite, TEST_NEEDS_NOTHING, NULL);
