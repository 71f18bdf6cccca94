"""Windows that say what they are, numpy only: a transition's window is exactly the frames it changed, its blend and time warp
are reported apart, and a composition's windows never overlap nor cover its first frames."""

import numpy as np
import pytest

from core import demo
from core.compose import Junction, Piece, compose
from core.graph import build, synthesize
from core.transition import blend, make
from helpers import walker_library


def _walker(frames=150, speed=1.2, period=1.07, seed=7):
    return demo.walk_cycle(num_frames=frames, speed=speed, period_seconds=period, seed=seed).clip


@pytest.fixture(scope="module")
def walkers():
    return _walker(), _walker(speed=1.8, period=0.8, seed=3)


# A frame the transition left alone can still differ in its last bits: numpy's sums round by the data's alignment in memory.
ROUNDING = 1e-9


def _changed_frames(clip, reference):
    """Mask ``(F,)`` of the frames whose pose differs from ``reference`` (same frame count): any channel, rotations up to sign."""
    sign = np.where(np.sum(clip.rotation * reference.rotation, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    return ((np.abs(clip.rotation - sign * reference.rotation) > ROUNDING).any(axis=(1, 2))
            | (np.abs(clip.location - reference.location) > ROUNDING).any(axis=(1, 2))
            | (np.abs(clip.scale - reference.scale) > ROUNDING).any(axis=(1, 2)))


def check_window(made, clip_a, clip_b):
    """The window is exactly the frames the transition changed: A's own frames before it, B as aligned after it (the same
    blend without the foot lock is A up to the switch and B aligned from the blend's end), each end a changed frame."""
    index_a, index_b = made.frame_a - int(clip_a.frames[0]), made.frame_b - int(clip_b.frames[0])
    pairs = None if made.path is None else made.path - np.array([clip_a.frames[0], clip_b.frames[0]])
    plain = blend.transition(clip_a, index_a, clip_b, index_b, made.length, made.method, pairs=pairs, lock_feet=False)
    assert plain.clip.num_frames == made.clip.num_frames
    span = int(round(made.length * clip_a.fps))
    changed = _changed_frames(made.clip, plain.clip)
    changed[index_a + 1:index_a + span] = True  # the blend's own frames
    first, last = made.window
    assert (first, last) == (np.flatnonzero(changed)[0], np.flatnonzero(changed)[-1])
    # The blend: the frames between A's switch frame and B's, within a frame of length * fps.
    assert made.blend_span == (index_a + 1, index_a + span - 1)
    assert abs((made.blend_span[1] - made.blend_span[0] + 1) - made.length * clip_a.fps) <= 1.01
    assert first <= made.blend_span[0] and made.blend_span[1] <= last
    if made.path is None:
        assert made.warp_span is None
    else:  # the time-warped pairs play from A's switch frame to where B plays on unblended
        assert made.warp_span == (index_a, index_a + len(made.path) - 1)
        assert len(made.path) == span + 1
    return first, last


@pytest.mark.parametrize("method", ["INERTIALIZE", "CROSSFADE"])
@pytest.mark.parametrize("length", [0.3, 0.5, 1.0])
def test_a_transition_window_is_exactly_the_frames_it_changed(walkers, method, length):
    slow, fast = walkers
    made = make.make_transition(slow, fast, method=method, length=length)
    check_window(made, slow, fast)


def test_a_crossfade_without_time_warp_has_no_warp_span(walkers):
    slow, fast = walkers
    made = make.make_transition(slow, fast, method="CROSSFADE", length=0.5, timewarp=False)
    assert made.path is None and made.warp_span is None
    check_window(made, slow, fast)


def _disjoint(windows):
    return all(earlier[1] < later[0] for earlier, later in zip(windows, windows[1:])) and all(w[0] <= w[1] for w in windows)


@pytest.mark.parametrize("lengths", [(0.3, 0.3), (1.0, 0.5), (None, None)])
def test_composition_windows_are_sorted_disjoint_and_clear_of_the_first_frame(walkers, lengths):
    slow, fast = walkers
    composed = compose([Piece(slow, name="slow"), Piece(fast, name="fast"), Piece(_walker(90, seed=5), name="short"),
                        Piece(slow, name="slow again")],
                       [Junction(length=lengths[k % 2], method=("AUTO", "CROSSFADE", "INERTIALIZE")[k]) for k in range(3)])
    windows = [t.window for t in composed.transitions]
    assert _disjoint(windows) and windows[0][0] > 0, windows
    for t in composed.transitions:
        assert t.window[0] <= t.blend_span[0] <= t.blend_span[1] <= t.window[1]
        assert (t.warp_span is None) == (t.method == "INERTIALIZE" or t.warp_span is None)


@pytest.fixture(scope="module")
def walker_graph():
    library = walker_library(60, 4)
    return build.build_graph(library, ["walk_a", "walk_b", "walk_short"]), library


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_synthesis_windows_are_disjoint_and_it_opens_on_a_clip_of_its_own(walker_graph, seed):
    graph, library = walker_graph
    composed = synthesize(graph, library, 12.0, seed=seed)
    windows = [t.window for t in composed.transitions]
    assert _disjoint(windows), windows
    assert not windows or windows[0][0] > 0, windows
