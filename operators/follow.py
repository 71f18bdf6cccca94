"""Follow Path in Blender: the armature walks, with motion from the file's motion graph, along a curve object."""

import dataclasses

import bpy
import numpy as np

from ..bridge import clip_io
from ..core.errors import ClipError
from ..core.graph import follow
from . import common
from .graph import graph_and_clips


def _curve(context):
    """The selected curve object beside the active armature, or None."""
    return next((obj for obj in context.selected_objects if obj.type == "CURVE" and obj is not context.active_object), None)


def in_metres(clip, scale):
    """``clip`` with its lengths (rest and location) times ``scale``: Blender units to metres at the scene's unit scale, or back
    with its inverse."""
    rest = clip.rest.copy()
    rest[:, :3, 3] *= scale
    return dataclasses.replace(clip, rest=rest, location=clip.location * scale)


def curve_points(curve, armature, depsgraph):
    """The curve's evaluated points ``(P, 3)`` (Bezier, NURBS or poly, its modifiers and world transform applied) in the
    armature's space (the space its action moves in), Blender units; ClipError for a curve with no points."""
    evaluated = curve.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        points = np.empty(3 * len(mesh.vertices))
        mesh.vertices.foreach_get("co", points)
    finally:
        evaluated.to_mesh_clear()
    if not len(points):
        raise ClipError(f"the curve '{curve.name}' has no points to follow")
    points = points.reshape(-1, 3)
    to_armature = np.array(armature.matrix_world.inverted()) @ np.array(curve.matrix_world)
    return points @ to_armature[:3, :3].T + to_armature[:3, 3]


class LOOPSMITH_OT_follow_path(bpy.types.Operator):
    """Walk the armature along the selected curve with motion from the motion graph, as a new action: its feet stay planted"""

    bl_idname = "loopsmith.follow_path"
    bl_label = "Follow Path"
    bl_options = {"REGISTER", "UNDO"}
    __annotations__ = {
        "follow_speed": bpy.props.FloatProperty(name="Speed", description="Travel speed along the curve (0: the median travelling "
                                                "clip's); one the clips cannot reach is refused with the range they can",
                                                default=0.0, min=0.0, soft_max=4.0, unit="VELOCITY"),
        "follow_clips": bpy.props.StringProperty(name="Clips", description="Use only the graph's actions whose names hold one of "
                                                 "these words, comma separated (empty: every action)", default=""),
        "follow_name": bpy.props.StringProperty(name="Action", description="The new action's name", default="follow"),
        "follow_end": bpy.props.EnumProperty(name="End", description="How the walk ends at the curve's end", default="STAND", items=[
            ("STAND", "Stand", "In a standing pose where the graph's actions have one (an action that stands, or stops), on the "
                               "curve's end"),
            ("WALK", "Keep Walking", "Walking on to the curve's end")]),
        "follow_horizon": bpy.props.FloatProperty(name="Search Ahead", description="Seconds each step of the walk is judged ahead "
                                                  "against the curve: the search's effort", default=follow.HORIZON_SECONDS,
                                                  min=follow.HORIZON_RANGE[0], max=follow.HORIZON_RANGE[1], unit="TIME_ABSOLUTE"),
    }

    @classmethod
    def poll(cls, context):
        if not common.poll_armature(cls, context):
            return False
        if _curve(context) is None:
            cls.poll_message_set("Select a curve object too, the armature active")
            return False
        return True

    @common.reports_errors
    def execute(self, context):
        obj, curve = context.active_object, _curve(context)
        words = [word.strip() for word in self.follow_clips.split(",") if word.strip()]
        # The core works in metres: the curve, the actions' lengths and the speed (Blender units per second) are scaled by the
        # scene's unit scale (metres per Blender unit), the new action scaled back.
        scale = context.scene.unit_settings.scale_length or 1.0
        with common.progress(context, 2) as step:
            graph, clips = graph_and_clips(obj)
            points = curve_points(curve, obj, context.evaluated_depsgraph_get()) * scale
            step()
            followed = follow.follow(graph, [in_metres(clip, scale) for clip in clips], points, speed=self.follow_speed * scale or None,
                                     words=words, horizon=self.follow_horizon, end=self.follow_end.lower())
            common.keep_action(obj)
            written = clip_io.write_clip(obj, in_metres(followed.composition.clip, 1.0 / scale), self.follow_name or "follow",
                                         frame_range=True)
        numbers = followed.numbers
        level, line = common.composition_report(followed.composition, f"Followed '{curve.name}' ({numbers['path_length_m']:.2f} m) "
                                                                      f"into '{written.name}': the root {numbers['deviation_mean_m'] * 100:.1f} cm "
                                                                      f"off it on average, {numbers['deviation_max_m'] * 100:.1f} cm at most")
        self.report({"WARNING"} if followed.notes else level, "; ".join([line, *followed.notes]))
        return {"FINISHED"}


classes = (LOOPSMITH_OT_follow_path,)
register, unregister = bpy.utils.register_classes_factory(classes)
