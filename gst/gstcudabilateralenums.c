/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The enumerations of cudabilateral's properties (gstcudabilateral.h). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudabilateral.h"
#include "cbfengine.h"

GType
gst_cuda_bilateral_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue modes[] = {
    {CBF_MODE_BILATERAL, "Bilateral filter (OpenCV's bilateralFilter)",
        "bilateral"},
    {CBF_MODE_GAUSSIAN, "Gaussian blur, range weight off (OpenCV's "
          "GaussianBlur: kernel size diameter, sigma sigma-space)",
        "gaussian"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaBilateralMode",
            modes));
  return type;
}

GType
gst_cuda_bilateral_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue methods[] = {
    {CBF_METHOD_EXACT, "Exact: OpenCV's bilateralFilter within ±1", "exact"},
    {CBF_METHOD_GRID,
        "Bilateral grid: an approximation whose cost does not grow "
          "with the window, for sigma-space >= 8", "grid"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaBilateralMethod", methods));
  return type;
}

GType
gst_cuda_bilateral_temporal_motion_get_type (void)
{
  static GType type = 0;
  static const GEnumValue motions[] = {
    {CBF_TEMPORAL_MOTION_NONE,
          "None: each pixel follows the previous output at the same place",
        "none"},
    {CBF_TEMPORAL_MOTION_COMPENSATED,
          "Compensated: the previous output warped along the motion found "
          "from the current frame, with a reset at scene cuts",
        "compensated"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaBilateralTemporalMotion", motions));
  return type;
}
