"""Composition as an animator meets it: the Sequence list and Compose in Blender (the compose command: tests/cli/test_compose_cli.py)."""

import numpy as np
import pytest

from helpers import RecordingLayout, evaluated_pose, import_bvh

pytestmark = pytest.mark.realdata
bpy = pytest.importorskip("bpy")

WALK, RUN = "dataset-1_walk_normal_001.bvh", "dataset-2_run_normal_040.bvh"


@pytest.fixture
def walk_and_run(loopsmith, blank, mocap_dir):
    """The walk's armature active, with the run's action (imported on its own armature, the same bones) in the file."""
    run = import_bvh(mocap_dir / RUN).animation_data.action
    run.use_fake_user = True
    obj = import_bvh(mocap_dir / WALK)
    return obj, obj.animation_data.action, run


def _fill_sequence(settings, actions):
    settings.sequence.clear()
    for action in actions:
        bpy.ops.loopsmith.sequence_add()
        settings.sequence[-1].action = action


def _world_positions(obj, frames):
    pose = evaluated_pose(obj, frames)
    return pose[..., :3, 3]


@pytest.mark.smoke
def test_compose_writes_one_new_action_and_keeps_the_originals(loopsmith, walk_and_run):
    obj, walk, run = walk_and_run
    settings = bpy.context.scene.loopsmith
    _fill_sequence(settings, [walk, run, run, walk])
    settings.active_sequence_entry = 1
    assert bpy.ops.loopsmith.sequence_remove() == {"FINISHED"}
    assert [entry.action.name for entry in settings.sequence] == [walk.name, run.name, walk.name]
    settings.active_sequence_entry = 2
    bpy.ops.loopsmith.sequence_move(direction="UP")  # the last entry (active) one up: walk, walk, run
    assert [entry.action for entry in settings.sequence] == [walk, walk, run]
    bpy.ops.loopsmith.sequence_move(direction="DOWN")
    keys = {action.name: len(loopsmith.bridge.action_api.fcurves_of(action, obj)[0].keyframe_points) for action in (walk, run)}
    bpy.ops.ed.undo_push(message="before")
    assert bpy.ops.loopsmith.compose(compose_name="walk_run_walk") == {"FINISHED"}
    action = obj.animation_data.action
    assert action.name == "walk_run_walk" and walk.use_fake_user and run.use_fake_user
    assert keys == {a.name: len(loopsmith.bridge.action_api.fcurves_of(a, obj)[0].keyframe_points) for a in (walk, run)}
    first, last = (int(f) for f in action.frame_range)
    positions = _world_positions(obj, np.arange(first, last + 1))
    hips = [bone.name for bone in obj.pose.bones].index("Hips")
    # It keeps going forward: the hips never jump, and the run in the middle covers ground faster than the walks.
    steps = np.linalg.norm(np.diff(positions[:, hips, :2], axis=0), axis=-1)
    assert steps.max() < 0.2 and np.linalg.norm(positions[-1, hips, :2] - positions[0, hips, :2]) > 5.0
    bpy.ops.ed.undo_push(message="Compose")
    bpy.ops.ed.undo()
    assert "walk_run_walk" not in bpy.data.actions


def test_a_composed_loop_plays_as_a_seamless_cycle_in_blender_and_keeps_travelling(loopsmith, walk_and_run):
    obj, walk, run = walk_and_run
    settings = bpy.context.scene.loopsmith
    _fill_sequence(settings, [walk, run])
    assert bpy.ops.loopsmith.compose(compose_name="loop", compose_loop=True) == {"FINISHED"}
    action = obj.animation_data.action
    assert action.use_cyclic
    first, last = (int(f) for f in action.frame_range)
    inside = _world_positions(obj, np.arange(first, last + 1))
    # Played past its end by Blender's Cycles modifiers: the seam at frame `last` (= first of the next cycle).
    played = _world_positions(obj, np.arange(last - 4, last + 5))
    reference = loopsmith.core.measure.seam.baseline(inside, 1.0 / 30.0)
    visibility = loopsmith.core.measure.seam.played_visibility(played, 1.0 / 30.0, [3, 4, 5], reference.acceleration)
    assert visibility <= 1.0, visibility
    hips = [bone.name for bone in obj.pose.bones].index("Hips")
    cycle_travel = np.linalg.norm(played[5, hips, :2] - inside[1, hips, :2])
    assert cycle_travel > 0.5  # the next cycle starts further on: it keeps travelling


def test_nla_strips_lay_the_segments_out(loopsmith, walk_and_run):
    obj, walk, run = walk_and_run
    settings = bpy.context.scene.loopsmith
    _fill_sequence(settings, [walk, run, walk])
    assert bpy.ops.loopsmith.compose(compose_name="laid_out", compose_nla=True) == {"FINISHED"}
    assert obj.animation_data.action is None
    (track,) = [track for track in obj.animation_data.nla_tracks if track.name == "laid_out"]
    strips = list(track.strips)
    assert len(strips) == 3 and all(strip.action.name == "laid_out" for strip in strips)
    assert [int(strip.frame_start) for strip in strips[1:]] == [int(strip.frame_end) + 1 for strip in strips[:-1]]  # end to end
    # The track plays the composition as the action did.
    first, last = (int(f) for f in bpy.data.actions["laid_out"].frame_range)
    frames = np.arange(first, last + 1, 7)
    by_track = _world_positions(obj, frames)
    obj.animation_data.action = bpy.data.actions["laid_out"]
    track.mute = True
    assert np.abs(_world_positions(obj, frames) - by_track).max() < 1e-5


def test_the_sequence_refuses_what_it_cannot_compose_in_one_line(loopsmith, walk_and_run):
    obj, walk, run = walk_and_run
    settings = bpy.context.scene.loopsmith
    _fill_sequence(settings, [walk])
    with pytest.raises(RuntimeError, match="add at least 2 actions"):
        bpy.ops.loopsmith.compose()
    settings.sequence.add()
    with pytest.raises(RuntimeError, match="Sequence entry 2 has no action"):
        bpy.ops.loopsmith.compose()
    settings.sequence[1].action = run
    with pytest.raises(RuntimeError, match="do not loop"):
        bpy.ops.loopsmith.compose(compose_loop=True, compose_nla=True)
    settings.sequence[1].use_range = True
    settings.sequence[1].frame_start, settings.sequence[1].frame_end = 50, 40
    with pytest.raises(RuntimeError, match="40"):
        bpy.ops.loopsmith.compose()
    assert obj.animation_data.action == walk


@pytest.mark.smoke
def test_junction_candidates_preview_and_use(loopsmith, walk_and_run):
    obj, walk, run = walk_and_run
    settings = bpy.context.scene.loopsmith
    _fill_sequence(settings, [walk, run])
    settings.active_sequence_entry = 0
    assert bpy.ops.loopsmith.junction_candidates() == {"FINISHED"}
    assert len(settings.junction_points) >= 1 and settings.junction_points_entry == 0
    settings.active_junction_point = 0
    assert bpy.ops.loopsmith.junction_use_point() == {"FINISHED"}
    entry, point = settings.sequence[0], settings.junction_points[0]
    assert entry.junction_point == "MANUAL" and (entry.junction_frame_a, entry.junction_frame_b) == (point.frame_a, point.frame_b)
    assert bpy.ops.loopsmith.compose() == {"FINISHED"}
    # A ranged entry is searched in its range, as Compose searches it; reordering forgets the list.
    entry.use_range, entry.frame_start, entry.frame_end, entry.junction_point = True, 10, 80, "AUTO"
    assert bpy.ops.loopsmith.junction_candidates() == {"FINISHED"}
    assert all(10 <= point.frame_a <= 80 for point in settings.junction_points)
    bpy.ops.loopsmith.sequence_move(direction="DOWN")
    assert len(settings.junction_points) == 0


@pytest.mark.parametrize("space", ["view", "dopesheet", "graph"])
def test_sequence_and_graph_panels_draw_what_applies(loopsmith, walk_and_run, space):
    obj, walk, run = walk_and_run
    settings = bpy.context.scene.loopsmith
    _fill_sequence(settings, [walk, run])
    drawn = {}
    for loop, use_range in ((False, False), (True, True)):
        settings.compose_loop, settings.sequence[1].use_range, settings.active_sequence_entry = loop, use_range, 1
        for name in ("sequence", "graph"):
            layout = RecordingLayout()
            getattr(bpy.types, f"LOOPSMITH_PT_{name}_{space}").draw(type("Panel", (), {"layout": layout})(), bpy.context)
            drawn[name, loop] = {entry for kind, entry in layout.log if kind in ("prop", "operator", "list")}
    # The last entry hands over only with Loop on; its range shows only when used.
    assert "junction_method" not in drawn["sequence", False] and "frame_start" not in drawn["sequence", False]
    assert {"junction_method", "frame_start", "loopsmith.compose", "loopsmith.junction_candidates", "sequence"} <= drawn["sequence", True]
    assert {"graph_threshold", "loopsmith.build_graph", "synth_via", "loopsmith.synthesize"} <= drawn["graph", False]
    for operator, draw in (("loopsmith.compose", loopsmith.ui.layout.draw_compose), ("loopsmith.synthesize", loopsmith.ui.layout.draw_synthesize)):
        layout = RecordingLayout()
        draw(layout, bpy.context.window_manager.operator_properties_last(operator))  # the redo panel: the operator's own properties
        assert layout.log
