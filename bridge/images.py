"""The transition's distance map as a Blender image a person can look at.

Pixel columns are the target's frames (left to right), rows the source's
(bottom to top, as Blender stores pixels): dark where the two poses are
close. The chosen point is a red cross, the time-warp path a green line.
"""

import bpy
import numpy as np

POINT_COLOUR = (1.0, 0.1, 0.1, 1.0)
PATH_COLOUR = (0.1, 1.0, 0.3, 1.0)
_CROSS_ARM = 3  # pixels each side of the chosen point


def _pixel(frames, first, last, size):
    """Pixel indices ``(N,)`` of frame numbers on an axis of ``size`` pixels covering frames ``first``..``last``."""
    span = max(last - first, 1)
    return np.rint((np.asarray(frames, dtype=float) - first) / span * (size - 1)).astype(int)


def distance_picture(distance, distance_frames, point, path=None):
    """RGBA pixels ``(n, m, 4)`` float32 of a distance map ``(n, m)``, row 0 at the bottom.

    distance_frames: ((a_first, a_last), (b_first, b_last)) frame numbers
    the map's rows and columns cover. point: (frame_a, frame_b) drawn as a
    cross; path: ``(P, 2)`` (A, B) frame numbers drawn as a line, or None.
    Greys run from the map's least distance (black) to its 98th percentile
    (white), so a few far poses do not wash the rest out.
    """
    distance = np.asarray(distance, dtype=float)
    rows, columns = distance.shape
    low, high = distance.min(), np.percentile(distance, 98)
    grey = np.clip((distance - low) / max(high - low, 1e-12), 0.0, 1.0)
    pixels = np.empty((rows, columns, 4), dtype=np.float32)
    pixels[..., :3] = grey[..., None]
    pixels[..., 3] = 1.0
    (a_first, a_last), (b_first, b_last) = distance_frames

    def paint(frames_a, frames_b, colour):
        r, c = _pixel(frames_a, a_first, a_last, rows), _pixel(frames_b, b_first, b_last, columns)
        inside = (r >= 0) & (r < rows) & (c >= 0) & (c < columns)
        pixels[r[inside], c[inside]] = colour

    if path is not None and len(path):
        path = np.asarray(path, dtype=float)
        # One sample per pixel step of the longer axis, so the line has no gaps on a thinned map.
        steps = max(rows, columns) * len(path)
        t = np.linspace(0.0, len(path) - 1, steps)
        paint(np.interp(t, np.arange(len(path)), path[:, 0]), np.interp(t, np.arange(len(path)), path[:, 1]), PATH_COLOUR)
    arm = np.arange(-_CROSS_ARM, _CROSS_ARM + 1)
    row, column = _pixel([point[0]], a_first, a_last, rows)[0], _pixel([point[1]], b_first, b_last, columns)[0]
    for r, c in ((row + arm, np.full_like(arm, column)), (np.full_like(arm, row), column + arm)):
        inside = (r >= 0) & (r < rows) & (c >= 0) & (c < columns)
        pixels[r[inside], c[inside]] = POINT_COLOUR
    return pixels


def show_picture(name, pixels):
    """The image ``name`` holding ``pixels (h, w, 4)``: the existing one refilled (resized if needed), else a new one.

    Packed into the .blend, so the picture survives saving and undo.
    """
    height, width = pixels.shape[:2]
    image = bpy.data.images.get(name)
    if image is None or image.library is not None:
        image = bpy.data.images.new(name, width, height)
    elif tuple(image.size) != (width, height):
        image.scale(width, height)
    image.pixels.foreach_set(pixels.ravel())
    image.update()
    image.pack()
    return image
