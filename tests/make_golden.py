#!/usr/bin/env python3
"""Regenerate the golden files in tests/golden/ with OpenCV itself.

    python3 tests/make_golden.py [--images data]

Writes binary PGM (GRAY8) and PPM (RGB) inputs, cv2.bilateralFilter outputs
(BORDER_DEFAULT) for every parameter set, and cases.txt, one line a case:

    name channels width height diameter sigma_color sigma_space input output

and, for the chroma-subsampled YUV formats, yuv_cases.txt: each case one
luma and two chroma planes (PGM), filtered plane by plane, luma with the
case's parameters and chroma with them scaled to chroma's resolution (the
element's rule, restated in chroma_params below):

    name subsampling width height diameter sigma_color sigma_space
         chroma_diameter chroma_sigma_space y u v y_out u_out v_out

subsampling is 420 (I420, YV12, NV12, NV21: chroma ceil(w/2) x ceil(h/2)) or
422 (YUY2, UYVY: ceil(w/2) x h), GStreamer's rounding for odd sizes. The
3-channel formats (RGB, BGR, Y444) use the rgb cases of cases.txt.

The element's tests (on a GPU) and the C reference (tests/reference.c, in CI)
must match every output within +-1.
"""
import argparse
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "golden")

# (name, diameter, sigma_color, sigma_space): diameters 1..61, sigmas 1..200,
# an even diameter, the radius derived from sigma-space (d <= 0) and
# sigmas of 0 (OpenCV 5.0 returns the input unchanged when either sigma is
# at most 1e-6), with the radius derived and given.
PARAMS = [
    ("d1_s1_1", 1, 1.0, 1.0),
    ("d3_s10_2", 3, 10.0, 2.0),
    ("d4_s20_3", 4, 20.0, 3.0),
    ("d5_s30_5", 5, 30.0, 5.0),
    ("d9_s75_75", 9, 75.0, 75.0),
    ("d15_s50_10", 15, 50.0, 10.0),
    ("d31_s200_8", 31, 200.0, 8.0),
    ("d31_s30_5", 31, 30.0, 5.0),
    ("d45_s30_15", 45, 30.0, 15.0),
    ("d61_s50_20", 61, 50.0, 20.0),
    ("d0_s40_2.5", 0, 40.0, 2.5),
    ("dneg_s0_0", -1, 0.0, 0.0),
    ("d9_s0_5", 9, 0.0, 5.0),
    ("d9_s30_0", 9, 30.0, 0.0),
    ("d9_s0_0", 9, 0.0, 0.0),
]


def synthetic(width, height, channels, seed):
    """Gradient, a sharp-edged square and noise: edges and flat areas."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    base = 30 + (xx * 255.0 / max(width - 1, 1) * 0.6 + yy * 255.0 / max(height - 1, 1) * 0.3)
    base[(xx > width // 4) & (xx < 3 * width // 4) & (yy > height // 4) & (yy < 3 * height // 4)] += 90
    img = np.stack([base + 40 * c for c in range(channels)], axis=-1)
    img = img + rng.normal(0, 18, img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    return img[..., 0] if channels == 1 else img


def images(image_dir):
    cam = cv2.imread(os.path.join(image_dir, "camera.png"), cv2.IMREAD_GRAYSCALE)
    ast = cv2.imread(os.path.join(image_dir, "astronaut.png"), cv2.IMREAD_COLOR)
    if cam is None or ast is None:
        sys.exit(f"cannot read camera.png / astronaut.png in {image_dir}")
    ast = cv2.cvtColor(ast, cv2.COLOR_BGR2RGB)
    out = []
    for channels, tag in ((1, "gray"), (3, "rgb")):
        seed = 10 * channels
        out.append((f"{tag}_1x1", synthetic(1, 1, channels, seed + 1)))
        out.append((f"{tag}_7x5", synthetic(7, 5, channels, seed + 2)))
        out.append((f"{tag}_1x9", synthetic(1, 9, channels, seed + 3)))
        out.append((f"{tag}_64x48", synthetic(64, 48, channels, seed + 4)))
    out.append(("gray_camera_96x72", np.ascontiguousarray(cam[60:132, 200:296])))
    out.append(("rgb_astronaut_96x72", np.ascontiguousarray(ast[40:112, 180:276])))
    return out


def chroma_params(d, sigma_space, factor=2):
    """Chroma's diameter and sigma-space: d // factor (at least 1) for d > 0,
    else d kept (the radius then follows from sigma-space), and
    sigma_space / factor. sigma-color is not scaled."""
    cd = max(d // factor, 1) if d > 0 else d
    return cd, sigma_space / factor


def yuv_sources(image_dir):
    """(name, y, u, v, subsampling): luma from camera.png or synthetic,
    chroma from astronaut.png's Cr and Cb (area-averaged), odd sizes
    included."""
    cam = cv2.imread(os.path.join(image_dir, "camera.png"), cv2.IMREAD_GRAYSCALE)
    ast = cv2.imread(os.path.join(image_dir, "astronaut.png"), cv2.IMREAD_COLOR)
    ycc = cv2.cvtColor(ast, cv2.COLOR_BGR2YCrCb)
    out = []
    for sub in (420, 422):
        for name, w, h, seed in (("1x1", 1, 1, 1), ("7x5", 7, 5, 2),
                                 ("33x17", 33, 17, 3), ("camera_95x71", 95, 71, 0)):
            cw, ch = (w + 1) // 2, (h + 1) // 2 if sub == 420 else h
            if seed:
                y = synthetic(w, h, 1, 100 + seed)
                u = synthetic(cw, ch, 1, 200 + seed)
                v = 255 - synthetic(cw, ch, 1, 300 + seed)
            else:
                y = np.ascontiguousarray(cam[60:60 + h, 200:200 + w])
                crop = ycc[40:40 + h, 180:180 + w]
                u = cv2.resize(crop[..., 2], (cw, ch), interpolation=cv2.INTER_AREA)
                v = cv2.resize(crop[..., 1], (cw, ch), interpolation=cv2.INTER_AREA)
            out.append((f"yuv{sub}_{name}", y, u, v, sub))
    return out


def write_yuv_cases(image_dir):
    lines = [f"# generated by tests/make_golden.py with OpenCV {cv2.__version__}"]
    for name, y, u, v, sub in yuv_sources(image_dir):
        h, w = y.shape
        planes = {"y": y, "u": u, "v": v}
        for tag, plane in planes.items():
            write_pnm(os.path.join(OUT, f"{name}_{tag}.pgm"), plane)
        for pname, d, sc, ss in PARAMS:
            cd, css = chroma_params(d, ss)
            outs = []
            for tag, plane in planes.items():
                pd, pss = (d, ss) if tag == "y" else (cd, css)
                res = cv2.bilateralFilter(plane, pd, sc, pss, borderType=cv2.BORDER_DEFAULT)
                outs.append(f"{name}.{pname}_{tag}.pgm")
                write_pnm(os.path.join(OUT, outs[-1]), res)
            ins = " ".join(f"{name}_{tag}.pgm" for tag in planes)
            lines.append(f"{name}.{pname} {sub} {w} {h} {d} {sc:g} {ss:g} {cd} {css:g} "
                         f"{ins} {' '.join(outs)}")
    with open(os.path.join(OUT, "yuv_cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines) - 1


# Gaussian mode: (name, diameter, sigma_space), an even diameter
# (the next odd size), sizes derived from sigma, sigma derived from the size,
# and both <= 0 (sigma taken as 1).
GAUSSIAN_PARAMS = [
    ("g3_s0", 3, 0.0), ("g4_s0", 4, 0.0), ("g5_s0", 5, 0.0), ("g5_s1", 5, 1.0),
    ("g7_s0", 7, 0.0), ("g9_s2.5", 9, 2.5), ("g15_s0", 15, 0.0),
    ("g0_s1.5", 0, 1.5), ("g0_s3", 0, 3.0), ("g31_s6", 31, 6.0), ("gneg_s0", -1, 0.0),
]


def gaussian_params(d, sigma):
    """The element's rule (cbf_gaussian_params): kernel size and sigma."""
    if d > 0:
        return d | 1, sigma
    sigma = sigma if sigma > 0 else 1.0
    return int(np.rint(sigma * 6 + 1)) | 1, sigma


def write_gaussian_cases(sources):
    lines = [f"# generated by tests/make_golden.py with OpenCV {cv2.__version__}:"
             " name channels width height diameter sigma_space input output"]
    for name, img in sources:
        ext = "pgm" if img.ndim == 2 else "ppm"
        channels = 1 if img.ndim == 2 else 3
        h, w = img.shape[:2]
        for pname, d, ss in GAUSSIAN_PARAMS:
            k, sigma = gaussian_params(d, ss)
            dst = f"{name}.{pname}.{ext}"
            out = cv2.GaussianBlur(img, (k, k), sigma, borderType=cv2.BORDER_DEFAULT)
            write_pnm(os.path.join(OUT, dst), out)
            lines.append(f"{name}.{pname} {channels} {w} {h} {d} {ss:g} {name}.{ext} {dst}")
    with open(os.path.join(OUT, "gaussian_cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines) - 1


def write_pnm(path, img):
    magic = b"P5" if img.ndim == 2 else b"P6"
    h, w = img.shape[:2]
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n255\n" % (magic, w, h))
        f.write(np.ascontiguousarray(img).tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", default=os.path.join(HERE, "..", "data"))
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    lines = [f"# generated by tests/make_golden.py with OpenCV {cv2.__version__}"]
    sources = images(args.images)
    for name, img in sources:
        ext = "pgm" if img.ndim == 2 else "ppm"
        channels = 1 if img.ndim == 2 else 3
        h, w = img.shape[:2]
        src = f"{name}.{ext}"
        write_pnm(os.path.join(OUT, src), img)
        for pname, d, sc, ss in PARAMS:
            dst = f"{name}.{pname}.{ext}"
            out = cv2.bilateralFilter(img, d, sc, ss, borderType=cv2.BORDER_DEFAULT)
            write_pnm(os.path.join(OUT, dst), out)
            lines.append(f"{name}.{pname} {channels} {w} {h} {d} {sc:g} {ss:g} {src} {dst}")
    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    n_yuv = write_yuv_cases(args.images)
    n_gauss = write_gaussian_cases(sources)
    print(f"{len(lines) - 1} cases, {n_yuv} YUV cases and {n_gauss} Gaussian cases "
          f"written to {OUT}")


if __name__ == "__main__":
    main()
