"""The bounded time warp splice and blend share, numpy only: gait cycles, chunk by chunk alignment, its ends, its memory."""

import tracemalloc

import numpy as np
import pytest

from core.motion import sampling
from core.edit import blend, warp
from core.errors import TransitionError
from core.transition import timewarp
from test_core_edit_blend import _march


def _gait(frames, period):
    """Features ``(F, 5)`` of a gait: periodic, with a harmonic, and a slow drift so no two cycles match exactly."""
    frames = np.asarray(frames, dtype=float)
    phase = 2.0 * np.pi * frames / period
    return np.stack([np.cos(phase), np.sin(phase), 0.5 * np.cos(2.0 * phase), 0.5 * np.sin(2.0 * phase), frames / 200.0], axis=1)


def test_gait_cycle_counts_footfalls_and_a_standing_clip_has_none():
    frames = np.arange(200)
    toes = np.zeros((200, 2, 3))
    # Each toe lands every 30 frames (left at 10, 40 ..., right 15 frames later) and swings up and forward in between.
    for toe, offset in enumerate((10, 25)):
        phase = (frames - offset) % 30
        swing = (phase >= 18) | (frames < offset)
        toes[:, toe, 2] = np.where(swing, 0.15, 0.0)
        toes[:, toe, 1] = np.where(swing, frames * 0.04, 0.0)
    assert warp.gait_cycle(toes, [0, 1], 1 / 30) == pytest.approx(30.0)
    assert warp.gait_cycle(np.zeros((200, 2, 3)), [0, 1], 1 / 30) is None
    assert warp.gait_cycles(toes, np.zeros((200, 2, 3)), [0, 1], 30.0) == ((30.0, 30.0), False)  # a second each unless both step
    assert warp.gait_cycles(toes, toes, [0, 1], 30.0) == ((30.0, 30.0), True)


def test_a_clip_against_itself_warps_to_the_diagonal_across_chunks():
    features = _gait(np.arange(257), 31.0)
    path = timewarp.chunked_warp(features, features, cycles=(31.0, 31.0), chunk=40)
    assert np.array_equal(path, np.stack([np.arange(257)] * 2, axis=1))


def test_a_slowed_copy_is_followed_chunk_by_chunk_as_the_whole_warp_follows_it():
    a = _gait(np.arange(300), 30.0)
    b = _gait(np.linspace(0.0, 299.0, 375), 30.0)  # the same gait 1.25 times slower
    chunked = timewarp.chunked_warp(a, b, cycles=(30.0, 37.5), chunk=50)
    whole = timewarp.time_warp(((a[:, None] - b[None]) ** 2).sum(axis=-1))
    assert tuple(chunked[0]) == (0, 0) and tuple(chunked[-1]) == (299, 374)
    assert np.all(np.diff(chunked, axis=0) >= 0) and np.all(np.diff(chunked, axis=0).sum(axis=1) >= 1)
    _, chunked_times = timewarp.blend_timing(chunked, 0.0)
    _, whole_times = timewarp.blend_timing(whole, 0.0)
    assert np.abs(chunked_times - 1.25 * np.arange(300)).max() < 1.0  # frame for frame would be 75 frames off at the end
    assert np.abs(chunked_times - whole_times).max() <= 1.0


def test_an_open_start_finds_where_the_clips_match_and_the_end_is_the_one_asked_for():
    a = _gait(np.arange(200), 32.0)
    b = _gait(np.arange(11, 151), 32.0)  # B starts 11 frames into A's gait and ends 49 frames before A's end
    assert tuple(timewarp.chunked_warp(a, b, cycles=(32.0, 32.0), open_start=True, chunk=60)[0]) == (11, 0)
    assert tuple(timewarp.chunked_warp(b, a, cycles=(32.0, 32.0), open_start=True, chunk=60)[0]) == (0, 11)
    either = timewarp.chunked_warp(a, b, cycles=(32.0, 32.0), open_start=True, end="EITHER", chunk=60)
    assert tuple(either[-1]) == (150, 139)  # B runs out first, at the matching frame of A
    assert tuple(timewarp.chunked_warp(a, b, cycles=(32.0, 32.0), end="B", chunk=60)[-1, 1:]) == (139,)
    with pytest.raises(TransitionError, match="reaches clip A's last frame"):
        timewarp.chunked_warp(a, b, cycles=(32.0, 32.0), end="A", chunk=60)
    with pytest.raises(TransitionError, match="unknown end"):
        timewarp.chunked_warp(a, b, end="BOTH")


def test_without_cycles_the_rate_is_the_clips_lengths_and_chunk_ends_are_free():
    a = _gait(np.arange(200), 32.0)
    b = sampling.values_at(a, np.linspace(0.0, 199.0, 260))
    path = timewarp.chunked_warp(a, b, chunk=45)
    assert tuple(path[-1]) == (199, 259)
    _, times = timewarp.blend_timing(path, 0.0)
    assert np.abs(times - 1.3 * np.arange(200)).max() < 2.0


def test_a_warp_blend_of_long_clips_never_holds_the_full_distance_map():
    frames = 3000
    a = _march(frames, 32, {"L": 2, "R": 18})
    b = _march(frames, 24, {"R": 2, "L": 14}, speed=0.3)
    full_map = frames * frames * np.dtype(np.float32).itemsize  # 34 MB
    peaks = {}
    tracemalloc.start()
    try:
        for timing in ("FRACTION", "WARP"):  # FRACTION compares no frames: the memory every blend of these clips needs
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            result = blend.blend(a, b, 0.5, timing)
            peaks[timing] = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    # The full map (and the warp's float64 copy of it) would add 3 to 4 times the map's size.
    assert peaks["WARP"] < peaks["FRACTION"] + 0.25 * full_map, {name: f"{peak / 2**20:.0f} MB" for name, peak in peaks.items()}
    # Paced by the gait cycles (32 frames in A, 24 in B), the steps match all along: A runs out first.
    assert result.numbers["covered_a"] == pytest.approx(a.duration, abs=a.dt)
    assert result.numbers["covered_b"] == pytest.approx(0.75 * a.duration, abs=2.0)
    assert result.numbers["contact_mismatch"] < a.dt
