#!/usr/bin/env bash
# Installs the Debian 12 packages gst-cudabilateral needs that are missing.
#   tools/install-deps.sh            build and test packages
#   tools/install-deps.sh --sample   also what the sample job needs (demuxer,
#                                    H.264 decoder and encoder, muxer)
# The CUDA toolkit is not a Debian package: it is expected in /usr/local/cuda
# (NVIDIA's installer), or where CUDA_HOME points.
set -euo pipefail

packages=(meson ninja-build pkg-config gcc g++ python3
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
  # the mask file's loader links libjpeg (JPEG masks)
  libjpeg-dev
  # the mask tests write and read PNG files (pngenc, pngdec)
  gstreamer1.0-plugins-good
  valgrind
  # examples/preview.py and its tests: PyGObject with GStreamer's typelibs
  # (python3-gst-1.0 brings python3-gi, gir1.2-gstreamer-1.0 and
  # gir1.2-gst-plugins-base-1.0)
  python3-gst-1.0)
if [ "${1:-}" = "--sample" ]; then
  packages+=(gstreamer1.0-plugins-bad
    gstreamer1.0-plugins-ugly gstreamer1.0-libav)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda_home/bin/nvcc" ]; then
  echo "error: no CUDA toolkit in $cuda_home (nvcc not found)." >&2
  echo "Install the CUDA toolkit from NVIDIA (12.x or 13.x) or set CUDA_HOME." >&2
  exit 1
fi
