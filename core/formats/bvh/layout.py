"""A BVH file's contents as data: its skeleton, where each joint's channels sit in a motion row, and its pose.

Conventions are those of Blender's importer: a BVH rotation lists its
outermost axis first (``Zrotation Xrotation Yrotation`` is Rz @ Rx @ Ry,
Blender Euler order ``'YXZ'``), and a joint's position channels replace its
OFFSET (they hold the joint's whole local position).
"""

import functools
from dataclasses import dataclass

import numpy as np

from ...errors import LoopsmithError
from ...motion import quat, rotation_modes

CHANNEL_NAMES = ("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")
MAX_NAME_BYTES = 63  # Blender's bone names hold 63 bytes; the importer cuts longer ones
_SAMPLES = 64  # posed frames that unit and up-axis detection look at


class BvhError(LoopsmithError):
    """A BVH file Blender would read wrongly or not at all; the message names the line.

    ``line`` and ``column`` (1-based; the column is the value's index in its
    motion row) are None where no single place is to blame.
    """

    def __init__(self, reason, line=None, column=None):
        place = f"line {line}, column {column}: " if column is not None else f"line {line}: " if line is not None else ""
        super().__init__(place + reason)
        self.line, self.column = line, column


class NotBvhError(BvhError):
    """A file that is no text at all (binary data): nothing in it is a line to name, nor anything to show."""

    def __init__(self):
        super().__init__("not a BVH file (binary data)")


@dataclass
class BvhInfo:
    """A BVH file's skeleton and motion, in the file's units and axes.

    names: ``J`` joint names, parents before children (file order).
    parents: ``(J,)`` parent index of each joint, -1 for a root.
    offsets: ``(J, 3)`` OFFSET of each joint from its parent.
    channels: ``J`` tuples of channel names as listed, e.g. ``('Xposition', 'Yposition',
        'Zposition', 'Zrotation', 'Xrotation', 'Yrotation')``, capitalised as here.
    end_sites: joint index -> ``(3,)`` End Site offset, for joints that have one.
    frame_time: seconds per frame.
    motion: ``(F, C)`` the rows, C the total channel count (positions in file units, degrees).
    """

    names: tuple
    parents: np.ndarray
    offsets: np.ndarray
    channels: tuple
    end_sites: dict
    frame_time: float
    motion: np.ndarray

    @property
    def frame_count(self) -> int:
        return len(self.motion)

    @functools.cached_property
    def sampled_pose(self) -> np.ndarray:
        """World positions ``(S, J + E, 3)`` (file units) of up to 64 evenly spaced frames: the rest pose may be degenerate."""
        return forward_kinematics(self, np.unique(np.linspace(0, self.frame_count - 1, _SAMPLES).astype(int)))

    # The medians below are read by both the up-axis and the unit detection: computed once, a column or a joint at a time
    # (a long take's whole motion is never copied or sorted down strided columns).
    @functools.cached_property
    def position_medians(self) -> np.ndarray:
        """``(C,)`` each position channel's median over the frames; 0 for the rotation channels."""
        medians = np.zeros(self.motion.shape[1])
        for column in (column for layout in layouts(self.channels) for column in layout.positions):
            medians[column] = np.median(self.motion[:, column])
        return medians

    @functools.cached_property
    def placed_lengths(self) -> np.ndarray:
        """``(J,)`` the median over the frames of each child joint's distance from its parent as its position channels
        place it; NaN for a joint without position channels or a root."""
        lengths = np.full(len(self.names), np.nan)
        for joint, layout in enumerate(layouts(self.channels)):
            if layout.positions and self.parents[joint] >= 0:
                x, y, z = (self.motion[:, column] for column in layout.positions)
                lengths[joint] = np.median(np.sqrt(x * x + y * y + z * z))  # norm(axis=1) of an (F, 3) copy is twice as slow
        return lengths


@dataclass(frozen=True)
class Layout:
    """Where one joint's channels are in a motion row."""

    positions: tuple  # columns of X, Y, Z position, or () without position channels
    rotations: tuple  # columns of X, Y, Z rotation, or ()
    order: str  # Blender Euler order of the rotation ('YXZ' for Zrotation Xrotation Yrotation)


def layouts(channels: tuple) -> list[Layout]:
    """Where each joint's channels are in a motion row: one :class:`Layout` per joint of ``channels`` (BvhInfo.channels)."""
    found, column = [], 0
    for names in channels:
        columns = {name: column + i for i, name in enumerate(names)}
        positions = tuple(columns[axis + "position"] for axis in "XYZ") if "Xposition" in columns else ()
        rotations = tuple(columns[axis + "rotation"] for axis in "XYZ") if "Xrotation" in columns else ()
        # BVH lists rotations outermost first (R = R1 R2 R3); Blender names the innermost first.
        order = "".join(name[0] for name in reversed(names) if name.endswith("rotation"))
        found.append(Layout(positions, rotations, order))
        column += len(names)
    return found


def rows_in_layout(moved: dict, target: BvhInfo, reach: float) -> np.ndarray:
    """Motion rows ``(F, C_target)`` in ``target``'s joints and channels.

    moved: joint name -> (local position ``(F, 3)`` in file units, rotation
    ``(F, 4)`` in file axes, how far the position strays from the OFFSET);
    reach: the source skeleton's largest offset (file units), which sets how
    much stray is rounding. BvhError if a joint without position channels
    moves off its OFFSET or one without rotation channels turns.
    """
    frames = len(next(iter(moved.values()))[0])
    values = np.zeros((frames, sum(map(len, target.channels))))
    # Blender evaluates in single precision: far from the origin its rounding grows with the distance.
    far = max(np.abs(position).max() for position, _, _ in moved.values())
    tolerance = 1e-6 * (reach + 1e-12) + 4e-6 * far
    for name, layout in zip(target.names, layouts(target.channels)):
        if name not in moved:
            raise BvhError(f"the exported file has no joint '{name}'")
        position, rotation, stray = moved[name]
        if layout.positions:
            values[:, layout.positions] = position
        elif stray > tolerance:
            raise BvhError(f"joint '{name}' moves off its OFFSET, but the input has no position channels to keep that")
        if layout.rotations:
            values[:, layout.rotations] = np.degrees(rotation_modes.quat_to_euler(quat.unroll(rotation), layout.order))
        elif np.abs(rotation[:, 0]).min() < 1.0 - 1e-9:
            raise BvhError(f"joint '{name}' turns, but the input has no rotation channels to keep it")
    return values


def kept_frame_time(info: BvhInfo, frame_time: float) -> float:
    """The Frame Time (seconds) an output of input ``info`` written at ``frame_time`` gets: the input's, unless they differ
    beyond the 6 decimals Blender's exporter writes (the output then plays at another rate)."""
    return info.frame_time if abs(frame_time - info.frame_time) <= 5.1e-7 else frame_time


def forward_kinematics(info: BvhInfo, frames: np.ndarray | None = None) -> np.ndarray:
    """World positions ``(S, J + E, 3)`` (file units and axes) of every joint, then every End Site.

    ``frames``: frame indices (default all, S = F); End Sites in ``info.end_sites`` order.
    """
    values = info.motion if frames is None else info.motion[frames]
    count = len(values)
    positions = np.empty((count, len(info.names), 3))
    rotations = np.empty((count, len(info.names), 4))
    for joint, layout in enumerate(layouts(info.channels)):
        local = values[:, layout.positions] if layout.positions else np.broadcast_to(info.offsets[joint], (count, 3))
        turn = rotation_modes.euler_to_quat(np.radians(values[:, layout.rotations]), layout.order) if layout.rotations else quat.identity((count,))
        parent = info.parents[joint]
        if parent < 0:
            positions[:, joint], rotations[:, joint] = local, turn
        else:
            positions[:, joint] = positions[:, parent] + quat.rotate(rotations[:, parent], local)
            rotations[:, joint] = quat.multiply(rotations[:, parent], turn)
    ends = [positions[:, joint] + quat.rotate(rotations[:, joint], offset) for joint, offset in info.end_sites.items()]
    return np.concatenate([positions, np.stack(ends, axis=1)], axis=1) if ends else positions
