#!/usr/bin/env python3
"""Usage: png_not_blank.py PICTURE.png [MIN_FRACTION] [MIN_COLOURS]
A rendered picture is not blank: at least MIN_FRACTION (default 0.01) of its pixels
differ from the background (the colour of its corner pixels) and it has at least
MIN_COLOURS (default 64) distinct colours (shaded spheres, lines and walls give
hundreds; an empty view gives one). Prints both numbers."""
import sys

try:
    import matplotlib.image
    import numpy as np
except ImportError as e:
    sys.exit(f"FAIL: {e}: install python3-matplotlib (tools/setup.sh) and use /usr/bin/python3")


def main(path, min_fraction=0.01, min_colours=64):
    img = matplotlib.image.imread(path)
    rgb = (np.asarray(img)[..., :3] * 255).round().astype(np.uint8)
    corners = [tuple(rgb[y, x]) for y in (0, -1) for x in (0, -1)]
    background = max(set(corners), key=corners.count)
    drawn = np.any(rgb != np.array(background, dtype=np.uint8), axis=2).mean()
    colours = len(np.unique(rgb.reshape(-1, 3), axis=0))
    print(f"{path}: {rgb.shape[1]}x{rgb.shape[0]}, {100 * drawn:.1f} % of the pixels drawn, {colours} colours")
    if drawn < min_fraction or colours < min_colours:
        sys.exit(f"FAIL: {path} is blank (at least {100 * min_fraction:g} % drawn and {min_colours} colours wanted)")


if __name__ == "__main__":
    main(sys.argv[1], *(float(x) for x in sys.argv[2:3]), *(int(x) for x in sys.argv[3:4]))
