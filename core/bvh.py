"""BVH text: change the axes a file is written in.

Blender's BVH exporter writes Blender's own axes (Z up) and has no axis
option, while BVH files, and Blender's own importer, expect Y up. This turns
an exported file into the Y-up convention of the file it came from:
offsets and positions through the axis change, each joint's rotation
conjugated by it and written back in the joint's own channel order, degrees
continuous from frame to frame.
"""

import io
import re

import numpy as np

from . import quat, rotation_modes

#: Blender's axes (Z up, -Y forward) to BVH's (Y up, Z forward): (x, y, z) -> (x, z, -y).
BLENDER_TO_Y_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])

_OFFSET = re.compile(r"^(\s*OFFSET\s+)(\S+)\s+(\S+)\s+(\S+)\s*$")
_CHANNELS = re.compile(r"^\s*CHANNELS\s+\d+\s+(.*)$")


def _joint_orders(channel_lists):
    """Per joint: position column triplet, rotation columns and their Blender Euler order."""
    joints, column = [], 0
    for names in channel_lists:
        positions = {name[0]: column + i for i, name in enumerate(names) if name.endswith("position")}
        rotations = [(name[0], column + i) for i, name in enumerate(names) if name.endswith("rotation")]
        # BVH lists rotations outermost first (R = R1 R2 R3); Blender names the innermost first.
        order = "".join(axis for axis, _ in reversed(rotations))
        joints.append((positions, rotations, order))
        column += len(names)
    return joints, column


def change_axes(text, matrix=BLENDER_TO_Y_UP):
    """The BVH ``text`` with every offset, position and rotation re-expressed through ``matrix`` (3x3, a rotation)."""
    header, motion = text.split("MOTION", 1)
    lines, channel_lists = [], []
    for line in header.splitlines():
        offset = _OFFSET.match(line)
        if offset:
            moved = matrix @ np.array([float(v) for v in offset.groups()[1:]])
            line = offset.group(1) + " ".join(f"{v:.6f}" for v in moved)
        channels = _CHANNELS.match(line)
        if channels:
            channel_lists.append(channels.group(1).split())
        lines.append(line)
    motion_lines = motion.strip().splitlines()
    frame_header, rows = motion_lines[:2], motion_lines[2:]
    joints, width = _joint_orders(channel_lists)
    values = np.array(" ".join(rows).split(), dtype=float).reshape(len(rows), width)
    turn = quat.from_matrix(matrix)
    for positions, rotations, order in joints:
        if len(positions) == 3:
            columns = [positions[axis] for axis in "XYZ"]
            values[:, columns] = values[:, columns] @ matrix.T
        if len(rotations) == 3:
            columns = [column for _, column in rotations]
            euler = np.zeros((len(values), 3))
            for axis, column in rotations:
                euler[:, "XYZ".index(axis)] = np.radians(values[:, column])
            q = quat.multiply(quat.multiply(turn, rotation_modes.euler_to_quat(euler, order)), quat.inverse(turn))
            converted = np.degrees(rotation_modes.quat_to_euler(quat.unroll(q), order))
            for axis, column in rotations:
                values[:, column] = converted[:, "XYZ".index(axis)]
    out = io.StringIO()
    np.savetxt(out, values, fmt="%.6f")
    return "\n".join(lines) + "\nMOTION\n" + "\n".join(frame_header) + "\n" + out.getvalue()
