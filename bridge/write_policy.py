"""How loops and edits are written as actions: their names, looping playback (cyclic, Cycles modifiers, a WRAP loop's
range), and replacing the source action without losing its users.

bpy side.
"""

from dataclasses import dataclass

import bpy

from ..core.errors import ClipError, LoopError
from ..core.loop import make as loop, stitch
from ..core.motion.clip import Clip
from .action_curves import FRAME_TOLERANCE, OBJECT_CHANNELS, ActionCurves, channel_path, require_action
from .read_action import read_clip
from .write_action import WrittenLoop, write_clip, write_new_action


@dataclass
class LoopPlayback:
    """How an action plays as a loop: ``cyclic`` (marked cyclic, as Make Loop's are); ``travel``: the clip bone whose
    location repeats with offset, or None; ``wrap``: a WRAP loop, whose closing key lies one frame past its range."""

    cyclic: bool = False
    travel: str = None
    wrap: bool = False


def loop_playback(action, obj) -> LoopPlayback:
    """The :class:`LoopPlayback` of ``action`` on ``obj``: an edit of a loop that stays a loop is written the same way."""
    if not action.use_cyclic:
        return LoopPlayback()
    curves = ActionCurves(action, obj)
    offset = {path for (path, _), fcurve in curves.curves.items()
              if any(m.type == "CYCLES" and m.mode_after == "REPEAT_OFFSET" for m in fcurve.modifiers)}
    names = [OBJECT_CHANNELS, *(bone.name for bone in obj.pose.bones)]
    travel = next((name for name in names if channel_path(name, "location") in offset), None)
    last_key = max(fcurve.keyframe_points[-1].co[0] for fcurve in curves.curves.values())
    return LoopPlayback(True, travel, last_key >= action.frame_end + 1 - FRAME_TOLERANCE)


def read_edit_source(obj) -> tuple[Clip, LoopPlayback]:
    """The active action's clip as an edit reads it, and its :class:`LoopPlayback`.

    A WRAP loop is read with its closing key, so the edit keeps the cycle's
    length (frames + 1 keys, the last repeating the first).
    """
    action = require_action(obj)
    playback = loop_playback(action, obj)
    end = int(round(action.frame_end)) + 1 if playback.wrap else None
    return read_clip(obj, frame_end=end), playback


def write_edit(obj, edited, source, first_frame, playback=None):
    """Write an edit (a :class:`~..core.measure.edit.EditResult` of ``source``'s clip, whose first frame is ``first_frame``) as a new action.

    Named ``<source>_<edit>``, frame range set; the source's other curves follow
    the edit's timing. playback: the source's :class:`LoopPlayback` (from
    :func:`read_edit_source`); a looping source whose edit keeps it a loop
    gives a looping action (cyclic, Cycles modifiers, the travel repeating
    with offset, a WRAP loop's range ending before its closing key). Returns the action.
    """
    playback = playback if playback is not None and edited.keeps_loop else LoopPlayback()
    times = None if edited.source_times is None else first_frame + edited.source_times
    action = write_clip(obj, edited.clip, f"{source.name}_{edited.edit}", source_action=source, frame_range=True, cyclic=playback.cyclic,
                        cycles_travel=playback.travel, source_frames=times)
    if playback.wrap:
        action.frame_end = edited.clip.frames[-1] - 1
    return action


def require_replaceable(action):
    """ClipError if ``action`` cannot be replaced (it is linked from a library)."""
    if action.library is not None:
        raise ClipError(f"action '{action.name}' is linked from a library and cannot be replaced")


def replace_action(source, action):
    """Put ``action`` everywhere ``source`` is used, under its name; ``source`` is removed."""
    require_replaceable(source)
    name = source.name
    source.user_remap(action)
    bpy.data.actions.remove(source)
    action.name = name
    return action


def write_loop(obj, result, source, params: stitch.StitchParameters | None = None, loop_mode: str = "CLAMP") -> WrittenLoop:
    """The loop as a new cyclic action ``<source>_loop`` assigned to ``obj``; returns a :class:`WrittenLoop`.

    result: a CLAMP :class:`~..core.loop.LoopResult` of n + 1 frames, the
    last closing the cycle. Every curve gets a Cycles modifier, which repeats
    a curve over its first to last key, so that closing key is what makes
    Blender's period the loop's n frames (root travel repeats with offset).
    params: the :class:`~..core.stitch.StitchParameters` the loop was made
    with (default, or AUTO: the result's, with the method make_loop kept);
    the source's other smooth curves (object or bone custom properties...)
    are sampled on the loop's frames and stitched with them, stepped ones
    repeat as keyed. loop_mode WRAP writes the same
    keys but ends the action's frame range on frame n - 1: the n distinct
    frames an engine that wraps last to first exports, and a range that plays
    seamlessly on Blender's timeline.
    """
    if result.clip_mode != "CLAMP":
        raise LoopError("write_loop needs the CLAMP loop, whose last frame closes the cycle: make it in CLAMP and pass loop_mode='WRAP' here")
    if loop_mode not in loop.LOOP_MODES:
        raise LoopError(f"unknown loop mode '{loop_mode}'")
    clip = result.clip
    travel = clip.bone_names[result.root] if result.root_mode == "TRAVEL" else None
    if params is None or params.method == "AUTO":
        params = result.params or stitch.StitchParameters(method="CUBIC")
    written = write_new_action(obj, clip, f"{source.name}_loop", source, True, True, travel, params)
    if loop_mode == "WRAP":
        written.action.frame_end = clip.frames[-1] - 1
    return written
