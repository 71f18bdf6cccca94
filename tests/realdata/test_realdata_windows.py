"""Windows on the shared Bandai clips (core only): a transition's window is exactly the frames it changed, its blend within a
frame of length * fps inside it, its time warp apart; compositions and syntheses never overlap two windows nor open inside one.

Run with -s for the windows measured.
"""

import functools

import numpy as np
import pytest

from core.compose import Junction, Piece, compose
from core.formats import bvh, bvh_clip
from core.graph import build_graph, synthesize
from core.transition import blend, make

WALK, RUN, WALK_2 = "dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_walk_normal_020.bvh"
GRAPH_CLIPS = (WALK, WALK_2, RUN, "dataset-2_run_normal_040.bvh", "dataset-2_walk-turn-left_normal_007.bvh")


@functools.lru_cache(maxsize=None)
def _clip(path):
    info = bvh.read_bvh(path)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


def _load(mocap_dir, name):
    return _clip(mocap_dir / name)


# A frame the transition left alone can still differ in its last bits: numpy's sums round by the data's alignment in memory.
ROUNDING = 1e-9


def _changed_frames(clip, reference):
    """Mask ``(F,)`` of the frames whose pose differs from ``reference`` at all (rotations up to sign)."""
    sign = np.where(np.sum(clip.rotation * reference.rotation, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    return ((np.abs(clip.rotation - sign * reference.rotation) > ROUNDING).any(axis=(1, 2))
            | (np.abs(clip.location - reference.location) > ROUNDING).any(axis=(1, 2)))


def _disjoint(windows):
    return all(w[0] <= w[1] for w in windows) and all(earlier[1] < later[0] for earlier, later in zip(windows, windows[1:]))


@pytest.mark.parametrize("method", ["CROSSFADE", "INERTIALIZE"])
@pytest.mark.parametrize("length", [0.3, 0.5, 1.0])
def test_a_transition_window_is_the_frames_it_changed_and_its_blend_is_its_length(mocap_dir, method, length):
    walk, run = _load(mocap_dir, WALK), _load(mocap_dir, RUN)
    made = make.make_transition(walk, run, method=method, length=length)
    index_a, index_b = made.frame_a - int(walk.frames[0]), made.frame_b - int(run.frames[0])
    pairs = None if made.path is None else made.path - np.array([walk.frames[0], run.frames[0]])
    # The same blend without the foot lock: A's own frames up to the switch, B as aligned from the blend's end.
    plain = blend.transition(walk, index_a, run, index_b, made.length, made.method, pairs=pairs, lock_feet=False)
    changed = _changed_frames(made.clip, plain.clip)
    span = int(round(length * walk.fps))
    changed[index_a + 1:index_a + span] = True
    found = np.flatnonzero(changed)
    print(f"\n{method} {length:g} s: window {made.window} ({made.window[1] - made.window[0] + 1} frames), blend {made.blend_span}, "
          f"warp {made.warp_span}, length * fps {length * walk.fps:.1f}")
    assert made.window == (found[0], found[-1])
    assert np.array_equal(made.clip.location[:made.window[0]], walk.location[:made.window[0]])
    assert made.blend_span == (index_a + 1, index_a + span - 1) and abs(span - 1 - length * walk.fps) <= 1.01
    assert made.window[0] <= made.blend_span[0] and made.blend_span[1] <= made.window[1]
    if method == "CROSSFADE":
        assert made.warp_span == (index_a, index_a + span) and len(made.path) == span + 1
    else:
        assert made.warp_span is None and made.path is None


def test_frames_kept_clear_of_a_transition_keep_their_pose(mocap_dir):
    walk, run = _load(mocap_dir, WALK), _load(mocap_dir, RUN)
    free = make.make_transition(walk, run, method="INERTIALIZE", length=0.3)
    index_a = free.frame_a - int(walk.frames[0])
    assert free.window[0] < index_a - 5  # the foot lock reaches back into A's stance
    kept = make.make_transition(walk, run, (free.frame_a, free.frame_b), "INERTIALIZE", 0.3, still_before=index_a - 5)
    assert kept.window[0] >= index_a - 5
    assert np.array_equal(kept.clip.rotation[:index_a - 5], walk.rotation[:index_a - 5])


@pytest.mark.parametrize("methods", [("CROSSFADE", "INERTIALIZE"), ("AUTO", "AUTO")])
def test_composition_windows_are_disjoint_and_clear_of_its_first_frames(mocap_dir, methods):
    walk, run, walk_2 = (_load(mocap_dir, name) for name in (WALK, RUN, WALK_2))
    composed = compose([Piece(walk, name="walk"), Piece(run, name="run"), Piece(walk_2, name="walk 2")],
                       [Junction(method=method, length=0.3 if method != "AUTO" else None) for method in methods])
    windows = [t.window for t in composed.transitions]
    print(f"\ncompose {methods}: windows {windows}, blends {[t.blend_span for t in composed.transitions]}")
    assert _disjoint(windows) and windows[0][0] > 0, windows
    for t in composed.transitions:
        assert t.window[0] <= t.blend_span[0] <= t.blend_span[1] <= t.window[1]
        assert abs(t.blend_span[1] - t.blend_span[0] + 2 - t.length * walk.fps) <= 1.01


def test_a_loop_s_windows_are_disjoint(mocap_dir):
    composed = compose([Piece(_load(mocap_dir, WALK), name="walk"), Piece(_load(mocap_dir, RUN), name="run")], loop=True)
    windows = [t.window for t in composed.transitions]
    assert _disjoint(windows), windows


@pytest.fixture(scope="module")
def graph(mocap_dir):
    clips = [_load(mocap_dir, name) for name in GRAPH_CLIPS]
    return build_graph(clips, list(GRAPH_CLIPS)), clips


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_synthesis_windows_are_disjoint_and_it_opens_on_a_clip_s_own_frames(graph, seed):
    made, clips = graph
    composed = synthesize(made, clips, 20.0, seed=seed)
    windows = [t.window for t in composed.transitions]
    print(f"\nsynthesis seed {seed}: windows {windows}")
    assert _disjoint(windows), windows
    assert windows[0][0] >= 1, windows  # the first frames are the first clip's own
    first = composed.segments[0]
    source = clips[GRAPH_CLIPS.index(first.name)]
    shown = np.arange(windows[0][0])
    assert np.allclose(composed.clip.rotation[shown] * np.sign(np.sum(composed.clip.rotation[shown] * source.rotation[shown + first.source_first - int(source.frames[0])], axis=-1, keepdims=True)),
                       source.rotation[shown + first.source_first - int(source.frames[0])], atol=1e-12)
