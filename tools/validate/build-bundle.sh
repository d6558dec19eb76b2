#!/usr/bin/env bash
# Builds the gst-validate bundle that tools/gst-validate.sh runs, for one
# GStreamer version, into .validate/MAJOR.MINOR/ of the repository (an
# ignored folder, carried to the GPU machine as it is):
#
#   tools/validate/build-bundle.sh 1.22    # on Debian 12: its GStreamer 1.22
#   tools/validate/build-bundle.sh 1.26    # in a Debian 13 root (debootstrap)
#
# It builds gst-devtools' validate alone (no debug viewer, dots viewer,
# cairo image checks, introspection, docs or tests) from GStreamer's
# monorepo at tag 1.22.0 or 1.26.2 against the distribution's GStreamer of
# that version, and makes the install relocatable and self-contained for a
# machine that has only a GStreamer runtime (/work/shared/gpu*/debs): no
# headers or pkg-config files, no symbolic links (versioned libraries are
# plain files under their sonames), RUNPATHs relative to $ORIGIN, json-glib
# copied in (the runtimes lack it), the helper element roiattach
# (tools/validate/cbfroiattach.c) built into lib/gstreamer-1.0, and a
# VERSION file. Binaries are stripped: about 1.5 MB.
#
# Needs root (apt-get; for 1.26 debootstrap and chroot, with /proc and /dev
# bound into the root only while it builds). Environment:
#   GST_MONOREPO          a git directory of GStreamer's monorepo holding the
#                         tags (default /work/.mirror/GStreamer+gstreamer/repo;
#                         else a shallow clone of the tag from freedesktop.org)
#   VALIDATE_DEBIAN13_ROOT  the Debian 13 root for 1.26, made once and kept
#                         (default /var/tmp/cbf-validate-debian13)
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)

# Build dependencies, in the system that builds (Debian 12 or 13).
packages="meson ninja-build pkg-config gcc libc6-dev binutils patchelf \
libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
libjson-glib-dev"

mounted_at_or_below () {
  # mounted_at_or_below DIR: true when /proc/self/mountinfo lists a mount
  # point at or below DIR (its fifth field).
  awk -v d="$1" '$5 == d || index($5, d "/") == 1 { found = 1 } END { exit !found }' \
      /proc/self/mountinfo
}

remove () {
  # remove DIR...: rm -rf, never while anything is mounted at or below
  # (a bind mount there would take rm into the host's files), never across
  # file systems.
  local d
  for d in "$@"; do
    [ -e "$d" ] || continue
    if mounted_at_or_below "$(readlink -m "$d")"; then
      echo "error: not removing $d: something is mounted at or below it" >&2
      return 1
    fi
    rm -rf --one-file-system "$d"
  done
}

# build_here SRC PREFIX DESTDIR: configure, build and install validate from
# the gst-devtools source SRC for PREFIX under DESTDIR, then make the install
# relocatable. Runs on the system whose GStreamer it builds against.
build_here () {
  local src=$1 prefix=$2 dest=$3 build p f l t options=()
  build=$(mktemp -d)
  # 1.26 has a dots viewer (Rust) as well.
  if grep -q dots_viewer "$src/meson_options.txt"; then options=(-Ddots_viewer=disabled); fi
  meson setup "$build" "$src" --prefix="$prefix" --libdir=lib --buildtype=release \
      -Dvalidate=enabled -Dcairo=disabled -Ddebug_viewer=disabled \
      -Dintrospection=disabled -Dtests=disabled -Ddoc=disabled -Dnls=disabled \
      -Dtools=enabled "${options[@]}" \
      > "$build.setup.log" || { cat "$build.setup.log" >&2; return 1; }
  ninja -C "$build" > "$build.ninja.log" || { tail -n 30 "$build.ninja.log" >&2; return 1; }
  remove "$dest"
  DESTDIR=$dest meson install -C "$build" --no-rebuild > /dev/null
  remove "$build" "$build".*.log
  p=$dest$prefix
  cd "$p"
  # What a runtime needs; the launcher (python, with build paths) is left out.
  remove include lib/pkgconfig lib/gst-validate-launcher bin/gst-validate-launcher
  for l in lib/*.so; do [ -L "$l" ] && rm "$l"; done
  for l in lib/*.so.0; do
    if [ -L "$l" ]; then t=$(readlink -f "$l"); rm "$l"; mv "$t" "$l"; fi
  done
  cp -L "$(pkg-config --variable=libdir json-glib-1.0)/libjson-glib-1.0.so.0" lib/
  # shellcheck disable=SC2046 # pkg-config's flags are words
  cc -shared -fPIC -O2 -Wall -Werror -o lib/gstreamer-1.0/libcbfroiattach.so \
      "$src/../cbfroiattach.c" $(pkg-config --cflags --libs gstreamer-video-1.0)
  if [ -n "$(find . -type l)" ]; then echo "error: links left in $p" >&2; return 1; fi
  strip --strip-unneeded bin/* lib/*.so.0 lib/gstreamer-1.0/*.so lib/gstreamer-1.0/validate/*.so
  # Libraries are found beside each file, wherever the bundle lies.
  # shellcheck disable=SC2016 # for the dynamic loader, not the shell
  local origin='$ORIGIN'
  for f in bin/*; do patchelf --set-rpath "$origin/../lib" "$f"; done
  for f in lib/*.so.0; do patchelf --set-rpath "$origin" "$f"; done
  for f in lib/gstreamer-1.0/*.so; do patchelf --set-rpath "$origin/.." "$f"; done
  for f in lib/gstreamer-1.0/validate/*.so; do patchelf --set-rpath "$origin/../.." "$f"; done
  echo "gst-devtools $(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n 1)" \
       "(GStreamer monorepo, subprojects/gst-devtools, validate only)," \
       "built on Debian $(cat /etc/debian_version) against GStreamer" \
       "$(pkg-config --modversion gstreamer-1.0) ($(dpkg-query -W -f='${Version}' libgstreamer1.0-dev))," \
       "json-glib $(pkg-config --modversion json-glib-1.0)" > VERSION
  cat VERSION
}

if [ "${1:-}" = --here ]; then
  shift
  build_here "$@"
  exit
fi

case ${1:-} in
  1.22) tag=1.22.0 ;;
  1.26) tag=1.26.2 ;;
  *) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
esac
version=$1
prefix=$here/.validate/$version
work=$(mktemp -d /var/tmp/cbf-validate-build.XXXXXX)
root=""
mounts=()

unmount_all () {
  local m
  for m in "${mounts[@]}"; do umount "$m" || umount -l "$m"; done
  mounts=()
}

cleanup () {
  unmount_all
  if [ -n "$root" ]; then remove "$root/src" "$root/out" || true; fi
  remove "$work" || true
}
trap cleanup EXIT

# The source: gst-devtools at the tag (only that folder of the monorepo).
repo=${GST_MONOREPO:-/work/.mirror/GStreamer+gstreamer/repo}
mkdir -p "$work/src"
if git -C "$repo" rev-parse -q --verify "refs/tags/$tag" > /dev/null 2>&1; then
  # (a partial mirror complains of blobs elsewhere in the tree: its stderr
  # is kept out, and the result checked)
  git -C "$repo" archive "$tag" subprojects/gst-devtools 2> "$work/archive.log" |
    tar -x -C "$work/src"
else
  git clone -q --depth 1 --branch "$tag" \
      https://gitlab.freedesktop.org/gstreamer/gstreamer.git "$work/clone"
  mv "$work/clone/subprojects" "$work/src/"
fi
[ -f "$work/src/subprojects/gst-devtools/validate/meson.build" ] ||
  { cat "$work/archive.log" >&2 2>/dev/null; echo "error: no gst-devtools $tag" >&2; exit 1; }
cp "$here/tools/validate/cbfroiattach.c" "$work/src/subprojects/"

apt_install () {
  # apt_install [chroot ROOT]: the build dependencies (a no-op once there).
  "$@" sh -c "apt-get update -q > /dev/null &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      -o DPkg::Lock::Timeout=600 $packages > /dev/null"
}

case $version in
  1.22)
    grep -q '^12\.' /etc/debian_version ||
      { echo "error: 1.22 is built on Debian 12 (its GStreamer 1.22)" >&2; exit 1; }
    apt_install
    build_here "$work/src/subprojects/gst-devtools" "$prefix" "$work/out"
    ;;
  1.26)
    root=${VALIDATE_DEBIAN13_ROOT:-/var/tmp/cbf-validate-debian13}
    if [ ! -x "$root/usr/bin/dpkg" ]; then
      # shellcheck source=tools/debian-mirror.sh
      . "$here/tools/debian-mirror.sh"
      mirror=$(cbf_debian_mirror)
      [ -n "$mirror" ] || { echo "error: no Debian archive in apt's sources" >&2; exit 1; }
      command -v debootstrap > /dev/null || {
        apt-get update -q > /dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap > /dev/null; }
      echo "Making a Debian 13 root in $root"
      debootstrap --variant=minbase trixie "$root" "$mirror" > /dev/null
    fi
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    apt_install chroot "$root"
    remove "$root/src" "$root/out"
    mkdir -p "$root/src"
    cp -a "$work/src/subprojects" "$root/src/"
    cp "$0" "$root/src/build-bundle.sh"
    for d in proc dev; do
      mount --bind "/$d" "$root/$d"
      mounts=("$root/$d" "${mounts[@]}")
      # Private: nothing mounted below it later reaches the host's.
      mount --make-private "$root/$d"
    done
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        bash /src/build-bundle.sh --here /src/subprojects/gst-devtools "$prefix" /out
    unmount_all
    if mounted_at_or_below "$(readlink -m "$root")/proc" ||
       mounted_at_or_below "$(readlink -m "$root")/dev"; then
      echo "error: $root/proc or $root/dev still mounted" >&2; exit 1
    fi
    remove "$work/out"
    mkdir -p "$work/out$(dirname "$prefix")"
    cp -a "$root/out$prefix" "$work/out$prefix"
    ;;
esac

remove "$prefix"
mkdir -p "$(dirname "$prefix")"
cp -a "$work/out$prefix" "$prefix"
echo "$prefix: $(du -sh "$prefix" | cut -f1)"
