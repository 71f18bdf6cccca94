"""Make Loop: a seamless, cyclic copy of a range of the active armature's action."""

import bpy

from .. import properties
from ..bridge import clip_io
from ..core.errors import LoopError, NoLoopFound
from ..core.loop import detect, make as loop, stitch
from ..core.measure import grounding, verdict
from ..ui.layout import draw_make_loop, draw_method_kept
from . import common


def found_range(settings, obj):
    """The range chosen in Find Loop's list; LoopError if there is none or it was found on another action."""
    candidate = properties.chosen_candidate(settings)
    if candidate is None:
        raise LoopError("no loop chosen in Find Loop's list: run Find Loop first")
    stale = properties.stale_candidates(settings, obj)
    if stale:
        raise LoopError(stale)
    return candidate.frame_start, candidate.frame_end


def loop_range(props, clip):
    """((start, end) frames Make Loop closes, from the range mode (FOUND is pinned to MANUAL before); the detection when it
    searched, else None)."""
    given = (props.frame_start, props.frame_end) if props.range_mode == "MANUAL" else None
    try:
        return detect.loop_range(clip, given, props.range_mode == "ACTION", props.min_length, props.max_length, props.cycles, props.skip_edges)
    except NoLoopFound as missing:
        if missing.needed:
            raise LoopError(f"found no repeating motion within Max Length {missing.max_length:g} s: it repeats every "
                            f"{missing.needed:.2f} s; raise Max Length or set the range by hand") from None
        raise LoopError("found no repeating motion to loop: set the range by hand") from None


def repeat_concerns(settings, obj, start, end, detection):
    """What the verdict says when the motion does not repeat at the range: Find Loop's correlation there, from this run's
    search or from the list's candidate of that range on this action (nothing for a range of no candidate)."""
    if detection is not None:
        return verdict.repeat_concerns(detection.best.correlation)
    listed = [c for c in settings.candidates if (c.frame_start, c.frame_end) == (start, end)]
    if not listed or properties.stale_candidates(settings, obj):
        return ()
    return verdict.repeat_concerns(listed[0].correlation)


def store_result(settings, result, written, start, end):
    stored = settings.result
    stored.valid = True
    stored.action = written.action.name
    stored.frame_start, stored.frame_end = start, end
    stored.root_mode = result.root_mode
    stored.root_bone = result.clip.bone_names[result.root] if result.root >= 0 else ""
    stored.visibility_before, stored.visibility_after = result.before.visibility, result.after.visibility
    stored.step_before, stored.step_after = result.before.max_position_step, result.after.max_position_step
    stored.jump_before, stored.jump_after = result.before.max_velocity_jump, result.after.max_velocity_jump
    stored.curves_stitched, stored.curves_stepped = len(written.stitched_curves), len(written.stepped_curves)
    stored.method = stitch.METHOD_INFO[result.method][0]
    stored.methods_tried = loop.methods_text(result)


def curves_note(written):
    """What the report says about curves the bones do not hold, or ''."""
    notes = []
    if written.stitched_curves:
        notes.append(f"{len(written.stitched_curves)} other curves looped")
    if written.stepped_curves:
        notes.append(f"{len(written.stepped_curves)} stepped curves repeat as keyed, not blended")
    return "; " + ", ".join(notes) if notes else ""


class LOOPSMITH_OT_make_loop(bpy.types.Operator):
    """Make a range of the active armature's action loop seamlessly, as a new cyclic action"""

    bl_idname = "loopsmith.make_loop"
    bl_label = "Make Loop"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    __annotations__ = {**properties.make_loop_properties(), **properties.find_loop_properties()}

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def draw(self, context):
        obj = context.active_object
        draw_make_loop(self.layout, self, obj.data if obj is not None and obj.type == "ARMATURE" else None)
        if self.method == "AUTO":  # what this run kept (its numbers are the scene's last result)
            draw_method_kept(self.layout, context.scene.loopsmith.result)

    @common.reports_errors
    def execute(self, context):
        settings = context.scene.loopsmith
        properties.copy_scene_settings(self, settings, properties.MAKE_LOOP_NAMES + properties.FIND_LOOP_NAMES)
        obj = context.active_object
        source = obj.animation_data.action
        if self.range_mode == "FOUND":
            # Pin the chosen range so the redo panel keeps it.
            self.frame_start, self.frame_end = found_range(settings, obj)
            self.range_mode = "MANUAL"
        if self.replace_action:
            clip_io.require_replaceable(source)  # before anything is written
        with common.progress(context, 3) as step:
            clip = common.read_action_clip(context)
            clip = grounding.grounded(clip) if self.ground else clip
            (start, end), detection = loop_range(self, clip)
            repeats = repeat_concerns(settings, obj, start, end, detection)  # before the loop's action replaces the one searched
            step()
            params = stitch.StitchParameters.from_settings(self)
            # Always closed (CLAMP): Blender's Cycles need the closing key; WRAP is the written frame range.
            result = loop.make_loop(clip, start, end, params, self.root_mode, self.root_bone, "CLAMP", self.root_blend, self.lock_feet)
            step()
            written = clip_io.write_loop(obj, result, source, result.params, self.loop_mode)  # AUTO resolved
            if self.replace_action:
                clip_io.replace_action(source, written.action)
                settings.candidates_action = None  # they were found on the replaced action
            else:
                source.use_fake_user = True  # the original stays in the file
        store_result(settings, result, written, start, end)
        before, after = result.before, result.after
        kept = f"best measured: {loop.methods_text(result)}" if result.tried else result.method.lower()
        judged = verdict.of_seam(after.visibility, after.velocity_jump_ratio, result.body.floor_offset, result.body.pelvis_offset,
                                 repeats + loop.concerns(result, clip), loop.largest_step_ratio(result), before.visibility)
        self.report({"INFO"} if judged.word == verdict.GOOD else {"WARNING"},
                    f"Loop {start}-{end} ({result.length} frames, {self.loop_mode.lower()}, root {result.root_mode.lower()}, {kept}) "
                    f"into '{written.action.name}': {judged.word}{''.join(f'; {reason}' for reason in judged.reasons)}; seam visibility "
                    f"{before.visibility:.1f} -> {after.visibility:.1f}, velocity jump {before.max_velocity_jump:.2f} -> "
                    f"{after.max_velocity_jump:.2f} m/s{curves_note(written)}")
        return {"FINISHED"}


classes = (LOOPSMITH_OT_make_loop,)
register, unregister = bpy.utils.register_classes_factory(classes)
