/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral's properties of the filter itself: diameter, sigma-color,
 * sigma-space, mode, method, temporal-strength, temporal-sigma,
 * temporal-motion and noise-sigma, kept in the engine's CbfParams. The
 * element installs them from an id on and passes their ids, less that
 * one, here; the caller holds the object lock. */

#ifndef __CBF_FILTER_PROPS_H__
#define __CBF_FILTER_PROPS_H__

#include <gst/gst.h>

#include "cbfengine.h"

G_BEGIN_DECLS

enum
{
  CBF_FILTER_PROP_DIAMETER,
  CBF_FILTER_PROP_SIGMA_COLOR,
  CBF_FILTER_PROP_SIGMA_SPACE,
  CBF_FILTER_PROP_MODE,
  CBF_FILTER_PROP_METHOD,
  CBF_FILTER_PROP_TEMPORAL_STRENGTH,
  CBF_FILTER_PROP_TEMPORAL_SIGMA,
  CBF_FILTER_PROP_TEMPORAL_MOTION,
  CBF_FILTER_PROP_NOISE_SIGMA,
  CBF_FILTER_N_PROPS
};

/* The properties' defaults into @params. */
void cbf_filter_props_init (CbfParams * params);

void cbf_filter_props_install (GObjectClass * klass, guint first_id);
void cbf_filter_props_set (CbfParams * params, guint id, const GValue * value);
void cbf_filter_props_get (const CbfParams * params, guint id, GValue * value);

G_END_DECLS

#endif /* __CBF_FILTER_PROPS_H__ */
