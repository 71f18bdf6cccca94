"""Sampling, resampling and retiming (core, synthetic walker): exact where the grids meet, no drift, travel kept."""

import numpy as np
import pytest

from core import demo
from core.motion import kinematics, quat, sampling
from core.edit import timing
from core.errors import ClipError, EditError


@pytest.fixture(scope="module")
def walk():
    return demo.walk_cycle(num_frames=181).clip


def _angle(a, b):
    """Largest rotation angle between quaternion arrays, radians."""
    return float(np.max(2.0 * np.arccos(np.clip(np.abs(quat.dot(a, b)), 0.0, 1.0))))


@pytest.mark.parametrize("interpolation", sampling.INTERPOLATIONS)
def test_whole_frames_are_the_keys_and_between_them_is_between(walk, interpolation):
    keys = sampling.sample_clip(walk, np.arange(walk.num_frames, dtype=float), interpolation)
    assert np.array_equal(keys.location, walk.location) and _angle(keys.rotation, walk.rotation) < 1e-7
    half = sampling.sample_clip(walk, np.arange(walk.num_frames - 1) + 0.5, interpolation)
    low, high = walk.location[:-1], walk.location[1:]
    slack = 0.05 * np.abs(high - low).max()  # a cubic may overshoot a little
    assert np.all(half.location >= np.minimum(low, high) - slack) and np.all(half.location <= np.maximum(low, high) + slack)
    assert np.allclose(np.linalg.norm(half.rotation, axis=-1), 1.0)


def test_seconds_and_out_of_range_times(walk):
    at = sampling.clip_at_seconds(walk, [0.0, 1.0, walk.duration])
    assert np.allclose(at.location[1], walk.location[30]) and np.allclose(at.location[2], walk.location[-1])
    with pytest.raises(ClipError, match="outside"):
        sampling.sample_clip(walk, [walk.num_frames + 1.0])
    with pytest.raises(ClipError, match="interpolation"):
        sampling.sample_clip(walk, [0.0], "SPLINE")


def test_cubic_slow_motion_has_no_speed_jumps_at_the_original_frames(walk):
    # Slowed eightfold, linear interpolation changes speed only at original frames; the cubic spreads it out.
    jumps = {}
    for interpolation in sampling.INTERPOLATIONS:
        slow = timing.retime(walk, speed=0.125, interpolation=interpolation).clip
        p = kinematics.clip_joint_positions(slow)
        jumps[interpolation] = np.linalg.norm(np.diff(p, 2, axis=0), axis=-1).max()
    assert jumps["CUBIC"] < 0.5 * jumps["LINEAR"]


def test_resample_up_and_back_gives_every_frame_back(walk):
    up = timing.resample(walk, 60.0)
    assert up.clip.num_frames == 2 * walk.num_frames - 1 and up.clip.fps == 60.0 and not up.notes
    back = timing.resample(up.clip, 30.0).clip
    assert back.num_frames == walk.num_frames
    assert np.abs(back.location - walk.location).max() < 1e-12 and _angle(back.rotation, walk.rotation) < 1e-7


def test_resample_120_to_30_does_not_drift_and_odd_rates_say_what_they_drop(walk):
    fast = timing.resample(walk, 120.0).clip
    down = timing.resample(fast, 30.0).clip
    assert down.num_frames == walk.num_frames
    # Every frame, to the last, is the original one: no accumulated rounding.
    assert np.abs(down.location - walk.location).max() < 1e-12
    ntsc = timing.resample(walk, 30000 / 1001)
    assert ntsc.clip.num_frames == int(np.floor(walk.duration * 30000 / 1001 + 1e-6)) + 1
    assert 0 < ntsc.numbers["dropped_seconds"] < 1001 / 30000 and "left out" in ntsc.notes[0]
    end = walk.duration - ntsc.numbers["dropped_seconds"]
    assert np.allclose(ntsc.clip.location[-1], sampling.clip_at_seconds(walk, [end], "CUBIC").location[0])


def test_retime_half_speed_doubles_the_length_halves_the_root_speed_and_keeps_the_travel(walk):
    slow = timing.retime(walk, speed=0.5)
    root = 0
    assert slow.clip.num_frames == 2 * walk.num_frames - 1 and slow.numbers["speed"] == 0.5
    assert np.isclose(slow.clip.duration, 2 * walk.duration)
    travel = walk.location[-1, root] - walk.location[0, root]
    assert np.allclose(slow.clip.location[-1, root] - slow.clip.location[0, root], travel)
    speed = np.linalg.norm(np.diff(walk.location[:, root, :2], axis=0), axis=-1).mean() * walk.fps
    slow_speed = np.linalg.norm(np.diff(slow.clip.location[:, root, :2], axis=0), axis=-1).mean() * walk.fps
    assert slow_speed == pytest.approx(0.5 * speed, rel=0.02)  # skating: measured on real clips (the demo's feet never slide)


def test_retime_to_a_duration_and_bad_requests(walk):
    stretched = timing.retime(walk, duration=10.0)
    assert stretched.clip.duration == pytest.approx(10.0) and stretched.numbers["speed"] == pytest.approx(walk.duration / 10.0)
    with pytest.raises(EditError, match="not both"):
        timing.retime(walk, speed=2.0, duration=3.0)
    for bad in (0.0, -1.0, float("nan"), 1e6):
        with pytest.raises(EditError, match="speed"):
            timing.retime(walk, speed=bad)
    with pytest.raises(EditError, match="frame rate"):
        timing.resample(walk, 0.0)
    with pytest.raises(EditError, match="duration"):
        timing.retime(walk, duration=0.01)
