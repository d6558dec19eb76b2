/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/*
 * roiattach: a pass-through element that attaches fixed boxes
 * (GstVideoRegionOfInterestMeta) to every buffer, so that
 * `cudabilateral regions=inside` has regions to filter in a pipeline that
 * gst-validate-1.0 builds from a description. The runtime shipped to the GPU
 * machine has no element that does it (facedetect, from the opencv plugin,
 * is not there). Used by tools/gst-validate.sh only; not part of the plugin
 * and not built by meson:
 *
 *   cc -shared -fPIC -O2 -o libcbfroiattach.so tools/validate/cbfroiattach.c \
 *       $(pkg-config --cflags --libs gstreamer-video-1.0)
 *
 *   GST_PLUGIN_PATH=. gst-launch-1.0 videotestsrc ! \
 *       roiattach boxes="16,16,64,64;100,80,50,50" ! fakesink
 *
 * It forwards caps, allocation and scheduling queries and every event, so
 * it works in system and in CUDA memory alike: only the buffer's metadata
 * changes, never its memory. Boxes are in pixels of the frame; ones reaching
 * past the frame (or past a smaller frame after renegotiation) are passed
 * on as they are, which is what the element under test must clip.
 */

#include <stdio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

/* GST_PLUGIN_DEFINE names the package with it, as config.h would. */
#define PACKAGE "gst-cudabilateral"

#define DEFAULT_BOXES "160,90,320,180;1100,600,300,200"
#define DEFAULT_ROI_TYPE "face"

typedef struct
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  GMutex lock;                  /* boxes and roi_type: set from any thread */
  gchar *boxes_str;
  GArray *boxes;                /* of gint[4]: x, y, w, h */
  gchar *roi_type;
} CbfRoiAttach;

typedef struct
{
  GstElementClass parent_class;
} CbfRoiAttachClass;

enum
{
  PROP_0,
  PROP_BOXES,
  PROP_ROI_TYPE,
};

static GType cbf_roi_attach_get_type (void);
G_DEFINE_TYPE (CbfRoiAttach, cbf_roi_attach, GST_TYPE_ELEMENT);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* "x,y,w,h;x,y,w,h"; NULL where malformed. */
static GArray *
parse_boxes (const gchar * str)
{
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (gint) * 4);
  gchar **parts = g_strsplit (str ? str : "", ";", -1);
  guint i;

  for (i = 0; parts[i]; i++) {
    gint b[4];
    gchar *s = g_strstrip (parts[i]);

    if (*s == '\0')
      continue;
    if (sscanf (s, "%d,%d,%d,%d", &b[0], &b[1], &b[2], &b[3]) != 4
        || b[0] < 0 || b[1] < 0 || b[2] <= 0 || b[3] <= 0) {
      g_array_unref (boxes);
      boxes = NULL;
      break;
    }
    g_array_append_val (boxes, b);
  }
  g_strfreev (parts);
  return boxes;
}

static GstFlowReturn
cbf_roi_attach_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  CbfRoiAttach *self = (CbfRoiAttach *) parent;
  guint i;

  (void) pad;
  /* A shallow copy at most: memories are shared, not copied. */
  buf = gst_buffer_make_writable (buf);
  g_mutex_lock (&self->lock);
  for (i = 0; i < self->boxes->len; i++) {
    const gint *b = (const gint *) (self->boxes->data + i * sizeof (gint) * 4);

    gst_buffer_add_video_region_of_interest_meta (buf, self->roi_type,
        b[0], b[1], b[2], b[3]);
  }
  g_mutex_unlock (&self->lock);
  return gst_pad_push (self->srcpad, buf);
}

static void
cbf_roi_attach_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  CbfRoiAttach *self = (CbfRoiAttach *) object;

  switch (prop_id) {
    case PROP_BOXES:{
      const gchar *str = g_value_get_string (value);
      GArray *boxes = parse_boxes (str);

      if (!boxes) {
        g_warning ("roiattach: boxes \"%s\" are not x,y,w,h;...", str);
        return;
      }
      g_mutex_lock (&self->lock);
      g_array_unref (self->boxes);
      self->boxes = boxes;
      g_free (self->boxes_str);
      self->boxes_str = g_strdup (str);
      g_mutex_unlock (&self->lock);
      break;
    }
    case PROP_ROI_TYPE:
      g_mutex_lock (&self->lock);
      g_free (self->roi_type);
      self->roi_type = g_value_dup_string (value);
      if (!self->roi_type)
        self->roi_type = g_strdup (DEFAULT_ROI_TYPE);
      g_mutex_unlock (&self->lock);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
cbf_roi_attach_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  CbfRoiAttach *self = (CbfRoiAttach *) object;

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_BOXES:
      g_value_set_string (value, self->boxes_str);
      break;
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  g_mutex_unlock (&self->lock);
}

static void
cbf_roi_attach_finalize (GObject * object)
{
  CbfRoiAttach *self = (CbfRoiAttach *) object;

  g_array_unref (self->boxes);
  g_free (self->boxes_str);
  g_free (self->roi_type);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (cbf_roi_attach_parent_class)->finalize (object);
}

static void
cbf_roi_attach_init (CbfRoiAttach * self)
{
  g_mutex_init (&self->lock);
  self->boxes_str = g_strdup (DEFAULT_BOXES);
  self->boxes = parse_boxes (DEFAULT_BOXES);
  self->roi_type = g_strdup (DEFAULT_ROI_TYPE);

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, cbf_roi_attach_chain);
  /* Caps, allocation (CUDA pools, the video meta) and scheduling are
   * upstream's and downstream's business: proxy them; the default event and
   * query handlers forward the rest (CUDA context queries included). */
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  GST_PAD_SET_PROXY_SCHEDULING (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->srcpad);
  GST_PAD_SET_PROXY_SCHEDULING (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}

static void
cbf_roi_attach_class_init (CbfRoiAttachClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = cbf_roi_attach_set_property;
  gobject_class->get_property = cbf_roi_attach_get_property;
  gobject_class->finalize = cbf_roi_attach_finalize;

  g_object_class_install_property (gobject_class, PROP_BOXES,
      g_param_spec_string ("boxes", "Boxes",
          "Regions attached to every buffer, in pixels: x,y,w,h;x,y,w,h",
          DEFAULT_BOXES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type",
          "Type of the regions attached", DEFAULT_ROI_TYPE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Region of interest attacher", "Filter/Video",
      "Attaches fixed regions of interest to every buffer (a test helper)",
      "gst-cudabilateral authors");
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_element_register (plugin, "roiattach", GST_RANK_NONE,
      cbf_roi_attach_get_type ());
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cbfroiattach,
    "gst-cudabilateral's gst-validate helper: regions of interest on buffers",
    plugin_init, "0.1.0", "LGPL", "gst-cudabilateral",
    "gst-cudabilateral tools/validate")
