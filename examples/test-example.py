#!/usr/bin/env python3
# gst-cudabilateral
# Copyright (C) 2026 gst-cudabilateral authors
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""Runs an example as a test: skips (exit 77) where it cannot run, and checks
its exit code and output.

    test-example.py embed EMBED [ARGS...]
        needs a CUDA device; passes when embed exits 0 after at least two
        property changes while PLAYING
    test-example.py embed-bad-device EMBED [ARGS...]
        ARGS name a nonexistent --cuda-device-id; passes when embed reports
        the filter's error and exits 3. Runs without a GPU too: the element
        reports a missing device with the same kind of error.
    test-example.py regions REGIONS [ARGS...]
        needs a CUDA device; passes when regions exits 0 having written its
        output picture (ARGS' second file name) and reported its regions
    test-example.py preview PREVIEW.PY [ARGS...]
        needs a CUDA device and a Python with PyGObject and GStreamer;
        passes when preview exits 0 after every scripted change
    test-example.py preview-bad-device PREVIEW.PY [ARGS...]
        as embed-bad-device, for preview (needs PyGObject only)

Kept apart from the examples so that they stay plain applications. The
registered command lines run through meson test and through the GPU
machine's run-tests.py alike: this script is started by the python3 on
PATH, which need not be the one that has PyGObject (Debian's python3-gi is
for /usr/bin/python3), so preview runs under the first interpreter that can
import it.
"""

import ctypes
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
EXIT_ELEMENT_ERROR = 3      # the examples' code for an element's error
TIMEOUT = 300               # seconds; the examples have their own watchdogs


def cuda_device_count():
    """CUDA devices the driver reports (CUDA_VISIBLE_DEVICES applies), and
    why there are none. The driver API, through ctypes: no build needed."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return 0, f"no NVIDIA driver ({e})"
    status = cuda.cuInit(0)
    if status != 0:
        return 0, f"cuInit failed with CUresult {status}"
    count = ctypes.c_int(0)
    status = cuda.cuDeviceGetCount(ctypes.byref(count))
    if status != 0:
        return 0, f"cuDeviceGetCount failed with CUresult {status}"
    return count.value, "no CUDA device"


def require_device():
    count, why = cuda_device_count()
    if count <= 0:
        print(f"SKIP: {why}")
        sys.exit(SKIP)


def python_with_gst():
    """The first Python that imports GStreamer's bindings, or None."""
    probe = ("import gi; gi.require_version('Gst', '1.0'); "
             "from gi.repository import Gst")
    candidates = [os.environ.get("PYTHON"), sys.executable,
                  shutil.which("python3"), "/usr/bin/python3"]
    for python in dict.fromkeys(c for c in candidates if c):
        if not os.access(python, os.X_OK):
            continue
        r = subprocess.run([python, "-c", probe], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            return python
    return None


def run(cmd):
    """Runs cmd with no stdin (no key reading), echoing its output."""
    print("running:", " ".join(cmd), flush=True)
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else ""
        print(out)
        print(f"FAIL: still running after {TIMEOUT} s")
        sys.exit(1)
    print(r.stdout, end="", flush=True)
    print(f"exit code {r.returncode}")
    return r.returncode, r.stdout


def expect_element_error(cmd):
    code, out = run(cmd)
    if code != EXIT_ELEMENT_ERROR:
        print(f"FAIL: expected exit code {EXIT_ELEMENT_ERROR} (an element's "
              f"error), got {code}")
        return 1
    if "ERROR from element filter:" not in out:
        print("FAIL: no error from the element named filter in the output")
        return 1
    return 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kind, program, args = sys.argv[1], sys.argv[2], sys.argv[3:]

    if kind == "embed":
        require_device()
        code, out = run([program] + args)
        if code != 0:
            print(f"FAIL: embed exited {code}")
            return 1
        m = re.search(r"(\d+) property changes while PLAYING", out)
        if not m or int(m.group(1)) < 2:
            print("FAIL: fewer than 2 property changes while PLAYING")
            return 1
        return 0
    if kind == "regions":
        require_device()
        files = [a for a in args if not a.startswith("-") and "=" not in a
                 and "," not in a]
        out_png = files[1]
        if os.path.exists(out_png):
            os.unlink(out_png)
        code, out = run([program] + args)
        if code != 0:
            print(f"FAIL: regions exited {code}")
            return 1
        if not os.path.getsize(out_png) or "region(s) filtered" not in out:
            print(f"FAIL: no picture in {out_png} or no regions reported")
            return 1
        return 0
    if kind == "embed-bad-device":
        return expect_element_error([program] + args)
    if kind in ("preview", "preview-bad-device"):
        python = python_with_gst()
        if not python:
            print("SKIP: no Python here imports PyGObject with GStreamer "
                  "(Debian: python3-gst-1.0)")
            return SKIP
        if kind == "preview-bad-device":
            return expect_element_error([python, program] + args)
        require_device()
        code, out = run([python, program] + args)
        if code != 0:
            print(f"FAIL: preview exited {code}")
            return 1
        return 0
    sys.exit(f"unknown kind {kind!r}\n\n{__doc__}")


if __name__ == "__main__":
    sys.exit(main())
