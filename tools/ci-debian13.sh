#!/usr/bin/env bash
# Builds the project against Debian 13's GStreamer (1.26) in a Debian 13
# root and runs its tests there (those that need a GPU skip), for CI; the
# build is build-debian13/ in the repository, which the root sees at its
# own path. Needs root, debootstrap and Debian's archive as apt here has it;
# the CUDA toolkit is bind-mounted into the root. The root is kept in
# $DEBIAN13_ROOT (default /var/tmp/cbf-debian13) for later runs, one run
# at a time (ROOT.lock); what a killed run left mounted in it is unmounted
# by the next. A command that fails ends the run with a "ci-debian13:
# FAILED:" line naming it. With --build-only it stops before the tests;
# with --root-only, once the root is made (CI makes it while it builds).
set -Eeuo pipefail
run_tests=true root_only=false
if [ "${1:-}" = --build-only ]; then run_tests=false; fi
if [ "${1:-}" = --root-only ]; then root_only=true; fi
here=$(cd "$(dirname "$0")/.." && pwd)
root=${DEBIAN13_ROOT:-/var/tmp/cbf-debian13}
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
packages="meson ninja-build pkg-config gcc g++ python3 libglib2.0-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good python3-gst-1.0
  libjpeg-dev"

# A command that stops the script (set -e) says which; only in the
# script's own shell: a subshell or $(...) that fails is reported by the
# command that ran it.
on_error () {
  [ "$BASHPID" = "$$" ] || return 0
  local command=$5 what
  # A function's "return 1" is reported at the line that called it.
  case $command in return*) command=$(sed -n "$4s/^ *//p" "$3") ;; esac
  what="$command (exit status $1)"
  # Of a pipeline, BASH_COMMAND is the last command: each one's status.
  if [ "${2// /}" != "$2" ]; then what="a pipeline ending in $command (exit statuses $2)"; fi
  echo "ci-debian13: FAILED: ${3##*/} line $4: $what" >&2
}
trap 'on_error $? "${PIPESTATUS[*]}" "${BASH_SOURCE[0]}" "$LINENO" "$BASH_COMMAND"' ERR

# shellcheck source=tools/chroot-mounts.sh
. "$here/tools/chroot-mounts.sh"
cbf_lock_root "$root"
# The root is kept: only what is mounted below it goes, busy or not
# (debootstrap's /proc and /sys too, if it stopped half way).
cleanup () {
  local status=$?
  trap - ERR
  cbf_unmount_below "$root" || status=1
  exit "$status"
}
trap cleanup EXIT
# bash runs no EXIT trap when a signal kills it: exit, then.
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM

if [ ! -x "$root/usr/bin/meson" ]; then
  . "$here/tools/debian-mirror.sh"
  mirror=$(cbf_debian_mirror)
  [ -n "$mirror" ] || { echo "error: no Debian archive in apt's sources" >&2; exit 1; }
  command -v debootstrap >/dev/null || {
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; }
  echo "Making a Debian 13 root in $root"
  debootstrap --variant=minbase trixie "$root" "$mirror" >/dev/null
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  chroot "$root" sh -c "apt-get update -q >/dev/null &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends $(echo $packages) >/dev/null"
fi
if $root_only; then exit 0; fi

cbf_bind /proc "$root" /proc
cbf_bind /dev "$root" /dev
cbf_bind "$cuda" "$root" /usr/local/cuda
cbf_bind "$here" "$root" "$here"

# The toolkit is found as on a fresh machine, by tools/cuda-env.sh in
# /usr/local/cuda (off PATH); warnings are errors and the C tests required,
# as in CI's other builds, unless CBF_MESON_OPTIONS says otherwise.
chroot "$root" env PATH=/usr/sbin:/usr/bin:/sbin:/bin CUDA_HOME=/usr/local/cuda \
    CBF_MESON_OPTIONS="${CBF_MESON_OPTIONS--Dwerror=true -Dtests=enabled}" \
    CI="${CI:-}" bash -c "cd '$here' &&
  gst-inspect-1.0 --version | head -n 1 &&
  . tools/cuda-env.sh &&
  cbf_build build-debian13 -Dgpu_arch=75 &&
  if $run_tests; then
    meson test -C build-debian13 --print-errorlogs --num-processes 1
  fi"
