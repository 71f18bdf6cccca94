"""Transitions between real Bandai clips: invisible, no root jump, no spin, no extra skating, and a naive NLA blend is worse.

The required criteria, with make_transition's
defaults: the transition point, method and length chosen by the search.
Run with -s for the table of numbers.
"""

import time

import numpy as np
import pytest

from helpers import extension_module, imported_clip
from test_core_transition_blend import naive_crossfade

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

WALK = "bandai/dataset-1_walk_normal_001.bvh"
PAIRS = {
    "walk-run": (WALK, "bandai/dataset-1_run_happy_001.bvh"),
    "run-walk": ("bandai/dataset-1_run_happy_001.bvh", WALK),
    "walk-sprint": (WALK, "bandai-actions/dataset-1_dash_happy_001.bvh"),
    "walk-turn": (WALK, "bandai-actions/dataset-2_walk-turn-right_normal_001.bvh"),
    "walk-happy": (WALK, "bandai-actions/dataset-1_walk_happy_001.bvh"),
    "walk-bow": (WALK, "bandai-actions/dataset-1_bow_normal_001.bvh"),
    "walk-kick": (WALK, "bandai-actions/dataset-1_kick_normal_001.bvh"),
    "walk-punch": (WALK, "bandai-actions/dataset-1_punch_normal_001.bvh"),
    "wave-walk": ("bandai/dataset-2_wave-right-hand_normal_021.bvh", WALK),
}


@pytest.mark.parametrize("pair", PAIRS)
def test_transition_is_no_more_visible_than_the_clips_and_beats_a_naive_blend(loopsmith, blank, mocap_dir, pair):
    make, measure = extension_module(loopsmith, "core.transition.make"), extension_module(loopsmith, "core.measure.transition")
    path_a, path_b = (mocap_dir.parent / name for name in PAIRS[pair])
    clip_a, clip_b = imported_clip(loopsmith, path_a), imported_clip(loopsmith, path_b)
    started = time.perf_counter()
    made = make.make_transition(clip_a, clip_b)
    seconds = time.perf_counter() - started
    ours = made.metrics
    # The naive blend at the same point and length (from earlier in A if A ends before the blend would).
    span = int(round(made.length * clip_a.fps))
    index_a = min(made.frame_a - int(clip_a.frames[0]), clip_a.num_frames - span - 1)
    naive = measure.transition_metrics(naive_crossfade(clip_a, index_a, clip_b, made.frame_b - int(clip_b.frames[0]), made.length), clip_a, clip_b)
    print(f"\n{pair:12s} A {made.frame_a} B {made.frame_b} {made.method} {made.length:g} s window {made.window} in {seconds:.2f} s: "
          f"{ours.summary()}\n{'':12s} naive: {naive.summary()}")

    # The naive blend is clearly worse, whatever happens below.
    assert naive.visibility >= 2.0 * ours.visibility and naive.root_speed_jump > 2.0 * naive.clips_root_speed_jump, naive.summary()
    clip = made.clip
    assert np.all(np.isfinite(clip.location)) and np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0)
    assert ours.visibility <= 1.2, ours.summary()
    assert ours.root_speed_jump <= ours.clips_root_speed_jump, ours.summary()
    # No spin in place, no snap. walk-kick's window reaches the kick's own pivot (11.2 rad/s), copied rigidly from B.
    assert ours.heading_rate <= ours.clips_heading_rate * (1 + 1e-6), ours.summary()  # a clip's own turn copied rigidly measures equal
    assert ours.skating <= 1.5 * ours.clips_skating, ours.summary()
