/* gst-cudabilateral benchmark: the probes that time frames into and out
 * of a pipeline (bench.h's Probe). */

#include "bench.h"

/* Room for the times of the frames with offsets 0 to @capacity - 1. */
void
probe_init (Probe * p, int capacity)
{
  memset (p, 0, sizeof (*p));
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->capacity = capacity;
  p->t_in = g_new0 (gint64, capacity);
  p->t_out = g_new0 (gint64, capacity);
  p->mem_in = g_new0 (gconstpointer, capacity);
  p->mem_out = g_new0 (gconstpointer, capacity);
}

void
probe_clear (Probe * p)
{
  g_free (p->t_in);
  g_free (p->t_out);
  g_free (p->mem_in);
  g_free (p->mem_out);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
}

/* Notes when the frame numbered by the buffer's offset passed, and in
 * which memory. */
void
record_time (Probe * p, GstBuffer * buf, gint64 * times, gconstpointer * mems)
{
  guint64 i = GST_BUFFER_OFFSET (buf);
  if (i < (guint64) p->capacity) {
    times[i] = g_get_monotonic_time ();
    mems[i] = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0) :
        NULL;
  }
}

GstPadProbeReturn
probe_in (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  record_time (p, GST_PAD_PROBE_INFO_BUFFER (info), p->t_in, p->mem_in);
  return GST_PAD_PROBE_OK;
}

/* One more frame out (wakes wait_frames). */
void
count_out (Probe * p)
{
  g_mutex_lock (&p->lock);
  p->n_out++;
  g_cond_signal (&p->cond);
  g_mutex_unlock (&p->lock);
}

/* Waits until @buf's pixels can be read, as its reader would: the
 * element may push a frame while the GPU still writes it. Output in CUDA
 * memory counts once its GPU work is done (since GStreamer 1.24 it may
 * leave the element with that work pending on its stream, which whatever
 * reads it next waits for); other memory once it maps. */
void
wait_output_ready (GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_n_memory (buf) ?
      gst_buffer_peek_memory (buf, 0) : NULL;
  GstMapInfo map;

  if (!mem)
    return;
#if CBF_HAVE_CUDA_MEMORY
  if (gst_is_cuda_memory (mem)) {
#if GST_CHECK_VERSION (1, 24, 0)
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
    return;
  }
#endif
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    fprintf (stderr, "an output buffer does not map\n");
    exit (1);
  }
  gst_buffer_unmap (buf, &map);
}

/* A frame out once readable, read in the streaming thread (a sink's or an
 * encoder's own chain function without a queue before it). */
GstPadProbeReturn
probe_out (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  wait_output_ready (buf);
  record_time (p, buf, p->t_out, p->mem_out);
  count_out (p);
  return GST_PAD_PROBE_OK;
}
