"""Keyposes: the brief pauses of the whole body that carry a motion's rhythm, and the motion's own tempo.

A keypose is a local minimum of the body's speed, measured in the
character's own frame (the root's horizontal travel and heading removed, so
walking on does not count as moving), joints weighted by the length of the
bone that ends at them as the pose features weigh them, smoothed, and deep
enough to be seen: its prominence (how far the speed climbs on both sides
before it falls lower again) is a share of the clip's own speed range. The
feet's touch-downs add the steps a body makes without pausing.

Times are 0-based fractional frame indices into the clip; speeds are the
clip's length unit (metres for imported mocap) per second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..motion import contacts, features, kinematics
from ..motion.clip import Clip

SMOOTHING = 0.05  # s: standard deviation of the Gaussian that smooths the body speed
MIN_PROMINENCE = 0.35  # share of the clip's speed range (5th to 95th percentile) a pause must dip
MIN_SPACING = 0.2  # s between two keyposes
PROMINENCE_REACH = 1.0  # s searched on each side of a minimum for its prominence
CONTACT_STRENGTH = 0.5  # strength of a touch-down that no pause is near
MIN_CONTACT = 3  # frames a foot must stay planted for its landing to count as a step


@dataclass
class Keyposes:
    """A clip's keyposes.

    frames: ``(K,)`` fractional frame indices, increasing.
    strength: ``(K,)`` 0..1: a pause's prominence over the clip's speed range, or
        :data:`CONTACT_STRENGTH` for a touch-down.
    contact: ``(K,)`` True where the keypose is a foot's touch-down rather than a pause.
    speed: ``(F,)`` the smoothed body speed the pauses were found in, length units per second.
    fps: the clip's frames per second.
    """

    frames: np.ndarray
    strength: np.ndarray
    contact: np.ndarray
    speed: np.ndarray
    fps: float

    @property
    def seconds(self) -> np.ndarray:
        """``(K,)`` keypose times in seconds from the clip's first frame."""
        return self.frames / self.fps


def body_speed(clip: Clip, pose: np.ndarray | None = None) -> np.ndarray:
    """The whole body's speed ``(F,)`` in its character frame, length units per second.

    The mean of the joints' speeds weighted by bone length (see
    :func:`..motion.features.bone_weights`), over the joints that move with the
    character. pose: the clip's armature-space matrices ``(F, B, 4, 4)`` if known.
    """
    pose = kinematics.clip_forward_kinematics(clip) if pose is None else pose
    root = features.character_root(clip, pose)
    joints = features.joint_indices(clip, "all", root)
    weights = features.bone_weights(clip)[joints]
    local = features.character_positions(pose, clip.parents, root)[:, joints]
    if clip.num_frames < 2:
        return np.zeros(clip.num_frames)
    speed = np.linalg.norm(np.gradient(local, axis=0), axis=-1) * clip.fps
    return speed @ weights / max(weights.sum(), 1e-12)


def smooth(values: np.ndarray, sigma: float) -> np.ndarray:
    """``values (F,)`` convolved with a Gaussian of ``sigma`` frames, the ends reflected (no lag, no shrink at the ends)."""
    values = np.asarray(values, dtype=float)
    half = min(int(np.ceil(3.0 * sigma)), len(values) - 1)
    if sigma <= 0.0 or half < 1:
        return values.copy()
    kernel = np.exp(-0.5 * (np.arange(-half, half + 1) / sigma) ** 2)
    padded = np.pad(values, half, mode="reflect")
    return np.convolve(padded, kernel / kernel.sum(), mode="valid")


def local_minima(values: np.ndarray, ends: bool = False) -> np.ndarray:
    """Indices of the inner local minima of ``values (F,)`` (strictly below the left neighbour, not above the right); with
    ``ends``, the first and last index too where the values rise away from them."""
    inner = np.flatnonzero((values[1:-1] < values[:-2]) & (values[1:-1] <= values[2:])) + 1
    if not ends or len(values) < 2:
        return inner
    first, last = [0] if values[0] < values[1] else [], [len(values) - 1] if values[-1] < values[-2] else []
    return np.concatenate([first, inner, last]).astype(int)


def _side_reference(values, at, reach, step):
    """Per minimum ``at (K,)``: the highest value walking ``step`` (+1, -1) from it up to ``reach`` frames before a lower one."""
    offsets = step * np.arange(1, reach + 1)
    index = at[:, None] + offsets[None, :]
    inside = (index >= 0) & (index < len(values))
    window = np.where(inside, values[np.clip(index, 0, len(values) - 1)], np.nan)
    lower = np.logical_or.accumulate(np.nan_to_num(window, nan=np.inf) < values[at, None], axis=1)
    seen = np.where(~lower & inside, window, -np.inf)
    return np.maximum(seen.max(axis=1, initial=-np.inf), values[at])


def prominence(values: np.ndarray, at: np.ndarray, reach: int) -> np.ndarray:
    """Prominence ``(K,)`` of the minima ``at (K,)`` of ``values (F,)``: how far the values climb on the lower of its two sides.

    Each side is searched up to ``reach`` frames, or until a value lower than
    the minimum, or the clip's end; a minimum on the clip's first or last frame has one side.
    """
    at = np.asarray(at, dtype=int)
    if not len(at):
        return np.zeros(0)
    reach = max(int(reach), 1)
    left, right = _side_reference(values, at, reach, -1), _side_reference(values, at, reach, 1)
    # A minimum on an end has one side: its climb there.
    left, right = np.where(at == 0, right, left), np.where(at == len(values) - 1, left, right)
    return np.minimum(left, right) - values[at]


def refine(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Sub-frame positions ``(K,)`` of the minima ``at (K,)``: the vertex of the parabola through the three values around each."""
    at = np.asarray(at, dtype=int)
    # At an end the values are mirrored about it: the vertex stays on the end.
    before = values[np.where(at > 0, at - 1, np.minimum(at + 1, len(values) - 1))]
    after = values[np.where(at < len(values) - 1, at + 1, np.maximum(at - 1, 0))]
    here = values[at]
    curvature = before - 2.0 * here + after
    shift = np.where(curvature > 1e-12, 0.5 * (before - after) / np.where(curvature > 1e-12, curvature, 1.0), 0.0)
    return at + np.clip(shift, -0.5, 0.5)


def thin(times: np.ndarray, strength: np.ndarray, spacing: float) -> np.ndarray:
    """Mask ``(K,)`` of the events kept when each is dropped within ``spacing`` of a stronger kept one (ties: the earlier)."""
    times = np.asarray(times, dtype=float)
    keep = np.zeros(len(times), dtype=bool)
    for event in np.lexsort((times, -np.asarray(strength, dtype=float))):  # strongest first: one pass over the events
        if not np.any(keep & (np.abs(times - times[event]) < spacing)):
            keep[event] = True
    return keep


def touch_downs(clip: Clip, pose: np.ndarray | None = None, min_frames: int = MIN_CONTACT) -> np.ndarray:
    """Frames ``(n,)`` (sorted) where a foot joint lands: the first frame of each of its contacts after the clip's first.

    Feet are found by name, else the two lowest joints (see
    :func:`..motion.contacts.foot_joints`); a contact must last ``min_frames``.
    """
    pose = kinematics.clip_forward_kinematics(clip) if pose is None else pose
    positions = pose[..., :3, 3]
    feet = contacts.foot_joints(clip.bone_names, positions)
    if not len(feet) or clip.num_frames < 3:
        return np.zeros(0)
    mask = contacts.detect_contacts(positions[:, feet], clip.dt)
    starts = [segment[0] for joint in range(len(feet)) for segment in contacts.contact_segments(mask[:, joint])
              if segment[0] > 0 and segment[1] - segment[0] >= min_frames]
    return np.sort(np.array(starts, dtype=float))


def find_keyposes(clip: Clip, min_prominence: float = MIN_PROMINENCE, min_spacing: float = MIN_SPACING,
                  steps: bool = True, smoothing: float = SMOOTHING, pose: np.ndarray | None = None) -> Keyposes:
    """The keyposes of ``clip``: the pauses of the whole body, and with ``steps`` the feet's touch-downs.

    min_prominence: share of the clip's speed range (5th to 95th percentile
    of the smoothed body speed) a pause must dip. min_spacing: seconds between
    keyposes; of two pauses closer than that the weaker goes, and a
    touch-down closer than that to a kept pause is the same moment (the pause
    stays). smoothing: seconds, the Gaussian's standard deviation. pose: the
    clip's armature-space matrices ``(F, B, 4, 4)`` if known.
    """
    pose = kinematics.clip_forward_kinematics(clip) if pose is None else pose
    speed = smooth(body_speed(clip, pose), smoothing * clip.fps)
    spread = float(np.subtract(*np.percentile(speed, [95, 5]))) if len(speed) else 0.0
    minima = local_minima(speed, ends=True)
    strength = prominence(speed, minima, int(round(PROMINENCE_REACH * clip.fps))) / max(spread, 1e-9)
    strong = strength >= min_prominence if spread > 1e-6 else np.zeros(len(minima), dtype=bool)
    times, strength = refine(speed, minima[strong]), np.minimum(strength[strong], 1.0)
    kept = thin(times, strength, min_spacing * clip.fps)
    times, strength = times[kept], strength[kept]
    landings = touch_downs(clip, pose) if steps else np.zeros(0)
    if len(landings):
        alone = np.abs(landings[:, None] - times[None, :]).min(axis=1, initial=np.inf) >= min_spacing * clip.fps
        landings = landings[alone][thin(landings[alone], np.zeros(alone.sum()), min_spacing * clip.fps)]
    every = np.concatenate([times, landings])
    order = np.argsort(every, kind="stable")
    return Keyposes(frames=every[order], strength=np.concatenate([strength, np.full(len(landings), CONTACT_STRENGTH)])[order],
                    contact=np.concatenate([np.zeros(len(times), dtype=bool), np.ones(len(landings), dtype=bool)])[order],
                    speed=speed, fps=float(clip.fps))


def motion_tempo(keypose_times: np.ndarray, fps: float) -> float:
    """The motion's tempo in keyposes per minute: 60 over the median spacing of ``keypose_times (K,)`` (frames at ``fps``).

    The median keeps a missed or an extra keypose from moving it. 0 when
    there are fewer than two keyposes.
    """
    times = np.sort(np.asarray(keypose_times, dtype=float))
    if len(times) < 2:
        return 0.0
    spacing = np.median(np.diff(times)) / fps
    return float(60.0 / spacing) if spacing > 0.0 else 0.0
