#!/usr/bin/env bash
# CI's Debian package check. Builds the package of the committed tree with
# dpkg-buildpackage -b (for the GPU architectures of CBF_GPU_ARCH, a list
# such as 75,90, 75 by default: the package's own default is every
# supported one), installs it
# into a fresh Debian 12 root with apt-get install ./DEB (apt resolving its
# dependencies from Debian's archive), and checks there, with no
# environment set, that gst-inspect-1.0 finds cudabilateral with the
# package's version, name and origin; that the installed plugin needs no
# library of NVIDIA's (readelf -d); that without a GPU the element says why
# it cannot run; and that removing the package removes the element. Needs
# root, debootstrap and Debian's archive as apt here has it. A pristine
# minbase root is kept as a tarball in $DEBIAN12_ROOT_TAR (default
# /var/tmp/cbf-debian12-minbase.tar) and each run unpacks a fresh copy.
# With --root-only it makes that tarball alone (CI makes it while it
# builds). CBF_PACKAGE_DEB names a package already built to check instead. Writes
# its result as a test line to build-package/testlog.json for
# tools/count-tests.py; the lines to quote start with "package:". A
# command that fails ends the run with a "package: FAILED:" line too,
# naming its line. The work directory, /var/tmp/cbf-package.XXXXXX, is
# removed at the end; one that a killed run left, by the next run.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
arch=${CBF_GPU_ARCH:-75}
# Compressed as CI's other builds are, so that the
# package's kernel objects can come from theirs (CBF_KERNEL_CACHE,
# tools/nvcc-cache.py); the package's own default is size.
compression=${CBF_FATBIN_COMPRESSION:-default}
tarball=${DEBIAN12_ROOT_TAR:-/var/tmp/cbf-debian12-minbase.tar}
log_dir=$here/build-package
mkdir -p "$log_dir"
rm -f "$log_dir/testlog.json"
out=/dev/null  # the checks' lines, in the work directory once there is one

say () { echo "package: $*" | tee -a "$out"; }
fail () {
  trap - ERR
  say "FAILED: $*"
  python3 - "$log_dir/testlog.json" "$out" <<'EOF'
import json, sys
print(json.dumps({"name": "debian-package", "result": "FAIL",
                  "stdout": open(sys.argv[2]).read()}), file=open(sys.argv[1], "w"))
EOF
  exit 1
}
# Any other command that stops the script (set -e), said as a failure;
# only in the script's own shell: a subshell or $(...) that fails is
# reported by the command that ran it.
on_error () {
  [ "$BASHPID" = "$$" ] || return 0
  local command=$5 what
  # A function's "return 1" is reported at the line that called it.
  case $command in return*) command=$(sed -n "$4s/^ *//p" "$3") ;; esac
  what="$command (exit status $1)"
  # Of a pipeline, BASH_COMMAND is the last command: each one's status.
  if [ "${2// /}" != "$2" ]; then what="a pipeline ending in $command (exit statuses $2)"; fi
  fail "${3##*/} line $4: $what"
}
trap 'on_error $? "${PIPESTATUS[*]}" "${BASH_SOURCE[0]}" "$LINENO" "$BASH_COMMAND"' ERR

# shellcheck source=tools/chroot-mounts.sh
. "$here/tools/chroot-mounts.sh"
cbf_new_work_dir /var/tmp/cbf-package
work=$cbf_work_dir
root=$work/root
out=$work/checks.txt
# The root has the host's /proc, /dev and /dev/pts bound in: removed only
# once nothing is mounted below the work directory.
cleanup () {
  local status=$?
  trap - ERR
  if ! cbf_remove_root "$work"; then
    echo "package: $work left in place, mounts below it" >&2
    [ "$status" -ne 0 ] || status=1
  fi
  exit "$status"
}
trap cleanup EXIT
# bash runs no EXIT trap when a signal kills it: exit, then.
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM

# Debian's archive as apt here has it (a Debian 12 machine's sources).
. "$here/tools/debian-mirror.sh"
mirror=$(cbf_debian_mirror)
[ -n "$mirror" ] || fail "no Debian archive in apt's sources"

# The pristine minbase root, made once into $tarball.
make_minbase () {
  [ ! -f "$tarball" ] || return 0
  command -v debootstrap >/dev/null ||
    apt-get install -y -q --no-install-recommends debootstrap >/dev/null
  debootstrap --variant=minbase bookworm "$work/seed" "$mirror" >/dev/null ||
    fail "debootstrap bookworm"
  tar -C "$work/seed" -cf "$tarball.part" . || fail "tar of the minbase root into $tarball.part"
  mv "$tarball.part" "$tarball"
  # debootstrap mounted /proc and /sys in it: removed as a root is.
  cbf_remove_root "$work/seed" || fail "$work/seed not removed"
}
# --root-only: that alone (CI makes it while it builds).
if [ "${1:-}" = --root-only ]; then
  make_minbase
  exit 0
fi

# The version meson, the changelog and the README give must agree.
version=$(sed -n "s/^  version: '\(.*\)',$/\1/p" "$here/meson.build")
[ -n "$version" ] || fail "meson.build has no line \"  version: '...',\""
deb_version=$(cd "$here" && dpkg-parsechangelog -S Version)
[ "$version" = "$deb_version" ] ||
  fail "meson.build says $version, debian/changelog $deb_version"
grep -q "gstreamer1.0-cudabilateral_${version}_amd64.deb" "$here/README.md" ||
  fail "README.md does not name gstreamer1.0-cudabilateral_${version}_amd64.deb"
say "version $version (meson.build, debian/changelog, README.md)"

# The build: what the package needs (Build-Depends) by apt from the source
# directory's debian/control, then dpkg-buildpackage in a copy of HEAD.
export DEBIAN_FRONTEND=noninteractive
deb=${CBF_PACKAGE_DEB:-}
if [ -z "$deb" ]; then
  src=$work/gst-cudabilateral-$version
  git -C "$here" archive --prefix="gst-cudabilateral-$version/" HEAD |
    tar -x -C "$work"
  command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
    apt-get install -y -q --no-install-recommends dpkg-dev debhelper >/dev/null
  apt-get build-dep -y -q "$src" >/dev/null || fail "apt-get build-dep"
  start=$(date +%s)
  if ! (cd "$src" && CBF_GPU_ARCH=$arch CBF_FATBIN_COMPRESSION=$compression \
    dpkg-buildpackage -b -us -uc) \
    >"$log_dir/dpkg-buildpackage.log" 2>&1; then
    tail -n 40 "$log_dir/dpkg-buildpackage.log"
    fail "dpkg-buildpackage -b -us -uc (log: build-package/dpkg-buildpackage.log)"
  fi
  built=$(grep -E "^dpkg-deb: building package 'gstreamer1.0-cudabilateral'|^dpkg-buildpackage: info: binary-only upload" \
    "$log_dir/dpkg-buildpackage.log") ||
    fail "build-package/dpkg-buildpackage.log has no line \"dpkg-deb: building package 'gstreamer1.0-cudabilateral' ...\" nor \"dpkg-buildpackage: info: binary-only upload ...\""
  echo "$built" | sed 's/^/package: /' | tee -a "$out"
  deb=$work/gstreamer1.0-cudabilateral_${version}_amd64.deb
  [ -f "$deb" ] || fail "no $(basename "$deb")"
  say "built $(basename "$deb") for gpu_arch=$arch in $(($(date +%s) - start)) s," \
    "$(stat -c %s "$deb") bytes"
fi
dpkg-deb -f "$deb" Depends GStreamer-Elements | sed 's/^/package: /' | tee -a "$out"
plugin_path=$(dpkg-deb -c "$deb" | grep -oE '\./usr/lib/[^ ]*/gstreamer-1.0/libgstcudabilateral\.so$') ||
  fail "the package holds no plugin in GStreamer's multiarch directory"
plugin_path=${plugin_path#.}
say "plugin at $plugin_path"

# A fresh Debian 12 root: the pristine minbase, unpacked anew.
make_minbase
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf"
for m in /proc /dev /dev/pts; do
  cbf_bind "$m" "$root" "$m"
done
in_root () { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
cp "$deb" "$root/tmp/"
in_root apt-get update -q >/dev/null || fail "apt-get update in the root"
# Installed as the README says: Recommends included (the plugins the
# element and the README's pipelines use), the tools by name.
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  "./tmp/$(basename "$deb")" gstreamer1.0-tools \
  >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "apt-get install ./$(basename "$deb") gstreamer1.0-tools"; }
for element in videotestsrc videoconvert appsrc appsink pngdec jpegdec autovideosink; do
  in_root gst-inspect-1.0 --exists "$element" ||
    fail "$element is missing after installing the package with its Recommends"
done
# The description names the architectures built (75: "7.5"), and no other.
# (its lines joined, as the phrase may wrap)
description=$(dpkg-deb -f "$deb" Description | tr '\n' ' ' | tr -s ' ')
named=$(echo "$description" | grep -oE 'compute capability [0-9., and]*[0-9]' |
  grep -oE '[0-9]+\.[0-9]' | tr -d . | sort | tr '\n' ' ')
[ "$named" = "$(echo "$arch" | tr ',' '\n' | sort | tr '\n' ' ')" ] ||
  fail "the description names compute capability ${named:-none}, not gpu_arch=$arch"
summary=$(grep -E '^[0-9]+ upgraded, [0-9]+ newly installed' "$work/install.log") ||
  summary="(its output has no line \"N upgraded, N newly installed\")"
say "apt-get install ./$(basename "$deb"): $summary"

# Found with no environment: GStreamer's own plugin directory.
in_root gst-inspect-1.0 cudabilateral >"$work/inspect.txt" 2>&1 ||
  { cat "$work/inspect.txt"; fail "gst-inspect-1.0 cudabilateral in the root"; }
fields=$(grep -E '^  (Filename|Version|Source module|Binary package|Origin URL)' \
  "$work/inspect.txt") ||
  { cat "$work/inspect.txt"; fail "gst-inspect-1.0 cudabilateral gives none of Filename, Version, Source module, Binary package, Origin URL"; }
echo "$fields" | sed 's/^ */package: gst-inspect-1.0: /' | tee -a "$out"
grep -qE "^  Version +$version\$" "$work/inspect.txt" ||
  fail "gst-inspect-1.0 gives no version $version"
# (/lib is /usr/lib in a merged-/usr root: the same file by either name)
found=$(sed -n 's/^  Filename *//p' "$work/inspect.txt")
[ -n "$found" ] && [ "$(readlink -f "$root$found")" = "$(readlink -f "$root$plugin_path")" ] ||
  fail "gst-inspect-1.0 found the plugin at $found, not $plugin_path"
grep -qE "^  Origin URL +gstreamer1.0-cudabilateral $version" "$work/inspect.txt" ||
  fail "the plugin states no Debian origin"

# The CUDA runtime is linked in: nothing of NVIDIA's is a dependency
# (libgstcuda-1.0 is GStreamer's, which opens the driver itself).
needed=$(readelf -d "$root$plugin_path" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ') ||
  fail "readelf -d $plugin_path"
say "NEEDED: $needed"
if echo "$needed" | grep -qE 'libcuda\.|libcudart|libnvidia|libnpp|libcublas|libnvrtc'; then
  fail "the plugin needs a library of NVIDIA's"
fi

# No GPU or driver here: the element registers (above) and explains.
# The README's first pipeline, as written: the element's error, not
# "no element".
if in_root timeout 60 gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! \
  cudabilateral diameter=9 sigma-color=30 sigma-space=5 ! videoconvert ! \
  autovideosink >"$work/launch.txt" 2>&1; then
  fail "a pipeline ran without a GPU"
fi
error=$(grep -m 1 -A 1 -E '^ERROR: from element .*cudabilateral' "$work/launch.txt" | tr '\n' ' ') ||
  { cat "$work/launch.txt"; fail "the pipeline failed with no \"ERROR: from element ...cudabilateral\" line"; }
say "without a GPU: $error"
# The root has no NVIDIA driver at all, which the element tells apart
# from one too old.
echo "$error" | grep -qF 'no NVIDIA driver is installed (libcuda.so.1 not found)' ||
  { cat "$work/launch.txt"; fail "the pipeline's error is not the element's, saying that no driver is installed"; }

# Removed with the package.
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q \
  gstreamer1.0-cudabilateral >/dev/null || fail "apt-get remove"
[ ! -e "$root$plugin_path" ] || fail "$plugin_path left behind"
if in_root gst-inspect-1.0 cudabilateral >/dev/null 2>&1; then
  fail "gst-inspect-1.0 still finds cudabilateral after apt-get remove"
fi
say "apt-get remove gstreamer1.0-cudabilateral: the plugin and the element are gone"
python3 - "$log_dir/testlog.json" "$out" <<'EOF'
import json, sys
print(json.dumps({"name": "debian-package", "result": "OK",
                  "stdout": open(sys.argv[2]).read()}), file=open(sys.argv[1], "w"))
EOF
say "OK"
