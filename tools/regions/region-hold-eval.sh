#!/usr/bin/env bash
# region-hold on a detector that misses: a clip of data/astronaut.png
# panned under heavy noise (her face moves 1 pixel left and a third up a
# frame; facedetect loses it in some frames), facedetect's boxes frame by
# frame, and how many frames leave her face unfiltered at each region-hold
# (region-hold-eval: the element's own region code, no GPU).
#
#   tools/regions/region-hold-eval.sh [BUILD_DIR] [NOISE]
#
# With KEEP_DIR set, the clip and the boxes stay there (clip-NOISE.mp4,
# faces-NOISE.txt) for region-hold-gpu, which runs the element itself.
#
# Needs ffmpeg, gst-launch-1.0 with facedetect (gstreamer1.0-opencv) and
# its cascades (opencv-data).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
noise=${2:-80}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The face is at 175, 64 (97 x 97) in the picture; the crop starts at
# 20, 10 and moves 30 and 10 pixels a second at 30 frames a second.
ffmpeg -v error -y -loop 1 -i "$here/data/astronaut.png" \
  -vf "crop=384:384:x='20+30*t':y='10+10*t',noise=alls=$noise:allf=t,format=yuv420p" \
  -t 3 -r 30 -c:v libx264 -crf 18 "$work/clip.mp4"
gst-launch-1.0 -m filesrc location="$work/clip.mp4" ! decodebin ! \
  videoconvert ! facedetect display=false ! fakesink 2>&1 |
  grep 'element "facedetect0" (element)' | python3 -c '
import re, sys
for line in sys.stdin:
    t = int(re.search(r"stream-time=\(guint64\)(\d+)", line).group(1))
    boxes = re.findall(r"x\\=\\\(uint\\\)(\d+)\\,\\ y\\=\\\(uint\\\)(\d+)"
                       r"\\,\\ width\\=\\\(uint\\\)(\d+)\\,\\ height\\=\\\(uint\\\)(\d+)", line)
    print(round(t * 30 / 1e9), len(boxes), " ".join(",".join(b) for b in boxes))
' > "$work/faces.txt"
if [ -n "${KEEP_DIR:-}" ]; then
  mkdir -p "$KEEP_DIR"
  cp "$work/clip.mp4" "$KEEP_DIR/clip-$noise.mp4"
  cp "$work/faces.txt" "$KEEP_DIR/faces-$noise.txt"
fi
echo "detections a frame: $(awk '{printf "%s", ($2 == 0 ? "." : "x")}' "$work/faces.txt")"
"$build/tools/bench/region-hold-eval" --width 384 --height 384 \
  --face 155,54,97,97 --speed -1,-0.33333 --padding 16 --cover 0.9 \
  --hold 0 --hold 1 --hold 2 --hold 3 --hold 5 < "$work/faces.txt" |
  grep -v 'leaves the face'
