/* gst-cudabilateral test support for the tests that need a GPU. */

#include "gpu_support.h"
#include "bilateral.h"

#include <gst/check/gstcheck.h>
#include <gst/base/gstbasetransform.h>

gboolean
gpu_test_have_device (void)
{
  cudaError_t err;

  if (cbf_cuda_device_count (&err) <= 0) {
    g_print ("SKIP: no CUDA device (%s)\n", cudaGetErrorString (err));
    return FALSE;
  }
  g_setenv ("CK_FORK", "no", TRUE);
  return TRUE;
}

void
gpu_test_poison_output_pool (GstElement * element)
{
  GstBufferPool *pool =
      gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (element));
  GstBuffer *bufs[4];
  guint i;

  fail_unless (pool != NULL, "no output pool after negotiation");
  /* The element activates it at its first frame; activating it earlier is
   * the same. */
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < G_N_ELEMENTS (bufs); i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            NULL), GST_FLOW_OK);
    gst_buffer_memset (bufs[i], 0, 0xcd, gst_buffer_get_size (bufs[i]));
  }
  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    gst_buffer_unref (bufs[i]);
  gst_object_unref (pool);
}
