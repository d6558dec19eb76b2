#!/bin/sh
# Makes data/sample-720p-main10.mp4, the HEVC Main 10 clip the tests and the
# benchmark decode with nvh265dec: data/sample-720p.mp4 decoded, converted to
# 10-bit 4:2:0 (I420_10LE) and encoded by Debian's x265 (gst-plugins-bad's
# x265enc). Needs gstreamer1.0-plugins-bad and gstreamer1.0-libav.
#
#   tools/make-main10-clip.sh [OUT]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/data/sample-720p-main10.mp4}
gst-launch-1.0 -q filesrc location="$here/data/sample-720p.mp4" ! qtdemux ! \
  h264parse ! avdec_h264 ! videoconvert dither=none ! \
  video/x-raw,format=I420_10LE ! \
  x265enc bitrate=1500 speed-preset=slow key-int-max=30 ! \
  video/x-h265,profile=main-10 ! h265parse ! mp4mux ! filesink location="$out"
echo "$out: $(stat -c %s "$out") bytes"
