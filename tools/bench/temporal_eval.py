#!/usr/bin/env python3
"""Denoising quality on the temporal filter's evaluation clip.

    tools/bench/temporal_eval.py CLIPDIR [--element] [--ffmpeg] [--json OUT]

CLIPDIR is what tools/make-temporal-clip.py writes. --element filters
noisy.gray with cudabilateral (gst-launch-1.0: filesrc ! rawvideoparse !
cudabilateral ! filesink; the plugin found as GStreamer finds it, a GPU
needed): spatial only, and the temporal filter at a few settings. --ffmpeg
filters the same frames with FFmpeg's hqdn3d, atadenoise and nlmeans at a
few settings each. Each row: PSNR against clean.gray, the mean of the
frames' PSNR over the still frames and over the moving ones, and the run's
wall time a frame (the whole run, files and start-up included). Prints a
Markdown table; --json writes the rows. --crops DIR (with --element)
writes a 200 x 150 crop of the last still frame, noisy, spatial only
(the second row) and temporal (the fourth), side by side, as DIR/crops.gray
(600 x 150, GRAY8), for the user guide's picture.
"""
import argparse
import json
import math
import os
import subprocess
import tempfile
import time

import numpy as np

ELEMENT_ROWS = [
    ("spatial only", "diameter=9 sigma-color=30 sigma-space=5", 0),
    ("spatial only", "diameter=5 sigma-color=30 sigma-space=5", 0),
    ("spatial only", "diameter=3 sigma-color=30 sigma-space=5", 0),
    ("temporal", "diameter=5 sigma-color=30 sigma-space=5 temporal-strength=0.7 temporal-sigma=6", 0),
    ("temporal", "diameter=5 sigma-color=30 sigma-space=5 temporal-strength=0.8 temporal-sigma=6", 0),
    ("temporal", "diameter=5 sigma-color=30 sigma-space=5 temporal-strength=0.9 temporal-sigma=12", 0),
    ("temporal", "diameter=3 sigma-color=30 sigma-space=5 temporal-strength=0.8 temporal-sigma=10", 0),
    ("spatial only", "diameter=3 sigma-color=40 sigma-space=5", 0),
    ("temporal", "diameter=3 sigma-color=40 sigma-space=5 temporal-strength=0.7 temporal-sigma=12", 0),
    ("temporal", "diameter=3 sigma-color=40 sigma-space=5 temporal-strength=0.6 temporal-sigma=14", 0),
]

# FFmpeg's filters: the settings the issue measured and others around them.
# Latency in frames: atadenoise averages s frames centred on the output.
FFMPEG_ROWS = [
    ("hqdn3d", "hqdn3d", 0),
    ("hqdn3d", "hqdn3d=8:6:12:9", 0),
    ("hqdn3d", "hqdn3d=16:12:30:24", 0),
    ("hqdn3d", "hqdn3d=12:9:40:30", 0),
    ("atadenoise", "atadenoise", 4),
    ("atadenoise", "atadenoise=s=25:0a=0.2:0b=0.4", 12),
    ("atadenoise", "atadenoise=s=15:0a=0.15:0b=0.3", 7),
    ("atadenoise", "atadenoise=s=35:0a=0.25:0b=0.5", 17),
    ("nlmeans", "nlmeans=s=6", 0),
    ("nlmeans", "nlmeans=s=8", 0),
]


def frames(path, clip):
    data = np.fromfile(path, dtype=np.uint8)
    n = clip["still"] + clip["moving"]
    if data.size != n * clip["width"] * clip["height"]:
        raise SystemExit(f"{path}: {data.size} bytes, expected {n} frames")
    return data.reshape(n, clip["height"], clip["width"]).astype(np.float64)


def psnr(a, b):
    mse = np.mean((a - b) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def score(out_path, clean, clip):
    out = frames(out_path, clip)
    p = [psnr(out[k], clean[k]) for k in range(len(clean))]
    s = clip["still"]
    return sum(p[:s]) / s, sum(p[s:]) / (len(p) - s)


def crop(video, clip):
    """The 200 x 150 crop at (300, 100) of the last still frame."""
    return video[clip["still"] - 1, 100:250, 300:500]


def run_element(clip_dir, clip, settings, out_path):
    w, h = clip["width"], clip["height"]
    cmd = ["gst-launch-1.0", "-q", "filesrc", f"location={clip_dir}/noisy.gray", "!",
           "rawvideoparse", "format=gray8", f"width={w}", f"height={h}",
           "framerate=30/1", "!", "cudabilateral"] + settings.split() + \
          ["!", "filesink", f"location={out_path}"]
    start = time.monotonic()
    subprocess.run(cmd, check=True)
    return time.monotonic() - start


def run_ffmpeg(clip_dir, clip, vf, out_path):
    w, h = clip["width"], clip["height"]
    cmd = ["ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gray",
           "-s", f"{w}x{h}", "-i", f"{clip_dir}/noisy.gray", "-vf", vf, "-f", "rawvideo",
           "-pix_fmt", "gray", out_path]
    start = time.monotonic()
    subprocess.run(cmd, check=True)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clip_dir")
    ap.add_argument("--element", action="store_true")
    ap.add_argument("--ffmpeg", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--crops")
    a = ap.parse_args()
    with open(os.path.join(a.clip_dir, "clip.json")) as f:
        clip = json.load(f)
    clean = frames(os.path.join(a.clip_dir, "clean.gray"), clip)
    n = clip["still"] + clip["moving"]
    rows = [{"filter": "input", "settings": "noisy", "latency": 0,
             "still_db": score(os.path.join(a.clip_dir, "noisy.gray"), clean, clip)[0],
             "moving_db": score(os.path.join(a.clip_dir, "noisy.gray"), clean, clip)[1],
             "ms_a_frame": 0}]
    todo = []
    if a.element:
        todo += [("cudabilateral " + name, s, lat, run_element) for name, s, lat in ELEMENT_ROWS]
    if a.ffmpeg:
        todo += [("FFmpeg " + name, s, lat, run_ffmpeg) for name, s, lat in FFMPEG_ROWS]
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "out.gray")
        crops = [crop(frames(os.path.join(a.clip_dir, "noisy.gray"), clip), clip)]
        for i, (name, settings, latency, run) in enumerate(todo):
            took = run(a.clip_dir, clip, settings, out_path)
            still, moving = score(out_path, clean, clip)
            if run is run_element and i in (1, 3):
                crops.append(crop(frames(out_path, clip), clip))
            rows.append({"filter": name, "settings": settings, "latency": latency,
                         "still_db": still, "moving_db": moving,
                         "ms_a_frame": 1000 * took / n})
    print("| filter | settings | latency (frames) | still dB | moving dB | ms a frame |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['filter']} | `{r['settings']}` | {r['latency']} | {r['still_db']:.2f} | "
              f"{r['moving_db']:.2f} | {r['ms_a_frame']:.2f} |")
    if a.crops and len(crops) == 3:
        os.makedirs(a.crops, exist_ok=True)
        np.concatenate(crops, axis=1).astype(np.uint8).tofile(
            os.path.join(a.crops, "crops.gray"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"clip": clip, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
