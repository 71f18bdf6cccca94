"""Make Blender play a written loop as a cycle: Cycles F-modifiers on its curves."""

from . import action_api
from .clip_io import bone_path


def add_cycle_modifiers(obj, action, travel_bone=None):
    """A Cycles modifier on every curve of ``action`` that animates ``obj``.

    The travel bone's location curves repeat with offset, so the character
    keeps moving forward cycle after cycle; every other curve repeats.
    """
    travel_path = bone_path(travel_bone, "location") if travel_bone else None
    for fcurve in action_api.fcurves_of(action, obj):
        modifier = next((m for m in fcurve.modifiers if m.type == "CYCLES"), None) or fcurve.modifiers.new("CYCLES")
        mode = "REPEAT_OFFSET" if fcurve.data_path == travel_path else "REPEAT"
        # Each change re-evaluates the curve's handles: set only what differs.
        if modifier.mode_before != mode:
            modifier.mode_before = mode
        if modifier.mode_after != mode:
            modifier.mode_after = mode
