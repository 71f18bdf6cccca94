"""Sync: a smooth, monotonic time warp that puts a motion's keyposes on a song's beats.

The warp maps output time (the song's clock, seconds from the output's first
frame) to input time (seconds into the motion). Its slope is the local
*stretch*: the speed the motion plays at, 1 as captured, above 1 faster. The
motion's tempo (keyposes per minute) and the song's (beats per minute) set
how many keyposes go on each beat, so that the overall speed stays inside
``max_stretch``; dynamic programming then gives each keypose its own beat
(order kept), and the warp passes through those pairs, its slope everywhere
inside the bounds, and ends on a beat. Through a composition's junctions the
warp plays no faster than keeps each as sharp against its clips, as they play,
as it was composed (:class:`Ceiling`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..errors import SyncError
from ..measure import seam as seam_measure, verdict
from ..motion import sampling
from ..motion.clip import Clip

MAX_STRETCH = (0.8, 1.25)
SIMPLE_RATIOS = (1.0, 0.5, 2.0)  # keyposes per beat, tried in this order (the first wins a tie)
RATIOS = SIMPLE_RATIOS + (2.0 / 3.0, 1.5)  # and two keyposes to three beats, three to two: where no simple one reaches
BEATS_PER_BAR = 4
MARGIN = 0.15  # share of the log stretch range kept clear inside each bound when keyposes are matched
BOUND_WEIGHT = 1000.0  # cost of a match whose stretch leaves the inner bounds by the whole log range
DRIFT_WEIGHT = 4.0  # cost per squared frame a match beyond the bounds moves its keypose off its beat (the warp keeps to the bounds)
SKIP_COST = 2.0  # cost of leaving a keypose off the beats, plus as much again times its strength
TRIM_COST = 0.5  # cost of starting the motion after its first frame
LENGTH_REWARD = 5.0  # per beat's worth of input shown (from the start to the end): performances that show more of the motion win over cheaper shorter ones
EARLY_COST = 5.0  # per beat a performance ends before the song (or --seconds) while it has motion left to fill it
CLEARANCE = 0.1  # s: a performance that ends after its last matched keypose ends this far before the next one
OVERSAMPLING = 8  # warp samples per output frame when inverting it
EASING = 2.0  # per second: the fastest the warp's ceiling changes around a junction span
SPAN_SKIPS = 4  # keyposes a match across a junction span may leave off the grid at once (its keyposes change rhythm)


@dataclass
class Sync:
    """A motion retimed to a song's beats. Times in seconds; output time 0 is the output's first frame and the song's start.

    fps: output frames per second.
    input_times: ``(T,)`` the input time each output frame shows, increasing.
    stretch: ``(T,)`` the warp's slope (input seconds per output second) at each output frame.
    anchors: ``(A, 2)`` (output, input) times the warp passes through: the start, the matched keyposes, the end.
    grid: ``(M,)`` the times keyposes may land on: the beats, cut into the steps of every part's :func:`division` (half
    beats at two keyposes per beat or two to three beats, thirds at three to two).
    matched: ``(K,)`` output time each keypose was put on, NaN where left off the grid or outside the performance.
    ratio: keyposes per beat (1, 1/2, 2, 2/3 or 3/2; the most of any part). speed: the overall speed the tempos asked (ratio x song
    tempo / motion tempo; the parts' mean in log).
    motion_bpm, song_bpm: keyposes and beats per minute.
    end: output time of the last frame's beat.
    offsets_before: ``(k,)`` each keypose inside the performance's reach minus the nearest grid time, played as captured from 0.
    offsets_after: ``(k',)`` the same for the keyposes the performance shows, after the warp.
    parts: :class:`PartTempo` per clip of a composition (one for a single motion).
    """

    fps: float
    input_times: np.ndarray
    stretch: np.ndarray
    anchors: np.ndarray
    grid: np.ndarray
    matched: np.ndarray
    ratio: float
    speed: float
    motion_bpm: float
    song_bpm: float
    end: float
    offsets_before: np.ndarray
    offsets_after: np.ndarray
    parts: tuple = ()

    @property
    def input_frames(self) -> np.ndarray:
        """``(T,)`` fractional input frame indices at ``fps`` (the input's rate)."""
        return self.input_times * self.fps

    @property
    def output_times(self) -> np.ndarray:
        """``(T,)`` output frame times."""
        return np.arange(len(self.input_times)) / self.fps


def song_tempo(beats: np.ndarray) -> float:
    """Beats per minute of ``beats (M,)`` (seconds): 60 over the mean of the spacings within 10% of their median (beat times
    come on the envelope's hops, so one spacing is a hop off either way; their mean is not), or over the median itself when
    none is (spacings of two tempos half and half); 0 with fewer than two beats."""
    beats = np.asarray(beats, dtype=float)
    if len(beats) < 2:
        return 0.0
    spacing = np.diff(beats)
    typical = float(np.median(spacing))
    steady = spacing[np.abs(spacing - typical) <= 0.1 * typical]
    return float(60.0 / (np.mean(steady) if len(steady) else typical))


def division(ratio: float) -> int:
    """Grid steps per beat a part at ``ratio`` keyposes per beat lands on: 1 at one keypose per beat or fewer, 2 at two
    per beat or two to three beats, 3 at three to two."""
    return Fraction(ratio).limit_denominator(4).numerator


def ratio_text(ratio: float) -> str:
    """Keyposes per beat as a fraction: '1', '2', '1/2', '2/3', '3/2'."""
    return str(Fraction(ratio).limit_denominator(4))


def _best_ratio(motion_bpm: float, song_bpm: float, max_stretch: tuple[float, float], name: str,
                ratios: tuple = RATIOS) -> tuple[float, float]:
    """(keyposes per beat, speed asked): of ``ratios``, the one whose speed ``ratio * song_bpm / motion_bpm`` lies inside
    ``max_stretch`` keeping :data:`MARGIN` of the log range clear of both bounds, else inside it, a simple ratio
    (:data:`SIMPLE_RATIOS`) before another, then nearest 1 in log; SyncError without tempos."""
    low, high = max_stretch
    if motion_bpm <= 0.0 or song_bpm <= 0.0:
        raise SyncError(f"{name} has too few keyposes or the song too few beats to sync", clip=name)
    speeds = np.array(ratios) * song_bpm / motion_bpm
    clear = MARGIN * np.log(high / low)
    roomy = (np.log(speeds) >= np.log(low) + clear) & (np.log(speeds) <= np.log(high) - clear)
    within = (speeds >= low) & (speeds <= high)
    simple = np.isin(ratios, SIMPLE_RATIOS)
    tier = np.where(within, np.where(simple, 0, 2) + ~roomy, 4)
    best = int(np.lexsort((np.round(np.abs(np.log(speeds)), 12), tier))[0])
    return ratios[best], float(speeds[best])


def choose_ratio(motion_bpm: float, song_bpm: float, max_stretch: tuple[float, float] = MAX_STRETCH,
                 name: str = "the motion") -> tuple[float, float]:
    """(keyposes per beat, speed) for a loop's cycle: of :data:`SIMPLE_RATIOS`, the one whose speed ``ratio * song_bpm /
    motion_bpm`` is nearest 1 in log, those whose speed keeps :data:`MARGIN` of the log range clear of both bounds first
    (room for the keyposes' own unevenness), then those inside ``max_stretch`` (low, high); where none is inside, the
    nearest 1 (the loop then plays at the nearest bound). SyncError naming ``name`` without tempos.
    """
    return _best_ratio(motion_bpm, song_bpm, max_stretch, name, SIMPLE_RATIOS)


def stretch_to_fit(speed: float, max_stretch: tuple[float, float]) -> tuple[float, float]:
    """The ``--max-stretch`` (low, high) nearest ``max_stretch`` that holds ``speed``, its new bound rounded outwards to 0.05."""
    low, high = max_stretch
    return (min(low, np.floor(speed * 20.0 + 1e-9) / 20.0), max(high, np.ceil(speed * 20.0 - 1e-9) / 20.0))


@dataclass
class PartTempo:
    """One clip of a performance as synced: its name, first input second, keyposes per beat, speed and keyposes per minute.
    needed: the speed its tempo asked when that lay outside the stretch allowed (it then plays at ``speed``, the nearest
    bound, and its keyposes drift off the beats), else None; fit: the ``--max-stretch`` that would hold ``needed``; goal: what
    ``needed`` was for (a loop's cycle: whole bars of the song)."""

    name: str
    first: float
    ratio: float
    speed: float
    motion_bpm: float
    needed: float | None = None
    fit: tuple[float, float] | None = None
    goal: str = verdict.TEMPO_GOAL


def reach_tempo(part: str, first: float, motion_bpm: float, song_bpm: float, max_stretch: tuple[float, float]) -> PartTempo:
    """The :class:`PartTempo` of a clip named ``part``: the ratio and speed of :func:`choose_ratio`, or, when no ratio's speed
    lies inside ``max_stretch``, the nearest ratio played at the nearest bound, with the speed it needed."""
    ratio, speed = _best_ratio(motion_bpm, song_bpm, max_stretch, part)
    if max_stretch[0] <= speed <= max_stretch[1]:
        return PartTempo(part, first, ratio, speed, motion_bpm)
    return PartTempo(part, first, ratio, float(np.clip(speed, *max_stretch)), motion_bpm, speed, stretch_to_fit(speed, max_stretch))


MIN_PART_KEYPOSES = 4  # keyposes a clip needs for a tempo of its own; fewer take the tempo of the clip before (or after)


def part_tempi(keys: np.ndarray, song_bpm: float, parts: list, max_stretch: tuple[float, float],
               name: str) -> tuple[np.ndarray, list[PartTempo]]:
    """Which part each keypose ``keys (K,)`` (input seconds) is in ``(K,)``, and each part's :class:`PartTempo`.

    parts: ``[(name, first input second), ...]`` in order. A part's tempo is its keyposes' median spacing; a part with too
    few keyposes takes its neighbour's (the whole motion's, named ``name``, when none has enough). A part whose tempo
    cannot meet ``song_bpm`` inside ``max_stretch`` plays at the nearest bound (see :func:`reach_tempo`).
    """
    parts = sorted(parts, key=lambda part: float(part[1]))
    firsts = np.array([float(first) for _, first in parts])
    owner = np.clip(np.searchsorted(firsts, keys + 1e-9, side="right") - 1, 0, len(parts) - 1)
    counts = np.bincount(owner, minlength=len(parts))
    own = [k for k in range(len(parts)) if counts[k] >= MIN_PART_KEYPOSES]
    tempi = {k: reach_tempo(parts[k][0], float(firsts[k]), 60.0 / float(np.median(np.diff(keys[owner == k]))), song_bpm, max_stretch)
             for k in own}
    whole = None if own else reach_tempo(name, 0.0, 60.0 / float(np.median(np.diff(keys))), song_bpm, max_stretch)
    result = []
    for k, (part_name, _) in enumerate(parts):  # a few clips
        if k in tempi:
            result.append(tempi[k])
            continue
        lender = max((j for j in own if j < k), default=min(own, default=None))
        result.append(replace(tempi[lender] if lender is not None else whole, name=part_name, first=float(firsts[k])))
    return owner, result


def _landing(owner, tempi, grid_division):
    """``(K, M)`` the grid steps (``grid_division`` a beat, the first on a beat) each keypose may land on: those of its part's
    own :func:`division`: a part at one keypose per beat or fewer lands on beats only."""
    steps = np.arange(len(grid_division[0]))
    own = np.array([division(tempi[k].ratio) for k in owner])
    return (steps[None, :] - grid_division[1]) * own[:, None] % grid_division[2] == 0


def beat_grid(beats: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Grid times ``(M,)`` keyposes may land on and which of them are beats ``(M,)``: the beats, each beat cut into ``steps``."""
    beats = np.asarray(beats, dtype=float)
    if steps <= 1 or len(beats) < 2:
        return beats.copy(), np.ones(len(beats), dtype=bool)
    fractions = np.arange(steps) / steps
    grid = np.append((beats[:-1, None] + fractions[None, :] * np.diff(beats)[:, None]).ravel(), beats[-1])
    return grid, np.arange(len(grid)) % steps == 0


def loop_beats(beats: np.ndarray, seconds: float, beats_per_bar: int = BEATS_PER_BAR) -> int:
    """Beats in the longest whole number of bars from the first beat that ends within ``seconds``; 0 if not one bar fits.

    beats ``(M,)`` seconds. A loop from beat 0 to the returned beat index plays whole bars.
    """
    beats = np.asarray(beats, dtype=float)
    fits = np.flatnonzero(beats <= seconds + 1e-9)
    last = int(fits[-1]) if len(fits) else 0
    return (last // beats_per_bar) * beats_per_bar


class _Costs:
    """The matching's costs in log stretch: bounds (low, high) and inner bounds, the target speed, the beat and the frame (s).

    speed: one target speed, or one per keypose ``(K, 1)`` (each clip of a composition has its own); :meth:`at` gives a
    keypose's own costs. ceiling: the fastest the warp may play here (inside a junction span), which lowers the upper
    bound and the target speed to it; the log range that scales the costs stays the bounds'.
    """

    def __init__(self, bounds, speed, beat, frame, ceiling=np.inf):
        self.bounds, self.low, self.high, self.frame = bounds, bounds[0], np.minimum(bounds[1], ceiling), frame
        self.log_low, self.log_high = np.log(self.low), np.log(self.high)
        self.width = np.log(bounds[1] / bounds[0])
        speed = np.minimum(speed, self.high)
        log_speed = np.log(speed)
        margin = MARGIN * (self.log_high - self.log_low)
        # A target inside a margin opens that side's margin up to the bound itself: its clip's unevenness needs the room.
        self.inner = (np.where(log_speed < self.log_low + margin, self.log_low, self.log_low + margin),
                      np.where(log_speed > self.log_high - margin, self.log_high, self.log_high - margin))
        self.speed, self.beat = speed, beat

    def at(self, i):
        """The costs of keypose i alone (its own target speed)."""
        return self if np.ndim(self.speed) == 0 else _Costs(self.bounds, float(np.ravel(self.speed)[i]), self.beat, self.frame)

    def capped(self, ceiling):
        """These costs for matches the warp plays no faster than ``ceiling`` (one, or one per match, shaped to broadcast)."""
        return _Costs(self.bounds, self.speed, self.beat, self.frame, ceiling)

    def bound(self, stretch):
        """Cost of stretches ``(...)`` (positive): soft outside the inner bounds."""
        log = np.log(stretch)
        inner = np.maximum(0.0, np.maximum(log - self.inner[1], self.inner[0] - log)) / self.width
        return BOUND_WEIGHT * inner ** 2

    def segment(self, input_span, output_span):
        """Cost of playing ``input_span`` seconds in ``output_span``: the squared offset (beats) from the target speed, the inner
        bounds on the stretch the warp can play (kept inside the bounds), and beyond the bounds the squared frames that moves
        the keypose off its grid time; infinite for no output time."""
        played = output_span > 1e-9
        stretch = input_span / np.where(played, output_span, 1.0)
        drift = np.abs(output_span - np.clip(output_span, input_span / self.high, input_span / self.low)) / self.frame
        cost = ((output_span - input_span / self.speed) / self.beat) ** 2 + self.bound(np.clip(stretch, self.low, self.high)) \
            + DRIFT_WEIGHT * drift ** 2
        return np.where(played, cost, np.inf)


def _start_costs(keys, strength, grid, costs, spans):
    """Cost ``(K, M)`` of a performance whose first matched keypose is i on grid time j, and its input start ``(K, M)``.

    The output's first frame shows input ``key - speed * grid`` (a trimmed head when the motion has more before its
    keypose than the time before the beat), but not before the input's start nor before the end of the keypose
    before i (the keyposes before i are left out of the performance), and not inside a span of ``spans (S, 2)`` (input
    seconds: a junction is shown whole or not at all): such a start moves back to the span's start (showing the keyposes
    before i there unmatched when it must), or on to its end when that comes before the keypose.
    """
    key, time = keys[:, None], grid[None, :]
    earliest = np.concatenate([[0.0], np.minimum(keys[:-1] + CLEARANCE, keys[1:])])[:, None]
    start = np.broadcast_to(np.maximum(earliest, key - costs.speed * time), (len(keys), len(grid))).copy()
    for first, last in spans:  # a few junctions
        inside = (start > first + 1e-9) & (start < last - 1e-9)
        start = np.where(inside, np.where((first >= earliest - 1e-9) | (last >= key - 1e-9), max(first, 0.0), last), start)
    head = np.where(time > 1e-9, costs.segment(key - start, time), 0.0)
    head = np.where((time <= 1e-9) | (key - start > 1e-9), head, np.inf)
    cut = np.concatenate([[0.0], np.cumsum(SKIP_COST * (1.0 + strength))])[:-1, None]
    # The input before the start is not shown: it forgoes the reward :func:`_ends` gives for the input reached.
    unseen = LENGTH_REWARD * start / (costs.beat * costs.speed)
    return head + cut + TRIM_COST * (start > 1e-9) + unseen, start


def _best_step(cost, keys, strength, grid, costs, i, gaps, ceiling):
    """The cheapest way ``(M,)`` to reach keypose i on each grid time from keypose i-1 or i-2 (or up to :data:`SPAN_SKIPS`
    before it across a junction span), and where from ``(2, M)``; each match no faster than the ``ceiling``
    (:class:`Ceiling`) lets it (:meth:`_Costs.capped`). All the keyposes it may come from are weighed at once."""
    backs = np.arange(1, min(i, SPAN_SKIPS + 1) + 1)
    backs = backs[(backs <= 2) | ceiling.lowered(keys[i - backs], keys[i])]  # (B,)
    reach = gaps * ((backs + 1) // 2)  # grid steps each may span: gaps for every two keyposes
    steps = np.arange(1, reach.max() + 1)
    before = np.arange(len(grid))[None, :] - steps[:, None]  # (G, M)
    spot = np.maximum(before, 0)
    valid = (before >= 0)[None] & (steps[None, :, None] <= reach[:, None, None])  # (B, G, M)
    capped = costs.at(i).capped(ceiling.capacity(keys[i - backs], keys[i])[:, None, None])
    total = cost[i - backs][:, spot] + capped.segment((keys[i] - keys[i - backs])[:, None, None], grid[None, None, :] - grid[spot][None])
    skipped = np.concatenate([[0.0], np.cumsum(strength)])  # strengths of the keyposes left off between
    total += (SKIP_COST * (backs - 1 + skipped[i] - skipped[i - backs + 1]))[:, None, None]
    total = np.where(valid, total, np.inf).reshape(-1, len(grid))
    pick = np.argmin(total, axis=0)  # the nearest keypose and the shortest step win a tie
    best = total[pick, np.arange(len(grid))]
    came_i, came_j = i - backs[pick // len(steps)], spot[pick % len(steps), np.arange(len(grid))]
    return best, np.where(np.isfinite(best), came_i, -1), np.where(np.isfinite(best), came_j, -1)


def _ending_cost(end, finish, end_limit, duration, costs):
    """The objective's terms for a performance ending at output ``end`` on input ``finish`` (seconds, arrays alike): the
    reward for the input shown, and the cost of the song's time left (to ``end_limit``) that the input left (to ``duration``)
    could have filled at the target speed."""
    early = np.minimum(end_limit - end, (duration - finish) / costs.speed)
    return EARLY_COST * np.maximum(early, 0.0) / costs.beat - LENGTH_REWARD * finish / (costs.beat * costs.speed)


def _ends(cost, keys, grid, on_beat, beats, costs, limits):
    """Per state ``(K, M)``: the objective of ending there, the end time and the input time at the end.

    Either on the state's own grid time when it is a beat, or on the next beat after it (within ``limits``: the
    output's end and the input's length) at a stretch inside the bounds, ending before the next keypose. The objective
    rewards the input shown and costs the song's time left undanced that the input left could have filled.
    """
    end_limit, duration, allowed = limits
    objective = np.where(on_beat[None, :] & allowed(grid)[None, :] & (grid[None, :] <= end_limit + 1e-9), cost, np.inf)
    end, finish = np.broadcast_to(grid, cost.shape).copy(), np.broadcast_to(keys[:, None], cost.shape).copy()
    objective += _ending_cost(end, finish, end_limit, duration, costs)
    following = np.minimum(np.searchsorted(beats, grid + 1e-6), len(beats) - 1)
    room = np.minimum(duration, np.concatenate([keys[1:] - CLEARANCE, [duration]]))[:, None]
    for step in (0, 1):
        target = beats[np.minimum(following + step, len(beats) - 1)][None, :]
        span = target - grid[None, :]
        stretch = np.minimum(np.clip(costs.speed, *np.exp(costs.inner)), (room - keys[:, None]) / np.maximum(span, 1e-9))
        ok = (span > 1e-9) & (target <= end_limit + 1e-9) & allowed(target) & (stretch >= np.exp(costs.log_low))
        value = cost + costs.segment(stretch * span, span) + _ending_cost(target, keys[:, None] + stretch * span, end_limit, duration, costs)
        better = ok & (value < objective)
        objective = np.where(better, value, objective)
        end, finish = np.where(better, target, end), np.where(better, keys[:, None] + stretch * span, finish)
    return objective, end, finish


def match_keyposes(keys: np.ndarray, strength: np.ndarray, grid: np.ndarray, on_beat: np.ndarray, beats: np.ndarray,
                   speed: float | np.ndarray, max_stretch: tuple[float, float], duration: float, end_limit: float,
                   allowed_ends: np.ndarray | None = None, gaps: int = 3, frame: float = 1.0 / 30.0,
                   spans: np.ndarray | None = None, ceiling: Ceiling | None = None,
                   landing: np.ndarray | None = None) -> tuple[list, float, float, float]:
    """Each keypose's grid time by dynamic programming: ``([(keypose, grid index)...], input start, end, input end)``.

    keys ``(K,)`` input seconds, increasing; strength ``(K,)``; grid ``(M,)`` output seconds with ``on_beat (M,)``;
    beats ``(N,)``; speed the target stretch, or each keypose's ``(K,)``; duration the input's seconds; end_limit the latest output end;
    allowed_ends ``(N,)`` which beats may end the performance (default all). Keyposes keep their order on
    distinct grid times up to ``gaps`` apart; a keypose may be left off (at a cost), as may those before the first
    matched one. Costs: the squared offset in beats from the target speed, a steep cost outside the inner stretch
    bounds, and beyond the bounds the squared frames (of ``frame`` s) the keypose would be moved off its grid time.
    spans ``(S, 2)``: input seconds the performance may not start inside (see :func:`_start_costs`); ceiling: the fastest the
    warp may play each moment (:class:`Ceiling`; default the upper bound), which the matches' costs heed and across junction
    spans several keyposes may be left off at once; landing ``(K, M)``: the grid
    times each keypose may land on (default all). None when nothing fits.
    """
    beat = 60.0 / song_tempo(beats)
    costs = _Costs(max_stretch, speed if np.ndim(speed) == 0 else np.asarray(speed, dtype=float)[:, None], beat, frame)
    unfit = 0.0 if landing is None else np.where(landing, 0.0, np.inf)
    ends = np.round(beats[np.ones(len(beats), dtype=bool) if allowed_ends is None else np.asarray(allowed_ends, dtype=bool)], 9)

    def allowed(times):
        return np.isin(np.round(times, 9), ends)

    spans = np.zeros((0, 2)) if spans is None else np.asarray(spans, dtype=float).reshape(-1, 2)
    ceiling = speed_ceiling(spans[:0], [], max_stretch, duration, 1.0 / frame) if ceiling is None else ceiling
    cost, start = _start_costs(keys, strength, grid, costs, spans)
    cost = np.where(grid[None, :] <= end_limit + 1e-9, cost + unfit, np.inf)
    came = np.full((2,) + cost.shape, -1)
    for i in range(1, len(keys)):  # over keyposes; each step is vectorized over grid times and gaps
        step, came_i, came_j = _best_step(cost, keys, strength, grid, costs, i, gaps, ceiling)
        step = step + (unfit if np.ndim(unfit) == 0 else unfit[i])
        better = (step < cost[i]) & (grid <= end_limit + 1e-9)
        cost[i] = np.where(better, step, cost[i])
        came[0, i], came[1, i] = np.where(better, came_i, -1), np.where(better, came_j, -1)
    objective, end, finish = _ends(cost, keys, grid, on_beat, beats, costs, (end_limit, duration, allowed))
    if not np.isfinite(objective).any():
        return None
    i, j = np.unravel_index(int(np.argmin(objective)), objective.shape)
    last_end, last_finish = float(end[i, j]), float(finish[i, j])
    path = [(int(i), int(j))]
    while came[0, i, j] >= 0:
        i, j = came[0, i, j], came[1, i, j]
        path.append((int(i), int(j)))
    path.reverse()
    return path, float(start[path[0]]), last_end, last_finish


def relax_anchors(x: np.ndarray, y: np.ndarray, max_stretch: tuple[float, float], ceiling: Ceiling | None = None) -> np.ndarray:
    """Output times ``(A,)`` of anchors ``(x, y) (A,)``, each moved (first to last) just enough that every slope lies in
    ``max_stretch`` (and each interval plays no faster than the ``ceiling`` lets it, :class:`Ceiling`); the first stays, and
    the last too (the end on its beat) wherever the bounds let the anchors reach it.
    """
    low, high = max_stretch
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    relaxed = x.copy()
    rise = np.diff(y)
    shortest, longest = rise / high, rise / low
    if ceiling is not None:
        shortest = np.maximum(shortest, rise / np.minimum(ceiling.capacity(y[:-1], y[1:]), high))
    # The window each anchor must lie in to reach the last anchor where it is, every slope inside the bounds.
    latest = x[-1] - np.concatenate([np.cumsum(shortest[::-1])[::-1], [0.0]])
    earliest = x[-1] - np.concatenate([np.cumsum(longest[::-1])[::-1], [0.0]])
    for k in range(1, len(relaxed)):  # over anchors: each move depends on the one before
        lowest, highest = relaxed[k - 1] + shortest[k - 1], relaxed[k - 1] + longest[k - 1]
        if max(lowest, earliest[k]) <= min(highest, latest[k]):
            lowest, highest = max(lowest, earliest[k]), min(highest, latest[k])
        relaxed[k] = np.clip(relaxed[k], lowest, highest)
    return relaxed


def pchip_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Fritsch-Carlson slopes ``(A,)`` at knots ``(x, y) (A,)`` increasing: weighted harmonic means of the secants, the end secants at the ends.

    Each slope lies between its two secants, so the cubic is monotone and its knot slopes keep within the secants' range.
    """
    h, secant = np.diff(x), np.diff(y) / np.diff(x)
    slopes = np.empty(len(x))
    slopes[0], slopes[-1] = secant[0], secant[-1]
    w1, w2 = 2.0 * h[1:] + h[:-1], h[1:] + 2.0 * h[:-1]
    same = secant[1:] * secant[:-1] > 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        slopes[1:-1] = np.where(same, (w1 + w2) / (w1 / secant[:-1] + w2 / secant[1:]), 0.0)
    return slopes


def _cubic_slope(delta, d0, d1, u):
    """Slope of the cubic Hermite with secant delta and end slopes d0, d1 at ``u`` (0..1 across the interval)."""
    return 6.0 * delta * (u - u * u) + d0 * (3.0 * u * u - 4.0 * u + 1.0) + d1 * (3.0 * u * u - 2.0 * u)


def _cubic_fits(delta, d0, d1, bounds):
    """Per interval: whether the cubic's slope stays inside ``bounds`` all across (its extremes: the ends and the vertex)."""
    denominator = 6.0 * (d0 + d1 - 2.0 * delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = np.where(np.abs(denominator) > 1e-12, (4.0 * d0 + 2.0 * d1 - 6.0 * delta) / denominator, 0.0)
    middle = _cubic_slope(delta, d0, d1, np.clip(vertex, 0.0, 1.0))
    tol = 1e-9
    return (np.minimum(np.minimum(d0, d1), middle) >= bounds[0] - tol) & (np.maximum(np.maximum(d0, d1), middle) <= bounds[1] + tol)


def _smoothstep_area(x):
    """Integral from 0 to ``x`` (0..1) of the smoothstep ``3 x^2 - 2 x^3``."""
    return x ** 3 - 0.5 * x ** 4


@dataclass
class Warp:
    """A monotone warp through knots ``x, y (A,)`` with knot slopes ``slopes (A,)``.

    On each interval: the cubic Hermite (Fritsch-Carlson) where its slope stays in the bounds, else a slope that eases
    (smoothstep) from the knot's slope to a plateau and on to the next knot's, the plateau set so the interval's
    area is met exactly. ``cubic (A-1,)`` says which; ``ramp (A-1,)`` is the share of the interval each ease takes and
    ``plateau (A-1,)`` its slope. Beyond the ends the warp goes on at the end slopes.
    """

    x: np.ndarray
    y: np.ndarray
    slopes: np.ndarray
    cubic: np.ndarray
    ramp: np.ndarray
    plateau: np.ndarray

    def __call__(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and slopes ``(T,)`` at times ``t (T,)``."""
        t = np.asarray(t, dtype=float)
        k = np.clip(np.searchsorted(self.x, t, side="right") - 1, 0, len(self.x) - 2)
        h = self.x[k + 1] - self.x[k]
        u = np.clip((t - self.x[k]) / h, 0.0, 1.0)
        delta, d0, d1 = (self.y[k + 1] - self.y[k]) / h, self.slopes[k], self.slopes[k + 1]
        cubic_value = self.y[k] + h * (delta * (3 * u * u - 2 * u ** 3) + d0 * (u ** 3 - 2 * u * u + u) + d1 * (u ** 3 - u * u))
        tau, top = np.maximum(self.ramp[k], 1e-12), self.plateau[k]
        a, b = np.clip(u / tau, 0.0, 1.0), np.clip((u - 1.0 + tau) / tau, 0.0, 1.0)
        ease_area = tau * (d0 * a + (top - d0) * _smoothstep_area(a)) + top * np.clip(u - tau, 0.0, 1.0 - 2.0 * tau) \
            + tau * (top * b + (d1 - top) * _smoothstep_area(b))
        ease_slope = d0 + (top - d0) * (3 * a * a - 2 * a ** 3) + (d1 - top) * (3 * b * b - 2 * b ** 3)
        cubic = self.cubic[k]
        value = np.where(cubic, cubic_value, self.y[k] + h * ease_area)
        slope = np.where(cubic, _cubic_slope(delta, d0, d1, u), ease_slope)
        before, after = t < self.x[0], t > self.x[-1]
        value = np.where(before, self.y[0] + self.slopes[0] * (t - self.x[0]), np.where(after, self.y[-1] + self.slopes[-1] * (t - self.x[-1]), value))
        slope = np.where(before, self.slopes[0], np.where(after, self.slopes[-1], slope))
        return value, slope


def monotone_warp(x: np.ndarray, y: np.ndarray, max_stretch: tuple[float, float] = MAX_STRETCH,
                  ceiling: np.ndarray | None = None) -> Warp:
    """The smooth monotone warp through ``(x, y) (A,)`` (increasing, at least two) whose slope stays inside ``max_stretch``,
    and on each interval below its ``ceiling (A-1,)`` when given (see :func:`knots_under`).

    The secants must lie inside the bounds (see :func:`relax_anchors`); the knot slopes are Fritsch-Carlson's
    (between the secants, so inside too) and each interval is the cubic Hermite where that keeps its slope
    in the bounds, else an eased plateau (see :class:`Warp`), which always does.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    low = max_stretch[0]
    high = np.full(len(x) - 1, float(max_stretch[1])) if ceiling is None else np.minimum(ceiling, max_stretch[1])
    knot_high = np.minimum(np.append(high, high[-1]), np.insert(high, 0, high[0]))  # the lower of the two intervals'
    slopes = np.clip(pchip_slopes(x, y), low, knot_high)
    delta = np.diff(y) / np.diff(x)
    d0, d1 = slopes[:-1], slopes[1:]
    cubic = _cubic_fits(delta, d0, d1, (low, high))
    # A plateau P with ramps of share tau meets the area when P (1 - tau) + tau (d0 + d1) / 2 = delta.
    offset = delta - 0.5 * (d0 + d1)
    room = np.where(offset > 0.0, high - delta, delta - low)
    ramp = np.where(np.abs(offset) > 1e-12, np.minimum(0.5, np.maximum(room, 0.0) / np.maximum(room + np.abs(offset), 1e-12)), 0.5)
    plateau = (delta - ramp * 0.5 * (d0 + d1)) / (1.0 - ramp)
    return Warp(x, y, slopes, cubic, ramp, plateau)


def _nearest_offsets(times, grid):
    """Each of ``times (n,)`` minus the nearest of ``grid (M,)`` (sorted), seconds."""
    if not len(times) or not len(grid):
        return np.zeros(0)
    place = np.clip(np.searchsorted(grid, times), 1, max(len(grid) - 1, 1))
    below, above = grid[place - 1], grid[np.minimum(place, len(grid) - 1)]
    return np.where(np.abs(times - below) <= np.abs(times - above), times - below, times - above)


def on_beat_fraction(keypose_times: np.ndarray, grid: np.ndarray, tolerance: float) -> float:
    """Share of ``keypose_times (K,)`` within ``tolerance`` of a time of ``grid (M,)`` (same units); 0 for no keyposes."""
    offsets = _nearest_offsets(np.asarray(keypose_times, dtype=float), np.sort(np.asarray(grid, dtype=float)))
    return float(np.mean(np.abs(offsets) <= tolerance + 1e-9)) if len(offsets) else 0.0


def _checked(keys, beats, duration, name):
    keys, beats = np.asarray(keys, dtype=float), np.asarray(beats, dtype=float)
    if keys.ndim != 1 or beats.ndim != 1 or not (np.all(np.isfinite(keys)) and np.all(np.isfinite(beats))):
        raise SyncError(f"keypose and beat times of {name} must be finite lists of seconds", clip=name)
    if len(beats) < 2 or np.any(np.diff(beats) <= 0.0):
        raise SyncError(f"the song needs at least two increasing beats to sync {name} to", clip=name)
    if len(keys) < 2 or np.any(np.diff(keys) <= 0.0) or duration <= 0.0:
        raise SyncError(f"{name} has fewer than two keyposes to put on beats", clip=name)
    return keys, beats


def _lead_grid(grid, on_beat, steps):
    """With a beat cut into ``steps`` > 1, the step before the first beat too when the output holds it (at or after 0): a
    motion whose keyposes come sooner than the first beat may put one there instead of losing its head to the start."""
    if steps <= 1 or len(grid) < 2 or grid[0] - (grid[1] - grid[0]) < -1e-9:
        return grid, on_beat
    return np.concatenate([[grid[0] - (grid[1] - grid[0])], grid]), np.concatenate([[False], on_beat])


def _path_anchors(path, grid, keys, start, end, finish):
    """(output, input) seconds ``(A,)`` the warp passes: the start (when before the first grid time), the matched keyposes, the end."""
    head, tail = grid[path[0][1]] > 1e-9, end > grid[path[-1][1]] + 1e-9
    x = np.array(([0.0] if head else []) + [grid[j] for _, j in path] + ([end] if tail else []))
    y = np.array(([start] if head else []) + [keys[i] for i, _ in path] + ([finish] if tail else []))
    return x, y


def _against(accelerations, reference):
    """``accelerations (n, B)`` over the floored ``reference (B,)`` (:func:`..measure.seam.floored`); 0 where it is 0 (a
    joint too still in both clips to be measured against)."""
    floor = seam_measure.floored(reference)
    return np.divide(accelerations, floor, out=np.zeros(np.shape(accelerations)), where=floor > 0.0)


@dataclass
class JunctionAccelerations:
    """A junction's accelerations as composed: ``accelerations (n, B)`` (m/s^2) of each joint at the input ``frames (n,)``
    its measure reads, and the typical peaks ``(B,)`` of the clips ``before`` and ``after`` it, which its visibility is
    measured against (:func:`.perform.junction_visibility`); played: those two as a warp played them, when known.
    """

    frames: np.ndarray
    accelerations: np.ndarray
    before: np.ndarray
    after: np.ndarray
    played: tuple | None = None

    def visibility(self) -> float:
        """The junction's visibility as composed: its worst acceleration against the larger of its clips' typical peaks."""
        return float(np.max(_against(self.accelerations, np.maximum(self.before, self.after)), initial=0.0))

    def fastest(self, speed_before: float, speed_after: float) -> np.ndarray:
        """The fastest each of its frames ``(n,)`` may play for the window to be no sharper against its clips, played at
        ``speed_before`` and ``speed_after`` (or as :attr:`played`), than as composed. Accelerations grow with the square of
        the speed: a frame played at the faster clip's speed beside a slower clip whose joints move most is sharper by the
        square of their ratio, while a frame far below the window's peak may play faster than either."""
        before, after = self.played or (self.before * speed_before ** 2, self.after * speed_after ** 2)
        peak = np.max(_against(self.accelerations, np.maximum(before, after)), axis=1, initial=0.0)
        # A frame still against its clips (or clips too still to measure against) may play at any speed.
        return np.sqrt(self.visibility() / np.where(peak > 0.0, peak, 1.0)) + np.where(peak > 0.0, 0.0, np.inf)


@dataclass
class Ceiling:
    """The fastest the warp may play each moment of the input: the upper bound, lowered through each junction span as far
    as keeps it as sharp as composed, and changing gently (:func:`speed_ceiling`).

    times ``(F,)``: input seconds, a frame apart, from 0 to the input's end; fastest ``(F-1,)``: the ceiling between
    consecutive times; high: the upper bound.
    """

    times: np.ndarray
    fastest: np.ndarray
    high: float

    def __post_init__(self):
        # The least output seconds to play from 0 to each time, and how many steps before each lie below the upper bound.
        self.least = np.concatenate([[0.0], np.cumsum(np.diff(self.times) / self.fastest)])
        self.below = np.concatenate([[0], np.cumsum(self.fastest < self.high - 1e-9)])

    def capacity(self, first, last):
        """The fastest secant ``(...)`` from input ``first`` to ``last`` (seconds, arrays alike): the ceiling's harmonic mean."""
        first, last = np.asarray(first, dtype=float), np.asarray(last, dtype=float)
        least = np.interp(last, self.times, self.least) - np.interp(first, self.times, self.least)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(least > 1e-12, (last - first) / np.maximum(least, 1e-12), np.inf)

    def lowered(self, first, last):
        """Whether the ceiling lies below the upper bound anywhere from ``first`` to ``last`` (input seconds, arrays alike)."""
        start = np.clip(np.searchsorted(self.times, np.asarray(first) + 1e-9, side="right") - 1, 0, len(self.fastest))
        stop = np.clip(np.searchsorted(self.times, np.asarray(last) - 1e-9, side="left"), 0, len(self.fastest))
        return self.below[stop] - self.below[start] > 0

    def under(self, first: float, last: float, output: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Input times ``(n,)`` from ``first`` to ``last`` a frame apart, the output seconds after ``first`` ``(n,)`` they
        play at when the interval lasts ``output`` seconds, and the ceiling between them ``(n-1,)``: played at one speed
        where the ceiling allows it and at the ceiling where it does not (the least speed that fills the time; all scaled
        alike if even the ceiling cannot)."""
        inner = self.times[(self.times > first + 1e-9) & (self.times < last - 1e-9)]
        times = np.concatenate([[first], inner, [last]])
        length = np.diff(times)
        top = self.fastest[np.clip(np.searchsorted(self.times, 0.5 * (times[1:] + times[:-1])) - 1, 0, len(self.fastest) - 1)]
        # With the k lowest ceilings met, the rest shares what time is left at one speed: the first k for which that speed
        # lies between the k-th and the next ceiling.
        order = np.argsort(top)
        at_ceiling = np.concatenate([[0.0], np.cumsum(length[order] / top[order])])
        rest = np.concatenate([np.cumsum(length[order][::-1])[::-1], [0.0]])
        left = output - at_ceiling
        shared = np.where(left > 1e-12, rest / np.where(left > 1e-12, left, 1.0), np.inf)
        fits = (shared <= np.append(top[order], np.inf) + 1e-12) & (shared >= np.insert(top[order], 0, 0.0) - 1e-12)
        speed = np.minimum(top, shared[np.argmax(fits)]) if fits.any() else top
        speed = speed * np.sum(length / speed) / output
        return times, np.concatenate([[0.0], np.cumsum(length / speed)]), top


def _span_fastest(spans, parts, accelerations, fps):
    """Per junction span ``(S, 2)``: the input frames ``(n,)`` it holds down and the fastest each may play ``(n,)``, given the
    speeds of its two clips of ``parts`` (:class:`PartTempo`) at its ends: from its ``accelerations``
    (:meth:`JunctionAccelerations.fastest`), else the slower clip's speed throughout (a window no faster than either clip
    is no sharper against them than as composed)."""
    firsts, speeds = np.array([part.first for part in parts]), np.array([part.speed for part in parts])
    ends = speeds[np.clip(np.searchsorted(firsts, spans + 1e-9, side="right") - 1, 0, len(parts) - 1)]
    for k, (first, last) in enumerate(spans):  # a few junctions
        frames = np.arange(int(np.ceil(first * fps - 1e-6)), int(np.floor(last * fps + 1e-6)) + 1)
        measured = None if accelerations is None else accelerations[k]
        if measured is None or not len(measured.frames):
            yield frames, np.full(len(frames), ends[k].min())
            continue
        # The frames either side of those measured take the nearest measured frame's.
        nearest = np.clip(np.searchsorted(measured.frames, frames), 0, len(measured.frames) - 1)
        yield frames, measured.fastest(*ends[k])[nearest]


def speed_ceiling(spans: np.ndarray, parts: list, max_stretch: tuple[float, float], duration: float, fps: float,
                  accelerations: list | None = None) -> Ceiling:
    """The :class:`Ceiling` of a warp whose junction ``spans (S, 2)`` (input seconds) play no faster than keeps them as sharp
    as composed (:func:`_span_fastest`), over the input's ``duration`` seconds sampled at ``fps``: the highest ceiling under
    every frame's own that changes by no more than :data:`EASING` per second, so the speed the spans ask comes on and goes
    gently (a speed changing fast accelerates every joint that moves)."""
    low, high = max_stretch
    times = np.append(np.arange(int(np.floor(duration * fps - 1e-6)) + 1) / fps, duration)
    fastest = np.full(len(times), float(high))
    spans = np.asarray(spans, dtype=float).reshape(-1, 2)
    for frames, values in _span_fastest(spans, parts, accelerations, fps):  # a few junctions
        keep = (frames >= 0) & (frames < len(times))
        fastest[frames[keep]] = np.minimum(fastest[frames[keep]], np.clip(values[keep], low, high))
    # The lower envelope of cones of slope EASING on every frame's ceiling, one pass each way.
    rise = EASING * times
    fastest = np.minimum(np.minimum.accumulate(fastest - rise) + rise, (np.minimum.accumulate((fastest + rise)[::-1]))[::-1] - rise)
    between = np.minimum(fastest[1:], fastest[:-1])
    return Ceiling(times, between, float(high))


def knots_under(x: np.ndarray, y: np.ndarray, ceiling: Ceiling) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Anchors ``(x, y) (A,)`` (output, input seconds) with a knot per input frame through each interval the ``ceiling``
    lowers (:meth:`Ceiling.under`), and each interval's ceiling ``(A'-1,)``: the knots :func:`monotone_warp` needs to keep
    the warp under the ceiling."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    xs, ys, tops = [x[:1]], [y[:1]], []
    lowered = ceiling.lowered(y[:-1], y[1:])
    for k in range(len(x) - 1):  # over anchors: only the few intervals near a junction are split
        if not lowered[k]:
            xs.append(x[k + 1:k + 2]), ys.append(y[k + 1:k + 2]), tops.append([ceiling.high])
            continue
        times, output, top = ceiling.under(y[k], y[k + 1], x[k + 1] - x[k])
        xs.append(x[k] + output[1:]), ys.append(times[1:]), tops.append(top)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(tops)


def sync_to_beats(keyposes: np.ndarray, beats: np.ndarray, duration: float, fps: float,
                  max_stretch: tuple[float, float] = MAX_STRETCH, seconds: float | None = None,
                  strength: np.ndarray | None = None, name: str = "the motion", allowed_ends: np.ndarray | None = None,
                  spans: np.ndarray | None = None, parts: list | None = None, accelerations: list | None = None) -> Sync:
    """The warp that puts the keyposes ``(K,)`` (input seconds) on the ``beats (N,)`` (output seconds, the song's clock).

    duration: the input's seconds; fps: the output's frame rate (the input's); seconds: the longest output wanted
    (default: up to the last beat); strength ``(K,)``: the keyposes' strengths (weak ones are cheaper to leave off);
    allowed_ends ``(N,)``: which beats may end the performance (see :func:`loop_beats`); spans ``(S, 2)``: input seconds
    (first, last) the warp plays no faster than keeps them as sharp as composed (:func:`speed_ceiling`, from their
    ``accelerations``, :class:`JunctionAccelerations` each), the performance not starting inside one (a composition's
    junctions); parts: ``[(name, first input second), ...]`` the
    clips a composition plays, in order, each keeping its own keyposes per beat and speed (default one part, ``name``).
    A clip whose tempo cannot meet the song's inside ``max_stretch`` plays at the nearest bound (its :class:`PartTempo`
    says what it needed). SyncError when nothing fits.
    """
    keys, beats = _checked(keyposes, beats, duration, name)
    strength = np.ones(len(keys)) if strength is None else np.asarray(strength, dtype=float)
    spans = np.zeros((0, 2)) if spans is None else np.asarray(spans, dtype=float).reshape(-1, 2)
    song_bpm = song_tempo(beats)
    owner, tempi = part_tempi(keys, song_bpm, parts or [(name, 0.0)], max_stretch, name)
    end_limit = float(beats[-1] if seconds is None else min(seconds, beats[-1]))
    ceiling = speed_ceiling(spans, tempi, max_stretch, duration, fps, accelerations)
    result = _retime(keys, strength, beats, (duration, fps, end_limit), max_stretch, allowed_ends, (spans, ceiling), name, (owner, tempi))
    result.motion_bpm, result.song_bpm = 60.0 / float(np.median(np.diff(keys))), song_bpm
    return result


def _retime(keys, strength, beats, timing, max_stretch, allowed_ends, spans, name, tempo):
    """:func:`sync_to_beats` with ``timing`` (duration, fps, end limit), ``spans`` (input seconds ``(S, 2)``, their
    :class:`Ceiling`) and ``tempo`` (each keypose's part, the parts' :class:`PartTempo`)."""
    (duration, fps, end_limit), (owner, tempi) = timing, tempo
    ratios, speeds = np.array([t.ratio for t in tempi]), np.array([t.speed for t in tempi])
    ratio, steps = float(ratios.max()), int(np.lcm.reduce([division(r) for r in ratios]))
    grid, on_beat = _lead_grid(*beat_grid(beats, steps), steps)
    if np.all(np.isin(ratios, SIMPLE_RATIOS)):
        gaps = (3 if ratios.min() >= 1.0 else 5) * (2 if ratio > 1.0 and ratios.min() <= 1.0 else 1)
    else:  # up to about two keyposes' worth of grid steps apart
        gaps = int(np.ceil(2.0 * steps / ratios.min())) + 1
    lead = int(len(grid) > 0 and not on_beat[0])
    found = match_keyposes(keys, strength, grid, on_beat, beats, speeds[owner], max_stretch, duration, end_limit, allowed_ends, gaps,
                           1.0 / fps, *spans, _landing(owner, tempi, (grid, lead, steps)))
    speed = float(np.exp(np.mean(np.log(speeds[owner]))))
    if found is None:
        raise SyncError(f"{name} cannot end on a beat within {end_limit:.2f} s at {speed:.2f}x", clip=name, stretch=speed)
    path, start, end, finish = found
    x, y = _path_anchors(path, grid, keys, start, end, finish)
    x = relax_anchors(x, y, max_stretch, spans[1])
    knot_x, knot_y, top = knots_under(x, y, spans[1])
    warp = monotone_warp(knot_x, knot_y, max_stretch, top)
    count = int(np.floor(x[-1] * fps + 1e-6)) + 1
    input_times, stretch = warp(np.arange(count) / fps)
    dense_out = np.arange((count - 1) * OVERSAMPLING + 1) / (fps * OVERSAMPLING)
    dense_in = warp(dense_out)[0]
    shown = (keys >= dense_in[0] - 1e-9) & (keys <= dense_in[-1] + 1e-9)
    matched, placed = np.full(len(keys), np.nan), np.array([i for i, _ in path])
    matched[placed] = np.interp(keys[placed], dense_in, dense_out)
    reach = keys <= min(duration, end_limit)
    return Sync(fps=float(fps), input_times=np.clip(input_times, 0.0, duration), stretch=stretch, anchors=np.stack([x, y], axis=1),
                grid=grid, matched=matched, ratio=ratio, speed=speed, motion_bpm=0.0, song_bpm=0.0, end=float(x[-1]),
                offsets_before=_nearest_offsets(keys[reach], grid),
                offsets_after=_nearest_offsets(np.interp(keys[shown], dense_in, dense_out), grid), parts=tuple(tempi))


def warp_clip(clip: Clip, input_times: np.ndarray, interpolation: str = "CUBIC") -> Clip:
    """The clip's poses at ``input_times (T,)`` (seconds from its first frame, e.g. :attr:`Sync.input_times`), T frames at its rate.

    Every channel is sampled at the warped times, the travelling root's location too, so a planted foot stays
    where it was planted and the root covers the same ground, faster or slower with the warp. CUBIC keeps slowed
    motion smooth between the original frames (see :mod:`..motion.sampling`).
    """
    return sampling.clip_at_seconds(clip, np.asarray(input_times, dtype=float), interpolation)
