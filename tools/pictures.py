#!/usr/bin/env python3
"""Helper of tools/make-pictures.sh: the noisy input and the mask
(prepare), the labelled layout of the outputs (layout: modes.png; sigmas:
the sigma-color x sigma-space grid), and OpenCV's stand-ins for the
element's outputs of the grid (fake-sigmas), to check the layout without a
GPU (the element equals cv::bilateralFilter within +-1).

  pictures.py prepare IMAGE WORK
  pictures.py layout WORK OUT
  pictures.py sigmas WORK OUT DIAMETER "SPACES" "COLORS"
  pictures.py fake-sigmas WORK DIAMETER "SPACES" "COLORS"
  pictures.py deep BEFORE AFTER WIDTH HEIGHT OUT
  pictures.py chroma DUMP OUT

SPACES and COLORS are lists of sigmas separated by spaces ("2 5 10"); the
element's outputs are WORK/sigma-s<SPACE>-c<COLOR>.png (sigma_name).
deep lays out a 10-bit frame before and after the filter: BEFORE and AFTER
are raw P010_10LE frames of WIDTH x HEIGHT (tools/make-deep-picture.sh).
chroma lays out the mission patch (a colour edge) of the benchmark's chroma
quality frames: DUMP is the directory of cbf-bench --chroma-quality
--chroma-dump, raw 512 x 512 I420 frames."""
import sys

import cv2
import numpy as np

# A 256 x 256 crop around the astronaut's face (the picture is 512 x 512).
CROP = (slice(40, 296), slice(150, 406))
# The sigmas grid: a 128 x 128 crop of the face (hair, eyes, smile), shown
# at SCALE x with nearest-neighbour pixels, so single pixels stay visible.
SIGMA_CROP = (slice(50, 178), slice(170, 298))
SCALE = 2
NOISE_SIGMA = 12
FONT = cv2.FONT_HERSHEY_SIMPLEX


def prepare(image, work):
    img = cv2.imread(image, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit(f"pictures.py: cannot read {image}")
    rng = np.random.default_rng(1)
    noisy = np.clip(img.astype(np.int32) +
                    rng.normal(0, NOISE_SIGMA, img.shape).round(),
                    0, 255).astype(np.uint8)
    cv2.imwrite(f"{work}/noisy.png", noisy)
    cv2.imwrite(f"{work}/original.png", img)
    # Strength mask: full inside a disc on the face, fading out over 40 px.
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w]
    r = np.hypot(x - 278, y - 150)
    mask = np.clip((130 - r) / 40 * 255, 0, 255).astype(np.uint8)
    cv2.imwrite(f"{work}/mask.png", mask)


def read(path):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit(f"pictures.py: cannot read {path}")
    return img


def label(cell, text):
    """A black bar with white text across the top of @cell."""
    cv2.rectangle(cell, (0, 0), (cell.shape[1] - 1, 18), (0, 0, 0), -1)
    cv2.putText(cell, text, (4, 13), FONT, 0.4, (255, 255, 255), 1,
                cv2.LINE_AA)


def layout(work, out):
    tiles = [("input (noise sigma 12)", "noisy"),
             ("bilateral d=15 sc=40 ss=5", "exact"),
             ("mode=gaussian d=15 ss=3", "gaussian"),
             ("mask-location (disc on the face)", "masked"),
             ("bilateral exact, ss=16 (d=49)", "exact16"),
             ("method=grid, ss=16", "grid16")]
    cells = []
    for text, name in tiles:
        crop = read(f"{work}/{name}.png")[CROP].copy()
        label(crop, text)
        cells.append(crop)
    rows = [np.hstack(cells[i:i + 3]) for i in range(0, len(cells), 3)]
    cv2.imwrite(out, np.vstack(rows))


def sigma_name(space, color):
    return f"sigma-s{space}-c{color}"


def radius(diameter, space):
    """The element's (OpenCV's) window radius."""
    if diameter > 0:
        return max(diameter // 2, 1)
    # cvRound: half to even, as Python's round.
    return max(round(1.5 * (float(space) if float(space) > 0 else 1.0)), 1)


def zoom(img):
    crop = img[SIGMA_CROP]
    return cv2.resize(crop, (crop.shape[1] * SCALE, crop.shape[0] * SCALE),
                      interpolation=cv2.INTER_NEAREST)


def text_block(h, w, lines, colour=(0, 0, 0), background=255, scale=0.45,
               top=None):
    """A @h x @w picture with @lines of text, left aligned."""
    block = np.full((h, w, 3), background, np.uint8)
    step = int(32 * scale) + 6
    y = top if top is not None else (h - step * len(lines)) // 2 + step - 4
    for line in lines:
        cv2.putText(block, line, (8, y), FONT, scale, colour, 1, cv2.LINE_AA)
        y += step
    return block


def sigmas(work, out, diameter, spaces, colors):
    """Rows: sigma-space; columns: a reference (the noisy input, the
    original, a legend), then one per sigma-color. Every cell is the same
    crop of the element's output, enlarged, with its parameters on it."""
    diameter = int(diameter)
    spaces, colors = spaces.split(), colors.split()
    noisy = zoom(read(f"{work}/noisy.png"))
    ch, cw = noisy.shape[:2]
    head_w, head_h, gap = 112, 24, 2
    window = ("diameter=0: radius = round(1.5 sigma-space)" if diameter <= 0
              else f"diameter={diameter}: radius {radius(diameter, 1)}")
    reference = [("input: noise sigma 12", noisy.copy()),
                 ("original, no noise", zoom(read(f"{work}/original.png")))]
    legend = text_block(ch, cw, [
        "cudabilateral, RGBA",
        f"diameter={diameter}" + (" (from sigma-space)"
                                  if diameter <= 0 else ""),
        "rows: sigma-space (px)",
        "columns: sigma-color (levels",
        "  of |dR| + |dG| + |dB|)",
        f"crop {SIGMA_CROP[1].stop - SIGMA_CROP[1].start}x"
        f"{SIGMA_CROP[0].stop - SIGMA_CROP[0].start} px, "
        f"shown {SCALE}x",
        "input: noise sigma 12"], scale=0.42)

    title = text_block(head_h + 6, 0 + head_w + (cw + gap) * (len(colors) + 1),
                       ["cudabilateral: sigma-color (columns) x sigma-space "
                        "(rows), " + window],
                       colour=(255, 255, 255), background=0, scale=0.5)
    header = [text_block(head_h, head_w, [""]),
              text_block(head_h, cw, ["reference"], scale=0.5)]
    for color in colors:
        header.append(text_block(head_h, cw, [f"sigma-color {color}"],
                                 scale=0.5))
    rows = [join(header, gap)]
    for i, space in enumerate(spaces):
        r = radius(diameter, space)
        d = 2 * r + 1 if diameter <= 0 else diameter
        row = [text_block(ch, head_w, [f"sigma-space {space}",
                                       f"radius {r}", f"(d = {d})"],
                          scale=0.45)]
        if i < len(reference):
            text, ref = reference[i]
            label(ref, text)
        elif i == len(reference):
            ref = legend
        else:
            ref = text_block(ch, cw, [""])
        row.append(ref)
        for color in colors:
            cell = zoom(read(f"{work}/{sigma_name(space, color)}.png")).copy()
            label(cell, f"sigma-space {space}, sigma-color {color}")
            row.append(cell)
        rows.append(join(row, gap))
    grid = np.vstack([title] + [np.vstack([r, np.full((gap, r.shape[1], 3),
                                                      255, np.uint8)])
                                for r in rows])
    cv2.imwrite(out, grid, [cv2.IMWRITE_PNG_COMPRESSION, 9])


def join(cells, gap):
    """@cells side by side, @gap white columns apart."""
    parts = []
    for cell in cells:
        if parts:
            parts.append(np.full((cell.shape[0], gap, 3), 255, np.uint8))
        parts.append(cell)
    return np.hstack(parts)


def fake_sigmas(work, diameter, spaces, colors):
    """What the element writes for the sigmas grid, made with OpenCV
    (within +-1 of the element's output), for checking the layout here."""
    noisy = read(f"{work}/noisy.png")
    for space in spaces.split():
        for color in colors.split():
            out = cv2.bilateralFilter(noisy, int(diameter), float(color),
                                      float(space))
            cv2.imwrite(f"{work}/{sigma_name(space, color)}.png", out)


def p010_planes(path, width, height):
    """The Y and interleaved UV planes of a raw P010_10LE frame (rows of
    2 x WIDTH bytes, as GStreamer lays them out for even widths)."""
    raw = np.fromfile(path, np.uint16)
    y = raw[:width * height].reshape(height, width)
    uv = raw[width * height:width * height * 3 // 2].reshape(height // 2,
                                                             width)
    return y, uv


def p010_to_bgr(y, uv):
    """8-bit BGR for display (the high byte of each sample)."""
    nv12 = np.vstack([y >> 8, uv >> 8]).astype(np.uint8)
    return cv2.cvtColor(nv12, cv2.COLOR_YUV2BGR_NV12)


def deep(before, after, width, height, out):
    width, height = int(width), int(height)
    # The smile and the collar; below each, its luma stretched from the
    # input's 5th to 95th percentile over 0 to 255 (10-bit levels), where
    # 8-bit samples would show steps of 4 levels.
    crop = (slice(0, 256), slice(400, 656))
    y_in = p010_planes(before, width, height)[0][crop] >> 6
    low, high = np.percentile(y_in, (5, 95)).round().astype(int)
    cells = []
    for name, path in (("10-bit input (P010_10LE)", before),
                       ("cudabilateral d=15 sc=30 ss=5", after)):
        y, uv = p010_planes(path, width, height)
        colour = np.ascontiguousarray(p010_to_bgr(y, uv)[crop])
        label(colour, name)
        luma = np.clip(((y[crop] >> 6).astype(np.float64) - low) * 255 /
                       (high - low), 0, 255).astype(np.uint8)
        luma = cv2.cvtColor(luma, cv2.COLOR_GRAY2BGR)
        label(luma, f"luma, 10-bit levels {low}-{high} stretched")
        cells.append(np.vstack([colour, luma]))
    cv2.imwrite(out, join(cells, 4), [cv2.IMWRITE_PNG_COMPRESSION, 9])


# The chroma rows' frames (cbf-bench --chroma-dump) and their labels.
CHROMA_PANELS = (("clean", "clean picture"),
                 ("noisy", "noisy (chroma noise 2x luma's)"),
                 ("derived", "chroma from luma's parameters"),
                 ("per-plane", "chroma's own parameters"),
                 ("per-plane-guided", "own + chroma-guide=luma"))
# The mission patch: blue on the orange suit, with white lettering.
CHROMA_CROP = (slice(335, 435), slice(115, 235))


def chroma(dump, out):
    cells = []
    for key, text in CHROMA_PANELS:
        i420 = np.fromfile(f"{dump}/{key}.i420", np.uint8).reshape(768, 512)
        bgr = cv2.cvtColor(i420, cv2.COLOR_YUV2BGR_I420)[CHROMA_CROP]
        cell = cv2.resize(bgr, None, fx=2, fy=2,
                          interpolation=cv2.INTER_NEAREST)
        label(cell, text)
        cells.append(cell)
    cv2.imwrite(out, join(cells, 4), [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "prepare":
        prepare(*args)
    elif command == "layout":
        layout(*args)
    elif command == "sigmas":
        sigmas(*args)
    elif command == "fake-sigmas":
        fake_sigmas(*args)
    elif command == "deep":
        deep(*args)
    elif command == "chroma":
        chroma(*args)
    else:
        sys.exit(__doc__)
