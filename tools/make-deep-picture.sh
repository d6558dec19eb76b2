#!/usr/bin/env bash
# A 10-bit frame before and after the filter, for the user guide:
#   tools/make-deep-picture.sh OUT.png [CLIP]
# Decodes CLIP (default data/sample-720p-main10.mp4, HEVC Main 10) with
# nvh265dec into CUDA memory as P010_10LE, filters it there, and lays out
# frame 30 before and after (tools/pictures.py deep). Needs GStreamer with
# nvcodec and this build's plugin (GST_PLUGIN_PATH=build/gst), a GPU, and
# python3 with numpy and OpenCV (cv2).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1
clip=${2:-$here/data/sample-720p-main10.mp4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$here/build/gst}
caps="video/x-raw(memory:CUDAMemory),format=P010_10LE"

frames () {
  local dir=$1; shift
  mkdir -p "$work/$dir"
  gst-launch-1.0 -q filesrc location="$clip" ! qtdemux ! h265parse ! \
    nvh265dec ! "$caps" ! "$@" cudadownload ! \
    video/x-raw,format=P010_10LE ! \
    multifilesink location="$work/$dir/%03d.raw"
}
frames before
frames after cudabilateral diameter=15 sigma-color=30 sigma-space=5 !
python3 "$here/tools/pictures.py" deep "$work/before/030.raw" \
  "$work/after/030.raw" 1280 720 "$out"
