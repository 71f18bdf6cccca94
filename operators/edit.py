"""The editing operators: resample, retime, freeze, splice, blend and mirror the active armature's action into a new one.

Each reads the action (and for splice and blend the other action, as it
would play on this armature), makes one core edit and writes the result as
a new action named ``<action>_<edit>``; the original is kept (fake user).
"""

import bpy

from .. import properties
from ..bridge import clip_io
from ..core.edit import blend, freeze, mirror, splice, timing
from ..core.errors import ClipError
from ..ui.layout import EDIT_LAYOUTS
from . import common


def _properties(*names):
    definitions = properties.edit_properties()
    return {name: definitions[name] for name in names}


class EditOperator:
    """What every editing operator shares; a subclass names its settings (``settings``) and makes its edit (``edited``)."""

    bl_options = {"REGISTER", "UNDO"}
    settings = ()  # scene settings (properties.edit_properties) the operator takes

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def draw(self, context):
        layout = common.split_layout(self.layout)
        draw_edit = EDIT_LAYOUTS.get(self.bl_idname)
        if draw_edit:
            draw_edit(layout, self, context.active_object.data)

    def edited(self, context, obj, clip):
        """The :class:`~..core.measure.edit.EditResult` of this operator's edit of ``clip``."""
        raise NotImplementedError

    @common.reports_errors
    def execute(self, context):
        properties.copy_scene_settings(self, context.scene.loopsmith, self.settings)
        obj = context.active_object
        source = obj.animation_data.action
        with common.progress(context, 2) as step:
            clip, playback = clip_io.read_edit_source(obj)
            edited = self.edited(context, obj, clip)
            step()
            written = clip_io.write_edit(obj, edited, source, clip.frames[0], playback)
            source.use_fake_user = True  # the original stays in the file
        after = self.written(context, edited)
        level = "INFO" if edited.verdict.word == "GOOD" else "WARNING"  # the verdict the command line gives the same edit
        self.report({level}, f"{self.bl_label} '{source.name}' into '{written.name}': {edited.summary()}{after}")
        return {"FINISHED"}

    def written(self, context, edited):
        """After the new action is in place: a subclass may change the scene to play it, and say so (text to end the report)."""
        return ""


class LOOPSMITH_OT_resample(EditOperator, bpy.types.Operator):
    """Put the action on another frame rate as a new action: every original frame the new grid meets is kept exactly"""

    bl_idname = "loopsmith.resample"
    bl_label = "Resample"
    settings = ("resample_fps", "resample_interpolation", "set_scene_rate")
    __annotations__ = _properties(*settings)

    def edited(self, context, obj, clip):
        return timing.resample(clip, self.resample_fps, self.resample_interpolation)

    def written(self, context, edited):
        fps = edited.clip.fps
        if self.set_scene_rate:
            clip_io.set_scene_fps(context.scene, fps)
            return f"; the scene now plays at {fps:g} fps"
        return f"; it plays at its speed in a scene at {fps:g} fps"


class LOOPSMITH_OT_retime(EditOperator, bpy.types.Operator):
    """Play the action faster or slower as a new action: the root travels as far, feet stay planted"""

    bl_idname = "loopsmith.retime"
    bl_label = "Retime"
    settings = ("retime_by", "speed", "duration", "retime_interpolation")
    __annotations__ = _properties(*settings)

    def edited(self, context, obj, clip):
        if self.retime_by == "SPEED":
            return timing.retime(clip, speed=self.speed, interpolation=self.retime_interpolation)
        return timing.retime(clip, duration=self.duration, interpolation=self.retime_interpolation)


def freeze_bone_names(text, context):
    """The bones named in ``text`` (comma separated), else the selected pose bones; ClipError if there are none."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        names = [bone.name for bone in context.selected_pose_bones or ()]
    if not names:
        raise ClipError("select the bones to freeze in Pose Mode, or type their names")
    return names


class LOOPSMITH_OT_freeze_bone(EditOperator, bpy.types.Operator):
    """Hold bones still as a new action: their rotation (optionally location) at a frame's pose or the rest pose"""

    bl_idname = "loopsmith.freeze_bone"
    bl_label = "Freeze Bones"
    settings = ("freeze_bones", "freeze_hold", "freeze_frame", "freeze_use_range", "freeze_start", "freeze_end", "freeze_blend",
                "freeze_location")
    __annotations__ = _properties(*settings)

    def edited(self, context, obj, clip):
        frame = {"CURRENT": context.scene.frame_current, "FRAME": self.freeze_frame, "REST": None}[self.freeze_hold]
        frames = (self.freeze_start, self.freeze_end) if self.freeze_use_range else None
        return freeze.freeze(clip, freeze_bone_names(self.freeze_bones, context), frame, self.freeze_hold == "REST", frames,
                             self.freeze_blend, self.freeze_location)


def _other_clip(name, obj, operation):
    """The clip of the action called ``name`` (see :func:`.common.action_clip`; ``operation``: what it is for, for the message)."""
    return common.action_clip(obj, common.matching_action(name, obj, f"choose the other action to {operation}"))


class LOOPSMITH_OT_splice(EditOperator, bpy.types.Operator):
    """Carry another action's upper body onto this action's lower body, as a new action; the lower bodies' steps lined up"""

    bl_idname = "loopsmith.splice"
    bl_label = "Splice"
    settings = ("upper_action", "upper_root", "splice_timing", "splice_shorter")
    __annotations__ = _properties(*settings)

    def edited(self, context, obj, clip):
        upper = _other_clip(self.upper_action, obj, "take the upper body from")
        return splice.splice(clip, upper, self.upper_root or None, self.splice_timing, self.splice_shorter)


class LOOPSMITH_OT_blend(EditOperator, bpy.types.Operator):
    """Blend this action with another, as a new action: lined up in time so the same foot lands together"""

    bl_idname = "loopsmith.blend"
    bl_label = "Blend"
    settings = ("blend_action", "blend_weight", "use_weight_ramp", "blend_weight_end", "blend_timing", "blend_shorter")
    __annotations__ = _properties(*settings)

    def edited(self, context, obj, clip):
        names = (obj.animation_data.action.name, self.blend_action)
        other = _other_clip(self.blend_action, obj, "blend with")
        weight = [(0.0, self.blend_weight), (1.0, self.blend_weight_end)] if self.use_weight_ramp else self.blend_weight
        return blend.blend(clip, other, weight, self.blend_timing, self.blend_shorter, names)


class LOOPSMITH_OT_mirror(EditOperator, bpy.types.Operator):
    """Swap left and right as a new action (bone pairs found by name: .L/.R, _l/_r, Left/Right)"""

    bl_idname = "loopsmith.mirror"
    bl_label = "Mirror"

    def edited(self, context, obj, clip):
        return mirror.mirror(clip)


classes = (LOOPSMITH_OT_resample, LOOPSMITH_OT_retime, LOOPSMITH_OT_freeze_bone, LOOPSMITH_OT_splice, LOOPSMITH_OT_blend, LOOPSMITH_OT_mirror)
register, unregister = bpy.utils.register_classes_factory(classes)
