# Sourced (not run) by the CI scripts that make Debian roots with
# debootstrap: tools/ci-debian13.sh and tools/ci-package.sh.
#   cbf_debian_mirror   prints the Debian archive apt here uses (a Debian
#                       machine's sources, one-line or deb822), nothing if
#                       none
# shellcheck shell=bash

cbf_debian_mirror () {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
    grep -oE '^(URIs:|deb) +[^ ]+/debian/?( |$)' | head -n 1 |
    awk '{print $2}' || true
}
