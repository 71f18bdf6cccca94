"""Takes whose rests differ, on real clips: the body stays on the clips' floor and at their height in every job.

The Bandai takes keep where a take starts in the pelvis's rest offset (most
have the hips at (0, 93.9, -3) cm from ``joint_Root``, one (0.8, 94.0,
-452.2), the dance (-11.3, 91.3, 32.6)): re-expressing one take on
another's skeleton must move the pelvis, not turn the body. Core only (the
numpy BVH reader gives the clip Blender's importer would).
"""

import dataclasses
import functools
import itertools

import numpy as np
import pytest

from core.formats import bvh, bvh_clip
from core.measure import grounding
from core.motion import kinematics
from core.compose.sequence import Piece, compose
from core.edit.blend import blend
from core.edit.splice import splice
from core.graph.build import build_graph
from core.graph.synth import synthesize
from core.transition import align, blend as transition_blend, make
from core.measure import transition as measure


ODD_REST = "bandai/dataset-1_walk-back_masculinity_001.bvh"
HAPPY = "bandai-actions/dataset-1_walk_happy_001.bvh"
DANCE = "bandai/dataset-1_dance-short_normal_001.bvh"
WALK = "bandai/dataset-1_walk_normal_001.bvh"
BACK = "bandai/dataset-1_walk-back_normal_001.bvh"


@functools.lru_cache(maxsize=None)
def _clip(path):
    info = bvh.read_bvh(path)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


def _shared(mocap_dir):
    return sorted(mocap_dir.glob("*.bvh")) + sorted((mocap_dir.parent / "bandai-actions").glob("*.bvh"))


def _load(mocap_dir, name):
    return _clip(mocap_dir.parent / name)


def _heights(clip):
    positions = kinematics.clip_joint_positions(clip)
    feet, pelvis = grounding.legs(clip.bone_names, clip.parents, positions)
    return grounding.body_heights(positions, feet, pelvis)


def test_a_take_on_any_others_skeleton_keeps_every_joint_where_it_is(mocap_dir):
    clips = [_clip(path) for path in _shared(mocap_dir)]
    assert len(clips) == 19
    worst = max(np.abs(kinematics.clip_joint_positions(align.on_skeleton(b, a)) - kinematics.clip_joint_positions(b)).max()
                for a, b in itertools.permutations(clips, 2))
    assert worst < 1e-6  # metres, over every ordered pair of the 19 shared takes


def test_after_every_transition_the_body_stands_where_the_target_does(mocap_dir):
    """Every ordered pair, blended at a fixed point: past the blend the feet and pelvis are at the target's own heights."""
    clips = {path.stem: _clip(path) for path in _shared(mocap_dir)}
    off = []
    for (name_a, a), (name_b, b) in itertools.permutations(clips.items(), 2):
        frame_b = min(b.num_frames // 4, b.num_frames - 20)
        result = transition_blend.transition(a, a.num_frames // 2, b, frame_b, 0.4, "INERTIALIZE", lock_feet=False)
        foot, pelvis = (h[result.blend_end:] for h in _heights(result.clip))
        own_foot, own_pelvis = (h[result.end_b:] for h in _heights(b))
        gap = max(np.abs(foot - own_foot).max(), np.abs(pelvis - own_pelvis).max())
        if gap > 0.01:
            off.append(f"{name_a} -> {name_b}: {gap:.2f} m")
    assert not off, off


@pytest.mark.parametrize("source, target", [(ODD_REST, HAPPY), (HAPPY, ODD_REST), (DANCE, ODD_REST), (ODD_REST, WALK)])
def test_a_chosen_transition_between_rests_stays_on_the_floor(mocap_dir, source, target):
    a, b = _load(mocap_dir, source), _load(mocap_dir, target)
    made = make.make_transition(a, b)
    assert made.metrics.grounded and made.metrics.floor_offset < 0.05 and made.metrics.pelvis_offset < 0.05, made.metrics.summary()
    floors = [grounding.second_minima(_heights(c)[0], c.fps) for c in (a, b)]
    result = grounding.second_minima(_heights(made.clip)[0], a.fps)
    assert result.max() < max(f.max() for f in floors) + 0.05 and result.min() > min(f.min() for f in floors) - 0.05


def test_blends_splices_and_compositions_between_rests_stay_on_the_floor(mocap_dir):
    odd, happy, dance, back = (_load(mocap_dir, name) for name in (ODD_REST, HAPPY, DANCE, BACK))
    edits = [blend(odd, back), blend(back, odd)] + [splice(lower, upper) for lower, upper in ((odd, happy), (happy, odd), (dance, odd))]
    for edited in edits:  # blends of two backward walks (a forward and a backward walk share no steps to blend)
        numbers = edited.numbers
        assert max(numbers["floor_offset_m"], numbers["pelvis_offset_m"]) <= grounding.TOLERANCE, edited.summary()
    composed = compose([Piece(odd, name="odd"), Piece(happy, name="happy"), Piece(dance.slice_frames(0, 300), name="dance")])
    assert composed.grounded and not [note for note in composed.notes if note.startswith("CHECK")], composed.notes


def test_a_synthesis_through_takes_of_other_rests_stays_on_the_floor(mocap_dir):
    names = (ODD_REST, HAPPY, WALK, "bandai/dataset-2_walk_normal_020.bvh", "bandai/dataset-1_walk-back_normal_001.bvh")
    clips = [_load(mocap_dir, name) for name in names]
    graph = build_graph(clips, [name.split("/")[-1] for name in names])
    kept = {graph.clips[node["clip"]]["name"] for node in graph.nodes}
    assert {"dataset-2_walk_normal_020.bvh", "dataset-1_walk_normal_001.bvh"} <= kept  # their pelvis offsets differ
    composed = synthesize(graph, clips, 12.0, seed=3)
    assert composed.grounded, composed.numbers
    assert all(t.metrics.floor_offset <= grounding.TOLERANCE for t in composed.transitions)


def test_the_verdict_sees_a_lifted_body(mocap_dir):
    """A transition whose target part floats 3.7 m up, as the earlier re-expression left it, is not called grounded."""
    a, b = _load(mocap_dir, WALK), _load(mocap_dir, HAPPY)
    result = transition_blend.transition(a, 100, b, 40, 0.4, "INERTIALIZE", lock_feet=False)
    lifted = result.clip.location.copy()
    hips = result.clip.bone_index("Hips")
    lifted[result.window[1]:, hips] += np.linalg.solve(result.clip.rest[hips, :3, :3], [0.0, 0.0, 3.7])
    floating = dataclasses.replace(result, clip=result.clip.with_channels(location=lifted))
    metrics = measure.transition_metrics(floating, a, b)
    assert not metrics.grounded and metrics.floor_offset > 3.0 and metrics.pelvis_offset > 3.0
    assert make.criteria_ratios(metrics).max() > 1.0
    assert measure.transition_metrics(result, a, b).grounded
