"""Build an armature and its action from a clip in bulk: what Blender's BVH importer makes, without its per-key loops.

The bones come from ``clip.rest`` (each bone's ``matrix_local``); the action
is written by ``clip_io.write_clip`` (``foreach_set`` per curve), with linear
keys as the importer sets them.
"""

import bpy
import numpy as np
from mathutils import Matrix

from . import action_api, clip_io
from .armature import _bone_lengths

_LINEAR = 1  # the 'LINEAR' item of a keyframe's interpolation, as foreach_set takes it
_CONNECTED = 1e-6  # a child's head this close (armature units) to its parent's tail is on it


def build_armature(clip, name, context=None, lengths=None):
    """A new armature object and data-block named ``name``, linked to the context's collection, animated by ``clip``.

    Each bone's ``matrix_local`` is ``clip.rest``, its length ``lengths[b]``
    (``(B,)`` armature units in clip order, e.g. ``bvh_clip.bone_lengths``;
    default the distance to its first child's head); a bone without
    location keys whose head lies on its parent's tail is connected, as the
    importer connects them. Rotation modes are the clip's; the clip becomes the
    object's action ``name`` (every frame keyed, linear). The object is left
    active and selected, in Object mode; returns it.
    """
    context = context or bpy.context
    clip.validate()
    lengths = _bone_lengths(clip) if lengths is None else np.asarray(lengths, dtype=float)
    armature = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, armature)
    context.collection.objects.link(obj)
    for other in context.selected_objects:
        other.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        bones = []
        for b, bone_name in enumerate(clip.bone_names):
            bone = armature.edit_bones.new(bone_name)
            bone.tail = (0.0, float(lengths[b]), 0.0)
            bone.matrix = Matrix(clip.rest[b].tolist())
            if clip.parents[b] >= 0:
                bone.parent = bones[clip.parents[b]]
            bones.append(bone)
        tails = clip.rest[:, :3, 3] + clip.rest[:, :3, 1] * lengths[:, None]
        for b in np.flatnonzero(clip.parents >= 0):
            if not clip.animated_location[b].any() and np.linalg.norm(tails[clip.parents[b]] - clip.rest[b, :3, 3]) < _CONNECTED:
                bones[b].use_connect = True
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    for bone_name, mode in zip(clip.bone_names, clip.rotation_modes):
        obj.pose.bones[bone_name].rotation_mode = mode
    action = clip_io.write_clip(obj, clip, name)
    for fcurve in action_api.fcurves_of(action, obj):
        points = fcurve.keyframe_points
        points.foreach_set("interpolation", np.full(len(points), _LINEAR, dtype=np.int32))
        fcurve.update()
    return obj
