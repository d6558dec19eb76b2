#!/usr/bin/env python3
"""Regenerate the golden files in tests/golden/ with OpenCV itself.

    python3 tests/make_golden.py [--images data]
    python3 tests/make_golden.py --border

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

With --border it writes only the border rule's cases (and leaves every
file above as it is): border_*.pgm/ppm inputs and outputs and
border_cases.txt, one line a case:

    name mode channels width height diameter sigma_color sigma_space
         border border_value input output

mode is bilateral (cv2.bilateralFilter) or gaussian (cv2.GaussianBlur with
the kernel size and sigma of gaussian_params; sigma_color 0, unused).
border is the element's nick of the border property: reflect-101,
replicate, reflect, wrap or constant (OpenCV's BORDER_REFLECT_101,
BORDER_REPLICATE, BORDER_REFLECT, BORDER_WRAP, BORDER_CONSTANT);
border_value the constant's sample value in 8-bit levels (0 for the other
rules). See write_border_cases.

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
    # radii 9 and 10: one channel's specialised kernel, colour's wide one
    ("d19_s60_6", 19, 60.0, 6.0),
    ("d21_s30_8", 21, 30.0, 8.0),
    ("d31_s200_8", 31, 200.0, 8.0),
    ("d31_s30_5", 31, 30.0, 5.0),
    ("d45_s30_15", 45, 30.0, 15.0),
    ("d61_s50_20", 61, 50.0, 20.0),
    # small sigma-space in a wide window: the element walks radius 27 of
    # 30, and 5 of 10 (cbf_bilateral_walk_radius)
    ("d61_s30_5", 61, 30.0, 5.0),
    ("d21_s40_1", 21, 40.0, 1.0),
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


# The border property's rules: (element nick, OpenCV border type).
BORDERS = [
    ("reflect-101", cv2.BORDER_REFLECT_101),
    ("replicate", cv2.BORDER_REPLICATE),
    ("reflect", cv2.BORDER_REFLECT),
    ("wrap", cv2.BORDER_WRAP),
    ("constant", cv2.BORDER_CONSTANT),
]

# The constant border's values: bilateralFilter and GaussianBlur pad with
# 0 themselves; any other value is padded by copyMakeBorder first.
BORDER_CONSTANTS = [0, 200]

# Bilateral windows of every kernel family of the element: radius 1 and 2
# (stream kernel), 4 and 7 (specialised kernels), 10 (one channel's
# specialised kernel, colour's wide one), 15 and 22 (wide kernel), 31
# (generic kernel); sigmas large enough that the padding counts (the
# small pictures' steep gradients would otherwise leave each pixel alone).
BORDER_PARAMS = [
    ("d3_s80_2", 3, 80.0, 2.0),
    ("d5_s60_3", 5, 60.0, 3.0),
    ("d9_s100_4", 9, 100.0, 4.0),
    ("d15_s50_10", 15, 50.0, 10.0),
    ("d21_s90_9", 21, 90.0, 9.0),
    ("d31_s70_8", 31, 70.0, 8.0),
    ("d45_s120_15", 45, 120.0, 15.0),
    ("d63_s90_20", 63, 90.0, 20.0),
    # walked to radius 16 of 22 (cbf_bilateral_walk_radius)
    ("d45_s120_3", 45, 120.0, 3.0),
]

# GaussianBlur's sizes 3 (the fixed kernel, sigma 0), 9 and 31, with sigmas
# for which OpenCV's 8-bit blur stays within +-1 of the exact one on these
# pictures: its coefficients are fixed point of 8 fractional bits, which on
# pictures of a few high-contrast pixels seen again and again through the
# border puts sizes 9 (sigma 2.5) and 31 (sigma 2 to 20) up to 2 levels
# off (check_gaussian_exact refuses such a case).
BORDER_GAUSSIAN_PARAMS = [("g3_s0", 3, 0.0), ("g9_s2", 9, 2.0), ("g31_s3.5", 31, 3.5)]


def border_sources():
    """Pictures smaller than most windows (1x1, 1x9, 3x2, 7x5) and a larger
    one (67x45), one and three channels."""
    out = []
    for channels, tag in ((1, "gray"), (3, "rgb")):
        for i, (w, h) in enumerate(((1, 1), (1, 9), (3, 2), (7, 5), (67, 45))):
            out.append((f"border_{tag}_{w}x{h}", synthetic(w, h, channels, 500 + 10 * channels + i)))
    return out


def with_border(img, radius, border, value, run):
    """run(img, border) as OpenCV computes it, except a constant border of a
    nonzero value: the picture padded by @radius with it (copyMakeBorder),
    filtered, and cropped back, the padding then being what every window
    reads (bilateralFilter and GaussianBlur pad with 0 themselves)."""
    if border != cv2.BORDER_CONSTANT or value == 0:
        return run(img, border)
    padded = cv2.copyMakeBorder(img, radius, radius, radius, radius, border,
                                value=(value,) * 4)
    h, w = img.shape[:2]
    return run(padded, cv2.BORDER_REFLECT_101)[radius:radius + h, radius:radius + w]


def check_padding_rule(img, radius, run):
    """The padded way with 0 must give what OpenCV's own constant border
    gives (within the +-1 of float sums over another layout)."""
    own = run(img, cv2.BORDER_CONSTANT).astype(int)
    padded = cv2.copyMakeBorder(img, radius, radius, radius, radius, cv2.BORDER_CONSTANT, value=(0,) * 4)
    h, w = img.shape[:2]
    cropped = run(padded, cv2.BORDER_REFLECT_101)[radius:radius + h, radius:radius + w]
    if np.abs(own - cropped.astype(int)).max() > 1:
        sys.exit("copyMakeBorder and the filter's own constant border disagree")


def check_gaussian_exact(name, img, out, k, sigma, radius, border, value):
    """OpenCV's 8-bit blur @out must be within 1.4 levels of the blur in
    double on the same padding, or no float implementation (the C
    reference's, the element's) can be held to +-1 of it."""
    padded = cv2.copyMakeBorder(img, radius, radius, radius, radius, border,
                                value=(value,) * 4).astype(np.float64)
    kernel = cv2.getGaussianKernel(k, sigma, cv2.CV_64F)
    h, w = img.shape[:2]
    exact = cv2.sepFilter2D(padded, cv2.CV_64F, kernel, kernel)[radius:radius + h, radius:radius + w]
    off = np.abs(out - exact).max()
    if off > 1.4:
        sys.exit(f"{name}: GaussianBlur is {off:.2f} levels from the exact blur")


def write_border_cases():
    """Every border rule (and the constant's values) on every border
    picture: cv2.bilateralFilter with BORDER_PARAMS and cv2.GaussianBlur
    (which takes every rule, BORDER_WRAP included) with
    BORDER_GAUSSIAN_PARAMS."""
    lines = [f"# generated by tests/make_golden.py --border with OpenCV {cv2.__version__}:"
             " name mode channels width height diameter sigma_color sigma_space"
             " border border_value input output"]
    runs = []
    for pname, d, sc, ss in BORDER_PARAMS:
        runs.append(("bilateral", pname, d, sc, ss, d // 2,
                     lambda im, b, d=d, sc=sc, ss=ss: cv2.bilateralFilter(im, d, sc, ss, borderType=b),
                     None))
    for pname, d, ss in BORDER_GAUSSIAN_PARAMS:
        k, sigma = gaussian_params(d, ss)
        runs.append(("gaussian", pname, d, 0.0, ss, k // 2,
                     lambda im, b, k=k, sigma=sigma: cv2.GaussianBlur(im, (k, k), sigma, borderType=b),
                     (k, sigma)))
    for name, img in border_sources():
        ext = "pgm" if img.ndim == 2 else "ppm"
        channels = 1 if img.ndim == 2 else 3
        h, w = img.shape[:2]
        src = f"{name}.{ext}"
        write_pnm(os.path.join(OUT, src), img)
        for mode, pname, d, sc, ss, radius, run, gaussian in runs:
            check_padding_rule(img, radius, run)
            for bname, border in BORDERS:
                for value in BORDER_CONSTANTS if border == cv2.BORDER_CONSTANT else [0]:
                    tag = f"{bname}-{value}" if border == cv2.BORDER_CONSTANT else bname
                    dst = f"{name}.{pname}.{tag}.{ext}"
                    out = with_border(img, radius, border, value, run)
                    if gaussian:
                        check_gaussian_exact(dst, img, out, *gaussian, radius, border, value)
                    write_pnm(os.path.join(OUT, dst), out)
                    lines.append(f"{name}.{pname}.{tag} {mode} {channels} {w} {h} {d} {sc:g} "
                                 f"{ss:g} {bname} {value} {src} {dst}")
    with open(os.path.join(OUT, "border_cases.txt"), "w") as f:
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
    ap.add_argument("--border", action="store_true",
                    help="write only the border rule's cases (border_cases.txt)")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if args.border:
        print(f"{write_border_cases()} border cases written to {OUT}")
        return
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
