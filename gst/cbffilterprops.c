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

#include "cbffilterprops.h"
#include "gstcudabilateral.h"

#define DEFAULT_DIAMETER 9
#define DEFAULT_SIGMA_COLOR 75.0
#define DEFAULT_SIGMA_SPACE 75.0
#define MAX_DIAMETER 255
#define MAX_SIGMA_COLOR 1000.0
/* Keeps the radius derived from sigma-space within CBF_MAX_RADIUS. */
#define MAX_SIGMA_SPACE 200.0
#define DEFAULT_MODE CBF_MODE_BILATERAL
#define DEFAULT_METHOD CBF_METHOD_EXACT
#define DEFAULT_TEMPORAL_STRENGTH 0.0
#define DEFAULT_TEMPORAL_SIGMA 6.0
#define MIN_TEMPORAL_SIGMA 0.1
#define DEFAULT_TEMPORAL_MOTION CBF_TEMPORAL_MOTION_NONE
/* noise-sigma's values that are not a level. */
#define NOISE_SIGMA_MEASURED (-1.0)
#define NOISE_SIGMA_UNSET (-2.0)
#define DEFAULT_NOISE_SIGMA NOISE_SIGMA_UNSET
#define MAX_NOISE_SIGMA 255.0

void
cbf_filter_props_init (CbfParams * params)
{
  params->diameter = DEFAULT_DIAMETER;
  params->sigma_color = DEFAULT_SIGMA_COLOR;
  params->sigma_space = DEFAULT_SIGMA_SPACE;
  params->mode = DEFAULT_MODE;
  params->method = DEFAULT_METHOD;
  params->temporal_strength = DEFAULT_TEMPORAL_STRENGTH;
  params->temporal_sigma = DEFAULT_TEMPORAL_SIGMA;
  params->temporal_motion = DEFAULT_TEMPORAL_MOTION;
  params->noise_sigma = DEFAULT_NOISE_SIGMA;
  params->noise = CBF_NOISE_UNSET;
}

void
cbf_filter_props_install (GObjectClass * klass, guint first_id)
{
  const GParamFlags live = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;

  /**
   * GstCudaBilateral:diameter:
   *
   * Diameter of the window in pixels, as OpenCV's d, from 1 to 255: the
   * radius is diameter / 2 (at least 1) and the window is the disc of that
   * radius. -1 or 0 derives the radius from sigma-space: round (1.5 *
   * sigma-space), up to 300 pixels. Cost grows with the square of the
   * radius. In mode=gaussian it is the kernel size (an even one is taken as
   * the next odd number; -1 or 0: derived from sigma-space).
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_DIAMETER,
      g_param_spec_int ("diameter", "Diameter",
          "Window diameter in pixels, 1 to 255 (radius = diameter / 2); "
          "-1 or 0: radius = round(1.5 * sigma-space). In mode=gaussian, "
          "the kernel size", -1, MAX_DIAMETER, DEFAULT_DIAMETER, live));
  /**
   * GstCudaBilateral:sigma-color:
   *
   * Range sigma in 8-bit levels, from 0 to 1000: colour differences (for
   * RGB and Y444 the sum of the absolute differences of the three
   * channels, else one channel's difference) much larger than this are not
   * averaged together. Small values (10 to 20) smooth only noise and keep
   * texture; large ones (60 and more) flatten skin and fabric, and edges
   * start to blur. 0 (at most 1e-6) passes the frame through unchanged,
   * as OpenCV 5.0's bilateralFilter does. Not used in mode=gaussian. For
   * samples of more than 8 bits it is scaled by (2^bits - 1) / 255 inside,
   * so that one value looks the same at every depth.
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_SIGMA_COLOR,
      g_param_spec_double ("sigma-color", "Sigma color",
          "Range sigma in 8-bit levels, 0 to 1000 (0 passes the frame "
          "through), scaled to the samples' depth for 10- to 16-bit formats: "
          "colour differences well above it are not averaged, so edges "
          "stay; not used in mode=gaussian", 0.0,
          MAX_SIGMA_COLOR, DEFAULT_SIGMA_COLOR, live));
  /**
   * GstCudaBilateral:sigma-space:
   *
   * Spatial sigma in pixels, from 0 to 200: how quickly a neighbour's
   * weight falls with its distance. With diameter -1 or 0 it also sets the
   * window (radius round (1.5 * sigma-space)). 0 (at most 1e-6) passes the
   * frame through unchanged in mode=bilateral, as OpenCV 5.0's
   * bilateralFilter does (chroma of subsampled formats by its own, halved
   * sigma-space); in mode=gaussian 0 acts as 1, or with a diameter > 0
   * OpenCV derives the sigma from the kernel size.
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_SIGMA_SPACE,
      g_param_spec_double ("sigma-space", "Sigma space",
          "Spatial sigma in pixels, 0 to 200 (0 passes the frame through in "
          "mode=bilateral): how fast a "
          "neighbour's weight falls with distance; sets the window when "
          "diameter is -1 or 0", 0.0, MAX_SIGMA_SPACE,
          DEFAULT_SIGMA_SPACE, live));

  /**
   * GstCudaBilateral:mode:
   *
   * bilateral (default): the edge-preserving filter. gaussian: the range
   * weight is off and the output is OpenCV's GaussianBlur with kernel size
   * diameter (an even one is taken as the next odd number; <= 0 derives it
   * from sigma-space as cvRound (6 sigma-space + 1), made odd) and sigma
   * sigma-space (<= 0 with diameter > 0: OpenCV derives it from the size);
   * sigma-color is not used. Chroma of subsampled YUV takes the same
   * scaled parameters as in bilateral mode. Gaussian mode costs a few
   * taps per pixel per unit of diameter, far less than bilateral.
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "The filter: bilateral (edge-preserving, OpenCV's bilateralFilter) "
          "or gaussian (range weight off: OpenCV's GaussianBlur, kernel size "
          "diameter, sigma sigma-space)",
          GST_TYPE_CUDA_BILATERAL_MODE, DEFAULT_MODE, live));
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BILATERAL_MODE, 0);
  /**
   * GstCudaBilateral:method:
   *
   * exact (default): OpenCV's bilateralFilter within ±1, whose cost grows
   * with the square of the window. grid: the bilateral grid (Chen, Paris &
   * Durand 2007), an approximation whose cost per pixel does not depend on
   * the window (docs/kernels.md defines it exactly), meant for sigma-space
   * >= 8; diameter is not used. Ignored in mode=gaussian.
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "How mode=bilateral is computed: exact (OpenCV's bilateralFilter, "
          "cost grows with the window's area) or grid (bilateral grid "
          "approximation, cost independent of the window; for sigma-space "
          ">= 8; diameter not used)",
          GST_TYPE_CUDA_BILATERAL_METHOD, DEFAULT_METHOD, live));
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BILATERAL_METHOD, 0);
  /**
   * GstCudaBilateral:temporal-strength:
   *
   * The temporal filter's gain a, 0 (off, the default) to 0.95: output
   * Y = B + a g (Y_prev - B), B the spatial result, Y_prev the previous
   * output, g = exp (-D^2 / (2 temporal-sigma^2)), D = |B - Y_prev| (summed
   * over the colour channels of RGB and Y444). One frame of state on the
   * GPU, no frame held back; it starts again after a flush, a new stream,
   * a segment other than the one in force, new caps or a discontinuity,
   * and for a plane once filter-luma or filter-chroma turns it on again.
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_TEMPORAL_STRENGTH,
      g_param_spec_double ("temporal-strength", "Temporal strength",
          "How far each pixel moves towards the previous output frame where "
          "the two are close (temporal denoising, no added latency), 0 to "
          "0.95; 0: off", 0.0, CBF_PARAMS_TEMPORAL_STRENGTH_MAX,
          DEFAULT_TEMPORAL_STRENGTH, live));
  /**
   * GstCudaBilateral:temporal-sigma:
   *
   * The temporal filter's gate in 8-bit levels, scaled to the samples'
   * depth as sigma-color is: a change from the previous output well above
   * it counts as motion and passes within one frame (user guide).
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_TEMPORAL_SIGMA,
      g_param_spec_double ("temporal-sigma", "Temporal sigma",
          "Changes from the previous output well above this (in 8-bit "
          "levels) count as motion and are not averaged", MIN_TEMPORAL_SIGMA,
          MAX_SIGMA_COLOR, DEFAULT_TEMPORAL_SIGMA, live));
  /**
   * GstCudaBilateral:temporal-motion:
   *
   * none (default): the temporal filter reads the previous output at the
   * same pixel, so that it averages only where the picture holds still.
   * compensated: it reads the previous output warped along the motion
   * found from the current frame (block matching on luma, sub-pixel,
   * on the GPU; RGB's luma is (R + 2 G + B) / 4), gates on the 3 x 3 mean
   * of the difference, and starts again at a scene cut, which
   * #GstCudaBilateral:scene-cuts counts and a "cudabilateral-scene-cut"
   * element message announces. temporal-sigma also sets how much noise
   * the motion search expects. A frame of system memory then waits for
   * all of its upload before its first band is filtered. Chroma follows
   * luma's motion: with filter-luma=false there is none to follow, and
   * chroma is filtered in space alone.
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_TEMPORAL_MOTION,
      g_param_spec_enum ("temporal-motion", "Temporal motion",
          "What the temporal filter follows: none (the same pixel of the "
          "previous output) or compensated (the previous output moved along "
          "the motion found in the video, reset at scene cuts)",
          GST_TYPE_CUDA_BILATERAL_TEMPORAL_MOTION, DEFAULT_TEMPORAL_MOTION,
          live));
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BILATERAL_TEMPORAL_MOTION, 0);
  /**
   * GstCudaBilateral:noise-sigma:
   *
   * The noise of the video as a standard deviation in 8-bit levels, from
   * which the element sets sigma-color to 2.5 x it and temporal-sigma to
   * 1.38 x it - 1.5 (at least 0.5), replacing theirs; -1: measured from
   * the frames (Immerkaer's estimator on luma over the flattest half of
   * each frame, averaged over frames; read it in
   * #GstCudaBilateral:measured-noise-sigma), the settings following it
   * from the next frame; -2 (default, and any other value below 0): not
   * used, sigma-color and temporal-sigma as set.
   */
  g_object_class_install_property (klass,
      first_id + CBF_FILTER_PROP_NOISE_SIGMA,
      g_param_spec_double ("noise-sigma", "Noise sigma",
          "The video's noise (standard deviation, 8-bit levels), which then "
          "sets sigma-color (2.5 x) and temporal-sigma (1.38 x - 1.5); -1: "
          "measured from the video; -2: not used", NOISE_SIGMA_UNSET,
          MAX_NOISE_SIGMA, DEFAULT_NOISE_SIGMA, live));
}

void
cbf_filter_props_set (CbfParams * params, guint id, const GValue * value)
{
  switch (id) {
    case CBF_FILTER_PROP_DIAMETER:
      params->diameter = g_value_get_int (value);
      break;
    case CBF_FILTER_PROP_SIGMA_COLOR:
      params->sigma_color = g_value_get_double (value);
      break;
    case CBF_FILTER_PROP_SIGMA_SPACE:
      params->sigma_space = g_value_get_double (value);
      break;
    case CBF_FILTER_PROP_MODE:
      params->mode = g_value_get_enum (value);
      break;
    case CBF_FILTER_PROP_METHOD:
      params->method = g_value_get_enum (value);
      break;
    case CBF_FILTER_PROP_TEMPORAL_STRENGTH:
      params->temporal_strength = g_value_get_double (value);
      break;
    case CBF_FILTER_PROP_TEMPORAL_SIGMA:
      params->temporal_sigma = g_value_get_double (value);
      break;
    case CBF_FILTER_PROP_TEMPORAL_MOTION:
      params->temporal_motion = g_value_get_enum (value);
      break;
    case CBF_FILTER_PROP_NOISE_SIGMA:
      params->noise_sigma = g_value_get_double (value);
      params->noise = params->noise_sigma >= 0 ? CBF_NOISE_GIVEN :
          params->noise_sigma == NOISE_SIGMA_MEASURED ?
          CBF_NOISE_MEASURED : CBF_NOISE_UNSET;
      break;
  }
}

void
cbf_filter_props_get (const CbfParams * params, guint id, GValue * value)
{
  switch (id) {
    case CBF_FILTER_PROP_DIAMETER:
      g_value_set_int (value, params->diameter);
      break;
    case CBF_FILTER_PROP_SIGMA_COLOR:
      g_value_set_double (value, params->sigma_color);
      break;
    case CBF_FILTER_PROP_SIGMA_SPACE:
      g_value_set_double (value, params->sigma_space);
      break;
    case CBF_FILTER_PROP_MODE:
      g_value_set_enum (value, params->mode);
      break;
    case CBF_FILTER_PROP_METHOD:
      g_value_set_enum (value, params->method);
      break;
    case CBF_FILTER_PROP_TEMPORAL_STRENGTH:
      g_value_set_double (value, params->temporal_strength);
      break;
    case CBF_FILTER_PROP_TEMPORAL_SIGMA:
      g_value_set_double (value, params->temporal_sigma);
      break;
    case CBF_FILTER_PROP_TEMPORAL_MOTION:
      g_value_set_enum (value, params->temporal_motion);
      break;
    case CBF_FILTER_PROP_NOISE_SIGMA:
      g_value_set_double (value, params->noise_sigma);
      break;
  }
}
