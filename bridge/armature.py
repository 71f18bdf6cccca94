"""Armature objects from a clip: its bones at rest (the built-in demo, benchmarks) or animated by it in bulk (a BVH read
by the numpy reader, as Blender's importer would have made it)."""

import bpy
import numpy as np
from mathutils import Matrix

from . import action_api, write_action

_LINEAR = 1  # the 'LINEAR' item of a keyframe's interpolation, as foreach_set takes it


def _first_child_distances(clip):
    """Distance from each bone's head to its first child's head (a tenth of a unit if none)."""
    heads = clip.rest[:, :3, 3]
    lengths = np.full(clip.num_bones, 0.1)
    for child, parent in reversed(list(enumerate(clip.parents))):
        if parent >= 0:
            gap = np.linalg.norm(heads[child] - heads[parent])
            if gap > 1e-4:
                lengths[parent] = gap
    return lengths


def create_armature(context, clip, name, lengths=None, connected=None):
    """A new armature object and data-block ``name`` in the context's collection with the clip's bones at rest.

    Each bone's matrix_local equals ``clip.rest``; its length is ``lengths``
    ``(B,)`` (armature units; default the distance to its first child's
    head); ``connected`` ``(B,)``: the bones joined to their parent's tail
    (default none). Pose-bone rotation modes follow ``clip.rotation_modes``.
    Leaves the object selected and active, alone, in Object mode.
    """
    lengths = _first_child_distances(clip) if lengths is None else np.asarray(lengths, dtype=float)
    armature = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, armature)
    context.collection.objects.link(obj)
    for other in context.selected_objects:
        other.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        edit_bones = []
        for index, bone_name in enumerate(clip.bone_names):
            edit_bone = armature.edit_bones.new(bone_name)
            edit_bone.head = (0.0, 0.0, 0.0)
            edit_bone.tail = (0.0, float(lengths[index]), 0.0)
            edit_bone.matrix = Matrix(clip.rest[index].tolist())
            parent = clip.parents[index]
            if parent >= 0:
                edit_bone.parent = edit_bones[parent]
                edit_bone.use_connect = bool(connected is not None and connected[index])
            edit_bones.append(edit_bone)
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    for bone_name, mode in zip(clip.bone_names, clip.rotation_modes):
        obj.pose.bones[bone_name].rotation_mode = mode
    return obj


def animated_armature(context, clip, name, lengths=None, connected=None):
    """:func:`create_armature` animated by ``clip``: its action ``name`` keys every frame, linear, written in bulk
    (``write_action.write_clip``), as Blender's BVH importer keys one. Returns the object."""
    clip.validate()
    obj = create_armature(context, clip, name, lengths, connected)
    action = write_action.write_clip(obj, clip, name)
    for fcurve in action_api.fcurves_of(action, obj):
        points = fcurve.keyframe_points
        points.foreach_set("interpolation", np.full(len(points), _LINEAR, dtype=np.int32))
        fcurve.update()
    return obj
