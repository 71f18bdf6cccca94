"""Make a transition in one call: find where A hands over to B, blend, and keep the blend that shows least.

Frame numbers are the clips' own (``clip.frames`` values), windows 0-based
indices into the result, lengths seconds. With the point, method or length
left to choose, a few of each are tried (each blend costs a few hundredths
of a second on clips of a few hundred frames) and the one whose metrics are
furthest inside the criteria (:func:`criteria_ratios`) is kept: visibility <= 1.2, no root
speed jump or turn beyond the clips' own, toe skating <= 1.5 times theirs.
"""

import numbers
import dataclasses
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from ..errors import TransitionError
from ..measure import grounding, transition as measure, verdict
from ..measure.transition import TransitionMetrics
from ..motion import kinematics, root as root_motion
from ..motion.clip import Clip
from . import blend, distance, points, timewarp
from .align import CLIP_LABELS, on_skeleton, travel_root

METHODS = ("AUTO",) + blend.METHODS
LENGTHS = (0.3, 0.5, 0.7, 1.0)  # seconds tried when the length is chosen, each measured: the best is kept
MIN_SPAN = 3  # frame steps the shortest blend takes (a chosen length is shortened to what short clips allow, never below)
CANDIDATES_TRIED = 5  # best-ranked transition points blended and measured, at most
GOOD_ENOUGH = 0.9  # once a point's best blend is this far inside every criterion (see criteria_ratios), no later point is tried
SEARCH_CONTEXT_SECONDS = 10.0  # of each clip around its points that the search blends and measures (long clips are not blended whole per try)
PICTURE_SIZE = 256  # the distance picture's largest side, in cells
# The criteria each metric is held to, as the largest ratio to its yardstick that passes.
MAX_VISIBILITY = 1.2  # the search's yardstick: a point whose best blend stays within every criterion ends the search
MAX_SKATING_RATIO = 1.5


@dataclass
class Transition:
    """A made transition, where it sits, how it was chosen and what it measures.

    clip: A up to the transition, the blend, then B aligned (on A's skeleton).
    frame_a, frame_b: the transition's frame numbers in A and in B.
    method: "INERTIALIZE" or "CROSSFADE", as used. length: the blend, seconds.
    metrics: :func:`..measure.transition.transition_metrics` of the result.
    candidates: :class:`.points.Candidate` ranked (frame numbers), [] when the point was given.
    distance: ``(n, m)`` float32 windowed distance map over the searched region,
    each cell the minimum of the block of frame pairs it stands for (at most
    :data:`PICTURE_SIZE` a side). distance_frames: ((a_first, a_last),
    (b_first, b_last)) window-start frame numbers the picture covers, inclusive.
    path: ``(P, 2)`` time-warped (A, B) frame numbers over the blend, None without a time warp.
    window: (first, last) 0-based indices into clip's frames that the transition changed: the blend and the frames
    the foot lock re-solved around it; A's own frames play before it, B as aligned after it.
    blend_span: (first, last) 0-based indices into clip's frames that the blend itself made, ``round(length * fps) - 1``
    frames between A's switch frame and B's first unblended one.
    warp_span: (first, last) 0-based indices into clip's frames that the time-warped pairs play (A's switch frame to
    B's first unblended one, ``P`` frames), None without a time warp.
    shortened: the length was chosen, and at the point kept the clips left room for none of :data:`LENGTHS`: the blend
    is the longest that fits there (at least :data:`MIN_SPAN` frame steps).
    """

    clip: Clip
    window: tuple
    frame_a: int
    frame_b: int
    method: str
    length: float
    metrics: TransitionMetrics
    candidates: list
    distance: np.ndarray
    distance_frames: tuple
    path: np.ndarray
    blend_span: tuple = None
    warp_span: tuple = None
    shortened: bool = False

    def concerns(self) -> tuple[str, ...]:
        """What its verdict says beyond the metrics (:func:`..measure.verdict.of_transition`'s ``concerns``): a shortened blend."""
        return verdict.shortened_concerns(self.length if self.shortened else None, min(LENGTHS))


def criteria_ratios(metrics: TransitionMetrics) -> np.ndarray:
    """Each criterion's metric over its limit ``(5,)``: visibility, root speed jump, heading rate, skating, the body off
    its clips' floor or height; <= 1 passes."""
    return np.array([metrics.visibility / MAX_VISIBILITY,
                     metrics.root_speed_jump / max(metrics.clips_root_speed_jump, 1e-9),
                     metrics.heading_rate / max(metrics.clips_heading_rate, 1e-9),
                     metrics.skating / max(MAX_SKATING_RATIO * metrics.clips_skating, 1e-9),
                     max(metrics.floor_offset, metrics.pelvis_offset) / grounding.TOLERANCE])


def shows(metrics: TransitionMetrics) -> bool:
    """True when a transition's verdict is not GOOD (:func:`..measure.verdict.of_transition`): more visible than the clips'
    own motion by any measure, or the body off their floor."""
    return verdict.of_transition(dataclasses.asdict(metrics)).word != verdict.GOOD


def _rank(metrics):
    """Lower is better: blends that meet every criterion first, then the worst criterion decides, the others break near ties."""
    ratios = criteria_ratios(metrics)
    return bool(ratios.max() > 1.0), ratios.max() + 0.1 * ratios.mean()


def _warped_pairs(fa, fb, index_a, index_b, span):
    """(A, B) index pairs ``(span + 1, 2)`` of a crossfade along the time warp of both clips' next ``span`` frames.

    The region is square, so the blend lasts ``span`` frames whatever the
    path (each pair placed halfway between the clips' timings).
    """
    region = distance.distance_map(fa[index_a:index_a + span + 1], fb[index_b:index_b + span + 1])
    times_a, times_b = (timewarp.smooth_times(times) for times in timewarp.blend_timing(timewarp.time_warp(region), 0.5))
    return np.stack([index_a + times_a, index_b + times_b], axis=1)  # fractional: both clips sampled at the same fraction


def _thinned(region_map):
    """``region_map (n, m)`` shrunk to at most PICTURE_SIZE a side, each cell the minimum of its block (minima stay visible)."""
    starts = [np.arange(0, size, -(-size // PICTURE_SIZE)) for size in region_map.shape]
    return np.minimum.reduceat(np.minimum.reduceat(region_map, starts[0], axis=0), starts[1], axis=1).astype(np.float32)


def _given_point(clip_a, clip_b, at, labels):
    """0-based (A index, B index) of ``at = (frame_a, frame_b)`` frame numbers; TransitionError (calling the clips ``labels``)
    if it is not one."""
    try:
        frame_a, frame_b = at
    except (TypeError, ValueError):
        frame_a = frame_b = None
    if not all(isinstance(frame, numbers.Real) for frame in (frame_a, frame_b)):
        raise TransitionError(f"the transition point must be 'auto' or (frame in A, frame in B), got {at!r}")
    for frame, clip, label in zip((frame_a, frame_b), (clip_a, clip_b), labels):
        if not clip.frames[0] <= frame <= clip.frames[-1] or int(frame) != frame:
            raise TransitionError(f"frame {frame:g} is not a frame of {label} (frames {clip.frames[0]:g} to {clip.frames[-1]:g})")
    return int(frame_a - clip_a.frames[0]), int(frame_b - clip_b.frames[0])


def _check_long_enough(clip_a, clip_b, method, length, labels):
    """TransitionError naming (by ``labels``) the clip too short to hold a blend of ``length`` seconds (None: the shortest
    blend, :data:`MIN_SPAN` frame steps).

    Checked before any work: B plays the whole blend, and A too in a CROSSFADE; A leads into it with two frames at least.
    """
    if clip_a.num_frames < 2:
        raise TransitionError(f"{labels[0]} has {clip_a.num_frames} frame, fewer than the 2 a transition out of it needs")
    seconds = MIN_SPAN / clip_a.fps if length is None else length
    needed = int(round(seconds * clip_a.fps)) + 1
    what = f"a blend of {seconds:g} s" if length is not None else f"the shortest blend ({MIN_SPAN} frame steps)"
    for clip, label, plays_whole_blend in ((clip_a, labels[0], method == "CROSSFADE"), (clip_b, labels[1], True)):
        if clip.num_frames < needed and plays_whole_blend:
            raise TransitionError(f"{label} has {clip.num_frames} frames, fewer than the {needed} that {what} needs at {clip_a.fps:g} fps")


def _around(index, count, window, reach):
    """Window starts (first, last) within ``reach`` frames of ``index`` in a clip of ``count`` frames."""
    return max(index - reach, 0), max(min(index + reach, count - window), 0)


def _context(clip, starts, span):
    """Indices (first, stop) of ``clip``'s frames a search blends: :data:`SEARCH_CONTEXT_SECONDS` around its ``starts`` and blends of ``span`` frames."""
    context = int(round(SEARCH_CONTEXT_SECONDS * clip.fps))
    return max(min(starts) - context, 0), min(max(starts) + span + context + 1, clip.num_frames)


def _measuring_whole(clip_a, clip_b) -> Future:
    """The whole clips' :class:`..measure.transition.Yardstick`, their accelerations measured, made on a thread of its own
    while the search runs (only the blend made on the whole clips needs it): posing them is long numpy passes that let go
    of the GIL."""
    def measured():
        whole = measure.Yardstick(clip_a, clip_b, clip_a.bone_names)
        whole.accelerations(clip_a.dt)
        return whole

    pool = ThreadPoolExecutor(1)
    try:
        return pool.submit(measured)
    finally:
        pool.shutdown(wait=False)  # the thread ends with its work, collected or not


def _on_parts(spans, clip_a, clip_b) -> bool:
    """Whether the (offset, stop) ``spans`` a search blends are parts of the clips, not the whole clips (the blend found is
    then made again on the whole clips)."""
    return tuple(map(tuple, spans)) != ((0, clip_a.num_frames), (0, clip_b.num_frames))


def _searched_parts(clip_a, clip_b, starts, longest, measuring):
    """(offset, stop) indices of the parts of both clips a search blends (see :func:`_context`), the parts, and their
    :class:`..measure.transition.Yardstick`: the whole clips' (``measuring``'s) when the parts are the clips, else of
    the parts alone (posing runs frame by frame: a part's joints are the clip's on its frames)."""
    spans = [_context(clip, [start[k] for start in starts], longest) for k, clip in enumerate((clip_a, clip_b))]
    near = tuple(clip.slice_frames(*span) for clip, span in zip((clip_a, clip_b), spans))
    own = measure.Yardstick(*near, clip_a.bone_names) if _on_parts(spans, clip_a, clip_b) else measuring.result()
    return spans, near, own


def _search_root(near):
    """The travelling root of the parts a search blends and their :func:`..motion.root.root_tracks` about it, found once for
    all its blends; (None, None) when there is none (each blend then reports what does not fit, in its own order)."""
    try:
        root = travel_root(*near)
    except TransitionError:
        return None, None
    return root, root_motion.root_tracks(near, root)


def _fitting_lengths(lengths, chosen, clip_a, clip_b, start, methods):
    """``(seconds, shortened)`` of the blends the 0-based point ``start`` (A's, B's index) leaves room for: every one of
    ``lengths`` when given (a blend too long then says so itself); of a ``chosen`` length those that fit, else the longest
    that does (at least :data:`MIN_SPAN` frame steps), shortened. B plays the whole blend, and A too in a CROSSFADE: the
    room is the roomiest of ``methods``' (a CROSSFADE too long for A then says so itself)."""
    if not chosen:
        return [(seconds, False) for seconds in lengths]
    room = clip_b.num_frames - start[1] - 1
    if "INERTIALIZE" not in methods:
        room = min(room, clip_a.num_frames - start[0] - 1)
    fitting = [(seconds, False) for seconds in lengths if int(round(seconds * clip_a.fps)) <= room]
    return fitting or ([(room / clip_a.fps, True)] if room >= MIN_SPAN else [])


def _no_blend(failure, root, near, labels):
    """Raise why no blend was made: clips with no travelling root (every blend met that, whatever else it met first), else
    the last blend's error, else (no point left room for any blend) the room the shortest blend needs."""
    if root is None:
        travel_root(*near)
    if failure is not None:
        raise failure
    raise TransitionError(f"no transition point leaves room for a blend: the shortest ({MIN_SPAN} frame steps) needs {MIN_SPAN + 1} "
                          f"frames of {labels[1]} from the transition point on")


def _candidate_starts(candidates, clip_a, clip_b, still_before, labels):
    """0-based (A index, B index) of the best :data:`CANDIDATES_TRIED` candidates whose blend starts at ``still_before`` or
    later; TransitionError (calling the clips ``labels``) when there is none."""
    starts = [(c.frame_a - int(clip_a.frames[0]), c.frame_b - int(clip_b.frames[0])) for c in candidates]
    starts = [start for start in starts if start[0] + 1 >= still_before][:CANDIDATES_TRIED]
    if not starts:
        after = f" after frame {still_before + int(clip_a.frames[0]):g}" if candidates else ""
        raise TransitionError(f"no transition point found between the end of {labels[0]} and the start of {labels[1]}{after}")
    return starts


def make_transition(clip_a: Clip, clip_b: Clip, at: str | tuple = "auto", method: str = "AUTO", length: float | None = None,
                    timewarp: bool = True, align: bool = True, joints: str | list | None = None, weights: str | np.ndarray = "length",
                    lock_feet: bool = True, reach: float = points.REACH_SECONDS, labels: tuple[str, str] = CLIP_LABELS,
                    still_before: int = 0) -> Transition:
    """Clip A handing over to clip B: the best blend found, and how it was found (see :class:`Transition`).

    at: "auto" (the best :func:`.points.transition_candidates` at A's end and B's start) or (frame_a, frame_b) frame
    numbers. method: "AUTO" (both tried), "INERTIALIZE" or "CROSSFADE". length: seconds, or None to try :data:`LENGTHS`
    (shortened where short clips leave no room for them). timewarp: a CROSSFADE follows the time warp of the two clips
    over the blend. align: False blends B where it stands (placed by the user). joints, weights: the pose features
    compared (see :func:`.points.matching_features`). lock_feet: keep planted feet planted.
    reach: seconds of A's end and B's start an automatic point is searched in. still_before: A's frames before this
    0-based index keep their pose (the blend and its foot lock start after it).
    TransitionError (one line) when no blend fits the clips; its message calls them ``labels`` (A's, B's: the files or pieces they are, say).
    """
    if method not in METHODS:
        raise TransitionError(f"unknown transition method '{method}' (one of {', '.join(METHODS)})")
    if length is not None and not (isinstance(length, numbers.Real) and np.isfinite(length) and length > 0):
        raise TransitionError(f"the blend length must be a positive number of seconds or None (chosen), got {length!r}")
    given = clip_a, clip_b  # the floor and heights the result must keep
    clip_b = on_skeleton(clip_b, clip_a, labels)  # B on A's bones and rest: one clear error before any work, then one skeleton throughout
    _check_long_enough(clip_a, clip_b, method, length, labels)
    measuring = _measuring_whole(clip_a, clip_b)
    poses = [kinematics.clip_forward_kinematics(clip, dtype=np.float32) for clip in (clip_a, clip_b)]
    fa, fb = points.matching_features(clip_a, clip_b, joints, poses, weights, labels)
    window = max(1, min(int(round(points.WINDOW_SECONDS * clip_a.fps)), len(fa), len(fb)))
    if isinstance(at, str) and at == "auto":
        candidates = points.transition_candidates(clip_a, clip_b, "end_start", joints=joints, weights=weights, poses=poses, reach_seconds=reach,
                                                  labels=labels, features=(fa, fb))
        starts = _candidate_starts(candidates, clip_a, clip_b, still_before, labels)
        (a0, a1), (b0, b1) = points.window_regions(clip_a, clip_b, "end_start", window, reach, labels)
    else:
        candidates, starts = [], [_given_point(clip_a, clip_b, at, labels)]
        around = int(round(points.REACH_SECONDS * clip_a.fps))  # the picture's extent around a given point
        (a0, a1), (b0, b1) = (_around(index, len(f), window, around) for index, f in zip(starts[0], (fa, fb)))

    lengths = LENGTHS if length is None else (length,)
    methods = blend.METHODS if method == "AUTO" else (method,)
    ((offset_a, stop_a), (offset_b, stop_b)), near, own = _searched_parts(clip_a, clip_b, starts, int(round(max(lengths) * clip_a.fps)), measuring)
    root, tracks = _search_root(near)  # found once for all the search's blends
    best, failure = None, None
    for index_a, index_b in starts:  # a few points x lengths x methods: each blend is one vectorized pass
        for seconds, shortened in _fitting_lengths(lengths, length is None, clip_a, clip_b, (index_a, index_b), methods):
            span = int(round(seconds * clip_a.fps))
            for chosen in methods:
                pairs = None
                if chosen == "CROSSFADE" and timewarp and index_a + span < len(fa) and index_b + span < len(fb):
                    pairs = _warped_pairs(fa, fb, index_a, index_b, span)
                try:
                    result = blend.transition(near[0], index_a - offset_a, near[1], index_b - offset_b, seconds, chosen, lock_feet=lock_feet,
                                              pairs=None if pairs is None else pairs - (offset_a, offset_b), align_b=align, labels=labels,
                                              still_before=still_before - offset_a, root=root, tracks=tracks)
                except TransitionError as error:  # this length or method does not fit here: the next may
                    failure = error
                    continue
                metrics = measure.transition_metrics(result, *near, yardstick=own, result_positions=blend.joint_positions(result, *own.positions))
                if best is None or _rank(metrics) < best[0]:
                    best = (_rank(metrics), metrics, result, (index_a, index_b, seconds, chosen, pairs, shortened))
        if best is not None and criteria_ratios(best[1]).max() <= GOOD_ENOUGH:
            break
    if best is None:
        _no_blend(failure, root, near, labels)
    _, metrics, result, (index_a, index_b, seconds, chosen, pairs, shortened) = best
    if _on_parts(((offset_a, stop_a), (offset_b, stop_b)), clip_a, clip_b):  # make it on the whole clips
        whole = measuring.result()
        result = blend.transition(clip_a, index_a, clip_b, index_b, seconds, chosen, pairs=pairs, lock_feet=lock_feet, align_b=align,
                                  labels=labels, still_before=still_before)
        metrics = measure.transition_metrics(result, clip_a, clip_b, made_from=given, yardstick=whole,
                                             result_positions=blend.joint_positions(result, *whole.positions))
    else:
        body = grounding.of_clip(result.clip, None, given)
        metrics = replace(metrics, floor_offset=body.floor_offset, pelvis_offset=body.pelvis_offset)
    region_map = distance.distance_map(fa[a0:a1 + window], fb[b0:b1 + window], window)
    number_a, number_b = int(clip_a.frames[0]), int(clip_b.frames[0])  # frame numbers of the clips' first frames
    return Transition(
        clip=result.clip, window=result.window, frame_a=index_a + number_a, frame_b=index_b + number_b, method=chosen, length=float(seconds),
        metrics=metrics, candidates=candidates, distance=_thinned(region_map),
        distance_frames=((a0 + number_a, a1 + number_a), (b0 + number_b, b1 + number_b)), blend_span=(index_a + 1, result.blend_end - 1),
        path=None if pairs is None else pairs + np.array([number_a, number_b]), warp_span=None if pairs is None else (index_a, index_a + len(pairs) - 1),
        shortened=shortened)
