/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The mask loader's check of a picture's data (cbfmaskpicture.c); its probe
 * of type and size is cbf_mask_picture_probe (cbfmaskloader.h). */

#ifndef __CBF_MASK_PICTURE_H__
#define __CBF_MASK_PICTURE_H__

#include "cbfmaskloader.h"

G_BEGIN_DECLS

/* Whether the @picture's data holds the whole of it, as its decoder can
 * tell: the GStreamer decoders do not say, and give what is missing made
 * up (pngdec) or as gray (jpegdec). */
gboolean cbf_mask_picture_whole (GBytes * picture, CbfMaskPicture type,
    GError ** error);

G_END_DECLS

#endif /* __CBF_MASK_PICTURE_H__ */
