/* gst-cudabilateral
 * Copyright (C) 2026 gst-cudabilateral authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A timeline of a program's CUDA work, for a machine without Nsight
 * Systems: preloaded (LD_PRELOAD), it records through CUPTI's activity API
 * every copy and kernel as the GPU ran it, and every driver call as the
 * host made it, and writes them as CSV to $CBF_TRACE_OUT at exit
 * (timeline.py reads it). Nothing in the traced program changes; the
 * driver calls are recorded whether the program links the runtime
 * statically (the plugin does) or not.
 *
 * Build with build.sh beside this file (CUPTI's headers and library from
 * the toolkit's extras/CUPTI or the nvidia-cuda-cupti wheel).
 *
 * CSV columns: what (copy, kernel, api), name (copy direction, kernel or
 * driver call), start and end (ns, one clock for host and GPU), stream,
 * bytes (copies), correlation (links a call to the work it enqueued),
 * thread (api rows). */

#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The newest record versions of the CUPTI in hand (build.sh reads them
 * from its header): the fields read here are in every version. */
#ifndef CBF_TRACE_MEMCPY
#define CBF_TRACE_MEMCPY CUpti_ActivityMemcpy6
#endif
#ifndef CBF_TRACE_KERNEL
#define CBF_TRACE_KERNEL CUpti_ActivityKernel11
#endif

/* Each buffer CUPTI fills before handing it back; 8 MiB holds some 50,000
 * records, so that a benchmark row of a few hundred frames costs a handful
 * of hand-backs. */
#define BUFFER_BYTES (8u << 20)

static FILE *out;

static void
check (CUptiResult res, const char *what)
{
  const char *text = NULL;

  if (res == CUPTI_SUCCESS)
    return;
  cuptiGetResultString (res, &text);
  fprintf (stderr, "cbf-trace: %s: %s\n", what, text ? text : "?");
  exit (1);
}

static const char *
copy_kind (unsigned kind)
{
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    default:
      return "other";
  }
}

static void CUPTIAPI
buffer_requested (uint8_t ** buffer, size_t *size, size_t *max_records)
{
  *buffer = aligned_alloc (ACTIVITY_RECORD_ALIGNMENT, BUFFER_BYTES);
  *size = *buffer ? BUFFER_BYTES : 0;
  *max_records = 0;
}

static void
write_record (const CUpti_Activity * record)
{
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY:{
      const CBF_TRACE_MEMCPY *m = (const CBF_TRACE_MEMCPY *) record;
      fprintf (out, "copy,%s,%llu,%llu,%u,%llu,%u,\n", copy_kind (m->copyKind),
          (unsigned long long) m->start, (unsigned long long) m->end,
          m->streamId, (unsigned long long) m->bytes, m->correlationId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:{
      const CBF_TRACE_KERNEL *k = (const CBF_TRACE_KERNEL *) record;
      /* Only the kernel's short name: its template arguments hold commas. */
      const char *name = k->name ? k->name : "?";
      size_t len = strcspn (name, "<(,");
      fprintf (out, "kernel,%.*s,%llu,%llu,%u,,%u,\n", (int) len, name,
          (unsigned long long) k->start, (unsigned long long) k->end,
          k->streamId, k->correlationId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:{
      const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *) record;
      const char *name = NULL;
      cuptiGetCallbackName (CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &name);
      fprintf (out, "api,%s,%llu,%llu,,,%u,%u\n", name ? name : "?",
          (unsigned long long) a->start, (unsigned long long) a->end,
          a->correlationId, a->threadId);
      break;
    }
    default:
      break;
  }
}

static void CUPTIAPI
buffer_completed (CUcontext ctx, uint32_t stream, uint8_t * buffer,
    size_t size, size_t valid)
{
  CUpti_Activity *record = NULL;

  (void) ctx;
  (void) stream;
  (void) size;
  while (cuptiActivityGetNextRecord (buffer, valid, &record) == CUPTI_SUCCESS)
    write_record (record);
  free (buffer);
}

static void
finish (void)
{
  cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (out)
    fclose (out);
  out = NULL;
}

__attribute__((constructor))
     static void start (void)
{
  const char *path = getenv ("CBF_TRACE_OUT");

  out = fopen (path ? path : "cbf-trace.csv", "w");
  if (!out) {
    perror ("cbf-trace");
    exit (1);
  }
  fprintf (out, "what,name,start,end,stream,bytes,correlation,thread\n");
  check (cuptiActivityRegisterCallbacks (buffer_requested, buffer_completed),
      "registering the buffers");
  check (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMCPY), "copies");
  check (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
      "kernels");
  check (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_DRIVER), "driver calls");
  atexit (finish);
}
