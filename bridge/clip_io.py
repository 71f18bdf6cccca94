"""Read an armature's action into a :class:`Clip`, and write a clip as a new action.

I/O is bulk: keys are read with ``foreach_get`` and written with ``add`` +
``foreach_set`` + ``update``. A curve keyed on every frame of the range is
taken as stored; only sparse or modified curves are evaluated per frame.
"""

import re
from dataclasses import dataclass

import bpy
import numpy as np

from ..core import loop, quat, rotation_modes, stitch
from ..core.clip import Clip, scene_rate
from ..core.errors import ClipError, LoopError
from . import action_api, cycles

_ROTATION_PROPERTY = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
_TRANSFORMS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle", "scale")
#: The clip's name for the armature object's own transform when its action animates it: a root
#: above every bone (identity rest), so travel on the object loops and is measured like a root bone's.
#: Also the group Blender files object transform curves under.
OBJECT_CHANNELS = "Object Transforms"
_BONE_PATH = re.compile(r'pose\.bones\["((?:[^"\\]+|\\.)*)"\]')
_UNESCAPE = re.compile(r"\\(.)")  # bpy.utils.escape_identifier's backslashes
_CONSTANT_INTERPOLATION = 0  # the 'CONSTANT' item of a keyframe's interpolation, as foreach_get reads it


def rotation_property(mode):
    """The pose-bone property a rotation mode animates."""
    return _ROTATION_PROPERTY.get(mode, "rotation_euler")


def bone_path(bone_name, prop):
    """F-curve data path of a pose-bone property."""
    return f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].{prop}'


def channel_path(name, prop):
    """F-curve data path of a clip bone's property (the object's own for :data:`OBJECT_CHANNELS`)."""
    return prop if name == OBJECT_CHANNELS else bone_path(name, prop)


def _channel_owner(obj, name):
    return obj if name == OBJECT_CHANNELS else obj.pose.bones[name]


def scene_fps(scene):
    """Frames per second of a scene (``fps / fps_base``)."""
    return scene.render.fps / scene.render.fps_base


def set_scene_fps(scene, fps):
    """Make the scene play ``fps`` frames per second: the nearest whole ``fps`` and an ``fps_base`` (29.97 is 30 / 1.001)."""
    scene.render.fps, scene.render.fps_base = scene_rate(fps)


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


def animated_bones(action, obj):
    """Names of the bones ``action`` has playing curves for, as it would animate ``obj`` (on its slot for ``obj``)."""
    return _bone_names(_playing_curves(action, obj))


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


class _ActionCurves:
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


def _read_property(curves, frames, names, prop, statics):
    """One property of each clip bone: values ``(F, B, n)`` and which of the ``(B, n)`` components are animated.

    statics ``(B, n)``: the pose's values, used where a component has no curve.
    """
    width = statics.shape[1]
    keys = [(channel_path(name, prop), axis) for name in names for axis in range(width)]
    values, present = curves.sample(keys, frames)
    out = np.empty((len(frames), len(keys)))
    out[:, present] = values[present].T
    out[:, ~present] = statics.reshape(-1)[~present]
    return out.reshape(len(frames), len(names), width), present.reshape(len(names), width)


_FRAME_TOLERANCE = 1e-2  # key times this close to a frame are on it (FBX stores times in its own ticks)


def resolve_range(action, frame_start=None, frame_end=None):
    """Integer frame range, defaulting to the action's own frame range."""
    default_start, default_end = action.frame_range
    # The action's own range may fall between frames (keys resampled on import): round inwards,
    # but a range within a hundredth of a frame (FBX key times) is that frame.
    start = int(np.ceil(default_start - _FRAME_TOLERANCE)) if frame_start is None else int(round(frame_start))
    end = int(np.floor(default_end + _FRAME_TOLERANCE)) if frame_end is None else int(round(frame_end))
    if end <= start:
        raise ClipError(f"frame range {start}-{end} has fewer than two frames")
    return start, end


def bones_parents_first(armature):
    """Bones of an armature data-block ordered so every parent precedes its children."""
    bones = list(armature.bones)
    depth = {}
    for bone in bones:  # each bone's depth from the nearest ancestor already known: linear, not bones squared
        chain = []
        while bone is not None and bone.name not in depth:
            chain.append(bone)
            bone = bone.parent
        known = depth[bone.name] if bone is not None else -1
        for offset, link in enumerate(reversed(chain), start=1):
            depth[link.name] = known + offset
    return sorted(bones, key=lambda bone: depth[bone.name])


def read_clip(obj, frame_start=None, frame_end=None, fps=None, action=None):
    """Read an armature object's action into a Clip over a frame range.

    frame_start, frame_end: inclusive integer frames; default the action's
    frame range (a WRAP loop's: its n distinct frames). fps: default the
    scene's. action: another action to read as it would play on ``obj``;
    default the object's own. When the action animates the object's own
    transform, the clip's first bone is :data:`OBJECT_CHANNELS` (the
    object, parent of the root bones), so the clip is what plays in world
    space. Raises ClipError on bad input (no armature, no bones, no action,
    an action ``obj`` cannot play (:class:`ActionMismatch`, see
    :func:`check_playable`), a range under two frames or outside the keys,
    NaN or infinite values); nothing is modified.
    """
    own = require_action(obj)
    if not obj.data.bones:
        raise ClipError(f"armature '{obj.name}' has no bones")
    action = own if action is None else action
    check_playable(action, obj)
    start, end = resolve_range(action, frame_start, frame_end)
    curves = _ActionCurves(action, obj)
    key_first, key_last = curves.key_extent()
    if start < key_first - _FRAME_TOLERANCE or end > key_last + _FRAME_TOLERANCE:
        raise ClipError(f"frames {start}-{end} lie outside the keys of '{action.name}' ({key_first:g}-{key_last:g})")

    frames = np.arange(start, end + 1, dtype=np.float32)
    bones = bones_parents_first(obj.data)
    names = tuple(bone.name for bone in bones)
    rest = np.array([np.array(bone.matrix_local) for bone in bones]).reshape(len(names), 4, 4)
    parents = np.array([names.index(bone.parent.name) if bone.parent else -1 for bone in bones])
    if curves.animates_object():
        if OBJECT_CHANNELS in names:
            raise ClipError(f"armature '{obj.name}' has a bone named '{OBJECT_CHANNELS}', the name Loopsmith reads the object's own motion as")
        names = (OBJECT_CHANNELS,) + names
        rest = np.concatenate([np.eye(4)[None], rest])
        parents = np.concatenate([[-1], np.where(parents >= 0, parents + 1, 0)])
    owners = [_channel_owner(obj, name) for name in names]
    count = len(names)
    modes = tuple(owner.rotation_mode for owner in owners)

    location, animated_location = _read_property(curves, frames, names, "location", np.array([o.location for o in owners]).reshape(count, 3))
    scale, animated_scale = _read_property(curves, frames, names, "scale", np.array([o.scale for o in owners]).reshape(count, 3))
    rotation = np.empty((len(frames), count, 4))
    animated_rotation = np.zeros(count, dtype=bool)
    for mode in set(modes):
        members = [b for b in range(count) if modes[b] == mode]
        prop = rotation_property(mode)
        statics = np.array([getattr(owners[b], prop) for b in members])
        components, animated = _read_property(curves, frames, [names[b] for b in members], prop, statics)
        rotation[:, members] = rotation_modes.to_quat(components, mode)
        animated_rotation[members] = animated.any(axis=1)

    return Clip(
        fps=float(fps if fps is not None else scene_fps(bpy.context.scene)),
        frames=frames.astype(float),
        bone_names=names,
        parents=parents,
        rest=rest,
        location=location,
        rotation=quat.unroll(rotation),
        scale=scale,
        rotation_modes=modes,
        animated_location=animated_location,
        animated_rotation=animated_rotation,
        animated_scale=animated_scale,
    ).validate()


def _source_value(curves, key, frame, fallback):
    fcurve = curves.curves.get(key) if curves else None
    return fallback if fcurve is None else fcurve.evaluate(frame)


def _rotation_components(obj, clip, source_curves):
    """Per-bone F-curve components ``[(F, n)]`` in each bone's own rotation mode."""
    per_bone = [None] * clip.num_bones
    for mode in set(clip.rotation_modes):
        members = [b for b, m in enumerate(clip.rotation_modes) if m == mode]
        prop = rotation_property(mode)
        reference = None
        if mode != "AXIS_ANGLE":
            # Keep the source's winding (Euler) or sign (quaternion) on frame one.
            reference = np.array([
                [
                    _source_value(source_curves, (channel_path(clip.bone_names[b], prop), axis), clip.frames[0], getattr(_channel_owner(obj, clip.bone_names[b]), prop)[axis])
                    for axis in range(rotation_modes.COMPONENTS[mode])
                ]
                for b in members
            ])
        values = rotation_modes.from_quat(clip.rotation[:, members], mode, reference)
        for column, b in enumerate(members):
            per_bone[b] = values[:, column]
    return per_bone


def _channel_keys(clip):
    """(bone index, data path, index, property) of every animated channel of the clip."""
    for b, name in enumerate(clip.bone_names):
        for axis in np.flatnonzero(clip.animated_location[b]):
            yield b, channel_path(name, "location"), int(axis), "location"
        if clip.animated_rotation[b]:
            prop = rotation_property(clip.rotation_modes[b])
            for axis in range(rotation_modes.COMPONENTS[clip.rotation_modes[b]]):
                yield b, channel_path(name, prop), axis, prop
        for axis in np.flatnonzero(clip.animated_scale[b]):
            yield b, channel_path(name, "scale"), int(axis), "scale"


def _channel_curves(obj, clip, source_curves):
    """(data path, index, group, values) for every animated channel of the clip."""
    rotations = _rotation_components(obj, clip, source_curves)
    vectors = {"location": clip.location, "scale": clip.scale}
    for b, path, axis, prop in _channel_keys(clip):
        values = vectors[prop][:, b, axis] if prop in vectors else rotations[b][:, axis]
        yield path, axis, clip.bone_names[b], values


def _fill_keys(fcurve, co):
    points = fcurve.keyframe_points
    points.add(len(co) // 2)
    points.foreach_set("co", co)
    fcurve.update()


_KEY_FIELDS = (("co", 2, np.float32), ("handle_left", 2, np.float32), ("handle_right", 2, np.float32),
               ("interpolation", 1, np.int32), ("handle_left_type", 1, np.int32), ("handle_right_type", 1, np.int32))


def _copy_trimmed(source, target, start, end):
    """Copy a curve's keys inside [start, end], adding evaluated keys at the bounds."""
    count = len(source.keyframe_points)
    fields = {}
    for name, width, dtype in _KEY_FIELDS:
        buffer = np.empty(count * width, dtype=dtype)
        source.keyframe_points.foreach_get(name, buffer)
        fields[name] = buffer.reshape(count, width)
    key_frames = fields["co"][:, 0]
    inside = (key_frames >= start) & (key_frames <= end)
    bounds = [frame for frame in (start, end) if not np.any(key_frames == frame)]
    total = int(inside.sum()) + len(bounds)
    points = target.keyframe_points
    points.add(total)
    for name, width, dtype in _KEY_FIELDS:
        kept = fields[name][inside]
        if bounds:
            if name in ("co", "handle_left", "handle_right"):
                extra = np.array([[frame, source.evaluate(frame)] for frame in bounds], dtype=dtype)
            else:
                extra = np.repeat(fields[name][:1], len(bounds), axis=0)
            kept = np.concatenate([kept, extra])
        order = np.argsort(np.concatenate([key_frames[inside], bounds]), kind="stable")
        points.foreach_set(name, kept[order].ravel())
    target.extrapolation = source.extrapolation
    target.update()


def write_clip(obj, clip, name, source_action=None, frame_range=False, cyclic=False, cycles_travel=None, source_frames=None):
    """Write a clip to a new action assigned to ``obj``; returns the action.

    One key per frame on every channel the clip marks animated, rotations in
    each bone's own mode (Euler kept continuous). ``source_action``: the
    action the clip came from; its Euler winding and its other
    curves (custom properties, non-bone paths), trimmed to the clip's frames,
    are carried over. It is never modified. ``frame_range``: set the action's
    manual frame range to the clip; ``cyclic``: also mark it cyclic and give
    every curve a Cycles modifier, so the timeline plays it as a loop.
    ``cycles_travel``: a clip bone whose location repeats with offset (root travel).
    ``source_frames`` ``(F,)``: for an edit that changed time (resampled,
    retimed, blended), the source action's (fractional) frame each clip frame
    shows; its other curves are then sampled there, one key per frame,
    instead of copied. On any failure the half-built action is removed and nothing changes.
    """
    return _write_clip(obj, clip, name, source_action, frame_range, cyclic, cycles_travel, source_frames=source_frames).action


@dataclass
class WrittenLoop:
    """A loop written as an action, and what happened to the source's curves the clip does not hold."""

    action: object  # bpy.types.Action
    stitched_curves: tuple = ()  # (data path, index) of other curves (custom properties...) looped like the bones
    stepped_curves: tuple = ()  # constant-interpolation curves, repeated as keyed (a step cannot be blended)


def _is_stepped(fcurve):
    points = fcurve.keyframe_points
    interpolation = np.empty(len(points), dtype=np.int32)
    points.foreach_get("interpolation", interpolation)
    return bool(np.all(interpolation == _CONSTANT_INTERPOLATION))


def _stitch_scalars(values, dt, params):
    """Loop curves ``values (F, K)`` like any channel: each one a ``(F, 1, 1)`` vector."""
    x = values[:, :, None]
    looped = stitch.crossfade_vectors(x, dt, params) if params.method == "CROSSFADE" else stitch.stitch_vectors(x, dt, params)
    return looped[:, :, 0]


def _write_clip(obj, clip, name, source_action, frame_range, cyclic, cycles_travel, stitch_params=None, source_frames=None):
    """:func:`write_clip`; with ``stitch_params`` the source's other smooth curves are stitched into loops too.

    Returns a :class:`WrittenLoop` (stitched and stepped curves listed only with ``stitch_params``).
    """
    if obj.library is not None:
        raise ClipError(f"'{obj.name}' is linked from a library and cannot take a new action")
    clip.validate()
    source_curves = _ActionCurves(source_action, obj) if source_action is not None else None
    written = {(path, index) for _, path, index, _ in _channel_keys(clip)}
    others = {key: fc for key, fc in source_curves.curves.items() if key not in written} if source_curves else {}
    stitched = [key for key, fc in others.items() if not _is_stepped(fc)] if stitch_params is not None else []
    resampled = list(others) if source_frames is not None else []
    copied = [key for key in others if key not in stitched and key not in resampled]
    start, end = float(clip.frames[0]), float(clip.frames[-1])
    stitched_values = resampled_values = ()
    if stitched:
        values, _ = source_curves.sample(stitched, clip.frames)
        stitched_values = _stitch_scalars(values.T.astype(float), clip.dt, stitch_params).T
    if resampled:
        resampled_values, _ = source_curves.sample(resampled, np.asarray(source_frames, dtype=np.float32))
    action = bpy.data.actions.new(name)
    try:
        sink = action_api.CurveSink(action, obj)
        co = np.empty(2 * clip.num_frames, dtype=np.float32)
        co[0::2] = clip.frames
        travel_path = channel_path(cycles_travel, "location") if cycles_travel else None

        def new_curve(path, index, group):
            fcurve = sink.new_fcurve(path, index, group)
            if cyclic:
                cycles.add_cycles_modifier(fcurve, with_offset=path == travel_path)
            return fcurve

        def source_group(key):
            return others[key].group.name if others[key].group else None

        for path, index, group, values in _channel_curves(obj, clip, source_curves):
            co[1::2] = values
            _fill_keys(new_curve(path, index, group), co)
        for key, values in zip(stitched + resampled, [*stitched_values, *resampled_values]):
            co[1::2] = values
            _fill_keys(new_curve(key[0], key[1], source_group(key)), co)
        for key in copied:
            _copy_trimmed(others[key], new_curve(key[0], key[1], source_group(key)), start, end)
        if frame_range or cyclic:
            action.use_frame_range = True
            action.frame_start, action.frame_end = start, end
            action.use_cyclic = cyclic
        action_api.assign_action(obj, action, sink.slot)
    except Exception:
        bpy.data.actions.remove(action)
        raise
    return WrittenLoop(action, tuple(stitched), tuple(copied) if stitch_params is not None else ())


@dataclass
class LoopPlayback:
    """How an action plays as a loop: ``cyclic`` (marked cyclic, as Make Loop's are); ``travel``: the clip bone whose
    location repeats with offset, or None; ``wrap``: a WRAP loop, whose closing key lies one frame past its range."""

    cyclic: bool = False
    travel: str = None
    wrap: bool = False


def loop_playback(action, obj):
    """The :class:`LoopPlayback` of ``action`` on ``obj``: an edit of a loop that stays a loop is written the same way."""
    if not action.use_cyclic:
        return LoopPlayback()
    curves = _ActionCurves(action, obj)
    offset = {path for (path, _), fcurve in curves.curves.items()
              if any(m.type == "CYCLES" and m.mode_after == "REPEAT_OFFSET" for m in fcurve.modifiers)}
    names = [OBJECT_CHANNELS, *(bone.name for bone in obj.pose.bones)]
    travel = next((name for name in names if channel_path(name, "location") in offset), None)
    last_key = max(fcurve.keyframe_points[-1].co[0] for fcurve in curves.curves.values())
    return LoopPlayback(True, travel, last_key >= action.frame_end + 1 - _FRAME_TOLERANCE)


def read_edit_source(obj):
    """The active action's clip as an edit reads it, and its :class:`LoopPlayback`.

    A WRAP loop is read with its closing key, so the edit keeps the cycle's
    length (frames + 1 keys, the last repeating the first).
    """
    action = require_action(obj)
    playback = loop_playback(action, obj)
    end = int(round(action.frame_end)) + 1 if playback.wrap else None
    return read_clip(obj, frame_end=end), playback


def write_edit(obj, edited, source, first_frame, playback=None):
    """Write an edit (a :class:`~..core.edit.measure.EditResult` of ``source``'s clip, whose first frame is ``first_frame``) as a new action.

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


def write_loop(obj, result, source, params=None, loop_mode="CLAMP"):
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
    written = _write_clip(obj, clip, f"{source.name}_loop", source, True, True, travel, params)
    if loop_mode == "WRAP":
        written.action.frame_end = clip.frames[-1] - 1
    return written
