"""An action's F-curves as they play on an armature: the data path of each clip channel, whether an action can play on
the armature, and its curves sampled in bulk.

bpy side. Keys are read with ``foreach_get``; a curve keyed on every frame of
a range is taken as stored, only sparse or modified curves are evaluated per frame.
"""

import re

import bpy
import numpy as np

from ..core.errors import ClipError
from . import action_api

_ROTATION_PROPERTY = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
_TRANSFORMS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle", "scale")
#: The clip's name for the armature object's own transform when its action animates it: a root
#: above every bone (identity rest), so travel on the object loops and is measured like a root bone's.
#: Also the group Blender files object transform curves under.
OBJECT_CHANNELS = "Object Transforms"
_BONE_PATH = re.compile(r'pose\.bones\["((?:[^"\\]+|\\.)*)"\]')
_UNESCAPE = re.compile(r"\\(.)")  # bpy.utils.escape_identifier's backslashes
FRAME_TOLERANCE = 1e-2  # key times this close to a frame are on it (FBX stores times in its own ticks)


def rotation_property(mode):
    """The pose-bone property a rotation mode animates."""
    return _ROTATION_PROPERTY.get(mode, "rotation_euler")


def bone_path(bone_name, prop):
    """F-curve data path of a pose-bone property."""
    return f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].{prop}'


def channel_path(name, prop):
    """F-curve data path of a clip bone's property (the object's own for :data:`OBJECT_CHANNELS`)."""
    return prop if name == OBJECT_CHANNELS else bone_path(name, prop)


def channel_owner(obj, name):
    return obj if name == OBJECT_CHANNELS else obj.pose.bones[name]


def require_action(obj):
    """The armature object's action; ClipError if there is none."""
    if obj is None:
        raise ClipError("no active object: select an armature")
    if obj.type != "ARMATURE":
        raise ClipError(f"'{obj.name}' is not an armature")
    action = obj.animation_data.action if obj.animation_data else None
    if action is None:
        raise ClipError(f"armature '{obj.name}' has no action")
    return action


class ActionMismatch(ClipError):
    """An action an armature cannot play: no keyed curves for it, none for its bones, or curves for bones it lacks.

    ``missing``: the bones animated that the armature lacks (sorted);
    ``object_curves``: with no bone curves, whether it moves the object itself.
    """

    def __init__(self, action, armature, missing=(), object_curves=False, keyed=True):
        self.action, self.armature, self.missing = action, armature, tuple(missing)
        self.object_curves, self.keyed = object_curves, keyed
        super().__init__(self._reason())

    def _reason(self):
        if not self.keyed:
            return f"Action '{self.action}' has no keys for '{self.armature}'"
        if self.missing:
            named = ", ".join(repr(name) for name in self.missing[:5])
            more = f" and {len(self.missing) - 5} more" if len(self.missing) > 5 else ""
            return f"Action '{self.action}' animates bones '{self.armature}' does not have: {named}{more}"
        only = "only object curves" if self.object_curves else "only curves of other properties"
        return f"Action '{self.action}' animates no bones of '{self.armature}' ({only})"


def _playing_curves(action, obj):
    """The curves of ``action`` that play on ``obj``: unmuted, with keys."""
    return [fcurve for fcurve in action_api.fcurves_of(action, obj) if not fcurve.mute and len(fcurve.keyframe_points)]


def _bone_names(fcurves):
    # Each bone has several curves: match each path once (poll runs this on every redraw).
    matches = (_BONE_PATH.match(path) for path in {fcurve.data_path for fcurve in fcurves})
    escaped = {match.group(1) for match in matches if match}
    return {_UNESCAPE.sub(r"\1", name) if "\\" in name else name for name in escaped}


def check_playable(action, obj):
    """Raise :class:`ActionMismatch` unless ``action`` animates bones of the armature ``obj``, and only bones it has."""
    curves = _playing_curves(action, obj)
    if not curves:
        raise ActionMismatch(action.name, obj.name, keyed=False)
    bones = _bone_names(curves)
    missing = sorted(bones - set(obj.data.bones.keys()))
    if missing or not bones:
        raise ActionMismatch(action.name, obj.name, missing, object_curves=any(fc.data_path in _TRANSFORMS for fc in curves))


def action_problem(action, obj):
    """Why ``action`` cannot play on the armature ``obj`` (see :func:`check_playable`), or None when it can."""
    try:
        check_playable(action, obj)
    except ActionMismatch as error:
        return str(error)
    return None


def _has_active_modifiers(fcurve):
    return any(not modifier.mute for modifier in fcurve.modifiers)


class ActionCurves:
    """The object's unmuted, keyed curves in an action, by (data path, index)."""

    def __init__(self, action, obj):
        self.curves = {(fcurve.data_path, fcurve.array_index): fcurve for fcurve in _playing_curves(action, obj)}
        if not self.curves:
            raise ActionMismatch(action.name, obj.name, keyed=False)

    def animates_object(self):
        """Whether the action moves the object itself (not only its bones)."""
        return any(path in _TRANSFORMS for path, _ in self.curves)

    def key_extent(self):
        """First and last keyed frame over curves that do not repeat by modifiers."""
        bounded = [fc.keyframe_points for fc in self.curves.values() if not _has_active_modifiers(fc)]
        if not bounded:
            return -np.inf, np.inf
        return min(points[0].co[0] for points in bounded), max(points[-1].co[0] for points in bounded)

    def sample(self, keys, frames):
        """Values ``(len(keys), F)`` (float32) of curves at ``frames`` ``(F,)``, and a mask of the keys that have one.

        A curve keyed on exactly these frames is read as stored, with one
        ``foreach_get`` into its row; Blender evaluates the others (hand keys,
        modifiers). Rows of absent curves are zero.
        """
        count = len(frames)
        rows = np.zeros((len(keys), 2 * count), dtype=np.float32)  # interleaved frame, value as foreach_get writes them
        present = np.zeros(len(keys), dtype=bool)
        evaluate = np.zeros(len(keys), dtype=bool)
        for i, key in enumerate(keys):
            fcurve = self.curves.get(key)
            if fcurve is None:
                continue
            present[i] = True
            points = fcurve.keyframe_points
            if _has_active_modifiers(fcurve) or len(points) < count:
                evaluate[i] = True
            elif len(points) == count:
                points.foreach_get("co", rows[i])
            else:
                co = np.empty(2 * len(points), dtype=np.float32)
                points.foreach_get("co", co)
                first = int(np.searchsorted(co[0::2], frames[0]))
                stored = co[2 * first:2 * (first + count)]
                rows[i, :len(stored)] = stored
        evaluate |= present & np.any(rows[:, 0::2] != frames, axis=1)
        for i in np.flatnonzero(evaluate):
            fcurve = self.curves[keys[i]]
            rows[i, 1::2] = [fcurve.evaluate(frame) for frame in frames]
        values = rows[:, 1::2]
        finite = np.isfinite(values)
        if not finite.all():
            row, column = np.argwhere(~finite)[0]
            raise ClipError(f"curve {keys[row][0]}[{keys[row][1]}] has a NaN or infinite value at frame {frames[column]:g}")
        return values, present


def shift_keys(fcurve, frames) -> None:
    """Move every key of ``fcurve`` (and its handles) by ``frames``: one number, or one per key ``(K,)``."""
    points = fcurve.keyframe_points
    for prop in ("co", "handle_left", "handle_right"):
        values = np.empty(2 * len(points), dtype=np.float32)
        points.foreach_get(prop, values)
        values[0::2] += frames
        points.foreach_set(prop, values)
    fcurve.update()


def keys_on_whole_frames(obj) -> None:
    """Move the keys of ``obj``'s action that lie within :data:`FRAME_TOLERANCE` of a whole frame onto it: an importer
    times keys from single-precision seconds (a glTF's last key lands on frame 29.99997), which would lose that frame."""
    action = obj.animation_data.action if obj.animation_data else None
    for fcurve in action_api.fcurves_of(action, obj) if action is not None else ():
        keys = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
        fcurve.keyframe_points.foreach_get("co", keys)
        frames = keys[0::2].astype(np.float64)
        off = np.round(frames) - frames
        if np.any((off != 0.0) & (np.abs(off) < FRAME_TOLERANCE)):
            shift_keys(fcurve, np.where(np.abs(off) < FRAME_TOLERANCE, off, 0.0))
