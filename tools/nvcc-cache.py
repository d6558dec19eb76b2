#!/usr/bin/env python3
"""Compiles a kernel object with nvcc, or takes it from a cache.

  nvcc-cache.py NVCC [ARG...] -MD -MF DEPFILE -o OBJECT -c SOURCE

Without CBF_KERNEL_CACHE in the environment it runs the command as it is.
With it (a directory), the object is looked up by a key made of nvcc's
version, the arguments (less the output names, the include directories and
the -Werror options) and the contents of every file the source includes
(nvcc -M), so that builds of one configuration in different directories or
copies of the tree (the sanitizer build of tools/run-tests.sh, CI's build
without GStreamer's CUDA library and its Debian package, each for the main
build's architectures) compile each kernel once. An object compiled with -Werror options serves builds
with the same options or none; one compiled without, only builds without.
The dependency file is written either way."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile


def main(argv):
    cache = os.environ.get("CBF_KERNEL_CACHE")
    if not cache:
        os.execvp(argv[0], argv)
    out = argv[argv.index("-o") + 1]
    dep = argv[argv.index("-MF") + 1]
    source = argv[-1]
    # What decides the object, with the paths that differ between trees
    # left out: their contents are in the key below.
    key_args, werror, skip = [], [], False
    for a in argv[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF"):
            skip = True
        elif a in ("-MD", "-c", source) or a.startswith("-I"):
            continue
        elif a.startswith("-Werror"):
            werror.append(a)
        else:
            key_args.append(a)
    # The files the source includes, into the dependency file ninja reads.
    deps_cmd = []
    for i, a in enumerate(argv[:-1]):
        if a in ("-MD", "-c") or a == "-o" or (i and argv[i - 1] == "-o"):
            continue
        deps_cmd.append(a)
    deps_cmd += ["-M", "-MT", out, source]
    if subprocess.run(deps_cmd).returncode != 0:
        return 1
    with open(dep) as f:
        files = f.read().replace("\\\n", " ").split(":", 1)[1].split()
    h = hashlib.sha256()
    h.update(subprocess.run([argv[0], "--version"], stdout=subprocess.PIPE,
                            check=True).stdout)
    h.update("\0".join(key_args).encode())
    for name in files:
        with open(name, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    key = h.hexdigest()
    flags = hashlib.sha256("\0".join(sorted(werror)).encode()).hexdigest()[:16]
    strict = os.path.join(cache, f"{key}-{flags}.o")
    # Without -Werror options, an object any build of these arguments made
    # will do; with them, only one made with the same.
    candidates = [strict]
    if not werror and os.path.isdir(cache):
        candidates += sorted(os.path.join(cache, n) for n in os.listdir(cache)
                             if n.startswith(key + "-") and n.endswith(".o"))
    for c in candidates:
        if os.path.exists(c):
            shutil.copyfile(c, out)
            # Used now: what a cache keeps longest (tools/run-tests.sh).
            os.utime(c)
            return 0
    rc = subprocess.run(argv).returncode
    if rc == 0:
        os.makedirs(cache, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache, suffix=".part")
        os.close(fd)
        shutil.copyfile(out, tmp)
        os.replace(tmp, strict)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
