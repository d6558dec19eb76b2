/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What the frame plan's two files share: cbfframeplan.c (the plan, the
 * frame's run) and cbfregionwindows.c (the regions filtered in windows).
 * Not for any other file. */

#ifndef __CBF_FRAME_PLAN_PRIVATE_H__
#define __CBF_FRAME_PLAN_PRIVATE_H__

#include "cbfframeplan.h"

G_BEGIN_DECLS

/* The rows of a plane of @height in the band [@row_begin, @row_end) of
 * plane 0 (see cbf_frame_plan_run). */
void cbf_plan_band_rows (gint height, const CbfPlane * in, gint row_begin,
    gint row_end, gint * begin, gint * end);

/* Whether @pass takes its range weights from @run's guide: the
 * bilateral filter's chroma pairs, with a guide. */
gboolean cbf_plan_pass_guided (const CbfPass * pass, const CbfGroupRun * run);

/* Makes @run's guide for @pass from the input's luma (the plan's first
 * pass), for the rows of the band [@begin, @end) of @pass and the @radius
 * rows its windows reach above and below; with the wrapping border, whose
 * windows read the far edge's rows too (a band of a one-plane format then
 * has every row uploaded: cbf_engine_prepare's halo), for every row. */
cudaError_t cbf_plan_make_guide (const CbfFramePlan * plan,
    const CbfPass * pass, const CbfGroupRun * run, gint radius,
    const CbfPlane * in, gint begin, gint end, cudaStream_t stream);

/* cbf_frame_plan_run's regions filtered in windows (CbfRegionRun, not
 * whole). */
cudaError_t cbf_plan_run_windows (const CbfFramePlan * plan,
    const CbfGroupRun * luma, const CbfGroupRun * chroma,
    const CbfRegionRun * regions, const CbfPlane * in, const CbfPlane * out,
    gint row_begin, gint row_end, cudaStream_t stream);

G_END_DECLS

#endif /* __CBF_FRAME_PLAN_PRIVATE_H__ */
