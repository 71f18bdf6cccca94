"""Time warp: a slope-limited shortest path through a distance map, and the blend's timing.

The path aligns frame i of clip A (map rows) with frame j of clip B
(columns) over a blend region, from (0, 0) to (n - 1, m - 1), with steps
(1, 0), (0, 1) and (1, 1). The slope limit L (Kovar and Gleicher, after
Slot; 3 by default) allows at most L - 1 consecutive steps in one clip
while the other stands still, so neither clip freezes or races.
"""

import numpy as np

from ..errors import TransitionError

SLOPE = 3


def time_warp(distances, slope=SLOPE):
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


def blend_timing(pairs, weight):
    """Fractional frame times (times_a ``(N,)``, times_b ``(N,)``) of the blend along a time warp.

    Seed 003's timing: the blend lasts the duration lerped between the two
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


def smooth_times(times, passes=4):
    """Frame times ``(N,)`` of a time-warp path with its corners rounded off, ends kept.

    The path's steps change a clip's playback rate from one frame to the next
    (standing still, then double speed), which the root would show as a
    stutter; averaging neighbours keeps the times monotone and the rate smooth.
    """
    times = np.asarray(times, dtype=float)
    for _ in range(passes):
        times = np.concatenate([times[:1], 0.25 * times[:-2] + 0.5 * times[1:-1] + 0.25 * times[2:], times[-1:]])
    return times
