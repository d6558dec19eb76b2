#!/usr/bin/env python3
"""Compares the SASS of two builds' kernels, function by function, so that a
change meant to leave the machine code alone (a refactoring, comments,
formatting) can be shown to.

    tools/sass-diff.py OLD NEW [--cuobjdump PATH]

OLD and NEW are object files, fatbinaries or static libraries holding
fatbinaries (build/kernels/bilateral_channel.cu.o, say).
Addresses and encodings are ignored; functions are matched by name, with
--strip REGEX (repeatable) removed from the names first, for changes that
rename a parameter's type, and --rename OLD=NEW (repeatable) applied to the
old build's names and calls, for a change that renames identifiers: every
mangled name holding OLD takes NEW, its length fixed (8Colour32 becomes
7Color32). Prints each function that differs and ends with
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


def rename(text, old, new):
    """@text with @old replaced by @new in each identifier, the lengths of
    Itanium-mangled source names fixed."""
    out, i, boundary = [], 0, True
    while i < len(text):
        m = re.match(r"\d+", text[i:])
        if m and (boundary or not text[i - 1].isdigit()):
            n, j = int(m.group(0)), i + len(m.group(0))
            ident = text[j:j + n]
            if n and len(ident) == n and re.fullmatch(r"[A-Za-z_]\w*", ident):
                ident = ident.replace(old, new)
                out.append(f"{len(ident)}{ident}")
                i, boundary = j + n, True
                continue
        out.append(text[i])
        i, boundary = i + 1, False
    text = "".join(out)
    # Names that are not mangled (extern "C") carry the identifier whole.
    return re.sub(r"\b(?!_Z)\w*" + re.escape(old) + r"\w*",
                  lambda k: k.group(0).replace(old, new), text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--cuobjdump", default=shutil.which("cuobjdump") or
                    "/usr/local/cuda/bin/cuobjdump")
    ap.add_argument("--strip", action="append", default=[])
    ap.add_argument("--rename", action="append", default=[])
    a = ap.parse_args()
    renames = [r.split("=", 1) for r in a.rename]

    def norm(funcs, renamed):
        out = {}
        for name, body in funcs.items():
            if renamed:
                for old_id, new_id in renames:
                    name = rename(name, old_id, new_id)
                    body = [rename(line, old_id, new_id) for line in body]
            for pattern in a.strip:
                name = re.sub(pattern, "", name)
            out[name] = body
        return out

    old = norm(functions(a.cuobjdump, a.old), True)
    new = norm(functions(a.cuobjdump, a.new), False)
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
