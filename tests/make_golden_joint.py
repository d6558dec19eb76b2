#!/usr/bin/env python3
"""Write the golden files of chroma guided by luma (chroma-guide=luma) for
YUV 4:4:4 with OpenCV itself, into tests/golden/joint_*.

    python3 tests/make_golden_joint.py

Needs OpenCV with its contrib modules (cv2.ximgproc; Debian's
python3-opencv has them). For each picture (Y, U and V planes of one size)
and parameter set it writes luma filtered by cv2.bilateralFilter and each
chroma plane by cv2.ximgproc.jointBilateralFilter with Y as the joint
image, all with BORDER_REFLECT_101, and the index joint_cases.txt, one
line a case (lines starting with # are comments):

    name bits width height diameter sigma_color sigma_space
         chroma_diameter chroma_sigma_color chroma_sigma_space
         y u v y_out u_out v_out

bits is 8 or 16. 8: binary PGM of maxval 255, the 8-bit functions.
16: binary PGM of maxval 65535 (two bytes a sample, most significant
first, as PGM has it); jointBilateralFilter takes no 16-bit images, so
both functions ran on float32 images holding the samples with sigma_color
scaled by 65535 / 255 = 257 (the element's sigma-color stays in 8-bit
levels), and their results were rounded to the nearest. Those float
functions look their range weights up in a table of 4096 bins over the
picture's range, interpolated, and sum in float: about 0.1 level of the
exact double filter on these pictures, 1 after rounding (the script
measures and prints it, and stops above 0.5 before rounding).

diameter, sigma_color and sigma_space are the element's properties of
the same names, filtering Y. chroma_diameter, chroma_sigma_color and
chroma_sigma_space are its chroma-* properties, -1 where left derived:
then U and V were filtered with luma's values (4:4:4 has no chroma
subsampling to scale them by). The y, u and v files are the input planes,
the *_out files the expected ones; the element with chroma-guide=luma
must give every sample within +-1 of them at 8 bits, within its 16-bit
tolerance at 16 (tests/test_chroma.c).

The pictures: luma with sharp-edged shapes on a gradient and light noise;
chroma whose edges are luma's edges, under strong noise, so that the
guided result differs much from filtering chroma on its own. Sizes 64x48,
37x23 (odd) and 7x5 (smaller than most windows, which then reflect more
than once).
"""
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "golden")

# (name, diameter, sigma_color, sigma_space, chroma_diameter,
# chroma_sigma_color, chroma_sigma_space): windows of radius 2, 4, 7 and 15
# with chroma derived (-1), and chroma's own parameters unlike luma's.
PARAMS = [
    ("d5_s30_3", 5, 30.0, 3.0, -1, -1.0, -1.0),
    ("d9_s40_4", 9, 40.0, 4.0, -1, -1.0, -1.0),
    ("d15_s50_10", 15, 50.0, 10.0, -1, -1.0, -1.0),
    ("d31_s30_8", 31, 30.0, 8.0, -1, -1.0, -1.0),
    ("d9_s30_5.c15_s60_8", 9, 30.0, 5.0, 15, 60.0, 8.0),
]

SIZES = [(64, 48), (37, 23), (7, 5)]

# The float32 functions' largest distance from the exact filter allowed
# before rounding, in 16-bit levels.
FLOAT_LIMIT = 0.5


def planes(width, height, seed):
    """Y, U and V (float, 8-bit levels): shapes whose edges luma and chroma
    share, light noise on luma, strong noise on chroma."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    disc = (xx - 0.45 * width) ** 2 + (yy - 0.5 * height) ** 2 < (0.3 * min(width, height)) ** 2
    bar = (xx > 0.75 * width) & (xx < 0.9 * width)
    box = (xx < 0.3 * width) & (yy < 0.35 * height)
    y = 40 + 60 * xx / max(width - 1, 1) + 110 * disc + 70 * bar - 30 * box
    u = 128 - 70 * disc + 60 * bar + 50 * box
    v = 120 + 65 * disc - 55 * bar + 45 * box
    y = y + rng.normal(0, 4, y.shape)
    u = u + rng.normal(0, 28, u.shape)
    v = v + rng.normal(0, 28, v.shape)
    return y, u, v


def to_8bit(p):
    return np.clip(np.rint(p), 0, 255).astype(np.uint8)


def to_16bit(p, rng):
    """Samples of 16 bits, noise in the bits below the 8-bit level too."""
    wide = np.rint(p * 257) + rng.integers(-128, 129, p.shape)
    return np.clip(wide, 0, 65535).astype(np.uint16)


def radius(d, sigma_space):
    """OpenCV's radius rule: d // 2 for d > 0, else cvRound (1.5 sigma),
    at least 1."""
    r = d // 2 if d > 0 else int(np.rint(1.5 * sigma_space))
    return max(r, 1)


def exact_joint(guide, src, d, sigma_color, sigma_space, bits):
    """The joint bilateral filter in double, not rounded: the check of the
    float32 results."""
    h, w = src.shape
    r = radius(d, sigma_space)
    g = cv2.copyMakeBorder(guide.astype(np.float64), r, r, r, r, cv2.BORDER_REFLECT_101)
    c = cv2.copyMakeBorder(src.astype(np.float64), r, r, r, r, cv2.BORDER_REFLECT_101)
    s = sigma_color * ((1 << bits) - 1) / 255.0
    num = np.zeros((h, w))
    den = np.zeros((h, w))
    centre = guide.astype(np.float64)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            dist = np.sqrt(dx * dx + dy * dy)
            if dist > r:
                continue
            gq = g[r + dy:r + dy + h, r + dx:r + dx + w]
            wgt = np.exp(-dist * dist / (2 * sigma_space ** 2)) * \
                np.exp(-(gq - centre) ** 2 / (2 * s * s))
            num += wgt * c[r + dy:r + dy + h, r + dx:r + dx + w]
            den += wgt
    return num / den


def write_pgm(path, img):
    maxval = 255 if img.dtype == np.uint8 else 65535
    h, w = img.shape
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n%d\n" % (w, h, maxval))
        f.write(np.ascontiguousarray(img).astype(">u2" if maxval > 255 else np.uint8).tobytes())


def filter_planes(y, u, v, params, bits):
    """(y_out, u_out, v_out) by OpenCV, and the float functions' largest
    distance from the exact filter (0 at 8 bits)."""
    _, d, sc, ss, cd, csc, css = params
    cd = d if cd < 0 else cd
    csc = sc if csc < 0 else csc
    css = ss if css < 0 else css
    border = cv2.BORDER_REFLECT_101
    if bits == 8:
        return (cv2.bilateralFilter(y, d, sc, ss, borderType=border),
                cv2.ximgproc.jointBilateralFilter(y, u, cd, csc, css, borderType=border),
                cv2.ximgproc.jointBilateralFilter(y, v, cd, csc, css, borderType=border), 0.0)
    yf, uf, vf = (p.astype(np.float32) for p in (y, u, v))
    outs = [cv2.bilateralFilter(yf, d, sc * 257, ss, borderType=border),
            cv2.ximgproc.jointBilateralFilter(yf, uf, cd, csc * 257, css, borderType=border),
            cv2.ximgproc.jointBilateralFilter(yf, vf, cd, csc * 257, css, borderType=border)]
    exact = [exact_joint(y, y, d, sc, ss, 16), exact_joint(y, u, cd, csc, css, 16),
             exact_joint(y, v, cd, csc, css, 16)]
    worst = max(float(np.abs(o.astype(np.float64) - e).max()) for o, e in zip(outs, exact))
    rounded = [np.clip(np.rint(o), 0, 65535).astype(np.uint16) for o in outs]
    return rounded[0], rounded[1], rounded[2], worst


def main():
    if not hasattr(cv2, "ximgproc"):
        sys.exit("this OpenCV has no ximgproc (contrib) module")
    os.makedirs(OUT, exist_ok=True)
    lines = [f"# generated by tests/make_golden_joint.py with OpenCV {cv2.__version__}:"
             " name bits width height diameter sigma_color sigma_space chroma_diameter"
             " chroma_sigma_color chroma_sigma_space y u v y_out u_out v_out"]
    worst_float = 0.0
    for i, (w, h) in enumerate(SIZES):
        yf, uf, vf = planes(w, h, 40 + i)
        rng = np.random.default_rng(80 + i)
        for bits in (8, 16):
            conv = to_8bit if bits == 8 else (lambda p: to_16bit(p, rng))
            y, u, v = conv(yf), conv(uf), conv(vf)
            pic = f"joint_{w}x{h}_{bits}"
            ins = [f"{pic}_{tag}.pgm" for tag in "yuv"]
            for name, plane in zip(ins, (y, u, v)):
                write_pgm(os.path.join(OUT, name), plane)
            for params in PARAMS:
                pname, d, sc, ss, cd, csc, css = params
                *outs, worst = filter_planes(y, u, v, params, bits)
                if worst > FLOAT_LIMIT:
                    sys.exit(f"{pic}.{pname}: OpenCV's float result {worst:.3f} levels "
                             "from the exact filter")
                worst_float = max(worst_float, worst)
                names = [f"{pic}.{pname}_{tag}.pgm" for tag in "yuv"]
                for name, plane in zip(names, outs):
                    write_pgm(os.path.join(OUT, name), plane)
                lines.append(f"{pic}.{pname} {bits} {w} {h} {d} {sc:g} {ss:g} {cd} {csc:g} "
                             f"{css:g} {' '.join(ins)} {' '.join(names)}")
    with open(os.path.join(OUT, "joint_cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} joint cases written to {OUT}; the 16-bit float results "
          f"within {worst_float:.3f} levels of the exact filter before rounding")


if __name__ == "__main__":
    main()
