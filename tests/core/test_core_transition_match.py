"""The matching half of transitions: pose features, distance maps, transition points, time warp."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from core import demo
from core.motion import quat, root as root_motion
from core.errors import ClipError, FeatureError, TransitionError
from core.transition import distance, points, timewarp
from core.motion import features


@pytest.fixture(scope="module")
def walk():
    return demo.walk_cycle(num_frames=200)


def _brute_map(fa, fb, window):
    """Windowed squared distances by a plain double loop, float64."""
    n, m = len(fa) - window + 1, len(fb) - window + 1
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = sum(np.sum((fa[i + k].astype(float) - fb[j + k].astype(float)) ** 2) for k in range(window))
    return out


@st.composite
def _feature_pairs(draw, integers=False):
    window = draw(st.integers(1, 6))
    fa_frames, fb_frames = draw(st.integers(window, 30)), draw(st.integers(window, 30))
    width = draw(st.integers(1, 7))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if integers:  # small integers: every distance is exact in float32, so ties are exact too
        fa, fb = (rng.integers(-3, 4, (frames, width)).astype(np.float32) for frames in (fa_frames, fb_frames))
    else:  # far from the origin, as character-space heights are
        offset = draw(st.floats(-100.0, 100.0))
        fa, fb = (rng.normal(offset, draw(st.floats(0.01, 10.0)), (frames, width)).astype(np.float32) for frames in (fa_frames, fb_frames))
    return fa, fb, window, draw(st.integers(1, 12))


@settings(max_examples=150, deadline=None)
@given(_feature_pairs())
def test_distance_map_equals_the_brute_force_sum(case):
    fa, fb, window, block = case
    expected = _brute_map(fa, fb, window)
    result = distance.distance_map(fa, fb, window, block)
    assert result.dtype == np.float32 and result.shape == expected.shape
    # float32 rounding of the features' squared norms, and no negatives.
    scale = max(np.abs(fa).max(), np.abs(fb).max()) ** 2 * fa.shape[1] * window
    assert np.allclose(result, expected, rtol=1e-5, atol=2e-6 * scale)
    assert (result >= 0.0).all()


def _brute_best(full, count, separation):
    """Lowest local minima (no higher than anything within separation), greedily kept apart."""
    n, m = full.shape
    minima = []
    for i in range(n):
        for j in range(m):
            around = full[max(i - separation, 0):i + separation + 1, max(j - separation, 0):j + separation + 1]
            if full[i, j] <= around.min():
                minima.append((full[i, j], i, j))
    chosen = []
    for cost, i, j in sorted(minima):
        if all(max(abs(i - a), abs(j - b)) > separation for _, a, b in chosen):
            chosen.append((cost, i, j))
    return chosen[:count]


@settings(max_examples=150, deadline=None)
@given(_feature_pairs(integers=True), st.integers(1, 6), st.integers(0, 4))
def test_best_pairs_block_by_block_equal_the_brute_force_minima(case, count, separation):
    fa, fb, window, block = case
    pairs, costs = distance.best_pairs(fa, fb, count, window, separation, block)
    expected = _brute_best(_brute_map(fa, fb, window), count, separation)
    assert [(float(c), int(i), int(j)) for c, (i, j) in zip(costs, pairs)] == [(float(c), i, j) for c, i, j in expected]


def test_a_window_longer_than_a_clip_is_refused():
    with pytest.raises(TransitionError, match="shorter than the matching window of 5 frames"):
        distance.distance_map(np.zeros((4, 3)), np.zeros((9, 3)), window=5)


def _brute_warp_cost(d, slope):
    """Cheapest path cost by recursion over every path, runs counted explicitly."""
    n, m = d.shape

    @functools.cache
    def rest(i, j, step, run):
        if (i, j) == (n - 1, m - 1):
            return 0.0
        best = np.inf
        for move in ((1, 1), (1, 0), (0, 1)):
            a, b = i + move[0], j + move[1]
            length = 0 if move == (1, 1) else (run + 1 if move == step else 1)
            if a < n and b < m and length <= slope - 1:
                best = min(best, d[a, b] + rest(a, b, move, length))
        return best

    return d[0, 0] + rest(0, 0, (1, 1), 0)


def _runs(path):
    """Longest run of consecutive steps in one clip alone."""
    longest, run, previous = 0, 0, None
    for step in map(tuple, np.diff(path, axis=0)):
        run = run + 1 if step == previous and step != (1, 1) else (0 if step == (1, 1) else 1)
        longest, previous = max(longest, run), step
    return longest


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_time_warp_is_the_cheapest_path_within_the_slope_limit(n, m, slope, seed):
    d = np.random.default_rng(seed).random((n, m))
    expected = _brute_warp_cost(d, slope)
    if not np.isfinite(expected):
        with pytest.raises(TransitionError, match=f"no time warp through {n} x {m} frames keeps the slope limit {slope}"):
            timewarp.time_warp(d, slope)
        return
    path = timewarp.time_warp(d, slope)
    assert tuple(path[0]) == (0, 0) and tuple(path[-1]) == (n - 1, m - 1)
    steps = {tuple(step) for step in np.diff(path, axis=0)}
    assert steps <= {(1, 0), (0, 1), (1, 1)}
    assert _runs(path) <= slope - 1
    assert np.isclose(d[path[:, 0], path[:, 1]].sum(), expected, rtol=1e-12)


def test_slope_one_is_the_diagonal_and_a_cheap_valley_is_followed():
    d = np.random.default_rng(3).random((12, 12))
    assert np.array_equal(timewarp.time_warp(d, slope=1), np.stack([np.arange(12)] * 2, axis=1))
    # A valley where B runs at a third of A's speed (two steps in A alone, then one together):
    # slope 3 follows it, slope 2 cannot go that fast.
    valley = np.ones((31, 11))
    valley[np.arange(31), np.arange(31) // 3] = 0.0
    path = timewarp.time_warp(valley, slope=3)
    assert valley[path[:, 0], path[:, 1]].sum() == 0.0
    with pytest.raises(TransitionError, match="more than 2 times as fast"):
        timewarp.time_warp(valley, slope=2)


def test_blend_timing_lerps_the_durations_and_samples_both_at_one_fraction():
    diagonal = np.stack([np.arange(10)] * 2, axis=1)
    times_a, times_b = timewarp.blend_timing(diagonal, 0.3)
    assert np.allclose(times_a, np.arange(10.0)) and np.allclose(times_b, np.arange(10.0))
    # B twice as long as A, aligned as straight as the lattice allows: (0, 0), (0, 1), (1, 2), (1, 3) ...
    path = np.array([(k // 2, k) for k in range(21)])
    for weight in (0.0, 0.25, 0.5, 1.0):
        times_a, times_b = timewarp.blend_timing(path, weight)
        duration = (1.0 - weight) * 10 + weight * 20
        assert len(times_a) == int(duration) + 1
        assert np.all(np.diff(times_a) >= 0.0) and np.all(np.diff(times_b) >= 0.0)
        # Where the path lies on the straight line (even k), both clips are at the same fraction.
        on_line = np.isclose(times_b, 2.0 * np.round(times_b / 2.0))
        assert np.allclose(times_a[on_line] / 10.0, times_b[on_line] / 20.0)
    assert np.array_equal(timewarp.blend_timing(path, 1.0)[1], np.arange(21.0))
    with pytest.raises(TransitionError, match="blend weight"):
        timewarp.blend_timing(path, 1.5)


def _moved(clip, angle, shift):
    """The clip turned by ``angle`` about Z and moved by ``shift``: only its root's channels change."""
    root = clip.bone_index("Hips")
    position, _ = root_motion.root_frames(clip, root)
    turn = quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), angle)
    rotation = quat.multiply(turn, quat.from_matrix(position[:, :3, :3]))
    return root_motion.with_root_global(clip, root, quat.rotate(turn, position[:, :3, 3]) + shift, rotation)


def test_features_ignore_where_the_character_walks_and_faces(walk):
    base = features.pose_features(walk.clip)
    moved = features.pose_features(_moved(walk.clip, 2.0, np.array([3.0, -5.0, 0.0])))
    assert base.dtype == np.float32 and base.shape == (200, 6 * 22)
    assert np.abs(moved - base).max() < 1e-4
    # Height is kept: lifting the character changes the features.
    lifted = features.pose_features(_moved(walk.clip, 0.0, np.array([0.0, 0.0, 0.5])))
    assert np.abs(lifted - base).max() > 0.4


def test_feature_distance_is_the_weighted_joint_distance(walk):
    weights = np.linspace(0.5, 2.0, 22)
    f = features.pose_features(walk.clip, weights=weights, dtype=np.float64)
    uniform = features.pose_features(walk.clip, weights="uniform", dtype=np.float64)
    positions, velocities = (uniform[:, :66].reshape(-1, 22, 3), uniform[:, 66:].reshape(-1, 22, 3))
    i, j = 10, 27
    expected = np.sum(weights * (np.sum((positions[i] - positions[j]) ** 2, axis=1) + np.sum((velocities[i] - velocities[j]) ** 2, axis=1)))
    assert np.isclose(np.sum((f[i] - f[j]) ** 2), expected)
    # Velocities times 0.1 s: a joint's feature velocity is its position change over 0.1 s.
    assert np.allclose(velocities[50], (positions[51] - positions[49]) / 2 * (features.VELOCITY_TIME * walk.clip.fps))


def test_joint_sets_split_the_body_by_name(walk):
    names = walk.clip.bone_names
    root = features.character_root(walk.clip)
    lower = [names[i] for i in features.joint_indices(walk.clip, "lower", root)]
    upper = [names[i] for i in features.joint_indices(walk.clip, "upper", root)]
    assert names[root] == "Hips" and set(lower) | set(upper) == set(names) and not set(lower) & set(upper)
    assert {"Hips", "UpperLeg.L", "Foot.R", "Toe.L"} <= set(lower) and {"Head", "Hand.L", "Spine"} <= set(upper)
    assert features.pose_features(walk.clip, "lower").shape == (200, 6 * len(lower))
    with pytest.raises(FeatureError, match="unknown joint set 'legs'"):
        features.pose_features(walk.clip, "legs")
    with pytest.raises(ClipError, match="no bone named 'Tail'"):
        features.pose_features(walk.clip, ["Hips", "Tail"])


def test_features_see_the_gait_phase(walk):
    f = features.pose_features(walk.clip)
    d = distance.distance_map(f[:60], f, window=9)
    lags = np.arange(d.shape[1]) - np.arange(d.shape[0])[:, None]
    # Off the diagonal, frames match best one gait period later; half a period (the other foot) is far worse.
    off = np.where(np.abs(lags) > 10, d, np.inf)
    i, j = np.unravel_index(np.argmin(off), off.shape)
    assert abs(abs(j - i) - walk.period_frames) <= 1.5
    half = int(round(walk.period_frames / 2))
    rows = np.arange(len(d))
    assert d[rows, rows + half].min() > 5 * d[i, j] + 0.1 * np.median(d)


def test_candidates_from_a_walk_into_a_run_are_ranked_local_minima(walk):
    run = demo.walk_cycle(num_frames=150, period_seconds=0.77, speed=2.0, seed=3).clip
    candidates = points.transition_candidates(walk.clip, run, "anywhere", limit=8)
    assert len(candidates) == 8 and all(c.contact_match for c in candidates)
    costs = [c.cost for c in candidates]
    assert costs == sorted(costs)
    separation = round(points.SEPARATION_SECONDS * 30)
    for k, a in enumerate(candidates):
        for b in candidates[:k]:
            assert max(abs(a.frame_a - b.frame_a), abs(a.frame_b - b.frame_b)) > separation
    # "end_start" stays in the last and first two seconds; a given region is respected.
    window = round(points.WINDOW_SECONDS * 30)
    for c in points.transition_candidates(walk.clip, run, limit=4):
        assert c.frame_a >= walk.clip.frames[-1] - window + 1 - 60 and c.frame_b <= run.frames[0] + 60
    for c in points.transition_candidates(walk.clip, run, ((50, 90), (20, 40)), limit=4):
        assert 50 <= c.frame_a <= 90 and 20 <= c.frame_b <= 40


def test_contacts_turn_the_choice_to_the_same_stance_foot(walk, monkeypatch):
    # A walk into itself, where B's feet count as planted only in its second half and A's always:
    # every diagonal pair matches the pose exactly, but only the second half matches the feet.
    def planted(clip, pose, ankles):
        mask = np.ones((clip.num_frames, len(ankles)), dtype=bool)
        if pose is poses[-1]:
            mask[: clip.num_frames // 2] = False
        return mask

    poses = []
    forward = points.kinematics.clip_forward_kinematics
    monkeypatch.setattr(points.kinematics, "clip_forward_kinematics", lambda *args, **kw: poses.append(forward(*args, **kw)) or poses[-1])
    monkeypatch.setattr(points, "_planted_feet", planted)
    plain = points.transition_candidates(walk.clip, walk.clip, "anywhere", limit=8, contacts=False)
    matched = points.transition_candidates(walk.clip, walk.clip, "anywhere", limit=8)
    half = walk.clip.frames[0] + 100
    assert all(c.frame_a == c.frame_b and c.distance < 1e-6 for c in plain)
    assert all(c.cost == pytest.approx(c.distance, abs=1e-5) for c in plain)
    assert any(c.frame_b < half and not c.contact_match for c in plain)
    assert all(c.frame_b >= half - round(points.WINDOW_SECONDS * 30) // 2 and c.contact_match for c in matched)


def test_bad_requests_name_the_problem(walk):
    run = demo.walk_cycle(num_frames=150, period_seconds=0.77, seed=3).clip
    with pytest.raises(TransitionError, match=r"clip A: window starts 190-199 must lie within frames 1-192"):
        points.transition_candidates(walk.clip, run, ((190, 199), (1, 20)))
    with pytest.raises(TransitionError, match="unknown transition region 'middle'"):
        points.transition_candidates(walk.clip, run, "middle")
    with pytest.raises(TransitionError, match="clip A plays at 30 fps and clip B at 24"):
        points.transition_candidates(walk.clip, demo.walk_cycle(num_frames=100, fps=24.0).clip)
    renamed = run.with_channels(bone_names=tuple(name.replace("Foot", "Ankle") for name in run.bone_names))
    with pytest.raises(TransitionError, match="no bone named 'Foot.L'"):
        points.transition_candidates(walk.clip, renamed)
