"""Composition: pieces of clips played one after another, each junction a transition, optionally closed into a loop.

Frame numbers are the clips' own (``clip.frames`` values); positions in the
composed clip are 0-based indices; times are seconds, lengths the clips' unit
(metres for imported mocap), angles radians.

Each junction is one :func:`..transition.make.make_transition` from the
outgoing piece as composed so far (its frames after the transition into it)
into the whole next piece, which it turns and moves on the floor to continue;
the transition's clip then replaces the composition from the start of that
tail. A tail reaches further back only while the transition's foot lock
reaches its first frame (a stance held through a bow). Each piece is thus
blended, measured and copied a bounded number of times: the work grows
linearly with the composition's length, never with the number of junctions
times it.

With ``loop`` the last piece also transitions into the first, and the cycle
opens and closes on one frame of the first piece between its two transitions
(the one that moves least against the piece's own motion), so the wrap shows
the first piece's own motion; Make Loop's TRAVEL seam
(:func:`..loop.make.make_loop`) then closes it, the travel accumulating from cycle
to cycle.

A piece's heading turns it from where the previous one leaves the
character: the junction's blend is made as without it, then the character
turns over the blend's frames, each frame's share of the turn pivoting about
the foot planted then (about the root when none is), so planted feet stay
where they are and the piece after the blend is the same rigid placement,
turned.
"""

import numbers
from dataclasses import dataclass, replace

import numpy as np

from ..errors import ClipError, CompositionError, TransitionError
from ..loop.make import make_loop
from ..loop.stitch import StitchParameters
from ..measure import grounding, seam, transition as measure
from ..measure.transition import TransitionMetrics
from ..motion import contacts, cycles, kinematics, quat, root as root_motion
from ..transition import align as placing, blend, make, points
from . import trim as trimming

REACH_BACK_SECONDS = 3.0  # a junction's tail reaches this much further back while its foot lock reaches the tail's first frame
MIN_PIECE_SECONDS = 1.0  # the shortest range a piece may keep
MIN_TAIL_SECONDS = 0.5  # of a piece left after the transition into it, for the transition out of it
REACH_SECONDS = points.REACH_SECONDS  # at most this much of a piece's end (and the next's start) is searched for an automatic point
OPENING_SECONDS = 0.2  # a composition opens on this much of its first piece's own frames: no transition changes them
SEAM_GUARD = 2  # frames between the loop's seam and either transition window (the seam's stencil reads one frame either side)
MEASURE_MARGIN = 3  # frames either side of a window that its metrics read
MIN_FREE_SHARE = 0.2  # a turn keeps to frames with at most one foot planted unless they hold less than this share of its spread
TURN_SECONDS_PER_RADIAN = 1.0  # a piece's heading is turned over a blend at least this long per radian (90 degrees: about 1.6 s)
TURN_RAMP_SECONDS = 0.1  # the turn's rate eases in and out over this much at each change of the foot it pivots about


@dataclass
class Piece:
    """One entry of the sequence: a clip and its in/out range (frame numbers of ``clip.frames``, inclusive; None: the clip's own ends).

    heading: radians in [-pi, pi], the turn about the up axis (positive
    counterclockwise seen from above) the piece starts with from where the
    previous one leaves the character; 0 continues its heading. The first
    piece keeps its own: its heading must be 0.
    """

    clip: object
    first: int = None
    last: int = None
    name: str = ""  # for messages and reports
    heading: float = 0.0  # radians about the up axis, counterclockwise seen from above, from where the previous piece leaves the character


@dataclass
class Junction:
    """How piece k hands over to piece k + 1 (with a loop, the last piece to the first).

    at: "auto" (the best point near the junction: the outgoing piece's end,
    the next one's start) or (frame_a, frame_b) frame numbers of the two
    pieces' clips. method: AUTO, INERTIALIZE or CROSSFADE, as
    :func:`..transition.make.make_transition`. length: seconds, None: chosen.
    """

    at: object = "auto"
    method: str = "AUTO"
    length: float = None


@dataclass
class Segment:
    """Where a piece plays in the composition.

    source_first, source_last: frame numbers of the piece's clip this segment
    plays, from the frame after the transition into it (or its first kept
    frame) to the transition point out of it (or its last kept frame). A time
    warped crossfade can play the frames of its blend faster or slower, so the
    source and output lengths may differ by a few frames.
    out_first, out_last: 0-based indices into the composed clip, inclusive.
    """

    piece: int
    name: str
    source_first: int
    source_last: int
    out_first: int
    out_last: int


@dataclass
class ComposedTransition:
    """One junction as made.

    window: (first, last) 0-based indices into the composed clip of the frames
    the transition changed (its blend and the foot lock around it); windows
    never overlap, and the first frames of the composition are in none.
    blend_span: (first, last) the frames the blend itself made, ``round(length * fps) - 1``.
    warp_span: (first, last) the frames its time-warped pairs play, None without a time warp.
    frame_a, frame_b: the transition point, frame
    numbers of the outgoing and the incoming piece's clip. method, length
    (seconds): as used. metrics: the window measured in the composed clip
    against the two pieces' kept ranges. candidates: the ranked points
    searched (:class:`..transition.points.Candidate`), [] when the point was given.
    """

    junction: int
    window: tuple
    frame_a: int
    frame_b: int
    method: str
    length: float
    metrics: TransitionMetrics
    candidates: list
    blend_span: tuple = None
    warp_span: tuple = None


@dataclass
class Composition:
    """The composed clip and how it was made.

    clip: one continuous clip on pieces[0]'s skeleton, frames numbered from
    the first piece's first frame shown. With loop: a CLAMP loop (the last
    frame closes the cycle, moved on by one cycle's travel).
    segments: :class:`Segment` in playing order (with loop the first piece
    opens and closes the cycle: it appears first and last).
    transitions: :class:`ComposedTransition` per junction, in order.
    numbers: plain floats, units in the names (see :func:`compose`).
    notes: sentences: what was trimmed, the points chosen, junctions that stay visible, the loop's seam.
    travel_bone: a loop's travelling root bone (its location repeats with offset when played as a cycle), or None.
    warnings: the notes worth a look: one per junction that stays visible (:attr:`visible_junctions`).
    """

    clip: object
    segments: list
    transitions: list
    numbers: dict
    notes: tuple
    loop: bool
    travel_bone: str = None
    warnings: tuple = ()

    @property
    def visible_junctions(self) -> list[int]:
        """1-based numbers of the junctions that stay visible by any transition criterion (the body off the floor included)."""
        return [k + 1 for k, t in enumerate(self.transitions) if make.shows(t.metrics)]

    @property
    def grounded(self) -> bool:
        """True when the body stays on the pieces' floor and at their heights throughout (see :mod:`..measure.grounding`)."""
        return not grounding.stands_off(self.numbers.get("floor_offset_m", 0.0), self.numbers.get("pelvis_offset_m", 0.0))


@dataclass
class _Made:
    """A junction's transition and where it sits: positions are 0-based indices into the composition."""

    transition: make.Transition
    tail_first: int  # where the transition's clip starts in the composition
    position_a: int  # where its point in the outgoing piece plays
    blend_end: int  # index in the transition's clip where the incoming piece plays unblended, from its kept clip's index last_b on
    last_b: int
    root: int  # the travelling root the transition aligned
    span: int  # blend frames
    crowded: bool = False  # it starts after the previous junction's blend but inside the frames that one's foot lock changed


def _label(piece, index):
    return f"'{piece.name}'" if piece.name else f"piece {index + 1}"


def _frame_number(value):
    """True when ``value`` is a whole real number (a frame number)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value) and int(value) == value


def _kept_clip(piece, index, reference, trim):
    """The piece's range on ``reference``'s skeleton (its clip), and the seconds trimmed at (start, end). CompositionError if it does not fit."""
    label = _label(piece, index)
    clip = piece.clip
    frames = clip.frames
    first = frames[0] if piece.first is None else piece.first
    last = frames[-1] if piece.last is None else piece.last
    if not (_frame_number(first) and _frame_number(last)):
        raise CompositionError(f"{label}: the range must be whole frame numbers or None, got {piece.first!r} to {piece.last!r}")
    if last < first:
        raise CompositionError(f"{label}: the range {first:g}-{last:g} is reversed: the last frame must come after the first")
    if not frames[0] <= first <= last <= frames[-1]:
        raise CompositionError(f"{label}: the range {first:g}-{last:g} is not inside the clip's frames {frames[0]:g}-{frames[-1]:g}")
    kept = clip.slice_frames(int(first - frames[0]), int(last - frames[0]) + 1)
    try:
        kept.validate()
    except ClipError as error:
        raise CompositionError(f"{label}: {error}") from None
    if reference is not None:
        try:
            kept = placing.on_skeleton(kept, reference.clip)
        except TransitionError as error:  # its frame rate or bones
            raise CompositionError(f"{label} cannot follow {_label(reference, 0)} (clip A: the first piece, clip B: {label}): {error}") from None
    cut = trimming.idle_ends(kept) if trim else (0, 0)
    kept = kept.slice_frames(cut[0], kept.num_frames - cut[1])
    if kept.duration < MIN_PIECE_SECONDS:
        trimmed = " after trimming its idle ends" if trim else ""
        needed = int(np.ceil(MIN_PIECE_SECONDS / kept.dt - 1e-9)) + 1
        raise CompositionError(f"{label} keeps {kept.num_frames} frames{trimmed}, under the {MIN_PIECE_SECONDS:g} s a piece needs "
                               f"({needed} frames at {kept.fps:g} fps): give it a longer range")
    return kept, (cut[0] * clip.dt, cut[1] * clip.dt)


def junction_count(pieces: int, loop: bool) -> int:
    """How many junctions ``pieces`` pieces have: one between each two, and with ``loop`` one more, from the last back to the first."""
    return pieces if loop else pieces - 1


def _checked_junctions(junctions, count, pieces, loop):
    """The junctions, one per handover, each checked (points are checked later against the kept ranges)."""
    if junctions is None:
        return [Junction() for _ in range(count)]
    if isinstance(junctions, Junction) or not isinstance(junctions, (list, tuple)):
        raise CompositionError(f"junctions must be a list of Junction or None, got {type(junctions).__name__}")
    if len(junctions) != count:
        rule = "as many as pieces with loop (the last closes the cycle)" if loop else "one fewer than the pieces"
        raise CompositionError(f"{len(junctions)} junctions given for {len(pieces)} pieces: there must be {count}, {rule}")
    for k, junction in enumerate(junctions):
        if not isinstance(junction, Junction):
            raise CompositionError(f"junction {k + 1} is a {type(junction).__name__}, not a Junction")
        if junction.method not in make.METHODS:
            raise CompositionError(f"junction {k + 1}: unknown method '{junction.method}' (one of {', '.join(make.METHODS)})")
        length = junction.length
        if length is not None and not (isinstance(length, numbers.Real) and np.isfinite(length) and length > 0):
            raise CompositionError(f"junction {k + 1}: the blend length must be a positive number of seconds or None (chosen), got {length!r}")
        at = junction.at
        if isinstance(at, str):
            if at != "auto":
                raise CompositionError(f"junction {k + 1}: the point must be 'auto' or (frame_a, frame_b), got {at!r}")
        elif not (isinstance(at, (list, tuple)) and len(at) == 2 and all(_frame_number(frame) for frame in at)):
            raise CompositionError(f"junction {k + 1}: the point must be 'auto' or (frame_a, frame_b) whole frame numbers, got {at!r}")
    return list(junctions)


def _check_point(junction, k, kept, labels, trimmed):
    """CompositionError unless a given point lies in the two pieces' kept ranges."""
    if isinstance(junction.at, str):
        return
    for frame, clip, label in zip(junction.at, kept, labels):
        if not clip.frames[0] <= frame <= clip.frames[-1]:
            why = " (after trimming its idle ends)" if trimmed else ""
            raise CompositionError(f"junction {k + 1}: frame {frame:g} is not in {label}'s kept frames {clip.frames[0]:g}-{clip.frames[-1]:g}{why}")


def _transition(tail, head, junction, align, lock_feet, reach, labels, still_before):
    """make_transition with the junction's settings; TransitionError saying so when a method or length given does not fit
    (never replaced by another: the user asked for it).

    reach: seconds at the end of ``tail`` (and the start of ``head``) an automatic point is searched in.
    still_before: ``tail``'s frames before this index keep their pose (see :func:`..transition.make.make_transition`).
    labels: what messages call the two: the piece going out (the composition up to it) and the one coming in.
    """
    at = junction.at if isinstance(junction.at, str) else tuple(int(frame) for frame in junction.at)
    try:
        return make.make_transition(tail, head, at, junction.method, junction.length, align=align, lock_feet=lock_feet, reach=reach,
                                    labels=labels, still_before=still_before)
    except TransitionError as error:
        if junction.method == "AUTO" and junction.length is None:
            raise
        asked = f"{junction.method} {'with the chosen length' if junction.length is None else f'{junction.length:g} s'}"
        raise TransitionError(f"{asked} does not fit ({error}); leave the method and length to be chosen (AUTO)") from None


def _joined(parts, first_frame):
    """One clip of ``parts`` = (clip, start, stop) index ranges played one after the other, frames numbered from ``first_frame``."""
    return blend.joined([clip.slice_frames(start, stop) for clip, start, stop in parts], first_frame)


def _last_parts(parts, frames):
    """The (clip, start, stop) ranges holding the last ``frames`` frames of ``parts``, in order."""
    taken = []
    for clip, start, stop in reversed(parts):  # only the few parts the tail reaches
        if frames <= 0:
            break
        size = min(frames, stop - start)
        taken.append((clip, stop - size, stop))
        frames -= size
    return taken[::-1]


def _drop_last(parts, frames):
    """Remove the last ``frames`` frames from ``parts`` in place."""
    while frames > 0:
        clip, start, stop = parts.pop()
        if stop - start > frames:
            parts.append((clip, start, stop - frames))
        frames -= stop - start


def _junction(parts, total, start, first_number, clip_b, junction, labels, align, lock_feet, guard=0, turn=0.0):
    """The transition from the composition so far into ``clip_b``, as a :class:`_Made`.

    parts, total: the composition so far and its length in frames; start:
    where the outgoing piece plays unblended (after the transition into it);
    first_number: the frame number position 0 would have in the outgoing
    piece's numbering, so that its frames keep their own numbers in the tail.
    labels: the pieces going out and coming in, which every message names.
    guard: the first position the transition may change (after the frames the one before changed).
    turn: radians the incoming piece turns from where the composition leaves the character (see :func:`_turned`).
    """
    made, tail, tail_first, drift = _blended(parts, total, start, first_number, clip_b, junction, labels, align, lock_feet, guard, turn)
    root = placing.travel_root(tail, clip_b)
    if turn:
        made = _turned(made, turn - drift, root)
    position_a = int(made.frame_a - first_number)
    if position_a < start:
        raise CompositionError(f"{labels[0]} is too short: the transition out of it would start inside the one into it; give it a longer range")
    span = round(made.length * clip_b.fps)
    last_b = int(made.frame_b - clip_b.frames[0]) + span if made.path is None else int(made.path[-1, 1] - clip_b.frames[0])
    return _Made(made, tail_first, position_a, position_a - tail_first + span, last_b, root, span)


def _blended(parts, total, start, first_number, clip_b, junction, labels, align, lock_feet, guard, turn=0.0):
    """:func:`_junction`'s transition: ``(made, the tail it was made on, where the tail starts, drift)``; with a ``turn``
    (radians) and no length given, at least :data:`TURN_SECONDS_PER_RADIAN` long per radian where the clips allow, drift
    the heading change that lengthening made (see :func:`_turn_length`; 0 otherwise)."""
    fps, label_a = clip_b.fps, labels[0]
    if total - start < round(MIN_TAIL_SECONDS * fps):
        raise CompositionError(f"{label_a} shows only {total - start} frames after the transition into it, under the "
                               f"{MIN_TAIL_SECONDS:g} s needed to transition out of it: give it a longer range")
    if not isinstance(junction.at, str) and junction.at[0] - first_number < max(start, guard - 1):
        raise CompositionError(f"frame {junction.at[0]:g} of {label_a} plays before the transition into it ends "
                               f"(frame {first_number + max(start, guard - 1):g}): give a later point")
    tail_first, made, drift = start, None, 0.0
    while True:
        tail = _joined(_last_parts(parts, total - tail_first), first_number + tail_first)
        if made is None:
            # Near the junction: in the later half of what the outgoing piece plays on its own (up to the engine's reach).
            made = _transition(tail, clip_b, junction, align, lock_feet, _reach(total - start, fps), labels, guard - tail_first)
            if turn and junction.length is None:
                made, drift = _turn_length(tail, clip_b, made, junction, turn, align, lock_feet, labels, guard - tail_first)
        else:  # the same blend with more of the composition before it
            made = make.make_transition(tail, clip_b, (made.frame_a, made.frame_b), made.method, made.length, align=align, lock_feet=lock_feet,
                                        labels=labels, still_before=guard - tail_first)
        if made.window[0] > 0 or tail_first == 0:
            break
        # The foot lock reaches the tail's first frame (a stance held since the transition before): give it room.
        tail_first = max(tail_first - round(REACH_BACK_SECONDS * fps), 0)
    return made, tail, tail_first, drift


def _turn_length(tail, clip_b, made, junction, turn, align, lock_feet, labels, still_before):
    """``(transition, heading change)``: ``made`` blended again at its point for long enough to turn ``turn`` radians
    (:data:`TURN_SECONDS_PER_RADIAN`), the method as the junction asks, and how far (radians) the longer blend itself
    leaves the incoming piece turned from where ``made`` placed it, which the turn takes back; ``(made, 0)`` when it is
    that long already or the clips hold no longer blend there."""
    wanted = round(abs(turn) * TURN_SECONDS_PER_RADIAN * clip_b.fps) / clip_b.fps
    if wanted <= made.length:
        return made, 0.0
    try:
        longer = make.make_transition(tail, clip_b, (made.frame_a, made.frame_b), junction.method, wanted, align=align, lock_feet=lock_feet,
                                      labels=labels, still_before=still_before)
    except TransitionError:
        return made, 0.0
    # Both end on the incoming piece rigidly placed: its last frame's heading shows how differently.
    root = placing.travel_root(tail, clip_b)
    _, heading = placing.floor_frames([(clip, clip.num_frames - 1, root) for clip in (made.clip, longer.clip)])
    return longer, float(placing.shortest_turn(heading[1] - heading[0]))


def _feet(clip, positions):
    """Each foot's joints, those furthest down the leg first: lists of bone indices of the foot joints (see
    :func:`..motion.contacts.foot_joints`), grouped by the first bone above them that is not one."""
    joints = [int(j) for j in contacts.foot_joints(clip.bone_names, positions)]
    feet = {}
    for joint in joints:
        top, depth = joint, 0
        while top in joints and clip.parents[top] >= 0:
            top, depth = int(clip.parents[top]), depth + 1
        feet.setdefault(top, []).append((depth, joint))
    return [[joint for _, joint in sorted(foot, reverse=True)] for foot in feet.values()]


def _pivots(clip, root):
    """Per frame of ``clip``: the floor point ``(F, 2)`` a turn pivots about there, and how freely it may turn ``(F,)`` in [0, 1].

    With one foot planted the pivot is its planted joint furthest down the
    leg (the toe when it is down), so that foot does not slide; with none
    the travelling ``root``; with more, their pivots' mean, where the turn
    is held (0) unless nothing else is free. Freedom eases by smoothstep
    from 0 at the edges of each run of one support to 1 over
    :data:`TURN_RAMP_SECONDS` (half the run at most), so the turn never
    starts, stops or changes pivot at once.
    """
    positions = kinematics.clip_joint_positions(clip)
    feet = _feet(clip, positions)
    joints = [joint for foot in feet for joint in foot]
    planted = contacts.detect_contacts(positions[:, joints], clip.dt) if joints else np.zeros((clip.num_frames, 0), dtype=bool)
    points, down, offset = [], [], 0
    for foot in feet:  # each foot's first planted joint in its list (the deepest): a few feet, vectorized over frames
        mask = planted[:, offset:offset + len(foot)]
        deepest = np.argmax(mask, axis=1)
        points.append(positions[np.arange(clip.num_frames), np.asarray(foot)[deepest], :2])
        down.append(mask.any(axis=1))
        offset += len(foot)
    points = np.stack(points, axis=1) if feet else np.zeros((clip.num_frames, 0, 2))
    down = np.stack(down, axis=1) if feet else np.zeros((clip.num_frames, 0), dtype=bool)
    count = down.sum(axis=1)
    pivot = np.where((count > 0)[:, None], (points * down[..., None]).sum(axis=1) / np.maximum(count, 1)[:, None], positions[:, root, :2])
    state = np.where(count == 1, np.argmax(down, axis=1), np.where(count == 0, -1, -2))
    edges = np.flatnonzero(np.diff(state)) + 1
    starts, stops = np.r_[0, edges], np.r_[edges, clip.num_frames]
    run = np.repeat(np.arange(len(starts)), stops - starts)  # each frame's run of one support state
    frames = np.arange(clip.num_frames) + 0.5
    ramp = np.minimum(TURN_RAMP_SECONDS * clip.fps, 0.5 * (stops - starts))[run]
    u = np.clip(np.minimum(frames - starts[run], stops[run] - frames) / ramp, 0.0, 1.0)
    return pivot, np.where(state != -2, u * u * (3.0 - 2.0 * u), 0.0)


def _turn_shares(span_first, span_last, free):
    """Each frame's share ``(F,)`` of a turn made over frames ``span_first..span_last`` (inclusive; 0 elsewhere), summing to 1.

    The blend's smoothstep spread, kept to the frames ``free (F,)`` to turn
    (see :func:`_pivots`); spread evenly by smoothstep when those hold under
    :data:`MIN_FREE_SHARE` of it.
    """
    frames = np.arange(len(free))
    u = np.clip((frames - span_first + 1) / (span_last - span_first + 1), 0.0, 1.0)
    smooth = u * u * (3.0 - 2.0 * u)
    spread = np.diff(np.r_[0.0, smooth])
    kept = spread * free
    if kept.sum() < MIN_FREE_SHARE * spread.sum():
        return spread / spread.sum()
    return kept / kept.sum()


def _turned(transition, turn, root):
    """``transition`` with its clip turned by ``turn`` radians about the up axis from its blend on (see the module).

    Frame i is moved by the rigid floor motion ``M_i(x) = R(theta_i) x + t_i``:
    theta accumulates the turn's shares (:func:`_turn_shares`) and each step
    keeps that frame's pivot ``p_i`` where the previous motion put it,
    ``t_i = t_(i-1) + (R(theta_(i-1)) - R(theta_i)) p_i`` (complex numbers
    below). Frames up to A's switch keep their channels bit for bit; those
    after the blend are B's placement turned by ``turn`` about the pivot path.
    """
    clip = transition.clip
    first, last = transition.blend_span
    pivot, free = _pivots(clip, root)
    theta = turn * np.cumsum(_turn_shares(first, last, free))
    along = np.exp(1j * theta)
    shift = np.cumsum(np.r_[0.0, (along[:-1] - along[1:]) * (pivot[1:, 0] + 1j * pivot[1:, 1])])
    motion = np.broadcast_to(np.eye(4), (clip.num_frames, 4, 4)).copy()
    motion[:, 0, 0] = motion[:, 1, 1] = along.real
    motion[:, 1, 0], motion[:, 0, 1] = along.imag, -along.imag
    motion[:, 0, 3], motion[:, 1, 3] = shift.real, shift.imag
    later = clip.slice_frames(first, clip.num_frames)
    pose, _ = root_motion.root_frames(later, root)
    moved = motion[first:] @ pose
    later = root_motion.with_root_global(later, root, moved[:, :3, 3], quat.from_matrix(moved[:, :3, :3]))
    location, rotation = clip.location.copy(), clip.rotation.copy()
    location[first:], rotation[first:] = later.location, later.rotation
    rotation[:, root] = quat.unroll(rotation[:, root])
    return replace(transition, clip=clip.with_channels(location=location, rotation=rotation))


def _seam_frame(positions, dt, reference, first, last):
    """The index in ``first..last`` (inclusive) where the first piece moves least against its own motion: the loop's seam."""
    candidates = np.arange(first, last + 1)
    return int(candidates[np.argmin((kinematics.accelerations(positions, dt, candidates) / reference).max(axis=1))])


def _measured(clip, made, offset, clip_a, clip_b, positions):
    """The junction's :class:`TransitionMetrics` in the composed ``clip`` (``offset``: the composition's position of its frame 0).

    Measured on the stretch the transition was made on (contacts are found
    relative to the lowest the feet go there), against the kept pieces.
    """
    transition = made.transition
    first, last = (made.tail_first - offset + edge for edge in transition.window)
    low = max(min(made.tail_first - offset, first - MEASURE_MARGIN), 0)
    high = min(max(made.tail_first - offset + transition.clip.num_frames, last + MEASURE_MARGIN + 1), clip.num_frames)
    position_a = made.position_a - offset
    around = blend.TransitionResult(clip.slice_frames(low, high), (first - low, last - low), position_a - low,
                                    int(transition.frame_b - clip_b.frames[0]), position_a + made.span - low, made.last_b,
                                    made.root, transition.method)
    return measure.transition_metrics(around, clip_a, clip_b, positions)


def _summary_numbers(clip, transitions, trimmed):
    """The composition's :attr:`Composition.numbers` (the loop's are added by the caller)."""
    found = [t.metrics for t in transitions]
    return {
        "duration_s": float(clip.duration),
        "trimmed_s": float(sum(start + end for start, end in trimmed)),
        "worst_visibility": max(m.visibility for m in found),
        "root_speed_jump": max(m.root_speed_jump for m in found),
        "clips_root_speed_jump": max(m.clips_root_speed_jump for m in found),
        "root_speed_jump_ratio": max(m.root_speed_jump / max(m.clips_root_speed_jump, 1e-9) for m in found),
        "heading_rate_rad_s": max(m.heading_rate for m in found),
        "clips_heading_rate_rad_s": max(m.clips_heading_rate for m in found),
        # The largest turn in one frame beyond what the two pieces turn in one frame themselves: 0 is no snap.
        "heading_snap_rad": max(max(m.heading_rate - m.clips_heading_rate, 0.0) * clip.dt for m in found),
        "skating_ratio": max(m.skating / max(m.clips_skating, 1e-9) for m in found),
    }


def _reach(frames, fps):
    """Seconds at a piece's end searched for an automatic point when it plays ``frames`` frames on its own: its later half, up to
    :data:`REACH_SECONDS`."""
    return min(REACH_SECONDS, max(0.5 * frames / fps, MIN_TAIL_SECONDS))


def junction_candidates(pieces: list[Piece], junction: int, trim: bool = False) -> list[points.Candidate]:
    """The ranked points (:class:`..transition.points.Candidate`, frame numbers) where piece ``junction`` (0-based) can hand over
    to the next (the first after the last: a loop's closing junction), searched in the frames and reach :func:`compose` uses."""
    a, b = junction, (junction + 1) % len(pieces)
    kept_a, _ = _kept_clip(pieces[a], a, pieces[0] if a else None, trim)
    kept_b, _ = _kept_clip(pieces[b], b, pieces[0] if b else None, trim)
    return points.transition_candidates(kept_a, kept_b, "end_start", reach_seconds=_reach(kept_a.num_frames, kept_a.fps))


def _check_pieces(pieces, loop):
    """CompositionError unless ``pieces`` is a list of enough :class:`Piece`, each holding a clip."""
    if isinstance(pieces, Piece) or not isinstance(pieces, (list, tuple)):
        raise CompositionError(f"pieces must be a list of Piece, got {type(pieces).__name__}")
    if len(pieces) < (1 if loop else 2):
        raise CompositionError(f"a composition needs at least {'one piece to loop' if loop else 'two pieces'}, got {len(pieces)}")
    for k, piece in enumerate(pieces):
        if not isinstance(piece, Piece) or not hasattr(piece.clip, "frames"):
            raise CompositionError(f"piece {k + 1} must be a Piece holding a clip, got {type(piece).__name__}")
        heading = piece.heading
        if not (isinstance(heading, numbers.Real) and not isinstance(heading, bool) and -np.pi <= heading <= np.pi):
            raise CompositionError(f"{_label(piece, k)}: the heading must be radians from -pi to pi, got {heading!r}")
        if k == 0 and heading != 0:
            raise CompositionError(f"{_label(piece, k)} opens the composition facing its own way: its heading must be 0, got {heading!r}")


def _crowded_or_not(parts, total, start, first_number, clip_b, junction, labels, align, lock_feet, guards, turn):
    """:func:`_junction` after every frame the junction before changed (``guards[0]``); where the piece between them is too
    short for that and the point is chosen, after the previous blend only (``guards[1]``), its foot lock then reaching into
    the frames the previous one's re-solved (:attr:`_Made.crowded`)."""
    try:
        return _junction(parts, total, start, first_number, clip_b, junction, labels, align, lock_feet, guards[0], turn)
    except TransitionError:
        if not isinstance(junction.at, str) or guards[1] >= guards[0]:
            raise
    made = _junction(parts, total, start, first_number, clip_b, junction, labels, align, lock_feet, guards[1], turn)
    made.crowded = True
    return made


def _chained(kept, junctions, following, labels, align, lock_feet, turns):
    """Every junction made in turn on the composition so far: ``(parts, total, start, made)``.

    parts: the composition as (clip, start, stop) index ranges, total frames
    long; start: where the last incoming piece plays unblended; made: a
    :class:`_Made` per junction. CompositionError naming the junction that fails.
    turns: radians per piece, the turn it starts with (:attr:`Piece.heading`).
    Each transition changes only frames after those the one before changed,
    the first none of the composition's first :data:`OPENING_SECONDS` (nor
    the frame of a point given earlier).
    """
    parts, total, start, made = [(kept[0], 0, kept[0].num_frames)], kept[0].num_frames, 0, []
    first_number = int(kept[0].frames[0])
    guard = int(round(OPENING_SECONDS * kept[0].fps))
    if junctions and not isinstance(junctions[0].at, str):
        guard = max(min(guard, int(junctions[0].at[0]) - first_number + 1), 1)
    blend_guard = guard
    for k, junction in enumerate(junctions):
        pair = (labels[k], labels[following[k]])
        try:
            junction_made = _crowded_or_not(parts, total, start, first_number, kept[following[k]], junction, pair, align, lock_feet,
                                            (guard, blend_guard), turns[following[k]])
        except TransitionError as error:
            raise CompositionError(f"junction {k + 1} ({pair[0]} -> {pair[1]}): {error}", junction=k) from None
        except CompositionError as error:
            raise CompositionError(f"junction {k + 1}: {error}", junction=k) from None
        _drop_last(parts, total - junction_made.tail_first)
        transition_clip = junction_made.transition.clip
        parts.append((transition_clip, 0, transition_clip.num_frames))
        start = junction_made.tail_first + junction_made.blend_end
        total = junction_made.tail_first + transition_clip.num_frames
        first_number = int(kept[following[k]].frames[junction_made.last_b]) - start
        guard = junction_made.tail_first + junction_made.transition.window[1] + 1
        blend_guard = junction_made.tail_first + (junction_made.transition.blend_span or junction_made.transition.window)[1] + 1
        made.append(junction_made)
    return parts, total, start, made


def _seam_opening(made, start, positions, dt, reference, label):
    """Where a loop's cycle opens and closes: an index into the first piece's kept clip, and the notes on it.

    The seam is a frame of the first piece between the transition into it
    (closing the cycle) and the one out of it, where neither changed it if
    there is one, else where the Make Loop stitch closes the difference.
    start: where the first piece plays unblended after the closing
    transition; positions ``(F, B, 3)`` its joints; reference its typical
    acceleration per joint. CompositionError when no frame fits.
    """
    closing = made[-1]
    untouched = closing.last_b + max(closing.tail_first + closing.transition.window[1] + 1 - start, 0)
    changed = min(m.tail_first + m.transition.window[0] for m in made)
    for first, last in ((untouched, changed - 1), (closing.last_b, made[0].position_a)):
        if last - first >= 2 * SEAM_GUARD:
            opening = _seam_frame(positions, dt, reference, first + SEAM_GUARD, last - SEAM_GUARD)
            break
    else:
        raise CompositionError(f"{label} is too short to hold the loop's seam between the transition into it and the one out of it: "
                               "give the first piece a longer range")
    if untouched + SEAM_GUARD <= opening < changed - SEAM_GUARD:
        return opening, []
    return opening, [f"loop: the transitions change every frame of {label} between them; the seam's difference is stitched"]


def _closed(clip, root_name):
    """``clip`` closed into a CLAMP loop by Make Loop's seam, and the root mode it used (TRAVEL: the root travels on per cycle)."""
    # The wrap is a frame of the first piece's own motion: no offset for a foot lock to hide, whose
    # re-solved legs would only disturb the transitions' own (measured: junction visibility 1.00 -> 1.31).
    looped = make_loop(clip, clip.frames[0], clip.frames[-1], StitchParameters(method="CUBIC"), root_mode="AUTO",
                       root_bone=root_name, lock_feet=False)
    return looped.clip, looped.root_mode


def _placed(clip, made, junctions, kept, positions, pieces, labels, following, opening):
    """Each junction where it landed in the composed ``clip`` (``opening``: the composition's index of its frame 0).

    Returns the segments before each junction (:class:`Segment`), the
    :class:`ComposedTransition` per junction, the notes on the junctions, and
    those of the notes that are warnings (a junction that stays visible).
    """
    segments, transitions, notes, warnings = [], [], [], []
    out_first, source_first = 0, int(kept[0].frames[opening])
    for k, (junction_made, junction) in enumerate(zip(made, junctions)):
        transition, b = junction_made.transition, following[k]
        position_a = junction_made.position_a - opening
        segments.append(Segment(k, pieces[k].name, source_first, int(transition.frame_a), out_first, position_a))
        out_first, source_first = position_a + 1, int(transition.frame_b) + 1
        metrics = _measured(clip, junction_made, opening, kept[k], kept[b], (positions[k], positions[b]))
        # A loop's closing blend runs on past the seam into the cycle's first frames: the window stops at the file's last frame.
        window, blend_span, warp_span = (None if span is None else
                                         tuple(min(max(junction_made.tail_first - opening + edge, 0), clip.num_frames - 1) for edge in span)
                                         for span in (transition.window, transition.blend_span, transition.warp_span))
        transitions.append(ComposedTransition(k, window, int(transition.frame_a), int(transition.frame_b), transition.method,
                                              transition.length, metrics, transition.candidates, blend_span, warp_span))
        how = "given" if not isinstance(junction.at, str) else "chosen"
        notes.append(f"junction {k + 1} {labels[k]} -> {labels[b]}: frames {transition.frame_a} -> {transition.frame_b} ({how}), "
                     f"{transition.method} {transition.length:g} s")
        if junction_made.crowded:
            notes.append(f"junction {k + 1}: {labels[k]} is too short to hold it after every frame junction {k} re-solved: it starts "
                         f"after junction {k}'s blend, and its foot lock re-solves some of the same frames")
        if pieces[b].heading:
            notes.append(f"junction {k + 1}: {labels[b]} turned {np.degrees(pieces[b].heading):+.0f} degrees over the blend")
        if make.shows(metrics):
            warnings.append(f"junction {k + 1} stays visible: {metrics.summary()}")
            notes.append(warnings[-1])
    return segments, transitions, notes, warnings


def _cycle_numbers(clip, travel_root, dt, reference):
    """A loop's seam_visibility (the cycle played twice: the wrap's acceleration over ``reference``, the first piece's
    typical one) and travel_per_cycle_m (the travelling root's horizontal displacement per cycle, the clips' unit)."""
    played = cycles.chained_positions(clip, travel_root, cycles=2)
    return {"seam_visibility": seam.played_visibility(played, dt, [clip.num_frames - 1], reference),
            "travel_per_cycle_m": float(np.linalg.norm(cycles.chain(clip, travel_root)[:2, 3]))}


def compose(pieces: list[Piece], junctions: list[Junction] | None = None, loop: bool = False, trim: bool = False, align: bool = True,
            lock_feet: bool = True) -> Composition:
    """Pieces of clips into one continuous clip, each junction a transition (see the module), as a :class:`Composition`.

    pieces: :class:`Piece` list, at least 2 (1 with loop: a clip looped
    through a transition into itself), all at one frame rate and with every
    bone of the first piece (matched by name; the result is on its skeleton).
    junctions: None (every junction :class:`Junction`'s defaults) or one per
    handover: len(pieces) - 1, or len(pieces) with loop (the last closes the
    cycle). loop: close the composition into a CLAMP loop whose travel
    accumulates (Make Loop's TRAVEL seam). trim: cut idle frames at each
    piece's ends (see :mod:`.trim`). align: place every piece where the
    previous one leaves the character (floor position and heading; height
    untouched); False keeps each where it stands. lock_feet: planted feet stay planted.

    numbers: duration_s and trimmed_s (seconds); over the junctions, the
    worst of worst_visibility (window acceleration over the pieces' typical
    one for runs as long), root_speed_jump and clips_root_speed_jump (length
    units per second), root_speed_jump_ratio, heading_rate_rad_s and
    clips_heading_rate_rad_s, heading_snap_rad (the largest turn in one
    frame beyond the pieces' own, 0: none) and skating_ratio (toe skating
    over the pieces'). With loop also seam_visibility (the cycle played
    twice: the wrap's acceleration over the first piece's typical one) and
    travel_per_cycle_m (the root's horizontal displacement per cycle, the
    clips' unit). CompositionError (one line) for input that does not fit.
    """
    _check_pieces(pieces, loop)
    labels = [_label(piece, k) for k, piece in enumerate(pieces)]
    count = junction_count(len(pieces), loop)
    junctions = _checked_junctions(junctions, count, pieces, loop)
    kept, trimmed = zip(*(_kept_clip(piece, k, pieces[0] if k else None, trim) for k, piece in enumerate(pieces)))
    following = [(k + 1) % len(pieces) for k in range(count)]
    for k, junction in enumerate(junctions):
        _check_point(junction, k, (kept[k], kept[following[k]]), (labels[k], labels[following[k]]), trim)
    parts, total, start, made = _chained(kept, junctions, following, labels, align, lock_feet, [float(piece.heading) for piece in pieces])

    names = kept[0].bone_names
    positions = [measure.clip_positions(clip, names) for clip in kept]
    dt = kept[0].dt
    notes = [f"{label}: trimmed {start_s:.2f} s idle at the start and {end_s:.2f} s at the end"
             for label, (start_s, end_s) in zip(labels, trimmed)] if trim else []
    opening, first_reference = 0, None
    if loop:
        first_reference = seam.baseline(positions[0], dt).acceleration  # the seam shows the first piece's motion: its yardstick
        opening, seam_notes = _seam_opening(made, start, positions[0], dt, first_reference, labels[0])
        notes += seam_notes
        _drop_last(parts, total - (start + opening + 1 - made[-1].last_b))
    clip = _joined(parts, kept[0].frames[opening] - opening).slice_frames(opening, None)
    root_mode = ""
    if loop:
        clip, root_mode = _closed(clip, names[made[-1].root])

    segments, transitions, junction_notes, warnings = _placed(clip, made, junctions, kept, positions, pieces, labels, following, opening)
    notes += junction_notes
    last_piece = 0 if loop else len(pieces) - 1
    source_last = int(kept[0].frames[opening]) if loop else int(kept[-1].frames[-1])
    last_source_first, last_out_first = int(made[-1].transition.frame_b) + 1, made[-1].position_a - opening + 1
    segments.append(Segment(last_piece, pieces[last_piece].name, last_source_first, source_last, last_out_first, clip.num_frames - 1))

    numbers = _summary_numbers(clip, transitions, trimmed)
    body_numbers, body_notes = grounding.numbers_and_notes(grounding.of_clip(clip, measure.clip_positions(clip, names), positions), "the pieces")
    numbers.update(body_numbers)
    notes += body_notes
    travel_bone = None
    if loop:
        travel_root = made[-1].root if root_mode == "TRAVEL" else None
        numbers.update(_cycle_numbers(clip, travel_root, dt, first_reference))
        notes.append(f"loop: the cycle opens and closes on frame {source_last} of {labels[0]} (root {root_mode}), "
                     f"seam visibility {numbers['seam_visibility']:.2f}, travel {numbers['travel_per_cycle_m']:.2f} m per cycle")
        travel_bone = None if travel_root is None else names[travel_root]
    return Composition(clip, segments, transitions, numbers, tuple(notes), bool(loop), travel_bone, tuple(warnings))
