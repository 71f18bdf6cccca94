"""An Acclaim skeleton and motion as the :class:`Clip` every command uses, and a clip back into AMC values.

The armature: the root's head at the ASF's root position, each bone's head
at its parent's end, its tail ``length * direction`` further (the root, of no
length in the ASF, points up), roll 0, computed in the file's axes and then
turned into Blender's as the BVH import turns a Y-up file. A frame's global
rotation of a bone is ``parent_global * C * M * C^-1`` (C from the bone's
``axis``, M the Euler rotation of its dof values, the first listed applied
first); in the bone's rest frame R that is ``A M A^-1`` with ``A = R^-1 C``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from ...errors import AcclaimError
from ...motion import kinematics, quat, rotation_modes
from ...motion.clip import Clip
from ..bvh.units import BLENDER_TO_Y_UP
from ..bvh_clip import bone_matrices
from .amc import AmcMotion, read_amc
from .asf import ROOT, ROTATIONS, AsfSkeleton, read_asf

DEFAULT_FPS = 120.0  # AMC files carry no rate; CMU captured at 120 frames per second
_OFF_AXIS = 1e-3  # radians a bone may turn about an axis it has no dof for, when written back (rounding, blends)
_STRAY = 1e-5  # metres a bone other than the root may move off its parent's end, when written back
_SAME_REST = 1e-4  # metres a bone's rest head may lie from where the ASF puts it (relative to its parent's) in a rest that is the ASF's


def euler_orders(skeleton: AsfSkeleton) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each bone's Euler order of its rotation dofs (the listed axes first, those it lacks after) and, per axis x, y, z, the
    index of that axis' value among the bone's dofs (-1 where it has none)."""
    found = []
    for dofs in skeleton.dofs:
        listed = "".join(dof[1].upper() for dof in dofs if dof in ROTATIONS)
        order = listed + "".join(axis for axis in "XYZ" if axis not in listed)
        found.append((order, tuple(dofs.index(f"r{axis}") if f"r{axis}" in dofs else -1 for axis in "xyz")))
    return tuple(found)


def rest_in_file_axes(skeleton: AsfSkeleton, scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The armature's rest in the file's axes: matrices ``(B, 4, 4)`` (metres at ``scale`` metres per file unit), bone
    lengths ``(B,)`` (metres) and which bones are connected to their parent's tail ``(B,)``."""
    parents = skeleton.parents
    segments = scale * skeleton.lengths[:, None] * skeleton.directions  # (B, 3)
    heads = np.zeros((len(parents), 3))
    for bone, parent in enumerate(parents):  # parents come first: one pass
        heads[bone] = scale * skeleton.position if parent < 0 else heads[parent] + segments[parent]
    real = np.linalg.norm(segments, axis=1) > 1e-9 * max(scale, 1e-12)
    fallback = np.linalg.norm(segments[real], axis=1).mean() if real.any() else scale
    # A bone of no length (the root) gets one along its direction, or up: Blender drops a bone whose head is its tail.
    stub = np.where(np.linalg.norm(skeleton.directions, axis=1, keepdims=True) > 0.0, skeleton.directions, [0.0, 1.0, 0.0])
    tails = heads + np.where(real[:, None], segments, fallback * stub)
    connected = (parents >= 0) & real[np.maximum(parents, 0)]
    return bone_matrices(heads, tails), np.linalg.norm(tails - heads, axis=1), connected


def _turn():
    """The 4x4 rotation from the file's (Y-up) axes to Blender's."""
    turn = np.eye(4)
    turn[:3, :3] = BLENDER_TO_Y_UP.T
    return turn


def _sandwiches(skeleton, rest_file):
    """``A = R^-1 C`` of each bone ``(B, 4)``: its rest rotation R (file axes) undone, then its axis frame C."""
    axes = np.array([rotation_modes.euler_to_quat(skeleton.axes[b], order) for b, order in enumerate(skeleton.axis_orders)])
    return quat.multiply(quat.inverse(quat.from_matrix(rest_file[:, :3, :3])), axes.reshape(-1, 4))


def _grouped(skeleton):
    """Euler order -> (bones turning in it, ``(n, 3)`` value columns of their x, y, z angles, -1 where a bone has none)."""
    groups, columns = {}, skeleton.columns
    for bone, (order, axes) in enumerate(euler_orders(skeleton)):
        if any(index >= 0 for index in axes):
            groups.setdefault(order, ([], []))
            groups[order][0].append(bone)
            groups[order][1].append([columns[bone] + index if index >= 0 else -1 for index in axes])
    return {order: (np.array(bones), np.array(cols)) for order, (bones, cols) in groups.items()}


def _root_translation(skeleton):
    """The value columns of the root's x, y, z translation (-1 where it has none)."""
    dofs = skeleton.dofs[0]
    return [skeleton.columns[0] + dofs.index(dof) if dof in dofs else -1 for dof in ("tx", "ty", "tz")]


def armature_from_acclaim(skeleton: AsfSkeleton, motion: AmcMotion, fps: float = DEFAULT_FPS,
                          scale: float | None = None) -> tuple[Clip, np.ndarray, np.ndarray]:
    """:func:`clip_from_acclaim`, with what an armature builder needs beyond the clip's rest matrices: ``(clip, lengths,
    connected)``, bone lengths ``(B,)`` in metres and which bones are connected to their parent's tail ``(B,)``."""
    scale = skeleton.metres_per_unit if scale is None else float(scale)
    if not scale > 0.0:
        raise AcclaimError(f"scale {scale:g}: metres per unit must be positive", skeleton.path)
    rest_file, lengths, connected = rest_in_file_axes(skeleton, scale)
    frames, count = motion.frame_count, len(skeleton.names)
    sandwich = _sandwiches(skeleton, rest_file)
    rotation = np.zeros((frames, count, 4))
    rotation[..., 0] = 1.0
    values = motion.values
    for order, (bones, columns) in _grouped(skeleton).items():
        euler = np.zeros((frames, len(bones), 3))
        for axis in range(3):
            given = columns[:, axis] >= 0
            euler[:, given, axis] = values[:, columns[given, axis]]
        turn = rotation_modes.euler_to_quat(euler, order)
        rotation[:, bones] = quat.multiply(quat.multiply(sandwich[bones], turn), quat.inverse(sandwich[bones]))
    location = np.zeros((frames, count, 3))
    translation = _root_translation(skeleton)
    position = np.array([values[:, c] if c >= 0 else np.full(frames, skeleton.position[a]) for a, c in enumerate(translation)]).T
    location[:, 0] = (scale * position - rest_file[0, :3, 3]) @ rest_file[0, :3, :3]  # R^T (p - head), rows
    turning = np.array([any(dof in ROTATIONS for dof in dofs) for dofs in skeleton.dofs])
    animated_location = np.zeros((count, 3), dtype=bool)
    animated_location[0] = any(c >= 0 for c in translation)
    clip = Clip(
        fps=float(fps),
        frames=motion.frames.astype(float),
        bone_names=tuple(skeleton.names),
        parents=np.array(skeleton.parents),
        rest=_turn() @ rest_file,
        location=location,
        rotation=quat.unroll(rotation, np.array([1.0, 0.0, 0.0, 0.0])),
        scale=np.ones((frames, count, 3)),
        rotation_modes=("QUATERNION",) * count,
        animated_location=animated_location,
        animated_rotation=turning,
        animated_scale=np.zeros((count, 3), dtype=bool),
    )
    return clip.validate(), lengths, connected


def clip_from_acclaim(skeleton: AsfSkeleton, motion: AmcMotion, fps: float = DEFAULT_FPS, scale: float | None = None) -> Clip:
    """The :class:`Clip` of an ASF skeleton and its AMC motion, in metres, Blender's axes (Z up) and radians.

    fps: frames per second (AMC files carry none: CMU's 120 by default).
    scale: metres per file unit; by default the ASF's (``0.0254 / :units length``).
    Bones as the skeleton lists them (the root first), frames numbered as the
    AMC numbers them; rotation ``(F, B, 4)`` in each bone's rest frame, mode
    QUATERNION, w >= 0 on the first frame and sign-continuous after; location
    only on the root (its translation from the rest head, in its rest frame).
    """
    return armature_from_acclaim(skeleton, motion, fps, scale)[0]


def read_acclaim(asf_path: str | os.PathLike, amc_path: str | os.PathLike, fps: float = DEFAULT_FPS, scale: float | None = None,
                 progress: Callable[[float], None] | None = None) -> Clip:
    """The :class:`Clip` of the ASF at ``asf_path`` and the AMC at ``amc_path`` (see :func:`clip_from_acclaim`)."""
    skeleton = read_asf(asf_path)
    return clip_from_acclaim(skeleton, read_amc(amc_path, skeleton, progress), fps, scale)


def motion_from_clip(clip: Clip, skeleton: AsfSkeleton, scale: float | None = None) -> AmcMotion:
    """The AMC values of ``clip`` on ``skeleton``: the way back of :func:`clip_from_acclaim`.

    clip: every skeleton bone by name (others are ignored), any rest (each
    bone's rotation is taken from its own rest frame). scale: metres per file
    unit, the skeleton's by default. AcclaimError if a bone turns about an axis
    it has no dof for (beyond 1e-3 rad), or a bone other than the root moves.
    """
    scale = skeleton.metres_per_unit if scale is None else float(scale)
    names = {name: b for b, name in enumerate(clip.bone_names)}
    missing = [name for name in skeleton.names if name not in names]
    if missing:
        raise AcclaimError(f"the clip has no bone '{missing[0]}' of the skeleton", skeleton.path)
    clip = _on_skeleton_rest(clip, skeleton, scale, np.array([names[name] for name in skeleton.names]))
    names = {name: b for b, name in enumerate(clip.bone_names)}
    bones = np.array([names[name] for name in skeleton.names])
    rest_file = _turn().T @ clip.rest[bones]
    sandwich = _sandwiches(skeleton, rest_file)
    rotation = clip.rotation[:, bones]
    values = np.zeros((clip.num_frames, skeleton.columns[-1]))
    for order, (members, columns) in _grouped(skeleton).items():
        turn = quat.multiply(quat.multiply(quat.inverse(sandwich[members]), rotation[:, members]), sandwich[members])
        euler = rotation_modes.quat_to_euler(turn, order)
        for axis in range(3):
            given = columns[:, axis] >= 0
            values[:, columns[given, axis]] = euler[:, given, axis]
            if not given.all() and np.abs(euler[:, ~given, axis]).max() > _OFF_AXIS:
                bone = skeleton.names[members[~given][np.argmax(np.abs(euler[:, ~given, axis]).max(axis=0))]]
                raise AcclaimError(f"bone '{bone}' turns about its {'xyz'[axis]} axis, which it has no dof for", skeleton.path)
    still = [b for b, dofs in enumerate(skeleton.dofs) if not any(dof in ROTATIONS for dof in dofs)]
    if still and np.abs(quat.hemisphere(rotation[:, still])[..., 1:]).max() > _OFF_AXIS / 2:
        raise AcclaimError("a bone with no rotation dofs turns", skeleton.path)
    moved = np.linalg.norm(clip.location[:, bones[1:]], axis=-1)
    if moved.size and moved.max() > _STRAY:
        raise AcclaimError(f"bone '{skeleton.names[1 + int(np.argmax(moved.max(axis=0)))]}' moves off its parent's end, which an AMC cannot hold",
                           skeleton.path)
    position = (rest_file[0, :3, 3] + clip.location[:, bones[0]] @ rest_file[0, :3, :3].T) / scale
    for axis, column in enumerate(_root_translation(skeleton)):
        if column >= 0:
            values[:, column] = position[:, axis]
    if skeleton.names[0] != ROOT:
        raise AcclaimError("the skeleton's first bone is not its root", skeleton.path)
    return AmcMotion(np.rint(clip.frames).astype(np.int64), values, np.ones(len(skeleton.names), dtype=bool))


def _on_skeleton_rest(clip: Clip, skeleton: AsfSkeleton, scale: float, bones: np.ndarray) -> Clip:
    """``clip`` as it is where its rest is the skeleton's pose at rest (each bone's head where the ASF puts it, relative to
    its parent's, within :data:`_SAME_REST`); else its skeleton bones posed as in ``clip`` on the ASF's own rest.

    An FBX armature's rest is its bind pose, which an importer may take from a posed frame: a bone's turn from that
    rest is not its turn from the ASF's. Its world rotations are kept (bone axes as the file gave them) and the root's
    head; bones above the skeleton's root (the object's own channels) are folded in.
    """
    rest_file, _, _ = rest_in_file_axes(skeleton, scale)
    rest = _turn() @ rest_file
    parents = np.asarray(skeleton.parents)
    own_heads = clip.rest[bones, :3, 3]
    offsets = [own_heads[b] - own_heads[p] - (rest[b, :3, 3] - rest[p, :3, 3]) for b, p in enumerate(parents) if p >= 0]
    if not offsets or np.abs(offsets).max() <= _SAME_REST:
        return clip
    world = kinematics.clip_forward_kinematics(clip, bones)[:, bones]  # (F, B, 4, 4)
    turned = quat.from_matrix(world[..., :3, :3] @ np.swapaxes(rest[:, :3, :3], -1, -2))  # (F, B, 4): each bone's turn from the ASF's rest
    rest_turn = quat.from_matrix(rest[:, :3, :3])  # (B, 4)
    parent_turn = np.where((parents >= 0)[None, :, None], turned[:, np.maximum(parents, 0)], np.array([1.0, 0.0, 0.0, 0.0]))
    local = quat.multiply(quat.multiply(quat.inverse(rest_turn), quat.multiply(quat.inverse(parent_turn), turned)), rest_turn)
    location = np.zeros((clip.num_frames, len(parents), 3))
    location[:, 0] = (world[:, 0, :3, 3] - rest[0, :3, 3]) @ rest[0, :3, :3]  # R^T (head - rest head), rows
    return Clip(fps=clip.fps, frames=clip.frames, bone_names=tuple(skeleton.names), parents=parents, rest=rest, location=location,
                rotation=quat.unroll(quat.normalize(local)), scale=np.ones((clip.num_frames, len(parents), 3)),
                rotation_modes=("QUATERNION",) * len(parents))


def kept_to_dofs(clip: Clip, skeleton: AsfSkeleton) -> tuple[Clip, tuple[float, str]]:
    """``clip`` with each skeleton bone turning only about the axes its dofs name, and the largest turn that took off
    (degrees, bone name): a blend or a foot lock turns a knee a little about axes an AMC cannot hold.

    In each bone's ASF frame (C from its ``axis``, as :func:`clip_from_acclaim` reads it) the turn is taken
    apart in its Euler order, the dofs' axes first, and the angles about the other axes are dropped.
    """
    names = {name: bone for bone, name in enumerate(clip.bone_names)}
    if any(name not in names for name in skeleton.names):
        return clip, (0.0, "")  # the writer names the missing bone
    rotation, dropped = clip.rotation.copy(), (0.0, "")
    for bone, (order, axes) in enumerate(euler_orders(skeleton)):
        missing = [axis for axis in range(3) if axes[axis] < 0]
        if not missing:
            continue
        column = names[skeleton.names[bone]]
        rest = BLENDER_TO_Y_UP @ clip.rest[column, :3, :3]  # the bone's rest in the file's axes
        frame = quat.multiply(quat.inverse(quat.from_matrix(rest)), rotation_modes.euler_to_quat(skeleton.axes[bone], skeleton.axis_orders[bone]))
        euler = _nearest_to_dofs(quat.multiply(quat.multiply(quat.inverse(frame), rotation[:, column]), frame), order, missing)
        largest = float(np.degrees(np.abs(euler[:, missing]).max()))
        if largest > dropped[0]:
            dropped = (largest, skeleton.names[bone])
        euler[:, missing] = 0.0
        rotation[:, column] = quat.multiply(quat.multiply(frame, rotation_modes.euler_to_quat(euler, order)), quat.inverse(frame))
    return clip.with_channels(rotation=rotation), dropped


def _nearest_to_dofs(turn, order, missing):
    """Euler angles ``(F, 3)`` of ``turn`` ``(F, 4)`` in ``order``: of each rotation's two triples, the one turning least
    about the ``missing`` axes (the other: the first and last angle plus pi, the middle one pi minus itself)."""
    euler = rotation_modes.smallest_euler(turn, order)
    middle = "XYZ".index(order[1])
    alternate = np.where(np.arange(3) == middle, np.pi - euler, euler + np.pi)
    alternate = (alternate + np.pi) % (2.0 * np.pi) - np.pi
    closer = np.abs(alternate[:, missing]).sum(axis=-1) < np.abs(euler[:, missing]).sum(axis=-1)
    return np.where(closer[:, None], alternate, euler)
