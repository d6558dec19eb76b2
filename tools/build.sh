#!/usr/bin/env bash
# Configures (once) and builds into ./build. Shared by the README's commands.
set -euo pipefail
cd "$(dirname "$0")/.."
cuda_home=${CUDA_HOME:-/usr/local/cuda}
export PATH="$cuda_home/bin:$PATH"
if [ ! -f build/build.ninja ]; then
  meson setup build -Dtoolkit_dir="$cuda_home"
fi
ninja -C build
