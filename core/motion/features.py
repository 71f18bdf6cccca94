"""Pose features for matching frames: character-space joint positions and velocities.

A frame's feature is a flat vector whose squared Euclidean distance to
another frame's is the weighted sum of the squared distances between their
joints' positions (the clip's length unit, metres for imported mocap) and
velocities (times ``velocity_time`` seconds, so they are lengths too).
Joints are weighted by the length of the bone that ends at them, so legs,
spine and arms count and fingers or zero-length end joints do not.
"""

import re

import numpy as np

from ..errors import FeatureError
from ..motion.kinematics import descendants
from . import kinematics, quat, root as root_motion
from .clip import Clip

VELOCITY_TIME = 0.1  # seconds: velocities times this are lengths, comparable to positions
_LOWER = re.compile(r"hip|pelvis|leg|thigh|knee|shin|calf|foot|ankle|toe|heel|ball", re.IGNORECASE)
JOINT_SETS = ("all", "lower", "upper")


def bone_weights(clip: Clip) -> np.ndarray:
    """Each joint's weight ``(B,)``: the length of the bone ending at it, over the mean length (roots: the median)."""
    heads = clip.rest[:, :3, 3]
    lengths = np.zeros(clip.num_bones)
    has_parent = clip.parents >= 0
    lengths[has_parent] = np.linalg.norm(heads[has_parent] - heads[clip.parents[has_parent]], axis=-1)
    lengths[~has_parent] = np.median(lengths[has_parent]) if has_parent.any() else 1.0
    return lengths / max(lengths.mean(), 1e-9)


def character_root(clip: Clip, pose: np.ndarray | None = None) -> int:
    """The bone whose character frame features use: the body's root (pelvis), ``pose`` its kinematics if known.

    Below the bone whose location carries the travel (or moves most, for a
    clip in place, which still needs its position and heading removed to be
    compared with one that walks elsewhere), the first bone where the
    skeleton branches: clips whose travel sits on different bones (the Bandai
    pre-cut cycles carry it on joint_Root above the hips) then agree.
    """
    travel = root_motion.location_travel(clip, pose)
    root = int(np.argmax(travel)) if travel.max() > 0.0 else 0
    while True:
        children = np.flatnonzero(clip.parents == root)
        if len(children) != 1:
            return root
        root = int(children[0])


def character_positions(pose: np.ndarray, parents: np.ndarray, root: int | None, heading_axis: int | None = None) -> np.ndarray:
    """Joint positions ``(F, B, 3)`` in the root's character frame, pose's dtype.

    pose: armature-space matrices ``(F, B, 4, 4)``. The root's horizontal
    position and heading are removed for the root and the bones below it;
    heights stay. Bones above the root do not travel and stay in armature
    space, as do all bones when ``root`` is None. heading_axis: the root's
    axis that measures its heading (see :func:`.root.heading`; None: its
    most horizontal one in this clip).
    """
    positions = pose[..., :3, 3]
    local = np.array(positions)
    if root is None:
        return local
    heading = root_motion.heading(quat.from_matrix(pose[:, root, :3, :3]), heading_axis)
    cos, sin = np.cos(heading)[:, None].astype(pose.dtype), np.sin(heading)[:, None].astype(pose.dtype)
    moving = descendants(parents, root)
    dx = positions[:, moving, 0] - positions[:, root, None, 0]
    dy = positions[:, moving, 1] - positions[:, root, None, 1]
    local[:, moving, 0], local[:, moving, 1] = cos * dx + sin * dy, cos * dy - sin * dx
    return local


def stack_features(positions: np.ndarray, dt: float, weights: np.ndarray, velocity_time: float = VELOCITY_TIME) -> np.ndarray:
    """Features ``(F, 6 J)``: weighted positions ``(F, 3 J)`` then weighted velocities ``(F, 3 J)``.

    positions ``(F, J, 3)``, dt seconds per frame, weights ``(J,)`` on the
    squared distances (each joint's coordinates are scaled by their square
    root), velocity_time seconds (central differences, one-sided at the ends).
    """
    scale = np.sqrt(np.asarray(weights, dtype=float))[None, :, None].astype(positions.dtype)
    velocity = np.gradient(positions, axis=0) * (velocity_time / dt)
    frames = len(positions)
    return np.concatenate([(positions * scale).reshape(frames, -1), (velocity * scale).reshape(frames, -1)], axis=1)


def joint_indices(clip: Clip, joints: str | list | None = None, root: int | None = None) -> np.ndarray:
    """Indices of the joints ``joints`` names: None or "all", "lower", "upper", or a list of bone names.

    The named sets hold only bones that move with the character (``root``
    and the bones below it, every bone when root is None); "lower" is the
    hips, legs and feet by name, "upper" the rest. FeatureError for an unknown
    name or an empty set.
    """
    if joints is None or isinstance(joints, str):
        name = joints or "all"
        if name not in JOINT_SETS:
            raise FeatureError(f"unknown joint set '{name}': use one of {', '.join(JOINT_SETS)} or a list of bone names")
        moving = np.ones(clip.num_bones, dtype=bool) if root is None else descendants(clip.parents, root)
        if name != "all":
            lower = np.array([bool(_LOWER.search(bone)) for bone in clip.bone_names])
            moving &= lower if name == "lower" else ~lower
        if not moving.any():
            raise FeatureError(f"the armature has no bone in the joint set '{name}' (legs and feet are found by name)")
        return np.flatnonzero(moving)
    indices = np.array([clip.bone_index(bone) for bone in joints], dtype=int)
    if not len(indices):
        raise FeatureError("the joint list is empty")
    return indices


def pose_features(clip: Clip, joints: str | list | None = None, weights: str | np.ndarray = "length", dtype: type = np.float32,
                  velocity_time: float = VELOCITY_TIME, pose: np.ndarray | None = None, root: int | None = None,
                  heading_axis: int | None = None) -> np.ndarray:
    """Per-frame pose features ``(F, 6 J)`` of ``clip`` for matching (see :func:`stack_features`).

    joints: see :func:`joint_indices`. weights: "length" (bone lengths, see
    :func:`bone_weights`), "uniform", or ``(J,)`` weights on the squared
    distances (pass one clip's to another so both weigh alike). pose: the
    clip's armature-space matrices ``(F, B, 4, 4)`` if already computed.
    root: the bone whose character frame is used (default
    :func:`character_root`). heading_axis: see :func:`character_positions`.
    dtype: float32 halves time and memory, ample for comparing poses.
    """
    pose = kinematics.clip_forward_kinematics(clip, dtype=dtype) if pose is None else pose
    root = character_root(clip, pose) if root is None else root
    indices = joint_indices(clip, joints, root)
    if isinstance(weights, str):
        if weights not in ("length", "uniform"):
            raise FeatureError(f"unknown joint weights '{weights}': use 'length', 'uniform' or one weight per joint")
        weights = bone_weights(clip)[indices] if weights == "length" else np.ones(len(indices))
    elif np.shape(weights) != (len(indices),):
        raise FeatureError(f"{np.shape(weights)} joint weights given for {len(indices)} joints")
    local = character_positions(pose, clip.parents, root, heading_axis)[:, indices]
    return stack_features(local, clip.dt, weights, velocity_time)
