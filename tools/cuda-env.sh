# Sourced (not run) by every script that configures or builds: tools/build.sh,
# tools/run-tests.sh, .ci/run and tools/ci-debian13.sh. It finds the CUDA
# toolkit as the README says, in CUDA_HOME or else /usr/local/cuda, whether
# or not it is on PATH (NVIDIA's installer does not put it there), and sets
# up build directories with it:
#   cbf_setup [--quiet] DIR [MESON_OPTION...]  configure DIR unless it is
#                                              (--quiet: output only on failure)
#   cbf_build DIR [MESON_OPTION...]            configure quietly, then build,
#                                              ninja's output only on failure
#   cbf_gpu_archs DIR                          the GPU architectures DIR's
#                                              build compiles for, as a
#                                              gpu_arch list (75,80,...)
# CBF_MESON_OPTIONS (words) is added to every setup: CI makes warnings errors
# and the C tests required with it, where a user's build keeps the defaults.
# shellcheck shell=bash

cbf_cuda_home=${CUDA_HOME:-/usr/local/cuda}
# meson finds nvcc on PATH only (1.0 reads no variable for it); a build
# then runs it by the full path meson found.
export PATH="$cbf_cuda_home/bin:$PATH"

cbf_setup () {
  local quiet=false
  if [ "$1" = --quiet ]; then quiet=true; shift; fi
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] && return 0
  # meson would only say that it found no CUDA compiler.
  if [ ! -x "$cbf_cuda_home/bin/nvcc" ]; then
    echo "error: no CUDA toolkit in $cbf_cuda_home ($cbf_cuda_home/bin/nvcc" \
      "not found): install NVIDIA's toolkit there or set CUDA_HOME" >&2
    return 1
  fi
  # A directory without build.ninja is a setup that failed or was killed:
  # meson would take it for configured (or refuse it), so it is made anew.
  if [ -e "$dir" ]; then
    if [ -d "$dir/meson-private" ] || [ -d "$dir/meson-logs" ] ||
      [ -z "$(ls -A "$dir")" ]; then
      echo "$dir: an unfinished setup, set up again"
      rm -rf "$dir"
    else
      echo "error: $dir exists and is not a meson build directory" >&2
      return 1
    fi
  fi
  local -a extra
  read -r -a extra <<<"${CBF_MESON_OPTIONS:-}"
  local -a cmd=(meson setup "$dir" -Dtoolkit_dir="$cbf_cuda_home" "$@"
    "${extra[@]}")
  local out rc=0
  out=$(mktemp)
  if $quiet; then
    "${cmd[@]}" >"$out" 2>&1 || rc=$?
  else
    "${cmd[@]}" 2>&1 | tee "$out" || rc=$?
  fi
  if [ "$rc" -ne 0 ]; then
    # meson's reason is at the end of its output (shown above unless quiet).
    echo "error: ${cmd[*]} failed" >&2
    $quiet && tail -n 25 "$out" | sed 's/^/  /' >&2
    [ -f "$dir/meson-logs/meson-log.txt" ] &&
      echo "(meson's whole log: $dir/meson-logs/meson-log.txt)" >&2
  fi
  rm -f "$out"
  return "$rc"
}

cbf_build () {
  local dir=$1
  shift
  cbf_setup --quiet "$dir" "$@" || return 1
  local log=$dir/meson-logs/ninja-output.txt
  if ! ninja -C "$dir" >"$log" 2>&1; then
    # From ninja's first failed command on, or the end if it names none.
    echo "error: ninja -C $dir failed:" >&2
    if grep -q '^FAILED: ' "$log"; then
      sed -n '/^FAILED: /,$p' "$log" | head -n 80 | sed 's/^/  /' >&2
    else
      tail -n 40 "$log" | sed 's/^/  /' >&2
    fi
    echo "(the whole output: $log)" >&2
    return 1
  fi
}

cbf_gpu_archs () {
  local archs
  archs=$(sed -n 's/^#define CBF_GPU_ARCHS "\(.*\)"$/\1/p' "$1/config.h" \
    2>/dev/null)
  if [ -z "$archs" ]; then
    echo "error: $1/config.h names no GPU architecture" >&2
    return 1
  fi
  echo "${archs// /,}"
}
