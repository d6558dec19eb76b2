#!/bin/sh
# Builds libcbf-trace.so (cbf-trace.c) into DIR (default: this folder)
# against the CUPTI it finds: $CUPTI, the toolkit's extras/CUPTI, or the
# nvidia-cuda-cupti wheel of python3. Prints the library's path and the
# LD_LIBRARY_PATH it needs.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here}
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ -z "$CUPTI" ]; then
  for d in "$cuda/extras/CUPTI" $(python3 -c 'import nvidia, os; [print(os.path.join(p, s)) for p in nvidia.__path__ for s in ("cu13", "cuda_cupti")]' 2>/dev/null); do
    if [ -f "$d/include/cupti.h" ]; then CUPTI=$d; break; fi
  done
fi
[ -n "$CUPTI" ] || { echo "cbf-trace: no CUPTI found (set CUPTI)" >&2; exit 1; }
libfile=$(find "$CUPTI" -name "libcupti.so*" | sort | head -n 1)
lib=$(dirname "$libfile")
newest () { grep -o "CUpti_Activity$1[0-9]*" "$CUPTI"/include/cupti_activity.h | sort -V | tail -n 1; }
cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$dest/libcbf-trace.so" \
  -DCBF_TRACE_MEMCPY="$(newest Memcpy)" -DCBF_TRACE_KERNEL="$(newest Kernel)" \
  "$here/cbf-trace.c" -I"$CUPTI/include" -I"$cuda/include" "$libfile" \
  -Wl,-rpath,"$lib"
echo "$dest/libcbf-trace.so"
