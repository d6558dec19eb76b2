# Sourced (not run) by the CI scripts that bind the host's /proc, /dev and
# more into the Debian roots they make: tools/ci-package.sh and
# tools/ci-debian13.sh. Deleting a root while anything is still mounted below
# it deletes the host's files through the mount, and rm's --one-file-system
# does not stop at a bind mount of a directory on the same filesystem, so
# nothing here deletes before /proc/self/mountinfo shows no mount below.
#   cbf_bind SRC ROOT PATH    bind-mounts SRC at ROOT/PATH (made first if
#                             missing), private: what is mounted below it
#                             later does not reach SRC
#   cbf_mounts_below DIR      prints every mount point at or below DIR,
#                             deepest first, one a line
#   cbf_unmount_below DIR     unmounts those below DIR (DIR itself, where
#                             it is one, stays), one that stays busy lazily
#                             (umount -l); fails, naming each mount point
#                             that remains, if mountinfo still lists one
#   cbf_remove_root DIR       cbf_unmount_below, then rm -rf
#                             --one-file-system; refuses (fails, naming the
#                             mount points) while any remains at or below
#                             DIR
#   cbf_lock_root ROOT        for a root kept between runs: waits for
#                             ROOT.lock, holds it till this shell exits, and
#                             unmounts what a killed run left below ROOT
#   cbf_clear_stale PREFIX    unmounts and removes every PREFIX.* directory
#                             that no live run holds (see cbf_new_work_dir)
#   cbf_new_work_dir PREFIX   cbf_clear_stale, then makes a PREFIX.XXXXXX
#                             directory held by this shell till it exits
#                             (its file "lock", flock); its path in
#                             cbf_work_dir
# No list of mounts is kept: mountinfo is the list, and it holds what a
# killed run or debootstrap mounted as well. Messages go to stderr and
# start with "chroot-mounts:". Written for callers
# under set -Eeuo pipefail with an ERR trap: a command expected to fail is
# only ever run as a condition.
# shellcheck shell=bash

cbf_bind () {
  local src=$1 root target
  root=$(readlink -m -- "$2")
  # A symbolic link in the root (one to /dev, say) would put the mount
  # outside it, where no cleanup of the root looks.
  target=$(readlink -m -- "$2$3")
  case $target in
    "$root"/*) ;;
    *) echo "chroot-mounts: $2$3 leads out of $root (to $target): not mounting $src there" >&2
       return 1 ;;
  esac
  mkdir -p -- "$target"
  mount --bind -- "$src" "$target"
  # With shared propagation (systemd's /) a bind of /dev is a peer of the
  # host's /dev, and /dev/pts bound below it would be mounted there too.
  mount --make-private -- "$target"
}

# Sets cbf_found to the mount points at or below DIR (only below with a
# second argument, "below"), deepest first.
_cbf_find_mounts () {
  local dir point i at=true
  local -a sorted=()
  dir=$(readlink -m -- "$1")
  if [ "${2:-}" = below ]; then at=false; fi
  cbf_found=()
  # The fifth field; the kernel writes a space, tab, newline or backslash
  # in it as a backslash and three octal digits, which %b reads as \0ooo.
  while read -r _ _ _ _ point _; do
    printf -v point '%b' "${point//\\/\\0}"
    if [ "$point" = "$dir" ]; then
      if $at; then cbf_found+=("$point"); fi
    elif [ "$dir" = / ] || [ "${point#"$dir"/}" != "$point" ]; then
      cbf_found+=("$point")
    fi
  done </proc/self/mountinfo
  # A mount point below another is the longer path: by length, longest
  # first, mountinfo's order kept among equals.
  for point in "${cbf_found[@]}"; do
    i=${#sorted[@]}
    while [ "$i" -gt 0 ] && [ "${#sorted[i-1]}" -lt "${#point}" ]; do
      sorted[i]=${sorted[i-1]}
      i=$((i - 1))
    done
    sorted[i]=$point
  done
  cbf_found=("${sorted[@]}")
}

cbf_mounts_below () {
  _cbf_find_mounts "$1"
  if [ ${#cbf_found[@]} -gt 0 ]; then printf '%s\n' "${cbf_found[@]}"; fi
}

cbf_unmount_below () {
  local point error left
  _cbf_find_mounts "$1" below
  # Again while a pass unmounts something: one mount hidden under another
  # at a parent path shows only once that one is gone.
  while [ ${#cbf_found[@]} -gt 0 ]; do
    left=${#cbf_found[@]}
    for point in "${cbf_found[@]}"; do
      if ! error=$(umount -- "$point" 2>&1); then
        # Busy (a process's directory or open file is on it): detached from
        # the tree at once, the filesystem freed when the last user goes.
        if umount -l -- "$point" 2>/dev/null; then
          error=${error##*: }
          echo "chroot-mounts: $point: ${error%.}; detached lazily (umount -l)" >&2
        fi
      fi
    done
    _cbf_find_mounts "$1" below
    [ ${#cbf_found[@]} -lt "$left" ] || break
  done
  if [ ${#cbf_found[@]} -gt 0 ]; then
    echo "chroot-mounts: still mounted below $1:" "${cbf_found[@]}" >&2
    return 1
  fi
}

cbf_remove_root () {
  local dir=$1
  if [ ! -e "$dir" ] && [ ! -L "$dir" ]; then return 0; fi
  if [ -L "$dir" ] || [ "$(readlink -m -- "$dir")" = / ]; then
    echo "chroot-mounts: $dir is not a root to remove" >&2
    return 1
  fi
  # Its own message names what stays; the check below is what guards.
  cbf_unmount_below "$dir" || true
  _cbf_find_mounts "$dir"
  if [ ${#cbf_found[@]} -gt 0 ]; then
    echo "chroot-mounts: not removing $dir: still mounted at or below it:" "${cbf_found[@]}" >&2
    return 1
  fi
  # Nothing is mounted below: --one-file-system only for one that a process
  # mounts there meanwhile.
  rm -rf --one-file-system -- "$dir"
}

cbf_lock_root () {
  local root=$1
  mkdir -p -- "$(dirname -- "$root")"
  exec {cbf_root_lock}>>"$root.lock"
  if ! flock -n "$cbf_root_lock"; then
    echo "chroot-mounts: waiting for the run that holds $root.lock" >&2
    flock "$cbf_root_lock"
  fi
  cbf_unmount_below "$root"
}

cbf_clear_stale () {
  local prefix=$1 dir lock status=0
  for dir in "$prefix".*; do
    if [ ! -d "$dir" ] || [ -L "$dir" ]; then continue; fi
    lock=
    # A live run holds its directory's lock, and so does any process of it
    # that outlived a killed run; a directory without one is from a run
    # killed before it took it, or from before runs took one.
    if [ -f "$dir/lock" ]; then
      exec {lock}<"$dir/lock"
      if ! flock -n "$lock"; then
        exec {lock}<&-
        continue
      fi
    fi
    echo "chroot-mounts: removing $dir, left by an earlier run" >&2
    cbf_remove_root "$dir" || status=1
    if [ -n "$lock" ]; then exec {lock}<&-; fi
  done
  return "$status"
}

cbf_new_work_dir () {
  local prefix=$1 guard
  mkdir -p -- "$(dirname -- "$prefix")"
  # Held from the clearing to the new directory's lock, so that no other
  # run takes the new directory, not yet locked, for a stale one.
  exec {guard}>>"$prefix.lock"
  flock "$guard"
  cbf_clear_stale "$prefix" || true
  cbf_work_dir=$(mktemp -d "$prefix.XXXXXX")
  exec {cbf_work_lock}>"$cbf_work_dir/lock"
  flock -n "$cbf_work_lock"
  exec {guard}>&-
}
