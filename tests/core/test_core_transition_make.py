"""make_transition, numpy only: the point given or found, the blend chosen, the picture and the time warp it reports."""

import concurrent.futures
import dataclasses
import threading

import numpy as np
import pytest

from core import demo
from core.errors import FeatureError, TransitionError
from core.transition import blend, distance, make, points
from core.measure import transition as measure
from core.motion import root as root_motion
from test_core_transition_blend import _turned, _walks


def _window_map(a, b, region):
    """The windowed distance map over ``region = ((a0, a1), (b0, b1))`` window-start indices, as make_transition computes it."""
    (a0, a1), (b0, b1) = region
    window = round(points.WINDOW_SECONDS * a.fps)
    fa, fb = points.matching_features(a, b)
    return distance.distance_map(fa[a0:a1 + window], fb[b0:b1 + window], window)


def test_a_given_point_is_blended_there_as_asked():
    a, b = _walks()
    made = make.make_transition(a, b, at=(61, 21), method="INERTIALIZE", length=0.4)
    expected = blend.transition(a, 60, b, 20, 0.4)  # demo clips number their frames from 1
    assert (made.frame_a, made.frame_b, made.method, made.length) == (61, 21, "INERTIALIZE", 0.4)
    assert np.array_equal(made.clip.rotation, expected.clip.rotation) and made.window == expected.window
    assert made.metrics == measure.transition_metrics(expected, a, b)
    assert made.candidates == [] and made.path is None
    # The picture: two seconds either side of the point, clamped to the clips' window starts.
    assert made.distance_frames == ((1, 112), (1, 81))  # A: 120 frames less the 9-frame window
    assert np.array_equal(made.distance, _window_map(a, b, ((0, 111), (0, 80))))


def test_an_auto_transition_starts_at_a_top_candidate_and_meets_the_criteria():
    a, b = _walks()
    made = make.make_transition(a, b)
    costs = [c.cost for c in made.candidates]
    assert costs == sorted(costs) and len(costs) > 1
    assert (made.frame_a, made.frame_b) in [(c.frame_a, c.frame_b) for c in made.candidates[:make.CANDIDATES_TRIED]]
    assert made.method in blend.METHODS and made.length in make.LENGTHS
    assert np.all(make.criteria_ratios(made.metrics) <= 1.0), made.metrics.summary()
    first, last = made.window
    assert 0 < first <= last < made.clip.num_frames - 1 and first >= made.frame_a - a.frames[0]
    # The picture is the searched region: A's last two seconds of window starts, B's first.
    (a_first, a_last), (b_first, b_last) = made.distance_frames
    region = points.window_regions(a, b, "end_start", round(points.WINDOW_SECONDS * a.fps))
    assert made.distance_frames == tuple((first + 1, last + 1) for first, last in region)
    assert all(a_first <= c.frame_a <= a_last and b_first <= c.frame_b <= b_last for c in made.candidates)
    assert made.distance.dtype == np.float32 and np.array_equal(made.distance, _window_map(a, b, region))
    assert made.distance.min() <= min(c.distance for c in made.candidates) * (1.0 + 1e-5)  # float32 map, float64 sums


@pytest.mark.parametrize("length", [0.3, 0.7])
def test_a_time_warped_crossfade_reports_its_path_in_frame_numbers(length):
    a, b = _walks()
    made = make.make_transition(a, b, method="CROSSFADE", length=length)
    span = round(length * a.fps)
    path = made.path
    assert path.shape == (span + 1, 2) and tuple(path[0]) == (made.frame_a, made.frame_b)
    assert tuple(path[-1]) == (made.frame_a + span, made.frame_b + span)
    assert np.all(np.diff(path, axis=0) >= 0)  # never back in either clip
    assert a.frames[0] <= path[:, 0].min() and path[:, 0].max() <= a.frames[-1] and path[:, 1].max() <= b.frames[-1]
    plain = make.make_transition(a, b, at=(made.frame_a, made.frame_b), method="CROSSFADE", length=length, timewarp=False)
    assert plain.path is None


def test_the_picture_of_a_large_region_is_thinned_keeping_its_minima():
    fast = demo.walk_cycle(num_frames=720, fps=240.0, period_seconds=1.07).clip
    slow = demo.walk_cycle(num_frames=720, fps=240.0, period_seconds=0.8, speed=1.8, seed=3).clip
    made = make.make_transition(fast, slow, at=(361, 361), method="INERTIALIZE", length=0.1, lock_feet=False)
    window = round(points.WINDOW_SECONDS * 240.0)
    assert made.distance_frames == ((1, 721 - window), (1, 721 - window))  # four seconds around the point: the whole clips
    full = _window_map(fast, slow, ((0, 720 - window), (0, 720 - window)))
    assert max(made.distance.shape) <= make.PICTURE_SIZE < full.shape[0]
    step = -(-full.shape[0] // make.PICTURE_SIZE)
    assert made.distance.shape == (-(-full.shape[0] // step),) * 2
    assert made.distance[0, 0] == full[:step, :step].min() and made.distance.min() == full.min()


def test_long_clips_are_searched_near_their_ends_only(monkeypatch):
    a = demo.walk_cycle(num_frames=10000, speed=1.2).clip
    b = demo.walk_cycle(num_frames=10000, speed=1.8, period_seconds=0.8, seed=3).clip
    shapes = []
    computed = distance.distance_map
    monkeypatch.setattr(distance, "distance_map", lambda fa, fb, *args, **kw: shapes.append((len(fa), len(fb))) or computed(fa, fb, *args, **kw))
    made = make.make_transition(a, b)
    assert max(max(shape) for shape in shapes) < 100  # the region and the time warps: never a 10k x 10k map
    assert made.frame_a > 9900 and made.frame_b < 100 and made.clip.num_frames > 10000
    assert np.all(make.criteria_ratios(made.metrics) <= 1.0), made.metrics.summary()


def test_unaligned_b_is_blended_where_the_user_placed_it():
    a, b = _walks()
    placed = _turned(b, 30.0, (0.5, -4.0))
    for align in (True, False):
        made = make.make_transition(a, placed, at=(61, 21), method="INERTIALIZE", length=0.4, align=align)
        after = np.arange(made.window[1] + 1, made.clip.num_frames)
        unmoved = np.allclose(made.clip.location[after], placed.location[after - 60 + 20])
        assert unmoved == (not align)


@pytest.mark.parametrize("options, message", [
    (dict(method="SNAP"), "unknown transition method"),
    (dict(length=0.0), "positive number of seconds"),
    (dict(length=float("nan")), "positive number of seconds"),
    (dict(length="long"), "positive number of seconds"),
    (dict(length=0.05), "under three frames"),
    (dict(at="middle"), "'auto' or \\(frame in A, frame in B\\)"),
    (dict(at=(61,)), "'auto' or \\(frame in A, frame in B\\)"),
    (dict(at=(0, 21)), "frame 0 is not a frame of clip A \\(frames 1 to 120\\)"),
    (dict(at=(61.5, 21)), "frame 61.5 is not a frame of clip A"),
    (dict(at=(61, 500)), "not a frame of clip B"),
    (dict(at=(61, 2), method="INERTIALIZE"), "three frames of clip B"),
    (dict(joints="arms"), "unknown joint set"),
    (dict(weights="heavy"), "unknown joint weights"),
])
def test_bad_requests_are_one_clear_error(options, message):
    a, b = _walks()
    with pytest.raises((TransitionError, FeatureError), match=message):
        make.make_transition(a, b, **options)


def test_clips_that_cannot_be_joined_are_one_clear_error():
    a, b = _walks()
    with pytest.raises(TransitionError, match="fps"):
        make.make_transition(a, b.with_channels(fps=24.0))
    with pytest.raises(TransitionError, match="no bone named 'Hips'"):
        make.make_transition(a, b.with_channels(bone_names=("Pelvis",) + b.bone_names[1:]))


def test_the_search_measures_the_clips_own_motion_once_for_all_its_blends(monkeypatch):
    """Each blend the search tries is held to the clips' own accelerations, heading rates and root speed jumps: those are
    measured once per run length and reused, as are the roots' tracks the blends follow; every blend's metrics stay what
    measuring it alone gives (to rounding: the result's joints after the blend are carried by B's alignment, not posed again)."""
    a, b = _walks()
    made, runs = [], []
    metrics, peaks, inner = measure.transition_metrics, measure.acceleration_peaks, measure.inner_accelerations
    monkeypatch.setattr(measure, "transition_metrics", lambda *args, **options: made.append((args, options, metrics(*args, **options))) or made[-1][2])
    monkeypatch.setattr(measure, "acceleration_peaks", lambda accelerations, run: runs.append(run) or peaks(accelerations, run))
    accelerated = []
    monkeypatch.setattr(measure, "inner_accelerations", lambda positions, dt: accelerated.append(dt) or inner(positions, dt))
    tracked, tracks = [], root_motion.root_tracks
    monkeypatch.setattr(root_motion, "root_tracks", lambda *args: tracked.append(args) or tracks(*args))
    monkeypatch.setattr(make, "GOOD_ENOUGH", -1.0)  # every candidate point tried
    make.make_transition(a, b)
    assert len(made) >= 3 and 0 < len(runs) < 2 * len(made)  # two clips' yardsticks per blend before
    assert len(accelerated) == 2  # each clip's accelerations once, for every run length
    assert len(tracked) <= 2  # the roots' tracks found for the search's blends at once (and for the whole clips), not per blend
    for (result, *clips), options, kept in made:
        alone = metrics(result, *clips[:2], made_from=options.get("made_from"))
        assert dataclasses.asdict(kept) == pytest.approx(dataclasses.asdict(alone), rel=1e-12, abs=1e-12)  # measured alone


def test_the_whole_clips_are_measured_on_another_thread_while_the_search_runs(monkeypatch):
    """The whole clips' yardstick is made off the calling thread, and the transition is the one made with it measured
    first; an error while measuring them reaches the caller as it was raised."""
    a = demo.walk_cycle(num_frames=900, speed=1.2).clip
    b = demo.walk_cycle(num_frames=900, speed=1.8, period_seconds=0.8, seed=3).clip
    threads, yardstick = [], measure.Yardstick
    monkeypatch.setattr(measure, "Yardstick", lambda *args: threads.append((threading.get_ident(), len(args[0].frames))) or yardstick(*args))
    made = make.make_transition(a, b)
    assert (a.num_frames, False) in {(frames, ident == threading.get_ident()) for ident, frames in threads}  # the whole clips: elsewhere
    measured = concurrent.futures.Future()
    monkeypatch.setattr(make, "_measuring_whole", lambda *clips: measured.set_result(yardstick(*clips, clips[0].bone_names)) or measured)
    first = make.make_transition(a, b)
    assert np.array_equal(made.clip.rotation, first.clip.rotation) and np.array_equal(made.clip.location, first.clip.location)
    assert dataclasses.asdict(made.metrics) == pytest.approx(dataclasses.asdict(first.metrics), rel=0, abs=0, nan_ok=True)

    def fails_on_the_whole_clips(clip_a, *args):
        if clip_a.num_frames == a.num_frames:
            raise TransitionError("posing failed")
        return yardstick(clip_a, *args)

    monkeypatch.undo()
    monkeypatch.setattr(measure, "Yardstick", fails_on_the_whole_clips)
    with pytest.raises(TransitionError, match="posing failed"):
        make.make_transition(a, b)


def test_a_chosen_length_is_shortened_to_what_short_clips_leave_room_for():
    a, b = _walks()  # 30 fps: 0.3 s, the shortest length tried, is 9 frame steps
    b = b.slice_frames(0, 26)
    made = make.make_transition(a, b, at=(61, 20))  # B's frames 20-26 leave 6 steps: on the old code refused
    assert made.shortened and made.length == pytest.approx(6 / 30) and made.clip.num_frames == 60 + 7
    assert not make.make_transition(a, b, at=(61, 10)).shortened  # room for 0.3 s there: not shortened
    with pytest.raises(TransitionError, match="ends 3 frames before the blend"):  # a length given is kept, or refused
        make.make_transition(a, b, at=(61, 20), length=0.3)
    with pytest.raises(TransitionError, match="no transition point leaves room for a blend: the shortest \\(3 frame steps\\) needs 4"):
        make.make_transition(a, b, at=(61, 25))


def test_clips_whose_root_never_moves_are_refused_for_that_not_for_a_blend_too_long():
    a, b = _walks()
    still = b.with_channels(location=np.zeros_like(b.location))
    with pytest.raises(TransitionError, match="no bone's location moves"):  # on the old code: the last blend's length error
        make.make_transition(a.with_channels(location=np.zeros_like(a.location)), still.slice_frames(0, 26), at=(61, 18))


def test_a_one_frame_clip_to_leave_is_refused_in_one_line():
    a, b = _walks()
    with pytest.raises(TransitionError, match=r"^FROM \(a\.bvh\) has 1 frame, fewer than the 2 a transition out of it needs$"):
        make.make_transition(a.slice_frames(0, 1), b, labels=("FROM (a.bvh)", "TO (b.bvh)"))
