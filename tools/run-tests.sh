#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test, and end
# with one line "N passed, N failed, N skipped (N checks run, N failed)".
# Tests that need a GPU skip (exit 77) where there is none.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh || exit 1
tools/build.sh || exit 1
# The CUDA toolkit for build-asan as for build, on PATH or not.
. tools/cuda-env.sh
# build-asan compiles its kernels as build does, so that it takes build's
# objects from this cache (tools/nvcc-cache.py) rather than compile them
# again: build fills it where it does not hold them yet.
export CBF_KERNEL_CACHE=${CBF_KERNEL_CACHE:-$PWD/build/kernel-cache}
# Objects no build has taken for a month are of kernels long changed.
find "$CBF_KERNEL_CACHE" -name '*.o' -mtime +30 -delete 2>/dev/null
meson test -C build --print-errorlogs --num-processes 1
status=$?
# The tests that need no GPU, again under valgrind and the sanitizers: the
# kernels' tables against the reference, the element without a
# device, the copier's threads, the mask file parser (the files it reads
# are untrusted) and the loader's rules, the page-locking rules, the host
# frames' mapping and checks and the regions read from metadata (boxes and
# segmentation masks).
cpu_tests=(kernel_tables element element-no-visible-gpu copier mask_file
  mask_loader hostregister hostframe regions region_cells)
# Under valgrind: errors and definite leaks fail. The reference (test code:
# its oracle is OpenCV's golden files) only under the sanitizers below,
# where it takes a tenth of valgrind's two minutes.
rm -f build/meson-logs/testlog-valgrind.json
if command -v valgrind >/dev/null; then
  meson test -C build --setup valgrind --print-errorlogs --num-processes 1 \
    "${cpu_tests[@]}" || status=1
fi
# And built with AddressSanitizer and UBSan, for build's GPU architectures
# (its kernel objects from the cache: nvcc's are not instrumented). The
# system plugins are scanned first by the normal plugin scanner, so that
# only ours is loaded in-process.
rm -f build-asan/meson-logs/testlog-sanitizers.json
[ -f build-asan/build.ninja ] ||
  echo "Building build-asan, the sanitizer build (the first time takes minutes)"
if archs=$(cbf_gpu_archs build) &&
  cbf_build build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dgpu_arch="$archs"; then
  GST_REGISTRY_1_0=$PWD/build-asan/tests/registry.bin gst-inspect-1.0 \
    coreelements >/dev/null 2>&1 || true
  meson test -C build-asan --setup sanitizers --print-errorlogs \
    --num-processes 1 reference "${cpu_tests[@]}" || status=1
else
  echo "error: the sanitizer build failed" >&2; status=1
fi
python3 tools/count-tests.py build/meson-logs/testlog.json \
  build/meson-logs/testlog-valgrind.json \
  build-asan/meson-logs/testlog-sanitizers.json
exit $status
