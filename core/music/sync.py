"""Sync: a smooth, monotonic time warp that puts a motion's keyposes on a song's beats.

The warp maps output time (the song's clock, seconds from the output's first
frame) to input time (seconds into the motion). Its slope is the local
*stretch*: the speed the motion plays at, 1 as captured, above 1 faster. The
motion's tempo (keyposes per minute) and the song's (beats per minute) set
how many keyposes go on each beat, so that the overall speed stays inside
``max_stretch``; dynamic programming then gives each keypose its own beat
(order kept), and the warp passes through those pairs, its slope everywhere
inside the bounds, and ends on a beat.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SyncError
from ..motion import sampling
from ..motion.clip import Clip

MAX_STRETCH = (0.8, 1.25)
RATIOS = (1.0, 0.5, 2.0)  # keyposes per beat, tried in this order (the first wins a tie)
BEATS_PER_BAR = 4
MARGIN = 0.15  # share of the log stretch range kept clear inside each bound when keyposes are matched
BOUND_WEIGHT = 1000.0  # cost of a match whose stretch leaves the inner bounds by the whole log range
DRIFT_WEIGHT = 4.0  # cost per squared frame a match beyond the bounds moves its keypose off its beat (the warp keeps to the bounds)
SKIP_COST = 2.0  # cost of leaving a keypose off the beats, plus as much again times its strength
TRIM_COST = 0.5  # cost of starting the motion after its first frame
LENGTH_REWARD = 5.0  # per beat's worth of input shown (from the start to the end): performances that show more of the motion win over cheaper shorter ones
CLEARANCE = 0.1  # s: a performance that ends after its last matched keypose ends this far before the next one
SPAN_RATES = 33  # steady speeds tried per junction span, evenly in log across the bounds (and the target speed)
SPAN_SHIFTS = 41  # entry times tried per junction span, across a grid spacing either side of where the anchors put it
ON_GRID = 0.4  # frames off the grid a span's keypose may land for free (a whole miss from one frame)
SPAN_WEIGHT = 10.0  # how much dearer a match across a junction span is per squared beat off the target speed
FAST_WEIGHT = 4.0  # cost of a span played faster than the target speed, per 5% squared
ON_BEAT = 0.8  # share of keyposes on the grid below which steady spans that cost some are dropped
OVERSAMPLING = 8  # warp samples per output frame when inverting it


@dataclass
class Sync:
    """A motion retimed to a song's beats. Times in seconds; output time 0 is the output's first frame and the song's start.

    fps: output frames per second.
    input_times: ``(T,)`` the input time each output frame shows, increasing.
    stretch: ``(T,)`` the warp's slope (input seconds per output second) at each output frame.
    anchors: ``(A, 2)`` (output, input) times the warp passes through: the start, the matched keyposes, the end.
    grid: ``(M,)`` the times keyposes may land on: the beats, or beats and half beats at two keyposes per beat.
    matched: ``(K,)`` output time each keypose was put on, NaN where left off the grid or outside the performance.
    ratio: keyposes per beat (1, 0.5 or 2; the most of any part). speed: the overall speed the tempos asked (ratio x song
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


def outside(stretch: float, max_stretch: tuple[float, float]) -> str:
    """``stretch`` (outside ``max_stretch``) in as few significant digits (3 or more) as show it outside: 0.7996, not 0.8."""
    for digits in range(3, 9):
        text = f"{stretch:.{digits}g}"
        if not max_stretch[0] <= float(text) <= max_stretch[1]:
            return text
    return f"{stretch:.9g}"


def choose_ratio(motion_bpm: float, song_bpm: float, max_stretch: tuple[float, float] = MAX_STRETCH,
                 name: str = "the motion") -> tuple[float, float]:
    """(keyposes per beat, speed): of :data:`RATIOS`, the one whose speed ``ratio * song_bpm / motion_bpm`` is nearest 1 in log,
    those whose speed keeps :data:`MARGIN` of the log range clear of both bounds first (room for the keyposes' own unevenness).

    SyncError naming ``name`` and the speed it would need when that speed lies outside ``max_stretch`` (low, high).
    """
    low, high = max_stretch
    if motion_bpm <= 0.0 or song_bpm <= 0.0:
        raise SyncError(f"{name} has too few keyposes or the song too few beats to sync", clip=name)
    speeds = np.array(RATIOS) * song_bpm / motion_bpm
    clear = MARGIN * np.log(high / low)
    roomy = (np.log(speeds) >= np.log(low) + clear) & (np.log(speeds) <= np.log(high) - clear)
    best = int(np.argmin(np.round(np.abs(np.log(speeds)), 12) + 1e3 * ~roomy))
    ratio, speed = RATIOS[best], float(speeds[best])
    if not low <= speed <= high:
        raise SyncError(f"{name} would need {outside(speed, max_stretch)}x to meet {song_bpm:.0f} BPM, outside the stretch allowed "
                        f"({low:g}-{high:g}x)", clip=name, stretch=speed)
    return ratio, speed


@dataclass
class PartTempo:
    """One clip of a performance as synced: its name, first input second, keyposes per beat, speed and keyposes per minute."""

    name: str
    first: float
    ratio: float
    speed: float
    motion_bpm: float


MIN_PART_KEYPOSES = 4  # keyposes a clip needs for a tempo of its own; fewer take the tempo of the clip before (or after)


def part_tempi(keys: np.ndarray, song_bpm: float, parts: list, max_stretch: tuple[float, float],
               name: str) -> tuple[np.ndarray, list[PartTempo]]:
    """Which part each keypose ``keys (K,)`` (input seconds) is in ``(K,)``, and each part's :class:`PartTempo`.

    parts: ``[(name, first input second), ...]`` in order. A part's tempo is its keyposes' median spacing; a part with too
    few keyposes takes its neighbour's (the whole motion's, named ``name``, when none has enough). SyncError naming the
    part (the clip) and the stretch it would need when its tempo cannot meet ``song_bpm`` inside ``max_stretch``.
    """
    parts = sorted(parts, key=lambda part: float(part[1]))
    firsts = np.array([float(first) for _, first in parts])
    owner = np.clip(np.searchsorted(firsts, keys + 1e-9, side="right") - 1, 0, len(parts) - 1)
    counts = np.bincount(owner, minlength=len(parts))
    own = [k for k in range(len(parts)) if counts[k] >= MIN_PART_KEYPOSES]
    tempi = {}
    for k in own:  # a few clips
        motion_bpm = 60.0 / float(np.median(np.diff(keys[owner == k])))
        tempi[k] = PartTempo(parts[k][0], float(firsts[k]), *choose_ratio(motion_bpm, song_bpm, max_stretch, parts[k][0]), motion_bpm)
    if not own:
        motion_bpm = 60.0 / float(np.median(np.diff(keys)))
        whole = choose_ratio(motion_bpm, song_bpm, max_stretch, name)
    result = []
    for k, (part_name, _) in enumerate(parts):  # a few clips
        if k in tempi:
            result.append(tempi[k])
            continue
        lender = max((j for j in own if j < k), default=min(own, default=None))
        ratio, speed, bpm = (tempi[lender].ratio, tempi[lender].speed, tempi[lender].motion_bpm) if lender is not None else (*whole, motion_bpm)
        result.append(PartTempo(part_name, float(firsts[k]), ratio, speed, bpm))
    return owner, result


def _landing(owner, tempi, grid, on_beat):
    """``(K, M)`` the grid times each keypose may land on: a part at one keypose per beat or fewer lands on beats only."""
    beat_only = np.array([tempi[k].ratio <= 1.0 for k in owner])
    return ~beat_only[:, None] | on_beat[None, :]


def beat_grid(beats: np.ndarray, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """Grid times ``(M,)`` keyposes may land on and which of them are beats ``(M,)``: the beats, with the half beats at ratio 2."""
    beats = np.asarray(beats, dtype=float)
    if ratio <= 1.0 or len(beats) < 2:
        return beats.copy(), np.ones(len(beats), dtype=bool)
    grid = np.empty(2 * len(beats) - 1)
    grid[::2], grid[1::2] = beats, 0.5 * (beats[1:] + beats[:-1])
    return grid, np.arange(len(grid)) % 2 == 0


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
    keypose's own costs.
    """

    def __init__(self, bounds, speed, beat, frame):
        self.bounds, self.low, self.high, self.frame = bounds, bounds[0], bounds[1], frame
        self.log_low, self.log_high = np.log(bounds[0]), np.log(bounds[1])
        self.width = self.log_high - self.log_low
        # The inner bounds never exclude the target speed itself.
        log_speed = np.log(speed)
        self.inner = (np.minimum(self.log_low + MARGIN * self.width, log_speed), np.maximum(self.log_high - MARGIN * self.width, log_speed))
        self.speed, self.beat = speed, beat

    def at(self, i):
        """The costs of keypose i alone (its own target speed)."""
        return self if np.ndim(self.speed) == 0 else _Costs(self.bounds, float(np.ravel(self.speed)[i]), self.beat, self.frame)

    def bound(self, stretch):
        """Cost of stretches ``(...)``: soft outside the inner bounds (infinite for none or negative)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            log = np.log(np.where(stretch > 0.0, stretch, np.nan))
        inner = np.maximum(0.0, np.maximum(log - self.inner[1], self.inner[0] - log)) / self.width
        return np.where(np.isfinite(log), BOUND_WEIGHT * inner ** 2, np.inf)

    def steady(self, input_span, output_span):
        """Cost of a match across a junction span, which the warp plays at one speed anyway (:func:`steady_spans`): the offset
        from the target speed, :data:`SPAN_WEIGHT` times as dear, and the drift beyond the bounds; no inner bounds."""
        drift = np.abs(output_span - np.clip(output_span, input_span / self.high, input_span / self.low)) / self.frame
        return SPAN_WEIGHT * ((output_span - input_span / self.speed) / self.beat) ** 2 + DRIFT_WEIGHT * drift ** 2

    def segment(self, input_span, output_span):
        """Cost of playing ``input_span`` seconds in ``output_span``: the squared offset (beats) from the target speed, the inner
        bounds, and beyond the bounds the squared frames the warp, kept inside them, moves the keypose off its grid time."""
        with np.errstate(divide="ignore", invalid="ignore"):
            stretch = np.where(output_span > 1e-9, input_span / np.where(output_span > 1e-9, output_span, 1.0), np.inf)
        drift = np.abs(output_span - np.clip(output_span, input_span / self.high, input_span / self.low)) / self.frame
        return ((output_span - input_span / self.speed) / self.beat) ** 2 + self.bound(stretch) + DRIFT_WEIGHT * drift ** 2


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


def _best_step(cost, keys, strength, grid, costs, i, gaps, spans):
    """The cheapest way ``(M,)`` to reach keypose i on each grid time from keypose i-1 or i-2, and where from ``(2, M)``; across a
    span of ``spans (S, 2)`` the steady cost (:meth:`_Costs.steady`)."""
    best, came_i, came_j = np.full(len(grid), np.inf), np.full(len(grid), -1), np.full(len(grid), -1)
    j = np.arange(len(grid))
    for back in (1, 2):
        if i - back < 0:
            continue
        before = j[None, :] - np.arange(1, gaps + 1)[:, None]  # (G, M)
        valid = before >= 0
        spot = np.where(valid, before, 0)
        across = np.any((spans[:, 0] < keys[i]) & (spans[:, 1] > keys[i - back]))
        own = costs.at(i)
        total = cost[i - back][spot] + (own.steady if across else own.segment)(keys[i] - keys[i - back], grid[None, :] - grid[spot])
        total += SKIP_COST * (1.0 + strength[i - 1]) * (back - 1)
        total = np.where(valid, total, np.inf)
        pick = np.argmin(total, axis=0)
        value = total[pick, j]
        better = value < best
        best, came_i, came_j = np.where(better, value, best), np.where(better, i - back, came_i), np.where(better, spot[pick, j], came_j)
    return best, came_i, came_j


def _ends(cost, keys, grid, on_beat, beats, costs, limits):
    """Per state ``(K, M)``: the objective of ending there, the end time and the input time at the end.

    Either on the state's own grid time when it is a beat, or on the next beat after it (within ``limits``: the
    output's end and the input's length) at a stretch inside the bounds, ending before the next keypose.
    """
    end_limit, duration, allowed = limits
    objective = np.where(on_beat[None, :] & allowed(grid)[None, :] & (grid[None, :] <= end_limit + 1e-9), cost, np.inf)
    end, finish = np.broadcast_to(grid, cost.shape).copy(), np.broadcast_to(keys[:, None], cost.shape).copy()
    objective -= LENGTH_REWARD * finish / (costs.beat * costs.speed)
    following = np.minimum(np.searchsorted(beats, grid + 1e-6), len(beats) - 1)
    room = np.minimum(duration, np.concatenate([keys[1:] - CLEARANCE, [duration]]))[:, None]
    for step in (0, 1):
        target = beats[np.minimum(following + step, len(beats) - 1)][None, :]
        span = target - grid[None, :]
        stretch = np.minimum(np.clip(costs.speed, *np.exp(costs.inner)), (room - keys[:, None]) / np.maximum(span, 1e-9))
        ok = (span > 1e-9) & (target <= end_limit + 1e-9) & allowed(target) & (stretch >= np.exp(costs.log_low))
        value = cost + costs.segment(stretch * span, span) - LENGTH_REWARD * (keys[:, None] + stretch * span) / (costs.beat * costs.speed)
        better = ok & (value < objective)
        objective = np.where(better, value, objective)
        end, finish = np.where(better, target, end), np.where(better, keys[:, None] + stretch * span, finish)
    return objective, end, finish


def match_keyposes(keys: np.ndarray, strength: np.ndarray, grid: np.ndarray, on_beat: np.ndarray, beats: np.ndarray,
                   speed: float | np.ndarray, max_stretch: tuple[float, float], duration: float, end_limit: float,
                   allowed_ends: np.ndarray | None = None, gaps: int = 3, frame: float = 1.0 / 30.0,
                   spans: np.ndarray | None = None, landing: np.ndarray | None = None,
                   closed: np.ndarray | None = None) -> tuple[list, float, float, float]:
    """Each keypose's grid time by dynamic programming: ``([(keypose, grid index)...], input start, end, input end)``.

    keys ``(K,)`` input seconds, increasing; strength ``(K,)``; grid ``(M,)`` output seconds with ``on_beat (M,)``;
    beats ``(N,)``; speed the target stretch, or each keypose's ``(K,)``; duration the input's seconds; end_limit the latest output end;
    allowed_ends ``(N,)`` which beats may end the performance (default all). Keyposes keep their order on
    distinct grid times up to ``gaps`` apart; a keypose may be left off (at a cost), as may those before the first
    matched one. Costs: the squared offset in beats from the target speed, a steep cost outside the inner stretch
    bounds, and beyond the bounds the squared frames (of ``frame`` s) the keypose would be moved off its grid time.
    spans ``(S, 2)``: input seconds whose keyposes are matched at the steady cost (:meth:`_Costs.steady`); closed ``(S', 2)``:
    input seconds the performance may not start inside (default spans; see :func:`_start_costs`); landing ``(K, M)``: the grid
    times each keypose may land on (default all). None when nothing fits.
    """
    beat = 60.0 / song_tempo(beats)
    costs = _Costs(max_stretch, speed if np.ndim(speed) == 0 else np.asarray(speed, dtype=float)[:, None], beat, frame)
    unfit = 0.0 if landing is None else np.where(landing, 0.0, np.inf)
    ends = np.round(beats[np.ones(len(beats), dtype=bool) if allowed_ends is None else np.asarray(allowed_ends, dtype=bool)], 9)

    def allowed(times):
        return np.isin(np.round(times, 9), ends)

    spans = np.zeros((0, 2)) if spans is None else np.asarray(spans, dtype=float).reshape(-1, 2)
    cost, start = _start_costs(keys, strength, grid, costs, spans if closed is None else np.asarray(closed, dtype=float).reshape(-1, 2))
    cost = np.where(grid[None, :] <= end_limit + 1e-9, cost + unfit, np.inf)
    came = np.full((2,) + cost.shape, -1)
    for i in range(1, len(keys)):  # over keyposes; each step is vectorized over grid times and gaps
        step, came_i, came_j = _best_step(cost, keys, strength, grid, costs, i, gaps, spans)
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


def relax_anchors(x: np.ndarray, y: np.ndarray, max_stretch: tuple[float, float], linear: np.ndarray | None = None) -> np.ndarray:
    """Output times ``(A,)`` of anchors ``(x, y) (A,)``, each moved (first to last) just enough that every slope lies in
    ``max_stretch``; the first stays, and the last too (the end on its beat) wherever the bounds let the anchors reach it.

    linear ``(A-1,)``: intervals kept rigid (a steady span, its slope already inside): their end moves with their start.
    """
    low, high = max_stretch
    x = np.asarray(x, dtype=float)
    relaxed = x.copy()
    rigid = np.zeros(len(relaxed) - 1, dtype=bool) if linear is None else np.asarray(linear, dtype=bool)
    rise = np.diff(np.asarray(y, dtype=float))
    shortest, longest = np.where(rigid, np.diff(x), rise / high), np.where(rigid, np.diff(x), rise / low)
    # The window each anchor must lie in to reach the last anchor where it is, every slope inside the bounds.
    latest = x[-1] - np.concatenate([np.cumsum(shortest[::-1])[::-1], [0.0]])
    earliest = x[-1] - np.concatenate([np.cumsum(longest[::-1])[::-1], [0.0]])
    for k in range(1, len(relaxed)):  # over anchors: each move depends on the one before
        moved = relaxed[k - 1] + (x[k] - x[k - 1]) if rigid[k - 1] else relaxed[k]
        lowest, highest = relaxed[k - 1] + shortest[k - 1], relaxed[k - 1] + longest[k - 1]
        if max(lowest, earliest[k]) <= min(highest, latest[k]):
            lowest, highest = max(lowest, earliest[k]), min(highest, latest[k])
        relaxed[k] = np.clip(moved, lowest, highest)
    return relaxed


def _line_costs(entry, rate, span, keys, grid, neighbours, costs):
    """Cost ``(R, E)`` of playing the input ``span (first, last)`` steadily at the stretch ``rate (R, 1)`` from output time
    ``entry (R, E)``: its keyposes ``keys (n,)`` off the ``grid (M,)`` (free within :data:`ON_GRID` frames, a whole miss
    from one frame), and the secants to the anchors ``neighbours`` ((x, y) before and after, or None) inside the inner
    bounds. The two priors (the rate against the target speed, the secants against the rate) take the product of the
    stretches where their ratio was meant: they lean towards reciprocals, which the tests on real clips were tuned with;
    the ratio alone costs run+run to house_lo.ogg its on-beat share (85% -> 77%) until the weights are tuned again."""
    played = entry[..., None] + (keys - span[0]) / rate[..., None]
    place = np.clip(np.searchsorted(grid, played), 1, len(grid) - 1)
    off = np.minimum(np.abs(played - grid[place - 1]), np.abs(played - grid[place])) / costs.frame
    total = np.sum(np.minimum(1.0, (np.maximum(off - ON_GRID, 0.0) / (1.0 - ON_GRID)) ** 2), axis=-1)
    change = np.log(rate * costs.speed)  # zero at the target's reciprocal (see above)
    total = total + FAST_WEIGHT * (np.maximum(-change, 0.0) / np.log(1.05)) ** 2 + (change / costs.width) ** 2
    for (x, y), edge in zip(neighbours, (entry, entry + (span[1] - span[0]) / rate)):
        if x is None:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            secant = np.where(np.abs(edge - x) > 1e-9, (span[int(y > span[1])] - y) / (edge - x), -1.0)
        inside = (secant >= costs.low - 1e-9) & (secant <= costs.high + 1e-9)
        total = total + np.where(inside, costs.bound(np.where(inside, secant, 1.0)) + (np.log(np.where(inside, secant, 1.0) * rate) / costs.width) ** 2, 1e6)
    return total


def steady_spans(x: np.ndarray, y: np.ndarray, spans: np.ndarray, keys: np.ndarray, grid: np.ndarray, speed: float | np.ndarray,
                 max_stretch: tuple[float, float], frame: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Anchors ``(x, y) (A,)`` (output, input seconds, increasing) where each span ``(first, last)`` of input seconds of
    ``spans (S, 2)`` plays at one steady speed: ``(x', y', linear (A'-1,))``. The anchors inside a span (within half a
    ``frame``) give way to its entry and exit on the line, of the speeds and entry times tried, that puts its keyposes
    (of ``keys (K,)``) on the ``grid (M,)`` best near the target ``speed`` (or each span's ``(S,)``) and meets its neighbours inside the bounds
    (:func:`_line_costs`); linear marks the spans' intervals, for :func:`relax_anchors` and :func:`monotone_warp`. The
    output's first and last anchors stay where they are.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    opens, spacing = np.zeros(len(x), dtype=bool), float(np.median(np.diff(grid))) if len(grid) > 1 else 1.0
    spans = np.asarray(spans, dtype=float).reshape(-1, 2)
    for (first, last), target in zip(spans, np.broadcast_to(speed, len(spans))):  # a few junctions, in order
        costs = _Costs(max_stretch, float(target), spacing, frame)
        rate = np.append(1.0 / np.geomspace(max_stretch[0], max_stretch[1], SPAN_RATES), 1.0 / target)[:, None]
        inside = (y >= max(first, y[0]) - 0.5 * frame) & (y <= min(last, y[-1]) + 0.5 * frame)
        span = np.array([np.min(np.append(y[inside], max(first, y[0]))), np.max(np.append(y[inside], min(last, y[-1])))])
        if span[1] - span[0] < 1e-6:
            continue
        pinned = (bool(inside[0]), bool(inside[-1]))
        entry = np.interp(span[0], y, x) + np.linspace(-spacing, spacing, SPAN_SHIFTS)[None, :] + 0.0 * rate
        entry = np.where(pinned[0], x[0], np.where(pinned[1], x[-1] - (span[1] - span[0]) / rate, entry))
        before, after = np.flatnonzero(~inside & (y < span[0])), np.flatnonzero(~inside & (y > span[1]))
        neighbours = [(x[k[0]], y[k[0]]) if len(k) else (None, None) for k in (before[-1:], after[:1])]
        total = _line_costs(entry, rate, span, keys[(keys >= span[0]) & (keys <= span[1])], grid, neighbours, costs)
        r, e = np.unravel_index(int(np.argmin(total)), total.shape)
        ends_x = np.array([entry[r, e], x[-1] if pinned[1] else entry[r, e] + (span[1] - span[0]) / rate[r, 0]])
        keep = ~inside
        x, y = np.concatenate([x[keep], ends_x]), np.concatenate([y[keep], span])
        opens = np.concatenate([opens[keep], [True, False]])
        order = np.argsort(y, kind="stable")
        x, y, opens = x[order], y[order], opens[order]
    return x, y, opens[:-1]


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
                  linear: np.ndarray | None = None) -> Warp:
    """The smooth monotone warp through ``(x, y) (A,)`` (increasing, at least two) whose slope stays inside ``max_stretch``.

    The secants must lie inside the bounds (see :func:`relax_anchors`); the knot slopes are Fritsch-Carlson's
    (between the secants, so inside too) and each interval is the cubic Hermite where that keeps its slope
    in the bounds, else an eased plateau (see :class:`Warp`), which always does. linear ``(A-1,)``: intervals played at
    their secant throughout (both knot slopes set to it): the speed changes in the intervals around them.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    low, high = max_stretch
    slopes = np.clip(pchip_slopes(x, y), low, high)
    delta = np.diff(y) / np.diff(x)
    if linear is not None and np.any(linear):
        steady = np.flatnonzero(linear)
        slopes[steady], slopes[steady + 1] = np.clip(delta[steady], low, high), np.clip(delta[steady], low, high)
    d0, d1 = slopes[:-1], slopes[1:]
    cubic = _cubic_fits(delta, d0, d1, max_stretch)
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


def _lead_grid(grid, on_beat, ratio):
    """At two keyposes per beat, the half beat before the first beat too when the output holds it (at or after 0): a
    motion whose keyposes come sooner than the first beat may put one there instead of losing its head to the start."""
    if ratio <= 1.0 or len(grid) < 2 or grid[0] - (grid[1] - grid[0]) < -1e-9:
        return grid, on_beat
    return np.concatenate([[grid[0] - (grid[1] - grid[0])], grid]), np.concatenate([[False], on_beat])


def _path_anchors(path, grid, keys, start, end, finish):
    """(output, input) seconds ``(A,)`` the warp passes: the start (when before the first grid time), the matched keyposes, the end."""
    head, tail = grid[path[0][1]] > 1e-9, end > grid[path[-1][1]] + 1e-9
    x = np.array(([0.0] if head else []) + [grid[j] for _, j in path] + ([end] if tail else []))
    y = np.array(([start] if head else []) + [keys[i] for i, _ in path] + ([finish] if tail else []))
    return x, y


def sync_to_beats(keyposes: np.ndarray, beats: np.ndarray, duration: float, fps: float,
                  max_stretch: tuple[float, float] = MAX_STRETCH, seconds: float | None = None,
                  strength: np.ndarray | None = None, name: str = "the motion", allowed_ends: np.ndarray | None = None,
                  spans: np.ndarray | None = None, parts: list | None = None) -> Sync:
    """The warp that puts the keyposes ``(K,)`` (input seconds) on the ``beats (N,)`` (output seconds, the song's clock).

    duration: the input's seconds; fps: the output's frame rate (the input's); seconds: the longest output wanted
    (default: up to the last beat); strength ``(K,)``: the keyposes' strengths (weak ones are cheaper to leave off);
    allowed_ends ``(N,)``: which beats may end the performance (see :func:`loop_beats`); spans ``(S, 2)``: input seconds
    (first, last) the warp plays at one steady speed, the performance neither starting inside one (a composition's
    junctions: see :func:`steady_spans`); parts: ``[(name, first input second), ...]`` the clips a composition plays, in
    order, each keeping its own keyposes per beat and speed (default one part, ``name``). SyncError naming the clip and
    the stretch it would need when its tempo cannot meet the song's inside ``max_stretch``, or when nothing fits.
    """
    keys, beats = _checked(keyposes, beats, duration, name)
    strength = np.ones(len(keys)) if strength is None else np.asarray(strength, dtype=float)
    closed = np.zeros((0, 2)) if spans is None else np.asarray(spans, dtype=float).reshape(-1, 2)
    song_bpm = song_tempo(beats)
    owner, tempi = part_tempi(keys, song_bpm, parts or [(name, 0.0)], max_stretch, name)
    end_limit = float(beats[-1] if seconds is None else min(seconds, beats[-1]))
    steady = closed
    while True:  # below ON_BEAT keyposes on the grid, drops the spans whose steady speed moved some off it (a few junctions)
        result, costly = _retime(keys, strength, beats, (duration, fps, end_limit), max_stretch, allowed_ends, (steady, closed),
                                 name, (owner, tempi))
        if not np.any(costly) or np.mean(np.abs(result.offsets_after) <= 1.0 / fps + 1e-9) >= ON_BEAT:
            result.motion_bpm, result.song_bpm = 60.0 / float(np.median(np.diff(keys))), song_bpm
            return result
        steady = steady[~costly]


def _retime(keys, strength, beats, timing, max_stretch, allowed_ends, spans, name, tempo):
    """:func:`sync_to_beats` with ``timing`` (duration, fps, end limit), ``spans`` (steady, closed) and ``tempo`` (each
    keypose's part, the parts' :class:`PartTempo`): ``(Sync, costly (S,))``, costly marking the steady spans whose one speed
    puts a keypose the matching had on the grid more than a frame off it."""
    (duration, fps, end_limit), (steady, closed), (owner, tempi) = timing, spans, tempo
    ratios, speeds = np.array([t.ratio for t in tempi]), np.array([t.speed for t in tempi])
    ratio = float(ratios.max())
    grid, on_beat = _lead_grid(*beat_grid(beats, ratio), ratio)
    gaps = (3 if ratios.min() >= 1.0 else 5) * (2 if ratio > 1.0 and ratios.min() <= 1.0 else 1)
    found = match_keyposes(keys, strength, grid, on_beat, beats, speeds[owner], max_stretch, duration, end_limit, allowed_ends, gaps,
                           1.0 / fps, steady, _landing(owner, tempi, grid, on_beat), closed)
    speed = float(np.exp(np.mean(np.log(speeds[owner]))))
    if found is None:
        raise SyncError(f"{name} cannot end on a beat within {end_limit:.2f} s at {speed:.2f}x", clip=name, stretch=speed)
    path, start, end, finish = found
    # A junction's span plays at the speeds of the clips either side of it: those of the keyposes just outside it.
    span_speed = np.sqrt(speeds[owner[np.clip(np.searchsorted(keys, steady[:, 0]) - 1, 0, len(keys) - 1)]]
                         * speeds[owner[np.clip(np.searchsorted(keys, steady[:, 1]), 0, len(keys) - 1)]])
    x, y, linear = steady_spans(*_path_anchors(path, grid, keys, start, end, finish), steady, keys, grid, span_speed, max_stretch, 1.0 / fps)
    x = relax_anchors(x, y, max_stretch, linear)
    warp = monotone_warp(x, y, max_stretch, linear)
    count = int(np.floor(x[-1] * fps + 1e-6)) + 1
    input_times, stretch = warp(np.arange(count) / fps)
    dense_out = np.arange((count - 1) * OVERSAMPLING + 1) / (fps * OVERSAMPLING)
    dense_in = warp(dense_out)[0]
    shown = (keys >= dense_in[0] - 1e-9) & (keys <= dense_in[-1] + 1e-9)
    matched, placed = np.full(len(keys), np.nan), np.array([i for i, _ in path])
    matched[placed] = np.interp(keys[placed], dense_in, dense_out)
    missed = keys[placed][np.abs(_nearest_offsets(matched[placed], np.sort(grid))) > 1.0 / fps + 1e-9]
    costly = np.array([np.any((missed >= first) & (missed <= last)) for first, last in steady], dtype=bool)
    reach = keys <= min(duration, end_limit)
    return Sync(fps=float(fps), input_times=np.clip(input_times, 0.0, duration), stretch=stretch, anchors=np.stack([x, y], axis=1),
                grid=grid, matched=matched, ratio=ratio, speed=speed, motion_bpm=0.0, song_bpm=0.0, end=float(x[-1]),
                offsets_before=_nearest_offsets(keys[reach], grid),
                offsets_after=_nearest_offsets(np.interp(keys[shown], dense_in, dense_out), grid), parts=tuple(tempi)), costly


def warp_clip(clip: Clip, input_times: np.ndarray, interpolation: str = "CUBIC") -> Clip:
    """The clip's poses at ``input_times (T,)`` (seconds from its first frame, e.g. :attr:`Sync.input_times`), T frames at its rate.

    Every channel is sampled at the warped times, the travelling root's location too, so a planted foot stays
    where it was planted and the root covers the same ground, faster or slower with the warp. CUBIC keeps slowed
    motion smooth between the original frames (see :mod:`..motion.sampling`).
    """
    return sampling.clip_at_seconds(clip, np.asarray(input_times, dtype=float), interpolation)
