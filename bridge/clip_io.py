"""The clip <-> action I/O that operators, command-line jobs and tests use: one import for the names of the modules below.

bpy side. The work is done by job: :mod:`.action_curves` (channel paths, whether
an action can play on an armature, curves sampled in bulk), :mod:`.read_action`
(an action into a Clip), :mod:`.write_action` (a Clip into a new action),
:mod:`.write_policy` (how loops and edits are written and replace their source)
and :mod:`.timeline` (the scene's frame rate). Modules of the bridge import those directly.
"""

from .action_curves import (OBJECT_CHANNELS, ActionMismatch, action_problem, bone_path, channel_path, check_playable,
                            require_action, rotation_property)
from .read_action import bones_parents_first, read_clip, resolve_range
from .timeline import scene_fps, set_scene_fps
from .write_action import WrittenLoop, write_clip
from .write_policy import LoopPlayback, loop_playback, read_edit_source, replace_action, require_replaceable, write_edit, write_loop

__all__ = [
    "OBJECT_CHANNELS", "ActionMismatch", "LoopPlayback", "WrittenLoop", "action_problem", "bone_path", "bones_parents_first",
    "channel_path", "check_playable", "loop_playback", "read_clip", "read_edit_source", "replace_action", "require_action",
    "require_replaceable", "resolve_range", "rotation_property", "scene_fps", "set_scene_fps", "write_clip", "write_edit", "write_loop",
]
