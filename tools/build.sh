#!/usr/bin/env bash
# Configures (once) and builds into ./build. Shared by the README's commands.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/cuda-env.sh
cbf_setup build
ninja -C build
