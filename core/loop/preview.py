"""What the report draws of a loop: the worst joint's motion across the seam and the loop's stick figure.

The loop and the raw cut are played ``cycles`` times, each cycle chained to
the previous one by the travelling root as :func:`..motion.cycles.chained_positions`
and the seam metrics play them, so a seam shows where the cycles meet.
Positions are armature space, Z up, in the clip's length unit (metres for
imported mocap); times are seconds.
Long series are thinned to a bounded number of samples that always keeps the
seams and the frames around them.
"""

from dataclasses import dataclass

import numpy as np

from ..measure import seam as metrics
from ..motion import cycles as played, kinematics
from ..motion.figure import FIGURE_FRAMES, projected, thinned
from ..motion.clip import Clip
from .make import LoopResult

CYCLES = 2  # cycles played in every preview
SPEED_SAMPLES = 400  # at most (about) this many speed samples per curve
CLOSE_UP = 0.4  # seconds either side of the seam in the acceleration close-up


@dataclass
class SeamMotion:
    """How one joint moves across the seam, in the raw cut and in the loop, both played ``CYCLES`` times."""

    joint: int  # bone index: the joint whose seam is most visible in the raw cut
    times: np.ndarray  # (K,) seconds from the first frame, midway between the two frames each speed is measured over
    raw_speed: np.ndarray  # (K,) length unit per second
    loop_speed: np.ndarray  # (K,)
    seams: np.ndarray  # (CYCLES - 1,) seconds at which a cycle ends and the next starts
    close_up_times: np.ndarray  # (M,) seconds of the frames within CLOSE_UP of the first seam
    raw_acceleration: np.ndarray  # (M,) length unit per second squared
    loop_acceleration: np.ndarray  # (M,)
    typical_acceleration: float  # the joint's yardstick (95th percentile in the raw cut): a seam above it shows


@dataclass
class StickFigure:
    """The loop's joint positions, played ``CYCLES`` times, in the view's axes."""

    frames: np.ndarray  # (K,) frame offsets from the loop's first frame (uneven where thinned)
    positions: np.ndarray  # (K, B, 3): along the view axis, across it, up; length unit, first root position at 0
    seams: np.ndarray  # (CYCLES - 1,) frame offsets at which a cycle ends and the next starts
    parents: np.ndarray  # (B,) the joint each is drawn to, -1 for none: not the travelling root to the bones above it, which stay behind


def travel_root(result: LoopResult) -> int | None:
    """Index of the bone the cycles are chained by (a :class:`~.loop.LoopResult`), or None when the root loops."""
    return result.root if result.root_mode == "TRAVEL" else None


def joint_visibility(seam: metrics.SeamMetrics) -> np.ndarray:
    """Per joint ``(B,)``: seam acceleration over the joint's typical one (SeamMetrics.visibility is its maximum)."""
    return seam.seam_acceleration / seam.typical_acceleration


def worst_joint(result: LoopResult) -> int:
    """The bone whose seam the raw cut shows most."""
    return int(np.argmax(joint_visibility(result.before)))


def clamped_loop(result: LoopResult) -> Clip | None:
    """The loop with its last frame equal to the first (the clamp convention), or None when that cannot be rebuilt.

    A Wrap loop dropped that frame: it is its first frame again unless the
    root travels, and then where it would be is not known.
    """
    if result.clip_mode == "CLAMP":
        return result.clip
    if travel_root(result) is not None:
        return None
    return result.clip.take_frames(np.r_[0:result.clip.num_frames, 0])


def seam_frames(loop_length: int, cycles: int = CYCLES) -> np.ndarray:
    """Frame offsets ``(cycles - 1,)`` where one played cycle ends and the next starts."""
    return loop_length * np.arange(1, cycles)




def played_path(clip: Clip, root: int | None, joint: int, cycles: int = CYCLES) -> np.ndarray:
    """One joint's positions ``(cycles * (n-1) + 1, 3)`` over a clamp clip of n frames played ``cycles`` times.

    Played as the seam metrics play it (and Blender plays a frame range):
    each cycle's first frame, chained by the travelling root, stands where
    the previous cycle's last frame was. For a loop that is the same frame;
    for a raw cut this is where its seam jumps.
    """
    path = played.chained_positions(clip, root, cycles)[:, joint]
    carried = root is not None and kinematics.descendants(clip.parents, root)[joint]
    step, transform = played.chain(clip, root if carried else None), np.eye(4)
    for seam in seam_frames(clip.num_frames - 1, cycles):
        transform = step @ transform
        path[seam] = transform[:3, :3] @ path[0] + transform[:3, 3]
    return path


def seam_motion(result: LoopResult, cycles: int = CYCLES) -> SeamMotion | None:
    """The :class:`SeamMotion` of the worst joint, or None for a Wrap loop whose root travels."""
    loop = clamped_loop(result)
    if loop is None:
        return None
    joint, root, dt = worst_joint(result), travel_root(result), loop.dt
    paths = [played_path(clip, root, joint, cycles) for clip in (result.raw, loop)]
    speeds = [np.linalg.norm(np.diff(path, axis=0), axis=-1) / dt for path in paths]
    seams = seam_frames(loop.num_frames - 1, cycles)
    # Speed k is measured between frames k and k + 1; the samples kept around a seam include those on both sides.
    index = thinned(len(speeds[0]), SPEED_SAMPLES, seams)
    reach = int(round(CLOSE_UP / dt))
    close = np.arange(max(seams[0] - reach, 1), min(seams[0] + reach, len(paths[0]) - 2) + 1)
    raw_acceleration, loop_acceleration = (kinematics.accelerations(path[:, None], dt, close)[:, 0] for path in paths)
    return SeamMotion(joint, (index + 0.5) * dt, speeds[0][index], speeds[1][index], seams * dt, close * dt,
                      raw_acceleration, loop_acceleration, float(result.before.typical_acceleration[joint]))




def stick_figure(result: LoopResult, cycles: int = CYCLES) -> StickFigure | None:
    """The loop's :class:`StickFigure`, or None for a Wrap loop whose root travels."""
    loop = clamped_loop(result)
    if loop is None:
        return None
    root = travel_root(result)
    positions = played.chained_positions(loop, root, cycles)
    seams = seam_frames(loop.num_frames - 1, cycles)
    index = thinned(len(positions), FIGURE_FRAMES, seams)
    parents = loop.parents.copy()
    if root is not None:
        parents[root] = -1
    return StickFigure(index, projected(positions, root)[index], seams, parents)
