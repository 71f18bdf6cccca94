"""Alignment: place clip B on the floor so that it continues clip A.

Only the travelling root changes, by a rigid motion of armature space: a
rotation about the up axis (Blender Z) and a horizontal translation. Heights
and the root's tilt are untouched. Lengths are the clips' unit (metres for
imported mocap), angles radians, frames 0-based indices into each clip.
"""

import numpy as np

from ..errors import TransitionError
from ..measure import grounding
from ..motion import kinematics, quat, root as root_motion
from ..motion.clip import Clip

#: What messages call the two clips of a transition, (A, B), unless the caller names them (a file, a piece).
CLIP_LABELS = ("clip A", "clip B")
#: Degrees within which a bone of two rests is turned the same way: one rig's legs splay 20 degrees more than another's,
#: where another importer's bone axes differ by 90.
SAME_REST_DEGREES = 25.0


def _rate_mismatch(clip_a, clip_b, labels):
    """The sentence saying the clips play at other frame rates (to a glTF's single-precision key times), or None."""
    if abs(clip_a.fps - clip_b.fps) > 1e-4 * clip_a.fps:
        return f"{labels[0]} plays at {clip_a.fps:.4g} fps and {labels[1]} at {clip_b.fps:.4g}: resample one to match the other"
    return None


def check_compatible(clip_a: Clip, clip_b: Clip, labels: tuple[str, str] = CLIP_LABELS) -> None:
    """TransitionError naming, all at once, what keeps ``clip_b`` from following ``clip_a`` and what would fix each: frame
    rates that differ, bones that move in A and that B lacks (bones are matched by name)."""
    missing = [name for name in clip_a.bone_names if name not in clip_b.bone_names]
    # A's bones that B lacks but that never move in A (an importer's end bones, a still object) keep A's pose.
    moving = [name for name in missing if not still(clip_a, clip_a.bone_index(name))]
    bones = (f"{labels[1]} has no bone named {', '.join(repr(name) for name in moving[:5])}"
             f"{f' nor {len(moving) - 5} more' if len(moving) > 5 else ''} (bones are matched by name: rename them to {labels[0]}'s)")
    found = [text for text in (_rate_mismatch(clip_a, clip_b, labels), bones if moving else None) if text]
    if found:
        raise TransitionError("; ".join(found))


def on_skeleton(clip_b: Clip, clip_a: Clip, labels: tuple[str, str] = CLIP_LABELS) -> Clip:
    """``clip_b``'s motion on ``clip_a``'s skeleton, bones matched by name.

    Both clips must share the frame rate and have every bone of A that moves;
    B's extra bones are dropped. The result has A's bones, parents and rest
    pose and B's frames, so both clips can be blended channel by channel.
    Rests may differ (another importer's bone axes, another end bone, a take
    whose start is kept in the pelvis's rest offset): each matched joint keeps
    its armature-space turn away from its rest as B has it, and every joint
    whose location A animates stands where B puts it, so on skeletons of one
    size every joint lands where it is in B. labels: what messages call A and B.
    """
    check_compatible(clip_a, clip_b, labels)
    if (clip_b.bone_names == clip_a.bone_names and np.array_equal(clip_b.parents, clip_a.parents)
            and np.array_equal(clip_b.rest, clip_a.rest)):  # one skeleton (two actions of one armature): B's channels as they are
        return clip_a.with_channels(**{name: _read_only(getattr(clip_b, name)) for name in ("frames", "location", "rotation", "scale")})
    order = np.array([clip_b.bone_names.index(name) if name in clip_b.bone_names else -1 for name in clip_a.bone_names])
    kept = order < 0
    pose_b = kinematics.clip_forward_kinematics(clip_b)[:, np.maximum(order, 0)]  # (F, A's bones, 4, 4)
    rotation, location = _turns_from_rest(clip_a, clip_b, order, pose_b)
    scale = clip_b.scale[:, np.maximum(order, 0)]
    frames = clip_b.num_frames
    location[:, kept], rotation[:, kept], scale[:, kept] = (np.repeat(channel[:1, kept], frames, axis=0)
                                                             for channel in (clip_a.location, clip_a.rotation, clip_a.scale))
    moved = clip_a.with_channels(frames=clip_b.frames, location=location, rotation=quat.unroll(rotation), scale=scale)
    moved = _heads_where_b_has_them(moved, pose_b[..., :3, 3], ~kept & clip_a.animated_location.any(axis=1))
    # On legs of another length (another rig or subject), the pelvis where B has it would lift the feet off B's floor or sink them.
    return grounding.grounded(moved, grounding.floor_height(clip_b))


def _read_only(array):
    """A view of ``array`` that cannot be written: B's own channels handed on without copying a long take's."""
    view = array.view()
    view.flags.writeable = False
    return view


def _turns_from_rest(clip_a, clip_b, order, pose_b):
    """Local rotations ``(F, B, 4)`` and locations ``(F, B, 3)`` on A's bones turning each joint from A's rest as B's turns from B's.

    A bone's armature-space turn from its rest is ``D = pose @ rest^-1``
    (rotation parts); its local rotation on A is ``rest_a^-1 D_parent^-1 D
    rest_a``, which for a bone whose parent is the same in both skeletons is
    B's local rotation seen from A's rest, ``C q_b C^-1`` with ``C =
    rest_a^-1 rest_b`` (exactly B's own where the rests agree). A location
    moves the joint as far in the same armature-space direction
    (``C loc_b``). Rows of bones B lacks are left for the caller.
    """
    source = np.maximum(order, 0)
    if not _same_rest_pose(clip_a, clip_b, order):
        return _frames_as_posed(clip_a, clip_b, order, pose_b)
    rest_a = quat.from_matrix(clip_a.rest[:, :3, :3])
    rest_b = quat.from_matrix(clip_b.rest[source, :3, :3])
    change = quat.multiply(quat.inverse(rest_a), rest_b)  # B's rest frame seen from A's
    change[np.all(np.abs(clip_a.rest[:, :3, :3] - clip_b.rest[source, :3, :3]) < 1e-12, axis=(1, 2))] = quat.identity()
    rotation = quat.multiply(quat.multiply(change, clip_b.rotation[:, source]), quat.inverse(change))
    parents = clip_a.parents
    parent_in_b = np.where(parents >= 0, order[np.maximum(parents, 0)], -1)
    other_parent = (order >= 0) & (clip_b.parents[source] != parent_in_b)
    if other_parent.any():  # B puts a bone between, or roots it elsewhere: turn by the armature-space turns
        turn = quat.multiply(quat.from_matrix(pose_b[..., :3, :3]), quat.inverse(rest_b))  # (F, B, 4)
        turn[:, order < 0] = quat.identity()
        parent_turn = np.where((parents >= 0)[None, :, None], turn[:, np.maximum(parents, 0)], quat.identity())
        local = quat.multiply(quat.inverse(parent_turn), turn)
        rotation[:, other_parent] = quat.multiply(quat.inverse(rest_a[other_parent]), quat.multiply(local[:, other_parent], rest_a[other_parent]))
    return rotation, quat.rotate(change, clip_b.location[:, source])


def _same_rest_pose(clip_a, clip_b, order):
    """True when most bones below the roots rest turned the same way (within SAME_REST_DEGREES) in both skeletons (the
    rests differ at a root's offset, an end bone or a rig's proportions, not in the pose they stand in or the axes every
    bone was given)."""
    inner = (order >= 0) & (clip_a.parents >= 0)
    if not inner.any():
        return True
    turn = quat.multiply(quat.inverse(quat.from_matrix(clip_a.rest[inner, :3, :3])), quat.from_matrix(clip_b.rest[order[inner], :3, :3]))
    return np.mean(np.abs(turn[:, 0]) > np.cos(np.radians(SAME_REST_DEGREES / 2.0))) >= 0.5


def _frames_as_posed(clip_a, clip_b, order, pose_b):
    """Local rotations and locations on A's bones giving each bone B's posed frame relative to its parent's, for rests that
    stand in different poses (each bone's axis along the body in both): ``rest_rel_a^-1 rest_rel_b`` turns B's channels.

    Where B puts a bone between (a hip joint between the pelvis and the
    thigh) or roots it elsewhere, the frame is taken relative to B's bone
    named as A's parent, from B's posed frames ``pose_b (F, A's bones, 4, 4)``.
    """
    source = np.maximum(order, 0)
    rest_a = kinematics.rest_relative(clip_a.parents, clip_a.rest)[:, :3, :3]
    rest_b = kinematics.rest_relative(clip_b.parents, clip_b.rest)[source][:, :3, :3]
    change = np.swapaxes(rest_a, -1, -2) @ rest_b
    location = np.einsum("bij,fbj->fbi", change, clip_b.location[:, source])
    rotation = quat.multiply(quat.from_matrix(change)[None], clip_b.rotation[:, source])
    parents = clip_a.parents
    parent_in_b = np.where(parents >= 0, order[np.maximum(parents, 0)], -1)
    other = (order >= 0) & (clip_b.parents[source] != parent_in_b) & ((parents < 0) | (parent_in_b >= 0))
    if other.any():
        frames = pose_b[..., :3, :3]
        parent_frames = np.where((parents >= 0)[None, :, None, None], frames[:, np.maximum(parents, 0)], np.eye(3))
        relative = np.swapaxes(parent_frames[:, other], -1, -2) @ frames[:, other]  # (F, k, 3, 3): B's posed frame from A's parent
        rotation[:, other] = quat.from_matrix(np.swapaxes(rest_a[other], -1, -2) @ relative)
    return rotation, location


def _heads_where_b_has_them(clip, heads, floating):
    """``clip`` with the location of each ``floating (B,)`` bone set so that its head is at ``heads (F, B, 3)``.

    Bones are placed parents first, each from its parent's pose as placed so
    far: a take whose start is kept in the root-to-pelvis rest offset, or a
    root with an offset the other skeleton lacks, moves its pelvis, not the
    body's turn. Bones already within rounding of their place are left.
    """
    tolerance = 1e-9 * max(1.0, float(np.abs(clip.rest[:, :3, 3]).max()))
    location = clip.location.copy()
    relative = kinematics.rest_relative(clip.parents, clip.rest)
    for _ in range(clip.num_bones):
        pose = kinematics.forward_kinematics(clip.parents, clip.rest, location, clip.rotation, clip.scale, heads_only=True)
        off = floating & (np.abs(pose[..., :3, 3] - heads).max(axis=(0, 2)) > tolerance)
        off &= ~np.array([_has_ancestor(clip.parents, bone, off) for bone in range(clip.num_bones)])
        if not off.any():
            break
        bones = np.flatnonzero(off)
        parents = clip.parents[bones]
        space = np.where((parents >= 0)[None, :, None, None], pose[:, np.maximum(parents, 0)] @ relative[bones], relative[bones])
        inverse = kinematics.affine_inverse(space)
        location[:, bones] = np.einsum("fbij,fbj->fbi", inverse[..., :3, :3], heads[:, bones]) + inverse[..., :3, 3]
    return clip.with_channels(location=location)


def _has_ancestor(parents, bone, mask):
    """True when a bone above ``bone`` is set in ``mask``."""
    bone = parents[bone]
    while bone >= 0:
        if mask[bone]:
            return True
        bone = parents[bone]
    return False


def still(clip: Clip, bone: int) -> bool:
    """True when ``bone``'s channels never change over ``clip``."""
    return all(np.ptp(channel[:, bone], axis=0).max() < 1e-4 for channel in (clip.location, clip.rotation, clip.scale))  # baked keys wobble


def travel_root(clip_a: Clip, clip_b: Clip) -> int:
    """The bone (index, both clips on one skeleton) whose location carries the travel.

    The root that travels in B, else in A (a standing clip next to a walk),
    else the bone whose location moves most in either: even a clip in place
    has a floor position and heading to continue.
    """
    for clip in (clip_b, clip_a):
        root = root_motion.find_moving_root(clip)
        if root is not None:
            return root
    travel = root_motion.location_travel(clip_a) + root_motion.location_travel(clip_b)
    if travel.max() <= 0.0:
        raise TransitionError("no bone's location moves in either clip: there is no root to align")
    return int(np.argmax(travel))


def check_frame(clip: Clip, frame: int, label: str) -> None:
    """Raise TransitionError unless ``frame`` is a 0-based frame index of ``clip`` (``label``: what the message calls it)."""
    if not (0 <= frame < clip.num_frames) or int(frame) != frame:
        raise TransitionError(f"frame {frame} is not a frame index of {label} (0 to {clip.num_frames - 1})")


def floor_frames(poses: tuple | list, roots: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal positions ``(n, 2)`` and headings ``(n,)`` of roots at (clip, frame index, root bone) triples.

    Headings are measured on one axis of the root (see
    :func:`..motion.root.heading_axis`) chosen over all the clips' frames.
    roots: each clip's root matrices ``(F, 4, 4)`` (:func:`..motion.root.root_frames`' first), when already computed.
    """
    roots = [root_motion.root_frames(clip, root)[0] for clip, _, root in poses] if roots is None else roots
    rotations = [quat.from_matrix(pose[:, :3, :3]) for pose in roots]
    axis = root_motion.heading_axis(np.concatenate(rotations))
    heading = np.array([root_motion.heading(rotation, axis)[frame] for rotation, (_, frame, _) in zip(rotations, poses)])
    return np.array([pose[frame, :2, 3] for pose, (_, frame, _) in zip(roots, poses)]), heading


def rigidly_moved(clip: Clip, root: int, motion: np.ndarray, frames: tuple | None = None) -> Clip:
    """``clip`` with its root moved by the rigid ``(4, 4)`` armature-space ``motion`` at every frame.

    frames: the root's :func:`..motion.root.root_frames` in ``clip``, when already computed.
    """
    global_root, space = root_motion.root_frames(clip, root) if frames is None else frames
    moved = motion @ global_root
    return root_motion.with_root_global(clip, root, moved[:, :3, 3], quat.from_matrix(moved[:, :3, :3]), space)


def floor_motion(turn: float, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Rigid ``(4, 4)``: a turn of ``turn`` radians about Z, then the floor shift taking ``source (2,)`` to ``target (2,)``."""
    c, s = np.cos(turn), np.sin(turn)
    motion = np.eye(4)
    motion[:2, :2] = ((c, -s), (s, c))
    motion[:2, 3] = target - motion[:2, :2] @ source
    return motion


def shortest_turn(angle: float | np.ndarray) -> np.ndarray:
    """``angle`` radians wrapped to [-pi, pi): the shortest signed turn."""
    return (np.asarray(angle) + np.pi) % (2.0 * np.pi) - np.pi


def align(clip_b: Clip, frame_b: int, clip_a: Clip, frame_a: int, root_a: int | None = None, root_b: int | None = None) -> Clip:
    """Clip B moved so that its character frame at ``frame_b`` is A's at ``frame_a``.

    frame_a, frame_b: 0-based frame indices. root_a, root_b: the travelling
    root's bone index in each clip (default: found, see :func:`travel_root`;
    bones are matched by name). B's root is turned about Z by the shortest
    signed angle between the two headings (never the long way round) and
    shifted on the floor; its height and tilt, and every other bone, stay.
    Returns B on its own skeleton, every frame moved by the same rigid motion.
    """
    check_frame(clip_a, frame_a, CLIP_LABELS[0])
    check_frame(clip_b, frame_b, CLIP_LABELS[1])
    if root_a is not None:
        name = clip_a.bone_names[root_a]
    elif root_b is not None:
        name = clip_b.bone_names[root_b]
    else:
        name = clip_a.bone_names[travel_root(clip_a, on_skeleton(clip_b, clip_a))]
    root_a = clip_a.bone_index(name) if root_a is None else root_a
    root_b = clip_b.bone_index(name) if root_b is None else root_b
    frames_b = root_motion.root_frames(clip_b, root_b)  # B's root, read for its heading and moved: posed once
    position, heading = floor_frames(((clip_a, frame_a, root_a), (clip_b, frame_b, root_b)),
                                     [root_motion.root_frames(clip_a, root_a)[0], frames_b[0]])
    motion = floor_motion(shortest_turn(heading[0] - heading[1]), position[1], position[0])
    return rigidly_moved(clip_b, root_b, motion, frames_b)
