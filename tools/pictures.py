#!/usr/bin/env python3
"""Helper of tools/make-pictures.sh: the noisy input and the mask
(prepare), and the labelled layout of the outputs (layout)."""
import sys

import cv2
import numpy as np

# A 256 x 256 crop around the astronaut's face (the picture is 512 x 512).
CROP = (slice(40, 296), slice(150, 406))


def prepare(image, work):
    img = cv2.imread(image, cv2.IMREAD_COLOR)
    rng = np.random.default_rng(1)
    noisy = np.clip(img.astype(np.int32) + rng.normal(0, 12, img.shape).round(),
                    0, 255).astype(np.uint8)
    cv2.imwrite(f"{work}/noisy.png", noisy)
    # Strength mask: full inside a disc on the face, fading out over 40 px.
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w]
    r = np.hypot(x - 278, y - 150)
    mask = np.clip((130 - r) / 40 * 255, 0, 255).astype(np.uint8)
    cv2.imwrite(f"{work}/mask.png", mask)


def layout(work, out):
    tiles = [("input (noise sigma 12)", "noisy"),
             ("bilateral d=15 sc=40 ss=5", "exact"),
             ("mode=gaussian d=15 ss=3", "gaussian"),
             ("mask-location (disc on the face)", "masked"),
             ("bilateral exact, ss=16 (d=49)", "exact16"),
             ("method=grid, ss=16", "grid16")]
    cells = []
    for label, name in tiles:
        crop = cv2.imread(f"{work}/{name}.png", cv2.IMREAD_COLOR)[CROP].copy()
        cv2.rectangle(crop, (0, 0), (255, 18), (0, 0, 0), -1)
        cv2.putText(crop, label, (4, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (255, 255, 255), 1, cv2.LINE_AA)
        cells.append(crop)
    rows = [np.hstack(cells[i:i + 3]) for i in range(0, len(cells), 3)]
    cv2.imwrite(out, np.vstack(rows))


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    else:
        layout(sys.argv[2], sys.argv[3])
