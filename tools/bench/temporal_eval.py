#!/usr/bin/env python3
"""Denoising quality on the temporal filter's evaluation clip.

    tools/bench/temporal_eval.py CLIPDIR [--element] [--ffmpeg] [--json OUT]
        [--sweep]

CLIPDIR is what tools/make-temporal-clip.py writes. --element filters
noisy.gray with cudabilateral (gst-launch-1.0: filesrc ! rawvideoparse !
cudabilateral ! filesink; the plugin found as GStreamer finds it, a GPU
needed): spatial only, and the temporal filter at a few settings. --ffmpeg
filters the same frames with FFmpeg's hqdn3d, atadenoise and nlmeans at a
few settings each. Each row: PSNR against clean.gray, the mean of the
frames' PSNR over the still frames and over the moving ones, and the run's
wall time a frame (the whole run, files and start-up included). Prints a
Markdown table; --json writes the rows. --crops DIR (with --element)
writes a 200 x 150 crop of the last frame (moving), noisy, spatial only,
today's temporal mode and temporal-motion=compensated (d = 3,
sigma-color 30, strength 0.9, temporal-sigma 12), side by side, as
DIR/crops.gray (800 x 150, GRAY8), for the user guide's picture. --sweep: instead,
temporal-motion=compensated (d = 3, strength 0.9) with its settings from
the measured noise (noise-sigma=-1) beside a sweep of fixed sigma-color
(1.5 to 3.5 x the clip's sigma) and temporal-sigma (0.75 to 1.5 x), and
the best of the sweep (by the mean of still and moving dB).
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
    ("temporal", "diameter=3 sigma-color=30 sigma-space=5 temporal-strength=0.9 temporal-sigma=12", 0),
    ("compensated", "diameter=3 sigma-color=30 sigma-space=5 temporal-strength=0.9 temporal-sigma=12 "
     "temporal-motion=compensated", 0),
    ("compensated", "diameter=3 sigma-color=30 sigma-space=5 temporal-strength=0.8 temporal-sigma=12 "
     "temporal-motion=compensated", 0),
    ("compensated", "diameter=5 sigma-color=30 sigma-space=5 temporal-strength=0.9 temporal-sigma=12 "
     "temporal-motion=compensated", 0),
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


def sweep_rows(sigma):
    base = "diameter=3 sigma-space=5 temporal-strength=0.9 temporal-motion=compensated"
    rows = [("compensated, noise measured", base + " noise-sigma=-1", 0)]
    for kc in (1.5, 2.0, 2.5, 3.0, 3.5):
        for kt in (0.75, 1.0, 1.25, 1.5):
            rows.append(("compensated, fixed",
                         f"{base} sigma-color={kc * sigma:g} temporal-sigma={kt * sigma:g}", 0))
    return rows


def frames(path, clip):
    data = np.fromfile(path, dtype=np.uint8)
    n = clip["still"] + clip["moving"]
    if data.size != n * clip["width"] * clip["height"]:
        raise SystemExit(f"{path}: {data.size} bytes, expected {n} frames")
    return data.reshape(n, clip["height"], clip["width"]).astype(np.float64)


def psnr(a, b):
    mse = np.mean((a - b) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def object_trail_masks(clip):
    """object-cut: per moving frame before the cut, the object's boxes of
    that frame and the three before it (2 pixels of margin): where the
    object is and where it just was."""
    masks = {}
    boxes = clip["object_box"]
    for k in range(clip["still"], clip["cut"]):
        m = np.zeros((clip["height"], clip["width"]), bool)
        for j in range(max(0, k - 3), k + 1):
            x, y, w, h = boxes[j]
            x0, y0 = int(math.floor(x)) - 2, int(math.floor(y)) - 2
            m[max(0, y0):y0 + int(h) + 5, max(0, x0):x0 + int(w) + 5] = True
        masks[k] = m
    return masks


def score(out_path, clean, clip):
    """Still and moving dB; for object-cut also the object and its trail
    (the masked pixels' PSNR, averaged over the moving frames before the
    cut) and the first frame after the cut."""
    out = frames(out_path, clip)
    p = [psnr(out[k], clean[k]) for k in range(len(clean))]
    s = clip["still"]
    extra = {}
    if clip.get("scene") == "object-cut":
        extra["object_trail_db"] = float(np.mean(
            [psnr(out[k][m], clean[k][m]) for k, m in object_trail_masks(clip).items()]))
        extra["cut_db"] = p[clip["cut"]]
    return sum(p[:s]) / s, sum(p[s:]) / (len(p) - s), extra


CROP_ROWS = ["diameter=3 sigma-color=30 sigma-space=5",
             "diameter=3 sigma-color=30 sigma-space=5 temporal-strength=0.9 temporal-sigma=12",
             "diameter=3 sigma-color=30 sigma-space=5 temporal-strength=0.9 temporal-sigma=12 "
             "temporal-motion=compensated"]


def crop(video, clip):
    """The 200 x 150 crop at (300, 100) of the last frame."""
    return video[-1, 100:250, 300:500]


def run_element(clip_dir, clip, settings, out_path):
    w, h = clip["width"], clip["height"]
    # -m: the bus's messages, to count the scene cuts the element announces.
    cmd = ["gst-launch-1.0", "-m", "filesrc", f"location={clip_dir}/noisy.gray", "!",
           "rawvideoparse", "format=gray8", f"width={w}", f"height={h}",
           "framerate=30/1", "!", "cudabilateral"] + settings.split() + \
          ["!", "filesink", f"location={out_path}"]
    start = time.monotonic()
    done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
    took = time.monotonic() - start
    return took, done.stdout.count("cudabilateral-scene-cut")


def run_ffmpeg(clip_dir, clip, vf, out_path):
    w, h = clip["width"], clip["height"]
    cmd = ["ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gray",
           "-s", f"{w}x{h}", "-i", f"{clip_dir}/noisy.gray", "-vf", vf, "-f", "rawvideo",
           "-pix_fmt", "gray", out_path]
    start = time.monotonic()
    subprocess.run(cmd, check=True)
    return time.monotonic() - start, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clip_dir")
    ap.add_argument("--element", action="store_true")
    ap.add_argument("--ffmpeg", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--crops")
    ap.add_argument("--sweep", action="store_true")
    a = ap.parse_args()
    with open(os.path.join(a.clip_dir, "clip.json")) as f:
        clip = json.load(f)
    clean = frames(os.path.join(a.clip_dir, "clean.gray"), clip)
    n = clip["still"] + clip["moving"]
    still, moving, extra = score(os.path.join(a.clip_dir, "noisy.gray"), clean, clip)
    rows = [dict({"filter": "input", "settings": "noisy", "latency": 0,
                  "still_db": still, "moving_db": moving, "ms_a_frame": 0,
                  "scene_cuts": None}, **extra)]
    todo = []
    if a.sweep:
        todo += [("cudabilateral " + name, s, lat, run_element)
                 for name, s, lat in sweep_rows(clip["sigma"])]
    elif a.element:
        todo += [("cudabilateral " + name, s, lat, run_element) for name, s, lat in ELEMENT_ROWS]
    if a.ffmpeg:
        todo += [("FFmpeg " + name, s, lat, run_ffmpeg) for name, s, lat in FFMPEG_ROWS]
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "out.gray")
        crops = [crop(frames(os.path.join(a.clip_dir, "noisy.gray"), clip), clip)]
        for i, (name, settings, latency, run) in enumerate(todo):
            took, cuts = run(a.clip_dir, clip, settings, out_path)
            still, moving, extra = score(out_path, clean, clip)
            if run is run_element and settings in CROP_ROWS:
                crops.append(crop(frames(out_path, clip), clip))
            rows.append(dict({"filter": name, "settings": settings, "latency": latency,
                              "still_db": still, "moving_db": moving,
                              "ms_a_frame": 1000 * took / n, "scene_cuts": cuts},
                             **extra))
    cut = clip.get("scene") == "object-cut"
    print("| filter | settings | latency (frames) | still dB | moving dB |"
          + (" object and trail dB | cut frame dB |" if cut else "")
          + " scene cuts | ms a frame |")
    print("| --- | --- | ---: | ---: | ---: |" + (" ---: | ---: |" if cut else "")
          + " ---: | ---: |")
    for r in rows:
        cuts = "" if r["scene_cuts"] is None else str(r["scene_cuts"])
        print(f"| {r['filter']} | `{r['settings']}` | {r['latency']} | {r['still_db']:.2f} | "
              f"{r['moving_db']:.2f} | "
              + (f"{r['object_trail_db']:.2f} | {r['cut_db']:.2f} | " if cut else "")
              + f"{cuts} | {r['ms_a_frame']:.2f} |")
    if a.sweep:
        fixed = [r for r in rows if r["filter"].endswith("fixed")]
        best = max(fixed, key=lambda r: r["still_db"] + r["moving_db"])
        auto = next(r for r in rows if r["filter"].endswith("measured"))
        print(f"\nbest fixed: `{best['settings']}` {best['still_db']:.2f} / {best['moving_db']:.2f}; "
              f"noise measured {auto['still_db']:.2f} / {auto['moving_db']:.2f} "
              f"({(auto['still_db'] + auto['moving_db'] - best['still_db'] - best['moving_db']) / 2:+.2f} dB)")
    if a.crops and len(crops) == 4:
        os.makedirs(a.crops, exist_ok=True)
        np.concatenate(crops, axis=1).astype(np.uint8).tofile(
            os.path.join(a.crops, "crops.gray"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"clip": clip, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
