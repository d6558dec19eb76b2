#!/usr/bin/env bash
# Before/after pictures of each mode, from the element itself:
#   tools/make-pictures.sh OUTDIR [IMAGE]
# Needs GStreamer with this build's plugin (GST_PLUGIN_PATH=build/gst), a
# GPU, and python3 with numpy and OpenCV (cv2) to add noise and lay out
# the result: OUTDIR/modes.png (crops of each output, labelled).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1
image=${2:-$here/../shared/images/astronaut.png}
mkdir -p "$out/work"
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$here/build/gst}
python3 "$here/tools/pictures.py" prepare "$image" "$out/work"

filter () {
  local name=$1; shift
  gst-launch-1.0 -q filesrc location="$out/work/noisy.png" ! pngdec ! \
    videoconvert ! video/x-raw,format=RGBA ! cudabilateral "$@" ! \
    videoconvert ! pngenc ! filesink location="$out/work/$name.png"
}
filter exact diameter=15 sigma-color=40 sigma-space=5
filter gaussian mode=gaussian diameter=15 sigma-space=3
filter exact16 diameter=0 sigma-color=40 sigma-space=16
filter grid16 method=grid sigma-color=40 sigma-space=16
filter masked diameter=15 sigma-color=40 sigma-space=5 \
  mask-location="$out/work/mask.png"
python3 "$here/tools/pictures.py" layout "$out/work" "$out/modes.png"
