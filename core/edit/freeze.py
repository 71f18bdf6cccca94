"""Freeze joints: hold a bone's rotation (and optionally location) constant, the seed's "zombie arms".

Frames are the clip's frame numbers, times seconds. Inside the frozen range
the channels are exactly the held value; a blend of ``blend`` seconds on
either side (inside the clip) eases in and out with a quintic whose speed
and acceleration are zero at both ends, so the edit adds no jerk.
"""

import numpy as np

from ..errors import EditError
from ..measure.edit import acceleration_reference, EditResult, joint_positions, worst_frame
from ..motion import kinematics, quat
from ..motion.clip import Clip

#: Seconds of easing either side of a frozen range: bringing a swinging arm to rest faster than this shows (measured on the Bandai walks).
BLEND = 0.5


def _ease(u):
    """0 to 1 over ``u`` in [0, 1] with zero slope and curvature at both ends."""
    u = np.clip(u, 0.0, 1.0)
    return u**3 * (10.0 - 15.0 * u + 6.0 * u**2)


def _index(clip, frame, what):
    """0-based index of frame number ``frame``; EditError outside the clip."""
    index = int(round(frame - clip.frames[0]))
    if not 0 <= index < clip.num_frames or abs(frame - clip.frames[0] - index) > 1e-6:
        raise EditError(f"{what} {frame:g} is not a frame of the clip ({clip.frames[0]:g}-{clip.frames[-1]:g})")
    return index


def _seam_frames(count, first, last, blend_frames):
    """Frame indices where a hold of ``first..last`` eased over ``blend_frames`` meets the motion: each easing and a frame
    either side; none where the hold reaches the clip's end."""
    seams = [np.arange(first - blend_frames - 1, first + 2)] if first > 0 else []
    if last < count - 1:
        seams.append(np.arange(last - 1, last + blend_frames + 2))
    return np.concatenate(seams) if seams else np.array([], dtype=int)


def freeze_weights(count: int, first: int, last: int, blend_frames: float) -> np.ndarray:
    """Weight ``(count,)`` of the held value per frame: 1 from ``first`` to ``last`` (indices, inclusive), easing to 0 over ``blend_frames`` either side."""
    index = np.arange(count, dtype=float)
    before = (index - (first - blend_frames)) / blend_frames if blend_frames else (index >= first).astype(float)
    after = ((last + blend_frames) - index) / blend_frames if blend_frames else (index <= last).astype(float)
    weight = _ease(np.minimum(before, after))
    weight[first:last + 1] = 1.0
    return weight


def freeze(clip: Clip, bones: list[str], frame: int | None = None, rest: bool = False, frames: tuple[int, int] | None = None,
           blend: float = BLEND, location: bool = False) -> EditResult:
    """The clip with ``bones`` (names) held still; EditResult (edit ``freeze``).

    frame: the frame number whose value is held (default the frozen range's
    first); rest: hold the rest pose instead (no rotation, no offset).
    frames: ``(first, last)`` frame numbers, inclusive, frozen (default the
    whole clip, then there is no blend). blend: seconds of easing in before
    and out after the range. location: hold the bones' location too (a
    travelling root then stops travelling). numbers: ``bones``,
    ``frozen_frames``, ``blend_frames``; ``worst_frame``, the sharpest
    acceleration of the frozen bones' descendants at the seams the hold makes
    (its easing in and out and a frame either side; a hold of the whole clip
    makes none), and ``source_worst_frame``, theirs anywhere in the clip,
    both over the clip's own typical. Inside the hold the descendants move by
    their own channels alone, as asked: a jitter there that the frozen bone's
    motion hid is the take's, not a seam.
    EditError (or ClipError for unknown bones) on bad input.
    """
    if not bones:
        raise EditError("name at least one bone to freeze")
    if frame is not None and rest:
        raise EditError("freeze holds a frame's pose or the rest pose, not both")
    if not (np.isfinite(blend) and blend >= 0.0):
        raise EditError(f"the blend must be zero or more seconds, not {blend:g}")
    indices = sorted({clip.bone_index(name) for name in bones})
    first, last = (0, clip.num_frames - 1) if frames is None else (_index(clip, frames[0], "the range's first frame"),
                                                                     _index(clip, frames[1], "the range's last frame"))
    if last < first:
        raise EditError(f"the frozen range ends (frame {frames[1]:g}) before it starts (frame {frames[0]:g})")
    held = first if frame is None else _index(clip, frame, "the frame to hold")
    blend_frames = int(round(blend * clip.fps)) if frames is not None else 0
    weight = freeze_weights(clip.num_frames, first, last, blend_frames)

    rotation, location_channels = clip.rotation.copy(), clip.location.copy()
    target = quat.identity((len(indices),)) if rest else clip.rotation[held, indices]
    original = rotation[:, indices]
    eased = np.ix_(weight > 0.0, indices)  # frames outside the blend keep their exact values
    rotation[eased] = quat.slerp(original[weight > 0.0], target, weight[weight > 0.0, None])
    rotation[first:last + 1, indices] = target  # exactly the held value, not a slerp's rounding of it
    if location:
        still = np.zeros((len(indices), 3)) if rest else clip.location[held, indices]
        w = weight[weight > 0.0, None, None]
        location_channels[eased] = (1.0 - w) * clip.location[eased] + w * still
        location_channels[first:last + 1, indices] = still
    result = clip.with_channels(rotation=quat.unroll(rotation), location=location_channels)

    moved = np.flatnonzero(np.any([kinematics.descendants(clip.parents, bone) for bone in indices], axis=0))
    before, after = joint_positions(clip), joint_positions(result)
    reference = acceleration_reference(before, dt=clip.dt)
    numbers = {"bones": len(indices), "frozen_frames": last - first + 1, "blend_frames": blend_frames,
               "worst_frame": worst_frame(after, clip.dt, reference, moved, _seam_frames(clip.num_frames, first, last, blend_frames)),
               "source_worst_frame": worst_frame(before, clip.dt, reference, moved)}
    # A hold over a loop's first and last frames holds both alike: a loop stays a loop.
    eases = [(max(first - blend_frames, 0), first - 1, "easing in"), (last + 1, min(last + blend_frames, clip.num_frames - 1), "easing out")]
    windows = (*[ease for ease in eases if ease[1] >= ease[0]], (first, last, "held"))
    return EditResult(result, "freeze", numbers, keeps_loop=True, windows=tuple(sorted(windows)))
