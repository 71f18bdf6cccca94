"""Forward kinematics: local pose channels to armature-space transforms.

Follows Blender's pose evaluation for bones that inherit rotation and scale
(the default, and what the BVH, FBX and glTF importers create):
``pose[b] = pose[parent] @ inv(rest[parent]) @ rest[b] @ T(location) R(rotation) S(scale)``.
"""

import functools

import numpy as np

from . import quat
from .clip import Clip


def affine_inverse(m: np.ndarray) -> np.ndarray:
    """Inverses of affine transforms ``(..., 4, 4)`` (last row 0 0 0 1), from the 3x3 part's cofactors.

    Plain arithmetic on whole arrays: LAPACK's batched inverse starts BLAS
    threads per call, which on small batches costs 25x the work (measured in
    Blender, whose numpy runs several threads).
    """
    m = np.asarray(m, dtype=float)
    rows = m[..., :3, :3]
    cofactors = np.stack([_cross(rows[..., 1, :], rows[..., 2, :]), _cross(rows[..., 2, :], rows[..., 0, :]),
                          _cross(rows[..., 0, :], rows[..., 1, :])], axis=-1)
    determinant = np.einsum("...i,...i->...", rows[..., 0, :], cofactors[..., :, 0])
    inverse = np.zeros_like(m)
    inverse[..., :3, :3] = cofactors / determinant[..., None, None]
    inverse[..., :3, 3] = -np.einsum("...ij,...j->...i", inverse[..., :3, :3], m[..., :3, 3])
    inverse[..., 3, 3] = 1.0
    return inverse


def _cross(a, b):
    """Cross products of vectors ``(..., 3)``: numpy's arithmetic, term for term, without np.cross's axis handling, which
    costs several times the products on the few bones of a rest pose (forward kinematics inverts one per call)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def rest_relative(parents: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """Each bone's rest matrix relative to its parent's, ``(B, 4, 4)`` (a new array).

    Worked out once per skeleton: a search poses the same skeleton hundreds of times, and inverting its rest matrices
    cost more than copying them.
    """
    return _cached_rest_relative(np.asarray(parents, dtype=np.int64).tobytes(), np.asarray(rest, dtype=float).tobytes()).copy()


@functools.lru_cache(maxsize=16)
def _cached_rest_relative(parents: bytes, rest: bytes) -> np.ndarray:
    """:func:`rest_relative` of the skeleton given as the bytes of its int64 parents and float64 rest matrices."""
    parents = np.frombuffer(parents, dtype=np.int64)
    rest = np.frombuffer(rest, dtype=float).reshape(-1, 4, 4)
    relative = np.array(rest)
    has_parent = parents >= 0
    relative[has_parent] = affine_inverse(rest[parents[has_parent]]) @ rest[has_parent]
    relative.flags.writeable = False
    return relative


#: Bytes of pose matrices posed at once where only positions are kept (:func:`clip_joint_positions`): a block and the
#: temporaries posing it stay under what glibc's malloc keeps for reuse (it learns to keep freed arrays up to 32 MB), so
#: each block takes the memory the last one freed, not fresh pages from the kernel at a fault per 4 kB. Two 10,000-frame
#: poses of 60 bones faulted in 154 MB, 0.3 s of their 0.6 s on a VM; in 1,092-frame blocks 15 MB and 0.05 s, the
#: positions bit for bit the same. Never fewer than :data:`POSITION_BLOCK_FRAMES` frames: posing runs a few numpy calls
#: per bone and block, which on a rig of hundreds of bones would cost more than the faults.
POSITION_BLOCK_BYTES = 8 << 20
POSITION_BLOCK_FRAMES = 1024
#: Bone frames whose local bases :func:`forward_kinematics` makes at once (12 floats each): a few bones of a long take,
#: every bone of a short one, whose cost is otherwise the number of numpy calls, not their size.
LOCAL_BLOCK = 1 << 16


def ancestors_and_self(parents: np.ndarray, bones: list | np.ndarray) -> list[int]:
    """Sorted indices of ``bones`` and every bone above them."""
    needed = set()
    for bone in bones:
        while bone >= 0 and bone not in needed:
            needed.add(bone)
            bone = parents[bone]
    return sorted(needed)


def _local_bases(location, rotation, scale, bases):
    """The top three rows ``(k, 3, 4, F)`` of bones' ``T(location) R(rotation) S(scale)`` (the last row is 0, 0, 0, 1), from
    component-major channels ``(k, 3 or 4, F)``, written into ``bases`` (at least k rows: one buffer for every block)."""
    bases = bases[:len(location)]
    for i, row in enumerate(quat.matrix_entries(rotation.transpose(0, 2, 1))):
        for j, entry in enumerate(row):
            np.multiply(entry, scale[:, j], out=bases[:, i, j])
    bases[:, :, 3] = location
    return bases


def _component_major(channel, chosen, dtype):
    """Copies ``[k-th bone, component] -> (F,)`` contiguous of a channel ``(F, B, C)``, the ``chosen`` bones only (a list,
    or a slice for all): a list's bones gathered first, a contiguous run per frame, then transposed into a new array
    (picking a few bones from a transposed view is three times slower)."""
    picked = np.asarray(channel)
    picked = picked[:, chosen] if isinstance(chosen, slice) else np.take(picked, chosen, axis=1)
    component_major = np.empty(picked.shape[1:] + picked.shape[:1], dtype=dtype)
    component_major[...] = picked.transpose(1, 2, 0)
    return component_major


def _times_local(offset, local, world, product):
    """``world (3, K, F) = offset (3, 4, F) @ [local; 0 .. 0 1]`` over frames for the last ``K`` columns of a local
    matrix ``local (3, K, F)`` (all four, or the head alone), the sum over the shared axis a term at a time: three times
    faster than an einsum over a last axis of frames, and the same sums in the same order (bit for bit on x86-64; on
    arm64 numpy's einsum fuses each multiply-add, so there the last bit may differ). product: scratch ``(3, K, F)``."""
    np.multiply(offset[:, 0, None], local[0], out=world)
    for j in (1, 2):
        np.multiply(offset[:, j, None], local[j], out=product)
        world += product
    world[:, -1] += offset[:, 3]


def forward_kinematics(parents: np.ndarray, rest: np.ndarray, location: np.ndarray, rotation: np.ndarray, scale: np.ndarray,
                       bones: list | np.ndarray | None = None, dtype: type = np.float64, heads_only: bool = False) -> np.ndarray:
    """Armature-space pose matrices ``(F, B, 4, 4)`` (Blender ``pose_bone.matrix``).

    parents ``(B,)`` with parents before children; rest ``(B, 4, 4)``;
    location ``(F, B, 3)``, rotation ``(F, B, 4)``, scale ``(F, B, 3)``.
    bones: evaluate only these and their ancestors (the others stay zero).
    dtype: float32 halves time and memory where poses are only compared.
    heads_only: where only positions are read: a bone no evaluated bone hangs
    from gets its head (the last column) alone, its 3 x 3 rotation and scale
    left zero (they turn nothing that is read).

    The loop runs over bones; within a bone every matrix entry is a whole
    array over frames (entry-major storage), so each product is a handful of
    long vector operations rather than millions of tiny 4x4 products. The
    local bases are made for :data:`LOCAL_BLOCK` bone frames at once (every
    bone of a short clip in one pass). The result is a transposed view of
    that storage.
    """
    relative = rest_relative(parents, rest).astype(dtype, copy=False)
    frames = np.shape(location)[0]
    pose = np.zeros((len(parents), 4, 4, frames), dtype=dtype)  # [bone, row, column] -> (F,) over frames
    needed = list(range(len(parents)) if bones is None else ancestors_and_self(parents, bones))
    hung_from = set(parents[needed].tolist())
    heads = [bone for bone in needed if bone not in hung_from] if heads_only else []
    turned = [bone for bone in needed if bone in hung_from] if heads else needed
    chosen = slice(None) if len(turned) == len(parents) else turned
    turned_channels = [_component_major(channel, chosen, dtype) for channel in (location, rotation, scale)]
    block = max(1, LOCAL_BLOCK // max(frames, 1))
    buffer = np.empty((min(block, len(turned)), 3, 4, frames), dtype=dtype)
    product = np.empty((3, 4, frames), dtype=dtype)
    for first in range(0, len(turned), block):
        bases = _local_bases(*(channel[first:first + block] for channel in turned_channels), buffer)
        for bone, local in zip(turned[first:first + block], bases):
            world = pose[bone]
            _times_local(_parent_offset(pose, relative, parents, bone), local, world[:3], product)
            world[3, 3] = 1.0
    for bone, head in zip(heads, _component_major(location, heads, dtype)):
        _times_local(_parent_offset(pose, relative, parents, bone), head[:, None], pose[bone, :3, 3:], product[:, 3:])
        pose[bone, 3, 3] = 1.0
    return pose.transpose(3, 0, 1, 2)


def _parent_offset(pose, relative, parents, bone):
    """The top rows ``(3, 4, F)`` of ``pose[parent] @ relative[bone]``: the bone's rest in armature space as its parent
    stands (the parent already posed)."""
    parent = parents[bone]
    if parent < 0:
        return np.broadcast_to(relative[bone, :3, :, None], (3, 4, pose.shape[-1]))
    return relative[bone].T @ pose[parent, :3]  # parent @ relative, as three BLAS products


def clip_forward_kinematics(clip: Clip, bones: list | np.ndarray | None = None, dtype: type = np.float64,
                            heads_only: bool = False) -> np.ndarray:
    """Armature-space pose matrices ``(F, B, 4, 4)`` of a :class:`~.clip.Clip` (see :func:`forward_kinematics`)."""
    return forward_kinematics(clip.parents, clip.rest, clip.location, clip.rotation, clip.scale, bones, dtype, heads_only)


def clip_joint_positions(clip: Clip, bones: list | np.ndarray | None = None) -> np.ndarray:
    """Armature-space bone head positions ``(F, B, 3)`` of a clip, in its length unit; ``(F, len(bones), 3)`` of ``bones`` alone.

    Posed :data:`POSITION_BLOCK_BYTES` of matrices at a time (``bones`` and their ancestors
    only), so a long take never holds its ``(B, 4, 4, F)`` pose matrices at once.
    """
    kept = slice(None) if bones is None else np.asarray(bones, dtype=int)
    positions = np.empty((clip.num_frames, clip.num_bones if bones is None else len(kept), 3))
    block = max(POSITION_BLOCK_FRAMES, POSITION_BLOCK_BYTES // (clip.num_bones * 16 * 8))  # every bone's float64 4x4, needed or not
    for start in range(0, clip.num_frames, block):
        part = clip.slice_frames(start, start + block)
        positions[start:start + part.num_frames] = clip_forward_kinematics(part, bones, heads_only=True)[..., :3, 3][:, kept]
    return positions


def descendants(parents: np.ndarray, bone: int) -> np.ndarray:
    """Mask ``(B,)`` of ``bone`` and every bone below it (parents listed first)."""
    mask = np.zeros(len(parents), dtype=bool)
    mask[bone] = True
    for child, parent in enumerate(parents):
        if parent >= 0 and mask[parent]:
            mask[child] = True
    return mask


def lengths(vectors: np.ndarray) -> np.ndarray:
    """Euclidean lengths ``(...)`` of vectors ``(..., n)`` (n at most 7): ``np.linalg.norm(vectors, axis=-1)`` bit for bit
    (its sum of squares runs in order below eight terms), a term at a time: a reduction over an axis of three takes
    three times as long as the products."""
    squares = vectors[..., 0] * vectors[..., 0]
    for k in range(1, vectors.shape[-1]):
        squares += vectors[..., k] * vectors[..., k]
    return np.sqrt(squares)


def accelerations(positions: np.ndarray, dt: float, at: np.ndarray, span: int = 1) -> np.ndarray:
    """Acceleration magnitudes ``(len(at), B)`` per second squared of positions ``(F, B, 3)`` at frame indices ``at`` (central
    second differences over ``span`` frames on either side)."""
    at = np.asarray(at)
    return lengths(positions[at + span] - 2.0 * positions[at] + positions[at - span]) / (span * dt)**2
