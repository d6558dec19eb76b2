#!/usr/bin/env bash
# tools/chroot-mounts.sh, the cleanup of the CI scripts' Debian roots, on
# fake ones: directories of a scratch directory stand for the host's /dev
# and /dev/pts (never the real ones) and are bound into a fake root, in a
# mount namespace of the test's own where unshare can make one (nothing
# mounted here is then seen outside, nor outlives the test). Cases: a root
# whose two nested mounts are busy (a process's directory, an open file) is
# removed and the fake host's files stay; a mount point with a space in its
# name is listed as it is; a work directory a killed run left (a busy
# mount below it) is cleared and removed while a live run's is left alone,
# and a new one is held; a kept root (ci-debian13.sh's) loses what a killed
# run left mounted in it and nothing else; a mount that will not go makes the removal refuse,
# naming it, and delete nothing; and tools/ci-package.sh's ERR trap names
# the line and the command of a $(grep ...) and a grep | sed | tee that
# find nothing, once. Argument: the tools directory (default: the one
# beside this file's). Skipped (77) unless root with mount --bind allowed.
# shellcheck disable=SC2317  # functions called by the trap and by check
set -uo pipefail
tools=${1:-$(cd "$(dirname "$0")/../tools" && pwd)}
lib=$tools/chroot-mounts.sh
if [ "$(id -u)" != 0 ]; then echo "SKIP: mount --bind needs root"; exit 77; fi
if [ -z "${CBF_TEST_NAMESPACE:-}" ] &&
  unshare --mount --propagation private true 2>/dev/null; then
  export CBF_TEST_NAMESPACE=1
  exec unshare --mount --propagation private "$BASH" "$0" "$tools"
fi

scratch=$(mktemp -d)
pids=()
# Mount points at or below DIR, deepest first, read here without the
# library under test (its \ooo escapes undone: a case has a space).
mounted () {
  awk -v d="$1" '
    function unescape(s,  out, i) {
      for (i = 1; i <= length(s); i++)
        if (substr(s, i, 1) == "\\") {
          out = out sprintf("%c", substr(s, i + 1, 1) * 64 + substr(s, i + 2, 1) * 8 + substr(s, i + 3, 1))
          i += 3
        } else out = out substr(s, i, 1)
      return out
    }
    { p = unescape($5) }
    p == d || index(p, d "/") == 1 { print length(p), p }' /proc/self/mountinfo |
    sort -rn | cut -d ' ' -f 2-
}
# Runs even when a case fails: the background processes go, then every
# mount below the scratch directory, which is removed only then.
cleanup () {
  local pid m
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  mounted "$scratch" | while read -r m; do umount -l "$m"; done
  if [ -z "$(mounted "$scratch")" ]; then
    rm -rf --one-file-system "$scratch"
  else
    echo "left $scratch: still mounted there:" "$(mounted "$scratch")"
  fi
}
trap cleanup EXIT
# bash runs no EXIT trap when a signal (meson's timeout) kills it.
trap 'exit 143' TERM; trap 'exit 130' INT

mkdir "$scratch/a" "$scratch/b"
if ! mount --bind "$scratch/a" "$scratch/b" 2>/dev/null; then
  echo "SKIP: mount --bind not allowed here"; exit 77
fi
umount "$scratch/b"
# shellcheck source=tools/chroot-mounts.sh
. "$lib"

failed=0
check () {  # check NAME CONDITION... : the condition a command, run as is
  local name=$1
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failed=1; fi
}
# A process that keeps DIR busy, its directory there, till the test ends.
busy_in () { (cd "$1" && exec sleep 600) & pids+=($!); }
# A process that holds FILE open, or FILE's lock (flock), till the test
# ends: one process, so that killing it ends both.
holding () { (exec sleep 600) 3<"$1" & pids+=($!); }
locking () { (exec 3>"$1" && flock 3 && exec sleep 600) & pids+=($!); }
umount_fails () { ! umount "$1" 2>/dev/null; }
lock_held () { ! flock -n "$1" true; }
# A fake host directory DIR holding FILE.
fake_host () { mkdir -p "$1"; echo "host's" >"$1/$2"; }

# Busy nested mounts: the fake /dev and /dev/pts bound as ci-package.sh
# binds the real ones; a process in dev/pts, another with a file of dev open.
fake_host "$scratch/host/dev" null
mkdir -p "$scratch/host/dev/pts"
fake_host "$scratch/host/pts" ptmx
work=$scratch/cbf-package.busy
mkdir -p "$work/root"
cbf_bind "$scratch/host/dev" "$work/root" /dev
cbf_bind "$scratch/host/pts" "$work/root" /dev/pts
busy_in "$work/root/dev/pts"
holding "$work/root/dev/null"
sleep 0.2
check "busy: a plain umount of root/dev/pts fails" umount_fails "$work/root/dev/pts"
check "busy: a plain umount of root/dev fails" umount_fails "$work/root/dev"
cbf_remove_root "$work" 2>"$scratch/busy.err"
echo "     cbf_remove_root: exit status $?; said:"; sed 's/^/       /' "$scratch/busy.err"
check "busy: the fake host's dev/null is still there" test -f "$scratch/host/dev/null"
check "busy: the fake host's pts/ptmx is still there" test -f "$scratch/host/pts/ptmx"
check "busy: nothing is mounted below the work directory" test -z "$(mounted "$work")"
check "busy: the work directory is gone" test ! -e "$work"

# A mount point whose name has a space: mountinfo writes it \040.
fake_host "$scratch/host/spaced" file
fake_host "$scratch/host/spaced2" file
mkdir -p "$scratch/spaced/a b"
mount --bind "$scratch/host/spaced" "$scratch/spaced/a b"
mkdir "$scratch/spaced/a b/c"
mount --bind "$scratch/host/spaced2" "$scratch/spaced/a b/c"
check "space: cbf_mounts_below lists both, deepest first" \
  test "$(cbf_mounts_below "$scratch/spaced")" = "$scratch/spaced/a b/c
$scratch/spaced/a b"
cbf_remove_root "$scratch/spaced" 2>/dev/null
check "space: removed, the fake host's files kept" \
  test ! -e "$scratch/spaced" -a -f "$scratch/host/spaced/file" \
    -a -f "$scratch/host/spaced2/file"

# An earlier run killed: its work directory (its lock free) still has the
# fake /dev bound in and a leftover process there; another one has no lock
# (from before runs took one). A live run's directory (its lock held) has
# a mount too and is left as it is.
prefix=$scratch/cbf-package
fake_host "$scratch/host/dev2" null
dead=$prefix.DEAD01 old=$prefix.OLD001 live=$prefix.LIVE01
mkdir -p "$dead/root" "$old/root" "$live/root"
: >"$dead/lock"
cbf_bind "$scratch/host/dev2" "$dead/root" /dev
busy_in "$dead/root/dev"
cbf_bind "$scratch/host/dev2" "$live/root" /dev
locking "$live/lock"
for _ in $(seq 50); do flock -n "$live/lock" true || break; sleep 0.1; done
sleep 0.2
cbf_new_work_dir "$prefix" 2>"$scratch/stale.err"
echo "     cbf_new_work_dir: exit status $?; said:"; sed 's/^/       /' "$scratch/stale.err"
check "stale: the fake host's dev2/null is still there" test -f "$scratch/host/dev2/null"
check "stale: nothing is mounted below the killed run's directory" test -z "$(mounted "$dead")"
check "stale: the killed run's directory is gone" test ! -e "$dead"
check "stale: the lockless directory is gone" test ! -e "$old"
check "stale: the live run's directory and mount stay" \
  test -d "$live" -a "$(mounted "$live")" = "$live/root/dev"
new_and_held () {
  [[ ${cbf_work_dir:-} == "$prefix".?????? ]] && [ -d "$cbf_work_dir" ] &&
    lock_held "$cbf_work_dir/lock"
}
check "stale: a new work directory, held" new_and_held

# A root kept between runs (ci-debian13.sh's): what a killed run left
# mounted below it, busy, goes; the root and its files stay; it is held.
fake_host "$scratch/host/dev4" null
kept=$scratch/cbf-debian13
mkdir -p "$kept/usr/bin"
echo meson >"$kept/usr/bin/meson"
cbf_bind "$scratch/host/dev4" "$kept" /dev
busy_in "$kept/dev"
cbf_lock_root "$kept" 2>"$scratch/kept.err"
echo "     cbf_lock_root: exit status $?; said:"; sed 's/^/       /' "$scratch/kept.err"
check "kept: nothing is mounted below the root" test -z "$(mounted "$kept")"
check "kept: the root's files and the fake host's stay" \
  test -f "$kept/usr/bin/meson" -a -f "$scratch/host/dev4/null"
check "kept: ROOT.lock held" lock_held "$kept.lock"

# A mount that will not go (cbf_unmount_below made to do nothing): the
# removal refuses, naming it, and deletes nothing.
fake_host "$scratch/host/dev3" null
work=$scratch/cbf-package.stuck
mkdir -p "$work/root/etc"
echo root >"$work/root/etc/hostname"
cbf_bind "$scratch/host/dev3" "$work/root" /dev
(cbf_unmount_below () { return 0; }; cbf_remove_root "$work") 2>"$scratch/stuck.err"
status=$?
echo "     cbf_remove_root: exit status $status; said:"; sed 's/^/       /' "$scratch/stuck.err"
check "stuck: refused (non-zero)" test "$status" -ne 0
check "stuck: the message names the mount point" grep -qF "$work/root/dev" "$scratch/stuck.err"
check "stuck: the fake host's dev3/null is still there" test -f "$scratch/host/dev3/null"
check "stuck: the root's own files are still there" test -f "$work/root/etc/hostname"

# ci-package.sh's own on_error and ERR trap, in a script that fails as it
# would have: a $(grep ...) and then a pipeline that find nothing.
{
  echo 'set -Eeuo pipefail'
  echo 'fail () { trap - ERR; echo "package: FAILED: $*"; exit 1; }'
  sed -n '/^on_error () {$/,/^}$/p' "$tools/ci-package.sh"
  grep -E "^trap '.*' ERR$" "$tools/ci-package.sh"
  cat <<'EOF'
empty=$(mktemp)
trap 'rm -f "$empty"' EXIT
if [ "${1:-}" = grep ]; then
  error=$(grep -m 1 -A 1 -E '^ERROR: from element' "$empty" | tr '\n' ' ')
else
  grep -E "^  Version" "$empty" | sed "s/^/package: /" | tee /dev/null
fi
echo "package: not stopped"
EOF
} >"$scratch/err-trap.sh"
for kind in grep pipeline; do
  "$BASH" "$scratch/err-trap.sh" "$kind" >"$scratch/err-trap.out" 2>&1
  status=$?
  echo "     $kind: exit status $status; said:"; sed 's/^/       /' "$scratch/err-trap.out"
  case $kind in
    grep) line=$(grep -nF "error=\$(grep" "$scratch/err-trap.sh" | cut -d : -f 1)
          want="package: FAILED: err-trap.sh line $line: error=\$(grep -m 1 -A 1 -E '^ERROR: from element'" ;;
    pipeline) line=$(grep -n '  grep -E "^  Version"' "$scratch/err-trap.sh" | cut -d : -f 1)
          want="package: FAILED: err-trap.sh line $line: a pipeline ending in tee /dev/null (exit statuses 1 0 0)" ;;
  esac
  check "ERR trap, $kind: one FAILED line, naming the line and command" \
    test "$status" = 1 -a "$(grep -c FAILED "$scratch/err-trap.out")" = 1 \
      -a "$(grep -cF "$want" "$scratch/err-trap.out")" = 1
done
exit $failed
