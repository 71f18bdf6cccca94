"""Compositions of real Bandai clips: every junction invisible, no root jump, no heading snap, no extra skating.

walk -> run -> walk (both runs), three dance-short segments and walk -> bow ->
walk, each composed straight and as a loop, with compose's defaults (points,
methods and lengths chosen). A loop played twice shows no seam against the
first piece's own motion and keeps travelling. Run with -s for the table of numbers.
"""

import importlib
import time

import numpy as np
import pytest

from helpers import import_bvh

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

FILES = {
    "walk": "bandai/dataset-1_walk_normal_001.bvh",
    "run": "bandai/dataset-1_run_happy_001.bvh",
    "run40": "bandai/dataset-2_run_normal_040.bvh",
    "dance": "bandai/dataset-1_dance-short_normal_001.bvh",
    "bow": "bandai-actions/dataset-1_bow_normal_001.bvh",
}
# name: [(clip, first, last)], frame numbers as imported (a BVH from 1); None: the clip's own ends.
COMPOSITIONS = {
    "walk-run-walk": [("walk", None, None), ("run", None, None), ("walk", None, None)],
    "walk-run40-walk": [("walk", None, None), ("run40", None, None), ("walk", None, None)],
    "dance-segments": [("dance", 300, 600), ("dance", 800, 1100), ("dance", 1300, 1600)],
    "walk-bow-walk": [("walk", None, None), ("bow", None, None), ("walk", None, None)],
}
TRAVELLING = ("walk-run-walk", "walk-run40-walk")  # locomotion: a loop covers more than half a metre per cycle


@pytest.fixture(scope="module")
def clips(loopsmith, mocap_dir):
    """Each clip read once: name -> Clip (metres, Blender axes)."""
    read = {}
    for name, path in FILES.items():
        bpy.ops.wm.read_homefile(use_empty=True)
        read[name] = loopsmith.bridge.clip_io.read_clip(import_bvh(mocap_dir.parent / path))
    return read


def _core(loopsmith, name):
    return importlib.import_module(f"{loopsmith.__name__}.core.{name}")


@pytest.mark.parametrize("loop", [False, True], ids=["straight", "loop"])
@pytest.mark.parametrize("composition", COMPOSITIONS)
def test_composed_junctions_meet_the_criteria_and_a_loop_plays_without_a_seam(loopsmith, clips, composition, loop):
    compose, metrics, root_motion = _core(loopsmith, "compose"), _core(loopsmith, "measure.seam"), _core(loopsmith, "motion.root")
    cycles = _core(loopsmith, "motion.cycles")
    pieces = [compose.Piece(clips[name], first, last, f"{name}{k}") for k, (name, first, last) in enumerate(COMPOSITIONS[composition])]
    started = time.perf_counter()
    made = compose.compose(pieces, loop=loop)
    seconds = time.perf_counter() - started
    clip = made.clip
    print(f"\n{composition} {'loop' if loop else 'straight'}: {clip.num_frames} frames ({made.numbers['duration_s']:.1f} s) in {seconds:.2f} s; "
          + ", ".join(f"{key} {value:.3g}" for key, value in made.numbers.items()))
    for transition in made.transitions:
        print(f"  junction {transition.junction}: {transition.frame_a} -> {transition.frame_b} {transition.method} {transition.length:g} s "
              f"window {transition.window}: {transition.metrics.summary()}")

    assert np.all(np.isfinite(clip.location)) and np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0)
    assert len(made.transitions) == len(pieces) - (0 if loop else 1)
    assert sum(s.out_last - s.out_first + 1 for s in made.segments) == clip.num_frames
    for transition in made.transitions:
        found = transition.metrics
        assert found.visibility <= 1.2, (transition.junction, found.summary())
        assert found.root_speed_jump <= found.clips_root_speed_jump, (transition.junction, found.summary())
        assert found.heading_rate <= found.clips_heading_rate * (1 + 1e-6), (transition.junction, found.summary())
        assert found.skating <= 1.5 * found.clips_skating, (transition.junction, found.summary())
    if not loop:
        return
    # Played twice, measured here: the wrap against the first piece's own accelerations (its kept range).
    root = root_motion.find_moving_root(clip)
    played = cycles.chained_positions(clip, root, cycles=2)
    first = pieces[0]
    frames = first.clip.frames
    kept = first.clip.slice_frames(int((first.first or frames[0]) - frames[0]), int((first.last or frames[-1]) - frames[0]) + 1)
    visibility = metrics.played_visibility(played, clip.dt, [clip.num_frames - 1], metrics.clip_baseline(kept).acceleration)
    travel = float(np.linalg.norm(played[clip.num_frames - 1, root, :2] - played[0, root, :2]))
    print(f"  played seam visibility {visibility:.2f}, travel per cycle {travel:.2f} m")
    assert visibility <= 1.0
    pose, _ = root_motion.root_frames(clip, root)
    heading = root_motion.heading(_core(loopsmith, "motion.quat").from_matrix(pose[:, :3, :3]))
    assert abs((heading[-1] - heading[0] + np.pi) % (2 * np.pi) - np.pi) < 1e-6  # ends facing as it began: Cycles offsets, never turns
    if composition in TRAVELLING:
        assert travel > 0.5
