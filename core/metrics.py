"""Seam metrics: how visible the wrap of a loop is, from forward kinematics.

A loop follows the clamp convention (its last frame is where it wraps). The
next cycle starts from the last frame's character frame when the root
travels (``chain`` below), so travel accumulates as an engine or Blender's
Cycles-with-offset would play it. Lengths are the clip's unit (metres for
imported mocap), times seconds.
"""

from dataclasses import dataclass

import numpy as np

from . import kinematics, quat, root as root_motion


@dataclass
class SeamMetrics:
    position_step: np.ndarray  # (B,) distance between the last frame and the next cycle's first
    velocity_jump: np.ndarray  # (B,) |velocity out of the seam - into it| (second-order one-sided estimates), per second
    seam_acceleration: np.ndarray  # (B,) per second squared
    typical_acceleration: np.ndarray  # (B,) 95th percentile inside the clip, floored
    visibility: float  # max over joints of seam / typical acceleration; a raw cut scores above 1

    @property
    def max_position_step(self):
        return float(self.position_step.max())

    @property
    def max_velocity_jump(self):
        return float(self.velocity_jump.max())

    def summary(self):
        return f"seam visibility {self.visibility:.2f}, step {self.max_position_step * 1000:.2f} mm, velocity jump {self.max_velocity_jump:.3f}/s"


def chain(clip, travel_root=None):
    """Rigid transform ``(4, 4)`` placing the next cycle: the character frame at the end times the inverse at the start."""
    if travel_root is None:
        return np.eye(4)
    global_root, _ = root_motion.root_frames(clip, travel_root)
    frames = root_motion.character_transform(global_root[:, :3, 3], quat.from_matrix(global_root[:, :3, :3]))
    return frames[-1] @ np.linalg.inv(frames[0])


def _apply(matrix, points):
    return points @ matrix[:3, :3].T + matrix[:3, 3]


def seam_metrics(clip, travel_root=None, acceleration_floor=0.25):
    """Seam metrics of a clamp-convention loop clip.

    acceleration_floor: each joint's typical acceleration is at least this
    fraction of the median over joints, so still joints do not divide by ~0.
    """
    p = kinematics.clip_joint_positions(clip)
    dt = clip.dt
    nxt = chain(clip, travel_root)
    first, second, third = _apply(nxt, p[0]), _apply(nxt, p[1]), _apply(nxt, p[2])
    step = np.linalg.norm(p[-1] - first, axis=-1)
    # Second-order one-sided velocities at the seam, from each side.
    into = (3.0 * p[-1] - 4.0 * p[-2] + p[-3]) / (2.0 * dt)
    out_of = (-3.0 * first + 4.0 * second - third) / (2.0 * dt)
    jump = np.linalg.norm(out_of - into, axis=-1)
    seam_acc = np.linalg.norm(second - 2.0 * first + p[-2], axis=-1) / dt**2
    inside = np.linalg.norm(p[2:] - 2.0 * p[1:-1] + p[:-2], axis=-1) / dt**2
    typical = np.percentile(inside, 95, axis=0)
    typical = np.maximum(typical, acceleration_floor * np.median(typical))
    typical = np.maximum(typical, 1e-9)
    return SeamMetrics(step, jump, seam_acc, typical, float((seam_acc / typical).max()))
