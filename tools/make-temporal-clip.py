#!/usr/bin/env python3
"""Makes the temporal filter's evaluation clip from a picture in data/.

    tools/make-temporal-clip.py OUTDIR [--picture data/astronaut.png]
        [--sigma 12] [--seed 1] [--still 20] [--moving 20]

The picture, in gray, scaled to 1024 x 1024 (GStreamer's videoscale), gives
640 x 360 frames: a crop that holds still for --still frames, then pans 3
pixels a frame for --moving frames. Each frame gets Gaussian noise of
standard deviation --sigma (8-bit levels), drawn anew every frame from
--seed (numpy's RandomState: the same frames on every machine). Writes, as
GRAY8 frames back to back, OUTDIR/clean.gray (no noise) and
OUTDIR/noisy.gray, and OUTDIR/clip.json (size, frames, noise, picture).
Needs gst-launch-1.0 and numpy.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

WIDTH, HEIGHT, SCALED, PAN = 640, 360, 1024, 3
X0, Y0 = 100, 300


def gray_picture(path):
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "picture.gray")
        subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={path}", "!",
                        "decodebin", "!", "videoconvert", "!", "videoscale", "!",
                        f"video/x-raw,format=GRAY8,width={SCALED},height={SCALED}",
                        "!", "filesink", f"location={raw}"], check=True)
        data = np.fromfile(raw, dtype=np.uint8)
    if data.size != SCALED * SCALED:
        sys.exit(f"{path}: {data.size} bytes decoded, expected {SCALED * SCALED}")
    return data.reshape(SCALED, SCALED)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--picture", default=os.path.join(here, "..", "data", "astronaut.png"))
    ap.add_argument("--sigma", type=float, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--still", type=int, default=20)
    ap.add_argument("--moving", type=int, default=20)
    a = ap.parse_args()
    if X0 + PAN * a.moving + WIDTH > SCALED:
        sys.exit("too many moving frames for the picture")
    picture = gray_picture(a.picture)
    rand = np.random.RandomState(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "clean.gray"), "wb") as clean, \
            open(os.path.join(a.outdir, "noisy.gray"), "wb") as noisy:
        for k in range(a.still + a.moving):
            x = X0 + PAN * max(0, k - a.still + 1)
            frame = picture[Y0:Y0 + HEIGHT, x:x + WIDTH]
            clean.write(frame.tobytes())
            n = frame + rand.normal(0, a.sigma, frame.shape)
            noisy.write(np.clip(np.rint(n), 0, 255).astype(np.uint8).tobytes())
    with open(os.path.join(a.outdir, "clip.json"), "w") as f:
        json.dump({"width": WIDTH, "height": HEIGHT, "still": a.still,
                   "moving": a.moving, "pan": PAN, "sigma": a.sigma,
                   "seed": a.seed, "picture": os.path.basename(a.picture)}, f)
    print(f"{a.outdir}: {a.still} still and {a.moving} moving {WIDTH}x{HEIGHT} "
          f"frames, noise sigma {a.sigma}")


if __name__ == "__main__":
    main()
