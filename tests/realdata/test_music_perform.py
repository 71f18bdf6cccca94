"""Shared walks and runs composed (core compose) and synced to beat grids at 90, 120 and 150 BPM and to house_lo.ogg's
beats: keyposes on the beats, the stretch in bounds, junctions and feet as good as without music (core only).

Run with -s for the numbers: the on-beat fraction before (chance) and after, the stretch range, junction visibility and
toe skating before and after.
"""

import functools
import pathlib

import numpy as np
import pytest

from core.compose import sequence
from core.formats import bvh, bvh_clip
from core.measure import verdict
from core.music import beats as beat_tracking, keyposes, perform, sync

COMPOSITIONS = {
    "walk+walk": ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh"),
    "run+run": ("dataset-1_run_happy_001.bvh", "dataset-2_run_normal_040.bvh"),
    "walk+run+walk": ("dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_walk_normal_020.bvh"),
}
TEMPI = (90, 120, 150)
PHASE = 0.25  # s: the first beat after the song's start
MARGIN = 1.1  # junction visibility and skating may be at most 10% worse than without music
SONG = pathlib.Path(__file__).resolve().parents[3] / "shared" / "music" / "house_lo.ogg"


@functools.lru_cache(maxsize=None)
def _clip(path):
    info = bvh.read_bvh(path)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


@functools.lru_cache(maxsize=None)
def _composed(mocap, name):
    pieces = [sequence.Piece(_clip(mocap / file), name=file) for file in COMPOSITIONS[name]]
    return sequence.compose(pieces)


@functools.lru_cache(maxsize=1)
def _song_beats():
    soundfile = pytest.importorskip("soundfile")
    if not SONG.exists():
        pytest.skip(f"{SONG} not found")
    samples, rate = soundfile.read(str(SONG), dtype="float32", always_2d=True)
    return beat_tracking.track_beats(samples.mean(axis=1), rate, str(SONG)).times, len(samples) / rate


def _check(composed, beats, seconds, label, bounds=sync.MAX_STRETCH):
    clip = composed.clip
    found = keyposes.find_keyposes(clip)
    windows = [t.window for t in composed.transitions]
    parts = [(segment.name, segment.out_first) for segment in composed.segments]
    # as compose --music does: each clip at its own tempo, the junction windows no faster than keeps them as sharp
    warped, result = perform.sync_performance(clip, beats, bounds, seconds=seconds, name=label, found=found, windows=windows, parts=parts)
    missed = perform.out_of_reach(result)
    if missed:  # a tempo a clip cannot reach: played at the nearest bound, named with the stretch it would need
        assert {part["clip"] for part in missed} <= {name for name, _ in parts}
        assert all(not bounds[0] <= part["needed"] <= bounds[1] and part["speed"] in bounds for part in missed)
        print(f"{label}: {missed}")
        return None
    numbers = perform.measure_sync(clip, warped, result, windows, found)
    print(f"{label}: {[(part.ratio, round(part.speed, 2)) for part in result.parts]} (per beat, speed) per clip; on the beat {numbers['on_beat_before']:.0%} (chance "
          f"{numbers['on_beat_chance']:.0%}) -> {numbers['on_beat_after']:.0%}; stretch {numbers['stretch_range'][0]:.3f}-"
          f"{numbers['stretch_range'][1]:.3f}; junction visibility {numbers['visibility_before']} -> "
          f"{[round(v, 3) for v in numbers['visibility_after']]} (uniformly retimed {[round(v, 3) for v in numbers['visibility_uniform']]}); skating {numbers['skating_before']:.4f} -> "
          f"{numbers['skating_after_per_input']:.4f} m/s per input second; {clip.num_frames} -> {warped.num_frames} frames")
    assert numbers["on_beat_after"] >= 0.8
    assert bounds[0] - 1e-9 <= result.stretch.min() and result.stretch.max() <= bounds[1] + 1e-9
    # Each junction against itself as composed, or played at the same mean speed throughout (resampling moves the measure +-10%).
    for after, before, uniform in zip(numbers["visibility_after"], numbers["visibility_before"], numbers["visibility_uniform"]):
        assert after <= MARGIN * max(before, uniform)
    assert numbers["skating_after_per_input"] <= MARGIN * numbers["skating_before"] + 1e-3
    assert np.min(np.abs(np.asarray(beats) - result.end)) < 1e-9 and (seconds is None or result.end <= seconds + 1e-9)
    assert np.all(np.isfinite(warped.location)) and np.allclose(np.linalg.norm(warped.rotation, axis=-1), 1.0, atol=1e-6)
    return numbers


@pytest.mark.parametrize("name", COMPOSITIONS)
@pytest.mark.parametrize("bpm", TEMPI)
def test_a_composition_lands_on_a_beat_grid(mocap_dir, name, bpm):
    beats = PHASE + np.arange(int(60 * bpm / 60.0)) * 60.0 / bpm
    _check(_composed(mocap_dir, name), beats, 60.0, f"the composition {name} at {bpm} BPM")


@pytest.mark.parametrize("bpm", [120, 150])
def test_a_walk_and_a_run_far_apart_in_speed_keep_their_junctions_with_a_wider_stretch(mocap_dir, bpm):
    """walk+run+walk at 120 BPM (walks 1.07x, run 0.76x) and 150 BPM (walks 1.34x, run 0.95x) with --max-stretch 0.75 1.4:
    each junction plays no faster than keeps it as sharp against its clips, as they play, as composed."""
    beats = PHASE + np.arange(int(60 * bpm / 60.0)) * 60.0 / bpm
    numbers = _check(_composed(mocap_dir, "walk+run+walk"), beats, 60.0, f"walk+run+walk at {bpm} BPM, 0.75-1.4x", (0.75, 1.4))
    assert numbers is not None and len(numbers["junctions"]) == 2


@pytest.mark.parametrize("name", COMPOSITIONS)
def test_a_composition_lands_on_the_beats_of_a_real_song(mocap_dir, name):
    beats, seconds = _song_beats()
    numbers = _check(_composed(mocap_dir, name), beats, seconds, f"the composition {name} to house_lo.ogg")
    if numbers is None:
        pytest.skip("house_lo.ogg's tempo is out of this composition's reach")


def test_a_loop_plays_a_whole_number_of_bars(mocap_dir):
    pieces = [sequence.Piece(_clip(mocap_dir / file), name=file) for file in COMPOSITIONS["walk+walk"]]
    composed = sequence.compose(pieces, loop=True)
    beats = np.arange(60) * 0.5  # 120 BPM from the output's first frame
    warped, result = perform.sync_performance(composed.clip, beats, loop_bars=4, name="the loop")
    numbers = perform.measure_sync(composed.clip, warped, result, [t.window for t in composed.transitions])
    bars = result.end / (4 * 0.5)
    print(f"loop at 120 BPM: {bars:g} bars, on the beat {numbers['on_beat_before']:.0%} -> {numbers['on_beat_after']:.0%}, "
          f"stretch {numbers['stretch_range']}, visibility {numbers['visibility_before']} -> {numbers['visibility_after']}")
    assert abs(bars - round(bars)) * 4 * 0.5 * composed.clip.fps <= 0.5  # within half a frame of whole bars
    assert result.input_times[0] == 0.0 and result.input_times[-1] == pytest.approx(composed.clip.duration)
    assert abs(result.stretch[0] - result.stretch[-1]) < 0.02  # the wrap keeps its speed
    assert numbers["on_beat_after"] >= 0.8
    assert sync.MAX_STRETCH[0] - 1e-9 <= result.stretch.min() and result.stretch.max() <= sync.MAX_STRETCH[1] + 1e-9


def _walk_run_walk_at_120(mocap_dir, bounds):
    composed = _composed(mocap_dir, "walk+run+walk")
    parts = [(segment.name, segment.out_first) for segment in composed.segments]
    windows = [t.window for t in composed.transitions]
    warped, result = perform.sync_performance(composed.clip, PHASE + np.arange(240) * 0.5, bounds, name="walk+run+walk",
                                              parts=parts, windows=windows)
    return result, perform.measure_sync(composed.clip, warped, result, windows)


def test_a_run_takes_three_keyposes_to_two_beats_where_one_or_two_a_beat_are_out_of_reach(mocap_dir):
    """walk+run+walk at 120 BPM: the walks fit (one keypose per beat at about 1.1x), the run does not at one or two a beat
    (0.76x at two, 1.53x at one): it plays three keyposes to two beats at about 1.15x."""
    result, numbers = _walk_run_walk_at_120(mocap_dir, sync.MAX_STRETCH)
    print([(part.name, part.ratio, round(part.speed, 3)) for part in result.parts], numbers["on_beat_after"])
    run = result.parts[1]
    assert run.name == "dataset-1_run_happy_001.bvh" and run.ratio == 1.5 and run.needed is None
    assert not numbers["out_of_reach"] and numbers["on_beat_after"] >= 0.8


def test_a_clip_out_of_the_songs_reach_is_named_with_the_stretch_it_needs(mocap_dir):
    """walk+run+walk at 120 BPM within 0.9-1.1x: the run would need 1.14x at its nearest (three keyposes to two beats): the
    performance is made, the run at 1.1x, and the verdict names it, the stretch it needs and what fits."""
    _, numbers = _walk_run_walk_at_120(mocap_dir, (0.9, 1.1))
    judged = verdict.of_sync(numbers)
    print(judged.word, judged.reasons)
    missed = [part for part in numbers["out_of_reach"] if part["clip"] == "dataset-1_run_happy_001.bvh"]
    assert missed and missed[0]["speed"] == 1.1 and missed[0]["needed"] == pytest.approx(1.14, abs=0.02) and judged.word != verdict.GOOD
    assert any("dataset-1_run_happy_001.bvh would need 1.14x" in reason and "--max-stretch 0.9 1.15" in reason for reason in judged.reasons)