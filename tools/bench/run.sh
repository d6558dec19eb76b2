#!/usr/bin/env bash
# Runs the benchmark on a GPU machine and leaves its results in DIR:
#   tools/bench/run.sh DIR COMMIT [IMAGE [CLIP]]
# bench.json (cbf-bench: kernels, pipelines, live source), opencv.json (CPU,
# when python3 has cv2), gpu.txt (nvidia-smi: name, driver, clocks). Then, on
# a machine with matplotlib: python3 tools/bench/report.py DIR
# BENCH_ARGS holds more cbf-bench options; BENCH_ARGS=--live: the live-source
# rows alone (about 20 s), and no OpenCV run.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
commit=$2
image=${3:-$here/data/astronaut.png}
clip=${4:-$here/data/sample-720p.mp4}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$out/gpu.txt" || true
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64
export GST_PLUGIN_PATH=$here/build/gst
"$here/build/tools/bench/cbf-bench" --image "$image" --clip "$clip" --commit "$commit" --out "$out/bench.json" ${BENCH_ARGS:-}
case " ${BENCH_ARGS:-} " in *" --live "*) exit 0 ;; esac
if python3 -c "import cv2" 2>/dev/null; then
  python3 "$here/tools/bench/opencv_bench.py" --image "$image" --out "$out/opencv.json"
fi
