/* gst-cudabilateral test support for the tests that need a GPU. */

#ifndef CBF_TEST_GPU_SUPPORT_H
#define CBF_TEST_GPU_SUPPORT_H

#include <gst/gst.h>

/* Whether a CUDA device is usable; if not, says why (the caller then exits
 * 77, "skipped"). If so, makes check run the tests in this process: CUDA
 * does not survive fork (). */
gboolean gpu_test_have_device (void);

/* Fills the output pool of @element (a negotiated GstBaseTransform) with
 * poison, so that a byte the element does not write shows up as a
 * mismatch. */
void gpu_test_poison_output_pool (GstElement * element);

#endif
