#!/usr/bin/env bash
# Builds the project against Debian 13's GStreamer (1.26) in a Debian 13
# root and runs its tests there (those that need a GPU skip), for CI; the
# build is build-debian13/ in the repository, which the root sees at its
# own path. Needs root, debootstrap and Debian's archive as apt here has it;
# the CUDA toolkit is bind-mounted into the root. The root is kept in
# $DEBIAN13_ROOT (default /var/tmp/cbf-debian13) for later runs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${DEBIAN13_ROOT:-/var/tmp/cbf-debian13}
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
packages="meson ninja-build pkg-config gcc g++ python3 libglib2.0-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good python3-gst-1.0"

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

mounts=()
bind () {
  mkdir -p "$root$2"
  mount --bind "$1" "$root$2"
  mounts=("$root$2" "${mounts[@]}")
}
cleanup () { for m in "${mounts[@]}"; do umount "$m" || true; done; }
trap cleanup EXIT
bind /proc /proc
bind /dev /dev
bind "$cuda" /usr/local/cuda
bind "$here" "$here"

# The toolkit is found as on a fresh machine, by tools/cuda-env.sh in
# /usr/local/cuda (off PATH); warnings are errors and the C tests required,
# as in CI's other builds, unless CBF_MESON_OPTIONS says otherwise.
chroot "$root" env PATH=/usr/sbin:/usr/bin:/sbin:/bin CUDA_HOME=/usr/local/cuda \
    CBF_MESON_OPTIONS="${CBF_MESON_OPTIONS--Dwerror=true -Dtests=enabled}" \
    CI="${CI:-}" bash -c "cd '$here' &&
  gst-inspect-1.0 --version | head -n 1 &&
  . tools/cuda-env.sh &&
  cbf_build build-debian13 -Dgpu_arch=75 &&
  meson test -C build-debian13 --print-errorlogs --num-processes 1"
