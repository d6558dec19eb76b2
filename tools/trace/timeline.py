#!/usr/bin/env python3
# gst-cudabilateral
# Copyright (C) 2026 gst-cudabilateral authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How busy each stream kept its engine, from a cbf-trace.c CSV.

Per CUDA stream with at least --min-ops copies or kernels (an element's
upload, compute and download streams; a benchmark row's pipeline each), over
its ops after the first fifth: how many, the share of that time its engine
was busy, and the median and largest idle gap between two ops. Then every
op of all streams in a window of --window microseconds from the middle of
the busiest upload stream's run (the time relative to the window's start),
so that a frame's uploads, kernels and downloads, and the next frame's, can
be read side by side.

The GPU's own timestamps only: a program that links the CUDA runtime
statically (the plugin does) makes its calls through pointers the driver
hands out, which CUPTI's driver-call records do not all see, so frames are
not told apart by their calls.
"""

import argparse
import csv
import statistics
from collections import defaultdict


def load(path):
    ops = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["what"] in ("copy", "kernel"):
                r["start"], r["end"] = int(r["start"]), int(r["end"])
                ops.append(r)
    ops.sort(key=lambda o: o["start"])
    return ops


def label(o):
    if o["what"] == "kernel":
        return "kernel " + o["name"][-48:]
    return f"{o['name']} {int(o['bytes']) / 1e6:.2f} MB"


def stream_report(stream, ops):
    steady = ops[len(ops) // 5:]
    t0, t1 = steady[0]["start"], max(o["end"] for o in steady)
    busy = sum(o["end"] - o["start"] for o in steady)
    gaps = [b["start"] - a["end"] for a, b in zip(steady, steady[1:])]
    kinds = sorted({o["name"] if o["what"] == "copy" else "kernel"
                    for o in steady})
    print(f"  stream {stream:>4s}  {'/'.join(kinds):12s} {len(steady):6d} ops"
          f"  busy {100 * busy / max(t1 - t0, 1):5.1f} %"
          f"  idle gap median {statistics.median(gaps) / 1e3 if gaps else 0:7.1f} us"
          f"  max {max(gaps) / 1e3 if gaps else 0:8.1f} us")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--min-ops", type=int, default=200,
                    help="streams with fewer ops are left out")
    ap.add_argument("--window", type=float, default=1500,
                    help="microseconds of ops to list (0: none)")
    args = ap.parse_args()
    by_stream = defaultdict(list)
    for o in load(args.csv):
        by_stream[o["stream"]].append(o)
    streams = {s: v for s, v in by_stream.items() if len(v) >= args.min_ops}
    if not streams:
        raise SystemExit("no stream with enough ops")
    print("streams, in the order they first ran, after their first fifth:")
    for s, v in sorted(streams.items(), key=lambda sv: sv[1][0]["start"]):
        stream_report(s, v)
    uploads = [v for v in streams.values() if v[0]["name"] == "HtoD"]
    if not uploads or args.window <= 0:
        return
    run = max(uploads, key=len)
    mid = run[len(run) // 2]["start"]
    end = mid + args.window * 1e3
    near = [o for s in streams.values() for o in s
            if o["end"] > mid and o["start"] < end]
    print(f"\nops from {args.window:.0f} us of the longest upload stream's "
          "middle (start, end in us):")
    for o in sorted(near, key=lambda o: o["start"]):
        print(f"  {(o['start'] - mid) / 1e3:8.1f} {(o['end'] - mid) / 1e3:8.1f}"
              f"  stream {o['stream']:>4s}  {label(o)}")


if __name__ == "__main__":
    main()
