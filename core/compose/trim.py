"""Trimming: the idle frames at a piece's start and end, found by motion energy.

A frame's motion energy is how fast the body moves in its own character
frame: the bone-length weighted mean speed of the joints that move with the
character root (length units per second, metres per second for imported
mocap), its travel and heading removed, smoothed over SMOOTHING_SECONDS. A
piece's ends are idle while their energy stays under IDLE_SHARE of the
piece's typical energy (its TYPICAL_PERCENTILE-th percentile, so a piece
that is mostly still still has a yardstick of its own motion) or rises above
it for less than SMOOTHING_SECONDS (a capture settling on its first frames is
no start of the motion); at most MAX_TRIM_SHARE of the piece is cut at either end.
"""

import numpy as np

from ..motion import features, kinematics, sampling
from ..motion.clip import Clip

IDLE_SHARE = 0.2
TYPICAL_PERCENTILE = 90
SMOOTHING_SECONDS = 0.25
MAX_TRIM_SHARE = 0.25
LEAD_IN_SECONDS = 0.1  # kept before the motion starts and after it stops, so its onset is not cut


def motion_energy(clip: Clip, pose: np.ndarray | None = None) -> np.ndarray:
    """Motion energy ``(F,)`` of every frame of ``clip``, length units per second (see the module).

    pose: the clip's armature-space matrices ``(F, B, 4, 4)``, when already computed.
    """
    pose = kinematics.clip_forward_kinematics(clip, dtype=np.float32) if pose is None else pose
    root = features.character_root(clip, pose)
    joints = features.joint_indices(clip, None, root)
    local = features.character_positions(pose, clip.parents, root)[:, joints].astype(float)
    speed = np.linalg.norm(np.gradient(local, axis=0), axis=-1) / clip.dt
    weights = features.bone_weights(clip)[joints]
    return sampling.low_pass(speed @ weights / weights.sum(), round(SMOOTHING_SECONDS * clip.fps))


def idle_ends(clip: Clip, pose: np.ndarray | None = None) -> tuple[int, int]:
    """Frames (at the start, at the end) of ``clip`` that are idle and can be cut, each at most MAX_TRIM_SHARE of it."""
    energy = motion_energy(clip, pose)
    moving = energy >= IDLE_SHARE * np.percentile(energy, TYPICAL_PERCENTILE)  # a still clip (all zero) counts as moving throughout
    lead = round(LEAD_IN_SECONDS * clip.fps)
    limit = int(MAX_TRIM_SHARE * clip.num_frames)
    run = max(min(round(SMOOTHING_SECONDS * clip.fps), clip.num_frames), 1)
    start, end = (max(_onset(mask, run) - lead, 0) for mask in (moving, moving[::-1]))
    return min(start, limit), min(end, limit)


def _onset(moving, run):
    """The first index of ``moving (F,)`` from which it holds for ``run`` frames on end (the first moving frame when none does)."""
    held = np.lib.stride_tricks.sliding_window_view(moving, run).all(axis=1)
    return int(np.argmax(held)) if held.any() else int(np.argmax(moving))
