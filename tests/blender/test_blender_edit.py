"""The editing operators as an animator meets them: real clips, evaluated poses, new actions, undo, the Edit panel."""

import numpy as np
import pytest

from helpers import RecordingLayout, evaluated_pose, fcurve_snapshot, import_bvh, pose_errors

bpy = pytest.importorskip("bpy")

WALK, WAVE = "dataset-1_walk_normal_001.bvh", "dataset-2_wave-right-hand_normal_021.bvh"
HAPPY = "../bandai-actions/dataset-1_walk_happy_001.bvh"
EDITS = ("resample", "retime", "freeze_bone", "splice", "blend", "mirror")


@pytest.fixture
def walk(loopsmith, blank, mocap_dir):
    obj = import_bvh(mocap_dir / WALK)
    return obj, obj.animation_data.action


def _assign(loopsmith, obj, action):
    loopsmith.bridge.action_api.assign_action(obj, action)


def _frames(action):
    first, last = (int(round(f)) for f in action.frame_range)
    return np.arange(first, last + 1)


@pytest.mark.smoke
@pytest.mark.realdata
def test_resample_30_60_30_gives_every_original_frame_back_in_blender(loopsmith, walk):
    obj, source = walk
    frames = _frames(source)
    original = evaluated_pose(obj, frames)
    assert bpy.ops.loopsmith.resample(resample_fps=60.0) == {"FINISHED"}
    up = obj.animation_data.action
    assert up.name == f"{source.name}_resample" and bpy.context.scene.render.fps == 60
    assert len(_frames(up)) == 2 * len(frames) - 1
    assert bpy.ops.loopsmith.resample(resample_fps=30.0) == {"FINISHED"}
    back = obj.animation_data.action
    assert bpy.context.scene.render.fps == 30 and np.array_equal(_frames(back), frames)
    position, angle = pose_errors(evaluated_pose(obj, frames), original)
    assert position < 1e-3 and angle < 1e-3  # the required bound: 1 mm
    # Both originals are kept; the source action is untouched.
    assert source.use_fake_user and up.use_fake_user and source.name in bpy.data.actions


@pytest.mark.smoke
@pytest.mark.realdata
def test_retime_half_speed_doubles_the_length_and_keeps_the_travel(loopsmith, walk):
    obj, source = walk
    frames = _frames(source)
    before = evaluated_pose(obj, frames[[0, -1]])
    assert bpy.ops.loopsmith.retime(retime_by="SPEED", speed=0.5) == {"FINISHED"}
    slow = obj.animation_data.action
    slow_frames = _frames(slow)
    assert len(slow_frames) == 2 * len(frames) - 1
    after = evaluated_pose(obj, slow_frames[[0, -1]])
    assert pose_errors(after, before)[0] < 1e-4  # first and last pose, so the whole travel, kept
    bpy.ops.loopsmith.retime(retime_by="DURATION", duration=3.0)
    assert len(_frames(obj.animation_data.action)) == 91


@pytest.mark.smoke
@pytest.mark.realdata
def test_freeze_selected_bones_at_the_current_frame_eases_in_and_out(loopsmith, walk):
    obj, source = walk
    bpy.ops.object.mode_set(mode="POSE")
    for bone in obj.pose.bones:
        owner = bone if "select" in bone.bl_rna.properties else bone.bone  # 5.0 selects pose bones, 4.x bones
        owner.select = bone.name in ("UpperArm_L", "UpperArm_R")
    bpy.context.scene.frame_set(40)
    assert bpy.ops.loopsmith.freeze_bone(freeze_use_range=True, freeze_start=30, freeze_end=90, freeze_blend=0.3) == {"FINISHED"}
    clip = loopsmith.bridge.clip_io.read_clip(obj)
    arms = [clip.bone_index(name) for name in ("UpperArm_L", "UpperArm_R")]
    held = loopsmith.bridge.clip_io.read_clip(obj, action=source).rotation[40 - int(clip.frames[0]), arms]
    inside = clip.rotation[30 - int(clip.frames[0]):91 - int(clip.frames[0]), arms]
    angle = 2 * np.arccos(np.clip(np.abs(np.sum(inside * held, axis=-1)), 0, 1))
    assert angle.max() < 1e-4  # float32 keys: constant to their precision
    # Eased: outside the range and its ease the arms are the walk's own.
    original = loopsmith.bridge.clip_io.read_clip(obj, action=source)
    assert np.allclose(clip.rotation[:20, arms], original.rotation[:20, arms], atol=1e-6)
    bpy.ops.object.mode_set(mode="OBJECT")


@pytest.mark.smoke
@pytest.mark.realdata
def test_splice_blend_and_mirror_write_new_actions_from_another_action(loopsmith, walk, mocap_dir):
    obj, source = walk
    wave = import_bvh(mocap_dir / WAVE).animation_data.action
    happy = import_bvh(mocap_dir / HAPPY).animation_data.action
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.loopsmith.splice(upper_action=wave.name) == {"FINISHED"}
    assert obj.animation_data.action.name == f"{source.name}_splice"
    _assign(loopsmith, obj, source)
    assert bpy.ops.loopsmith.blend(blend_action=happy.name, blend_weight=0.5) == {"FINISHED"}
    assert obj.animation_data.action.name == f"{source.name}_blend"
    # A ramp from this action into the other: the first frame is the walk's own pose.
    _assign(loopsmith, obj, source)
    assert bpy.ops.loopsmith.blend(blend_action=happy.name, blend_weight=0.0, use_weight_ramp=True, blend_weight_end=1.0) == {"FINISHED"}
    first = int(round(obj.animation_data.action.frame_range[0]))
    ramp = evaluated_pose(obj, [first])
    _assign(loopsmith, obj, source)
    assert pose_errors(ramp, evaluated_pose(obj, [first]))[1] < 1e-3
    _assign(loopsmith, obj, source)
    assert bpy.ops.loopsmith.mirror() == {"FINISHED"}
    mirrored = loopsmith.bridge.clip_io.read_clip(obj)
    _assign(loopsmith, obj, bpy.data.actions[f"{source.name}_mirror"])
    assert bpy.ops.loopsmith.mirror() == {"FINISHED"}
    twice = evaluated_pose(obj, _frames(source)[::10])
    _assign(loopsmith, obj, source)
    assert pose_errors(twice, evaluated_pose(obj, _frames(source)[::10]))[0] < 1e-4 and mirrored.num_frames == len(_frames(source))


@pytest.mark.realdata
def test_bad_settings_are_one_line_reports_and_change_nothing(loopsmith, walk):
    obj, source = walk
    names = {action.name for action in bpy.data.actions}
    snapshot = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(source, obj))
    for operator, props, message in (
        (bpy.ops.loopsmith.freeze_bone, {"freeze_bones": "Tail"}, "no bone named 'Tail'"),
        (bpy.ops.loopsmith.freeze_bone, {}, "select the bones to freeze"),
        (bpy.ops.loopsmith.freeze_bone, {"freeze_bones": "Head", "freeze_hold": "FRAME", "freeze_frame": 900}, "not a frame"),
        (bpy.ops.loopsmith.splice, {"upper_action": ""}, "choose the other action to take the upper body from"),
        (bpy.ops.loopsmith.blend, {"blend_action": "nothing"}, "no action named 'nothing'"),
        (bpy.ops.loopsmith.retime, {"retime_by": "DURATION", "duration": 0.01}, "duration"),
    ):
        with pytest.raises(RuntimeError, match=message):
            operator(**props)
        assert {action.name for action in bpy.data.actions} == names and obj.animation_data.action == source
    after = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(source, obj))
    assert after.keys() == snapshot.keys() and all(np.array_equal(after[key], snapshot[key]) for key in snapshot)


@pytest.mark.realdata
def test_undo_takes_an_edit_back(loopsmith, walk):
    obj, source = walk
    names, obj_name, source_name = {action.name for action in bpy.data.actions}, obj.name, source.name
    bpy.ops.ed.undo_push(message="before")
    assert bpy.ops.loopsmith.retime(speed=2.0) == {"FINISHED"}
    bpy.ops.ed.undo_push(message="Retime")
    bpy.ops.ed.undo()
    assert {action.name for action in bpy.data.actions} == names
    assert bpy.data.objects[obj_name].animation_data.action.name == source_name


def test_scene_settings_reach_the_operator_unless_given(loopsmith, walk):
    obj, source = walk
    settings = bpy.context.scene.loopsmith
    settings.speed = 2.0
    bpy.ops.loopsmith.retime()
    assert len(_frames(obj.animation_data.action)) == (len(_frames(source)) - 1) // 2 + 1
    _assign(loopsmith, obj, source)
    bpy.ops.loopsmith.retime(speed=0.5)  # given: the scene's 2.0 is not used
    assert len(_frames(obj.animation_data.action)) == 2 * len(_frames(source)) - 1


@pytest.mark.parametrize("space", ["view", "dopesheet", "graph"])
def test_edit_panel_and_redo_panels_draw_what_applies(loopsmith, walk, space):
    settings = bpy.context.scene.loopsmith
    panel = getattr(bpy.types, f"LOOPSMITH_PT_edit_{space}")
    drawn = {}
    for retime_by in ("SPEED", "DURATION"):
        for hold, use_range in (("CURRENT", False), ("FRAME", True), ("REST", False)):
            settings.retime_by, settings.freeze_hold, settings.freeze_use_range = retime_by, hold, use_range
            layout = RecordingLayout()
            panel.draw(type("Panel", (), {"layout": layout})(), bpy.context)
            drawn[retime_by, hold] = {name for kind, name in layout.log if kind in ("prop", "operator")}
    assert {f"loopsmith.{edit}" for edit in EDITS} <= drawn["SPEED", "CURRENT"]
    assert "speed" in drawn["SPEED", "CURRENT"] and "duration" in drawn["DURATION", "CURRENT"] and "speed" not in drawn["DURATION", "CURRENT"]
    assert {"freeze_frame", "freeze_start", "freeze_blend"} <= drawn["SPEED", "FRAME"] and "freeze_frame" not in drawn["SPEED", "REST"]
    for edit in EDITS:
        operator = getattr(bpy.types, f"LOOPSMITH_OT_{edit}")
        assert {"REGISTER", "UNDO"} <= set(operator.bl_options) and "draw" in vars(loopsmith.operators.edit.EditOperator)
        draw_redo = loopsmith.ui.layout.EDIT_LAYOUTS.get(operator.bl_idname)
        if draw_redo:  # what the redo panel shows: the operator's own properties (Mirror has none)
            layout = RecordingLayout()
            draw_redo(layout, bpy.context.window_manager.operator_properties_last(operator.bl_idname), bpy.context.active_object.data)
            assert layout.log


@pytest.mark.parametrize("edit", EDITS)
def test_poll_explains_why_the_buttons_are_grey(loopsmith, blank, edit):
    operator = getattr(bpy.ops.loopsmith, edit)
    assert not operator.poll()
    with pytest.raises(RuntimeError, match="Select an armature"):
        operator()


@pytest.mark.realdata
@pytest.mark.parametrize("edit, props", [("retime", {"speed": 0.8}), ("mirror", {}), ("resample", {"resample_fps": 60.0}),
                                          ("freeze_bone", {"freeze_bones": "Head", "freeze_hold": "REST"})])
def test_an_edited_loop_still_plays_as_a_loop(loopsmith, walk, edit, props):
    obj, source = walk
    bpy.ops.loopsmith.make_loop()
    looped = obj.animation_data.action
    assert getattr(bpy.ops.loopsmith, edit)(**props) == {"FINISHED"}
    edited = obj.animation_data.action
    curves = loopsmith.bridge.action_api.fcurves_of(edited, obj)
    assert edited.use_cyclic and edited != looped and all(any(m.type == "CYCLES" for m in fc.modifiers) for fc in curves)
    offset = [fc.data_path for fc in curves if any(m.mode_after == "REPEAT_OFFSET" for m in fc.modifiers)]
    assert offset and all(path == 'pose.bones["Hips"].location' for path in offset)  # the walk keeps walking
    # Played past its end, the edited loop continues: the second cycle's first frame is its first, moved on.
    first, last = (int(round(f)) for f in edited.frame_range)
    pose = evaluated_pose(obj, [first + 1, last + 1])
    assert pose_errors(pose[:1, 2:], pose[1:, 2:])[1] < 1e-3  # below the hips every bone turns as one cycle earlier


def test_a_blend_of_a_loop_is_not_marked_as_one(loopsmith, walk):
    obj, source = walk
    bpy.ops.loopsmith.make_loop()
    looped = obj.animation_data.action
    assert bpy.ops.loopsmith.blend(blend_action=source.name, blend_timing="FRACTION") == {"FINISHED"}
    assert not obj.animation_data.action.use_cyclic and looped.use_cyclic


def _wrap_step(obj, action):
    """The largest joint step (relative to the hips) across a loop's wrap, over the larger of the steps either side."""
    last = int(round(action.frame_range[1]))
    pose = evaluated_pose(obj, [last - 1, last, last + 1, last + 2])
    positions = pose[:, 2:, :3, 3] - pose[:, 1:2, :3, 3]
    steps = np.linalg.norm(np.diff(positions, axis=0), axis=-1).max(axis=1)
    return steps[1] / max(steps[0], steps[2])


@pytest.mark.realdata
@pytest.mark.parametrize("edit, props", [("retime", {"speed": 0.8}), ("mirror", {}), ("freeze_bone", {"freeze_bones": "Head"})])
def test_an_edited_wrap_loop_still_wraps_seamlessly(loopsmith, walk, edit, props):
    obj, source = walk
    bpy.ops.loopsmith.make_loop(loop_mode="WRAP")
    looped = obj.animation_data.action
    bpy.context.scene.frame_set(int(looped.frame_range[0]) + 5)
    assert getattr(bpy.ops.loopsmith, edit)(**props) == {"FINISHED"}
    edited = obj.animation_data.action
    print(f"\n{edit}: step across the wrap {_wrap_step(obj, edited):.2f} of its neighbours' (the loop's own {_wrap_step(obj, looped):.2f})")
    assert _wrap_step(obj, edited) < 1.3  # read without its closing key, the edit made a 1.7-1.9x jump here
    assert edited.frame_range[1] - edited.frame_range[0] == pytest.approx(
        (looped.frame_range[1] - looped.frame_range[0] + 1) / props.get("speed", 1.0) - 1, abs=0.6)
