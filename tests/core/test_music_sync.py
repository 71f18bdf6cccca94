"""Keyposes, motion tempo and the time warp that puts keyposes on beats, on synthetic motion (core only)."""

import numpy as np
import pytest

from core.measure import verdict
from core.motion import quat
from core.motion.clip import Clip
from core.music import keyposes, perform, sync

FPS = 30.0
PAUSES = np.array([10.0, 27.0, 41.0, 60.0, 75.0, 93.0])  # frames where the whole body stops


def _rest(heads):
    rest = np.tile(np.eye(4), (len(heads), 1, 1))
    rest[:, :3, 3] = heads
    return rest


def _pausing_clip(pauses=PAUSES, frames=110):
    """A small body whose two arms swing about Z and X, both still exactly at ``pauses`` (frames) and moving between them."""
    t = np.arange(frames, dtype=float)
    knots = np.concatenate([[-10.0], pauses, [frames + 10.0]])
    k = np.clip(np.searchsorted(knots, t, side="right") - 1, 0, len(knots) - 2)
    speed = np.sin(np.pi * (t - knots[k]) / (knots[k + 1] - knots[k])) ** 2  # 0 at every pause, smooth
    angle = 0.08 * np.cumsum(speed)
    names = ("root", "arm_a", "hand_a", "arm_b", "hand_b")
    parents = np.array([-1, 0, 1, 0, 3])
    heads = np.array([[0, 0, 1.0], [0, 0, 1.5], [0.5, 0, 1.5], [0, 0, 1.2], [0, 0.4, 1.2]])
    rotation = np.zeros((frames, 5, 4))
    rotation[..., 0] = 1.0
    rotation[:, 1] = quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), angle)
    rotation[:, 3] = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -angle)
    return Clip(fps=FPS, frames=np.arange(1, frames + 1), bone_names=names, parents=parents, rest=_rest(heads),
                location=np.zeros((frames, 5, 3)), rotation=rotation, scale=np.ones((frames, 5, 3)),
                rotation_modes=("QUATERNION",) * 5)


def test_the_pauses_of_a_synthetic_body_are_found_within_a_frame_and_give_its_tempo():
    clip = _pausing_clip().validate()
    found = keyposes.find_keyposes(clip, steps=False)
    assert len(found.frames) == len(PAUSES), found.frames
    assert np.abs(found.frames - PAUSES).max() <= 1.0, found.frames
    assert np.all((found.strength > 0.0) & (found.strength <= 1.0)) and not found.contact.any()
    expected = 60.0 * FPS / np.median(np.diff(PAUSES))
    assert keyposes.motion_tempo(found.frames, FPS) == pytest.approx(expected, rel=0.03)
    assert keyposes.motion_tempo(np.array([5.0]), FPS) == 0.0


def test_shallow_dips_and_crowded_minima_are_not_keyposes():
    t = np.arange(200.0)
    speed = 1.0 - 0.5 * np.cos(2 * np.pi * t / 20.0) + 0.04 * np.sin(2 * np.pi * t / 3.3)  # deep pauses every 20 frames, ripples
    at = keyposes.local_minima(speed)
    strength = keyposes.prominence(speed, at, 30) / np.subtract(*np.percentile(speed, [95, 5]))
    strong = at[strength >= keyposes.MIN_PROMINENCE]
    assert len(at) > len(strong) and len(strong) == 9, (at, strength)  # the ripples make minima of their own
    assert np.abs(strong - np.arange(20, 200, 20)).max() <= 1
    kept = keyposes.thin(np.array([10.0, 13.0, 30.0]), np.array([0.5, 0.9, 0.4]), spacing=6.0)
    assert kept.tolist() == [False, True, True]


def test_a_pause_on_a_clips_first_frame_is_a_keypose():
    clip = _pausing_clip(pauses=np.array([0.0, 27.0, 41.0, 60.0, 75.0, 93.0])).validate()
    found = keyposes.find_keyposes(clip, steps=False)
    assert found.frames[0] <= 1.0 and len(found.frames) == 6, found.frames
    assert keyposes.local_minima(np.array([1.0, 2.0, 1.5, 3.0])).tolist() == [2]  # inner only, unless asked
    assert keyposes.local_minima(np.array([1.0, 2.0, 1.5, 3.0]), ends=True).tolist() == [0, 2]


def test_motion_tempo_is_robust_to_one_missed_keypose():
    times = np.array([0, 15, 30, 45, 75, 90, 105.0])  # one keypose missing at 60
    assert keyposes.motion_tempo(times, FPS) == pytest.approx(120.0)


def test_two_keyposes_to_three_beats_where_no_simple_count_reaches():
    keys = np.arange(12) * 0.5  # 120 keyposes per minute
    beats = np.arange(40) * 60.0 / 160.0  # 160 BPM: 1.33x at one a beat, 0.67x at one every other beat, 0.89x at two to three
    result = sync.sync_to_beats(keys, beats, 6.0, FPS, name="walk.bvh", seconds=8.0)  # was refused: outside the stretch allowed
    (part,) = result.parts
    assert part.ratio == pytest.approx(2 / 3) and part.speed == pytest.approx(0.889, abs=0.001) and part.needed is None
    played = result.matched[~np.isnan(result.matched)]
    half_beats = np.round(played / (60.0 / 160.0 / 2.0), 6)
    assert len(played) >= 8 and np.allclose(half_beats, np.round(half_beats)) and set(np.diff(half_beats)) == {3.0}


def test_a_tempo_out_of_reach_plays_at_the_nearest_stretch_and_names_what_would_fit():
    keys = np.arange(12) * 0.5  # 120 keyposes per minute
    beats = np.arange(40) * 60.0 / 160.0  # 160 BPM: 1.33x, 0.67x, 0.89x, 2x or 2.67x
    result = sync.sync_to_beats(keys, beats, 6.0, FPS, (0.95, 1.05), name="walk.bvh")  # was refused
    (part,) = result.parts
    assert part.name == "walk.bvh" and part.needed == pytest.approx(160 / 180) and part.speed == 0.95
    assert part.fit == (0.85, 1.05) and result.stretch.min() >= 0.95 - 1e-9 and len(result.input_times) > 1
    assert sync.choose_ratio(120.0, 160.0, name="walk.bvh") == (1.0, pytest.approx(4 / 3))  # was refused: the nearest, out of reach
    assert sync.choose_ratio(120.0, 160.0, (0.6, 1.5))[0] == 1.0  # within wider bounds it is reached
    assert sync.choose_ratio(120.0, 70.0)[0] == 2.0 and sync.choose_ratio(120.0, 230.0)[0] == 0.5


def test_a_loop_whose_cycle_no_whole_bars_hold_plays_at_the_nearest_stretch_and_says_what_would_fit():
    clip = _pausing_clip(pauses=np.array([7.0, 22.0, 37.0, 52.0]), frames=61).validate()  # a 2 s cycle, a keypose every 0.5 s
    for bpm, bound, bar_line in ((160.0, 1.25, "100 ms after"), (50.0, 0.8, "2300 ms before")):  # 1.33x and 0.42x a bar
        beats = np.arange(int(bpm / 2)) * 60.0 / bpm
        warped, result = perform.sync_performance(clip, beats, loop_bars=4, name="walk.bvh", seconds=30.0)  # was refused
        assert np.allclose(result.stretch, bound) and result.end == pytest.approx(2.0 / bound, abs=0.5 / FPS)
        assert result.input_times[0] == 0.0 and result.input_times[-1] == pytest.approx(2.0)
        judged = verdict.of_sync(perform.measure_sync(clip, warped, result, []))
        assert judged.word == verdict.CHECK, judged.reasons
        reason = next(reason for reason in judged.reasons if "would need" in reason)
        assert f"walk.bvh would need {2.0 / (240.0 / bpm):.2f}x to loop in whole bars of the song (1 bar of 4 beats" in reason
        assert bar_line in reason and f"plays at {bound:.2f}x" in reason and "--max-stretch" in reason
    beats = np.arange(50) * 0.6  # 100 BPM: one bar is 2.4 s, 0.83x, inside the bounds
    _, result = perform.sync_performance(clip, beats, loop_bars=4, name="walk.bvh", seconds=30.0)
    assert not perform.out_of_reach(result) and result.end == pytest.approx(2.4, abs=0.5 / FPS)


def test_the_verdict_of_a_performance_out_of_reach_says_how_near_it_came():
    numbers = {"on_beat_after": 0.9, "skating_after_per_input": 0.01, "skating_before": 0.01, "drift_ms": [20.0, 90.0],
               "out_of_reach": [{"clip": "walk.bvh", "needed": 1.31, "speed": 1.25, "fit": [0.8, 1.35]}]}
    judged = verdict.of_sync(numbers)
    assert judged.word == verdict.CHECK and "walk.bvh would need 1.31x" in judged.reasons[0]
    assert "20 ms in the median, 90 ms at most; --max-stretch 0.8 1.35 would fit it" in judged.reasons[0]


def test_irregular_keyposes_land_on_beats_with_the_stretch_in_bounds_and_the_end_on_a_beat():
    rng = np.random.default_rng(3)
    keys = 0.3 + np.cumsum(rng.uniform(0.5, 0.6, 30))  # about 109 per minute, uneven
    beats = 0.2 + np.arange(60) * 0.5  # 120 BPM
    result = sync.sync_to_beats(keys, beats, keys[-1] + 0.4, FPS, seconds=12.0)
    assert result.ratio == 1.0 and 0.8 <= result.stretch.min() and result.stretch.max() <= 1.25 + 1e-9
    assert np.all(np.diff(result.input_times) > 0.0)
    assert np.min(np.abs(beats - result.end)) < 1e-9 and result.end <= 12.0
    assert (result.output_times[-1] <= result.end + 1e-9) and (result.end - result.output_times[-1] < 1.0 / FPS)
    assert np.mean(np.abs(result.offsets_after) <= 1.0 / FPS) >= 0.9, result.offsets_after
    assert np.mean(np.abs(result.offsets_before) <= 1.0 / FPS) < 0.5
    # The warp really passes through its anchors: each matched keypose is shown on its beat.
    matched = ~np.isnan(result.matched)
    shown = np.interp(keys[matched], result.input_times, result.output_times)
    assert np.abs(shown - result.matched[matched]).max() < 0.5 / FPS


def test_two_keyposes_per_beat_use_the_half_beats():
    keys = np.arange(40) * 0.4  # 150 per minute
    beats = np.arange(40) * 60.0 / 90.0  # 90 BPM: two per beat at 1.2x
    result = sync.sync_to_beats(keys, beats, keys[-1], FPS)
    assert result.ratio == 2.0 and result.speed == pytest.approx(1.2)
    assert len(result.grid) == 2 * len(beats) - 1
    assert np.abs(result.offsets_after).max() < 1e-6 and result.stretch.max() <= 1.25 + 1e-9


def test_the_warp_is_monotone_passes_its_anchors_and_keeps_its_slope_in_bounds():
    x = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    y = np.cumsum([0.0, 0.62, 0.41, 0.6, 0.42, 0.5, 0.61])  # secants 1.24, 0.82, ...: cubics would leave the bounds
    warp = sync.monotone_warp(x, y, (0.8, 1.25))
    assert not warp.cubic.all()
    t = np.linspace(0.0, 3.0, 3001)
    value, slope = warp(t)
    assert np.allclose(warp(x)[0], y) and np.all(np.diff(value) > 0.0)
    assert slope.min() >= 0.8 - 1e-9 and slope.max() <= 1.25 + 1e-9
    assert np.allclose(np.gradient(value, t)[1:-1], slope[1:-1], atol=2e-3)  # the slope is the value's derivative
    smooth = sync.monotone_warp(x, 1.0 * x)
    assert smooth.cubic.all() and np.allclose(smooth(t)[1], 1.0)


def test_a_junction_span_plays_no_faster_than_its_clip_and_the_performance_does_not_start_inside_it():
    rng = np.random.default_rng(5)
    keys = 0.3 + np.cumsum(rng.uniform(0.5, 0.6, 30))  # about 109 per minute, uneven
    beats = 0.2 + np.arange(60) * 0.5  # 120 BPM
    span = np.array([[keys[9] - 0.2, keys[13] + 0.1]])  # a junction's window, input seconds
    free = sync.sync_to_beats(keys, beats, keys[-1] + 0.4, FPS, seconds=14.0)
    result = sync.sync_to_beats(keys, beats, keys[-1] + 0.4, FPS, seconds=14.0, spans=span)
    inside = (result.input_times >= span[0, 0]) & (result.input_times <= span[0, 1])
    free_inside = (free.input_times >= span[0, 0]) & (free.input_times <= span[0, 1])
    assert inside.sum() > 40 and result.stretch[inside].max() <= result.speed + 1e-6, result.stretch[inside].max()
    assert free.stretch[free_inside].max() > free.speed + 0.02  # without the span: faster there
    assert np.abs(np.diff(result.stretch)).max() * FPS <= 3.0 * sync.EASING  # the speed eases into the span
    assert 0.8 - 1e-9 <= result.stretch.min() and result.stretch.max() <= 1.25 + 1e-9
    assert np.mean(np.abs(result.offsets_after) <= 1.0 / FPS) >= 0.8, result.offsets_after
    late = sync.sync_to_beats(keys, beats, keys[-1] + 0.4, FPS, seconds=14.0, spans=[[0.1, keys[2] + 0.1]])
    assert not 0.1 < late.input_times[0] < keys[2] + 0.1, late.input_times[0]  # starts before the span or after it


def test_a_junction_may_play_as_fast_as_keeps_it_as_sharp_against_its_clips_as_they_play():
    before, after = np.array([10.0, 10.0, 20.0]), np.array([10.0, 10.0, 80.0])  # the third joint moves most in the clip after
    accelerations = np.array([[5.0, 5.0, 70.0], [5.0, 5.0, 20.0], [4.0, 4.0, 10.0]])  # frame 0 is the window's peak
    junction = sync.JunctionAccelerations(np.arange(3), accelerations, before, after)
    assert junction.fastest(1.0, 1.0)[0] == pytest.approx(1.0)  # as composed, the peak frame plays as captured
    assert np.all(junction.fastest(1.0, 1.0)[1:] > 1.0)  # the others may play faster
    # The clip after, whose third joint sets the measure, plays at 0.8x: the peak frame may play no faster than it.
    assert junction.fastest(1.2, 0.8)[0] == pytest.approx(0.8)
    played = sync.JunctionAccelerations(np.arange(3), accelerations, before, after, played=(before * 1.44, after * 0.64))
    assert np.allclose(played.fastest(1.0, 1.0), junction.fastest(1.2, 0.8))  # the clips as a warp played them


def test_the_speed_ceiling_eases_and_keeps_under_every_frame_of_a_span():
    parts = [sync.PartTempo("a", 0.0, 1.0, 1.2, 100.0), sync.PartTempo("b", 3.0, 1.0, 0.9, 100.0)]
    spans = np.array([[2.5, 3.5]])
    ceiling = sync.speed_ceiling(spans, parts, (0.8, 1.25), 8.0, FPS)
    inside = (ceiling.times[1:] > 2.5) & (ceiling.times[:-1] < 3.5)
    assert np.all(ceiling.fastest[inside] <= 0.9 + 1e-9)  # the slower clip's speed, without its accelerations
    assert np.abs(np.diff(ceiling.fastest)).max() * FPS <= sync.EASING + 1e-6
    assert ceiling.fastest[0] == 1.25 and ceiling.fastest[-1] == 1.25
    assert ceiling.lowered(2.0, 4.0) and not ceiling.lowered(0.0, 1.0)
    assert ceiling.capacity(0.0, 1.0) == pytest.approx(1.25) and ceiling.capacity(2.6, 3.4) == pytest.approx(0.9)
    times, output, top = ceiling.under(2.0, 4.0, 2.0)  # two seconds of input in two of output: slower in the span
    speed = np.diff(times) / np.diff(output)
    assert output[-1] == pytest.approx(2.0) and np.all(speed <= top + 1e-9) and speed.max() > 1.0
    x, y = np.array([0.0, 2.0, 4.2, 7.0]), np.array([0.0, 2.0, 4.0, 7.5])
    knot_x, knot_y, tops = sync.knots_under(x, y, ceiling)
    warp = sync.monotone_warp(knot_x, knot_y, (0.8, 1.25), tops)
    t = np.linspace(0.0, 7.0, 7001)
    value, slope = warp(t)
    assert np.allclose(warp(x)[0], y) and np.all(np.diff(value) > 0.0)
    ceiling_there = np.interp(value, ceiling.times[:-1], ceiling.fastest)
    assert np.all(slope <= ceiling_there + 0.02), (slope - ceiling_there).max()


def test_anchors_that_ask_too_much_are_relaxed_into_the_bounds():
    x = sync.relax_anchors(np.array([0.0, 1.0, 1.5]), np.array([0.0, 2.0, 2.5]), (0.8, 1.25))
    assert x[1] == pytest.approx(1.6) and x[2] == pytest.approx(2.0)  # 2 s in 1.6 s, then 0.5 s in 0.4 s: 1.25x each


def test_a_loop_takes_whole_bars_within_the_seconds():
    beats = 0.1 + np.arange(100) * 0.5
    assert sync.loop_beats(beats, 10.0) == 16 and sync.loop_beats(beats, 1.0) == 0
    result = sync.sync_to_beats(np.arange(40) * 0.55, beats, 22.0, FPS, seconds=10.0, allowed_ends=np.arange(100) % 4 == 0)
    assert np.isclose(result.end, beats[16]) or np.isclose(result.end, beats[12]), result.end


def test_the_warped_clip_plays_the_warp_with_unit_rotations():
    clip = _pausing_clip()
    found = keyposes.find_keyposes(clip, steps=False)
    beats = 0.1 + np.arange(30) * 60.0 / 100.0  # 100 BPM against about 106 keyposes per minute
    result = sync.sync_to_beats(found.seconds, beats, clip.duration, clip.fps, strength=found.strength, name="synthetic")
    warped = sync.warp_clip(clip, result.input_times).validate()
    assert warped.num_frames == len(result.input_times)
    assert np.allclose(np.linalg.norm(warped.rotation, axis=-1), 1.0)
    again = keyposes.find_keyposes(warped, steps=False)
    assert sync.on_beat_fraction(again.seconds, result.grid, 1.0 / FPS) >= 0.8, (again.seconds, result.grid)


def test_the_songs_tempo_averages_hop_rounding_and_survives_two_tempos():
    """Beat times on ~11.6 ms hops: 90 BPM stays 90 (the median spacing alone says 89.0 or 90.6); spacings of two tempos
    half and half (a missed beat among three) give the median's tempo, never NaN."""
    hop = 256 / 22050
    beats = np.round((0.5 + np.arange(40) * 60.0 / 90.0) / hop) * hop
    assert sync.song_tempo(beats) == pytest.approx(90.0, abs=0.05)
    assert sync.song_tempo([0.0, 0.5, 1.5]) == pytest.approx(80.0) and sync.song_tempo([0.0, 0.5, 1.0, 2.0, 3.0]) == pytest.approx(80.0)
    assert sync.song_tempo([1.0]) == 0.0


def test_a_performance_to_a_weak_beat_is_checked():
    numbers = {"on_beat_after": 1.0, "skating_after_per_input": 0.01, "skating_before": 0.01, "confidence": 0.2}
    judged = verdict.of_sync(numbers)
    assert judged.word == verdict.CHECK and judged.reasons[0].startswith("beat confidence 0.20 is below 0.3")
    assert verdict.of_sync({**numbers, "confidence": 0.7}).word == verdict.GOOD
