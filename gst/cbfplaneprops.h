/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* cudabilateral's properties of planes and borders: filter-chroma,
 * filter-luma, chroma-diameter, chroma-sigma-color, chroma-sigma-space,
 * chroma-guide, border and border-value, kept in the engine's CbfParams. The element
 * installs them from an id on and passes their ids, less that one, here;
 * the caller holds the object lock. */

#ifndef __CBF_PLANE_PROPS_H__
#define __CBF_PLANE_PROPS_H__

#include <gst/gst.h>

#include "cbfengine.h"

G_BEGIN_DECLS

enum
{
  CBF_PLANE_PROP_FILTER_CHROMA,
  CBF_PLANE_PROP_FILTER_LUMA,
  CBF_PLANE_PROP_CHROMA_DIAMETER,
  CBF_PLANE_PROP_CHROMA_SIGMA_COLOR,
  CBF_PLANE_PROP_CHROMA_SIGMA_SPACE,
  CBF_PLANE_PROP_CHROMA_GUIDE,
  CBF_PLANE_PROP_BORDER,
  CBF_PLANE_PROP_BORDER_VALUE,
  CBF_PLANE_N_PROPS
};

#define GST_TYPE_CUDA_BILATERAL_BORDER (gst_cuda_bilateral_border_get_type ())
GType gst_cuda_bilateral_border_get_type (void);
#define GST_TYPE_CUDA_BILATERAL_CHROMA_GUIDE \
  (gst_cuda_bilateral_chroma_guide_get_type ())
GType gst_cuda_bilateral_chroma_guide_get_type (void);

/* The properties' defaults into @params. */
void cbf_plane_props_init (CbfParams * params);

void cbf_plane_props_install (GObjectClass * klass, guint first_id);
void cbf_plane_props_set (CbfParams * params, guint id, const GValue * value);
void cbf_plane_props_get (const CbfParams * params, guint id, GValue * value);

G_END_DECLS

#endif /* __CBF_PLANE_PROPS_H__ */
