"""Find Loop: candidate loop ranges in a clip, ranked by the seam a raw cut would have.

The search runs in seconds: on the clip's poses :data:`GRID_STEP` apart
(every frame at 30 fps, every fourth at 120, interpolated at 24), so the
same motion at any frame rate gets the same range; the range found is then
placed on the clip's own frames.

1. A per-frame pose feature that makes similar poses close: joint positions
   relative to the root in character space (the root's horizontal position
   and heading removed, so travel and turning do not hide a repeat), plus
   joint velocities times 0.1 s, each joint weighted by its bone's length so
   the legs, spine and arms count and fingers or zero-length end joints do
   not. Positions beat local rotations here: they weigh a rotation by how
   far it moves the body, and they are free of Euler or sign ambiguities.
   The searches run on the feature's 32 principal components.
2. Candidate lengths from the autocorrelation of that feature (FFT,
   O(n log n)), local maxima only, between the shortest and longest length;
   the fundamental period (to a fraction of a step) and its multiples.
3. For each length, the start (to a fraction of a step) that minimizes a windowed pose + velocity
   distance between the frames around start and end, weighted against seams
   at violent moments (heel strikes), where any cut shows most.
4. Each candidate's score is the seam visibility a raw cut there would have
   (see :mod:`..measure.seam`); grades: GOOD below 1.5 with a correlation of at
   least 0.8, FAIR below 5 with at least 0.5, else POOR, the spirit of
   Unity's green/yellow/red loop-match lamp.
"""

from dataclasses import dataclass, field

import numpy as np

from ..errors import LoopError, NoLoopFound
from ..measure.seam import seam_metrics
from ..measure.verdict import REPEATS
from ..motion import features, kinematics, root as root_motion, sampling
from ..motion.clip import Clip

WINDOW_TIME = 0.1  # seconds on each side of the seam in the start/end distance
GRADES = (("GOOD", 1.5, 0.8), ("FAIR", 5.0, REPEATS))  # (grade, score below, correlation at least)
COMPONENTS = 32  # principal components of the pose feature that the searches use
STILL = 1e-4  # a clip whose joints move less than this (its length unit) has no motion to loop
#: A loop must carry at least this share of the motion a loop of its length carries at a median start (see _best_start).
STILL_SHARE = 0.5
#: A clip whose last pose is within this fraction of its median frame-to-frame step of its first is one closed cycle:
#: exporters end a cycle on the first pose again (0) or on the pose a step before it, which sits a fraction of a step away.
CLOSED_STEP = 0.5


@dataclass
class Candidate:
    frame_start: int
    frame_end: int  # the frame that equals the start after looping
    cycles: int  # periods in the loop (1 for an exact closed loop)
    score: float  # seam visibility of a raw cut (lower is better)
    correlation: float  # normalized autocorrelation at this length (1: repeats exactly)
    grade: str = "POOR"
    #: The cut graded, as found in seconds before it is rounded to frames: fractional frame indices from the clip's first.
    graded: tuple = ()

    @property
    def length(self) -> int:
        return self.frame_end - self.frame_start


@dataclass
class Detection:
    candidates: list  # best first
    period: float = None  # fundamental period in frames, None when nothing repeats
    lags: np.ndarray = field(default_factory=lambda: np.zeros(0))  # frames
    correlation: np.ndarray = field(default_factory=lambda: np.zeros(0))  # normalized, 1 at lag 0

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


def grade(score: float, correlation: float) -> str:
    for name, max_score, min_correlation in GRADES:
        if score < max_score and correlation >= min_correlation:
            return name
    return "POOR"


class _Motion:
    """What detection needs of a clip, computed once."""

    def __init__(self, clip):
        self.dt = clip.dt
        # Single precision halves the time and memory; ample for comparing poses.
        pose = kinematics.clip_forward_kinematics(clip, dtype=np.float32)
        self.positions = np.ascontiguousarray(pose[..., :3, 3])
        # Every bone, those above the travelling root in armature space (they do not travel).
        self.root, self.weights = root_motion.find_moving_root(clip, pose), features.bone_weights(clip)
        local = features.character_positions(pose, clip.parents, self.root)
        feature = features.stack_features(local, self.dt, self.weights)
        self.shape_feature = feature[:, : feature.shape[1] // 2]
        self.feature = _principal_components(feature)
        acceleration = np.zeros(self.positions.shape[:2])
        acceleration[1:-1] = np.linalg.norm(self.positions[2:] - 2 * self.positions[1:-1] + self.positions[:-2], axis=-1) / self.dt**2
        typical = np.percentile(acceleration[1:-1], 95, axis=0)
        typical = np.maximum(typical, 0.25 * np.median(typical)) + 1e-9
        # How violent each frame is: 1 = a joint at its 95th-percentile acceleration.
        self.violence = (acceleration / typical).max(axis=1)



#: Find Loop searches poses this far apart (seconds), whatever the clip's rate, and raw cuts are graded on them: a seam's
#: acceleration is its step over the frame time squared, so the same cut sampled at 120 fps would score 16 times what it
#: scores at 30 fps.
GRID_STEP = 1.0 / 30.0


def _steps(clip: Clip, first: float, last: float, step: float) -> Clip:
    """The clip's poses from frame index ``first`` to ``last``, both in, as near ``step`` frames apart as fits a whole number
    of steps between them (a whole step: its frames; else interpolated, cubic), as a clip at the rate they are apart."""
    count = max(1, int(round((last - first) / step)))
    times = np.linspace(first, last, count + 1)
    step = (last - first) / count
    if abs(step - round(step)) < 1e-3 and abs(first - round(first)) < 1e-3:
        taken = clip.take_frames(np.round(times).astype(int))
    else:
        taken = sampling.sample_clip(clip, times, "CUBIC")
    return taken.with_channels(fps=clip.fps / step)


def _on_grid(clip: Clip) -> Clip:
    """The clip's poses :data:`GRID_STEP` apart from its first frame (see :func:`_steps`), at 1 / GRID_STEP fps."""
    step = GRID_STEP * clip.fps
    return _steps(clip, 0.0, np.floor((clip.num_frames - 1) / step + 1e-6) * step, step)


def raw_visibility(clip: Clip, start: float, end: float) -> float:
    """Seam visibility of cutting frame indices start..end (fractions between frames allowed) into a loop without stitching.

    What :func:`..measure.seam.seam_metrics` reports for that raw cut, with the
    root Make Loop would choose for it, on poses about GRID_STEP apart (every
    frame at 30 fps, every fourth at 120, interpolated at 24; at least 6 over
    the cut), so the grade of a cut does not depend on the clip's frame rate.
    """
    segment = _steps(clip, start, end, min(GRID_STEP * clip.fps, (end - start) / 6))
    pose = kinematics.clip_forward_kinematics(segment, dtype=np.float32)
    return seam_metrics(segment, root_motion.find_moving_root(segment, pose), pose=pose).visibility


def _principal_components(feature, count=COMPONENTS, sample=1024):
    """``feature (F, D)`` projected on its ``count`` main directions (found on a frame sample).

    Motion is low-dimensional: a few components keep nearly all of a pose's
    variance, and every later search runs on them instead of all D numbers.
    """
    if feature.shape[1] <= count:
        return feature
    rows = np.unique(np.linspace(0, len(feature) - 1, min(len(feature), sample)).astype(int))
    mean = feature[rows].mean(axis=0)
    _, _, directions = np.linalg.svd(feature[rows] - mean, full_matrices=False)
    return (feature - mean) @ directions[:count].T


def autocorrelation(feature: np.ndarray, max_lag: int) -> np.ndarray:
    """Normalized autocorrelation ``(max_lag + 1,)`` of ``feature (F, D)`` summed over dimensions.

    FFT based, zero padded (no wrap-around), divided by the overlap at each
    lag so long lags are not penalized, and by the value at lag 0.
    """
    x = feature - feature.mean(axis=0)
    n = len(x)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    power = np.zeros(size // 2 + 1)
    for first in range(0, x.shape[1], 64):  # dimension chunks bound the memory
        spectrum = np.fft.rfft(x[:, first:first + 64], size, axis=0)
        power += (spectrum.real**2 + spectrum.imag**2).sum(axis=1)
    r = np.fft.irfft(power, size)[: max_lag + 1]
    r /= n - np.arange(max_lag + 1)
    return r / max(r[0], 1e-300)


def _peaks(r, low, high):
    lags = np.arange(max(low, 1), min(high, len(r) - 2) + 1)
    if not len(lags):
        return lags
    is_peak = (r[lags] > r[lags - 1]) & (r[lags] >= r[lags + 1]) & (r[lags] > 0.0)
    return lags[is_peak]


def _refine(r, lag):
    """Sub-frame position of a peak by a parabola through its neighbours."""
    a, b, c = r[lag - 1], r[lag], r[lag + 1]
    denominator = a - 2.0 * b + c
    return lag + (0.5 * (a - c) / denominator if abs(denominator) > 1e-12 else 0.0)


def _refine_period(r, period, max_lag):
    """The period that best explains the peaks at its multiples (least squares through them)."""
    lags, weights = [], []
    for k in range(1, int(max_lag // period) + 1):
        near = int(round(k * period))
        window = np.arange(max(near - 2, 1), min(near + 2, max_lag) + 1)
        peak = window[np.argmax(r[window])]
        if r[peak] > 0.3 and r[peak] >= r[peak - 1] and r[peak] >= r[peak + 1]:
            lags.append(_refine(r, peak) / k)
            weights.append(k * k * r[peak])
    return float(np.average(lags, weights=weights)) if lags else period


def _best_start(motion, length, first, last):
    """Best start index for a loop of ``length`` steps within indices [first, last], to a fraction of a step (a parabola
    through the cost at its least and either side), and that cost."""
    x = motion.feature
    starts = np.arange(first, last - length + 1)
    if not len(starts):
        return None, np.inf
    distance = np.sum((x[starts] - x[starts + length]) ** 2, axis=1)
    half = max(1, int(round(WINDOW_TIME / motion.dt)))
    padded = np.pad(distance, half, mode="edge")
    windowed = np.convolve(padded, np.ones(2 * half + 1) / (2 * half + 1), mode="valid")
    cost = windowed * (1.0 + motion.violence[starts] + motion.violence[starts + length])
    # A still stretch of a moving clip closes perfectly and carries nothing: a loop must carry its share of the motion.
    travelled = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(x, axis=0), axis=1))]
    carried = travelled[starts + length] - travelled[starts]
    cost = np.where(carried >= STILL_SHARE * np.median(carried), cost, np.inf) if np.median(carried) > 0.0 else cost
    if not np.isfinite(cost).any():
        return None, np.inf
    best = int(np.argmin(cost))
    shift = _refine(cost, best) - best if 0 < best < len(cost) - 1 and np.isfinite(cost[best - 1:best + 2]).all() else 0.0
    return float(starts[best] + np.clip(shift, -0.5, 0.5)), float(cost[best])


def _closed_loop(motion, segment):
    """True when the clip ``segment`` ends on its first pose, or nearly (a pre-cut cycle: see CLOSED_STEP); ``motion`` is
    its search grid's (its median step between poses GRID_STEP apart, or a frame apart when frames are further)."""
    ends = kinematics.clip_forward_kinematics(segment.take_frames(np.r_[0, segment.num_frames - 1]), dtype=np.float32)
    shape = features.character_positions(ends, segment.parents, motion.root)
    shape = shape * np.sqrt(motion.weights)[None, :, None].astype(shape.dtype)
    step = np.linalg.norm(shape[1] - shape[0])
    typical = np.median(np.linalg.norm(np.diff(motion.shape_feature, axis=0), axis=1)) * max(1.0, segment.dt / motion.dt)
    return step <= CLOSED_STEP * typical + 1e-9


def _search_range(clip, skip_edges, frame_start, frame_end):
    """The frame indices ``(first, last)`` Find Loop searches: the range asked (checked), less ``skip_edges`` seconds."""
    frames = clip.frames
    first = int((frame_start if frame_start is not None else frames[0]) - frames[0])
    last = int((frame_end if frame_end is not None else frames[-1]) - frames[0])
    if frame_start is not None or frame_end is not None:
        shown = f"search range {frames[0] + first:g}-{frames[0] + last:g}"
        if last <= first:
            raise LoopError(f"{shown} is reversed or empty: the end must come after the start")
        if last < 0 or first > clip.num_frames - 1:
            raise LoopError(f"{shown} lies outside the clip's frames {frames[0]:g}-{frames[-1]:g}")
    first, last = max(first, 0), min(last, clip.num_frames - 1)
    skip = int(round(skip_edges / clip.dt))
    return first + skip, last - skip


def _placed(segment, start, length, span):
    """The frame indices ``(start, end)`` in ``segment`` of a loop found at grid index ``start`` ``length`` grid steps long
    (both fractional), ``span`` frames per step: its start at the nearest frame, its length the nearest whole number of
    frames, inside the clip; None when it does not fit."""
    frames = max(1, int(round(length * span)))
    first = min(int(round(start * span)), segment.num_frames - 1 - frames)
    return (first, first + frames) if first >= 0 else None


def find_loops(clip: Clip, min_length: float = 0.4, max_length: float = 4.0, cycles: int = 0, skip_edges: float = 0.0,
               frame_start: float | None = None, frame_end: float | None = None, limit: int = 8) -> Detection:
    """Candidate loops of ``clip``, best first.

    min_length, max_length, skip_edges: seconds. cycles: only loops of this
    many periods (0: every multiple). frame_start, frame_end: search inside
    this range of frames only (default the whole clip). The search runs on
    poses GRID_STEP apart (see the module's docstring); the detection's
    period and lags are the clip's frames.
    """
    frames = clip.frames
    first, last = _search_range(clip, skip_edges, frame_start, frame_end)
    if last - first < 4:
        return Detection([])
    segment = clip.slice_frames(first, last + 1)
    motion = _Motion(_on_grid(segment))
    if len(motion.feature) < 5 or np.ptp(motion.shape_feature, axis=0).max() < STILL:
        return Detection([])  # nothing moves, so nothing repeats
    span = GRID_STEP * clip.fps  # frames per grid step
    n = len(motion.feature)
    candidates = []
    closed = _closed_loop(motion, segment)
    if closed and (cycles in (0, 1)):
        candidates.append(Candidate(int(frames[first]), int(frames[last]), 1, raw_visibility(segment, 0, segment.num_frames - 1), 1.0,
                                    graded=(float(first), float(last))))

    low = max(2, int(np.floor(min_length / GRID_STEP)))
    high = min(int(np.ceil(max_length / GRID_STEP)), n - 3)
    r = autocorrelation(motion.feature, max(high + 1, 2))
    peaks = _peaks(r, low, high)
    period = None
    if len(peaks):
        strongest = r[peaks].max()
        fundamental = peaks[np.argmax(r[peaks] >= 0.8 * strongest)]
        period = _refine_period(r, _refine(r, fundamental), len(r) - 2)
        multiples = [cycles] if cycles else range(1, int(high // period) + 1)
        for k in multiples:
            length = int(round(k * period))
            start = _best_start(motion, length, 0, n - 1)[0] if low <= length <= min(high, n - 1) else None
            placed = _placed(segment, start, k * period, span) if start is not None else None
            if placed is not None:
                # Graded at its length in seconds, not as rounded to frames: the same motion at any rate scores the same.
                ideal = min(start * span, segment.num_frames - 1 - k * period * span)
                correlation = float(r[min(length, len(r) - 1)])
                candidates.append(Candidate(int(frames[first + placed[0]]), int(frames[first + placed[1]]), k,
                                            raw_visibility(segment, ideal, ideal + k * period * span), correlation,
                                            graded=(first + ideal, first + ideal + k * period * span)))
    if closed and not candidates:
        # A pre-cut cycle is shorter than two of its periods: say so rather than "nothing repeats".
        raise LoopError(f"no loop of {cycles} cycles fits: the clip is one closed loop (its last frame repeats its first), "
                        f"frames {int(frames[first])}-{int(frames[last])}, which loops only as a whole: ask for 1 cycle")
    for candidate in candidates:
        candidate.grade = grade(candidate.score, candidate.correlation)
    order = {"GOOD": 0, "FAIR": 1, "POOR": 2}
    # Of two POOR cuts, one of a motion that repeats there (a poor raw seam, which Make Loop closes) comes first.
    candidates.sort(key=lambda c: (order[c.grade], c.correlation < REPEATS, c.score))
    return Detection(candidates[:limit], period * span if period else None, np.arange(len(r)) * span, r)


def _longer_loop(clip, min_length, max_length, cycles, skip_edges):
    """Seconds of the best loop found when the search may run up to the whole clip, when longer than ``max_length``; else None."""
    if cycles or clip.duration <= max_length:
        return None
    best = find_loops(clip, min_length, clip.duration, cycles, skip_edges).best
    return best.length * clip.dt if best is not None and best.length * clip.dt > max_length else None


def loop_range(clip: Clip, given: tuple[int, int] | None = None, whole: bool = False, min_length: float = 0.4, max_length: float = 4.0,
               cycles: int = 0, skip_edges: float = 0.0) -> tuple[tuple[int, int], Detection | None]:
    """``((start, end), detection)``: the frames Make Loop closes (``given``, the clip's whole range, else the best loop
    :func:`find_loops` finds with these settings) and the detection (None unless it ran). NoLoopFound when it finds none;
    LoopError for a single pose, which has no motion to loop. NoLoopFound says how long a loop found beyond ``max_length`` is."""
    if clip.num_frames < 2:
        raise LoopError("the file holds a single pose (1 frame): a loop needs motion; convert it instead")
    if given is not None:
        return (int(given[0]), int(given[1])), None
    if whole:
        return (int(clip.frames[0]), int(clip.frames[-1])), None
    detection = find_loops(clip, min_length, max_length, cycles, skip_edges)
    if detection.best is None:
        raise NoLoopFound(cycles, min_length, max_length, _longer_loop(clip, min_length, max_length, cycles, skip_edges))
    return (detection.best.frame_start, detection.best.frame_end), detection
