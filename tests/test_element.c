/* cudabilateral without a GPU frame: registration, pad templates (every
 * format in them with a frame plan), caps, properties and the error
 * paths. Runs in CI (no GPU); on a GPU machine the
 * error tests check the bad cuda-device-id path, and the same program runs
 * again with CUDA_VISIBLE_DEVICES= to check the no-device path there too. */

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <gst/base/gstbasetransform.h>

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "reference.h"
#include "gpu_support.h"
#include "cbfengine.h"

/* The formats of cbfformats.h, in the order the caps list them. */
static const gchar *supported[] = { GPU_TEST_ALL_FORMATS };

/* Refused, among them deep formats of other layouts or byte orders:
 * big-endian samples, packed 4:2:2 (Y210), 12-bit colour, alpha first. */
static const gchar *refused[] = { "Y42B", "NV16", "YVYU", "v308", "AYUV",
  "P010_10BE", "GRAY16_BE", "Y210", "Y444_12LE", "RGBA64_BE", "ARGB64_LE"
};

#define CUDA_MEMORY "memory:CUDAMemory"

/* Caps of progressive video, the only kind the element takes. */
static GstCaps *
video_caps (const gchar * format, gint width, gint height)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, "interlace-mode", G_TYPE_STRING,
      "progressive", NULL);
}

/* The same caps with one memory feature (NULL: system memory). */
static GstCaps *
video_caps_with (const gchar * feature, const gchar * format, gint width,
    gint height)
{
  GstCaps *caps = video_caps (format, width, height);

  if (feature)
    gst_caps_set_features (caps, 0, gst_caps_features_new (feature, NULL));
  return caps;
}

GST_START_TEST (test_registration)
{
  GstElementFactory *factory = gst_element_factory_find ("cudabilateral");
  const gchar *description;
  const GList *templates;
  guint n_templates = 0;

  fail_unless (factory != NULL, "cudabilateral is not registered");
  fail_unless_equals_string (gst_element_factory_get_metadata (factory,
          GST_ELEMENT_METADATA_KLASS), "Filter/Effect/Video");
  /* gst-inspect-1.0 says how to reach each filter in one sentence; the
   * example pipelines are in the element's documentation and the user
   * guide. */
  description = gst_element_factory_get_metadata (factory,
      GST_ELEMENT_METADATA_DESCRIPTION);
  fail_unless (g_str_has_suffix (description, ".")
      && !strstr (description, ". ") && !strchr (description, '\n'),
      "not one sentence: %s", description);
  fail_unless (strstr (description, "bilateral filter")
      && strstr (description, "mode=gaussian")
      && strstr (description, "method=grid")
      && strstr (description, "mask-location"), "%s", description);

  for (templates = gst_element_factory_get_static_pad_templates (factory);
      templates; templates = templates->next) {
    GstStaticPadTemplate *t = templates->data;
    GstCaps *caps = gst_static_caps_get (&t->static_caps);
    guint i;

    n_templates++;
    fail_unless (t->presence == GST_PAD_ALWAYS);
#if CBF_HAVE_CUDA_MEMORY
    /* CUDA memory first, so that it is preferred; then system memory. */
    fail_unless_equals_int (gst_caps_get_size (caps), 2);
    fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
            CUDA_MEMORY));
    fail_unless (gst_caps_features_is_equal (gst_caps_get_features (caps, 1),
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
#else
    /* Built without GStreamer's CUDA library: system memory only. */
    fail_unless_equals_int (gst_caps_get_size (caps), 1);
    fail_unless (gst_caps_features_is_equal (gst_caps_get_features (caps, 0),
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
#endif
    /* Each memory's formats: cbfformats.h's, in its order, the order
     * negotiation prefers; and the same other fields. */
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
      const GValue *formats = gst_structure_get_value (s, "format");
      GstStructure *rest = gst_structure_from_string ("video/x-raw, "
          "width = (int) [ 1, max ], height = (int) [ 1, 65535 ], "
          "framerate = (fraction) [ 0, max ], "
          "interlace-mode = (string) progressive", NULL);
      guint f;

      fail_unless (formats && GST_VALUE_HOLDS_LIST (formats));
      fail_unless_equals_int (gst_value_list_get_size (formats),
          G_N_ELEMENTS (supported));
      for (f = 0; f < G_N_ELEMENTS (supported); f++)
        fail_unless_equals_string (g_value_get_string
            (gst_value_list_get_value (formats, f)), supported[f]);
      gst_structure_remove_field (s, "format");
      fail_unless (gst_structure_is_equal (s, rest), "%" GST_PTR_FORMAT, s);
      gst_structure_free (s);
      gst_structure_free (rest);
    }
    for (i = 0; i < G_N_ELEMENTS (supported); i++) {
      GstCaps *c = video_caps (supported[i], 1, 1);
      GstCaps *cuda = video_caps_with (CUDA_MEMORY, supported[i], 1, 1);
      fail_unless (gst_caps_is_always_compatible (c, caps), "%s %s missing",
          t->name_template, supported[i]);
      fail_unless (gst_caps_can_intersect (cuda, caps) ==
          CBF_HAVE_CUDA_MEMORY, "%s %s in CUDA memory %s", t->name_template,
          supported[i], CBF_HAVE_CUDA_MEMORY ? "missing" : "offered");
      gst_caps_unref (c);
      gst_caps_unref (cuda);
    }
    {
      GstCaps *gl = video_caps_with ("memory:GLMemory", "RGBA", 64, 48);
      fail_if (gst_caps_can_intersect (gl, caps), "GL memory offered");
      gst_caps_unref (gl);
    }
    for (i = 0; i < G_N_ELEMENTS (refused); i++) {
      GstCaps *c = video_caps (refused[i], 64, 48);
      fail_if (gst_caps_can_intersect (c, caps), "%s offers %s",
          t->name_template, refused[i]);
      gst_caps_unref (c);
    }
    gst_caps_unref (caps);
  }
  fail_unless_equals_int (n_templates, 2);
  gst_object_unref (factory);
}

GST_END_TEST;

/* Every format the pad templates offer, in every memory, has a frame plan
 * (the engine made for it, which needs no device), at a size and at odd
 * and one-pixel sizes: a line of cbfformats.h that does not fit its format
 * (the plan checks it against GStreamer's description) fails here, in CI,
 * not at a user's configure. Formats outside the table have none. */
GST_START_TEST (test_every_caps_format_has_a_plan)
{
  static const gint sizes[][2] = { {64, 48}, {7, 5}, {1, 1} };
  GstElementFactory *factory = gst_element_factory_find ("cudabilateral");
  const GList *templates;
  guint n_formats = 0, r;

  fail_unless (factory != NULL);
  for (templates = gst_element_factory_get_static_pad_templates (factory);
      templates; templates = templates->next) {
    GstStaticPadTemplate *t = templates->data;
    GstCaps *caps = gst_static_caps_get (&t->static_caps);
    guint i, f, k;

    for (i = 0; i < gst_caps_get_size (caps); i++) {
      const GValue *formats =
          gst_structure_get_value (gst_caps_get_structure (caps, i), "format");

      fail_unless (formats && GST_VALUE_HOLDS_LIST (formats));
      for (f = 0; f < gst_value_list_get_size (formats); f++) {
        const gchar *name =
            g_value_get_string (gst_value_list_get_value (formats, f));

        for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
          GstVideoInfo info;
          GError *error = NULL;
          CbfEngine *engine;

          fail_unless (gst_video_info_set_format (&info,
                  gst_video_format_from_string (name), sizes[k][0],
                  sizes[k][1]), "%s: no video info", name);
          engine = cbf_engine_new (&info, &error);
          fail_unless (engine != NULL, "%s %s %dx%d: no frame plan: %s",
              t->name_template, name, sizes[k][0], sizes[k][1],
              error ? error->message : "(no error)");
          fail_if (cbf_engine_on_device (engine));
          cbf_engine_free (engine);
        }
        n_formats++;
      }
    }
    gst_caps_unref (caps);
  }
  /* Both templates, in each memory, list every supported format. */
  fail_unless_equals_int (n_formats, 2 * (1 + CBF_HAVE_CUDA_MEMORY) *
      G_N_ELEMENTS (supported));
  gst_object_unref (factory);

  /* And the plan takes none but those, not even formats its kernels could
   * filter (Y42B, NV16, Y444_12LE). */
  for (r = 0; r < G_N_ELEMENTS (refused); r++) {
    GstVideoInfo info;
    GError *error = NULL;

    fail_unless (gst_video_info_set_format (&info,
            gst_video_format_from_string (refused[r]), 64, 48));
    fail_if (cbf_engine_new (&info, &error), "a frame plan for %s", refused[r]);
    fail_unless (error != NULL);
    g_error_free (error);
  }
}

GST_END_TEST;

GST_START_TEST (test_accept_caps)
{
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstPad *src = gst_element_get_static_pad (e, "src");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (supported); i++) {
    GstCaps *c = video_caps (supported[i], 3, 7);
    GstCaps *peer_caps;
    fail_unless (gst_pad_query_accept_caps (sink, c), "%s refused",
        supported[i]);
    /* The same caps on both pads: what the sink takes, the source offers. */
    peer_caps = gst_pad_query_caps (src, c);
    fail_unless (gst_caps_is_equal (peer_caps, c), "src caps for %s: %"
        GST_PTR_FORMAT, supported[i], peer_caps);
    gst_caps_unref (peer_caps);
    gst_caps_unref (c);
  }
  for (i = 0; i < G_N_ELEMENTS (refused); i++) {
    GstCaps *c = video_caps (refused[i], 64, 48);
    fail_if (gst_pad_query_accept_caps (sink, c), "%s accepted", refused[i]);
    gst_caps_unref (c);
  }
  /* CUDA memory in, CUDA memory out; system memory in, system memory out:
   * the element never converts between the two. Without GStreamer's CUDA
   * library, no CUDA memory at all. */
  for (i = 0; i < G_N_ELEMENTS (supported) && !CBF_HAVE_CUDA_MEMORY; i++) {
    GstCaps *cuda = video_caps_with (CUDA_MEMORY, supported[i], 64, 48);

    fail_if (gst_pad_query_accept_caps (sink, cuda), "%s in CUDA memory "
        "accepted", supported[i]);
    gst_caps_unref (cuda);
  }
  for (i = 0; i < G_N_ELEMENTS (supported) && CBF_HAVE_CUDA_MEMORY; i++) {
    GstCaps *cuda = video_caps_with (CUDA_MEMORY, supported[i], 64, 48);
    GstCaps *sys = video_caps (supported[i], 64, 48);
    GstCaps *peer_caps;

    fail_unless (gst_pad_query_accept_caps (sink, cuda), "%s in CUDA memory "
        "refused", supported[i]);
    peer_caps = gst_pad_query_caps (src, cuda);
    fail_unless (gst_caps_is_equal (peer_caps, cuda), "src caps for %"
        GST_PTR_FORMAT ": %" GST_PTR_FORMAT, cuda, peer_caps);
    gst_caps_unref (peer_caps);
    /* What the element makes of CUDA caps on one side: CUDA caps on the
     * other, never system memory (and the reverse). */
    peer_caps = GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps
        (GST_BASE_TRANSFORM (e), GST_PAD_SINK, cuda, NULL);
    fail_unless (gst_caps_can_intersect (peer_caps, cuda));
    fail_if (gst_caps_can_intersect (peer_caps, sys), "CUDA memory in, %"
        GST_PTR_FORMAT " out", peer_caps);
    gst_caps_unref (peer_caps);
    peer_caps = GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps
        (GST_BASE_TRANSFORM (e), GST_PAD_SRC, sys, NULL);
    fail_if (gst_caps_can_intersect (peer_caps, cuda), "system memory out, %"
        GST_PTR_FORMAT " in", peer_caps);
    gst_caps_unref (peer_caps);
    gst_caps_unref (cuda);
    gst_caps_unref (sys);
  }
  {
    GstCaps *gl = video_caps_with ("memory:GLMemory", "RGBA", 64, 48);
    fail_if (gst_pad_query_accept_caps (sink, gl), "GL memory accepted");
    gst_caps_unref (gl);
  }
  {
    GstCaps *c = video_caps ("RGBA", 0, 48);    /* zero width */
    fail_if (gst_pad_query_accept_caps (sink, c), "width 0 accepted");
    gst_caps_unref (c);
  }
  /* Frames of more rows than a kernel launch covers are refused by the
   * caps, with a warning; as many rows as it covers, accepted. */
  {
    GstCaps *tall = video_caps ("GRAY8", 1, 600000);
    GstCaps *tallest = video_caps ("GRAY8", 1, 65535);
    GstCaps *wide = video_caps ("GRAY8", 600000, 1);

    fail_if (gst_pad_query_accept_caps (sink, tall), "1x600000 accepted");
    fail_unless (gst_pad_query_accept_caps (sink, tallest));
    fail_unless (gst_pad_query_accept_caps (sink, wide));
    gst_caps_unref (tall);
    gst_caps_unref (tallest);
    gst_caps_unref (wide);
  }
  /* Interlaced video is refused, in either memory (its fields would be
   * mixed); caps that say nothing of interlacing are progressive. */
  {
    static const gchar *modes[] = { "interleaved", "mixed", "alternate" };
    GstCaps *plain = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, "NV12", "width", G_TYPE_INT, 64, "height", G_TYPE_INT,
        48, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);

    fail_unless (gst_pad_query_accept_caps (sink, plain));
    gst_caps_unref (plain);
    for (i = 0; i < G_N_ELEMENTS (modes); i++) {
      GstCaps *c = video_caps ("NV12", 64, 48);
      GstCaps *cuda;

      gst_caps_set_simple (c, "interlace-mode", G_TYPE_STRING, modes[i], NULL);
      cuda = gst_caps_copy (c);
      gst_caps_set_features (cuda, 0, gst_caps_features_new (CUDA_MEMORY,
              NULL));
      fail_if (gst_pad_query_accept_caps (sink, c), "%s accepted", modes[i]);
      fail_if (gst_pad_query_accept_caps (sink, cuda), "%s in CUDA memory "
          "accepted", modes[i]);
      gst_caps_unref (c);
      gst_caps_unref (cuda);
    }
  }
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (e);
}

GST_END_TEST;

static void
check_int_property (GObject * obj, const gchar * name, gint def, gint min,
    gint max, GParamFlags flags)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      name);
  GParamSpecInt *ispec;
  GValue v = G_VALUE_INIT;
  gint got;

  fail_unless (pspec != NULL, "no property %s", name);
  fail_unless ((pspec->flags & flags) == flags, "%s: flags 0x%x", name,
      pspec->flags);
  ispec = G_PARAM_SPEC_INT (pspec);
  g_object_get (obj, name, &got, NULL);
  fail_unless_equals_int (got, def);
  fail_unless_equals_int (ispec->minimum, min);
  fail_unless_equals_int (ispec->maximum, max);
  /* Values outside the range are refused (clamped by validation). */
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, max == G_MAXINT ? min - 1 : max + 1);
  fail_unless (g_param_value_validate (pspec, &v), "%s: out of range "
      "value accepted", name);
  g_value_unset (&v);
  g_object_set (obj, name, min, NULL);
  g_object_get (obj, name, &got, NULL);
  fail_unless_equals_int (got, min);
  g_object_set (obj, name, def, NULL);
}

static void
check_double_property (GObject * obj, const gchar * name, gdouble def,
    gdouble min, gdouble max, GParamFlags flags)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      name);
  GParamSpecDouble *dspec;
  GValue v = G_VALUE_INIT;
  gdouble got;

  fail_unless (pspec != NULL, "no property %s", name);
  fail_unless ((pspec->flags & flags) == flags, "%s: flags 0x%x", name,
      pspec->flags);
  dspec = G_PARAM_SPEC_DOUBLE (pspec);
  g_object_get (obj, name, &got, NULL);
  fail_unless_equals_float (got, def);
  fail_unless_equals_float (dspec->minimum, min);
  fail_unless_equals_float (dspec->maximum, max);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, max + 1);
  fail_unless (g_param_value_validate (pspec, &v), "%s: %g accepted", name,
      max + 1);
  g_value_set_double (&v, min - 1);
  fail_unless (g_param_value_validate (pspec, &v), "%s: %g accepted", name,
      min - 1);
  g_value_unset (&v);
  g_object_set (obj, name, 12.5, NULL);
  g_object_get (obj, name, &got, NULL);
  fail_unless_equals_float (got, 12.5);
  g_object_set (obj, name, def, NULL);
}

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudabilateral", NULL);
  GObject *obj = G_OBJECT (e);
  const GParamFlags live = G_PARAM_READWRITE | GST_PARAM_CONTROLLABLE |
      GST_PARAM_MUTABLE_PLAYING;

  check_int_property (obj, "diameter", 9, -1, 255, live);
  check_double_property (obj, "sigma-color", 75, 0, 1000, live);
  check_double_property (obj, "sigma-space", 75, 0, 200, live);
  /* The largest radius the properties give (OpenCV's rule, restated by
   * the reference) is within the 300 the element's tables take. */
  fail_unless (cbf_reference_radius (255, 0) <= 300);
  fail_unless (cbf_reference_radius (0, 200) <= 300);
  {
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (obj), "filter-chroma");
    gboolean on;

    fail_unless (pspec != NULL && G_IS_PARAM_SPEC_BOOLEAN (pspec));
    fail_unless ((pspec->flags & live) == live);
    fail_unless (G_PARAM_SPEC_BOOLEAN (pspec)->default_value);
    g_object_get (obj, "filter-chroma", &on, NULL);
    fail_unless (on);
    g_object_set (obj, "filter-chroma", FALSE, NULL);
    g_object_get (obj, "filter-chroma", &on, NULL);
    fail_if (on);
  }
  {
    /* mode: an enum, bilateral by default, both values settable by nick as
     * from gst-launch. */
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (obj), "mode");
    GEnumClass *modes;
    gint mode;

    fail_unless (pspec != NULL && G_IS_PARAM_SPEC_ENUM (pspec));
    fail_unless ((pspec->flags & live) == live);
    modes = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    fail_unless_equals_int (modes->n_values, 2);
    fail_unless (g_enum_get_value_by_nick (modes, "bilateral") != NULL);
    fail_unless (g_enum_get_value_by_nick (modes, "gaussian") != NULL);
    fail_unless_equals_int (G_PARAM_SPEC_ENUM (pspec)->default_value,
        g_enum_get_value_by_nick (modes, "bilateral")->value);
    gst_util_set_object_arg (obj, "mode", "gaussian");
    g_object_get (obj, "mode", &mode, NULL);
    fail_unless_equals_int (mode,
        g_enum_get_value_by_nick (modes, "gaussian")->value);
    /* An unknown nick leaves the mode as it was. */
    gst_util_set_object_arg (obj, "mode", "median");
    g_object_get (obj, "mode", &mode, NULL);
    fail_unless_equals_int (mode,
        g_enum_get_value_by_nick (modes, "gaussian")->value);
  }
  {
    /* method: an enum, exact by default, exact and grid settable by nick
     * as from gst-launch, controllable and changeable while PLAYING like
     * the other filter parameters. */
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (obj), "method");
    GEnumClass *methods;
    gint method;

    fail_unless (pspec != NULL && G_IS_PARAM_SPEC_ENUM (pspec));
    fail_unless ((pspec->flags & live) == live, "method: flags 0x%x",
        pspec->flags);
    methods = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    fail_unless_equals_int (methods->n_values, 2);
    fail_unless (g_enum_get_value_by_nick (methods, "exact") != NULL);
    fail_unless (g_enum_get_value_by_nick (methods, "grid") != NULL);
    fail_unless_equals_int (G_PARAM_SPEC_ENUM (pspec)->default_value,
        g_enum_get_value_by_nick (methods, "exact")->value);
    g_object_get (obj, "method", &method, NULL);
    fail_unless_equals_int (method,
        g_enum_get_value_by_nick (methods, "exact")->value);
    gst_util_set_object_arg (obj, "method", "grid");
    g_object_get (obj, "method", &method, NULL);
    fail_unless_equals_int (method,
        g_enum_get_value_by_nick (methods, "grid")->value);
    /* An unknown nick leaves the method as it was. */
    gst_util_set_object_arg (obj, "method", "approximate");
    g_object_get (obj, "method", &method, NULL);
    fail_unless_equals_int (method,
        g_enum_get_value_by_nick (methods, "grid")->value);
    gst_util_set_object_arg (obj, "method", "exact");
    g_object_get (obj, "method", &method, NULL);
    fail_unless_equals_int (method,
        g_enum_get_value_by_nick (methods, "exact")->value);
  }
  {
    /* mask-location: a file name, unset by default, changeable while
     * PLAYING. */
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (obj), "mask-location");
    gchar *location;

    fail_unless (pspec != NULL && G_IS_PARAM_SPEC_STRING (pspec));
    fail_unless ((pspec->flags & (G_PARAM_READWRITE |
                GST_PARAM_MUTABLE_PLAYING)) ==
        (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING));
    fail_unless (G_PARAM_SPEC_STRING (pspec)->default_value == NULL);
    g_object_set (obj, "mask-location", "/tmp/mask.png", NULL);
    g_object_get (obj, "mask-location", &location, NULL);
    fail_unless_equals_string (location, "/tmp/mask.png");
    g_free (location);
    g_object_set (obj, "mask-location", NULL, NULL);
  }
  check_int_property (obj, "cuda-device-id", -1, -1, G_MAXINT,
      G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY);
  gst_object_unref (e);
}

GST_END_TEST;

/* Runs @description until an error or EOS (at most 30 s); returns the error
 * or NULL. */
static GError *
run_pipeline (const gchar * description, gchar ** debug)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "pipeline hung: no error and no EOS in 30 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, debug);
  gst_message_unref (msg);
  /* It must shut down cleanly after the error. */
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return error;
}

#define PIPELINE(props) "videotestsrc num-buffers=3 ! " \
    "video/x-raw,format=RGBA,width=64,height=48 ! cudabilateral " props \
    " ! fakesink"

GST_START_TEST (test_no_device_or_bad_device_id)
{
  gint n_devices = 0;

  if (cudaGetDeviceCount (&n_devices) != cudaSuccess)
    n_devices = 0;
  gchar *debug = NULL;
  GError *error = run_pipeline (PIPELINE ("cuda-device-id=4096"), &debug);

  fail_unless (error != NULL, "no error with cuda-device-id=4096");
  fail_unless (error->domain == GST_RESOURCE_ERROR
      && error->code == GST_RESOURCE_ERROR_NOT_FOUND, "%s", error->message);
  if (n_devices > 0)
    fail_unless (strstr (error->message, "cuda-device-id 4096") != NULL,
        "%s", error->message);
  else
    fail_unless (strstr (error->message, "No usable CUDA device") != NULL,
        "%s", error->message);
  GST_INFO ("error: %s (%s)", error->message, debug);
  g_error_free (error);
  g_free (debug);
}

GST_END_TEST;

GST_START_TEST (test_default_device)
{
  gint n_devices = 0;
  GError *error;

  if (cudaGetDeviceCount (&n_devices) != cudaSuccess)
    n_devices = 0;
  error = run_pipeline (PIPELINE (""), NULL);

  if (n_devices > 0) {
    fail_unless (error == NULL, "%s", error ? error->message : "");
  } else {
    void *driver = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

    fail_unless (error != NULL, "no error without a CUDA device");
    fail_unless (error->domain == GST_RESOURCE_ERROR, "%s", error->message);
    fail_unless (strstr (error->message, "No usable CUDA device") != NULL,
        "%s", error->message);
    /* No driver at all is told apart from one that is too old. */
    if (driver)
      fail_unless (strstr (error->message, "not found") == NULL, "%s",
          error->message);
    else
      fail_unless (strstr (error->message, "no NVIDIA driver is installed "
              "(libcuda.so.1 not found)") != NULL, "%s", error->message);
    if (driver)
      dlclose (driver);
    g_error_free (error);
  }
}

GST_END_TEST;

static Suite *
element_suite (void)
{
  TCase *tc;
  Suite *s = test_suite_new ("cudabilateral", 0, &tc);

  tcase_add_test (tc, test_registration);
  tcase_add_test (tc, test_every_caps_format_has_a_plan);
  tcase_add_test (tc, test_accept_caps);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_no_device_or_bad_device_id);
  tcase_add_test (tc, test_default_device);
  return s;
}

TEST_MAIN (element_suite, TEST_NEEDS_NOTHING, NULL);
