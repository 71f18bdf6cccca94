"""Reading an armature's action into a :class:`Clip`.

bpy side. Keys are read in bulk (see :class:`.action_curves.ActionCurves`);
nothing in the scene or the action is modified.
"""

import bpy
import numpy as np

from ..core.errors import ClipError
from ..core.motion import quat, rotation_modes
from ..core.motion.clip import Clip
from .action_curves import (FRAME_TOLERANCE, OBJECT_CHANNELS, ActionCurves, channel_owner, channel_path, check_playable, require_action,
                            rotation_property)
from .timeline import scene_fps


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


def resolve_range(action, frame_start: float | None = None, frame_end: float | None = None, pose: bool = False) -> tuple[int, int]:
    """Integer frame range, defaulting to the action's own frame range; under two frames a ClipError, unless ``pose``
    (a one-frame range is then a held pose, as a file written or converted may be)."""
    default_start, default_end = action.frame_range
    # The action's own range may fall between frames (keys resampled on import): round inwards,
    # but a range within a hundredth of a frame (FBX key times) is that frame.
    start = int(np.ceil(default_start - FRAME_TOLERANCE)) if frame_start is None else int(round(frame_start))
    end = int(np.floor(default_end + FRAME_TOLERANCE)) if frame_end is None else int(round(frame_end))
    if end < start + (0 if pose else 1):
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


def read_clip(obj, frame_start: float | None = None, frame_end: float | None = None, fps: float | None = None, action=None,
              pose: bool = False) -> Clip:
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
    NaN or infinite values); nothing is modified. pose: a one-frame range is read as a one-frame clip.
    """
    own = require_action(obj)
    if not obj.data.bones:
        raise ClipError(f"armature '{obj.name}' has no bones")
    action = own if action is None else action
    check_playable(action, obj)
    start, end = resolve_range(action, frame_start, frame_end, pose)
    curves = ActionCurves(action, obj)
    key_first, key_last = curves.key_extent()
    if start < key_first - FRAME_TOLERANCE or end > key_last + FRAME_TOLERANCE:
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
    owners = [channel_owner(obj, name) for name in names]
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
