#!/usr/bin/env bash
# Formats the sources the way the project keeps them: the C files (*.c)
# with GNU indent and GStreamer's gst-indent options (run twice, as
# gst-indent does: indent breaks some lines differently on a second run),
# the CUDA C++ in kernels/ (*.cu, *.cuh) with clang-format and the
# repository's .clang-format. Headers (*.h) are left as written, as in
# GStreamer.
#   tools/format.sh           format in place
#   tools/format.sh --check   list the files that would change; exit 1 if any
# Needs GNU indent and clang-format (Debian: indent, clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
[ "${1:-}" = "--check" ] && check=true
for tool in indent clang-format; do
  command -v $tool >/dev/null || { echo "error: $tool is not installed" >&2; exit 2; }
done
indent_opts="--braces-on-if-line --case-brace-indentation0
  --case-indentation2 --braces-after-struct-decl-line --line-length80
  --no-tabs --cuddle-else --dont-line-up-parentheses
  --continuation-indentation4 --honour-newlines --tab-size8 --indent-level2
  --leave-preprocessor-space"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
changed=0
format_c () {
  indent $indent_opts "$1" -o "$tmp/a.c" && indent $indent_opts "$tmp/a.c" -o "$2"
}
format_cuda () {
  clang-format --style=file "$1" > "$2"
}
while IFS= read -r f; do
  case $f in
    *.c) format_c "$f" "$tmp/out" ;;
    *) format_cuda "$f" "$tmp/out" ;;
  esac
  if ! cmp -s "$f" "$tmp/out"; then
    changed=1
    if $check; then echo "$f"; else cp "$tmp/out" "$f"; fi
  fi
done < <(git ls-files '*.c' 'kernels/*.cu' 'kernels/*.cuh')
$check && [ $changed = 1 ] && { echo "(tools/format.sh formats them)" >&2; exit 1; }
exit 0
