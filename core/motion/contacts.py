"""Foot contacts and foot skating: how far a planted foot slides.

Heights are armature-space Z and lengths the clip's unit (metres for
imported mocap); speeds are per second.
"""

import re

import numpy as np

from . import cycles, kinematics
from .clip import Clip

_FOOT_NAMES = re.compile(r"foot|toe|ankle|heel|ball", re.IGNORECASE)


def foot_joints(bone_names: tuple, positions: np.ndarray | None = None) -> np.ndarray:
    """Indices of the foot joints: by name, else the two joints that get lowest on average."""
    named = [i for i, name in enumerate(bone_names) if _FOOT_NAMES.search(name)]
    if named or positions is None:
        return np.array(named, dtype=int)
    return np.argsort(positions[..., 2].mean(axis=0))[:2]


def detect_contacts(positions: np.ndarray, dt: float, height_margin: float = 0.05, max_speed: float = 0.6) -> np.ndarray:
    """Contact mask ``(F, J)``: a joint is planted when near its lowest height and slow.

    positions ``(F, J, 3)``; height_margin above the joint's 2nd-percentile
    height; max_speed horizontal, per second.
    """
    height = positions[..., 2]
    floor = np.percentile(height, 2, axis=0)
    speed = np.zeros(height.shape)
    step = kinematics.lengths(np.diff(positions[..., :2], axis=0)) / dt
    speed[1:-1] = 0.5 * (step[1:] + step[:-1])
    speed[0], speed[-1] = step[0], step[-1]
    return (height <= floor + height_margin) & (speed <= max_speed)


def contact_segments(mask: np.ndarray) -> np.ndarray:
    """``(start, stop)`` frame pairs (stop exclusive) of the runs of True in a 1-D mask."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return np.stack([np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)], axis=-1)


def skating(positions: np.ndarray, contacts: np.ndarray, min_frames: int = 3) -> np.ndarray:
    """Per contact: (joint, start, stop, horizontal path length while planted).

    Contacts shorter than ``min_frames`` are ignored (a foot passing low).
    """
    travel = kinematics.lengths(np.diff(positions[..., :2], axis=0))
    path = np.concatenate([np.zeros((1, positions.shape[1])), np.cumsum(travel, axis=0)])
    rows = []
    for joint in range(positions.shape[1]):
        start, stop = contact_segments(contacts[:, joint]).T
        held = stop - start >= min_frames
        start, stop = start[held], stop[held]
        rows.append(np.stack([np.full(len(start), joint), start, stop, path[stop - 1, joint] - path[start, joint]], axis=-1))
    return np.concatenate(rows, dtype=float) if rows else np.zeros((0, 4))


def _skating_rows(positions, bone_names, dt):
    feet = foot_joints(bone_names, positions)
    planted = positions[:, feet]
    return skating(planted, detect_contacts(planted, dt))


def _named_feet(clip):
    """The feet found by name, for posing only their chains; None (pose every bone) when no bone is named like one."""
    named = foot_joints(clip.bone_names)
    return named if len(named) else None


def median_skating(clip: Clip) -> float:
    """Median horizontal slide per foot contact inside a clip (its own baseline)."""
    named = _named_feet(clip)
    if named is None:
        rows = _skating_rows(kinematics.clip_joint_positions(clip), clip.bone_names, clip.dt)
    else:  # a whole take: only the feet's positions kept, posed in blocks of frames
        planted = kinematics.clip_joint_positions(clip, named)
        rows = skating(planted, detect_contacts(planted, clip.dt))
    return float(np.median(rows[:, 3])) if len(rows) else 0.0


def seam_skating(loop_clip: Clip, travel_root: int | None = None, window: float = 0.3) -> float:
    """Largest slide of a foot contact within ``window`` seconds of the seam.

    Measured over two cycles played one after the other (travel accumulated),
    so a contact that spans the wrap is seen whole.
    """
    positions = cycles.chained_positions(loop_clip, travel_root, cycles=2, bones=_named_feet(loop_clip))
    rows = _skating_rows(positions, loop_clip.bone_names, loop_clip.dt)
    seam = loop_clip.num_frames - 1
    reach = window / loop_clip.dt
    near = (rows[:, 1] <= seam + reach) & (rows[:, 2] >= seam - reach)
    return float(rows[near, 3].max()) if near.any() else 0.0


def toe_joints(bone_names: tuple, positions: np.ndarray | None = None) -> np.ndarray:
    """Indices of the toe joints (the foot joints when no bone is named like a toe); see :func:`foot_joints`."""
    feet = foot_joints(bone_names, positions)
    return np.array([j for j in feet if "toe" in bone_names[j].lower()] or feet)


def toe_skating(positions: np.ndarray, toes: np.ndarray, dt: float, frames: slice = slice(None)) -> float:
    """Mean horizontal speed per second of joints ``toes`` while in contact, over the steps between ``frames`` (a slice).

    positions ``(F, B, 3)`` armature space (Z up), ``dt`` seconds per frame.
    The measure papers use for foot skating; 0 when no toe is ever planted.
    """
    planted = detect_contacts(positions[:, toes], dt)[frames]
    speed = kinematics.lengths(np.diff(positions[frames][:, toes, :2], axis=0)) / dt
    steps = planted[1:] & planted[:-1]
    return float(speed[steps].mean()) if steps.any() else 0.0
