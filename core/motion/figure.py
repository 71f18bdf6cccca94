"""A stick figure of a clip as a report plays it: every joint's position per shown frame, in a side view's axes.

Positions are armature space, Z up, in the clip's length unit (metres for
imported mocap); the view looks across the root's travel, or across the
direction a character in place spreads least (front to back). Long clips
are thinned to a bounded number of frames that always keeps the frames a
report marks (a seam, a transition's window) and those around them.
"""

from dataclasses import dataclass

import numpy as np

from . import kinematics, root as roots
from .clip import Clip

FIGURE_FRAMES = 200  # at most (about) this many stick-figure frames
UP = 2  # armature space is Z up (Blender's convention)


@dataclass
class StickFigure:
    """Joint positions of the frames a report shows, in the view's axes.

    frames: ``(K,)`` frame offsets from the clip's first frame (uneven where thinned).
    positions: ``(K, B, 3)``: along the view axis, across it, up; length unit, the root's first position at 0.
    parents: ``(B,)`` the joint each is drawn to, -1 for none.
    """

    frames: np.ndarray
    positions: np.ndarray
    parents: np.ndarray


def thinned(count: int, limit: int, keep: list | np.ndarray) -> np.ndarray:
    """Sorted indices into ``count`` samples: about ``limit`` evenly spaced, the last, and ``keep`` with two samples either side."""
    stride = max(1, int(np.ceil(count / limit)))
    near = (np.asarray(keep, dtype=int).reshape(-1)[:, None] + np.arange(-2, 3)).ravel()
    index = np.union1d(np.arange(0, count, stride), near[(near >= 0) & (near < count)])
    return np.union1d(index, [count - 1]).astype(int)


def view_axis(positions: np.ndarray, root: int | None) -> np.ndarray:
    """Unit horizontal direction ``(3,)`` the side view looks across.

    positions ``(F, B, 3)``. The root's travel when it travels; for a
    character in place, the horizontal direction its joints spread least
    around their mean (front to back: a body is wider than it is deep).
    """
    if root is not None:
        travel = positions[-1, root] - positions[0, root]
        travel[UP] = 0.0
        if np.linalg.norm(travel) > 1e-6:
            return travel / np.linalg.norm(travel)
    horizontal = np.delete(positions - positions.mean(axis=1, keepdims=True), UP, axis=-1).reshape(-1, 2)
    _, vectors = np.linalg.eigh(horizontal.T @ horizontal)
    axis = np.insert(vectors[:, 0], UP, 0.0)
    return axis / np.linalg.norm(axis)


def projected(positions: np.ndarray, root: int | None) -> np.ndarray:
    """``positions`` ``(F, B, 3)`` in the side view's axes (along, across, up), the root's first position on the ground at 0."""
    along = view_axis(positions, root)
    across = np.cross(np.eye(3)[UP], along)
    origin = positions[0, root if root is not None else 0].copy()
    origin[UP] = 0.0
    return (positions - origin) @ np.stack([along, across, np.eye(3)[UP]], axis=1)


def view_root(clip: Clip) -> int:
    """The bone the view follows: the one that carries the clip's travel, else its first root."""
    moving = roots.find_moving_root(clip)
    return int(np.flatnonzero(clip.parents < 0)[0]) if moving is None else int(moving)


def stick_figure(clip: Clip, keep: list | np.ndarray = (), limit: int = FIGURE_FRAMES) -> StickFigure:
    """The :class:`StickFigure` of ``clip`` played once: about ``limit`` frames, and every frame offset in ``keep`` with its
    neighbours. The view follows :func:`view_root`."""
    return stick_figure_at(clip, thinned(clip.num_frames, limit, keep))


def stick_figure_at(clip: Clip, index: np.ndarray) -> StickFigure:
    """The :class:`StickFigure` of ``clip`` at the frame offsets ``index`` ``(K,)`` (a clip shown beside another, in step)."""
    root = view_root(clip)
    parents = clip.parents.copy()
    parents[root] = -1  # the bones above the travelling root stay behind: no line runs from them to it
    return StickFigure(np.asarray(index, dtype=int), projected(kinematics.clip_joint_positions(clip), root)[index], parents)
