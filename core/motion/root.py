"""Root motion: find the travelling root and loop it in character space.

Armature space is Blender's: Z up. A root's *character frame* is its
horizontal position and its heading (yaw about Z, radians); what happens
relative to that frame (height, tilt, sway) loops like any bone, while the
travel keeps accumulating from cycle to cycle.
"""

import numpy as np

from . import kinematics, quat, sampling
from .clip import Clip

ROOT_MODES = ("AUTO", "TRAVEL", "LOOP", "IN_PLACE")
#: Horizontal travel (clip length units, metres for imported mocap) under which a clip counts as in place.
MIN_TRAVEL = 0.05
TRAVEL_SAMPLES = 500  # frames sampled to measure travel


def location_travel(clip: Clip, pose: np.ndarray | None = None) -> np.ndarray:
    """Horizontal travel ``(B,)`` each bone's own location channel carries, in armature space.

    pose: the clip's forward kinematics, when the caller has it already.
    """
    travel = np.zeros(clip.num_bones)
    # Importers key constant locations on every bone; only changing ones can travel.
    changing = np.flatnonzero(np.ptp(clip.location, axis=0).max(axis=-1) > 1e-9)
    if not len(changing):
        return travel
    # Enough evenly spaced frames to see how far each bone goes.
    frames = np.unique(np.linspace(0, clip.num_frames - 1, min(clip.num_frames, TRAVEL_SAMPLES)).astype(int))
    if pose is None:
        pose = kinematics.clip_forward_kinematics(clip.take_frames(frames), bones=changing, dtype=np.float32, heads_only=True)
    else:
        pose = pose[frames]
    relative = kinematics.rest_relative(clip.parents, clip.rest)[changing, :3, :3]
    # A location moves its bone along the parent's axes times the rest offset's.
    moved = np.einsum("bij,fbj->fbi", relative, clip.location[frames][:, changing])
    parents = clip.parents[changing]
    has_parent = parents >= 0
    moved[:, has_parent] = np.einsum("fbij,fbj->fbi", pose[:, parents[has_parent], :3, :3], moved[:, has_parent])
    horizontal = moved[..., :2] - moved[:1, :, :2]
    travel[changing] = kinematics.lengths(horizontal).max(axis=0)
    return travel


def find_moving_root(clip: Clip, pose: np.ndarray | None = None) -> int | None:
    """Index of the bone whose location carries the most horizontal travel, or None if none travels."""
    travel = location_travel(clip, pose)
    best = int(np.argmax(travel))
    return best if travel[best] >= MIN_TRAVEL else None


def z_rotation(angle: float | np.ndarray) -> np.ndarray:
    half = 0.5 * np.asarray(angle, dtype=float)
    q = np.zeros(half.shape + (4,))
    q[..., 0], q[..., 3] = np.cos(half), np.sin(half)
    return q


def heading_axis(rotation: np.ndarray) -> int:
    """The root's own axis (0, 1, 2) that stays most horizontal over armature-space rotations ``(n, 4)``.

    Mocap rest poses differ: the Bandai hips point along +X at rest.
    """
    return int(np.argmin(np.abs(quat.to_matrix(rotation)[:, 2, :]).mean(axis=0)))


def heading(rotation: np.ndarray, axis: int | None = None) -> np.ndarray:
    """Heading ``(n,)`` in radians, unwrapped, of armature-space rotations ``(n, 4)``.

    Measured on the root's ``axis`` (default :func:`heading_axis`); clips
    compared with each other must share one.
    """
    m = quat.to_matrix(rotation)
    axis = heading_axis(rotation) if axis is None else axis
    # Contiguous copies: on strided operands arctan2's vector loop rounds by the arrays' memory alignment, and the same
    # rotations must give the same heading every time.
    return np.unwrap(np.arctan2(m[:, 1, axis].copy(), m[:, 0, axis].copy()))


def character_transform(position: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """4x4 matrices ``(n, 4, 4)`` of the character frames: horizontal position and heading."""
    h = heading(rotation)
    m = np.zeros(h.shape + (4, 4))
    m[:, 0, 0] = m[:, 1, 1] = np.cos(h)
    m[:, 0, 1], m[:, 1, 0] = -np.sin(h), np.sin(h)
    m[:, 2, 2] = m[:, 3, 3] = 1.0
    m[:, :2, 3] = position[:, :2]
    return m


def chain_forward_kinematics(clip: Clip, bones: list | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Armature-space matrices ``(F, k, 4, 4)`` of ``bones`` and their ancestors, and those bones' clip indices ``(k,)``, parents first.

    Only the chain's channels are read, so the cost does not grow with the rest of the skeleton.
    """
    chain = np.array(kinematics.ancestors_and_self(clip.parents, bones), dtype=int)
    return kinematics.clip_forward_kinematics(clip.take_bones(chain)), chain


def root_frames(clip: Clip, root: int) -> tuple[np.ndarray, np.ndarray]:
    """Armature-space matrices ``(n, 4, 4)`` of the root and of the space its channels live in."""
    pose, _ = chain_forward_kinematics(clip, (root,))
    relative = kinematics.rest_relative(clip.parents, clip.rest)[root]
    # The root comes last in its chain, its parent (if any) just before it.
    space = pose[:, -2] @ relative if clip.parents[root] >= 0 else np.broadcast_to(relative, pose[:, -1].shape).copy()
    return pose[:, -1], space


def with_root_global(clip: Clip, root: int, position: np.ndarray, rotation: np.ndarray, space: np.ndarray | None = None) -> Clip:
    """The clip with the root's channels set so its armature-space transform is (position, rotation).

    space: the space the root's channels live in ``(F, 4, 4)`` (:func:`root_frames`' second), when already computed.
    """
    if space is None:
        _, space = root_frames(clip, root)
    target = np.zeros(space.shape)
    target[:, :3, :3] = quat.to_matrix(rotation)
    target[:, :3, 3] = position
    target[:, 3, 3] = 1.0
    basis = kinematics.affine_inverse(space) @ target
    location, rotations = clip.location.copy(), clip.rotation.copy()
    location[:, root] = basis[:, :3, 3]
    rotations[:, root] = quat.unroll(quat.from_matrix(basis[:, :3, :3]), clip.rotation[0, root])
    return clip.with_channels(location=location, rotation=rotations)


def root_tracks(clips: tuple | list, root: int) -> tuple[list, int]:
    """Per clip: the root's armature-space position ``(F, 3)``, heading ``(F,)`` and heading-free rotation ``(F, 4)``; and the heading axis.

    Headings are measured on one axis of the root for all clips, so they can be compared and blended.
    """
    poses = [root_frames(clip, root)[0] for clip in clips]
    rotations = [quat.from_matrix(pose[:, :3, :3]) for pose in poses]
    axis = heading_axis(np.concatenate(rotations))
    headings = [heading(r, axis) for r in rotations]
    return [(pose[:, :3, 3], h, quat.multiply(z_rotation(-h), r)) for pose, h, r in zip(poses, headings, rotations)], axis


def floor_steps(position: np.ndarray, heading: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Root steps ``(k, 3)`` between consecutive (possibly fractional) frame indices ``index (k + 1,)``.

    position ``(F, 3)``, heading ``(F,)``: a root track of :func:`root_tracks`.
    Each step: the horizontal displacement in the character frame at the
    step's start (forward and sideways, length units per frame), then the
    turn (radians).
    """
    floor, turn = sampling.values_at(position[:, :2], index), sampling.values_at(heading, index)
    d = floor[1:] - floor[:-1]
    c, s = np.cos(turn[:-1]), np.sin(turn[:-1])
    return np.stack([c * d[:, 0] + s * d[:, 1], c * d[:, 1] - s * d[:, 0], turn[1:] - turn[:-1]], axis=1)


def natural_steps(position: np.ndarray, heading: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Root steps ``(k, 3)`` at frame times ``times (k + 1,)``: the clip's own step (per frame) from each time on.

    Along a time warp a clip plays faster or slower from frame to frame; its
    root still moves at its own speed (the warp times the body, not the travel).
    """
    return sampling.values_at(floor_steps(position, heading, np.arange(len(heading))), np.asarray(times, dtype=float)[:-1])


def walk_steps(position: np.ndarray, heading: float, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal positions ``(k + 1, 2)`` and headings ``(k + 1,)`` walking ``steps (k, 3)`` from (position (2,), heading)."""
    h = heading + np.concatenate([[0.0], np.cumsum(steps[:, 2])])
    c, s = np.cos(h[:-1]), np.sin(h[:-1])
    world = np.stack([c * steps[:, 0] - s * steps[:, 1], s * steps[:, 0] + c * steps[:, 1]], axis=1)
    return position + np.concatenate([np.zeros((1, 2)), np.cumsum(world, axis=0)]), h


def remove_travel(position: np.ndarray) -> np.ndarray:
    """Positions ``(n, 3)`` with the horizontal travel of a steadily moving reference removed."""
    n = len(position)
    steady = (position[-1, :2] - position[0, :2]) * (np.arange(n) / (n - 1))[:, None]
    out = position.copy()
    out[:, :2] -= steady
    return out


