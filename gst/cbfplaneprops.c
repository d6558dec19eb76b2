/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfplaneprops.h"

/* As the element's diameter and sigma-space. */
#define MAX_DIAMETER 255
#define MAX_SIGMA 200.0

GType
gst_cuda_bilateral_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue borders[] = {
    {CBF_BORDER_REFLECT_101, "Reflect without repeating the edge, "
          "gfedcb|abcdefgh|gfedcba (OpenCV's BORDER_REFLECT_101, its default)",
        "reflect-101"},
    {CBF_BORDER_REPLICATE, "Repeat the edge, aaaaaa|abcdefgh|hhhhhhh "
          "(BORDER_REPLICATE)", "replicate"},
    {CBF_BORDER_REFLECT, "Reflect repeating the edge, fedcba|abcdefgh|hgfedcb "
          "(BORDER_REFLECT)", "reflect"},
    {CBF_BORDER_WRAP, "Wrap around, cdefgh|abcdefgh|abcdefg (BORDER_WRAP)",
        "wrap"},
    {CBF_BORDER_CONSTANT, "A constant, border-value, iiiiii|abcdefgh|iiiiiii "
          "(BORDER_CONSTANT)", "constant"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaBilateralBorder", borders));
  return type;
}

GType
gst_cuda_bilateral_chroma_guide_get_type (void)
{
  static GType type = 0;
  static const GEnumValue guides[] = {
    {CBF_CHROMA_GUIDE_NONE, "Chroma's range weights from chroma itself",
        "none"},
    {CBF_CHROMA_GUIDE_LUMA, "Chroma's range weights from luma at chroma's "
          "resolution (joint bilateral filter)", "luma"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaBilateralChromaGuide", guides));
  return type;
}

void
cbf_plane_props_init (CbfParams * params)
{
  params->filter_chroma = TRUE;
  params->luma_unfiltered = FALSE;
  params->chroma_diameter = CBF_PARAMS_DERIVED;
  params->chroma_sigma_color = CBF_PARAMS_DERIVED;
  params->chroma_sigma_space = CBF_PARAMS_DERIVED;
  params->chroma_guide = CBF_CHROMA_GUIDE_NONE;
  params->border = CBF_BORDER_REFLECT_101;
  params->border_value = 0;
}

void
cbf_plane_props_install (GObjectClass * klass, guint first_id)
{
  const GParamFlags live = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  /**
   * GstCudaBilateral:filter-chroma:
   *
   * Whether the chroma channels of YUV formats are filtered (with the
   * chroma-* parameters, by default diameter and sigma-space scaled to
   * chroma's resolution) or copied untouched. YUV 4:4:4 is then filtered
   * plane by plane. Other formats ignore it.
   */
  g_object_class_install_property (klass,
      first_id + CBF_PLANE_PROP_FILTER_CHROMA,
      g_param_spec_boolean ("filter-chroma", "Filter chroma",
          "Filter the chroma of YUV formats too, with diameter and "
          "sigma-space scaled to chroma (or the chroma-* properties); false: "
          "copy it unchanged. Other formats ignore it", TRUE,
          live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:filter-luma:
   *
   * Whether luma (Y) of YUV formats is filtered; false copies it unchanged
   * (to filter chroma alone). YUV 4:4:4 is then filtered plane by plane.
   * Other formats ignore it.
   */
  g_object_class_install_property (klass,
      first_id + CBF_PLANE_PROP_FILTER_LUMA,
      g_param_spec_boolean ("filter-luma", "Filter luma",
          "Filter the luma of YUV formats; false: copy it unchanged", TRUE,
          live));
  /**
   * GstCudaBilateral:chroma-diameter:
   *
   * The diameter of chroma's window in chroma pixels, as diameter is
   * luma's (0: from chroma-sigma-space). -1, the default, derives it from
   * luma's: diameter divided by the chroma subsampling. Setting any
   * chroma-* property makes YUV 4:4:4 filtered plane by plane.
   */
  g_object_class_install_property (klass,
      first_id + CBF_PLANE_PROP_CHROMA_DIAMETER,
      g_param_spec_int ("chroma-diameter", "Chroma diameter",
          "Diameter of chroma's window in chroma pixels (0: from "
          "chroma-sigma-space; -1: diameter scaled to chroma)", -1,
          MAX_DIAMETER, CBF_PARAMS_DERIVED, live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:chroma-sigma-color:
   *
   * sigma-color of chroma (8-bit levels). -1, the default: sigma-color.
   */
  g_object_class_install_property (klass,
      first_id + CBF_PLANE_PROP_CHROMA_SIGMA_COLOR,
      g_param_spec_double ("chroma-sigma-color", "Chroma sigma color",
          "Range sigma of chroma in 8-bit levels (-1: sigma-color)", -1.0,
          1000.0, CBF_PARAMS_DERIVED, live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:chroma-sigma-space:
   *
   * sigma-space of chroma in chroma pixels. -1, the default: sigma-space
   * divided by the chroma subsampling.
   */
  g_object_class_install_property (klass,
      first_id + CBF_PLANE_PROP_CHROMA_SIGMA_SPACE,
      g_param_spec_double ("chroma-sigma-space", "Chroma sigma space",
          "Spatial sigma of chroma in chroma pixels (-1: sigma-space scaled "
          "to chroma)", -1.0, MAX_SIGMA, CBF_PARAMS_DERIVED,
          live | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaBilateral:chroma-guide:
   *
   * luma: chroma's range weights come from luma brought to chroma's
   * resolution (the mean of the luma samples a chroma sample covers,
   * rounded half up; a joint bilateral filter), so that chroma keeps its
   * edges where luma has them. mode=bilateral with method=exact only.
   */
  g_object_class_install_property (klass,
      first_id + CBF_PLANE_PROP_CHROMA_GUIDE,
      g_param_spec_enum ("chroma-guide", "Chroma guide",
          "What chroma's range weights are taken from",
          GST_TYPE_CUDA_BILATERAL_CHROMA_GUIDE, CBF_CHROMA_GUIDE_NONE, live));
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BILATERAL_CHROMA_GUIDE, 0);
  /**
   * GstCudaBilateral:border:
   *
   * How windows read past the picture's edges: OpenCV's border types as
   * cv::bilateralFilter and cv::GaussianBlur take them. method=grid has no
   * border and ignores it.
   */
  g_object_class_install_property (klass, first_id + CBF_PLANE_PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "How windows read past the picture's edges",
          GST_TYPE_CUDA_BILATERAL_BORDER, CBF_BORDER_REFLECT_101, live));
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BILATERAL_BORDER, 0);
  /**
   * GstCudaBilateral:border-value:
   *
   * The value of border=constant, in every channel, in 8-bit levels
   * (samples of b bits take round (value x (2^b - 1) / 255)).
   */
  g_object_class_install_property (klass,
      first_id + CBF_PLANE_PROP_BORDER_VALUE,
      g_param_spec_uint ("border-value", "Border value",
          "The constant border's value in 8-bit levels", 0, 255, 0,
          live | GST_PARAM_CONTROLLABLE));
}

void
cbf_plane_props_set (CbfParams * params, guint id, const GValue * value)
{
  switch (id) {
    case CBF_PLANE_PROP_FILTER_CHROMA:
      params->filter_chroma = g_value_get_boolean (value);
      break;
    case CBF_PLANE_PROP_FILTER_LUMA:
      params->luma_unfiltered = !g_value_get_boolean (value);
      break;
    case CBF_PLANE_PROP_CHROMA_DIAMETER:
      params->chroma_diameter = g_value_get_int (value);
      break;
    case CBF_PLANE_PROP_CHROMA_SIGMA_COLOR:
      params->chroma_sigma_color = g_value_get_double (value);
      break;
    case CBF_PLANE_PROP_CHROMA_SIGMA_SPACE:
      params->chroma_sigma_space = g_value_get_double (value);
      break;
    case CBF_PLANE_PROP_CHROMA_GUIDE:
      params->chroma_guide = g_value_get_enum (value);
      break;
    case CBF_PLANE_PROP_BORDER:
      params->border = g_value_get_enum (value);
      break;
    case CBF_PLANE_PROP_BORDER_VALUE:
      params->border_value = g_value_get_uint (value);
      break;
  }
}

void
cbf_plane_props_get (const CbfParams * params, guint id, GValue * value)
{
  switch (id) {
    case CBF_PLANE_PROP_FILTER_CHROMA:
      g_value_set_boolean (value, params->filter_chroma);
      break;
    case CBF_PLANE_PROP_FILTER_LUMA:
      g_value_set_boolean (value, !params->luma_unfiltered);
      break;
    case CBF_PLANE_PROP_CHROMA_DIAMETER:
      g_value_set_int (value, params->chroma_diameter);
      break;
    case CBF_PLANE_PROP_CHROMA_SIGMA_COLOR:
      g_value_set_double (value, params->chroma_sigma_color);
      break;
    case CBF_PLANE_PROP_CHROMA_SIGMA_SPACE:
      g_value_set_double (value, params->chroma_sigma_space);
      break;
    case CBF_PLANE_PROP_CHROMA_GUIDE:
      g_value_set_enum (value, params->chroma_guide);
      break;
    case CBF_PLANE_PROP_BORDER:
      g_value_set_enum (value, params->border);
      break;
    case CBF_PLANE_PROP_BORDER_VALUE:
      g_value_set_uint (value, params->border_value);
      break;
  }
}
