"""Root motion and engine export as an animator meets them: the operators on real clips, evaluated in Blender."""

import json

import numpy as np
import pytest

from helpers import RecordingLayout, evaluated_pose, import_bvh, pose_errors

bpy = pytest.importorskip("bpy")

WALK = "dataset-1_walk_normal_001.bvh"


def _clips(mocap_dir):
    return sorted(mocap_dir.glob("*.bvh")) + sorted((mocap_dir.parent / "bandai-actions").glob("*.bvh"))


def _frames(action):
    first, last = (int(round(f)) for f in action.frame_range)
    return np.arange(first, last + 1)


def _poses_by_name(obj, frames):
    """``{bone name: (F, 4, 4)}`` world matrices of every pose bone (the object's matrix applied)."""
    pose = np.asarray(obj.matrix_world) @ evaluated_pose(obj, frames)
    return {bone.name: pose[:, index] for index, bone in enumerate(obj.pose.bones)}


@pytest.mark.realdata
def test_the_world_pose_is_kept_on_every_real_clip(loopsmith, blank, mocap_dir):
    """The required bound: every bone's world position within 1e-5 m of the original, on every frame of every clip."""
    worst = worst_angle = 0.0
    for path in _clips(mocap_dir):
        bpy.ops.wm.read_homefile(use_empty=True)
        obj = import_bvh(path)
        source = obj.animation_data.action
        frames = _frames(source)[:: max(1, len(_frames(source)) // 150)]  # the dance has 1,901 frames: every 12th
        before = _poses_by_name(obj, frames)
        assert bpy.ops.loopsmith.extract_root_motion() == {"FINISHED"}, path.name
        action = obj.animation_data.action
        assert action.name == f"{source.name}_root" and source.use_fake_user
        after = _poses_by_name(obj, frames)
        (root,) = _tops(obj)  # the floor bone now carrying the travel: the one bone that moves
        for name, matrices in before.items():
            if name != root:
                position, angle = pose_errors(after[name], matrices)
                worst, worst_angle = max(worst, position), max(worst_angle, angle)
        assert np.abs(after[root][:, 2, 3]).max() < 0.05, path.name  # on the floor
    assert worst < 5e-6 and worst_angle < 1e-5, (worst, worst_angle)  # 1.4e-6 m: float32 keys and matrices (the required bound: 1e-5 m)


@pytest.fixture
def walker(loopsmith, blank):
    """The demo walk (its hips on top, no floor bone) as an armature with its action, active and selected."""
    generated = loopsmith.core.demo.walk_cycle()
    obj = loopsmith.bridge.armature.create_armature(blank, generated.clip, "Walker")
    loopsmith.bridge.clip_io.write_clip(obj, generated.clip, "walk", frame_range=True)
    return obj


def _tops(obj):
    return [bone.name for bone in obj.data.bones if bone.parent is None]


def test_a_root_bone_is_added_above_a_pelvis_topped_skeleton_and_undo_takes_it_away(loopsmith, walker):
    obj, frames = walker, _frames(walker.animation_data.action)
    before = _poses_by_name(obj, frames)
    bpy.ops.ed.undo_push(message="before")
    assert bpy.ops.loopsmith.extract_root_motion(root_name="root") == {"FINISHED"}
    assert _tops(obj) == ["root"] and obj.data.bones["root"].children[0].name == "Hips"
    assert np.allclose(np.array(obj.data.bones["root"].matrix_local), np.eye(4), atol=1e-6)
    after = _poses_by_name(obj, frames)
    assert max(np.abs(after[name][:, :3, 3] - before[name][:, :3, 3]).max() for name in before) < 1e-5
    root, hips = after["root"][:, :3, 3], before["Hips"][:, :3, 3]
    assert np.linalg.norm(root[-1, :2] - root[0, :2]) > 0.9 * np.linalg.norm(hips[-1, :2] - hips[0, :2])
    assert np.abs(root[:, 2]).max() < 1e-6 and np.linalg.norm(root[:, :2] - hips[:, :2], axis=-1).max() < 0.05
    # The original plays as before on the grown armature once the root is back at rest (it has no keys there).
    action = obj.animation_data.action
    loopsmith.bridge.action_api.assign_action(obj, bpy.data.actions["walk"])
    obj.pose.bones["root"].matrix_basis.identity()
    original = _poses_by_name(obj, frames)
    assert max(np.abs(original[name] - before[name]).max() for name in before) < 1e-5
    loopsmith.bridge.action_api.assign_action(obj, action)
    bpy.ops.ed.undo_push(message="Extract Root Motion")
    bpy.ops.ed.undo()
    obj = bpy.data.objects["Walker"]
    assert _tops(obj) == ["Hips"] and "walk_root" not in bpy.data.actions


def test_a_loop_keeps_looping_with_its_travel_on_the_root(loopsmith, walker):
    obj = walker
    assert bpy.ops.loopsmith.make_loop(range_mode="ACTION") == {"FINISHED"}
    loop = obj.animation_data.action
    assert bpy.ops.loopsmith.extract_root_motion() == {"FINISHED"}
    action = obj.animation_data.action
    assert action.name == f"{loop.name}_root" and action.use_cyclic
    first, last = _frames(action)[[0, -1]]
    period = last - first  # the closing key, frame last, is frame first of the next cycle
    # Played on past its end, the cycle repeats: the root a cycle's travel further, every other bone as in the first cycle.
    poses = _poses_by_name(obj, [first, first + 1, last, last + 1])
    travel = poses["root"][2, :3, 3] - poses["root"][0, :3, 3]
    assert np.linalg.norm(travel[:2]) > 0.5 and abs(travel[2]) < 1e-6
    for name, matrices in poses.items():
        moved = matrices[2:, :3, 3] - travel
        assert np.abs(moved - matrices[:2, :3, 3]).max() < 1e-4, (name, period)
    # The root's step across the seam is the root's step inside the clip (cyclic smoothing): no hitch in the engine's root motion.
    steps = np.diff(_poses_by_name(obj, [last - 1, last, last + 1, last + 2])["root"][:, :2, 3], axis=0)
    assert np.linalg.norm(steps[1] - steps[0]) < 0.2 * np.linalg.norm(steps[0])


def test_extraction_refuses_what_it_cannot_do_in_one_line(loopsmith, walker):
    obj = walker
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones.new("root").tail = (0.0, 0.1, 0.0)  # a bone of the skeleton that happens to have the root's name
    obj.data.edit_bones["root"].parent = obj.data.edit_bones["Spine"]
    bpy.ops.object.mode_set(mode="OBJECT")
    with pytest.raises(RuntimeError, match="already has a bone of that name"):
        bpy.ops.loopsmith.extract_root_motion(root_name="root")
    assert obj.animation_data.action.name == "walk" and "walk_root" not in bpy.data.actions
    bones = {bone.name for bone in obj.data.bones}
    for name in ("", " ", "r" * 80):
        with pytest.raises(RuntimeError, match="needs a name|63 bytes"):
            bpy.ops.loopsmith.extract_root_motion(root_name=name)
        assert {bone.name for bone in obj.data.bones} == bones  # nothing half made


@pytest.mark.smoke
@pytest.mark.parametrize("engine, suffix", [("UNREAL", ".fbx"), ("UNITY", ".fbx"), ("GODOT", ".glb"), ("GLTF", ".glb")])
def test_export_for_an_engine_writes_one_animation_and_leaves_the_file_as_it_was(loopsmith, walker, tmp_path, engine, suffix):
    obj = walker
    bpy.data.objects.new("Armature", None)  # a name the Unreal profile borrows for the export: it must get it back
    assert bpy.ops.loopsmith.make_loop(range_mode="ACTION") == {"FINISHED"}
    assert bpy.ops.loopsmith.extract_root_motion() == {"FINISHED"}
    action, scene = obj.animation_data.action, bpy.context.scene
    names = (obj.name, action.name, scene.name, sorted(a.name for a in bpy.data.actions), scene.frame_start, scene.frame_end)
    keys = np.array([fc.keyframe_points[0].co[0] for fc in loopsmith.bridge.action_api.fcurves_of(action, obj)])
    assert bpy.ops.loopsmith.export_engine(engine=engine, filepath=str(tmp_path / "walk")) == {"FINISHED"}
    written = tmp_path / f"walk{suffix}"
    loopsmith.bridge.export.verify(written, suffix)  # one animation or one take
    if suffix == ".glb":
        (animation,) = json.loads(written.read_bytes()[20:20 + int.from_bytes(written.read_bytes()[12:16], "little")])["animations"]
        # Godot loops an animation whose name ends in 'loop'; the plain glTF profile keeps the action's name.
        assert animation["name"] == (f"{action.name}_loop" if engine == "GODOT" else action.name)
    after = (obj.name, action.name, scene.name, sorted(a.name for a in bpy.data.actions), scene.frame_start, scene.frame_end)
    assert after == names and bpy.data.objects["Armature"].type == "EMPTY"
    assert np.array_equal(keys, [fc.keyframe_points[0].co[0] for fc in loopsmith.bridge.action_api.fcurves_of(action, obj)])


@pytest.mark.realdata
def test_export_of_a_freshly_imported_clip_warns_then_writes_the_root(loopsmith, blank, mocap_dir, tmp_path, capfd):
    obj = import_bvh(mocap_dir / WALK)  # no manual frame range: the keys' range is exported
    source = obj.animation_data.action
    assert bpy.ops.loopsmith.export_engine(engine="UNREAL", filepath=str(tmp_path / "hero.walk")) == {"FINISHED"}
    written = tmp_path / "hero.walk.fbx"  # the extension is added, never put in place of a dotted name's tail
    out = capfd.readouterr().out
    assert "frames 1-195" in out and "'joint_Root' carries 0% of it): run Extract Root Motion first" in out
    loopsmith.bridge.export.verify(written, ".fbx", 195, 30.0)  # the take lasts the whole clip, from 0 s
    assert bpy.ops.loopsmith.extract_root_motion() == {"FINISHED"}
    assert bpy.ops.loopsmith.export_engine(engine="UNREAL", filepath=str(written)) == {"FINISHED"}
    assert "Warning" not in capfd.readouterr().out.split("Info: Wrote")[-1]
    # The file's top bone is 'root', the engine's name; the user's armature keeps 'joint_Root', its actions intact.
    assert b"\x00\x01Model" in written.read_bytes() and b"root\x00\x01Model" in written.read_bytes()
    assert [bone.name for bone in obj.data.bones if bone.parent is None] == ["joint_Root"]
    for action in (source, obj.animation_data.action):
        assert loopsmith.bridge.clip_io.action_problem(action, obj) is None
    for path, message in (("//walk.fbx", "not saved yet"), (str(tmp_path) + "/", "not a folder")):
        with pytest.raises(RuntimeError, match=message):
            bpy.ops.loopsmith.export_engine(engine="UNREAL", filepath=path)


def test_export_warns_when_no_root_carries_the_travel(loopsmith, walker, tmp_path, capfd):
    assert bpy.ops.loopsmith.export_engine(engine="UNREAL", filepath=str(tmp_path / "walk.fbx")) == {"FINISHED"}
    assert (tmp_path / "walk.fbx").is_file()
    assert "no root bone carries the travel (no floor bone is on top): run Extract Root Motion first" in capfd.readouterr().out
    assert bpy.ops.loopsmith.extract_root_motion() == {"FINISHED"}
    assert bpy.ops.loopsmith.export_engine(engine="UNREAL", filepath=str(tmp_path / "walk.fbx")) == {"FINISHED"}
    written = capfd.readouterr().out.split("Info: Wrote")[-1]
    assert "for Unreal Engine, frames 1-106" in written and "Warning" not in written


@pytest.mark.parametrize("space", ["view", "dopesheet", "graph"])
def test_game_engine_panel_and_redo_panel_draw(loopsmith, walker, space):
    settings = bpy.context.scene.loopsmith
    drawn = {}
    for in_place in (False, True):
        settings.root_in_place = in_place
        layout = RecordingLayout()
        getattr(bpy.types, f"LOOPSMITH_PT_engine_{space}").draw(type("Panel", (), {"layout": layout})(), bpy.context)
        drawn[in_place] = {entry for kind, entry in layout.log if kind in ("prop", "operator")}
    assert {"root_motion_mode", "root_height", "engine", "loopsmith.extract_root_motion", "loopsmith.export_engine"} <= drawn[False]
    assert "root_motion_mode" not in drawn[True] and "root_in_place" in drawn[True]  # in place, the root does not move: no mode
    layout = RecordingLayout()
    loopsmith.ui.layout.draw_root_motion(layout, bpy.context.window_manager.operator_properties_last("loopsmith.extract_root_motion"))
    assert ("prop", "root_name") in layout.log
