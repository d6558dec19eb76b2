#!/usr/bin/env bash
# gpu_arch=auto (meson.build) against what nvidia-smi can say, without a
# GPU: a fake nvidia-smi first on PATH, the project configured anew for
# each case, and the -gencode flags of the build it writes compared with
# the architectures the case must give. Cases: two kinds of GPU, one of
# them twice (each once, in nvidia-smi's order); a GPU older than the
# oldest supported and one reported "[N/A]" (every supported one, the old
# GPU named in a warning); nvidia-smi failing (every supported one); GPUs
# nvcc cannot compile for (10.1, which CUDA 13 has no compute_101 for, and
# 99.0), alone and beside supported ones: the newest architecture nvcc lists
# at or below each, named in a warning. Each case also checks the PTX, made
# for the newest architecture built.
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

# What nvcc can compile for, ascending (CUDA 11 on). The expected
# architecture of a GPU nvcc lacks is worked out from it, so that the cases
# hold for any toolkit: with CUDA 13, 10.1 gives 100 and 99.0 gives 121.
nvcc_archs=$(nvcc --list-gpu-arch 2>/dev/null |
  sed -n 's/^compute_\([0-9]*\)$/\1/p' | sort -n)
# for CAP: the newest of nvcc's architectures at or below CAP (digits).
for_ () { awk -v cap="$1" '$1 <= cap { best = $1 } END { print best }' \
  <<<"$nvcc_archs"; }

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
  # PTX, for later GPUs: only the newest architecture's.
  ptx=$(grep -o 'code=compute_[0-9]*' "$work/$name/build/build.ninja" |
    sed 's/.*compute_//' | sort -u | tr '\n' ' ' | sed 's/ $//')
  newest=$(tr ' ' '\n' <<<"$expected" | sort -n | tail -n 1)
  if [ "$ptx" != "$newest" ]; then
    echo "FAIL $name: PTX of $ptx, expected $newest"; failed=1; return
  fi
  echo "ok   $name: sm_ $got, PTX $ptx"
}

# warned NAME CAP: the case's log has a warning naming the GPU of CAP.
warned () {
  grep -q "WARNING: GPU of compute capability $2: nvcc" "$work/$1/log" || {
    echo "FAIL $1: no warning names the $2 GPU nvcc cannot compile for"
    failed=1; }
}

case_ two-gpus "90 86" 'printf "9.0\n8.6\n9.0\n"'
case_ old-and-unknown "$all" 'printf "6.1\n[N/A]\n"'
grep -q "compute capability 6.1 left out" "$work/old-and-unknown/log" || {
  echo "FAIL old-and-unknown: no warning names the 6.1 GPU"; failed=1; }
case_ nvidia-smi-fails "$all" 'echo "NVIDIA-SMI has failed" >&2; exit 9'

if [ -z "$nvcc_archs" ]; then
  echo "skip GPUs nvcc cannot compile for: nvcc --list-gpu-arch lists nothing"
  exit $failed
fi
# A GPU newer than nvcc knows (or one it lacks, as CUDA 13 lacks 10.1).
case_ gpu-10.1 "$(for_ 101)" 'printf "10.1\n"'
[ "$(for_ 101)" = 101 ] || warned gpu-10.1 10.1
case_ gpu-99.0 "$(for_ 990)" 'printf "99.0\n"'
warned gpu-99.0 99.0
# Beside supported GPUs: in nvidia-smi's order, each architecture once
# (10.0 and 10.1 are both 10.0 where nvcc lacks 10.1).
expected="86 $(for_ 101)"
[ "$(for_ 100)" = "$(for_ 101)" ] || expected="86 $(for_ 101) $(for_ 100)"
case_ 8.6-10.1-10.0 "$expected" 'printf "8.6\n10.1\n10.0\n"'
case_ 99.0-9.0 "$(for_ 990) 90" 'printf "99.0\n9.0\n"'
warned 99.0-9.0 99.0
exit $failed
