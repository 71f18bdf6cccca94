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
    m = np.zeros(shape + (4, 4))
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


def forward_kinematics(parents, rest, location, rotation, scale):
    """Armature-space pose matrices ``(F, B, 4, 4)`` (Blender ``pose_bone.matrix``).

    parents ``(B,)`` with parents before children; rest ``(B, 4, 4)``;
    location ``(F, B, 3)``, rotation ``(F, B, 4)``, scale ``(F, B, 3)``.
    Vectorized over frames; the loop runs over bones only.
    """
    relative = rest_relative(parents, rest)
    pose = relative[None] @ local_matrices(location, rotation, scale)
    for bone, parent in enumerate(parents):
        if parent >= 0:
            pose[:, bone] = pose[:, parent] @ pose[:, bone]
    return pose


def clip_forward_kinematics(clip):
    """Armature-space pose matrices ``(F, B, 4, 4)`` of a :class:`~.clip.Clip`."""
    return forward_kinematics(clip.parents, clip.rest, clip.location, clip.rotation, clip.scale)


def clip_joint_positions(clip):
    """Armature-space bone head positions ``(F, B, 3)`` of a clip, in its length unit."""
    return clip_forward_kinematics(clip)[..., :3, 3]
