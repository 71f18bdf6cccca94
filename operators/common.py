"""What every Loopsmith operator shares: poll reasons, progress, error reports."""

import dataclasses
import functools
import traceback
from collections.abc import Callable
from contextlib import contextmanager

import bpy

from ..bridge import clip_io
from ..core.errors import ClipError, LoopsmithError
from ..core.loop import detect
from ..core.measure import verdict


def reports_errors(execute: Callable) -> Callable:
    """Wrap an operator's ``execute(self, context)``: a :class:`LoopsmithError` becomes an ERROR report (its message as it
    is) and the run is cancelled; any other exception, a bug, is an ERROR report too that asks for it to be reported,
    its traceback printed to the console: no exception escapes an operator."""

    @functools.wraps(execute)
    def execute_or_report(self, context):
        try:
            return execute(self, context)
        except LoopsmithError as error:
            self.report({"ERROR"}, str(error))
        except Exception as error:  # noqa: BLE001  (a bug: reported in one line, its traceback on the console)
            traceback.print_exc()
            self.report({"ERROR"}, f"internal error, please report it (the traceback is on the console): {type(error).__name__}: {error}")
        return {"CANCELLED"}

    return execute_or_report


def armature_problem(context):
    """Why the operators cannot run on the active object, or None when they can."""
    obj = context.active_object
    if obj is None:
        return "Select an armature with an action"
    if obj.type != "ARMATURE":
        return f"'{obj.name}' is not an armature"
    if obj.mode == "EDIT":
        return f"Armature '{obj.name}' is in Edit Mode: switch to Object or Pose Mode"
    if obj.animation_data is None or obj.animation_data.action is None:
        return f"Armature '{obj.name}' has no action"
    if not obj.data.bones:
        return f"Armature '{obj.name}' has no bones"
    if obj.library is not None:
        return f"'{obj.name}' is linked from a library"
    action = obj.animation_data.action
    problem = clip_io.action_problem(action, obj)  # before its length: an action without keys has no length to speak of
    if problem:
        return problem
    start, end = action.frame_range
    if end - start < 3:
        return f"Action '{action.name}' is shorter than 4 frames"
    return None


def matching_action(name, obj, missing):
    """The action called ``name``; ClipError (``missing`` when no name is given) if there is none or ``obj`` cannot play it
    (:class:`~..bridge.clip_io.ActionMismatch`)."""
    if not name:
        raise ClipError(missing)
    action = bpy.data.actions.get(name)
    if action is None:
        raise ClipError(f"there is no action named '{name}'")
    clip_io.check_playable(action, obj)
    return action


def action_clip(obj, action):
    """The clip of ``action`` for ``obj``: read on the armature in the file that plays it (its own rest, which the core
    re-expresses on ``obj``'s exactly), else as it would play on ``obj``."""
    owner = next((other for other in bpy.data.objects if other is not obj and other.type == "ARMATURE"
                  and other.animation_data is not None and other.animation_data.action == action), obj)
    return clip_io.read_clip(owner, action=action)


def keep_action(obj):
    """Give the armature's current action a fake user before an operator puts another in its place: it stays in the file."""
    action = obj.animation_data.action if obj.animation_data else None
    if action is not None:
        action.use_fake_user = True


def poll_armature(operator_class, context):
    problem = armature_problem(context)
    if problem:
        operator_class.poll_message_set(problem)
        return False
    return True


def split_layout(layout):
    """``layout`` with labels beside their values and no animate buttons: how every redo panel and file browser side panel
    of Loopsmith is drawn."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    return layout


@contextmanager
def progress(context, steps):
    """Show progress in the window manager; always ends it, even on an error."""
    wm = context.window_manager
    wm.progress_begin(0, steps)
    done = 0

    def step():
        nonlocal done
        done += 1
        wm.progress_update(done)

    try:
        yield step
    finally:
        wm.progress_end()


def read_action_clip(context):
    """The active armature's whole action as a clip (ClipError on bad input)."""
    return clip_io.read_clip(context.active_object)


def detect_loops(clip, props, frame_range=None):
    """Run detection with the Find Loop parameters of ``props``."""
    start, end = frame_range or (None, None)
    return detect.find_loops(clip, props.min_length, props.max_length, props.cycles, props.skip_edges, start, end)


def composition_report(composed, what):
    """(the report level, one line) for a made composition or synthesis: its verdict (the command line's, from the same
    thresholds) and why, INFO when GOOD, else WARNING."""
    worst = max((t.metrics.visibility for t in composed.transitions), default=0.0)
    judged = verdict.of_composition([dataclasses.asdict(t.metrics) for t in composed.transitions], composed.numbers.get("seam_visibility"),
                                    composed.numbers.get("floor_offset_m", 0.0), composed.numbers.get("pelvis_offset_m", 0.0))
    line = f"{what}: {judged.word}, worst junction visibility {worst:.2f}" + "".join(f"; {reason}" for reason in judged.reasons)
    return ({"INFO"} if judged.word == verdict.GOOD else {"WARNING"}), line
