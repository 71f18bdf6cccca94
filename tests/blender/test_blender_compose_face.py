"""A heading per Sequence entry: the property, drawn for every entry but the first, and Compose turning that entry's action
by it from where the one before leaves the character."""

import math

import numpy as np
import pytest

from helpers import RecordingLayout, evaluated_pose, import_bvh

pytestmark = pytest.mark.realdata
bpy = pytest.importorskip("bpy")

WALK, WALK_2 = "dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh"


@pytest.fixture
def two_walks(loopsmith, blank, mocap_dir):
    """The first walk's armature active, with the second walk's action (imported on its own armature) in the file."""
    second = import_bvh(mocap_dir / WALK_2).animation_data.action
    second.use_fake_user = True
    obj = import_bvh(mocap_dir / WALK)
    return obj, obj.animation_data.action, second


def _fill(settings, actions):
    settings.sequence.clear()
    for action in actions:
        bpy.ops.loopsmith.sequence_add()
        settings.sequence[-1].action = action


def _hips_travel_turn(obj, composed_transition_window, fps):
    """Degrees between the hips' travel over the second before the junction's window and over the second after it."""
    action = obj.animation_data.action
    first = int(action.frame_range[0])
    start, end = (first + frame for frame in composed_transition_window)
    second = int(round(fps))
    frames = np.array([start - 1 - second, start - 1, end + 1, end + 1 + second])
    hips = [bone.name for bone in obj.pose.bones].index("Hips")
    position = evaluated_pose(obj, frames)[:, hips, :3, 3]
    before, after = position[1] - position[0], position[3] - position[2]
    return math.degrees(math.atan2(before[0] * after[1] - before[1] * after[0], before[:2] @ after[:2]))


def test_the_heading_is_an_angle_on_each_entry_drawn_for_all_but_the_first(loopsmith, two_walks):
    obj, walk, walk_2 = two_walks
    settings = bpy.context.scene.loopsmith
    _fill(settings, [walk, walk_2])
    heading = settings.sequence[1].bl_rna.properties["heading"]
    assert heading.subtype == "ANGLE" and heading.default == 0.0 and heading.hard_min == pytest.approx(-math.pi)
    settings.sequence[1].heading = math.radians(90.0)
    drawn = {}
    for index in (0, 1):
        settings.active_sequence_entry = index
        layout = RecordingLayout()
        bpy.types.LOOPSMITH_PT_sequence_view.draw(type("Panel", (), {"layout": layout})(), bpy.context)
        drawn[index] = {entry for kind, entry in layout.log if kind == "prop"}
    assert "heading" not in drawn[0] and "heading" in drawn[1]
    layout = RecordingLayout()  # the list row shows the turn
    bpy.types.LOOPSMITH_UL_sequence.draw_item(None, bpy.context, layout, settings, settings.sequence[1], 0, settings, "active_sequence_entry", 1)
    assert ("label", "+90\u00b0") in layout.log


def test_compose_turns_the_second_action_by_its_heading(loopsmith, two_walks):
    obj, walk, walk_2 = two_walks
    settings = bpy.context.scene.loopsmith
    _fill(settings, [walk, walk_2])
    settings.sequence[0].heading = math.radians(30.0)  # the first keeps its own heading: ignored
    turns = {}
    for degrees in (0.0, 90.0):
        settings.sequence[1].heading = math.radians(degrees)
        obj.animation_data.action = walk
        assert bpy.ops.loopsmith.compose(compose_name=f"turned_{degrees:g}") == {"FINISHED"}
        assert obj.animation_data.action.name == f"turned_{degrees:g}"
        pieces, junctions = loopsmith.operators.compose.pieces_and_junctions(obj, settings, False)
        assert [piece.heading for piece in pieces] == [0.0, pytest.approx(math.radians(degrees))]
        composed = loopsmith.core.compose.compose(pieces, junctions)
        turns[degrees] = _hips_travel_turn(obj, composed.transitions[0].window, bpy.context.scene.render.fps)
    print(f"\nCompose in Blender: the second walk travels {turns[0.0]:+.1f} degrees from the first without a heading, "
          f"{turns[90.0]:+.1f} with 90")
    assert abs(turns[90.0] - turns[0.0] - 90.0) <= 5.0
    # The redo panel re-runs Compose with the entries as they are.
    layout = RecordingLayout()
    loopsmith.ui.layout.draw_compose(layout, bpy.context.window_manager.operator_properties_last("loopsmith.compose"))
    assert layout.log
