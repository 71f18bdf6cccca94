"""A BVH's motion as the Clip Blender's importer gives, and a Clip back into the BVH's own layout, in numpy.

:func:`clip_from_bvh` computes what ``bpy.ops.import_anim.bvh`` (``global_scale``,
the axes of ``bvh.IMPORT_AXES[up]``, rotation mode NATIVE) followed by
``clip_io.read_clip`` gives: the importer's edit bones (head at the joint,
tail at the End Site, the one child or the children's mean, its zero-length
fix-ups, roll 0, ``use_connect`` on position-less joints whose parent's tail
is their offset), their matrices by Blender's head/tail/roll rule, turned
into Blender's axes as its ``transform_apply`` does, and each joint's channels
re-expressed in its bone's rest frame. :func:`bvh_from_clip` is the way back
that Blender's exporter plus ``bvh.match_layout`` gave. Every step is
vectorized over frames; loops over joints are single passes (no walk to the
root per joint), so thousands of joints stay fast.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..motion import quat, rotation_modes
from ..motion.clip import Clip, scene_rate
from . import bvh

# Blender's vec_roll_to_mat3_normalized: below these a bone along -Y is handled apart.
_SAFE_THRESHOLD = 6.1e-3
_CRITICAL_THRESHOLD = 2.5e-4
_MIN_BONE_LENGTH = 0.001  # the importer's zero-length test, in the armature's units
_FRAMES_PER_BLOCK = 8192
#: Threads converting a long take's blocks: two, as many as parse its text (a --jobs worker's then share its core briefly).
_THREADS = min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _depths(parents):
    """Each joint's depth below its root ``(J,)``; parents come before children."""
    depth = np.zeros(len(parents), dtype=int)
    for joint, parent in enumerate(parents):
        if parent >= 0:
            depth[joint] = depth[parent] + 1
    return depth


def _accumulated(parents, local):
    """``local (J, 3)`` summed from the root down each joint's chain (one pass, parents first, in ``local``'s precision)."""
    total = np.array(local)
    for joint, parent in enumerate(parents):
        if parent >= 0:
            total[joint] += total[parent]
    return total


def bone_matrices(heads: np.ndarray, tails: np.ndarray) -> np.ndarray:
    """Rest matrices ``(B, 4, 4)`` of bones with roll 0 from their heads and tails ``(B, 3)`` (Blender's vec_roll_to_mat3)."""
    direction = tails - heads
    x, y, z = (direction / np.linalg.norm(direction, axis=1, keepdims=True)).T
    theta = 1.0 + y
    spread = x * x + z * z
    theta = np.where(theta <= _SAFE_THRESHOLD, 0.5 * spread + 0.125 * spread * spread, theta)
    theta = np.where(theta > 0.0, theta, 1.0)  # only where the matrix is replaced below
    matrices = np.zeros((len(heads), 4, 4))
    matrices[:, :3, 0] = np.stack([1.0 - x * x / theta, -x, -x * z / theta], axis=1)
    matrices[:, :3, 1] = np.stack([x, y, z], axis=1)
    matrices[:, :3, 2] = np.stack([-x * z / theta, -z, 1.0 - z * z / theta], axis=1)
    along_minus_y = (1.0 + y <= _SAFE_THRESHOLD) & (spread <= _CRITICAL_THRESHOLD ** 2)
    matrices[along_minus_y, :3, :3] = np.diag([-1.0, -1.0, 1.0])
    matrices[:, :3, 3] = heads
    matrices[:, 3, 3] = 1.0
    return matrices


def _length(vectors):
    return np.sqrt(np.sum(np.square(vectors, dtype=float), axis=-1))


def _rest_in_file_axes(info, scale):
    """The importer's bone matrices ``(J, 4, 4)`` in the file's axes (scaled), bone lengths ``(J,)`` and which bones it
    connects to their parent's tail ``(J,)``, in file order.

    The heads and tails are computed in single precision, step by step as the
    importer's mathutils vectors are: its zero-length tests compare lengths
    of a thousandth of a unit, where the rounding decides.
    """
    f32 = np.float32
    parents = info.parents
    count = len(parents)
    head_local = info.offsets.astype(f32) * f32(scale)
    head_world = _accumulated(parents, head_local)
    has_parent = parents >= 0
    children = np.bincount(parents[has_parent], minlength=count)
    child_world = np.zeros((count, 3), dtype=f32)
    child_local = np.zeros((count, 3), dtype=f32)
    np.add.at(child_world, parents[has_parent], head_world[has_parent])
    np.add.at(child_local, parents[has_parent], head_local[has_parent])
    share = np.where(children > 0, 1.0 / np.maximum(children, 1), 1.0).astype(f32)[:, None]
    # Without an End Site: the one child's head, or the children's mean; a childless joint's tail is its head.
    tail_world = np.where(children[:, None] > 0, child_world * share, head_world)
    tail_local = head_local + child_local * share
    for joint, end in info.end_sites.items():
        end = np.asarray(end).astype(f32) * f32(scale)
        tail_world[joint] = head_world[joint] + end
        tail_local[joint] = head_local[joint] + end
    short = _length(tail_local - head_local) <= 0.001 * scale
    tail_world[short, 1] = tail_world[short, 1] + scale / 10.0
    tail_local[short, 1] = tail_local[short, 1] + scale / 10.0

    lengths = _length(head_local - tail_local)
    average = lengths[lengths > 0.0].mean() if np.any(lengths > 0.0) else 0.1
    tail = tail_world.copy()
    zero_area = _length(head_world - tail) < _MIN_BONE_LENGTH
    parent_span = np.zeros((count, 3), dtype=f32)
    parent_span[has_parent] = (head_local - tail_local)[parents[has_parent]]
    shifted = zero_area & (_length(parent_span) > 0.0)
    tail[shifted] -= parent_span[shifted]
    tail[zero_area & ~shifted, 1] = tail[zero_area & ~shifted, 1] + average

    # use_connect: no position channels, a parent of some length, and the parent's tail on the joint's
    # offset (mathutils' equality, one unit in the last place); Blender then moves the head onto that tail.
    moving = np.array(["Xposition" in names for names in info.channels], dtype=bool)
    candidates = np.flatnonzero(has_parent & ~moving)
    near = np.all(np.abs(tail_local[parents[candidates]] - head_local[candidates]) <= np.spacing(np.abs(head_local[candidates])), axis=1)
    connected = candidates[near & ~zero_area[parents[candidates]]]
    head = head_world.copy()
    head[connected] = tail[parents[connected]]
    joined = np.zeros(count, dtype=bool)
    joined[connected] = True
    return bone_matrices(head.astype(float), tail.astype(float)), _length(tail - head), joined


def _turn(up):
    """The 4x4 rotation the importer applies to the armature: a file's axes to Blender's."""
    turn = np.eye(4)
    turn[:3, :3] = bvh.BLENDER_TO_FILE[up].T
    return turn


def scene_fps(frame_time: float) -> float:
    """Frames per second a scene plays after the importer's update_scene_fps for ``frame_time`` (seconds): ``clip.scene_rate``,
    with ``fps_base`` kept in single precision as Blender keeps it."""
    fps, base = scene_rate(1.0 / frame_time)
    return fps / float(np.float32(base))


def native_modes(info: bvh.BvhInfo) -> tuple[str, ...]:
    """Each joint's rotation mode as the importer's NATIVE mode sets it: the file's rotation channel order, 'XYZ' without rotations."""
    return tuple("".join(name[0] for name in names if name.endswith("rotation")) or "XYZ" for names in info.channels)


def _bones_parents_first(parents):
    """The bone order ``clip_io.bones_parents_first`` reads an imported armature in: by depth, file order within a depth."""
    return np.argsort(_depths(parents), kind="stable")


def _importer_bones(info, scale):
    """The importer's bones in the clip's order: rest matrices ``(J, 4, 4)`` in the file's axes, lengths ``(J,)``, which are
    connected ``(J,)``, and the order itself (file index of each clip bone)."""
    order = _bones_parents_first(info.parents)
    rest, lengths, connected = _rest_in_file_axes(info, scale)
    return rest[order], lengths[order], connected[order], order


def armature_from_bvh(info: bvh.BvhInfo, scale: float, up: str) -> tuple[Clip, np.ndarray, np.ndarray]:
    """:func:`clip_from_bvh`, with what the importer's armature has beyond the clip's rest matrices, for building it:
    ``(clip, lengths, connected)``, bone lengths ``(J,)`` (armature units) and which bones are connected to their
    parent's tail ``(J,)``, in the clip's bone order."""
    bones = _importer_bones(info, scale)
    return _clip(info, scale, up, bones[0], bones[3]), bones[1], bones[2]


def clip_from_bvh(info: bvh.BvhInfo, scale: float, up: str) -> Clip:
    """The :class:`Clip` ``clip_io.read_clip`` gives after Blender's importer read ``info``.

    scale: the importer's ``global_scale`` (metres per file unit); up: ``'Y'``
    or ``'Z'``, the file's up axis (imported with ``bvh.IMPORT_AXES[up]``).
    Frames 1..F; fps as the scene plays after the import; location in the
    armature's units (metres at the usual scale), keyed only on joints with
    position channels; rotation ``(F, J, 4)`` in each bone's rest frame, the
    sign of frame 1 as Blender's Euler keys give it.
    """
    rest_file, _, _, order = _importer_bones(info, scale)
    return _clip(info, scale, up, rest_file, order)


def _clip(info, scale, up, rest_file, order):
    """:func:`clip_from_bvh` given the importer's rest matrices in the file's axes and the bone order (see :func:`_importer_bones`)."""
    frames = info.frame_count
    rest_turn = quat.to_matrix(quat.from_matrix(rest_file[:, :3, :3]))  # (J, 3, 3): the rest's rotation, orthonormal
    every_layout = bvh.layouts(info.channels)
    layouts = [every_layout[j] for j in order]
    offsets = info.offsets[order]
    count = len(order)
    location = np.zeros((frames, count, 3))
    rotation = np.zeros((frames, count, 4))
    rotation[..., 0] = 1.0
    moving = np.array([bool(layout.positions) for layout in layouts])
    turning = np.array([bool(layout.rotations) for layout in layouts])
    position_columns = np.array([layout.positions for layout in layouts if layout.positions]).reshape(-1, 3)
    groups = {}  # Euler order -> the joints turning in it, and their rotation columns
    for j, layout in enumerate(layouts):
        if layout.rotations:
            groups.setdefault(layout.order, []).append(j)
    groups = {euler_order: (members, np.array([layouts[j].rotations for j in members])) for euler_order, members in groups.items()}

    def convert(start):
        """Frames ``start`` on, a block's worth: the temporaries stay small next to the clip."""
        rows = info.motion[start:start + _FRAMES_PER_BLOCK]
        if moving.any():
            offset = scale * (rows[:, position_columns] - offsets[moving])  # (f, M, 3), file axes
            location[start:start + len(rows), moving] = _seen_from_rest(offset, rest_file[moving, :3, :3])
        for euler_order, (members, columns) in groups.items():
            turn = rotation_modes.euler_to_quat(np.radians(rows[:, columns]), euler_order)
            # rest^-1 * turn * rest: the same angle about the axis seen from the rest frame
            turn[..., 1:] = _seen_from_rest(turn[..., 1:], rest_turn[members])
            rotation[start:start + len(rows), members] = turn

    starts = range(0, frames, _FRAMES_PER_BLOCK)
    if len(starts) > 1:  # numpy lets go of the GIL in its loops: a long take's blocks are converted on two cores
        with ThreadPoolExecutor(_THREADS) as pool:
            list(pool.map(convert, starts))  # every block's, and the first error any raised
    else:
        convert(0)
    every_mode = native_modes(info)
    modes = tuple(every_mode[j] for j in order)
    quat.unroll(rotation, _first_frame_sign(rotation[0], modes), out=rotation)

    position = np.empty(count, dtype=int)
    position[order] = np.arange(count)
    parents = np.where(info.parents[order] >= 0, position[info.parents[order]], -1)
    return Clip(
        fps=scene_fps(info.frame_time),
        frames=np.arange(1, frames + 1, dtype=float),
        bone_names=tuple(info.names[j] for j in order),
        parents=parents,
        rest=_turn(up) @ rest_file,
        location=location,
        rotation=rotation,
        scale=np.broadcast_to(1.0, (frames, count, 3)),  # BVH has no scale channels: one read-only 1, never a long take's copy
        rotation_modes=modes,
        animated_location=np.repeat(moving[:, None], 3, axis=1),
        animated_rotation=turning,
        animated_scale=np.zeros((count, 3), dtype=bool),
    ).validate()


def _seen_from_rest(vectors, rest):
    """``vectors (f, m, 3)`` in the frames of the rest rotations ``rest (m, 3, 3)``: rest^T v (rest^-1 = rest^T), a component
    at a time (an einsum over axes of 3 is several times slower)."""
    seen = np.empty_like(vectors)
    x, y, z = vectors[..., 0], vectors[..., 1], vectors[..., 2]
    for axis in range(3):
        seen[..., axis] = rest[:, 0, axis] * x + rest[:, 1, axis] * y + rest[:, 2, axis] * z
    return seen


def _first_frame_sign(rotation, modes):
    """Quaternions ``(J, 4)`` with the sign of frame 1 that Blender's Euler keys give.

    The importer keys, for the first frame, the Euler triple (of the two a
    rotation has, each angle in [-pi, pi]) with the smaller sum of absolute
    angles; read_clip turns it back into a quaternion whose sign the later
    frames follow.
    """
    signed = np.array(rotation)
    for mode in set(modes):
        members = [j for j, m in enumerate(modes) if m == mode]
        signed[members] = rotation_modes.euler_to_quat(rotation_modes.smallest_euler(rotation[members], mode), mode)
    return signed


def bvh_from_clip(clip: Clip, info: bvh.BvhInfo, up: str, scale: float, frame_time: float | None = None) -> bvh.BvhInfo:
    """A :class:`bvh.BvhInfo` with ``info``'s hierarchy, channel layout, axes and units holding ``clip``'s motion.

    clip: bones named as ``info``'s joints, parents the same, rest as
    :func:`clip_from_bvh` gives (any rest works: each joint's BVH rotation is
    its bone's rotation seen from the rest frame, ``rest @ q @ rest^-1``,
    and its position the head's offset from its parent's head plus the
    location turned by the rest). up, scale: as given to :func:`clip_from_bvh`.
    Rotations are written in each joint's channel order, continuous over
    frames. Frame Time is ``info``'s unless the clip's frame rate (or
    ``frame_time``, seconds, when given) differs beyond 6 decimals.
    BvhError if a joint the input cannot move (no position channels) moves
    off its OFFSET, or one without rotation channels turns.
    """
    names = {name: b for b, name in enumerate(clip.bone_names)}
    missing = [name for name in info.names if name not in names]
    if missing:
        raise bvh.BvhError(f"the clip has no joint '{missing[0]}'")
    bones = np.array([names[name] for name in info.names])
    to_file = bvh.BLENDER_TO_FILE[up]
    rest = clip.rest[bones]  # (J, 4, 4), Blender's axes
    turn = quat.multiply(quat.from_matrix(to_file), quat.from_matrix(rest[:, :3, :3]))  # (J, 4): the bone's rest, then the file's axes
    rotation = quat.multiply(quat.multiply(turn, clip.rotation[:, bones]), quat.inverse(turn))
    heads = rest[:, :3, 3]
    parent_heads = np.where(info.parents[:, None] >= 0, heads[np.maximum(info.parents, 0)], 0.0)
    shift = np.einsum("jik,fjk->fji", rest[:, :3, :3], clip.location[:, bones]) @ (to_file.T / scale)
    position = (heads - parent_heads) @ (to_file.T / scale) + shift
    # A joint strays from its OFFSET only by its location: the rest heads carry single-precision rounding
    # that grows along a long chain.
    stray = np.abs(shift).max(axis=(0, 2))
    moved = {name: (position[:, j], rotation[:, j], stray[j]) for j, name in enumerate(info.names)}
    frame_time = bvh.kept_frame_time(info, clip.dt if frame_time is None else frame_time)
    motion = bvh.rows_in_layout(moved, info, np.abs(info.offsets).max())
    return bvh.BvhInfo(info.names, info.parents, info.offsets, info.channels, info.end_sites, frame_time, motion)
