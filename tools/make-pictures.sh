#!/usr/bin/env bash
# Before/after pictures from the element itself:
#   tools/make-pictures.sh OUTDIR [IMAGE]
# Needs GStreamer with this build's plugin (GST_PLUGIN_PATH=build/gst), a
# GPU, and python3 with numpy and OpenCV (cv2) to add noise and lay out
# the results (labelled crops of each output):
#   OUTDIR/modes.png   each mode, method and the strength mask;
#   OUTDIR/sigmas.png  sigma-color (columns) x sigma-space (rows), beside
#                      the noisy input and the original.
# IMAGE defaults to data/astronaut.png (the crops are placed
# for it). The grid's parameters can be changed from the environment:
# SIGMA_SPACES="2 5 10", SIGMA_COLORS="10 30 60 120", SIGMA_DIAMETER=0
# (0: the radius is derived from sigma-space, round(1.5 sigma-space)).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1
image=${2:-$here/data/astronaut.png}
spaces=${SIGMA_SPACES:-2 5 10}
colors=${SIGMA_COLORS:-10 30 60 120}
diameter=${SIGMA_DIAMETER:-0}
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

# The sigmas grid: one output per pair, named as pictures.py's sigma_name.
for space in $spaces; do
  for color in $colors; do
    filter "sigma-s$space-c$color" diameter="$diameter" \
      sigma-color="$color" sigma-space="$space"
  done
done
python3 "$here/tools/pictures.py" sigmas "$out/work" "$out/sigmas.png" \
  "$diameter" "$spaces" "$colors"
