#!/usr/bin/env python3
"""Compares the SASS of two builds' kernels, function by function, so that a
change meant to leave the machine code alone (a refactoring, comments,
formatting) can be shown to.

    tools/sass-diff.py OLD NEW [--cuobjdump PATH]

OLD and NEW are object files, fatbinaries or static libraries holding
fatbinaries (build/kernels/bilateral_channel.cu.o, say).
Addresses and encodings are ignored; functions are matched by name, with
--strip REGEX (repeatable) removed from the names first, for changes that
rename a parameter's type. Prints each function that differs and ends with
'N functions identical, N differ'; exit 1 if any differ.

cuobjdump comes with the CUDA toolkit; where the toolkit has none,
`pip download nvidia-cuda-cuobjdump` holds it in its wheel
(nvidia/cu13/bin/cuobjdump), and it needs nvdisasm on PATH (or in
NVDISASM_PATH) too: `pip download nvidia-cuda-nvdisasm`.

nvcc's register numbers and call offsets can differ between two compiles
of the same source in different directories (the anonymous namespace's
name holds the path): compare builds made in one directory, and take a
function that differs only so for noise."""
import argparse
import re
import shutil
import subprocess
import sys


def functions(cuobjdump, path):
    out = subprocess.run([cuobjdump, "-sass", path], capture_output=True,
                         text=True, check=True).stdout
    funcs, current = {}, None
    for line in out.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            current = m.group(1)
            funcs[current] = []
            continue
        if current is None:
            continue
        line = re.sub(r"/\*[0-9a-f]{4,}\*/", "", line)
        line = re.sub(r"/\* 0x[0-9a-f]+ \*/", "", line).strip()
        if line and not line.startswith(".........."):
            funcs[current].append(line)
    return funcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--cuobjdump", default=shutil.which("cuobjdump") or
                    "/usr/local/cuda/bin/cuobjdump")
    ap.add_argument("--strip", action="append", default=[])
    a = ap.parse_args()

    def norm(funcs):
        out = {}
        for name, body in funcs.items():
            for pattern in a.strip:
                name = re.sub(pattern, "", name)
            out[name] = body
        return out

    old = norm(functions(a.cuobjdump, a.old))
    new = norm(functions(a.cuobjdump, a.new))
    same = differ = 0
    for name in sorted(set(old) | set(new)):
        if name not in old or name not in new:
            print("only in", "old" if name in old else "new", name)
            differ += 1
        elif old[name] == new[name]:
            same += 1
        else:
            differ += 1
            for i, (x, y) in enumerate(zip(old[name], new[name])):
                if x != y:
                    print(f"{name}: instruction {i}: {x} | {y}")
                    break
            else:
                print(f"{name}: {len(old[name])} against {len(new[name])} "
                      "instructions")
    print(f"{same} functions identical, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
