"""Create an armature object from a clip's rest pose (for the built-in demo)."""

import bpy
import numpy as np
from mathutils import Matrix


def _bone_lengths(clip):
    """Distance from each bone's head to its first child's head (a tenth of a unit if none)."""
    heads = clip.rest[:, :3, 3]
    lengths = np.full(clip.num_bones, 0.1)
    for child, parent in reversed(list(enumerate(clip.parents))):
        if parent >= 0:
            gap = np.linalg.norm(heads[child] - heads[parent])
            if gap > 1e-4:
                lengths[parent] = gap
    return lengths


def create_armature(context, clip, name):
    """A new armature object in the scene's collection with the clip's bones at rest.

    Each bone's matrix_local equals ``clip.rest``; pose-bone rotation modes
    follow ``clip.rotation_modes``. Leaves the object active in Object mode.
    """
    armature = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, armature)
    context.scene.collection.objects.link(obj)
    context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        edit_bones = []
        for index, (bone_name, length) in enumerate(zip(clip.bone_names, _bone_lengths(clip))):
            edit_bone = armature.edit_bones.new(bone_name)
            edit_bone.head = (0.0, 0.0, 0.0)
            edit_bone.tail = (0.0, float(length), 0.0)
            edit_bone.matrix = Matrix(clip.rest[index].tolist())
            parent = clip.parents[index]
            if parent >= 0:
                edit_bone.parent = edit_bones[parent]
            edit_bones.append(edit_bone)
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    for bone_name, mode in zip(clip.bone_names, clip.rotation_modes):
        obj.pose.bones[bone_name].rotation_mode = mode
    return obj
