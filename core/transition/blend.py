"""Transitions: clip A up to a frame, a blend, then clip B aligned to continue it.

Frames are 0-based indices into each clip, times seconds, lengths the clips'
unit (metres for imported mocap), angles radians. Two blends:

- INERTIALIZE switches to B at once and decays the offset between them (A's
  pose and velocity minus B's at the switch; rotations as rotation vectors
  applied on the left) to zero over the blend with the looping seed's cubic.
  Across the switch the discrete seam mismatch (:func:`..motion.cycles.seam_mismatch`)
  is B's own: position and velocity stay continuous.
- CROSSFADE slerps local rotations and lerps locations from A, played on past
  its frame, to B under a weight curve, optionally along time-warped pairs.

The travelling root's floor position is never blended: its displacement per
frame in character space and its heading rate are blended and integrated
from A's character frame at the switch, while its height and tilt
blend like any channel. B after the blend is aligned to where that leaves
the character. Feet planted in A before the switch and in B after it are
then kept planted with :func:`..motion.footlock.lock_feet`.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TransitionError
from ..loop import stitch
from ..motion import contacts, cycles, footlock, kinematics, quat, root as root_motion, sampling
from ..motion.clip import Clip
from .align import align, check_frame, CLIP_LABELS, on_skeleton, travel_root

METHODS = ("INERTIALIZE", "CROSSFADE")
CURVES = ("smooth", "linear", "exponential")
EXPONENTIAL_RATE = 3.0  # the exponential curve's rate: B reaches half weight at 79% of the blend
CHANGED = 1e-6  # quaternion components moved by less than this count as unchanged (the foot lock's IK rounds to ~1e-8)
# The foot lock's narrowest filter (frames): a transition has no loop seam to close, and the loop's filter, as wide in
# time at any rate, lets planted feet slide at high rates (120 fps: UniVRM's take into itself 1.35x -> 0.78x the
# clips' own skating, CMU 12_01 1.00x -> 0.82x, no corpus pair worse; Bandai run into walk visibility 1.15 -> 1.06).
LOCK_FILTER_SPAN = 1
_UP = np.array([0.0, 0.0, 1.0])


@dataclass
class TransitionResult:
    """A transition and where its parts sit, as 0-based frame indices.

    clip: A's frames ``0..frame_a``, the blend, then B to its end, on A's
    skeleton, frames numbered on from A's first. window: (first, last) result
    indices of the frames the transition changed (the blend and the foot
    lock); outside it the result is A before and B, rigidly aligned, after.
    blend_end: the result index where B's frame ``end_b`` plays; from there
    on the result is B aligned. root: the travelling root's bone index.
    b_clips: (B on A's skeleton as blended, B as aligned after the blend: the
    same clip when B was not moved), or None where the result was cut from
    elsewhere (see :func:`joint_positions`).
    """

    clip: Clip
    window: tuple
    frame_a: int
    frame_b: int
    blend_end: int
    end_b: int
    root: int
    method: str
    b_clips: tuple | None = None


def blend_weights(count: int, curve: str) -> np.ndarray:
    """B's weight ``(count,)`` at each frame of a crossfade: 0 on the first, 1 on the last.

    smooth: ``3u^2 - 2u^3`` (one minus the cubic); linear: ``u``; exponential:
    ``(e^(r u) - 1) / (e^r - 1)``, r = :data:`EXPONENTIAL_RATE`.
    """
    u = np.linspace(0.0, 1.0, count)
    if curve == "linear":
        return u
    if curve == "smooth":
        return 1.0 - stitch.cubic_position(u)
    return np.expm1(EXPONENTIAL_RATE * u) / np.expm1(EXPONENTIAL_RATE)


def decaying_offsets(before: np.ndarray, count: int) -> np.ndarray:
    """Offsets ``(count, ...)`` that continue ``before`` smoothly and reach zero on the last.

    before ``(3, ...)``: the offset signal's last three samples up to the
    switch. The first offset is ``before[-1]`` (the switch itself), then it
    decays by the cubic: position shape ``2u^3 - 3u^2 + 1`` plus a velocity
    shape scaled so the seam mismatch across the switch is zero. count >= 3.
    """
    u = np.linspace(0.0, 1.0, count)
    trailing = (1,) * (before.ndim - 1)
    position, velocity = stitch.cubic_position(u).reshape((count,) + trailing), stitch.cubic_velocity(u)
    # seam_mismatch reads the samples after the seam first, those before it last.
    mismatch = cycles.seam_mismatch(np.concatenate([before[-1] * position[:3], before]))
    beta = -mismatch / cycles.seam_mismatch(np.concatenate([velocity[:3], np.zeros(3)]))
    return before[-1] * position + beta * velocity.reshape((count,) + trailing)


def _inertialized_vectors(a_before, b_before, b_after):
    """``b_after (count, ...)`` plus the decaying offset of ``a_before - b_before`` (each ``(3, ...)``, up to the switch)."""
    return b_after + decaying_offsets(a_before - b_before, len(b_after))


def _inertialized_rotations(a_before, b_before, b_after):
    """Rotation counterpart of :func:`_inertialized_vectors`: ``exp(offset) * b``, offsets as rotation vectors."""
    before = quat.to_rotation_vector(quat.multiply(a_before, quat.inverse(b_before)))
    return quat.multiply(quat.from_rotation_vector(decaying_offsets(before, len(b_after))), b_after)


def _frame_pairs(clip_a, frame_a, clip_b, frame_b, count, method, pairs, labels):
    """(A indices, B indices), each ``(count,)``: the frames the blend runs over. TransitionError (calling the clips ``labels``)
    if a clip is too short."""
    if method == "INERTIALIZE":
        if pairs is not None:
            raise TransitionError("time-warped pairs are for CROSSFADE: INERTIALIZE switches at one pair of frames")
        for frame, label in zip((frame_a, frame_b), labels):
            if frame < 3:
                raise TransitionError(f"INERTIALIZE needs three frames of {label} before its transition frame {frame}")
    if pairs is None:  # checked before any array of the blend's length is made: a blend far too long costs nothing
        for frame, clip, label, used in ((frame_a, clip_a, labels[0], 1 if method == "INERTIALIZE" else count),
                                         (frame_b, clip_b, labels[1], count)):
            left = clip.num_frames - frame
            if used > left:
                raise TransitionError(f"{label} ends {used - left} frames before the blend does: {left} of its {clip.num_frames} frames "
                                      f"are from the transition frame on and the blend needs {used}; transition earlier or blend shorter")
    if method == "INERTIALIZE":
        index_a = np.full(count, frame_a)  # A stops at the switch
    elif pairs is None:
        index_a = frame_a + np.arange(count)
    else:
        pairs = np.asarray(pairs, dtype=float)
        if pairs.shape != (count, 2) or np.any(pairs[-1] != np.round(pairs[-1])):
            raise TransitionError(f"the blend lasts {count} frames: pairs must be {count} (A frame, B frame) rows ending on whole frames, "
                                  f"got shape {pairs.shape}")
        if tuple(pairs[0]) != (frame_a, frame_b) or np.any(np.diff(pairs, axis=0) < 0):
            raise TransitionError(f"pairs must start at ({frame_a}, {frame_b}) and never go back in either clip")
        if pairs[-1, 0] >= clip_a.num_frames or pairs[-1, 1] >= clip_b.num_frames:
            raise TransitionError("the time-warped pairs run past the end of a clip: transition earlier or blend shorter")
        return pairs[:, 0], pairs[:, 1]
    return index_a, frame_b + np.arange(count)


def _inertialized(a, frame_a, b, index_b, root_a, root_b):
    """Local channels ``(count, B, ...)`` and the root's steps, heights and heading-free rotations over the blend."""
    before_a, before_b = slice(frame_a - 2, frame_a + 1), slice(index_b[0] - 2, index_b[0] + 1)
    channels = [_inertialized_vectors(a.location[before_a], b.location[before_b], b.location[index_b]),
                _inertialized_rotations(a.rotation[before_a], b.rotation[before_b], b.rotation[index_b]),
                _inertialized_vectors(a.scale[before_a], b.scale[before_b], b.scale[index_b])]
    (position_a, heading_a, tilt_a), (position_b, heading_b, tilt_b) = root_a, root_b
    # The root's steps are velocities already: their offset (A's last step minus B's) decays
    # without a slope term, which would follow the noise of mocap accelerations.
    last_step = np.array([-1, 0])
    offset = root_motion.floor_steps(position_a, heading_a, frame_a + last_step) - root_motion.floor_steps(position_b, heading_b, index_b[0] + last_step)
    fade = stitch.cubic_position(np.linspace(0.0, 1.0, len(index_b) - 1))[:, None]
    steps = root_motion.floor_steps(position_b, heading_b, index_b) + fade * offset
    height = _inertialized_vectors(position_a[before_a, 2:], position_b[before_b, 2:], position_b[index_b, 2:])
    tilt = _inertialized_rotations(tilt_a[before_a], tilt_b[before_b], tilt_b[index_b])
    return channels, steps, height, tilt


def _crossfaded(a, index_a, b, index_b, root_a, root_b, curve):
    """:func:`_inertialized`'s arrays for a crossfade along the frame pairs."""
    weight = blend_weights(len(index_a), curve)
    w = weight[:, None, None]
    channels = [(1.0 - w) * sampling.values_at(a.location, index_a) + w * sampling.values_at(b.location, index_b),
                quat.slerp(sampling.rotations_at(a.rotation, index_a), sampling.rotations_at(b.rotation, index_b), weight[:, None]),
                (1.0 - w) * sampling.values_at(a.scale, index_a) + w * sampling.values_at(b.scale, index_b)]
    (position_a, heading_a, tilt_a), (position_b, heading_b, tilt_b) = root_a, root_b
    step_weight = 0.5 * (weight[1:] + weight[:-1])[:, None]
    steps = (1.0 - step_weight) * root_motion.natural_steps(position_a, heading_a, index_a) + step_weight * root_motion.natural_steps(position_b, heading_b, index_b)
    height = (1.0 - weight[:, None]) * sampling.values_at(position_a, index_a)[:, 2:] + weight[:, None] * sampling.values_at(position_b, index_b)[:, 2:]
    tilt = quat.slerp(sampling.rotations_at(tilt_a, index_a), sampling.rotations_at(tilt_b, index_b), weight)
    return channels, steps, height, tilt


def joined(parts: list[Clip], first_frame: float | None = None) -> Clip:
    """One clip of ``parts`` played one after the other, quaternions sign-continuous across them; frames numbered on from
    ``first_frame`` (default: the first part's first frame)."""
    first = parts[0]
    rotation = np.concatenate([part.rotation for part in parts])
    quat.unroll(rotation, out=rotation)  # in place: a long result's quaternions are not copied again
    start = first.frames[0] if first_frame is None else first_frame
    return first.with_channels(frames=start + np.arange(len(rotation), dtype=float), rotation=rotation,
                               location=np.concatenate([part.location for part in parts]),
                               scale=np.concatenate([part.scale for part in parts]))


def _faded_in(count, still_before, switch):
    """Weight ``(count,)`` of the foot lock's change per result frame: 0 before ``still_before``, rising by smoothstep to 1
    at the frame after A's ``switch`` (over three frames at least), 1 from there on."""
    if still_before <= 0:
        return np.ones(count)
    ramp = max(switch + 1 - still_before, 3)
    u = np.clip((np.arange(count) - still_before + 1) / (ramp + 1), 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


def _planted(result, reference, blended, still_before=0, switch=0):
    """``result`` with the legs :func:`..motion.footlock.lock_feet` re-solved around the blend, and the frames it changed ``(F,)``.

    reference: the parts, in order, of the clip whose frames the feet follow (see :func:`joined`); only their legs are joined.
    blended: mask ``(F,)`` of the frames the blend changed. lock_feet closes
    a loop; played forward then back, the transition is a closed loop whose
    ends are untouched contacts, so only contacts that the blend moved are
    planted. Only changes joined to the blend are kept (the IK also nudges
    fully stretched knees far from it). Frames before ``still_before`` keep
    their pose: the lock's change fades in after it (see :func:`_faded_in`;
    ``switch``: A's last frame before the blend).
    """
    there_and_back = np.r_[0:result.num_frames, result.num_frames - 2:-1:-1]
    # The lock reads and re-solves only the legs and the bones above them: only those are played there and back.
    legs = kinematics.ancestors_and_self(result.parents, [ankle for *_, ankle in footlock.leg_chains(result)])
    locked = footlock.lock_feet(joined([part.take_bones(legs) for part in reference]).take_frames(there_and_back),
                                result.take_bones(legs, there_and_back), filter_span=LOCK_FILTER_SPAN)
    rotation = result.rotation.copy()
    rotation[:, legs] = locked.rotation[:result.num_frames]
    weight = _faded_in(result.num_frames, still_before, switch)
    fading = weight < 1.0  # only these frames blend back towards the pose they had
    rotation[fading] = quat.slerp(result.rotation[fading], rotation[fading], weight[fading, None])
    # Only the legs turned, and every bone on the fading frames: only those are compared and, where not kept, put back.
    moved = (np.abs(rotation[:, legs] - result.rotation[:, legs]) > CHANGED).any(axis=(1, 2))
    moved[fading] |= (np.abs(rotation[fading] - result.rotation[fading]) > CHANGED).any(axis=(1, 2))
    changed = blended | (moved & (weight > 0.0))
    runs = [(start, stop) for start, stop in contacts.contact_segments(changed) if blended[start:stop].any()]
    kept = np.zeros_like(changed)
    for start, stop in runs:
        kept[start:stop] = True
    dropped = np.ix_(np.flatnonzero(~kept), legs)
    rotation[dropped] = result.rotation[dropped]
    rotation[fading & ~kept] = result.rotation[fading & ~kept]
    return result.with_channels(rotation=rotation), kept


def transition(clip_a: Clip, frame_a: int, clip_b: Clip, frame_b: int, length: float, method: str = "INERTIALIZE", curve: str = "smooth",
               pairs: np.ndarray | None = None, lock_feet: bool = True, align_b: bool = True,
               labels: tuple[str, str] = CLIP_LABELS, still_before: int = 0, root: int | None = None,
               tracks: tuple | None = None) -> TransitionResult:
    """Clip A up to ``frame_a``, a blend of ``length`` seconds, then clip B aligned to continue it.

    frame_a, frame_b: 0-based frame indices where the transition starts in
    each clip (B is aligned so its character frame there is A's). method:
    INERTIALIZE or CROSSFADE (see the module). curve: CROSSFADE's weight
    curve, one of :data:`CURVES`. pairs: ``(P, 2)`` (A frame, B frame) rows
    for CROSSFADE to blend instead of the one-to-one run (a time warp:
    starting at (frame_a, frame_b), never going back, ending on whole frames;
    fractional rows are sampled between frames), one per blend frame, so
    ``P = round(length * fps) + 1``. lock_feet: keep planted feet planted.
    align_b: False blends B where it stands (placed by the user): the root
    blends like any channel and B after the blend is B unmoved.
    still_before: result frames before this index keep A's pose (the foot
    lock's change fades in after it), as a composition keeps the frames an
    earlier transition changed; the blend must start after it. root: the
    :func:`.align.travel_root` of these two clips when already found (a search blending them many times); tracks: with
    it, their :func:`..motion.root.root_tracks` about it (B on A's skeleton), likewise.
    Bones are matched by name; the result is on A's skeleton. TransitionError for
    frames, lengths or pairs that do not fit the clips, calling them ``labels`` (A's, B's).
    """
    if method not in METHODS:
        raise TransitionError(f"unknown transition method '{method}' (one of {', '.join(METHODS)})")
    if curve not in CURVES:
        raise TransitionError(f"unknown blend curve '{curve}' (one of {', '.join(CURVES)})")
    check_frame(clip_a, frame_a, labels[0])
    check_frame(clip_b, frame_b, labels[1])
    span = int(round(length * clip_a.fps)) if np.isfinite(length) else 0
    if span < 3:
        raise TransitionError(f"a blend of {length:g} s is under three frames at {clip_a.fps:g} fps")
    if frame_a + 1 < still_before:
        raise TransitionError(f"the blend would start at frame {frame_a + 1} of {labels[0]}, before frame {still_before} that must keep its pose")
    b = on_skeleton(clip_b, clip_a, labels)
    index_a, index_b = _frame_pairs(clip_a, frame_a, b, frame_b, span + 1, method, pairs, labels)
    last_b = int(round(index_b[-1]))
    root = travel_root(clip_a, b) if root is None else root
    tracks, axis = root_motion.root_tracks((clip_a, b), root) if tracks is None else tracks
    if method == "INERTIALIZE":
        channels, root_steps, height, tilt = _inertialized(clip_a, frame_a, b, index_b, *tracks)
    else:
        channels, root_steps, height, tilt = _crossfaded(clip_a, index_a, b, index_b, *tracks, curve)
    (position_a, heading_a, _), _ = tracks
    floor, heading = root_motion.walk_steps(position_a[frame_a, :2], heading_a[frame_a], root_steps)
    location, rotation, scale = channels
    # Blending can tip the root's heading axis sideways: the heading is the blended one alone.
    tilt = quat.multiply(quat.from_axis_angle(_UP, -root_motion.heading(tilt, axis)), tilt)
    blend = clip_a.with_channels(frames=np.arange(span + 1, dtype=float), location=location, rotation=quat.unroll(rotation), scale=scale)
    b_placed = b
    if align_b:
        blend = root_motion.with_root_global(blend, root, np.concatenate([floor, height], axis=1),
                                             quat.multiply(quat.from_axis_angle(_UP, heading), tilt))
        b_placed = align(b, last_b, blend, span, root, root)

    result = joined([clip_a.slice_frames(0, frame_a + 1), blend.slice_frames(1, span), b_placed.slice_frames(last_b, b.num_frames)])
    changed = np.zeros(result.num_frames, dtype=bool)
    changed[frame_a + 1:frame_a + span] = True
    if lock_feet:
        # What the feet follow: A up to the switch, then B as placed (a crossfade follows A while A weighs more).
        follows_a = blend_weights(span + 1, curve)[1:span] < 0.5 if method == "CROSSFADE" else np.zeros(span - 1, dtype=bool)
        near_a, near_b = np.round(index_a[1:span]).astype(int), np.round(index_b[1:span]).astype(int)  # whole frames are enough to plant feet
        middle = b_placed.take_frames(near_b).with_channels(
            location=np.where(follows_a[:, None, None], clip_a.location[near_a], b_placed.location[near_b]),
            rotation=np.where(follows_a[:, None, None], clip_a.rotation[near_a], b_placed.rotation[near_b]))
        reference = [clip_a.slice_frames(0, frame_a + 1), middle, b_placed.slice_frames(last_b, b.num_frames)]
        result, changed = _planted(result, reference, changed, still_before, frame_a)
    window = np.flatnonzero(changed)
    return TransitionResult(result, (int(window[0]), int(window[-1])), int(frame_a), int(frame_b), int(frame_a + span),
                            last_b, int(root), method, (b, b_placed))


def joint_positions(result: TransitionResult, positions_a: np.ndarray, positions_b: np.ndarray) -> np.ndarray:
    """Armature-space joint positions ``(F, B, 3)`` of ``result.clip``, posed only over its window.

    positions_a ``(Fa, B, 3)``, positions_b ``(Fb, B, 3)``: the joints of the
    clips it was made from, A and B on A's skeleton (``result.b_clips[0]``).
    Before the window the result plays A's frames, after it B's as aligned:
    the alignment moved B's root rigidly, so the joints at and below it move
    with the change of the root's transform (as posing them would, to rounding).
    """
    clip, (first, last) = result.clip, result.window
    b, placed = result.b_clips
    start = last + 1 - result.blend_end + result.end_b  # B's frame playing just after the window
    positions = np.empty((clip.num_frames, clip.num_bones, 3))
    positions[:first] = positions_a[:first]
    positions[first:last + 1] = kinematics.clip_joint_positions(clip.slice_frames(first, last + 1))
    after = positions[last + 1:]
    after[:] = positions_b[start:]
    if placed is not b:
        moved = np.flatnonzero(kinematics.descendants(clip.parents, result.root))
        moved = slice(moved[0], moved[-1] + 1) if len(moved) == moved[-1] + 1 - moved[0] else moved  # a run of bones: no copies
        was, now = (root_motion.root_frames(c.slice_frames(start, None), result.root)[0] for c in (b, placed))
        change = now @ kinematics.affine_inverse(was)  # (F', 4, 4): the alignment's motion of the root, frame by frame
        after[:, moved] = after[:, moved] @ np.swapaxes(change[:, :3, :3], -1, -2) + change[:, None, :3, 3]
    return positions
