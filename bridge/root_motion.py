"""Root motion in Blender: the armature gets a root bone when it needs one, and the extraction is written as a new action.

The core (:mod:`..core.engine.root_bone`) decides the split; this module adds
the bone in Edit Mode (rest at the armature origin, the old top bones below
it) and writes the result with :func:`.write_policy.write_edit`, so a loop stays
a loop with its travel now repeating on the root.
"""

import contextlib
from dataclasses import replace

import bpy

from ..core.engine import root_bone
from ..core.errors import ClipError
from . import action_curves, write_policy

#: Length of an added root bone, as a share of the pelvis's rest height (it lies on the floor, pointing along +Y).
ROOT_LENGTH_SHARE = 0.5


@contextlib.contextmanager
def _edit_bones(obj, doing):
    """``obj``'s edit bones in Edit Mode meanwhile; the object's mode and the active object restored. ``doing``: for messages."""
    if obj.data.library is not None or obj.library is not None:
        raise ClipError(f"armature '{obj.name}' is linked from a library: {doing} is not possible")
    view_layer = bpy.context.view_layer
    if view_layer.objects.get(obj.name) != obj:
        raise ClipError(f"armature '{obj.name}' is not in the view layer: {doing} is not possible")
    active, mode = view_layer.objects.active, obj.mode
    view_layer.objects.active = obj
    try:
        bpy.ops.object.mode_set(mode="EDIT")
        yield obj.data.edit_bones
        bpy.ops.object.mode_set(mode="OBJECT")
        if mode != "OBJECT":
            bpy.ops.object.mode_set(mode=mode)
    except RuntimeError as error:
        raise ClipError(f"armature '{obj.name}' cannot be edited ({doing}): {str(error).strip()}") from None
    finally:
        view_layer.objects.active = active


def add_root_bone(obj, name, length):
    """Add bone ``name`` to ``obj``'s armature at the origin with an identity rest, parent of every top bone.

    length: the bone's length in armature units. Other bones keep their rest
    (to float precision) and their animation. The object's mode and the view
    layer's active object are restored. ClipError when the armature cannot
    be edited (linked, or not in the view layer) or the name cannot be a bone's.
    """
    root_bone.check_root_name(name)
    with _edit_bones(obj, "adding a root bone") as edit_bones:
        tops = [bone for bone in edit_bones if bone.parent is None]
        root = edit_bones.new(name)
        root.head, root.tail, root.roll = (0.0, 0.0, 0.0), (0.0, float(length), 0.0), 0.0
        for bone in tops:
            bone.use_connect = False
            bone.parent = root
    obj.pose.bones[name].rotation_mode = "QUATERNION"


def _remove_root_bone(obj, name):
    """Undo :func:`add_root_bone`: its children back on top, the bone gone."""
    with _edit_bones(obj, "removing the root bone again") as edit_bones:
        root = edit_bones[name]
        for bone in root.children:
            bone.parent = None
        edit_bones.remove(root)


def extract(obj, mode="HEADING", height="PELVIS", root_name="root", smoothing=0.25, in_place=False):
    """Move the travel of ``obj``'s active action onto a root bone, as a new action ``<action>_root`` (``_inplace``).

    Arguments as :func:`..core.engine.root_bone.extract_root_motion`; a
    looping action (Make Loop's, CLAMP or WRAP) is smoothed across its seam
    and written as a loop whose travel repeats on the root. The root bone is
    added to the armature when the skeleton has no floor bone on top. The
    original action is kept. Returns ``(action, RootMotion)``; ClipError or
    LoopsmithError with a one-line reason.
    """
    source = action_curves.require_action(obj)
    clip, playback = write_policy.read_edit_source(obj)
    if action_curves.OBJECT_CHANNELS in clip.bone_names:
        raise ClipError(f"action '{source.name}' moves the armature object itself; root motion is taken from bones, "
                        "so apply the object's motion to the bones first")
    result = root_bone.extract_root_motion(clip, mode, root_name, smoothing, in_place, cyclic=playback.cyclic, height=height)
    if result.added:
        pelvis_height = abs(clip.rest[result.pelvis - 1, 2, 3])
        add_root_bone(obj, root_name, max(ROOT_LENGTH_SHARE * pelvis_height, 1e-3))
    travel = None if in_place else result.clip.bone_names[result.root]
    try:
        action = write_policy.write_edit(obj, result.as_edit(), source, clip.frames[0], replace(playback, travel=travel))
    except Exception:
        if result.added:  # no action plays the new bone: the armature goes back as it was
            _remove_root_bone(obj, root_name)
        raise
    return action, result


def rename_bone(obj, old, new):
    """Rename bone ``old`` of ``obj`` to ``new``; Blender renames the paths of the object's animation with it.

    ClipError if ``old`` is not one of its bones or another bone already has the name.
    """
    if old == new:
        return
    if old not in obj.data.bones:
        raise ClipError(f"armature '{obj.name}' has no bone '{old}' to rename")
    root_bone.check_root_name(new)
    if new in obj.data.bones:
        raise ClipError(f"cannot rename '{old}' to '{new}': armature '{obj.name}' already has a bone of that name")
    obj.data.bones[old].name = new
