"""Find Loop: detect the best loop ranges of the active armature's action."""

import bpy
from bpy.props import BoolProperty, IntProperty

from .. import properties
from . import common

MARKER_NAMES = ("Loop Start", "Loop End")


def place_markers(scene, start, end):
    for marker in [m for m in scene.timeline_markers if m.name in MARKER_NAMES]:
        scene.timeline_markers.remove(marker)
    for name, frame in zip(MARKER_NAMES, (start, end)):
        scene.timeline_markers.new(name, frame=frame)


class LOOPSMITH_OT_find_loop(bpy.types.Operator):
    """Find the best loop ranges of the active armature's action and use the best one"""

    bl_idname = "loopsmith.find_loop"
    bl_label = "Find Loop"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **properties.find_loop_properties(),
        "use_search_range": BoolProperty(name="Search Range", description="Search only between the frames below, not the whole action"),
        "search_start": IntProperty(name="From", default=1),
        "search_end": IntProperty(name="To", default=250),
    }

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    @common.reports_errors
    def execute(self, context):
        settings = context.scene.loopsmith
        properties.copy_scene_settings(self, settings, properties.FIND_LOOP_NAMES)
        with common.progress(context, 2) as step:
            clip = common.read_action_clip(context)
            step()
            search = (self.search_start, self.search_end) if self.use_search_range else None
            detection = common.detect_loops(clip, self, search)
        obj = context.active_object
        settings.candidates.clear()
        settings.candidates_object, settings.candidates_action = obj, obj.animation_data.action
        for found in detection.candidates:
            item = settings.candidates.add()
            item.frame_start, item.frame_end, item.cycles = found.frame_start, found.frame_end, found.cycles
            item.score, item.grade, item.correlation = found.score, found.grade, found.correlation
        best = detection.best
        if best is None:
            settings.active_candidate = -1
            self.report({"WARNING"}, f"No repeating motion found in '{obj.animation_data.action.name}'")
            return {"FINISHED"}
        settings.active_candidate = 0
        settings.frame_start, settings.frame_end = best.frame_start, best.frame_end  # also for a switch to Manual
        settings.range_mode = "FOUND"  # Make Loop now uses the candidate chosen in the list
        if self.add_markers:
            place_markers(context.scene, best.frame_start, best.frame_end)
        cycles = f"{best.cycles} cycle{'s' if best.cycles != 1 else ''}"
        self.report({"INFO"}, f"Best loop {best.frame_start}-{best.frame_end} ({best.length} frames, {cycles}, {best.grade})")
        return {"FINISHED"}


classes = (LOOPSMITH_OT_find_loop,)
register, unregister = bpy.utils.register_classes_factory(classes)
