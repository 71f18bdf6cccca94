"""Compose: the Sequence list's actions strung into one new action, each continuing where the last ended.

The list lives in the scene settings (``scene.loopsmith.sequence``); the
operators here add, remove and reorder its entries, preview a junction's
candidate points, and compose the whole list onto the active armature.
"""

import bpy
from bpy.props import EnumProperty

from .. import properties
from ..bridge import clip_io
from ..core.compose import sequence
from ..core.errors import ClipError
from ..ui.layout import draw_compose
from . import common


def _entry_piece(obj, entry, number):
    """A Sequence entry as the core's piece: its action (see :func:`.common.action_clip`), its range and heading (radians; the
    first entry keeps its own), ``number`` its 1-based place (for messages)."""
    if entry.action is None:
        raise ClipError(f"Sequence entry {number} has no action: choose one or remove the entry")
    clip = common.action_clip(obj, common.matching_action(entry.action.name, obj, ""))
    first, last = (entry.frame_start, entry.frame_end) if entry.use_range else (None, None)
    return sequence.Piece(clip, first, last, name=entry.action.name, heading=entry.heading if number > 1 else 0.0)


def _next_entry(count, index, loop):
    """The index of the entry ``index`` (of ``count``) hands over to: the next, or with loop the first after the last; else None."""
    if index + 1 < count:
        return index + 1
    return 0 if loop else None


def pieces_and_junctions(obj, settings, loop):
    """The core's pieces and junctions for the Sequence list as it plays on ``obj``."""
    entries = list(settings.sequence)
    minimum = 1 if loop else 2
    if len(entries) < minimum:
        raise ClipError(f"add at least {minimum} actions to the Sequence list (+)")
    pieces = [_entry_piece(obj, entry, number) for number, entry in enumerate(entries, start=1)]
    junctions = [sequence.Junction((entry.junction_frame_a, entry.junction_frame_b) if entry.junction_point == "MANUAL" else "auto",
                                   entry.junction_method, None if entry.junction_auto_length else entry.junction_length)
                 for entry in entries[:sequence.junction_count(len(entries), loop)]]
    return pieces, junctions


def lay_out_strips(obj, action, composed):
    """An NLA track on ``obj`` playing ``action`` one strip per segment, so the animator can move and edit them; returns the track."""
    anim = obj.animation_data
    track = anim.nla_tracks.new()
    track.name = action.name
    first_frame = int(composed.clip.frames[0])
    for segment in composed.segments:
        start = first_frame + segment.out_first
        strip = track.strips.new(f"{segment.name} {segment.source_first}-{segment.source_last}", start, action)
        strip.action_frame_start, strip.action_frame_end = start, first_frame + segment.out_last  # the strip ends with them
    return track


def chosen_entry(settings):
    """The index of the Sequence entry chosen in the list; ClipError when the list is empty or none is chosen."""
    if not len(settings.sequence):
        raise ClipError("the Sequence list is empty: add actions to it first (+)")
    index = settings.active_sequence_entry
    if not 0 <= index < len(settings.sequence):
        raise ClipError("choose an entry of the Sequence list first")
    return index


def forget_junction_points(settings):
    """Empty the junction list: the entries it was found between have moved."""
    settings.junction_points.clear()
    settings.junction_points_entry = settings.active_junction_point = -1


class SequenceOperator:
    """What the Sequence operators share: undoable, and available with an armature that has an action."""

    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)


class LOOPSMITH_OT_sequence_add(SequenceOperator, bpy.types.Operator):
    """Add the active action to the end of the Sequence list"""

    bl_idname = "loopsmith.sequence_add"
    bl_label = "Add Action"

    @common.reports_errors
    def execute(self, context):
        settings = context.scene.loopsmith
        action = context.active_object.animation_data.action
        entry = settings.sequence.add()
        entry.action = action
        entry.frame_start, entry.frame_end = (int(frame) for frame in action.frame_range)
        settings.active_sequence_entry = len(settings.sequence) - 1
        return {"FINISHED"}


class LOOPSMITH_OT_sequence_remove(SequenceOperator, bpy.types.Operator):
    """Remove the chosen entry from the Sequence list"""

    bl_idname = "loopsmith.sequence_remove"
    bl_label = "Remove Entry"

    @common.reports_errors
    def execute(self, context):
        settings = context.scene.loopsmith
        index = chosen_entry(settings)
        settings.sequence.remove(index)
        settings.active_sequence_entry = min(index, len(settings.sequence) - 1)
        forget_junction_points(settings)
        return {"FINISHED"}


class LOOPSMITH_OT_sequence_move(SequenceOperator, bpy.types.Operator):
    """Move the chosen entry up or down the Sequence list"""

    bl_idname = "loopsmith.sequence_move"
    bl_label = "Move Entry"
    direction: EnumProperty(items=(("UP", "Up", "Play it earlier"), ("DOWN", "Down", "Play it later")))

    @common.reports_errors
    def execute(self, context):
        settings = context.scene.loopsmith
        index = chosen_entry(settings)
        target = index - 1 if self.direction == "UP" else index + 1
        if not 0 <= target < len(settings.sequence):
            self.report({"INFO"}, f"Entry {index + 1} is already {'first' if self.direction == 'UP' else 'last'} in the Sequence list")
            return {"CANCELLED"}
        settings.sequence.move(index, target)
        settings.active_sequence_entry = target
        forget_junction_points(settings)
        return {"FINISHED"}


class LOOPSMITH_OT_junction_candidates(SequenceOperator, bpy.types.Operator):
    """List the best points where the chosen entry can blend into the next one (the end of this, the start of the next)"""

    bl_idname = "loopsmith.junction_candidates"
    bl_label = "Preview Junction"

    @common.reports_errors
    def execute(self, context):
        settings, obj = context.scene.loopsmith, context.active_object
        index = settings.active_sequence_entry
        count = len(settings.sequence)
        following = _next_entry(count, index, settings.compose_loop) if 0 <= index < count else None
        if following is None:
            self.report({"ERROR"}, "choose an entry that has a next one in the Sequence list (or turn Loop on for the last)")
            return {"CANCELLED"}
        pieces = [_entry_piece(obj, settings.sequence[number], number + 1) for number in (index, following)]
        found = sequence.junction_candidates(pieces, 0, settings.compose_trim)
        settings.junction_points.clear()
        for candidate in found:
            item = settings.junction_points.add()
            item.frame_a, item.frame_b, item.cost = candidate.frame_a, candidate.frame_b, candidate.cost
            item.contact_match = bool(candidate.contact_match)
        settings.junction_points_entry, settings.active_junction_point = index, 0 if found else -1
        self.report({"INFO"}, f"{len(found)} candidate points from entry {index + 1} into entry {following + 1}: choose one and Use Point")
        return {"FINISHED"}


class LOOPSMITH_OT_junction_use_point(SequenceOperator, bpy.types.Operator):
    """Blend at the candidate point chosen in the junction list"""

    bl_idname = "loopsmith.junction_use_point"
    bl_label = "Use Point"

    @common.reports_errors
    def execute(self, context):
        settings = context.scene.loopsmith
        index, point = settings.junction_points_entry, settings.active_junction_point
        if not (0 <= index < len(settings.sequence) and 0 <= point < len(settings.junction_points)):
            self.report({"ERROR"}, "preview a junction and choose one of its points first")
            return {"CANCELLED"}
        entry, chosen = settings.sequence[index], settings.junction_points[point]
        entry.junction_point, entry.junction_frame_a, entry.junction_frame_b = "MANUAL", chosen.frame_a, chosen.frame_b
        return {"FINISHED"}


class LOOPSMITH_OT_compose(SequenceOperator, bpy.types.Operator):
    """String the Sequence list's actions into one new action, each continuing where the last ended (optionally looping)"""

    bl_idname = "loopsmith.compose"
    bl_label = "Compose"
    __annotations__ = properties.compose_properties()

    def draw(self, context):
        draw_compose(self.layout, self)

    @common.reports_errors
    def execute(self, context):
        settings, obj = context.scene.loopsmith, context.active_object
        properties.copy_scene_settings(self, settings, properties.COMPOSE_NAMES)
        if self.compose_nla and self.compose_loop:
            self.report({"ERROR"}, "NLA Strips lay the segments out once and do not loop: turn Loop or NLA Strips off")
            return {"CANCELLED"}
        with common.progress(context, 2) as step:
            pieces, junctions = pieces_and_junctions(obj, settings, self.compose_loop)
            step()
            composed = sequence.compose(pieces, junctions, loop=self.compose_loop, trim=self.compose_trim)
            common.keep_action(obj)
            written = clip_io.write_clip(obj, composed.clip, self.compose_name or "composition", source_action=settings.sequence[0].action,
                                         frame_range=True, cyclic=self.compose_loop, cycles_travel=composed.travel_bone)
        for entry in settings.sequence:
            entry.action.use_fake_user = True  # the originals stay in the file
        strips = ""
        if self.compose_nla:
            track = lay_out_strips(obj, written, composed)
            obj.animation_data.action = None  # the track plays it; an active action would play over it
            strips = f"; NLA track '{track.name}' plays it, one strip per segment"
        level, line = common.composition_report(composed, f"Composed {len(composed.segments)} segments into '{written.name}' "
                                                           f"({composed.clip.num_frames} frames{', looping' if composed.loop else ''})")
        self.report(level, line + strips)
        return {"FINISHED"}


classes = (LOOPSMITH_OT_sequence_add, LOOPSMITH_OT_sequence_remove, LOOPSMITH_OT_sequence_move, LOOPSMITH_OT_junction_candidates,
           LOOPSMITH_OT_junction_use_point, LOOPSMITH_OT_compose)
register, unregister = bpy.utils.register_classes_factory(classes)
