"""Real walks and runs retimed to beat grids at 90, 120 and 150 BPM: keyposes on the beats, stretch in bounds, feet planted (core only)."""

import functools

import numpy as np
import pytest

from core.formats import bvh, bvh_clip
from core.measure.edit import retimed_skating
from core.music import keyposes, sync

CLIPS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_run_normal_040.bvh")
TEMPI = (90, 120, 150)
PHASE = 0.25  # s: the first beat, after the song's start
SKATING_MARGIN = 1.1  # the warped clip may slide 10% more than the original scaled by the stretch
WIDE = (0.75, 1.4)  # bounds that reach the tempi the default ones cannot


@functools.lru_cache(maxsize=None)
def _clip(path):
    info = bvh.read_bvh(path)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


def _beats(bpm, seconds=60.0):
    return PHASE + np.arange(int(seconds * bpm / 60.0)) * 60.0 / bpm


@pytest.mark.parametrize("bpm", TEMPI)
@pytest.mark.parametrize("name", CLIPS)
def test_keyposes_land_on_the_beats_after_the_warp(mocap_dir, name, bpm):
    clip = _clip(mocap_dir / name)
    found = keyposes.find_keyposes(clip)
    tempo = keyposes.motion_tempo(found.frames, clip.fps)
    speeds = np.array(sync.RATIOS) * bpm / tempo
    reachable = np.any((speeds >= sync.MAX_STRETCH[0]) & (speeds <= sync.MAX_STRETCH[1]))
    beats = _beats(bpm)
    if not reachable:  # this tempo is out of the clip's reach: played at the nearest bound, saying what it needed
        (part,) = sync.sync_to_beats(found.seconds, beats, clip.duration, clip.fps, strength=found.strength, name=name).parts
        assert part.name == name and not sync.MAX_STRETCH[0] <= part.needed <= sync.MAX_STRETCH[1] and part.speed in sync.MAX_STRETCH
        print(f"{name} at {bpm} BPM (motion {tempo:.0f}/min): would need {part.needed:.2f}x; with --max-stretch {WIDE[0]:g}-{WIDE[1]:g}:")
    bounds = sync.MAX_STRETCH if reachable else WIDE
    result = sync.sync_to_beats(found.seconds, beats, clip.duration, clip.fps, bounds, strength=found.strength, name=name)
    warped = sync.warp_clip(clip, result.input_times).validate()
    again = keyposes.find_keyposes(warped)
    frame = 1.0 / clip.fps
    # As captured, the clip's keyposes land on the grid by chance (the same grid: beats, and half beats at two per beat).
    before = sync.on_beat_fraction(found.seconds[found.seconds <= result.input_times[-1]], result.grid, frame)
    after = sync.on_beat_fraction(again.seconds, result.grid, frame)
    skating, source_skating = retimed_skating(clip, warped, result.input_frames)
    scaled = source_skating * float(np.mean(result.stretch))
    print(f"{name} at {bpm} BPM (motion {tempo:.0f}/min, {result.ratio:g} per beat, {result.speed:.2f}x): on the grid {before:.0%} -> "
          f"{after:.0%} of {len(again.frames)} keyposes; stretch {result.stretch.min():.3f}-{result.stretch.max():.3f}; "
          f"skating {source_skating:.3f} -> {skating:.3f} /s (scaled by the stretch {scaled:.3f}); {warped.num_frames} frames")
    assert after >= 0.8 and before <= 0.5
    assert len(again.frames) >= 0.7 * np.sum(~np.isnan(result.matched))
    assert result.stretch.min() >= bounds[0] - 1e-9 and result.stretch.max() <= bounds[1] + 1e-9
    steps = np.diff(result.input_frames)  # the frames as played agree with the warp's slope
    assert steps.min() >= bounds[0] - 1e-3 and steps.max() <= bounds[1] + 1e-3
    assert np.min(np.abs(beats - result.end)) < 1e-9 and result.end - result.output_times[-1] < frame
    assert skating <= SKATING_MARGIN * scaled + 1e-3
    assert np.all(np.isfinite(warped.location)) and np.allclose(np.linalg.norm(warped.rotation, axis=-1), 1.0, atol=1e-6)
