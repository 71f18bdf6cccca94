"""The one place that knows how Blender's action API differs between versions.

- 4.2 / 4.3: F-curves live on ``action.fcurves`` and groups on ``action.groups``.
- 4.4 / 4.5: slotted (layered) actions; curves live in a channelbag per slot
  (``layer -> strip -> channelbag``), which ``fcurves.new`` cannot group yet.
- 5.0: ``action.fcurves`` is gone; channelbag ``fcurves.new`` takes ``group_name``.

Everything else in Loopsmith goes through these functions.
"""

import bpy

HAS_SLOTS = bpy.app.version >= (4, 4, 0)
FCURVES_NEW_TAKES_GROUP = bpy.app.version >= (5, 0, 0)


def _assigned_slot(obj, action):
    """The slot ``obj`` plays ``action`` on; for an action it does not play, the first object slot with curves."""
    anim = obj.animation_data
    if anim is not None and anim.action == action and anim.action_slot is not None:
        return anim.action_slot
    from bpy_extras.anim_utils import action_get_channelbag_for_slot

    slots = [slot for slot in action.slots if slot.target_id_type == "OBJECT"]
    for slot in slots:  # another armature's action: its slot has the keys, an empty one would read as no keys
        channelbag = action_get_channelbag_for_slot(action, slot)
        if channelbag is not None and len(channelbag.fcurves):
            return slot
    return slots[0] if slots else None


def fcurves_of(action, obj):
    """The F-curves that animate ``obj`` in ``action`` (an empty tuple if none)."""
    if not HAS_SLOTS:
        return tuple(action.fcurves)
    from bpy_extras.anim_utils import action_get_channelbag_for_slot

    slot = _assigned_slot(obj, action)
    channelbag = action_get_channelbag_for_slot(action, slot) if slot is not None else None
    return tuple(channelbag.fcurves) if channelbag is not None else ()


class CurveSink:
    """Creates grouped F-curves in a new action for one object."""

    def __init__(self, action, obj):
        self.action = action
        self.slot = None
        self._container = action
        if HAS_SLOTS:
            self.slot = action.slots.new(id_type="OBJECT", name=obj.name)
            strip = action.layers.new("Layer").strips.new(type="KEYFRAME")
            self._container = strip.channelbags.new(self.slot)
        self._groups = {}

    def new_fcurve(self, data_path, index, group_name=None):
        """A new, empty F-curve for ``data_path[index]`` in the group ``group_name``."""
        curves = self._container.fcurves
        if not HAS_SLOTS:
            return curves.new(data_path, index=index, action_group=group_name or "")
        if FCURVES_NEW_TAKES_GROUP or not group_name:
            return curves.new(data_path, index=index, group_name=group_name or "") if group_name else curves.new(data_path, index=index)
        fcurve = curves.new(data_path, index=index)
        group = self._groups.get(group_name)
        if group is None:
            group = self._groups[group_name] = self._container.groups.new(group_name)
        fcurve.group = group
        return fcurve


def assign_action(obj, action, slot=None):
    """Make ``action`` the object's active action, on ``slot`` where slots exist."""
    anim = obj.animation_data or obj.animation_data_create()
    anim.action = action
    if HAS_SLOTS:
        anim.action_slot = slot if slot is not None else _assigned_slot(obj, action)


def assigned_slot(obj):
    """The object's assigned action slot, or None (always None before 4.4)."""
    anim = obj.animation_data
    return anim.action_slot if HAS_SLOTS and anim is not None else None
