"""Writing a :class:`Clip` as a new action: one key per frame on each animated channel, with the source action's other
curves carried over (copied, resampled or stitched).

bpy side. Keys are written with ``add`` + ``foreach_set`` + ``update``; a
failed write removes the half-built action.
"""

from dataclasses import dataclass

import bpy
import numpy as np

from ..core.errors import ClipError
from ..core.loop import stitch
from ..core.motion import rotation_modes
from ..core.motion.clip import Clip
from . import action_api, cycles
from .action_curves import ActionCurves, channel_owner, channel_path, rotation_property

_CONSTANT_INTERPOLATION = 0  # the 'CONSTANT' item of a keyframe's interpolation, as foreach_get reads it


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
                    _source_value(source_curves, (channel_path(clip.bone_names[b], prop), axis), clip.frames[0], getattr(channel_owner(obj, clip.bone_names[b]), prop)[axis])
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


def write_clip(obj, clip: Clip, name: str, source_action=None, frame_range: bool = False, cyclic: bool = False, cycles_travel: str | None = None,
               source_frames: np.ndarray | None = None):
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
    return write_new_action(obj, clip, name, source_action, frame_range, cyclic, cycles_travel, source_frames=source_frames).action


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


def write_new_action(obj, clip: Clip, name: str, source_action, frame_range: bool, cyclic: bool, cycles_travel: str | None,
                     stitch_params: stitch.StitchParameters | None = None, source_frames: np.ndarray | None = None) -> WrittenLoop:
    """:func:`write_clip`; with ``stitch_params`` the source's other smooth curves are stitched into loops too.

    Returns a :class:`WrittenLoop` (stitched and stepped curves listed only with ``stitch_params``).
    """
    if obj.library is not None:
        raise ClipError(f"'{obj.name}' is linked from a library and cannot take a new action")
    clip.validate()
    source_curves = ActionCurves(source_action, obj) if source_action is not None else None
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
