"""A deterministic, mocap-like walking clip with a known gait period.

Loopsmith ships no motion capture; this generator gives the README demo and
the tests a humanoid walk whose true period is known exactly. Blender
conventions: Z up, the character faces and walks along -Y, lengths in metres.
"""

from dataclasses import dataclass

import numpy as np

from .motion import quat
from .motion.clip import Clip

# name, parent, head, tail (rest pose, metres)
_SKELETON = (
    ("Hips", None, (0.0, 0.0, 1.00), (0.0, 0.0, 1.10)),
    ("Spine", "Hips", (0.0, 0.0, 1.10), (0.0, 0.0, 1.22)),
    ("Spine2", "Spine", (0.0, 0.0, 1.22), (0.0, 0.0, 1.34)),
    ("Chest", "Spine2", (0.0, 0.0, 1.34), (0.0, 0.0, 1.48)),
    ("Neck", "Chest", (0.0, 0.0, 1.48), (0.0, 0.0, 1.58)),
    ("Head", "Neck", (0.0, 0.0, 1.58), (0.0, 0.0, 1.78)),
    ("Shoulder.L", "Chest", (0.03, 0.0, 1.45), (0.18, 0.0, 1.45)),
    ("UpperArm.L", "Shoulder.L", (0.18, 0.0, 1.45), (0.46, 0.0, 1.45)),
    ("LowerArm.L", "UpperArm.L", (0.46, 0.0, 1.45), (0.71, 0.0, 1.45)),
    ("Hand.L", "LowerArm.L", (0.71, 0.0, 1.45), (0.80, 0.0, 1.45)),
    ("Shoulder.R", "Chest", (-0.03, 0.0, 1.45), (-0.18, 0.0, 1.45)),
    ("UpperArm.R", "Shoulder.R", (-0.18, 0.0, 1.45), (-0.46, 0.0, 1.45)),
    ("LowerArm.R", "UpperArm.R", (-0.46, 0.0, 1.45), (-0.71, 0.0, 1.45)),
    ("Hand.R", "LowerArm.R", (-0.71, 0.0, 1.45), (-0.80, 0.0, 1.45)),
    ("UpperLeg.L", "Hips", (0.10, 0.0, 1.00), (0.10, 0.0, 0.55)),
    ("LowerLeg.L", "UpperLeg.L", (0.10, 0.0, 0.55), (0.10, 0.02, 0.10)),
    ("Foot.L", "LowerLeg.L", (0.10, 0.02, 0.10), (0.10, -0.10, 0.03)),
    ("Toe.L", "Foot.L", (0.10, -0.10, 0.03), (0.10, -0.17, 0.02)),
    ("UpperLeg.R", "Hips", (-0.10, 0.0, 1.00), (-0.10, 0.0, 0.55)),
    ("LowerLeg.R", "UpperLeg.R", (-0.10, 0.0, 0.55), (-0.10, 0.02, 0.10)),
    ("Foot.R", "LowerLeg.R", (-0.10, 0.02, 0.10), (-0.10, -0.10, 0.03)),
    ("Toe.R", "Foot.R", (-0.10, -0.10, 0.03), (-0.10, -0.17, 0.02)),
)

# Joint swings in degrees as harmonics of the gait phase: per bone, a list of
# (armature-space axis, mean, [(harmonic, amplitude, phase), ...]).
# Pitch is about X (positive swings a leg backward); right limbs are half a
# cycle behind the left ones.
_PITCH, _YAW, _ROLL = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)
_SWINGS = {
    "Hips": [(_YAW, 0.0, [(1, 4.0, 0.0)]), (_ROLL, 0.0, [(1, 3.0, 0.5)]), (_PITCH, 4.0, [(2, 1.5, 0.2)])],
    "Spine": [(_YAW, 0.0, [(1, -3.0, 0.1)]), (_PITCH, -2.0, [(2, 1.0, 0.4)])],
    "Spine2": [(_YAW, 0.0, [(1, -2.5, 0.2)])],
    "Chest": [(_YAW, 0.0, [(1, -2.0, 0.3)]), (_ROLL, 0.0, [(1, -1.5, 0.6)])],
    "Neck": [(_YAW, 0.0, [(1, 2.0, 0.4)]), (_PITCH, -3.0, [(2, 1.0, 0.0)])],
    "Head": [(_YAW, 0.0, [(1, 2.5, 0.5)]), (_PITCH, 2.0, [(2, 1.5, 0.9)])],
    "UpperLeg.L": [(_PITCH, -6.0, [(1, 24.0, 0.0), (2, 4.0, 0.7), (3, 1.5, 0.2)])],
    "LowerLeg.L": [(_PITCH, 30.0, [(1, 16.0, -1.2), (2, 12.0, 0.9), (3, 3.0, 0.3)])],
    "Foot.L": [(_PITCH, 5.0, [(1, -12.0, 0.8), (2, 5.0, 1.3)])],
    "Toe.L": [(_PITCH, 0.0, [(1, 8.0, 2.0)])],
    "UpperArm.L": [(_PITCH, 0.0, [(1, -18.0, 0.1), (2, 2.0, 0.5)]), (_ROLL, 70.0, [(2, 2.0, 0.0)])],
    "LowerArm.L": [(_YAW, 15.0, [(1, 8.0, 0.4)])],
    "Hand.L": [(_PITCH, 0.0, [(1, 6.0, 0.8)])],
    "Shoulder.L": [(_ROLL, 0.0, [(1, 2.0, 0.3)])],
}


@dataclass
class DemoClip:
    """The generated clip and what the tests know about it."""

    clip: Clip
    period_frames: float  # true gait period, frames (not an integer)
    root_bone: str  # the bone that carries the travel


def _bone_rest(head, tail):
    """Rest matrix whose Y axis points from head to tail (Blender's bone convention)."""
    head, tail = np.asarray(head, float), np.asarray(tail, float)
    y = (tail - head) / np.linalg.norm(tail - head)
    up = np.array([0.0, 0.0, 1.0]) if abs(y[2]) < 0.9 else np.array([0.0, -1.0, 0.0])
    x = np.cross(y, up)
    x /= np.linalg.norm(x)
    z = np.cross(x, y)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = x, y, z, head
    return m


def _swing_rotation(rest, swings, phase, side_shift):
    """Local quaternions ``(F, 4)`` for a bone's armature-space swings at ``phase (F,)``."""
    rest_rotation = rest[:3, :3]
    q = quat.identity(phase.shape)
    for axis, mean, harmonics in swings:
        degrees = np.full_like(phase, mean)
        for harmonic, amplitude, offset in harmonics:
            degrees += amplitude * np.sin(harmonic * (phase + side_shift) + offset)
        local_axis = rest_rotation.T @ np.asarray(axis)
        q = quat.multiply(quat.from_axis_angle(local_axis, np.radians(degrees)), q)
    return q


def walk_cycle(num_frames: int = 106, fps: float = 30.0, period_seconds: float = 1.07, speed: float = 1.3, seed: int = 7,
               first_frame: int = 1) -> DemoClip:
    """A humanoid walk of 22 bones, about 3.3 cycles at the defaults.

    period_seconds: gait period (two steps); at 30 fps the default is 32.1
    frames, deliberately not an integer. speed: mean travel speed in metres
    per second along -Y, drifting slowly by +-4% over the clip. seed: the
    noise (0.3 degrees on every joint, 2 mm on the hips) is reproducible.
    """
    rng = np.random.default_rng(seed)
    names = tuple(name for name, *_ in _SKELETON)
    parents = np.array([names.index(parent) if parent else -1 for _, parent, *_ in _SKELETON])
    rest = np.stack([_bone_rest(head, tail) for *_, head, tail in _SKELETON])

    seconds = np.arange(num_frames) / fps
    phase = 2.0 * np.pi * seconds / period_seconds
    bones = len(names)
    rotation = quat.identity((num_frames, bones))
    for index, name in enumerate(names):
        mirrored = name.endswith(".R")
        swings = _SWINGS.get(name[:-2] + ".L" if mirrored else name)
        if swings is None:
            continue
        if mirrored:  # mirror across the YZ plane: yaw and roll change sign
            swings = [(axis, mean * (1 if axis == _PITCH else -1), [(h, a * (1 if axis == _PITCH else -1), o) for h, a, o in harm]) for axis, mean, harm in swings]
        rotation[:, index] = _swing_rotation(rest[index], swings, phase, np.pi if mirrored else 0.0)

    # Small smoothed noise, like marker jitter after solving.
    kernel = np.hanning(7) / np.hanning(7).sum()
    jitter = rng.normal(0.0, np.radians(0.3), (num_frames + 6, bones, 3))
    jitter = np.apply_along_axis(lambda signal: np.convolve(signal, kernel, mode="valid"), 0, jitter)
    rotation = quat.unroll(quat.normalize(quat.multiply(rotation, quat.from_rotation_vector(jitter))))

    # Hips travel: slow speed drift plus the stride's surge, bob and sway.
    drift = 1.0 + 0.08 * (seconds / max(seconds[-1], 1e-9) - 0.5)
    velocity = speed * drift * (1.0 + 0.06 * np.cos(2.0 * phase + 0.3))
    forward = -np.concatenate([[0.0], np.cumsum(0.5 * (velocity[1:] + velocity[:-1]) / fps)])
    hips_world = np.stack([0.03 * np.sin(phase + 0.2), forward, 0.025 * np.cos(2.0 * phase)], axis=-1)
    hips_world += rng.normal(0.0, 0.002, hips_world.shape)
    location = np.zeros((num_frames, bones, 3))
    location[:, 0] = hips_world @ rest[0, :3, :3]  # armature offsets into the bone's rest frame

    clip = Clip(
        fps=float(fps),
        frames=np.arange(first_frame, first_frame + num_frames, dtype=float),
        bone_names=names,
        parents=parents,
        rest=rest,
        location=location,
        rotation=rotation,
        scale=np.ones((num_frames, bones, 3)),
        rotation_modes=("QUATERNION",) * bones,
        animated_location=np.array([[i == 0] * 3 for i in range(bones)]),
        animated_rotation=np.ones(bones, dtype=bool),
        animated_scale=np.zeros((bones, 3), dtype=bool),
    )
    return DemoClip(clip=clip.validate(), period_frames=period_seconds * fps, root_bone="Hips")
