#!/usr/bin/env bash
# gpu_arch=auto (meson.build) against what nvidia-smi can say, without a
# GPU: a fake nvidia-smi first on PATH, the project configured anew for
# each case, and the -gencode flags of the build it writes compared with
# the architectures the case must give. Cases: two kinds of GPU, one of
# them twice (each once, in nvidia-smi's order); a GPU older than the
# oldest supported and one reported "[N/A]" (every supported one, the old
# GPU named in a warning); nvidia-smi failing (every supported one).
# Arguments: meson, the project's source directory.
set -uo pipefail
meson=$1 source=$2
# A machine that runs the built tests without the build tools (a GPU
# machine given the build directory) cannot configure: skipped.
for tool in "$meson" nvcc; do
  command -v "$tool" >/dev/null || {
    echo "SKIP: no $tool here to configure the project with"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
all="75 80 86 89 90"
failed=0

# case NAME EXPECTED NVIDIA-SMI-BODY: EXPECTED, the sm_ numbers in order.
case_ () {
  local name=$1 expected=$2 body=$3 got
  mkdir -p "$work/$name/bin"
  printf '#!/bin/sh\n%s\n' "$body" >"$work/$name/bin/nvidia-smi"
  chmod +x "$work/$name/bin/nvidia-smi"
  if ! PATH="$work/$name/bin:$PATH" "$meson" setup "$work/$name/build" \
    "$source" -Dgpu_arch=auto -Dtests=disabled -Dexamples=disabled \
    >"$work/$name/log" 2>&1; then
    echo "FAIL $name: meson setup failed"; tail -n 20 "$work/$name/log"
    failed=1; return
  fi
  got=$(grep -o 'arch=compute_[0-9]*,code=sm_[0-9]*' \
    "$work/$name/build/build.ninja" | sed 's/.*sm_//' | awk '!seen[$0]++' |
    tr '\n' ' ' | sed 's/ $//')
  if [ "$got" != "$expected" ]; then
    echo "FAIL $name: sm_ $got, expected $expected"; failed=1; return
  fi
  echo "ok   $name: sm_ $got"
}

case_ two-gpus "90 86" 'printf "9.0\n8.6\n9.0\n"'
case_ old-and-unknown "$all" 'printf "6.1\n[N/A]\n"'
grep -q "compute capability 6.1 left out" "$work/old-and-unknown/log" || {
  echo "FAIL old-and-unknown: no warning names the 6.1 GPU"; failed=1; }
case_ nvidia-smi-fails "$all" 'echo "NVIDIA-SMI has failed" >&2; exit 9'
exit $failed
