#!/usr/bin/env bash
# README command 1: install what is missing, build, filter the bundled clip.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh --sample
tools/build.sh
tools/run-sample.sh "$@"
