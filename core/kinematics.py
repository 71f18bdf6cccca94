"""Forward kinematics: local pose channels to armature-space transforms.

Follows Blender's pose evaluation for bones that inherit rotation and scale
(the default, and what the BVH, FBX and glTF importers create):
``pose[b] = pose[parent] @ inv(rest[parent]) @ rest[b] @ T(location) R(rotation) S(scale)``.
"""

import numpy as np

from . import quat


def local_matrices(location, rotation, scale):
    """Basis matrices ``(..., 4, 4)`` from location ``(..., 3)``, quaternions ``(..., 4)``, scale ``(..., 3)``."""
    shape = np.shape(location)[:-1]
    m = np.zeros(shape + (4, 4), dtype=np.result_type(location, rotation, scale))
    m[..., :3, :3] = quat.to_matrix(rotation) * np.asarray(scale)[..., None, :]
    m[..., :3, 3] = location
    m[..., 3, 3] = 1.0
    return m


def rest_relative(parents, rest):
    """Each bone's rest matrix relative to its parent's, ``(B, 4, 4)``."""
    relative = np.array(rest, dtype=float)
    has_parent = parents >= 0
    relative[has_parent] = np.linalg.inv(rest[parents[has_parent]]) @ rest[has_parent]
    return relative


def ancestors_and_self(parents, bones):
    """Sorted indices of ``bones`` and every bone above them."""
    needed = set()
    for bone in bones:
        while bone >= 0 and bone not in needed:
            needed.add(bone)
            bone = parents[bone]
    return sorted(needed)


def forward_kinematics(parents, rest, location, rotation, scale, bones=None, dtype=np.float64):
    """Armature-space pose matrices ``(F, B, 4, 4)`` (Blender ``pose_bone.matrix``).

    parents ``(B,)`` with parents before children; rest ``(B, 4, 4)``;
    location ``(F, B, 3)``, rotation ``(F, B, 4)``, scale ``(F, B, 3)``.
    bones: evaluate only these and their ancestors (the others stay zero).
    dtype: float32 halves time and memory where poses are only compared.
    Vectorized over frames; the loop runs over bones, each contiguous in memory.
    """
    relative = rest_relative(parents, rest).astype(dtype)
    frames = np.shape(location)[0]
    pose = np.zeros((len(parents), frames, 4, 4), dtype=dtype)
    needed = range(len(parents)) if bones is None else ancestors_and_self(parents, bones)
    location, rotation, scale = (np.asarray(channel, dtype=dtype) for channel in (location, rotation, scale))
    for bone in needed:
        local = local_matrices(location[:, bone], rotation[:, bone], scale[:, bone])
        parent = parents[bone]
        if parent < 0:
            np.matmul(relative[bone], local, out=pose[bone])
        else:
            # One (4F, 4) x (4, 4) product for the constant rest offset: a single BLAS call.
            offset = (pose[parent].reshape(-1, 4) @ relative[bone]).reshape(frames, 4, 4)
            np.matmul(offset, local, out=pose[bone])
    return np.moveaxis(pose, 0, 1)


def clip_forward_kinematics(clip, bones=None, dtype=np.float64):
    """Armature-space pose matrices ``(F, B, 4, 4)`` of a :class:`~.clip.Clip` (see :func:`forward_kinematics`)."""
    return forward_kinematics(clip.parents, clip.rest, clip.location, clip.rotation, clip.scale, bones, dtype)


def clip_joint_positions(clip):
    """Armature-space bone head positions ``(F, B, 3)`` of a clip, in its length unit."""
    return clip_forward_kinematics(clip)[..., :3, 3]
