"""Find Loop's core on generated clips with known answers."""

import numpy as np
import pytest

from core import demo, detect, quat


@pytest.fixture(scope="module")
def walk():
    return demo.walk_cycle(num_frames=200)


def test_autocorrelation_matches_the_direct_sum():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3))
    r = detect.autocorrelation(x, 20)
    centred = x - x.mean(axis=0)
    direct = np.array([np.sum(centred[: len(x) - lag] * centred[lag:]) / (len(x) - lag) for lag in range(21)])
    assert np.allclose(r, direct / direct[0])


def test_demo_period_and_its_multiples_are_found(walk):
    detection = detect.find_loops(walk.clip)
    assert abs(detection.period - walk.period_frames) < 0.5
    for candidate in detection.candidates:
        assert abs(candidate.length - candidate.cycles * walk.period_frames) <= 1.0
    assert detection.best.grade in ("GOOD", "FAIR")
    cycles = {candidate.cycles for candidate in detection.candidates}
    assert {1, 2, 3} <= cycles


@pytest.mark.parametrize("cycles", [1, 2, 3])
def test_asked_number_of_cycles(walk, cycles):
    best = detect.find_loops(walk.clip, cycles=cycles).best
    assert best.cycles == cycles and abs(best.length - cycles * walk.period_frames) <= 1.0


def test_search_range_and_skipped_edges_are_respected(walk):
    detection = detect.find_loops(walk.clip, frame_start=40, frame_end=160, skip_edges=0.2)
    for candidate in detection.candidates:
        assert 46 <= candidate.frame_start and candidate.frame_end <= 154


def test_noise_gets_no_good_candidate(walk):
    rng = np.random.default_rng(5)
    noise = walk.clip.with_channels(rotation=quat.unroll(quat.normalize(rng.normal(size=walk.clip.rotation.shape))))
    detection = detect.find_loops(noise)
    assert all(candidate.grade == "POOR" for candidate in detection.candidates)


def test_a_still_clip_says_nothing_repeats(walk):
    still = walk.clip.with_channels(location=np.zeros_like(walk.clip.location), rotation=quat.identity(walk.clip.rotation.shape[:2]))
    detection = detect.find_loops(still)
    assert detection.candidates == [] and detection.best is None


def test_closed_loop_is_recognised():
    generated = demo.walk_cycle(num_frames=200)
    clip = generated.clip
    # One exact cycle of the motion, repeated so its last frame equals its first.
    period = 32
    index = np.arange(period + 1) % period
    closed = clip.with_channels(frames=np.arange(1, period + 2, dtype=float), location=np.zeros_like(clip.location[index]),
                                rotation=clip.rotation[index], scale=clip.scale[index])
    best = detect.find_loops(closed).best
    assert (best.frame_start, best.frame_end, best.cycles, best.grade) == (1, period + 1, 1, "GOOD")


def test_grades_follow_the_documented_thresholds():
    assert detect.grade(1.0, 0.9) == "GOOD" and detect.grade(1.0, 0.6) == "FAIR" and detect.grade(1.0, 0.2) == "POOR"
    assert detect.grade(3.0, 0.99) == "FAIR" and detect.grade(9.0, 0.99) == "POOR"
