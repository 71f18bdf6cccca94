"""Reliability of the Blender side: scripts' ranges, stale candidates, edge inputs, object and property curves, WRAP loops."""

import dataclasses

import numpy as np
import pytest

from helpers import evaluated_pose

bpy = pytest.importorskip("bpy")


def _rig(loopsmith, context, name="Walker", action="walk", clip=None):
    clip = clip if clip is not None else loopsmith.core.demo.walk_cycle().clip
    obj = loopsmith.bridge.armature.create_armature(context, clip, name)
    loopsmith.bridge.clip_io.write_clip(obj, clip, action)
    return obj


@pytest.fixture
def walker(loopsmith, blank):
    """The demo walk (106 frames, walking along -Y on its Hips), active."""
    return _rig(loopsmith, blank)


def _make_active(context, obj):
    context.view_layer.objects.active = obj


def _actions():
    return {action.name for action in bpy.data.actions}


def _fcurves(loopsmith, obj, action=None):
    return loopsmith.bridge.action_api.fcurves_of(action or obj.animation_data.action, obj)


def _no_traceback(call, message):
    """The operator fails with a one-line report naming the reason, never a Python traceback."""
    with pytest.raises(RuntimeError, match=message) as error:
        call()
    assert "Traceback" not in str(error.value)


# 1. Scripts' ranges and Find Loop's candidates


@pytest.mark.parametrize("scene_mode", ["AUTO", "FOUND"])
def test_a_script_that_sets_a_range_gets_that_range(loopsmith, walker, scene_mode):
    settings = bpy.context.scene.loopsmith
    if scene_mode == "FOUND":
        assert bpy.ops.loopsmith.find_loop() == {"FINISHED"} and settings.range_mode == "FOUND"
        assert (settings.candidates[0].frame_start, settings.candidates[0].frame_end) != (40, 104)
    assert bpy.ops.loopsmith.make_loop(frame_start=40, frame_end=104) == {"FINISHED"}
    assert (settings.result.frame_start, settings.result.frame_end) == (40, 104)
    assert tuple(walker.animation_data.action.frame_range) == (40.0, 104.0)
    # One end given: the other comes from the scene's settings, still a manual range.
    walker.animation_data.action = bpy.data.actions["walk"]
    settings.frame_end = 90
    assert bpy.ops.loopsmith.make_loop(frame_start=30) == {"FINISHED"}
    assert (settings.result.frame_start, settings.result.frame_end) == (30, 90)


def test_a_script_that_sets_the_range_mode_too_keeps_it(loopsmith, walker):
    assert bpy.ops.loopsmith.make_loop(range_mode="ACTION", frame_start=40, frame_end=104) == {"FINISHED"}
    result = bpy.context.scene.loopsmith.result
    assert (result.frame_start, result.frame_end) == (1, 106)


def test_candidates_found_on_another_rig_or_action_are_refused(loopsmith, walker, blank):
    settings = blank.scene.loopsmith
    assert bpy.ops.loopsmith.find_loop() == {"FINISHED"}
    chosen = settings.candidates[0]
    other = _rig(loopsmith, blank, "Runner", "run", loopsmith.core.demo.walk_cycle(num_frames=80).clip)
    _make_active(blank, other)
    actions = _actions()
    _no_traceback(lambda: bpy.ops.loopsmith.make_loop(), "list is for 'walk' on 'Walker'.*run Find Loop again")
    assert _actions() == actions and other.animation_data.action.name == "run"
    # The same rig playing another action (here its own loop) is refused too.
    _make_active(blank, walker)
    assert bpy.ops.loopsmith.make_loop() == {"FINISHED"}
    assert (settings.result.frame_start, settings.result.frame_end) == (chosen.frame_start, chosen.frame_end)
    assert walker.animation_data.action.name == "walk_loop"
    settings.range_mode = "FOUND"
    _no_traceback(lambda: bpy.ops.loopsmith.make_loop(), "list is for 'walk' on 'Walker'")
    # Back on the action they were found on, they apply again.
    walker.animation_data.action = bpy.data.actions["walk"]
    assert bpy.ops.loopsmith.make_loop() == {"FINISHED"}


def test_candidates_of_a_replaced_action_are_out_of_date(loopsmith, walker, blank):
    settings = blank.scene.loopsmith
    bpy.ops.loopsmith.find_loop()
    assert bpy.ops.loopsmith.make_loop(replace_action=True) == {"FINISHED"}
    assert walker.animation_data.action.name == "walk"  # the loop, under the source's name
    settings.range_mode = "FOUND"
    _no_traceback(lambda: bpy.ops.loopsmith.make_loop(), "out of date")


# 2. Edge inputs


def test_an_armature_without_bones_is_refused_with_a_reason(loopsmith, walker, blank):
    empty = bpy.data.objects.new("Empty Rig", bpy.data.armatures.new("Empty Rig"))
    blank.scene.collection.objects.link(empty)
    loopsmith.bridge.action_api.assign_action(empty, bpy.data.actions["walk"])
    _make_active(blank, empty)
    assert loopsmith.operators.common.armature_problem(bpy.context) == "Armature 'Empty Rig' has no bones"
    for operator in (bpy.ops.loopsmith.find_loop, bpy.ops.loopsmith.make_loop):
        assert not operator.poll()
        _no_traceback(operator, "has no bones")
    with pytest.raises(loopsmith.core.errors.ClipError, match="has no bones"):
        loopsmith.bridge.clip_io.read_clip(empty)


def test_an_armature_in_edit_mode_is_refused_with_a_reason(loopsmith, walker):
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        for operator in (bpy.ops.loopsmith.find_loop, bpy.ops.loopsmith.make_loop):
            _no_traceback(operator, "in Edit Mode: switch to Object or Pose Mode")
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74) == {"FINISHED"}


def _keyed_rig(loopsmith, blank, frames):
    """A rig whose action keys one bone's rotation on ``frames`` only."""
    obj = loopsmith.bridge.armature.create_armature(blank, loopsmith.core.demo.walk_cycle().clip, "Sparse")
    bone = obj.pose.bones["UpperLeg.L"]
    for frame in frames:
        bone.rotation_quaternion = (np.cos(0.01 * frame), np.sin(0.01 * frame), 0.0, 0.0)
        bone.keyframe_insert("rotation_quaternion", frame=frame)
    return obj


@pytest.mark.parametrize("frames", [(1,), (1, 2), (1, 2, 3)])
def test_an_action_keyed_on_one_to_three_frames_is_refused_with_a_reason(loopsmith, blank, frames):
    obj = _keyed_rig(loopsmith, blank, frames)
    for operator in (bpy.ops.loopsmith.find_loop, bpy.ops.loopsmith.make_loop):
        _no_traceback(operator, "shorter than 4 frames")
    # A manual frame range longer than the keys does not pass either.
    action = obj.animation_data.action
    action.use_frame_range, action.frame_start, action.frame_end = True, 1, 20
    for operator in (bpy.ops.loopsmith.find_loop, bpy.ops.loopsmith.make_loop):
        _no_traceback(operator, "outside the keys")


def test_three_keys_far_apart_are_sampled_and_looped(loopsmith, blank):
    obj = _keyed_rig(loopsmith, blank, (1, 30, 60))
    assert bpy.ops.loopsmith.make_loop(range_mode="ACTION", root_mode="LOOP") == {"FINISHED"}
    assert tuple(obj.animation_data.action.frame_range) == (1.0, 60.0)


def test_a_nan_key_is_named_not_a_traceback(loopsmith, walker):
    curve = _fcurves(loopsmith, walker)[3]
    curve.keyframe_points[20].co.y = float("nan")
    actions = _actions()
    for operator in (bpy.ops.loopsmith.find_loop, bpy.ops.loopsmith.make_loop):
        _no_traceback(operator, rf"{curve.data_path[:10]}.*NaN or infinite value at frame 21")
    assert _actions() == actions


# 3. Object-level travel and custom-property curves


def _world_positions(obj, frames):
    """World-space positions ``(F, B, 3)`` of every pose bone's head (object transform included)."""
    pose = evaluated_pose(obj, frames)  # sets each frame in turn, so the object's matrix is re-read below
    out = []
    for index, frame in enumerate(frames):
        bpy.context.scene.frame_set(int(frame))
        world = np.array(obj.matrix_world)
        out.append(pose[index, :, :3, 3] @ world[:3, :3].T + world[:3, 3])
    return np.array(out)


@pytest.fixture
def object_walker(loopsmith, blank):
    """The demo walk with its travel on the object, plus a bone and an object custom property and a stepped one.

    The bones walk in place (the Hips' steady drift removed); the object moves
    along -Y at a speed that changes, so a raw cut has a velocity mismatch.
    """
    clip = loopsmith.core.demo.walk_cycle().clip
    hips = clip.bone_names.index("Hips")
    location = clip.location.copy()
    ramp = (np.arange(clip.num_frames) / (clip.num_frames - 1))[:, None]
    location[:, hips] -= (location[-1, hips] - location[0, hips]) * ramp
    clip = clip.with_channels(location=location)
    obj = _rig(loopsmith, blank, clip=clip)
    hand = obj.pose.bones["Hand.L"]
    for frame in clip.frames:
        t = (frame - 1) / 30.0
        obj.location = (0.0, -1.2 * t - 0.15 * np.sin(1.3 * t), 0.0)
        obj.keyframe_insert("location", index=1, frame=frame)
        hand["grip"] = float(np.sin(2.0 * np.pi * frame / 37.0))
        hand.keyframe_insert('["grip"]', frame=frame)
    for frame, value in ((1, 0.0), (50, 1.0), (90, 2.0)):
        obj["stance"] = value
        obj.keyframe_insert('["stance"]', frame=frame)
    stance = [fc for fc in _fcurves(loopsmith, obj) if fc.data_path == '["stance"]'][0]
    for point in stance.keyframe_points:
        point.interpolation = "CONSTANT"
    return obj


def test_object_travel_is_looped_like_root_travel(loopsmith, object_walker):
    obj = object_walker
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74) == {"FINISHED"}
    # Played across the wrap at 74 and the next one at 138: no jump back, the walk goes on.
    frames = np.arange(64, 150)
    world = _world_positions(obj, frames)
    head = world[:, [pb.name for pb in obj.pose.bones].index("Head")]
    step = np.diff(head, axis=0)
    assert (step[:, 1] < 0).all()
    speed = np.linalg.norm(step, axis=-1)
    assert speed.max() < 1.6 * np.median(speed)
    travel = [fc for fc in _fcurves(loopsmith, obj) if fc.data_path == "location"]
    assert [fc.modifiers[0].mode_after for fc in travel] == ["REPEAT_OFFSET"]
    result = bpy.context.scene.loopsmith.result
    assert result.root_mode == "TRAVEL" and result.root_bone == "Object Transforms"
    # The seam numbers measure what plays: the raw cut's speed mismatch on the object shows before, not after.
    assert result.step_after < 1e-4 and result.jump_after < 0.5 * result.jump_before


def test_custom_property_curves_are_stitched_and_reported(loopsmith, object_walker):
    obj = object_walker
    source = [fc for fc in _fcurves(loopsmith, obj) if fc.data_path.endswith('["grip"]')][0]
    raw_step = abs(source.evaluate(74) - source.evaluate(10))
    assert raw_step > 0.5  # the raw cut would jump
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74) == {"FINISHED"}
    grip = [fc for fc in _fcurves(loopsmith, obj) if fc.data_path == 'pose.bones["Hand.L"]["grip"]'][0]
    assert grip.modifiers[0].type == "CYCLES"
    values = np.array([grip.evaluate(frame) for frame in range(60, 90)])  # the wrap at 74 is index 14
    assert abs(values[14] - grip.evaluate(10)) < 1e-5
    steps = np.diff(values)
    typical = np.abs(np.diff([source.evaluate(frame) for frame in range(10, 75)])).max()
    assert np.abs(steps).max() < 2.0 * typical  # the 0.5+ jump is gone
    # The speed carries on through the wrap: its change there is no more than anywhere in the loop.
    inside = np.abs(np.diff([grip.evaluate(frame) for frame in range(10, 75)], 2)).max()
    assert abs(steps[14] - steps[13]) <= inside + 1e-6
    stance = [fc for fc in _fcurves(loopsmith, obj) if fc.data_path == '["stance"]'][0]
    assert {round(stance.evaluate(frame), 6) for frame in range(10, 75)} == {0.0, 1.0}  # a step stays a step
    result = bpy.context.scene.loopsmith.result
    assert (result.curves_stitched, result.curves_stepped) == (1, 1)


# 4. WRAP loops


def test_a_wrap_loop_plays_as_a_cycle_of_its_length_and_reads_back(loopsmith, walker):
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74, loop_mode="WRAP") == {"FINISHED"}
    action = walker.animation_data.action
    n = 64
    assert action.use_cyclic and tuple(action.frame_range) == (10.0, 73.0)  # the n distinct frames
    assert all(fc.modifiers and fc.modifiers[0].type == "CYCLES" for fc in _fcurves(loopsmith, walker))
    # Two periods: frame k + n is frame k moved on by one cycle's travel (the Hips carry everything).
    pose = evaluated_pose(walker, range(10, 10 + 2 * n + 1))
    later, earlier = pose[n:], pose[:n + 1]
    travel = later[:, :, :3, 3] - earlier[:, :, :3, 3]
    assert np.abs(travel - travel[0, 0]).max() < 1e-4 and travel[0, 0, 1] < -1.0
    assert np.abs(later[:, :, :3, :3] - earlier[:, :, :3, :3]).max() < 1e-4
    # Loopsmith reads its own WRAP action back and loops it again.
    clip = loopsmith.bridge.clip_io.read_clip(walker)
    assert clip.num_frames == n and (clip.frames[0], clip.frames[-1]) == (10, 73)
    assert bpy.ops.loopsmith.find_loop() == {"FINISHED"}
    assert bpy.ops.loopsmith.make_loop(range_mode="ACTION") == {"FINISHED"}


def test_write_loop_refuses_a_loop_without_its_closing_frame(loopsmith, walker):
    clip = loopsmith.bridge.clip_io.read_clip(walker)
    result = loopsmith.core.loop.make.make_loop(clip, 10, 74, loop_mode="WRAP")
    with pytest.raises(loopsmith.core.errors.LoopError, match="needs the CLAMP loop"):
        loopsmith.bridge.clip_io.write_loop(walker, result, walker.animation_data.action)


# 5. UI defaults


def test_ui_defaults_are_the_core_stitch_defaults(loopsmith, monkeypatch):
    core = loopsmith.core.loop.stitch.StitchParameters
    settings = bpy.types.Scene.bl_rna.properties["loopsmith"].fixed_type.bl_rna.properties
    for field in dataclasses.fields(core):
        default = settings[field.name].default
        assert default == field.default if isinstance(field.default, (str, bool)) else abs(default - field.default) < 1e-6, field.name
    # A changed core default reaches the properties without editing them.
    changed = dataclasses.make_dataclass("Changed", [("method", str, "SOFTFADE"), ("blend_start", float, 0.35)], bases=(core,), frozen=True)
    monkeypatch.setattr(loopsmith.properties, "StitchParameters", changed)
    definitions = loopsmith.properties.make_loop_properties()
    assert definitions["method"].keywords["default"] == "SOFTFADE" and definitions["blend_start"].keywords["default"] == 0.35
