"""Blender's exported BVH text back into a file's own axes and layout.

Blender's exporter writes Blender's axes (Z up) with its own layout (6
channels, or 3 on connected bones, in the bone's rotation mode);
:func:`match_layout` turns its file back into the input's axes and layout,
:func:`change_axes` turns it Y up.
"""

from dataclasses import replace

import numpy as np

from ...motion import quat, rotation_modes
from .layout import BvhInfo, kept_frame_time, layouts, rows_in_layout
from .read import parse_bvh
from .units import BLENDER_TO_FILE, BLENDER_TO_Y_UP
from .write import to_text


def _local_motion(info, matrix):
    """Per joint name: local position ``(F, 3)`` (file units) and rotation ``(F, 4)`` re-expressed
    through ``matrix``, and how far (file units) the position strays from the OFFSET.

    A joint without position channels sits at its OFFSET; without rotation channels, unrotated.
    """
    turn = quat.from_matrix(matrix)
    frames = info.frame_count
    moved = {}
    for joint, (name, layout) in enumerate(zip(info.names, layouts(info.channels))):
        position = info.motion[:, layout.positions] if layout.positions else np.broadcast_to(info.offsets[joint], (frames, 3))
        rotation = quat.identity((frames,))
        if layout.rotations:
            rotation = rotation_modes.euler_to_quat(np.radians(info.motion[:, layout.rotations]), layout.order)
            rotation = quat.multiply(quat.multiply(turn, rotation), quat.inverse(turn))
        moved[name] = (position @ matrix.T, rotation, np.abs(position - info.offsets[joint]).max())
    return moved


def change_axes(text: str, matrix: np.ndarray = BLENDER_TO_Y_UP, frame_time: float | None = None) -> str:
    """The BVH ``text`` with every offset, position and rotation re-expressed through ``matrix`` (3x3, a rotation).

    Each joint keeps its channels; its rotation is conjugated by ``matrix`` and
    written in its own channel order, degrees continuous from frame to frame.
    frame_time: the exact seconds per frame to write (Blender's exporter rounds to 6 decimals).
    """
    info = parse_bvh(text)
    turned = replace(info, offsets=info.offsets @ matrix.T, end_sites={joint: matrix @ offset for joint, offset in info.end_sites.items()},
                     motion=rows_in_layout(_local_motion(info, matrix), info, np.abs(info.offsets).max()), frame_time=info.frame_time if frame_time is None else frame_time)
    return to_text(turned)


def match_layout(text: str, info: BvhInfo, up: str = "Y", frame_time: float | None = None) -> str:
    """Blender's exported BVH ``text`` in the axes and layout of the input file ``info``.

    The input's hierarchy (names, offsets, End Sites, channels per joint in
    their order) with the exported motion, taken from Blender's axes back to
    the file's (``up``: its up axis, as given to the import with IMPORT_AXES);
    each joint's positions are its local position (file units), its rotation
    is written in the input's rotation order. Frame Time is the input's
    unless the export's (or ``frame_time``, the exact one, when given)
    differs beyond the 6 decimals Blender's exporter writes.
    """
    exported = parse_bvh(text)
    frame_time = kept_frame_time(info, exported.frame_time if frame_time is None else frame_time)
    return to_text(replace(info, frame_time=frame_time, motion=rows_in_layout(_local_motion(exported, matrix=BLENDER_TO_FILE[up]), info, np.abs(exported.offsets).max())))
