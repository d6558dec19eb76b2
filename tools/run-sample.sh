#!/usr/bin/env bash
# The main job: denoise a video with cudabilateral and print frames/s.
#   tools/run-sample.sh [INPUT.mp4 [OUTPUT.mp4]]
# Defaults: the bundled data/sample-720p.mp4 (H.264, 60 frames of a noisy
# picture) into sample-filtered.mp4. With OUTPUT "-", frames go to fakesink
# (no encoder needed). Uses the plugin from ./build.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
input=${1:-$here/data/sample-720p.mp4}
output=${2:-sample-filtered.mp4}
export GST_PLUGIN_PATH="$here/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

have() { gst-inspect-1.0 --exists "$1"; }

# The decoder's own format goes to the filter as it is: I420 in system
# memory from avdec_h264; NV12 in CUDA memory from nvh264dec, downloaded
# only after the filter.
if have avdec_h264; then
  decode="avdec_h264"
  download=""
elif have nvh264dec; then
  decode="nvh264dec"
  download="! cudadownload"
else
  echo "error: no H.264 decoder (install gstreamer1.0-libav)" >&2; exit 1
fi
if [ "$output" = "-" ]; then
  sink="fakesink"
elif have x264enc; then
  sink="videoconvert ! x264enc speed-preset=faster bitrate=8000 ! mp4mux ! filesink location=$output"
else
  echo "error: no H.264 encoder (install gstreamer1.0-plugins-ugly), or pass - as OUTPUT" >&2; exit 1
fi

pipeline="filesrc location=$input ! qtdemux ! h264parse ! $decode \
  ! cudabilateral diameter=9 sigma-color=40 sigma-space=5 $download \
  ! identity name=counter silent=false ! $sink"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s.%N)
if ! gst-launch-1.0 -e -v $pipeline >"$log" 2>&1; then
  grep -E "ERROR|error" "$log" >&2 || tail -20 "$log" >&2
  [ "$output" = "-" ] || rm -f "$output"     # no partial file left behind
  exit 1
fi
end=$(date +%s.%N)
frames=$(grep -c "counter: last-message = chain" "$log" || true)
# gst-launch prints how long the pipeline ran, from PLAYING to EOS.
ran=$(sed -n 's/^Execution ended after \([0-9:.]*\)$/\1/p' "$log")
python3 - "$frames" "$start" "$end" "$ran" "$output" <<'PY'
import sys
frames, start, end, ran, out = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
h, m, s = ran.split(":")
running = int(h) * 3600 + int(m) * 60 + float(s)
where = "" if out == "-" else f", written to {out}"
print(f"{frames} frames filtered: {frames / running:.1f} frames/s while playing "
      f"(decode, filter{'' if out == '-' else ', encode'} together; "
      f"{end - start:.2f} s with start-up){where}")
PY
