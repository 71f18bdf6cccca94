"""Seam metrics: how visible the wrap of a loop is, from forward kinematics.

A loop follows the clamp convention (its last frame is where it wraps). The
next cycle starts from the last frame's character frame when the root
travels (:func:`..motion.cycles.chain`), so travel accumulates as an engine or Blender's
Cycles-with-offset would play it. Lengths are the clip's unit (metres for
imported mocap), times seconds. A seam and the motion it is held against
are measured over steps of :data:`~..motion.cycles.SPAN` seconds, whatever the clip's rate.
"""

from dataclasses import dataclass

import numpy as np

from ..motion import cycles, kinematics
from ..motion.clip import Clip


@dataclass
class SeamMetrics:
    position_step: np.ndarray  # (B,) distance between the last frame and the next cycle's first
    velocity_jump: np.ndarray  # (B,) |velocity out of the seam - into it| (second-order one-sided estimates), per second
    seam_acceleration: np.ndarray  # (B,) per second squared
    typical_acceleration: np.ndarray  # (B,) 95th percentile inside the clip, floored
    visibility: float  # max over joints of seam / typical acceleration; a raw cut scores above 1
    velocity_jump_ratio: float  # max over joints of the seam's jump / the 95th percentile of the same estimate inside the clip

    @property
    def max_position_step(self) -> float:
        return float(self.position_step.max())

    @property
    def max_velocity_jump(self) -> float:
        return float(self.velocity_jump.max())

    def summary(self) -> str:
        return f"seam visibility {self.visibility:.2f}, step {self.max_position_step * 1000:.2f} mm, velocity jump {self.max_velocity_jump:.3f}/s"


def floored(reference: np.ndarray) -> np.ndarray:
    """Each joint's typical acceleration ``(B,)`` raised to at least a quarter of the median joint's: a joint that hardly
    moves (a toe end, a finger) does not make any motion of it look sharp by dividing by about 0."""
    return np.maximum(reference, 0.25 * np.median(reference))


def played_visibility(positions: np.ndarray, dt: float, seam_frames: list | np.ndarray, reference: np.ndarray) -> float:
    """Seam visibility of a loop as played: the largest seam acceleration over a joint's typical one.

    positions: ``(F, B, 3)`` joint positions (metres) of the loop played over
    several cycles, one row per frame, ``dt`` seconds apart; seam_frames: the
    indices where it wraps (each with a frame on either side); reference:
    ``(B,)`` each joint's typical acceleration (:attr:`Baseline.acceleration`).
    The same ratio as :attr:`SeamMetrics.visibility`, on what a player shows.
    """
    return float((kinematics.accelerations(positions, dt, seam_frames) / reference).max())


def one_sided_velocities(p: np.ndarray, dt: float, at: np.ndarray, span: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Second-order velocity estimates ``(len(at), ...)`` per second of ``p (F, ...)`` at frames ``at`` over ``span`` frames,
    from behind and from ahead (each needs two spans on its side)."""
    behind = (3.0 * p[at] - 4.0 * p[at - span] + p[at - 2 * span]) / (2.0 * span * dt)
    ahead = (-3.0 * p[at] + 4.0 * p[at + span] - p[at + 2 * span]) / (2.0 * span * dt)
    return behind, ahead


@dataclass
class Baseline:
    """How a clip moves inside: what a seam is compared with, per joint."""

    acceleration: np.ndarray  # (B,) 95th-percentile acceleration, floored, per second squared
    velocity_jump: np.ndarray  # (B,) 95th-percentile jump between one-sided velocity estimates, per second


BASELINE_SAMPLES = 1000  # frames a long clip's 95th percentiles are estimated at


def _stencil_centres(frames, span=1):
    """Frame indices a clip of ``frames`` frames is measured at over ``span`` frames: all inner ones, or BASELINE_SAMPLES
    spread evenly."""
    if frames - 4 * span <= BASELINE_SAMPLES:
        return np.arange(2 * span, frames - 2 * span)
    return np.unique(np.linspace(2 * span, frames - 2 * span - 1, BASELINE_SAMPLES).astype(int))


def baseline(positions: np.ndarray, dt: float, floor: float = 0.25, at: np.ndarray | None = None, span: int = 1) -> Baseline:
    """The :class:`Baseline` of joint positions ``(F, B, 3)``, measured at frame indices ``at`` over ``span`` frames.

    at: the frames to measure (each needs two spans on either side in
    ``positions``); default every inner frame, or BASELINE_SAMPLES spread
    evenly over a long clip, plenty for a 95th percentile. floor: each joint's
    numbers are at least this fraction of the median over joints, so still
    joints do not divide by ~0.
    """
    at = _stencil_centres(len(positions), span) if at is None else at
    inside = kinematics.accelerations(positions, dt, at, span)
    behind, ahead = one_sided_velocities(positions, dt, at, span)
    jumps = kinematics.lengths(ahead - behind)
    floored = []
    for values in (inside, jumps):
        typical = np.percentile(values, 95, axis=0) if len(values) else np.ones(positions.shape[1])
        floored.append(np.maximum(np.maximum(typical, floor * np.median(typical)), 1e-9))
    return Baseline(*floored)


def clip_baseline(clip: Clip, floor: float = 0.25) -> Baseline:
    """The :class:`Baseline` of a clip over :data:`~..motion.cycles.SPAN`, from forward kinematics at only the frames it is
    measured at.

    Single precision: the differences it takes stay well above float32 noise
    for any visible motion, and a long take costs a fraction of its full FK.
    """
    span = cycles.span_frames(clip.dt, clip.num_frames)
    centres = _stencil_centres(clip.num_frames, span)
    needed = np.unique((centres[:, None] + span * np.arange(-2, 3)).ravel())
    positions = kinematics.clip_forward_kinematics(clip.take_frames(needed), dtype=np.float32, heads_only=True)[..., :3, 3]
    return baseline(positions.astype(float), clip.dt, floor, np.searchsorted(needed, centres), span)


def _seam_rows(frames, span):
    """Indices of the frames a seam is measured on: two spans and the frame at each side of the wrap."""
    return np.r_[0:2 * span + 1, frames - 2 * span - 1:frames]


def seam_metrics(clip: Clip, travel_root: int | None = None, reference: Baseline | None = None,
                 pose: np.ndarray | None = None) -> SeamMetrics:
    """Seam metrics of a clamp-convention loop clip.

    reference: the :class:`Baseline` to compare the seam with; default the
    clip's own (Make Loop passes the raw clip's: one yardstick before and after).
    pose: the clip's forward kinematics, when the caller has it already;
    otherwise only the frames at the seam are evaluated.
    """
    dt, span = clip.dt, cycles.span_frames(clip.dt, clip.num_frames)
    if reference is None:
        reference = baseline(pose[..., :3, 3], dt, span=span) if pose is not None else clip_baseline(clip)
    rows, side = _seam_rows(clip.num_frames, span), 2 * span + 1
    if pose is None:
        ends = clip.take_frames(rows)
        p = kinematics.clip_forward_kinematics(ends, heads_only=True)[..., :3, 3]
        chained = cycles.chain(ends, travel_root)
    else:
        p = pose[rows, :, :3, 3]
        chained = cycles.chain(clip, travel_root)
    nxt = cycles.in_next_cycle(clip.parents, p[:side], chained, travel_root)
    step = np.linalg.norm(p[-1] - nxt[0], axis=-1)
    # Played through the seam: ..., n-2, then the next cycle's 0, 1, ... (its frame 0 is the loop's n-1).
    played = np.concatenate([p[side:-1], nxt])
    behind, ahead = one_sided_velocities(played, dt, np.array([2 * span]), span)
    jump = np.linalg.norm(ahead[0] - behind[0], axis=-1)
    seam_acc = kinematics.accelerations(played, dt, [2 * span], span)[0]
    return SeamMetrics(step, jump, seam_acc, reference.acceleration, float((seam_acc / reference.acceleration).max()),
                       float((jump / reference.velocity_jump).max()))


def largest_steps(positions: np.ndarray) -> np.ndarray:
    """Each joint's largest move between two frames ``(B,)`` of positions ``(F, B, 3)``."""
    return kinematics.lengths(np.diff(positions, axis=0)).max(axis=0)


def largest_step_ratio(looped: Clip, raw: Clip, travel_root: int | None = None, posed: tuple | None = None) -> float:
    """A one-frame pop: the largest move of a joint between two frames of the loop as played (CLAMP: its last frame is the
    next cycle's first) over that joint's largest in the raw cut, the largest over joints; each joint's own raised to a
    quarter of the median joint's (:func:`floored`), so a joint that hardly moves does not divide by about 0.

    Every later cycle is the first moved rigidly (:func:`~..motion.cycles.chain`), so its steps are the first's: the loop
    is posed once, and the step across the wrap (the last frame to the next cycle's second) is added to its own (the
    same, to rounding, as posing every cycle). posed: both clips' joint positions
    (:func:`~..motion.kinematics.clip_joint_positions`) when the caller has them."""
    joints, raw_joints = posed if posed is not None else (kinematics.clip_joint_positions(looped), kinematics.clip_joint_positions(raw))
    after_wrap = cycles.in_next_cycle(looped.parents, joints[1], cycles.chain(looped, travel_root), travel_root)
    steps = np.maximum(largest_steps(joints), kinematics.lengths(after_wrap - joints[-1]))
    own = floored(largest_steps(raw_joints))
    return float((steps / np.maximum(own, 1e-9)).max())


def _body_speed(clip: Clip, joints: np.ndarray | None = None) -> float:
    """The mean speed of a clip's joints about its first bone (the body's own motion, not its travel), per second, over
    every step between two frames or BASELINE_SAMPLES of them spread evenly over a long take. joints: the clip's joint
    positions ``(F, B, 3)`` when posed already (else the frames measured are posed alone)."""
    if clip.num_frames < 2:
        return 0.0
    steps = np.unique(np.linspace(0, clip.num_frames - 2, min(clip.num_frames - 1, BASELINE_SAMPLES)).astype(int))
    measured = np.r_[steps, steps + 1]
    positions = kinematics.clip_joint_positions(clip.take_frames(measured)) if joints is None else joints[measured]
    about = positions - positions[:, :1]
    return float(kinematics.lengths(about[len(steps):] - about[:len(steps)]).mean() / clip.dt)


def motion_share(looped: Clip, take: Clip, looped_joints: np.ndarray | None = None) -> float:
    """How much a loop moves against the take it was cut from: its joints' mean speed about the first bone over the take's
    (about 1 for a loop of the take's motion, near 0 for a loop of a still stretch; 1 for a take that does not move).
    looped_joints: the loop's joint positions ``(F, B, 3)`` when posed already."""
    own = _body_speed(take)
    return _body_speed(looped, looped_joints) / own if own > 0.0 else 1.0
