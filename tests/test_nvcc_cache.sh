#!/usr/bin/env bash
# tools/nvcc-cache.py with a fake nvcc (a script that counts its compiles
# and writes an object naming its arguments and its source's contents):
# without CBF_KERNEL_CACHE every call compiles; with it, a second tree's
# build of the same arguments takes the first's object (other paths, other
# include directory) and still writes its dependency file; a changed
# header, a changed option or a request for -Werror options the cached
# object was not built with compile again; a build without -Werror takes
# an object built with them. Argument: the tools directory.
set -uo pipefail
tools=$(cd "${1:-$(dirname "$0")/../tools}" && pwd)
wrapper=$tools/nvcc-cache.py
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$((failures + 1)); }

# The fake nvcc: --version; -M -MT T -MF F SRC (the source and its
# header as dependencies); else a compile of SRC into -o OUT, counted.
cat >"$scratch/nvcc" <<'EOF'
#!/usr/bin/env bash
[ "$1" = --version ] && { echo "fake nvcc 1.0"; exit 0; }
out= dep= target= src=${*: -1} deps_only=false
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift ;;
    -MF) dep=$2; shift ;;
    -MT) target=$2; shift ;;
    -M) deps_only=true ;;
  esac
  shift
done
hdr=$(dirname "$src")/kernel.h
if $deps_only; then
  printf '%s : %s \\\n  %s\n' "$target" "$src" "$hdr" >"$dep"
  exit 0
fi
echo compiled >>"$FAKE_NVCC_LOG"
{ echo "args: $FAKE_ARGS"; cat "$src" "$hdr"; } >"$out"
[ -n "$dep" ] && printf '%s : %s %s\n' "$out" "$src" "$hdr" >"$dep"
exit 0
EOF
chmod +x "$scratch/nvcc"
export FAKE_NVCC_LOG=$scratch/log
: >"$FAKE_NVCC_LOG"
compiles () { wc -l <"$FAKE_NVCC_LOG"; }

# A tree: a kernel and the header it includes, and a build directory.
tree () {
  mkdir -p "$scratch/$1/src" "$scratch/$1/build"
  echo "kernel $2" >"$scratch/$1/src/k.cu"
  echo "header $3" >"$scratch/$1/src/kernel.h"
}
# Builds tree $1's object with extra arguments; the call's status.
build () {
  local t=$1
  shift
  (cd "$scratch/$t/build" && rm -f k.o k.o.d &&
    "$wrapper" "$scratch/nvcc" -gencode=arch=compute_75,code=sm_75 -O3 \
      "-I$scratch/$t/src" "$@" -MD -MF k.o.d -o k.o -c ../src/k.cu)
}
expect () { # what count
  local n
  n=$(compiles)
  [ "$n" = "$2" ] || fail "$1: $n compiles in all, expected $2"
}

tree a 1 1
tree b 1 1
unset CBF_KERNEL_CACHE
build a || fail "no cache: the wrapper failed"
build a
expect "without CBF_KERNEL_CACHE, each call compiles" 2

export CBF_KERNEL_CACHE=$scratch/cache
build a -Werror=reorder || fail "the first build with the cache failed"
expect "the first build with the cache" 3
build b -Werror=reorder || fail "the second tree's build failed"
expect "another tree, the same arguments and contents" 3
cmp -s "$scratch/a/build/k.o" "$scratch/b/build/k.o" ||
  fail "the second tree's object is not the first's"
grep -q "kernel.h" "$scratch/b/build/k.o.d" 2>/dev/null ||
  fail "a cache hit wrote no dependency file naming the header"

build b
expect "without -Werror, an object built with it" 3
build b -Werror=deprecated-declarations
expect "other -Werror options than the cached object's" 4
build b -O2 -Werror=reorder
expect "another option" 5
echo "header 2" >"$scratch/b/src/kernel.h"
build b -Werror=reorder
expect "a changed header" 6
grep -q "header 2" "$scratch/b/build/k.o" ||
  fail "the changed header's build took the old object"

# An object compiled without -Werror serves no build with them.
tree c 3 3
build c
expect "a new source, without -Werror" 7
build c -Werror=reorder
expect "-Werror options against an object built without" 8

[ "$failures" = 0 ] || exit 1
echo "nvcc-cache: all cases hold"
