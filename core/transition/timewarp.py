"""Time warp: a slope-limited shortest path through a distance map, and the blend's timing.

The path aligns frame i of clip A (map rows) with frame j of clip B
(columns) over a blend region, from (0, 0) to (n - 1, m - 1), with steps
(1, 0), (0, 1) and (1, 1). The slope limit L (Kovar and Gleicher, after
Slot; 3 by default) allows at most L - 1 consecutive steps in one clip
while the other stands still, so neither clip freezes or races.
:func:`chunked_warp` warps clips of any length a chunk at a time.
"""

import numpy as np

from ..errors import TransitionError
from . import distance

SLOPE = 3
CHUNK = 600  # frames of clip A warped at a time: a few MB of distance map, whatever the clips' lengths
ENDS = ("A", "B", "EITHER")


def time_warp(distances: np.ndarray, slope: int = SLOPE) -> np.ndarray:
    """Aligned frame pairs ``(P, 2)`` int (i in A, j in B) of the cheapest path through ``distances (n, m)``.

    The path's cost is the sum of the entries it visits. Exact dynamic
    programming, one vector step per row: each cell keeps the cheapest cost
    for every way of arriving (a diagonal step, or the k-th step of a run in
    A alone or B alone, k < slope). TransitionError when no path keeps the limit
    (one side more than about ``slope`` times the other).
    """
    d = np.asarray(distances, dtype=float)
    n, m = d.shape
    runs = slope - 1
    if slope < 1 or not n or not m:
        raise TransitionError(f"the time warp needs a slope limit >= 1 and a non-empty region, got {slope} and {n} x {m} frames")
    # States: 0 diagonal (or the start), 1 .. runs: k-th step in A alone, runs + 1 .. 2 runs: in B alone.
    a_states, b_states = np.arange(1, runs + 1), np.arange(runs + 1, 2 * runs + 1)
    from_a = np.concatenate([[0], b_states])  # what may precede a first step in A alone
    from_b = np.concatenate([[0], a_states])
    came_diagonal = np.zeros((n, m), dtype=np.int8)  # the state at (i - 1, j - 1)
    came_a = np.zeros((n, m), dtype=np.int8)  # the state at (i - 1, j) before a first step in A
    came_b = np.zeros((n, m), dtype=np.int8)  # the state at (i, j - 1) before a first step in B
    previous = np.full((2 * runs + 1, m), np.inf)
    for i in range(n):  # one vector step per row of the region
        row = d[i]
        cost = np.full_like(previous, np.inf)
        if i == 0:
            cost[0, 0] = row[0]
        else:
            came_diagonal[i, 1:] = previous[:, :-1].argmin(axis=0)
            cost[0, 1:] = row[1:] + previous[:, :-1].min(axis=0)
            if runs:
                choice = previous[from_a].argmin(axis=0)
                came_a[i] = from_a[choice]
                cost[1] = row + previous[from_a][choice, np.arange(m)]
                cost[2:runs + 1] = row + previous[1:runs]
        if runs:  # steps in B alone follow the states just found in this row
            choice = cost[from_b, :-1].argmin(axis=0)
            came_b[i, 1:] = from_b[choice]
            cost[runs + 1, 1:] = row[1:] + cost[from_b, :-1][choice, np.arange(m - 1)]
            for k in range(runs + 2, 2 * runs + 1):  # slope - 2 shifted sums at most
                cost[k, 1:] = row[1:] + cost[k - 1, :-1]
        previous = cost
    state = int(previous[:, -1].argmin())
    if not np.isfinite(previous[state, -1]):
        raise TransitionError(f"no time warp through {n} x {m} frames keeps the slope limit {slope}: "
                        f"one clip would run more than {slope} times as fast as the other")
    i, j, path = n - 1, m - 1, [(n - 1, m - 1)]
    while (i, j) != (0, 0):  # back along the path: its length, not the map's size
        if state == 0:
            state, i, j = int(came_diagonal[i, j]), i - 1, j - 1
        elif state == 1:
            state, i = int(came_a[i, j]), i - 1
        elif state <= runs:
            state, i = state - 1, i - 1
        elif state == runs + 1:
            state, j = int(came_b[i, j]), j - 1
        else:
            state, j = state - 1, j - 1
        path.append((i, j))
    return np.array(path[::-1], dtype=int)


def blend_timing(pairs: np.ndarray, weight: float) -> tuple[np.ndarray, np.ndarray]:
    """Fractional frame times (times_a ``(N,)``, times_b ``(N,)``) of the blend along a time warp.

    The blend lasts the duration lerped between the two
    (``(1 - weight) * (n - 1) + weight * (m - 1)`` frames for a path ending at
    (n - 1, m - 1)), and at each of its frames both clips are sampled at the
    same fraction of the path, each pair (i, j) placed at blend time
    ``(1 - weight) i + weight j``; on the straight path that is the same
    fraction of both clips. pairs ``(P, 2)`` from :func:`time_warp`;
    weight in [0, 1] (0: A's timing, 1: B's). Times are frames from the
    region's start; N = the whole frames the blend lasts, plus one.
    """
    pairs = np.asarray(pairs, dtype=float)
    if not 0.0 <= weight <= 1.0:
        raise TransitionError(f"the blend weight must lie in [0, 1], got {weight}")
    at = (1.0 - weight) * pairs[:, 0] + weight * pairs[:, 1]
    # A run in one clip at weight 0 or 1 does not move the blend's clock: its last pair stands for it.
    last = np.append(np.diff(at) > 0.0, True)
    at, pairs = at[last], pairs[last]
    frames = np.arange(int(np.floor(at[-1] + 1e-9)) + 1, dtype=float)
    return np.interp(frames, at, pairs[:, 0]), np.interp(frames, at, pairs[:, 1])


def smooth_times(times: np.ndarray, passes: int = 4) -> np.ndarray:
    """Frame times ``(N,)`` of a time-warp path with its corners rounded off, ends kept.

    The path's steps change a clip's playback rate from one frame to the next
    (standing still, then double speed), which the root would show as a
    stutter; averaging neighbours keeps the times monotone and the rate smooth.
    """
    times = np.asarray(times, dtype=float)
    for _ in range(passes):
        times = np.concatenate([times[:1], 0.25 * times[:-2] + 0.5 * times[1:-1] + 0.25 * times[2:], times[-1:]])
    return times


def _near(centre, half, low, high):
    """Whole indices within ``half`` of ``centre`` inside ``[low, high]`` (all of them for half None); the nearest one if none is."""
    if low > high:
        return np.zeros(0, dtype=int)
    if half is None:
        return np.arange(low, high + 1)
    centre = min(max(centre, low), high)
    return np.arange(max(low, int(np.ceil(centre - half))), min(high, int(np.floor(centre + half))) + 1)


def _chunk_end(block, rate, cycles, slope, on_row, on_column):
    """Where a chunk's warp ends, (row, column) of ``block (rows + 1, cols + 1)``: the closest match near the expected place, or None.

    The expected place follows ``rate`` (B frames per A frame) from the
    chunk's start; the search spans one gait cycle around it (cycles: A's,
    B's in frames), so the same foot is down in both clips, or without
    cycles every cell ``slope`` allows. on_row: the chunk may end on its last
    row; on_column: on its last column (B's last frame).
    """
    rows, cols = block.shape[0] - 1, block.shape[1] - 1
    half_a, half_b = (None, None) if cycles is None else (0.5 * cycles[0], 0.5 * cycles[1])
    cells = [np.zeros((0, 2), dtype=int)]
    if on_row:
        columns = _near(rate * rows, half_b, int(np.ceil(rows / slope)), min(cols, slope * rows))
        cells.append(np.stack([np.full(len(columns), rows), columns], axis=1))
    if on_column:
        end_rows = _near(cols / rate, half_a, int(np.ceil(cols / slope)), min(rows, slope * cols))
        cells.append(np.stack([end_rows, np.full(len(end_rows), cols)], axis=1))
    cells = np.concatenate(cells)
    return cells[np.argmin(block[cells[:, 0], cells[:, 1]])] if len(cells) else None


def _open_start(fa, fb, cycles, chunk):
    """The best-matching first pair ``(2,)``: A's first frame against B's first frames, or B's first against A's.

    Searched over one gait cycle of each clip (cycles: A's, B's in frames),
    or the first chunk without cycles; never past a clip's middle.
    """
    reach = np.full(2, chunk) if cycles is None else np.ceil(cycles).astype(int) + 1
    reach = np.maximum(np.minimum(reach, [len(fa) // 2, len(fb) // 2]), 1)
    along_b = distance.distance_map(fa[:1], fb[:reach[1]])[0]
    along_a = distance.distance_map(fa[:reach[0]], fb[:1])[:, 0]
    if along_b.min() <= along_a.min():
        return np.array([0, int(np.argmin(along_b))])
    return np.array([int(np.argmin(along_a)), 0])


def chunked_warp(fa: np.ndarray, fb: np.ndarray, rate: float | None = None, cycles: tuple | None = None, open_start: bool = False,
                 end: str = "EITHER", chunk: int = CHUNK, slope: int = SLOPE) -> np.ndarray:
    """Aligned frame pairs ``(P, 2)`` int (i in A, j in B) of a slope-limited time warp of features ``fa (n, K)``, ``fb (m, K)``.

    The warp goes ``chunk`` frames of A at a time: each chunk is one
    :func:`time_warp` through a block of the distance map (float32, about
    ``chunk x 2 chunk``), whatever the clips' lengths, and ends where the clips
    match best near the place ``rate`` (B frames per A frame; default the
    ratio of ``cycles``, else of the clips' lengths) expects: within half a
    gait cycle of it (cycles: A's and B's in frames), or anywhere the slope
    allows without cycles. Chunk ends keep one clip at most ``slope - 1``
    times as fast as the other, well inside the warp's own limit.
    open_start: False starts at (0, 0); True at the best match of A's first
    frame with B's first gait cycle, or of B's first frame with A's (the
    first chunk without cycles). end: the clip whose last frame ends the
    path, one of :data:`ENDS` (EITHER: the first to run out). The pairs can
    go to :func:`blend_timing`. TransitionError when the clips cannot be
    aligned so (one would run too fast, or ends first).
    """
    fa, fb = np.asarray(fa), np.asarray(fb)
    n, m = len(fa), len(fb)
    if end not in ENDS:
        raise TransitionError(f"unknown end of a time warp '{end}' (one of {', '.join(ENDS)})")
    if min(n, m) < 2:
        raise TransitionError(f"a time warp needs two frames of each clip, got {n} and {m}")
    if rate is None:
        rate = cycles[1] / cycles[0] if cycles is not None else (m - 1) / (n - 1)
    chunk_slope = slope - 1
    start = _open_start(fa, fb, cycles, chunk) if open_start else np.zeros(2, dtype=int)
    pairs = [start[None]]
    while start[0] < n - 1 and start[1] < m - 1:
        last_row = min(start[0] + chunk, n - 1)
        last_column = min(m - 1, start[1] + chunk_slope * (last_row - start[0]))
        block = distance.distance_map(fa[start[0]:last_row + 1], fb[start[1]:last_column + 1])
        step = _chunk_end(block, rate, cycles, chunk_slope, last_row < n - 1 or end != "B", last_column == m - 1 and end != "A")
        if step is None:
            break
        pairs.append(time_warp(block[:step[0] + 1, :step[1] + 1], slope)[1:] + start)
        start = start + step
    if (start[0] < n - 1 or end == "B") and (start[1] < m - 1 or end == "A"):
        who = {"A": "clip A's last frame", "B": "clip B's last frame", "EITHER": "either clip's last frame"}[end]
        raise TransitionError(f"no time warp from frames {start[0]} of A and {start[1]} of B reaches {who} "
                              f"with one clip at most {chunk_slope} times as fast as the other")
    return np.concatenate(pairs)
