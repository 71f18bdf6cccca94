"""Make Transition: the active armature's action, a blend, then another action aligned to continue it."""

import dataclasses

import bpy

from .. import properties
from ..bridge import clip_io, images
from ..core.errors import TransitionError
from ..core.measure import verdict
from ..core.transition.make import make_transition
from ..ui.layout import draw_transition
from . import common


def found_point(settings, obj, target):
    """(source action, frame_a, frame_b) of the point chosen in the Transition list.

    The list's own source, so that picking another point after a run blends
    from the original again, not from the transition now playing.
    TransitionError if no point is chosen or the list is for another target.
    """
    point = properties.chosen_transition_point(settings)
    if point is None:
        raise TransitionError("no point chosen in the Transition list: run Make Transition with an automatic point first")
    stale = properties.stale_transition_points(settings, target)
    if stale:
        raise TransitionError(stale)
    clip_io.check_playable(settings.points_source, obj)
    return settings.points_source, point.frame_a, point.frame_b


def store_points(settings, transition, source, target):
    """Keep the ranked points of an automatic run, the chosen one active; a run at a given point keeps the list."""
    if not transition.candidates:
        return
    settings.transition_points.clear()
    settings.points_source, settings.points_target = source, target
    settings.active_transition_point = 0
    for index, found in enumerate(transition.candidates):
        item = settings.transition_points.add()
        item.frame_a, item.frame_b, item.cost = found.frame_a, found.frame_b, found.cost
        item.contact_match = bool(found.contact_match)
        if (found.frame_a, found.frame_b) == (transition.frame_a, transition.frame_b):
            settings.active_transition_point = index


def show_distance(settings, transition, name):
    """The transition's distance map as the image ``<name> distance``, kept in the scene settings."""
    pixels = images.distance_picture(transition.distance, transition.distance_frames, (transition.frame_a, transition.frame_b), transition.path)
    image = images.show_picture(f"{name} distance", pixels)
    if image.preview is not None:
        image.preview.reload()  # the panel's thumbnail of a refilled image
    image.preview_ensure()
    settings.distance_image = image


class LOOPSMITH_OT_make_transition(bpy.types.Operator):
    """Blend the active armature's action into another action, as a new action: the source, the blend, then the target aligned"""

    bl_idname = "loopsmith.make_transition"
    bl_label = "Make Transition"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = properties.transition_properties()

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def draw(self, context):
        draw_transition(self.layout, self)

    @common.reports_errors
    def execute(self, context):
        settings = context.scene.loopsmith
        properties.copy_scene_settings(self, settings, properties.TRANSITION_NAMES)
        obj = context.active_object
        source = obj.animation_data.action
        target = common.matching_action(self.target_action, obj, "choose the target action to blend into")
        if self.point_mode == "FOUND":
            # Pin the chosen point so the redo panel keeps it.
            source, self.frame_a, self.frame_b = found_point(settings, obj, target)
            self.point_mode = "MANUAL"
        with common.progress(context, 3) as step:
            clip_a = clip_io.read_clip(obj, action=source)
            clip_b = common.action_clip(obj, target)
            step()
            transition = make_transition(
                clip_a, clip_b, at=(self.frame_a, self.frame_b) if self.point_mode == "MANUAL" else "auto",
                method=self.transition_method, length=None if self.auto_length else self.blend_length,
                timewarp=self.use_timewarp, align=self.use_align, joints=self.joint_set.lower(),
                weights=self.joint_weights.lower(), lock_feet=self.transition_lock_feet)
            step()
            name = f"{source.name}_to_{target.name}"
            written = clip_io.write_clip(obj, transition.clip, name, source_action=source, frame_range=True)
            source.use_fake_user = True  # the original stays in the file
        store_points(settings, transition, source, target)
        settings.frame_a, settings.frame_b = transition.frame_a, transition.frame_b  # also for a switch to Manual
        show_distance(settings, transition, name)
        judged = verdict.of_transition(dataclasses.asdict(transition.metrics), transition.concerns())  # the command line's verdict
        self.report({"INFO"} if judged.word == verdict.GOOD else {"WARNING"},
                    f"Transition '{source.name}' frame {transition.frame_a} -> '{target.name}' frame {transition.frame_b} "
                    f"({transition.method.lower()}, {transition.length:.2f} s) into '{written.name}': {judged.word}"
                    f"{''.join(f'; {reason}' for reason in judged.reasons)}; {transition.metrics.summary()}")
        return {"FINISHED"}


classes = (LOOPSMITH_OT_make_transition,)
register, unregister = bpy.utils.register_classes_factory(classes)
