"""Blend two motions: ``M = (1 - w) A + w B`` on A's skeleton, the root walked from blended velocities.

Times are 0-based fractional frame indices into each clip, durations
seconds, lengths the clips' unit (metres for imported mocap). B is put on
A's skeleton first (bones matched by name). The clips are time-aligned into
pairs of times (knots, or a time-warp path); along them the result's clock
advances by ``(1 - w)`` of A's frames plus ``w`` of B's
(:func:`..transition.timewarp.blend_timing`, ``w`` the weight curve's mean),
and each result frame samples both clips at its paired times: rotations
slerped and locations lerped with the frame's weight. Timings:

- FRACTION: the duration is the lerp of the two durations, both
  clips sampled at the same fraction of their length.
- CONTACTS: footfalls (a foot's contact starting) matched in order, the same
  foot down at the same moment; time maps piecewise linearly between matched
  footfalls, each segment lasting the lerp of the two segments' durations.
  Before the first matched footfall and after the last, both clips play on at
  their neighbouring segment's rates until one of them starts or ends.
- WARP: a time warp on lower-body features, a chunk at a time
  (:func:`..transition.timewarp.chunked_warp`, bounded memory for any
  length) at the pace of the clips' gait cycles; it starts where the clips
  match best within the first gait cycle of each, and ends where the first
  of them runs out.

shorter (CONTACTS and WARP): CLAMP keeps only the time both clips cover, so
the result ends at the last frame of the clip that runs out first. LOOP first
continues that clip from its previous footfall of the same foot as its last
footfall (one gait cycle back), inertialized across each repeat
(:func:`..transition.blend.transition`), until it outlasts the other; the
result then ends with the longer clip. Each repeat is joined onto the last
cycles only, so a repeat costs the same however long the result. FRACTION
always covers both clips whole.

The travelling root's floor position is never blended: its floor steps in
the character frame and its turns between consecutive sample times are
blended and walked from A's first sampled frame; height and heading-free
tilt blend like any channel.
"""

import re

import numpy as np

from ..errors import EditError, TransitionError
from ..measure import edit as measure, grounding
from ..motion import contacts, quat, root as root_motion, sampling
from ..motion.clip import Clip
from ..transition import align, blend as transition_blend, points, timewarp
from . import warp

TIMINGS = ("CONTACTS", "FRACTION", "WARP")
SHORTER = ("CLAMP", "LOOP")
MIN_CONTACT = 0.1  # seconds: a shorter touch is a foot passing low, not a step
MIN_GAP = 0.1  # seconds: a shorter lift inside a contact is detection noise (heel to toe)
LOOP_BLEND = 0.2  # seconds over which a looped clip's jump back to an earlier footfall is inertialized
LOOP_LEAD = 3  # frames of a looped clip's copy before its cycle starts: the inertialization reads them
LOOP_CONTEXT = 2  # gait cycles before each switch that a repeat's transition sees: its foot lock reaches back one at most
_UP = np.array([0.0, 0.0, 1.0])
_LEFT = re.compile(r"left|(?<![a-z])l(?![a-z])", re.IGNORECASE)
_RIGHT = re.compile(r"right|(?<![a-z])r(?![a-z])", re.IGNORECASE)


def weight_curve(weight: float | list | np.ndarray) -> np.ndarray:
    """``weight`` as curve rows ``(K, 2)``: (fraction of the result 0..1, weight); a float is a flat curve.

    EditError for weights outside [0, 1], fractions outside [0, 1] or not
    increasing, or anything but a number or ``(K, 2)`` rows.
    """
    try:
        curve = np.array([[0.0, weight]] if np.ndim(weight) == 0 else weight, dtype=float)
    except (TypeError, ValueError):
        raise EditError(f"the blend weight must be a number in [0, 1] or (fraction, weight) rows, got {weight!r}") from None
    if curve.ndim != 2 or curve.shape[1] != 2 or not len(curve) or not np.all(np.isfinite(curve)):
        raise EditError(f"a blend weight curve must be finite (fraction, weight) rows, got an array of shape {curve.shape}")
    fractions, weights = curve.T
    if np.any(weights < 0.0) or np.any(weights > 1.0):
        raise EditError(f"blend weights must lie in [0, 1], got {weights.min():g}..{weights.max():g}")
    if np.any(fractions < 0.0) or np.any(fractions > 1.0) or np.any(np.diff(fractions) <= 0.0):
        raise EditError("a blend weight curve's fractions must increase within [0, 1]")
    return curve


def mean_weight(curve: np.ndarray) -> float:
    """The mean over the result (fractions 0..1) of a :func:`weight_curve`, held flat beyond its first and last rows."""
    fractions = np.concatenate([[0.0], curve[:, 0], [1.0]])
    weights = np.interp(fractions, curve[:, 0], curve[:, 1])
    return float(np.sum(0.5 * (weights[1:] + weights[:-1]) * np.diff(fractions)))


def foot_sides(bone_names: tuple, feet: list | np.ndarray) -> tuple[tuple[str, np.ndarray], ...]:
    """The foot joints ``feet`` by side: ((label, indices), (label, indices)), left then right by name.

    Two unnamed feet are a side each. EditError when the names do not tell.
    """
    left = [j for j in feet if _LEFT.search(bone_names[j]) and not _RIGHT.search(bone_names[j])]
    right = [j for j in feet if _RIGHT.search(bone_names[j]) and not _LEFT.search(bone_names[j])]
    if left and right:
        return ("left", np.array(left)), ("right", np.array(right))
    if len(feet) == 2:
        return tuple((f"foot {bone_names[j]}", np.array([j])) for j in feet)
    raise EditError(f"cannot tell the left foot from the right among {', '.join(bone_names[j] for j in feet) or 'no foot bones'}: "
                    f"name them with a side (Foot.L, LeftFoot, foot_r) or use timing FRACTION")


def _mask_of(segments, count):
    """Boolean mask ``(count,)`` True inside the ``(start, stop)`` runs ``segments (n, 2)``."""
    edges = np.zeros(count + 1, dtype=int)
    np.add.at(edges, segments[:, 0], 1)
    np.add.at(edges, segments[:, 1], -1)
    return np.cumsum(edges[:-1]) > 0


def side_contacts(positions: np.ndarray, sides: tuple, dt: float) -> list[np.ndarray]:
    """Per side, its contact mask ``(F,)``: any of its joints planted, lifts under MIN_GAP closed, touches under MIN_CONTACT dropped.

    positions ``(F, B, 3)`` armature space (Z up); sides from :func:`foot_sides`; dt seconds per frame.
    """
    count = len(positions)
    joints = np.concatenate([indices for _, indices in sides])
    planted = contacts.detect_contacts(positions[:, joints], dt)
    masks, column = [], 0
    for _, indices in sides:
        mask = planted[:, column:column + len(indices)].any(axis=1)
        column += len(indices)
        gaps = contacts.contact_segments(~mask)
        inner = (gaps[:, 0] > 0) & (gaps[:, 1] < count) & (gaps[:, 1] - gaps[:, 0] < MIN_GAP / dt)
        mask = mask | _mask_of(gaps[inner], count)
        runs = contacts.contact_segments(mask)
        masks.append(_mask_of(runs[runs[:, 1] - runs[:, 0] >= MIN_CONTACT / dt], count))
    return masks


def footfalls(masks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Footfalls of side contact masks: (frames ``(n,)`` int, side indices ``(n,)``), in time order.

    A footfall is a contact's first frame; a contact already under way on
    the clip's first frame is not one (its landing is not in the clip).
    """
    frames = [contacts.contact_segments(mask)[:, 0] for mask in masks]
    frames = [f[f > 0] for f in frames]
    sides = np.concatenate([np.full(len(f), side) for side, f in enumerate(frames)]).astype(int)
    frames = np.concatenate(frames).astype(int)
    order = np.argsort(frames, kind="stable")
    return frames[order], sides[order]


def match_footfalls(falls_a: tuple[np.ndarray, np.ndarray], falls_b: tuple[np.ndarray, np.ndarray], lifts_a: np.ndarray,
                    lifts_b: np.ndarray, labels: list[str], names: tuple[str, str] = ("A", "B")) -> np.ndarray | None:
    """Matched footfall frames ``(K, 2)`` (A's, B's), the same foot in each row, or None when neither clip steps.

    falls_a, falls_b: :func:`footfalls` of each clip; lifts_a, lifts_b:
    ``(2,)`` bools, whether each side's foot ever lifts. The first footfall
    of one clip is paired with the first of the same foot in the other
    (whichever pairing keeps more footfalls), then footfalls pair in order.
    EditError (naming the clip and suggesting FRACTION) when a foot lifts in
    one clip and never in the other, one clip has no footfall while the
    other steps, or the feet come down in a different order.
    """
    advice = "their foot contacts cannot be matched: use timing FRACTION"
    for side, label in enumerate(labels):
        if lifts_a[side] != lifts_b[side]:
            still, moving = (names[0], names[1]) if lifts_b[side] else (names[1], names[0])
            raise EditError(f"the {label} foot never lifts in clip {still} and steps in clip {moving}: {advice}")
    (frames_a, sides_a), (frames_b, sides_b) = falls_a, falls_b
    if not len(frames_a) and not len(frames_b):
        return None
    for frames, name in ((frames_a, names[0]), (frames_b, names[1])):
        if not len(frames):
            raise EditError(f"clip {name} has no footfall (no foot comes down during it): {advice}")
    starts = []
    for first, other in ((sides_a[0], sides_b), (sides_b[0], sides_a)):
        same = np.flatnonzero(other == first)
        starts.append(int(same[0]) if len(same) else None)
    options = [(0, starts[0]), (starts[1], 0)]
    options = [(i, j) for i, j in options if i is not None and j is not None]
    if not options:
        raise EditError(f"clips {names[0]} and {names[1]} never put the same foot down: {advice}")
    i, j = max(options, key=lambda o: (min(len(frames_a) - o[0], len(frames_b) - o[1]), -frames_a[o[0]] - frames_b[o[1]]))
    count = min(len(frames_a) - i, len(frames_b) - j)
    wrong = np.flatnonzero(sides_a[i:i + count] != sides_b[j:j + count])
    if len(wrong):
        k = wrong[0]
        raise EditError(f"the feet come down in another order: clip {names[0]}'s footfall at frame {frames_a[i + k]} is the "
                        f"{labels[sides_a[i + k]]} foot, clip {names[1]}'s matching one at frame {frames_b[j + k]} the "
                        f"{labels[sides_b[j + k]]}: {advice}")
    return np.stack([frames_a[i:i + count], frames_b[j:j + count]], axis=1).astype(float)


def contact_knots(matched: np.ndarray, count_a: int, count_b: int) -> np.ndarray:
    """Aligned time knots ``(K + 2, 2)``: the matched footfalls ``(K, 2)`` with the ends both clips cover.

    Before the first matched pair and after the last, both clips play on at
    the first (last) segment's frame rates (equal rates for a single pair)
    until one clip reaches its first (last) frame.
    """
    if len(matched) > 1:
        first, last = matched[1] - matched[0], matched[-1] - matched[-2]
    else:
        first = last = np.ones(2)
    back = np.min(matched[0] / first)
    on = np.min((np.array([count_a - 1, count_b - 1]) - matched[-1]) / last)
    return np.concatenate([[matched[0] - back * first], matched, [matched[-1] + on * last]])


def knot_times(knots: np.ndarray, weight: float) -> tuple[np.ndarray, np.ndarray]:
    """Sample times (times_a ``(N,)``, times_b ``(N,)``) along aligned ``knots (K, 2)`` at the blend ``weight``."""
    times_a, times_b = timewarp.blend_timing(knots - knots[0], weight)
    return times_a + knots[0, 0], times_b + knots[0, 1]



class _Contacts:
    """A clip's feet as blending needs them: joint positions ``(F, B, 3)``, per-side masks, footfalls, whether each side lifts."""

    def __init__(self, clip, sides):
        self.positions = measure.joint_positions(clip)
        self.masks = side_contacts(self.positions, sides, clip.dt)
        self.falls = footfalls(self.masks)
        self.lifts = np.array([not mask.all() for mask in self.masks])


def _looped(clip, falls, frames_needed, name):
    """``clip`` repeating its last gait cycle until it has ``frames_needed`` frames, plus one cycle of slack.

    The cycle runs from the previous footfall of the same foot as the clip's
    last footfall to that last one; each repeat joins by an inertialized
    transition (root travel continued, planted feet kept planted). A repeat's
    transition sees only the last :data:`LOOP_CONTEXT` cycles and the next
    copy; the frames before them are final, so the cost is per repeat, not
    per frame looped. EditError when the clip has no such cycle.
    """
    frames, sides = falls
    last = len(frames) - 1
    earlier = np.flatnonzero((sides[:max(last - 1, 0)] == sides[last]) & (frames[:max(last - 1, 0)] >= LOOP_LEAD)) if last > 0 else []
    if not len(earlier):
        raise EditError(f"clip {name} has no whole gait cycle to loop (two footfalls of one foot a step apart): end the blend with the shorter clip instead")
    start, stop = int(frames[earlier[-1]]), int(frames[last])
    period = stop - start
    copy = clip.slice_frames(start - LOOP_LEAD, clip.num_frames)
    parts, tail, offset = [], clip, 0  # tail: the looped clip from its frame ``offset`` on
    try:
        for repeat in range(int(np.ceil(max(frames_needed - clip.num_frames, 0) / period)) + 1):
            switch = stop + repeat * period - offset
            joined = transition_blend.transition(tail, switch, copy, LOOP_LEAD, LOOP_BLEND).clip
            # The next switch comes a period later; the frames before its context are final. Slices keep
            # their armature-space root, so the travel runs on across the cut.
            cut = switch + (1 - LOOP_CONTEXT) * period
            parts.append(joined.slice_frames(0, cut))
            tail, offset = joined.slice_frames(cut, joined.num_frames), offset + cut
    except TransitionError as error:
        raise EditError(f"clip {name} cannot be looped: {error}") from None
    parts.append(tail)
    channels = {channel: np.concatenate([getattr(part, channel) for part in parts]) for channel in ("location", "rotation", "scale")}
    return clip.with_channels(frames=clip.frames[0] + np.arange(offset + tail.num_frames, dtype=float), **channels)


def _blended(clip_a, times_a, clip_b, times_b, weights, root):
    """The blend on A's skeleton: poses at the sample times ``(N,)`` under ``weights (N,)``, the root walked from blended steps."""
    tracks, axis = root_motion.root_tracks((clip_a, clip_b), root)
    (position_a, heading_a, tilt_a), (position_b, heading_b, tilt_b) = tracks
    w = weights[:, None, None]
    location = (1.0 - w) * sampling.values_at(clip_a.location, times_a) + w * sampling.values_at(clip_b.location, times_b)
    rotation = quat.slerp(sampling.rotations_at(clip_a.rotation, times_a), sampling.rotations_at(clip_b.rotation, times_b), weights[:, None])
    scale = (1.0 - w) * sampling.values_at(clip_a.scale, times_a) + w * sampling.values_at(clip_b.scale, times_b)
    # Steps between the sample times, not each clip's own per frame: the root keeps pace with the
    # legs when the blend plays a clip slower or faster than recorded.
    step_weight = 0.5 * (weights[1:] + weights[:-1])[:, None]
    steps = ((1.0 - step_weight) * root_motion.floor_steps(position_a, heading_a, times_a)
             + step_weight * root_motion.floor_steps(position_b, heading_b, times_b))
    start = sampling.values_at(position_a[:, :2], times_a[:1])[0], sampling.values_at(heading_a, times_a[:1])[0]
    floor, heading = root_motion.walk_steps(*start, steps)
    height = (1.0 - weights[:, None]) * sampling.values_at(position_a[:, 2:], times_a) + weights[:, None] * sampling.values_at(position_b[:, 2:], times_b)
    tilt = quat.slerp(sampling.rotations_at(tilt_a, times_a), sampling.rotations_at(tilt_b, times_b), weights)
    # Blending can tip the root's heading axis sideways: the heading is the blended one alone.
    tilt = quat.multiply(quat.from_axis_angle(_UP, -root_motion.heading(tilt, axis)), tilt)
    result = clip_a.with_channels(frames=clip_a.frames[0] + np.arange(len(times_a), dtype=float), location=location,
                                  rotation=quat.unroll(rotation), scale=scale)
    return root_motion.with_root_global(result, root, np.concatenate([floor, height], axis=1),
                                        quat.multiply(quat.from_axis_angle(_UP, heading), tilt))


def _warp_times(clip_a, clip_b, weight, cycles, kept=None):
    """Sample times (times_a ``(N,)``, times_b ``(N,)``) along a bounded time warp of the clips' lower-body features.

    cycles: both clips' gait cycles in frames (:func:`.warp.gait_cycles`),
    the warp's pace. kept: 0 or 1, the clip (A or B) whose last frame must
    end the warp; default the first to run out.
    """
    fa, fb = points.matching_features(clip_a, clip_b, joints="lower")
    path = timewarp.chunked_warp(fa, fb, cycles=cycles, open_start=True, end="EITHER" if kept is None else "AB"[kept])
    times_a, times_b = timewarp.blend_timing(path - path[0], weight)
    # Corners of the path would change the clips' speeds from one frame to the next: rounded off.
    return timewarp.smooth_times(times_a) + path[0, 0], timewarp.smooth_times(times_b) + path[0, 1]


def _segment_rates(matched):
    """Frames each clip ``(2,)`` spends in the last matched segment (1 each for a single footfall)."""
    return matched[-1] - matched[-2] if len(matched) > 1 else np.ones(2)


def _loop_shorter(clips, found, pairs, cycles, sides, names):
    """Loop the clip that runs out first until it outlasts the other; its index, or None when neither needs it.

    clips, found: both clips and their :class:`_Contacts`, updated in place.
    pairs: CONTACTS' matched footfalls (the clip at its last frame where the
    aligned knots end runs out first, and needs the other's remaining frames
    at the last segment's rates); None for WARP, whose pace is one gait cycle
    of each clip (cycles: A's, B's in frames) at a time.
    """
    counts = np.array([clip.num_frames for clip in clips])
    if pairs is None:
        cycle_counts = (counts - 1) / np.asarray(cycles)
        short = int(np.argmin(cycle_counts))
        needed = cycle_counts[1 - short] * cycles[short] + 1
    else:
        end = contact_knots(pairs, *counts)[-1]
        short = int(np.argmin(counts - 1 - end))
        rates = _segment_rates(pairs)
        needed = counts[short] + (counts[1 - short] - 1 - end[1 - short]) * rates[short] / rates[1 - short]
    if needed <= counts[short]:
        return None
    clips[short] = _looped(clips[short], found[short].falls, needed, names[short])
    found[short] = _Contacts(clips[short], sides)
    return short


def _contact_mismatch(falls_a, falls_b, times_a, times_b, dt):
    """Mean seconds from each of A's footfalls to B's nearest of the same foot, both placed in the result; None without any.

    falls_a, falls_b: :func:`footfalls` of each clip; times_a, times_b: the result's sample times ``(N,)``.
    """
    frames = np.arange(len(times_a), dtype=float)
    placed = []
    for (falls, sides), times in ((falls_a, times_a), (falls_b, times_b)):
        inside = (falls >= times[0]) & (falls <= times[-1])
        placed.append((np.interp(falls[inside], times, frames), sides[inside]))
    (at_a, sides_a), (at_b, sides_b) = placed
    gaps = np.abs(at_a[:, None] - at_b[None, :]) + np.where(sides_a[:, None] == sides_b[None, :], 0.0, np.inf)
    if not gaps.size or not np.isfinite(gaps).any():
        return None
    nearest = gaps.min(axis=1)
    return float(nearest[np.isfinite(nearest)].mean() * dt)


def _check_settings(clip_a, clip_b, timing, shorter, names):
    """EditError for an unknown timing or shorter option, or a clip under 3 frames (``names``: what messages call the clips)."""
    if timing not in TIMINGS:
        raise EditError(f"unknown blend timing '{timing}' (one of {', '.join(TIMINGS)})")
    if shorter not in SHORTER:
        raise EditError(f"unknown option '{shorter}' for the shorter clip (one of {', '.join(SHORTER)})")
    for clip, name in ((clip_a, names[0]), (clip_b, names[1])):
        if clip.num_frames < 3:
            raise EditError(f"clip {name} has {clip.num_frames} frames: a blend needs at least 3")


def _feet(clips, timing, shorter):
    """Both clips' feet: (the sides of :func:`foot_sides`, () when the timing needs none and the names do not tell; their
    :class:`_Contacts` or None without sides; their joint positions ``(F, B, 3)``)."""
    bone_names = clips[0].bone_names
    try:
        sides = foot_sides(bone_names, contacts.foot_joints(bone_names))
    except EditError:
        if timing == "CONTACTS" or (shorter == "LOOP" and timing != "FRACTION"):
            raise
        sides = ()  # FRACTION and WARP time the clips without footfalls
    if sides:
        found = [_Contacts(clip, sides) for clip in clips]
        return sides, found, [f.positions for f in found]
    return sides, None, [measure.joint_positions(clip) for clip in clips]


def _aligned_times(clips, found, sides, timing, shorter, weight, cycles, names):
    """Sample times (times_a ``(N,)``, times_b ``(N,)``) of both clips along the blend, the timing used, the clip looped
    (0 or 1, None: neither) and the notes on them.

    clips, found: both clips and their :class:`_Contacts` (a clip looped by
    shorter LOOP replaces its own in place); weight: the timing's blend
    weight; cycles: WARP's gait cycles (A's, B's) in frames.
    """
    labels, notes = [label for label, _ in sides], []

    def matched():
        return match_footfalls(found[0].falls, found[1].falls, found[0].lifts, found[1].lifts, labels, names)

    if timing == "CONTACTS" and matched() is None:
        notes.append("neither clip takes a step: timed by FRACTION")
        timing = "FRACTION"
    short = None
    if shorter == "LOOP" and timing != "FRACTION":
        short = _loop_shorter(clips, found, matched() if timing == "CONTACTS" else None, cycles, sides, names)
        if short is not None:
            notes.append(f"clip {names[short]} looped to {clips[short].num_frames} frames")
    counts = np.array([clip.num_frames for clip in clips])
    if timing == "CONTACTS":
        return knot_times(contact_knots(matched(), *counts), weight), timing, short, notes
    if timing == "WARP":
        try:
            return _warp_times(*clips, weight, cycles, None if short is None else 1 - short), timing, short, notes
        except TransitionError as error:
            raise EditError(f"clips {names[0]} and {names[1]} cannot be time-warped: {error}") from None
    return knot_times(np.array([[0.0, 0.0], counts - 1.0]), weight), timing, short, notes


def _measured(clip_a, clip_b, result, inputs, times, found):
    """The blend's numbers (see :func:`blend`) and the result's joint positions ``(F, B, 3)``: ``inputs`` are both clips'
    joint positions, ``times`` the result's sample times in each, ``found`` their :class:`_Contacts` (None without feet)."""
    times_a, times_b = times
    positions = measure.joint_positions(result)
    reference = measure.acceleration_reference(*inputs, dt=clip_a.dt)
    numbers = {"duration": result.duration, "duration_a": clip_a.duration, "duration_b": clip_b.duration,
               "covered_a": (times_a[-1] - times_a[0]) * clip_a.dt, "covered_b": (times_b[-1] - times_b[0]) * clip_a.dt,
               "worst_frame": measure.worst_frame(positions, clip_a.dt, reference),
               "inputs_worst_frame": max(measure.worst_frame(p, clip_a.dt, reference) for p in inputs),
               "skating": measure.toe_skating(result, positions),
               "inputs_skating": max(measure.toe_skating(clip_a, p) for p in inputs)}
    mismatch = _contact_mismatch(found[0].falls, found[1].falls, times_a, times_b, clip_a.dt) if found else None
    if mismatch is not None:
        numbers["contact_mismatch"] = mismatch
    return numbers, positions


def _left_out_notes(clip_a, clip_b, numbers, names, looped):
    """Notes on the seconds of each clip the blend leaves out (``looped``: shorter LOOP may play them, False: it was no help)."""
    notes = []
    for name, covered, whole in ((names[0], numbers["covered_a"], clip_a.duration), (names[1], numbers["covered_b"], clip_b.duration)):
        if whole - covered > 1.5 * clip_a.dt:
            notes.append(f"{whole - covered:.2f} s of clip {name} left out: only the steps both clips have are blended"
                         + (" (playing the shorter clip's steps again would take them in)" if looped else ""))
    return notes


def blend(clip_a: Clip, clip_b: Clip, weight: float | list | np.ndarray = 0.5, timing: str = "CONTACTS", shorter: str = "CLAMP",
          names: tuple[str, str] = ("A", "B")) -> measure.EditResult:
    """The blend ``(1 - w) A + w B`` of two motions on A's skeleton, time-aligned, as an :class:`..measure.edit.EditResult`.

    weight: B's weight, a number in [0, 1] or a curve over the result,
    ``(K, 2)`` rows (fraction of the result 0..1, weight) interpolated
    linearly (held beyond the first and last rows); the timing uses the
    curve's mean weight. timing: one of :data:`TIMINGS`; shorter: one of
    :data:`SHORTER` (see the module). names: what messages call the clips
    (file names, say). Both clips need one frame rate and A's moving bones.
    The result's frames are numbered on from A's first.

    numbers: ``duration``, ``duration_a``, ``duration_b`` (seconds);
    ``covered_a``, ``covered_b``: seconds of each clip the blend plays
    (looped repeats included; CLAMP trims what the other cannot match);
    ``worst_frame`` of the result and ``inputs_worst_frame`` (the larger of
    the inputs', against one reference of both); ``skating`` and
    ``inputs_skating`` (toe speed in contact, length units per second, the
    larger input's); ``contact_mismatch`` (when both clips step): mean
    seconds from each of A's footfalls in the result to B's nearest of the
    same foot (~0 for CONTACTS, whatever the timing). EditError for bad parameters,
    clips that cannot be blended, or CONTACTS with foot contacts that cannot
    be matched.
    """
    curve = weight_curve(weight)
    _check_settings(clip_a, clip_b, timing, shorter, names)
    try:
        clips = [clip_a, align.on_skeleton(clip_b, clip_a)]
        root = align.travel_root(*clips)
    except TransitionError as error:
        raise EditError(f"clip {names[1]} cannot be blended into clip {names[0]}: {error}") from None
    timing_weight = mean_weight(curve)
    sides, found, inputs = _feet(clips, timing, shorter)
    cycles = warp.gait_cycles(*inputs, contacts.toe_joints(clip_a.bone_names, inputs[0]), clip_a.fps)[0] if timing == "WARP" else None
    (times_a, times_b), timing, short, notes = _aligned_times(clips, found, sides, timing, shorter, timing_weight, cycles, names)

    weights = np.interp(np.linspace(0.0, 1.0, len(times_a)), curve[:, 0], curve[:, 1])
    result = _blended(clips[0], times_a, clips[1], times_b, weights, root)
    numbers, positions = _measured(clip_a, clip_b, result, inputs, (times_a, times_b), found)
    notes += _left_out_notes(clip_a, clip_b, numbers, names, short is None and timing != "FRACTION")
    if measure.same_motion(clip_a, clip_b):
        notes.append("both clips hold the same motion: the blend is that motion")
    body_numbers = grounding.numbers(grounding.of_clip(result, positions, (clip_a, clip_b)))
    numbers.update(body_numbers)
    return measure.EditResult(result, "blend", numbers, tuple(notes))
