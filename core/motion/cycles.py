"""A clip played as a cycle: where each next cycle is placed, the joints over several cycles, the mismatch across the wrap.

A loop follows the clamp convention (its last frame is where it wraps). The
next cycle starts from the last frame's character frame when the root
travels, so travel accumulates as an engine or Blender's Cycles-with-offset
would play it. Lengths are the clip's unit (metres for imported mocap).
"""

import numpy as np

from . import kinematics, quat, root as root_motion
from .clip import Clip


def chain(clip: Clip, travel_root: int | None = None) -> np.ndarray:
    """Rigid transform ``(4, 4)`` placing the next cycle: the character frame at the end times the inverse at the start."""
    if travel_root is None:
        return np.eye(4)
    global_root, _ = root_motion.root_frames(clip, travel_root)
    frames = root_motion.character_transform(global_root[:, :3, 3], quat.from_matrix(global_root[:, :3, :3]))
    return frames[-1] @ kinematics.affine_inverse(frames[0])


def placed(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points ``(..., 3)`` moved by the rigid transform ``matrix`` ``(4, 4)`` (a next cycle's placement)."""
    return points @ matrix[:3, :3].T + matrix[:3, 3]


def in_next_cycle(parents: np.ndarray, points: np.ndarray, transform: np.ndarray, travel_root: int | None) -> np.ndarray:
    """Joint positions ``points (..., B, 3)`` as a later cycle plays them: the travelling root and the bones below it moved
    by ``transform`` (:func:`chain`, or its power), the bones above it (a static joint_Root) where they are; a copy."""
    moved = np.array(points)
    if travel_root is not None:
        moving = kinematics.descendants(parents, travel_root)
        moved[..., moving, :] = placed(transform, points[..., moving, :])
    return moved


def chained_positions(clip: Clip, travel_root: int | None = None, cycles: int = 2, bones: list | np.ndarray | None = None) -> np.ndarray:
    """Joint positions ``(cycles * (n-1) + 1, B, 3)`` of the loop played ``cycles`` times.

    Each cycle starts where the previous one ended: the travelling root and
    the bones below it are carried by :func:`chain`; bones above it stay.
    bones: pose only these and the bones above them (the others stay zero).
    """
    if bones is None:
        p = kinematics.clip_joint_positions(clip)
    else:  # the others stay zero
        posed = kinematics.ancestors_and_self(clip.parents, bones)
        p = np.zeros((clip.num_frames, clip.num_bones, 3))
        p[:, posed] = kinematics.clip_joint_positions(clip, posed)
    parts, step, transform = [p], chain(clip, travel_root), np.eye(4)
    for _ in range(cycles - 1):
        transform = step @ transform
        parts.append(in_next_cycle(clip.parents, p[1:], transform, travel_root))
    return np.concatenate(parts)


#: Seconds a seam is measured and closed over, and the motion it is held against measured over (the nearest whole number
#: of frames, at least one: every frame at 30 fps, every fourth at 120), so the same motion at any rate measures and loops
#: the same: over single frames a 120 fps take's capture jitter decided its own accelerations, a seam's, and the velocity
#: a stitch matched, and a kink in velocity read larger the higher the rate.
SPAN = 1.0 / 30.0


def span_frames(dt: float, frames: int | None = None) -> int:
    """:data:`SPAN` in frames ``dt`` seconds apart, at least 1; at most a half of ``frames`` (a clip's count) less one."""
    span = max(1, int(round(SPAN / dt)))
    return max(1, min(span, (frames - 1) // 2)) if frames is not None else span


def seam_mismatch(x: np.ndarray, span: int = 1) -> np.ndarray:
    """``g(x)`` along axis 0, units per frame: how far the seam is from smooth, over ``span`` frames.

    The step into the seam minus the step out of it, plus the mean of the
    second differences on either side: zero when the seam's acceleration is
    the average of its neighbours', so one-sided velocity estimates of second
    order agree across the wrap (equal steps alone would force a zero
    acceleration, a kink of its own). Steps ``span`` frames long, divided by it.
    """
    m = span
    into, out_of = x[-1] - x[-1 - m], x[m] - x[0]
    return (into - out_of + 0.5 * ((x[2 * m] - 2.0 * x[m] + x[0]) + (x[-1] - 2.0 * x[-1 - m] + x[-1 - 2 * m]))) / m
