/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCbfFilter's allocation, owned here: the pool of pinned buffers offered
 * upstream and the pinned memory output goes into where downstream allows;
 * for frames in CUDA memory, the CUDA pools of the element's context (and
 * the taller pools NV21 of odd height needs). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cbfallocation.h"

#if CBF_HAVE_CUDA_MEMORY
#include <gst/cuda/gstcudabufferpool.h>
#endif

#define GST_CAT_DEFAULT gst_cbf_filter_debug

/* Buffers at most in the pinned pool offered upstream: page-locked memory
 * is taken from what the whole system can page, so it is bounded; an
 * upstream that needs more keeps a pool of its own (then its frames are
 * staged). */
#define MAX_PINNED_POOL_BUFFERS 16

gboolean
cbf_caps_are_cuda_memory (G_GNUC_UNUSED GstCaps * caps)
{
#if CBF_HAVE_CUDA_MEMORY
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  return FALSE;
#endif
}

static GstBufferPool *
new_pinned_pool (GstAllocator * allocator, GstCaps * caps, guint size)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, 0,
      MAX_PINNED_POOL_BUFFERS);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

#if CBF_HAVE_CUDA_MEMORY
/* Since 1.24: buffers of a CUDA pool the element configures are on its
 * memory stream, unless the pool has a stream already (downstream's). */
static void
config_set_stream (G_GNUC_UNUSED CbfDevice * dev,
    G_GNUC_UNUSED GstStructure * config)
{
#if CBF_HAVE_CUDA_STREAMS
  GstCudaStream *stream = gst_buffer_pool_config_get_cuda_stream (config);

  if (stream)
    gst_cuda_stream_unref (stream);
  else if (dev->cuda_stream)
    gst_buffer_pool_config_set_cuda_stream (config, dev->cuda_stream);
#endif
}

/* The caps a CUDA pool is configured with for frames of @caps. GStreamer's
 * CUDA allocator (1.24 and later) rounds the height of NV12 up to even
 * before it sizes the chroma plane but not that of NV21, which it leaves
 * one chroma row short at odd heights; such pools are asked for one row
 * more, which their buffers' video meta then describes (a frame larger than
 * the caps' is a valid layout). */
static GstCaps *
cuda_pool_caps (GstCaps * caps)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps) ||
      GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_NV21 ||
      GST_VIDEO_INFO_HEIGHT (&info) % 2 == 0)
    return gst_caps_ref (caps);
  caps = gst_caps_copy (caps);
  gst_caps_set_simple (caps, "height", G_TYPE_INT,
      GST_VIDEO_INFO_HEIGHT (&info) + 1, NULL);
  return caps;
}

/* Configures @config of a CUDA pool for frames of @caps. */
static void
config_set_cuda_params (CbfDevice * dev, GstStructure * config,
    GstCaps * caps, guint size, guint min, guint max)
{
  GstCaps *pool_caps = cuda_pool_caps (caps);

  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, pool_caps, size, min, max);
  config_set_stream (dev, config);
  gst_caps_unref (pool_caps);
}

/* GstBaseTransform configures the output pool again with the caps
 * themselves; where they need a taller pool (cuda_pool_caps), it is
 * configured once more. */
static gboolean
keep_cuda_pool_caps (CbfDevice * dev, GstQuery * query, GstCaps * caps)
{
  GstCaps *pool_caps = cuda_pool_caps (caps);
  GstBufferPool *pool = NULL;
  gboolean ok = TRUE;

  if (pool_caps != caps && gst_query_get_n_allocation_pools (query) > 0) {
    guint size, min, max;

    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool) {
      GstStructure *config = gst_buffer_pool_get_config (pool);

      config_set_cuda_params (dev, config, caps, size, min, max);
      ok = gst_buffer_pool_set_config (pool, config);
      gst_object_unref (pool);
    }
  }
  gst_caps_unref (pool_caps);
  return ok;
}

/* A pool of GstCudaMemory of the element's context (pitched device
 * memory, with video meta), or NULL. */
static GstBufferPool *
new_cuda_pool (CbfDevice * dev, GstCaps * caps, guint size,
    guint min, guint max)
{
  GstBufferPool *pool;
  GstStructure *config;

  if (!dev->context)
    return NULL;
  pool = gst_cuda_buffer_pool_new (dev->context);
  config = gst_buffer_pool_get_config (pool);
  config_set_cuda_params (dev, config, caps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* The buffer size a configured pool settled on (pitched planes make CUDA
 * buffers larger than the caps' size). */
static guint
pool_buffer_size (GstBufferPool * pool)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint size = 0;

  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  return size;
}

/* Output into a CUDA pool of our context: downstream's if it offers one,
 * else our own. */
static gboolean
decide_cuda_allocation (GstBaseTransform * trans, CbfDevice * dev,
    GstQuery * query, CbfDecideAllocation parent_decide)
{
  GstBufferPool *pool = NULL;
  GstCaps *caps = NULL;
  GstVideoInfo info;
  guint size = 0, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  size = info.size;
  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
            GST_CUDA_BUFFER_POOL (pool)->context != dev->context))
      gst_clear_object (&pool);
  }
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);

    config_set_cuda_params (dev, config, caps, size, min, max);
    if (!gst_buffer_pool_set_config (pool, config))
      gst_clear_object (&pool);
  }
  if (!pool)
    pool = new_cuda_pool (dev, caps, size, min, max);
  if (!pool)
    return FALSE;
  size = pool_buffer_size (pool);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  GST_DEBUG_OBJECT (trans, "output into CUDA memory");
  return parent_decide (trans, query) && keep_cuda_pool_caps (dev, query, caps);
}
#endif

gboolean
cbf_propose_allocation (CbfDevice * dev, GstQuery * query)
{
  GstAllocator *pinned = dev->pinned_allocator;
  GstCaps *caps;
  GstVideoInfo info;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

#if CBF_HAVE_CUDA_MEMORY
  if (cbf_caps_are_cuda_memory (caps)) {
    if (gst_query_get_n_allocation_pools (query) == 0) {
      GstBufferPool *pool = new_cuda_pool (dev, caps, info.size, 0, 0);
      guint size;

      if (!pool)
        return FALSE;
      size = pool_buffer_size (pool);
      gst_query_add_allocation_pool (query, pool, size, 0, 0);
      gst_object_unref (pool);
    }
  } else
#endif
  if (pinned && gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = need_pool ? new_pinned_pool (pinned, caps,
        info.size) : NULL;

    gst_query_add_allocation_param (query, pinned, NULL);
    gst_query_add_allocation_pool (query, pool, info.size, 0,
        MAX_PINNED_POOL_BUFFERS);
    if (pool)
      gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

static gboolean
allocator_is_system_memory (GstAllocator * allocator)
{
  return allocator == NULL ||
      g_strcmp0 (allocator->mem_type, GST_ALLOCATOR_SYSMEM) == 0;
}

/* Whether downstream's system-memory @pool serves a purpose of its own: a
 * pool type of its own, or a video pool whose buffers it asked to be
 * padded (GstVideoAlignment). Else it is replaced by pinned memory. */
static gboolean
pool_is_downstreams_own (GstBufferPool * pool, GstStructure * config)
{
  return !g_type_is_a (G_OBJECT_TYPE (pool), GST_TYPE_VIDEO_BUFFER_POOL) ||
      gst_buffer_pool_config_has_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
}

gboolean
cbf_decide_allocation (GstBaseTransform * trans, CbfDevice * dev,
    G_GNUC_UNUSED gboolean cuda_memory, GstQuery * query,
    CbfDecideAllocation parent_decide)
{
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean keep_downstream = FALSE;

#if CBF_HAVE_CUDA_MEMORY
  if (cuda_memory)
    return decide_cuda_allocation (trans, dev, query, parent_decide);
#endif

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool) {
      GstStructure *config = gst_buffer_pool_get_config (pool);
      GstAllocator *pool_allocator = NULL;

      gst_buffer_pool_config_get_allocator (config, &pool_allocator, NULL);
      keep_downstream = !allocator_is_system_memory (pool_allocator) ||
          pool_is_downstreams_own (pool, config);
      gst_structure_free (config);
    }
  }
  if (!keep_downstream && gst_query_get_n_allocation_params (query) > 0) {
    gst_query_parse_nth_allocation_param (query, 0, &allocator, NULL);
    keep_downstream = !allocator_is_system_memory (allocator);
    if (allocator)
      gst_object_unref (allocator);
  }

  if (!keep_downstream) {
    GstAllocator *pinned = dev->pinned_allocator;

    /* A NULL pool makes GstVideoFilter create a video pool, which the base
     * class configures with the first allocation param: ours. */
    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_set_nth_allocation_pool (query, 0, NULL, size, min, max);
    if (gst_query_get_n_allocation_params (query) > 0)
      gst_query_set_nth_allocation_param (query, 0, pinned, NULL);
    else
      gst_query_add_allocation_param (query, pinned, NULL);
  }
  GST_DEBUG_OBJECT (trans, "output into %s memory",
      keep_downstream ? "downstream's" : "pinned");
  if (pool)
    gst_object_unref (pool);

  return parent_decide (trans, query);
}
