"""Splice: one clip's upper body on another clip's lower body (Heck, Kovar and Gleicher 2006).

The result is ``lower`` with the upper body (``upper_root`` and every bone
below it) taken from ``upper``: the root, pelvis and legs stay ``lower``'s,
channel for channel, so its feet and travel are untouched. The two lower
bodies are time-aligned first (the arms swing with the steps they were
captured with), then the upper body is carried over in the character's
frame: the torso keeps its posture relative to where the pelvis heads, and
faces where ``lower``'s pelvis faces. Frames are 0-based indices (times
fractional ones), lengths the clips' unit (metres for imported mocap),
angles radians.
"""

import re

import numpy as np

from ..errors import EditError, TransitionError
from ..measure import edit as measure, grounding
from ..motion import contacts, features, kinematics, quat, root as root_motion, sampling
from ..motion.clip import Clip
from ..motion.kinematics import descendants
from ..transition import timewarp
from ..transition.align import on_skeleton
from . import warp

TIMINGS = ("AUTO", "WARP", "NONE")
SHORTER = ("CLAMP", "LOOP")
HEADING_SMOOTHING = 0.5  # seconds: the character frame turns with the walk, not with the pelvis' twist in each step
BOB_SMOOTHING = 1.0  # seconds: the torso's faster lean comes from the lower clip (see _steadied); 1 to 3 s measure alike
TIME_SMOOTHING = 0.3  # seconds: the warp's steps of speed are smoothed so the upper body does not jerk
CLOSED_LOOP = 1e-3  # quaternion components: an upper clip whose ends differ less repeats its first frame at its end
_UP = np.array([0.0, 0.0, 1.0])
_HANDS = re.compile(r"hand|wrist", re.IGNORECASE)
_HEAD = re.compile(r"head|neck", re.IGNORECASE)
_LIMBS = re.compile(r"arm|elbow|hand|wrist|finger|thumb|index|middle|ring|pinky", re.IGNORECASE)


def _low_pass(values, seconds, fps):
    """``values (F, ...)`` averaged over a triangular window ``seconds`` wide (two box passes).

    The ends are padded by point reflection, so a steady ramp (a turn, a
    clip's clock) passes unchanged right to its ends.
    """
    width = 2 * int(round(0.25 * seconds * fps)) + 1
    return sampling.low_pass(sampling.low_pass(values, width), width)


def split(clip: Clip, upper_root: str | None = None, positions: np.ndarray | None = None,
          label: str = "the lower clip") -> tuple[int, int, np.ndarray]:
    """(pelvis, upper root, upper-body mask ``(B,)``) of ``clip``'s skeleton.

    The pelvis is the body's root (:func:`..motion.features.character_root`:
    the travelling root, or the first bone below it where the legs branch).
    upper_root: a bone name; default the pelvis' child whose bones hold no
    foot, preferring one that holds the hands or head. positions: the clip's
    joint positions ``(F, B, 3)``, to find feet by height when no bone is
    named like one. EditError for an unknown bone or one with a foot below it;
    its message calls ``clip`` ``label``.
    """
    pelvis = features.character_root(clip)
    feet = contacts.foot_joints(clip.bone_names, positions)
    below = {bone: descendants(clip.parents, bone) for bone in range(clip.num_bones)}
    if upper_root is not None:
        if upper_root not in clip.bone_names:
            raise EditError(f"{label}'s armature has no bone named '{upper_root}' to start the upper body")
        bone = clip.bone_names.index(upper_root)
        held = [clip.bone_names[foot] for foot in feet if below[bone][foot]]
        if held:
            raise EditError(f"'{upper_root}' cannot start the upper body: the foot '{held[0]}' is below it")
        return pelvis, bone, below[bone]
    children = [int(child) for child in np.flatnonzero(clip.parents == pelvis) if not below[child][feet].any()]
    if not children:
        raise EditError(f"every bone below the pelvis '{clip.bone_names[pelvis]}' holds a foot: name the upper body's first bone")

    def holds_hands_or_head(bone):
        return any(_HANDS.search(name) or _HEAD.search(name) for name, inside in zip(clip.bone_names, below[bone]) if inside)

    bone = max(children, key=lambda child: (holds_hands_or_head(child), int(below[child].sum())))
    return pelvis, bone, below[bone]


def match_timing(lower: Clip, upper: Clip, pelvis: int, upper_mask: np.ndarray, timing: str = "AUTO", shorter: str = "CLAMP",
                 lower_positions: np.ndarray | None = None) -> tuple[Clip, np.ndarray, str, tuple[str, ...]]:
    """When ``upper`` plays under each frame of ``lower``: (played clip, times ``(n,)``, timing used, notes).

    lower, upper: clips on one skeleton (:func:`..transition.align.on_skeleton`).
    pelvis, upper_mask: see :func:`split`. The played clip is ``upper``, or
    for LOOP ``upper`` repeated; times are fractional frame indices into it,
    one per frame of ``lower``, non-decreasing. timing: WARP aligns the lower
    bodies (pelvis and legs in the character frame) with a slope-limited time
    warp; NONE plays frame for frame; AUTO warps when both lower bodies step
    (every toe lands at least twice), else NONE, so noise never warps a
    clip standing still. shorter: CLAMP holds ``upper``'s last frame, LOOP
    plays it again from its start; a longer ``upper`` is cut.
    lower_positions: ``lower``'s joint positions ``(n, B, 3)`` if known.
    """
    if timing not in TIMINGS:
        raise EditError(f"unknown splice timing '{timing}' (one of {', '.join(TIMINGS)})")
    if shorter not in SHORTER:
        raise EditError(f"unknown way to play a shorter upper clip '{shorter}' (one of {', '.join(SHORTER)})")
    n, m = lower.num_frames, upper.num_frames
    positions = [measure.joint_positions(lower) if lower_positions is None else lower_positions, measure.joint_positions(upper)]
    cycles, steps = warp.gait_cycles(*positions, contacts.toe_joints(lower.bone_names, positions[0]), lower.fps)
    used = ("WARP" if steps else "NONE") if timing == "AUTO" else timing
    needed = n if used == "NONE" else (timewarp.SLOPE - 1) * n  # as fast as a warp's chunk may play it
    played, period = upper, m
    if shorter == "LOOP" and m < needed:
        # A pre-cut cycle repeats its first frame at its end: that frame plays once per loop.
        closed = m > 2 and np.abs(upper.rotation[-1, upper_mask] - upper.rotation[0, upper_mask]).max() < CLOSED_LOOP
        period = m - 1 if closed else m
        played = upper.take_frames(np.resize(np.arange(period), needed))
    if used == "NONE":
        times = np.minimum(np.arange(n, dtype=float), played.num_frames - 1)
    else:
        lower_body = descendants(lower.parents, pelvis) & ~upper_mask
        names = [name for name, inside in zip(lower.bone_names, lower_body) if inside]
        _, axis = root_motion.root_tracks((lower, upper), pelvis)
        lower_features, upper_features = (features.pose_features(clip, joints=names, root=pelvis, heading_axis=axis) for clip in (lower, played))
        try:
            path = timewarp.chunked_warp(lower_features, upper_features, cycles=cycles)
        except TransitionError as error:
            raise EditError(f"the lower bodies cannot be time-aligned ({error}): use timing NONE") from None
        # Both clips start together; when the upper clip runs out first its last frame holds.
        times = timewarp.blend_timing(path, 0.0)[1]
        times = np.concatenate([times, np.full(n - len(times), times[-1])])
        times = np.clip(_low_pass(times, TIME_SMOOTHING, lower.fps), 0.0, played.num_frames - 1)
    notes = [f"timing {used}" + (" (both lower bodies step: time-aligned)" if used == "WARP" else "")]
    if times[-1] > period - 1:
        notes.append(f"the upper clip's {m} frames play again from its start" + (" (its last frame repeats its first)" if period < m else
                                                                                 ": the wrap may jump unless the upper clip is a loop"))
    elif n > 1 and times[-1] == times[-2] == m - 1:
        held = int(np.argmax(times >= m - 1))
        notes.append(f"the upper clip ends at the lower clip's frame {held}: its last frame is held from there")
    return played, times, used, tuple(notes)


def _heading_frames(clips, pelvis, fps):
    """Each clip's smoothed pelvis heading ``(F,)`` radians, measured on one pelvis axis for all."""
    tracks, _ = root_motion.root_tracks(clips, pelvis)
    return [_low_pass(heading, HEADING_SMOOTHING, fps) for _, heading, _ in tracks]


def _in_heading_frame(vectors, heading):
    """Armature-space vectors ``(F, ..., 3)`` seen from the character frame turned by ``heading (F,)``."""
    turn = quat.from_axis_angle(_UP, -heading)
    return quat.rotate(turn.reshape(turn.shape[:1] + (1,) * (np.ndim(vectors) - 2) + (4,)), vectors)


def _steadied(lower_reach, source_reach, fps):
    """Rotations ``(F, 4)`` in the character frame that lean the torso so its top bobs as ``lower``'s does.

    lower_reach, source_reach ``(F, 3)``: the top of the torso (the head)
    from the upper root, in each clip's character frame. The lean keeps the
    source's slow posture and swaps its fast part (under
    :data:`BOB_SMOOTHING`) for ``lower``'s: a walker's torso steadies the head
    against the pelvis' bounce in each step, which an upper body captured
    standing (or stepping differently) does not.
    """
    fast = lower_reach - _low_pass(lower_reach, BOB_SMOOTHING, fps)
    return quat.between(source_reach, _low_pass(source_reach, BOB_SMOOTHING, fps) + fast)


def _upper_follow(lower, below, root, positions, headings):
    """RMS distance (length units) between the hands relative to the chest in the character frame, in the result against
    the played upper clip: ``positions`` and ``headings`` are theirs, ``(F, B, 3)`` and ``(F,)`` radians.

    below: mask ``(B,)`` of the bones below the upper root ``root`` of ``lower``'s skeleton (the hands are among them).
    """
    hands = [bone for bone in np.flatnonzero(below) if _HANDS.search(lower.bone_names[bone])] or [root]
    # The chest: the hands' lowest common ancestor (parents come first, so the highest index).
    shared = set.intersection(*(set(kinematics.ancestors_and_self(lower.parents, [hand])) for hand in hands))
    chest = max(shared) if len(hands) > 1 and shared else root
    (result, source), (heading_result, heading_source) = positions, headings
    follow = (_in_heading_frame(result[:, hands] - result[:, chest, None], heading_result)
              - _in_heading_frame(source[:, hands] - source[:, chest, None], heading_source))
    return float(np.sqrt(np.mean(np.sum(follow**2, axis=-1))))


def splice(lower: Clip, upper: Clip, upper_root: str | None = None, timing: str = "AUTO", shorter: str = "CLAMP",
           names: tuple[str, str] = ("", "")) -> measure.EditResult:
    """``upper``'s upper body on ``lower``'s lower body, on ``lower``'s skeleton and frames: an :class:`..measure.edit.EditResult`.

    upper_root: the upper body's first bone, by name (default found, see
    :func:`split`); it and every bone below it come from ``upper`` (bones
    matched by name), everything else is ``lower``'s unchanged. timing,
    shorter: see :func:`match_timing`. The upper root's armature-space
    rotation relative to ``upper``'s character frame (pelvis heading,
    smoothed) is re-applied in ``lower``'s, leaned so the top of the torso
    bobs as in ``lower`` (:func:`_steadied`), and its local rotation solved
    against ``lower``'s parent bone; its location and scale stay ``lower``'s;
    the bones below it keep ``upper``'s local channels at the matched times.

    numbers: ``skating``, ``lower_skating`` (toe speed while planted, per
    second, the result's and ``lower``'s); ``join_visibility``,
    ``lower_join_visibility`` (worst acceleration of the torso, neck, head and
    shoulder joints over ``lower``'s typical ones, in the result and in
    ``lower`` itself: about equal means no visible join); ``upper_follow``
    (RMS distance, length units, between the hands relative to the chest in
    the character frame, result against ``upper`` at the matched times);
    ``time_rate`` (``upper`` frames played per ``lower`` frame, on average).
    The timing used is the first note. EditError for clips that cannot be
    spliced; its message calls them "the lower clip" and "the upper clip",
    with their ``names`` (lower's, upper's: file names, say; "": none) after.
    """
    lower_label, upper_label = (f"the {which} clip ({name})" if name else f"the {which} clip"
                                for which, name in zip(("lower", "upper"), names))
    try:
        upper = on_skeleton(upper, lower)
    except TransitionError as error:
        raise EditError(f"{upper_label} does not fit {lower_label}'s skeleton: {error}") from None
    lower_positions = measure.joint_positions(lower)
    pelvis, root, upper_mask = split(lower, upper_root, lower_positions, lower_label)
    played, times, _, notes = match_timing(lower, upper, pelvis, upper_mask, timing, shorter, lower_positions)
    source = sampling.sample_clip(played, times, "CUBIC")

    # The upper root's rotation relative to upper's character frame, leaned to bob as lower's torso does, in lower's
    # character frame, then made local to lower's parent bone.
    heading_lower, heading_source = _heading_frames((lower, source), pelvis, lower.fps)
    source_positions = measure.joint_positions(source)
    torso = [bone for bone in np.flatnonzero(upper_mask) if not _LIMBS.search(lower.bone_names[bone])] or [root]
    top = max(torso, key=lambda bone: np.linalg.norm(lower.rest[bone, :3, 3] - lower.rest[root, :3, 3]))
    lean = quat.identity((lower.num_frames,))  # an arm alone has no torso to lean
    if top != root:
        lean = _steadied(_in_heading_frame(lower_positions[:, top] - lower_positions[:, root], heading_lower),
                         _in_heading_frame(source_positions[:, top] - source_positions[:, root], heading_source), lower.fps)
    pose_source, _ = root_motion.root_frames(source, root)
    relative = quat.multiply(quat.from_axis_angle(_UP, -heading_source), quat.from_matrix(pose_source[:, :3, :3]))
    turned = quat.multiply(quat.from_axis_angle(_UP, heading_lower), quat.multiply(lean, relative))
    _, space = root_motion.root_frames(lower, root)
    local = quat.multiply(quat.inverse(quat.from_matrix(space[:, :3, :3])), turned)

    below = upper_mask.copy()
    below[root] = False
    location, rotation, scale = lower.location.copy(), lower.rotation.copy(), lower.scale.copy()
    location[:, below], rotation[:, below], scale[:, below] = source.location[:, below], source.rotation[:, below], source.scale[:, below]
    rotation[:, root] = quat.unroll(local, lower.rotation[0, root])
    clip = lower.with_channels(location=location, rotation=rotation, scale=scale)

    positions = measure.joint_positions(clip)
    reference = measure.acceleration_reference(lower_positions, dt=lower.dt)
    numbers = {
        "skating": measure.toe_skating(clip, positions),
        "lower_skating": measure.toe_skating(lower, lower_positions),
        "join_visibility": measure.worst_frame(positions, lower.dt, reference, torso),
        "lower_join_visibility": measure.worst_frame(lower_positions, lower.dt, reference, torso),
        "upper_follow": _upper_follow(lower, below, root, (positions, source_positions), (heading_lower, heading_source)),
        "time_rate": float((times[-1] - times[0]) / max(lower.num_frames - 1, 1)),
    }
    notes = list(notes) + (["both clips hold the same motion: the splice is that motion"] if measure.same_motion(lower, upper) else [])
    body_numbers = grounding.numbers(grounding.of_clip(clip, positions, (lower_positions,)))
    numbers.update(body_numbers)
    return measure.EditResult(clip, "splice", numbers, tuple(notes))
