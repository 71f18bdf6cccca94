"""Find Loop's core on generated clips with known answers."""

import numpy as np
import pytest

from core import demo
from core.loop import detect, make as loop
from core.motion import quat
from core.errors import LoopError


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


def _closed_cycle(clip, period=32):
    """One exact cycle of the motion, repeated so its last frame equals its first (frames 1 .. period + 1)."""
    index = np.arange(period + 1) % period
    return clip.with_channels(frames=np.arange(1, period + 2, dtype=float), location=np.zeros_like(clip.location[index]),
                              rotation=clip.rotation[index], scale=clip.scale[index])


def test_closed_loop_is_recognised(walk):
    best = detect.find_loops(_closed_cycle(walk.clip)).best
    assert (best.frame_start, best.frame_end, best.cycles, best.grade) == (1, 33, 1, "GOOD")
    assert detect.find_loops(_closed_cycle(walk.clip), cycles=1).best == best


@pytest.mark.parametrize("cycles", [2, 3])
def test_more_cycles_than_a_closed_loop_holds_says_so(walk, cycles):
    with pytest.raises(LoopError, match=rf"no loop of {cycles} cycles fits: the clip is one closed loop .* frames 1-33"):
        detect.find_loops(_closed_cycle(walk.clip), cycles=cycles)


def test_grades_follow_the_documented_thresholds():
    assert detect.grade(1.0, 0.9) == "GOOD" and detect.grade(1.0, 0.6) == "FAIR" and detect.grade(1.0, 0.2) == "POOR"
    assert detect.grade(3.0, 0.99) == "FAIR" and detect.grade(9.0, 0.99) == "POOR"


@pytest.mark.parametrize("start, end, message", [(120, 40, "reversed or empty"), (5000, 6000, "lies outside the clip's frames")])
def test_a_search_range_that_is_reversed_or_outside_the_clip_is_an_error(walk, start, end, message):
    with pytest.raises(LoopError, match=message):
        detect.find_loops(walk.clip, frame_start=start, frame_end=end)


def test_a_reversed_loop_range_is_called_reversed(walk):
    with pytest.raises(LoopError, match="reversed or empty: the end must come after the start"):
        loop.make_loop(walk.clip, 100, 50)
