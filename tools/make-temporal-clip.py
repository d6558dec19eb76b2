#!/usr/bin/env python3
"""Makes the temporal filter's evaluation clips from the pictures in data/.

    tools/make-temporal-clip.py OUTDIR [--scene pan|object-cut|zoom]
        [--picture data/astronaut.png] [--other data/camera.png]
        [--sigma 12] [--seed 1] [--still N] [--moving N] [--after N]
        [--velocity 4,2] [--object-size 96] [--edge soft|hard]
        [--zoom 0.005]

Every scene: 640 x 360 GRAY8 frames made from the pictures in gray, scaled
to 1024 x 1024 (GStreamer's videoscale). Each frame gets Gaussian noise of
standard deviation --sigma (8-bit levels), drawn anew every frame from
--seed (numpy's RandomState: the same frames on every machine), added to
the clean frame and rounded and clipped to 0..255. Writes, as GRAY8 frames
back to back, OUTDIR/clean.gray (no noise) and OUTDIR/noisy.gray, and
OUTDIR/clip.json (below). Needs gst-launch-1.0 and numpy.

Scenes:
  pan (the default; the clip of performance.md, "Temporal filter"): a crop
      of --picture that holds still for --still frames (20), then pans 3
      pixels a frame for --moving frames (20).
  object-cut: a still crop of --picture (the pan's first frame) with a
      --object-size square (96) of --other (the camera and the hand that
      holds it) over it, with a soft edge (a raised cosine over its outer 8
      pixels) or a hard one (--edge): at rest for --still frames (8), then
      moving --velocity pixels a frame (4,2: right and down; fractions are
      drawn bilinearly) for --moving frames (16), then a scene cut to a
      still crop of --other for --after frames (16).
  zoom: the pan's first frame, still for --still frames (10), then zoomed
      in by --zoom a frame (0.005: 0.5 %; negative zooms out) about the
      frame's centre for --moving frames (30), resampled bilinearly from
      the 1024 x 1024 picture.

clip.json: width, height, frames, scene, sigma, seed, picture; still and
moving, the split tools/bench/temporal_eval.py scores (its still dB is the
mean over the first `still` frames, its moving dB over the other `moving`:
for object-cut those include the frames after the cut); per frame, lists
of `frames` entries:
  flow: the true motion where one vector holds for the whole background,
      [vx, vy]: frame k at (x, y) shows what frame k - 1 shows at
      (x + vx, y + vy) (the motion field v of the motion-compensated mode,
      from the current frame to the previous one; a pan of 3 pixels a frame
      to the right through the picture is [3, 0]); null for frame 0, for
      the first frame after a cut and where it is not one vector (zoom).
  object-cut also: object_box, [x, y, w, h] of the object's square (its
      soft edge inside it; x, y its top-left corner, fractions where
      --velocity has them), null after the cut; object_flow, v inside
      the object (minus its velocity; [0, 0] while at rest), null for
      frame 0 and after the cut; cut, the index of the first frame after
      the cut; object (its size, edge, feather, velocity, where in --other
      it was cut); other (the picture after the cut and the crop).
  zoom also: scale, the picture's scale in frame k (1 in frame 0);
      centre, [cx, cy], the point that holds still. There v at (x, y) is
      ((x - cx) r, (y - cy) r) with r = scale[k - 1] / scale[k] - 1.
pan also keeps its one field pan (3), the pixels a moving frame moves.
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
# object-cut: where in --other the object is cut (the camera and the hand
# holding it), the object's first top-left corner in the frame, and the
# crop of --other after the cut (grass, the tripod and the coat)
OBJ_SRC = (500, 280)
OBJ_START = (150, 100)
CUT_CROP = (300, 560)
FEATHER = 8

DEFAULTS = {"pan": (20, 20, 0), "object-cut": (8, 16, 16), "zoom": (10, 30, 0)}


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


def to8(frame):
    return np.clip(np.rint(frame), 0, 255).astype(np.uint8)


def bilinear(picture, xs, ys):
    """picture sampled at (xs, ys), bilinearly; points past it take its
    edge."""
    h, w = picture.shape
    xs = np.clip(xs, 0, w - 1)
    ys = np.clip(ys, 0, h - 1)
    x0 = np.minimum(np.floor(xs).astype(np.int64), w - 2)
    y0 = np.minimum(np.floor(ys).astype(np.int64), h - 2)
    fx, fy = xs - x0, ys - y0
    p = picture.astype(np.float64)
    top = p[y0, x0] * (1 - fx) + p[y0, x0 + 1] * fx
    bottom = p[y0 + 1, x0] * (1 - fx) + p[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def object_layer(other, size, edge):
    """The object's samples and its alpha (1 inside, a raised cosine over
    the outer FEATHER pixels for a soft edge)."""
    x, y = OBJ_SRC
    samples = other[y:y + size, x:x + size].astype(np.float64)
    if edge == "hard":
        return samples, np.ones((size, size))
    d = np.minimum(np.arange(size), np.arange(size)[::-1]) + 0.5
    ramp = np.where(d >= FEATHER, 1.0, 0.5 - 0.5 * np.cos(np.pi * d / FEATHER))
    return samples, np.outer(ramp, ramp)


def place(background, samples, alpha, px, py):
    """background with the object's top-left corner at (px, py), fractions
    by bilinear weights of the premultiplied layer."""
    size = samples.shape[0]
    ix, iy = int(np.floor(px)), int(np.floor(py))
    fx, fy = px - ix, py - iy
    layers = []
    for layer in (samples * alpha, alpha):
        pad = np.zeros((size + 1, size + 1))
        pad[:size, :size] += layer * (1 - fx) * (1 - fy)
        pad[:size, 1:] += layer * fx * (1 - fy)
        pad[1:, :size] += layer * (1 - fx) * fy
        pad[1:, 1:] += layer * fx * fy
        layers.append(pad)
    out = background.astype(np.float64)
    win = out[iy:iy + size + 1, ix:ix + size + 1]
    win *= 1 - layers[1]
    win += layers[0]
    return out


def pan_frames(a, meta):
    if X0 + PAN * a.moving + WIDTH > SCALED:
        sys.exit("too many moving frames for the picture")
    picture = gray_picture(a.picture)
    for k in range(a.still + a.moving):
        x = X0 + PAN * max(0, k - a.still + 1)
        meta["flow"].append(None if k == 0 else [PAN if k >= a.still else 0, 0])
        yield picture[Y0:Y0 + HEIGHT, x:x + WIDTH]


def object_cut_frames(a, meta):
    vx, vy = (float(v) for v in a.velocity.split(","))
    size = a.object_size
    end_x = OBJ_START[0] + vx * a.moving
    end_y = OBJ_START[1] + vy * a.moving
    if min(end_x, end_y) < 0 or end_x + size + 1 > WIDTH or end_y + size + 1 > HEIGHT:
        sys.exit("the object leaves the frame: fewer moving frames or a slower --velocity")
    if a.after < 1:
        sys.exit("object-cut needs at least one frame after the cut")
    background = gray_picture(a.picture)[Y0:Y0 + HEIGHT, X0:X0 + WIDTH]
    other = gray_picture(a.other)
    samples, alpha = object_layer(other, size, a.edge)
    cut = a.still + a.moving
    meta.update({"cut": cut, "object_box": [], "object_flow": [],
                 "object": {"size": size, "edge": a.edge,
                            "feather": FEATHER if a.edge == "soft" else 0,
                            "velocity": [vx, vy], "picture": os.path.basename(a.other),
                            "source": list(OBJ_SRC)},
                 "other": {"picture": os.path.basename(a.other), "crop": list(CUT_CROP)}})
    for k in range(cut + a.after):
        if k < cut:
            steps = max(0, k - a.still + 1)
            px, py = OBJ_START[0] + vx * steps, OBJ_START[1] + vy * steps
            moving = k >= a.still
            meta["flow"].append(None if k == 0 else [0, 0])
            meta["object_box"].append([px, py, size, size])
            meta["object_flow"].append(None if k == 0 else
                                       [-vx if moving else 0, -vy if moving else 0])
            yield to8(place(background, samples, alpha, px, py))
        else:
            meta["flow"].append(None if k == cut else [0, 0])
            meta["object_box"].append(None)
            meta["object_flow"].append(None)
            x, y = CUT_CROP
            yield other[y:y + HEIGHT, x:x + WIDTH]


def zoom_frames(a, meta):
    picture = gray_picture(a.picture)
    cx, cy = (WIDTH - 1) / 2, (HEIGHT - 1) / 2
    px, py = X0 + cx, Y0 + cy
    xs, ys = np.meshgrid(np.arange(WIDTH) - cx, np.arange(HEIGHT) - cy)
    meta.update({"centre": [cx, cy], "scale": []})
    for k in range(a.still + a.moving):
        scale = (1 + a.zoom) ** max(0, k - a.still + 1)
        if min(px - cx / scale, py - cy / scale) < 0 or \
                max(px + cx / scale, py + cy / scale) > SCALED - 1:
            sys.exit("the zoom leaves the picture: fewer moving frames or less --zoom")
        meta["flow"].append(None if k == 0 else [0, 0] if k < a.still else None)
        meta["scale"].append(scale)
        yield to8(bilinear(picture, px + xs / scale, py + ys / scale))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "data")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--scene", choices=sorted(DEFAULTS), default="pan")
    ap.add_argument("--picture", default=os.path.join(data, "astronaut.png"))
    ap.add_argument("--other", default=os.path.join(data, "camera.png"),
                    help="object-cut: the object's picture and the one after the cut")
    ap.add_argument("--sigma", type=float, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--still", type=int)
    ap.add_argument("--moving", type=int)
    ap.add_argument("--after", type=int, help="object-cut: frames after the cut")
    ap.add_argument("--velocity", default="4,2",
                    help="object-cut: the object's pixels a frame, right,down")
    ap.add_argument("--object-size", type=int, default=96)
    ap.add_argument("--edge", choices=("soft", "hard"), default="soft")
    ap.add_argument("--zoom", type=float, default=0.005,
                    help="zoom: the scale's change a frame (0.005: 0.5 %%)")
    a = ap.parse_args()
    still, moving, after = DEFAULTS[a.scene]
    a.still = still if a.still is None else a.still
    a.moving = moving if a.moving is None else a.moving
    a.after = after if a.after is None else a.after
    if a.scene != "pan" and a.still < 1:
        sys.exit("--still must be at least 1 (the evaluation's split)")
    meta = {"flow": []}
    make = {"pan": pan_frames, "object-cut": object_cut_frames, "zoom": zoom_frames}[a.scene]
    rand = np.random.RandomState(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "clean.gray"), "wb") as clean, \
            open(os.path.join(a.outdir, "noisy.gray"), "wb") as noisy:
        for frame in make(a, meta):
            clean.write(frame.tobytes())
            n = frame + rand.normal(0, a.sigma, frame.shape)
            noisy.write(np.clip(np.rint(n), 0, 255).astype(np.uint8).tobytes())
    frames = len(meta["flow"])
    # The pan's fields first, in their old order; the split temporal_eval.py
    # scores is still | the rest.
    clip = {"width": WIDTH, "height": HEIGHT, "still": a.still,
            "moving": frames - a.still}
    if a.scene == "pan":
        clip["pan"] = PAN
    clip.update({"sigma": a.sigma, "seed": a.seed, "picture": os.path.basename(a.picture),
                 "scene": a.scene, "frames": frames})
    if a.scene == "zoom":
        clip["zoom"] = a.zoom
    clip.update(meta)
    with open(os.path.join(a.outdir, "clip.json"), "w") as f:
        json.dump(clip, f)
    if a.scene == "pan":
        print(f"{a.outdir}: {a.still} still and {a.moving} moving {WIDTH}x{HEIGHT} "
              f"frames, noise sigma {a.sigma}")
    elif a.scene == "object-cut":
        print(f"{a.outdir}: {frames} {WIDTH}x{HEIGHT} frames, the object at rest for "
              f"{a.still} and moving for {a.moving}, the cut at frame {clip['cut']}, "
              f"noise sigma {a.sigma}")
    else:
        print(f"{a.outdir}: {a.still} still and {a.moving} zooming {WIDTH}x{HEIGHT} "
              f"frames ({a.zoom:+.2%} a frame), noise sigma {a.sigma}")


if __name__ == "__main__":
    main()
