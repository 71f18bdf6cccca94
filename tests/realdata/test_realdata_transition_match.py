"""Transition points and time warps between real Bandai clips."""

import numpy as np
import pytest

from helpers import extension_module, foot_height_period, import_bvh

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

WALK = "dataset-1_walk_normal_001.bvh"


def _read(loopsmith, path):
    return loopsmith.bridge.clip_io.read_clip(import_bvh(path))


@pytest.mark.parametrize("other", ["run_happy", "dash_happy"])
def test_best_candidate_is_among_the_closest_pairs_with_the_feet_matching(loopsmith, blank, mocap_dir, other):
    points, distance = extension_module(loopsmith, "core.transition.points"), extension_module(loopsmith, "core.transition.distance")
    walk = _read(loopsmith, mocap_dir / WALK)
    path = mocap_dir / "dataset-1_run_happy_001.bvh" if other == "run_happy" else mocap_dir.parent / "bandai-actions" / "dataset-1_dash_happy_001.bvh"
    target = _read(loopsmith, path)
    window = round(points.WINDOW_SECONDS * walk.fps)
    whole = distance.distance_map(*points.matching_features(walk, target), window=window)
    for region in ("anywhere", "end_start"):
        candidates = points.transition_candidates(walk, target, region)
        best = candidates[0]
        assert best.contact_match, (region, candidates)
        if region == "anywhere":
            share = np.mean(whole <= best.distance)
            assert share <= 0.01, (best, share)
            # Matching stance feet cost almost nothing: the best pose match among matching feet is this close.
            assert best.distance <= 1.05 * whole.min(), (best.distance, whole.min())
        else:
            assert best.frame_a >= walk.frames[-1] - window + 1 - 2 * walk.fps and best.frame_b <= target.frames[0] + 2 * walk.fps
    # The time warp over a blend region from the best pair keeps the slope limit and costs no more than the straight path.
    timewarp = extension_module(loopsmith, "core.transition.timewarp")
    fa, fb = points.matching_features(walk, target)
    i, j = best.frame_a - int(walk.frames[0]), best.frame_b - int(target.frames[0])
    blend = distance.distance_map(fa[i:i + 15], fb[j:j + 12])
    warp = timewarp.time_warp(blend)
    straight = np.stack([np.arange(15), np.round(np.arange(15) * 11 / 14).astype(int)], axis=1)
    assert blend[tuple(warp.T)].sum() <= blend[tuple(straight.T)].sum()


def test_walk_into_itself_lands_a_whole_gait_period_apart(loopsmith, blank, mocap_dir):
    points = extension_module(loopsmith, "core.transition.points")
    walk = _read(loopsmith, mocap_dir / WALK)
    period = foot_height_period(loopsmith.core.motion.kinematics.clip_joint_positions(walk), walk.bone_names, walk.fps)
    separation = round(points.SEPARATION_SECONDS * walk.fps)
    candidates = points.transition_candidates(walk, walk, "anywhere", limit=60)
    off_diagonal = [c for c in candidates if abs(c.frame_a - c.frame_b) > separation]
    best = off_diagonal[0]
    assert abs(abs(best.frame_a - best.frame_b) - period) <= 2.0, (best, period)
    assert best.contact_match
    # Half a period apart the other foot is planted: no candidate there.
    assert all(abs(abs(c.frame_a - c.frame_b) - period / 2) > 3 for c in off_diagonal[:5])


def test_walk_and_run_are_compared_facing_the_same_way(loopsmith, blank, mocap_dir):
    # The hips' most horizontal axis is Z in the walk and X in the run: measured on each clip's own axis,
    # the two headings would differ by a quarter turn and no pose would match well.
    points, features, distance = (extension_module(loopsmith, name) for name in ("core.transition.points", "core.motion.features", "core.transition.distance"))
    walk = _read(loopsmith, mocap_dir / WALK)
    run = _read(loopsmith, mocap_dir / "dataset-1_run_happy_001.bvh")
    hips = [loopsmith.core.motion.quat.from_matrix(loopsmith.core.motion.kinematics.clip_forward_kinematics(clip)[:, clip.bone_index("Hips"), :3, :3])
            for clip in (walk, run)]
    assert loopsmith.core.motion.root.heading_axis(hips[0]) != loopsmith.core.motion.root.heading_axis(hips[1])
    window = round(points.WINDOW_SECONDS * walk.fps)
    shared = distance.distance_map(*points.matching_features(walk, run), window=window)
    names = [walk.bone_names[i] for i in features.joint_indices(walk, "all", walk.bone_index("Hips"))]
    weights = features.bone_weights(walk)[[walk.bone_index(name) for name in names]]
    own_axes = distance.distance_map(*(features.pose_features(clip, names, weights) for clip in (walk, run)), window=window)
    assert shared.min() < 0.6 * own_axes.min(), (shared.min(), own_axes.min())
