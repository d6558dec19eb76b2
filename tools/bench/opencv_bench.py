#!/usr/bin/env python3
"""OpenCV's CPU bilateralFilter on the benchmark's inputs, for comparison.

    python3 tools/bench/opencv_bench.py --image astronaut.png --out cv.json

Same sizes, diameters and sigmas as cbf-bench; RGB (3 channels, what OpenCV
filters; our RGBA rows compare with it) and GRAY8; median of a few runs.
"""
import argparse
import json
import os
import time

import cv2
import numpy as np

SIZES = [(1920, 1080), (3840, 2160)]
DIAMETERS = [3, 5, 9, 15, 31]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--image", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--budget", type=float, default=2.0,
                    help="seconds of runs per case, at least one run")
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    base = cv2.cvtColor(cv2.imread(args.image, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    rng = np.random.default_rng(100)
    rows = []
    for w, h in SIZES:
        rgb = cv2.resize(base, (w, h), interpolation=cv2.INTER_LINEAR)
        rgb = np.clip(rgb.astype(np.int16) + rng.integers(-20, 21, rgb.shape), 0, 255).astype(np.uint8)
        gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        for fmt, img in (("RGB", rgb), ("GRAY8", gray)):
            for d in DIAMETERS:
                times = []
                start = time.perf_counter()
                while not times or (time.perf_counter() - start < args.budget and len(times) < 9):
                    t = time.perf_counter()
                    cv2.bilateralFilter(img, d, 30, 5, borderType=cv2.BORDER_DEFAULT)
                    times.append((time.perf_counter() - t) * 1000)
                ms = float(np.median(times))
                rows.append({"format": fmt, "width": w, "height": h, "diameter": d,
                             "ms": ms, "runs": len(times)})
                print(f"opencv {fmt:5} {w}x{h} d={d:<2} {ms:9.2f} ms ({len(times)} runs)", flush=True)
    with open(args.out, "w") as f:
        json.dump({"opencv": cv2.__version__, "threads": args.threads, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
