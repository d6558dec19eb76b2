#!/usr/bin/env bash
# Where meson install puts the plugin (meson.build), from configures alone:
# with GStreamer's prefix (--prefix=/usr on Debian) into GStreamer's own
# plugin directory, its pkg-config pluginsdir, whatever the libdir (a
# minimal Debian without dpkg-dev gives meson lib64); under any other
# prefix into prefix/libdir/gstreamer-1.0, with a message naming the
# GST_PLUGIN_PATH to set. Then, with nvcc off PATH, that meson setup stops
# with the line to type rather than "Could not find suitable CUDA compiler".
# Arguments: meson, the project's source directory.
set -uo pipefail
meson=$1 source=$2
# A machine that runs the built tests without the build tools (a GPU
# machine given the build directory) cannot configure: skipped.
for tool in "$meson" nvcc pkg-config; do
  command -v "$tool" >/dev/null || {
    echo "SKIP: no $tool here to configure the project with"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
gst_prefix=$(pkg-config --variable=prefix gstreamer-1.0)
pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)

# case NAME EXPECTED-DIR MESON-OPTION...: the plugin installs into
# EXPECTED-DIR.
case_ () {
  local name=$1 expected=$2 got
  shift 2
  if ! "$meson" setup "$work/$name" "$source" -Dgpu_arch=75 \
    -Dtests=disabled -Dexamples=disabled "$@" >"$work/$name.log" 2>&1; then
    echo "FAIL $name: meson setup failed"; tail -n 20 "$work/$name.log"
    failed=1; return
  fi
  got=$("$meson" introspect --installed "$work/$name" |
    python3 -c 'import json, os, sys
for path in json.load(sys.stdin).values():
    if os.path.basename(path) == "libgstcudabilateral.so":
        print(os.path.dirname(path))')
  if [ "$got" != "$expected" ]; then
    echo "FAIL $name: installs into ${got:-nothing}, expected $expected"
    failed=1; return
  fi
  echo "ok   $name: $got"
}

case_ gst-prefix "$pluginsdir" --prefix="$gst_prefix"
case_ gst-prefix-lib64 "$pluginsdir" --prefix="$gst_prefix" --libdir=lib64
# (not /usr/local itself, which may be GStreamer's own prefix)
case_ other-prefix /opt/cbf-test/lib64/gstreamer-1.0 --prefix=/opt/cbf-test \
  --libdir=lib64
grep -q "set GST_PLUGIN_PATH=/opt/cbf-test/lib64/gstreamer-1.0" \
  "$work/other-prefix.log" || {
  echo "FAIL other-prefix: no message names the GST_PLUGIN_PATH to set"
  failed=1; }

# nvcc off PATH: every directory of PATH that holds one is left out, unless
# it also holds what meson needs (cc, pkg-config: nvcc in /usr/bin).
toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
path='' skip=''
while IFS= read -r dir; do
  if [ -x "$dir/nvcc" ]; then
    [ -x "$dir/cc" ] || [ -x "$dir/pkg-config" ] && skip=$dir
  else
    path=${path:+$path:}$dir
  fi
done < <(tr ':' '\n' <<<"$PATH")
if [ -n "$skip" ]; then
  echo "skip nvcc-off-path: nvcc is in $skip beside the compiler meson needs"
elif PATH=$path "$meson" setup "$work/no-nvcc" "$source" -Dgpu_arch=75 \
  -Dtoolkit_dir="$toolkit" >"$work/no-nvcc.log" 2>&1; then
  echo "FAIL nvcc-off-path: meson setup succeeded without nvcc on PATH"
  failed=1
elif grep -qF "export PATH=$toolkit/bin:\$PATH" "$work/no-nvcc.log"; then
  echo "ok   nvcc-off-path: meson setup says export PATH=$toolkit/bin:\$PATH"
else
  echo "FAIL nvcc-off-path: meson setup does not say what to type:"
  tail -n 5 "$work/no-nvcc.log"; failed=1
fi
exit $failed
