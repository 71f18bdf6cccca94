"""Acclaim ASF/AMC in Blender: File > Import builds CMU's 05_01 where the reference BVH puts every joint, File > Export writes
it back unchanged, and bad input leaves the scene as it was."""

import shutil

import numpy as np
import pytest

from core.formats import acclaim, bvh, bvh_clip
from core.motion import kinematics, quat
from helpers import RecordingLayout, evaluated_pose, extension_module

bpy = pytest.importorskip("bpy")

FRAMES = 598


@pytest.fixture(scope="module")
def reference(cmu):
    """Every joint's world position ``(F, B, 3)`` of the reference BVH of 05_01 (read as Blender's importer would, metres,
    Z up), and its bone names."""
    clip = bvh_clip.clip_from_bvh(bvh.read_bvh(cmu / "reference_05_01.bvh"), 0.0254 / 0.45, "Y")
    return kinematics.clip_joint_positions(clip), clip.bone_names


def _data_counts():
    return len(bpy.data.objects), len(bpy.data.armatures), len(bpy.data.actions)


def _import(path, **options):
    assert bpy.ops.loopsmith.import_acclaim(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.active_object


def _one_line_error(call):
    """The message of an operator's ERROR report, checked to be one line with no traceback."""
    with pytest.raises(RuntimeError) as caught:
        call()
    message = str(caught.value).strip()
    assert "\n" not in message and "Traceback" not in message, message
    return message


@pytest.mark.smoke
def test_05_01_imports_where_the_reference_bvh_puts_every_joint(loopsmith, blank, cmu, reference):
    obj = _import(cmu / "05_01.amc")
    scene, action = blank.scene, obj.animation_data.action
    assert obj.type == "ARMATURE" and obj.name == action.name == "05_01" and len(obj.data.bones) == 31
    # AMC frames are numbered from 1 (CMU's 1 to 598): keys and the scene range keep those numbers.
    assert tuple(action.frame_range) == (1.0, FRAMES) and (scene.frame_start, scene.frame_end) == (1, FRAMES)
    assert (scene.render.fps, scene.render.fps_base) == (120, 1.0)
    positions, names = reference
    clip = loopsmith.bridge.clip_io.read_clip(obj)
    assert clip.num_frames == FRAMES and clip.fps == 120.0
    theirs = positions[:, [names.index(name) for name in clip.bone_names]]
    error = np.abs(loopsmith.core.motion.kinematics.clip_joint_positions(clip) - theirs).max()
    print(f"\n05_01 imported: largest joint difference from the reference BVH over {FRAMES} frames and 31 joints: {error:.2e} m")
    assert error < 1e-4
    # And as Blender itself poses the armature (world heads), on a few frames.
    frames = [1, 2, 300, FRAMES]
    heads = evaluated_pose(obj, frames)[..., :3, 3] @ np.array(obj.matrix_world)[:3, :3].T + np.array(obj.matrix_world)[:3, 3]
    order = [names.index(bone.name) for bone in obj.pose.bones]
    blender_error = np.abs(heads - positions[np.array(frames) - 1][:, order]).max()
    print(f"05_01 as Blender poses it: {blender_error:.2e} m")
    assert blender_error < 1e-4


def test_options_pick_the_skeleton_and_the_frame_rate(blank, cmu, tmp_path):
    shutil.copy(cmu / "05_02.amc", tmp_path / "dance.amc")  # no ASF beside it
    message = _one_line_error(lambda: bpy.ops.loopsmith.import_acclaim(filepath=str(tmp_path / "dance.amc")))
    assert "dance.amc" in message and "no skeleton found" in message and str(tmp_path) in message
    obj = _import(tmp_path / "dance.amc", asf_path=str(cmu / "05.asf"), fps=29.97)
    scene = blank.scene
    assert obj.name == "dance" and scene.render.fps == 30 and abs(scene.render.fps / scene.render.fps_base - 29.97) < 1e-4
    assert (scene.frame_start, scene.frame_end) == (1, 1123)
    # A scale given overrides the ASF's units: twice the metres per unit, twice the height.
    tall = _import(tmp_path / "dance.amc", asf_path=str(cmu / "05.asf"), scale=2 * 0.0254 / 0.45)
    assert np.isclose(tall.data.bones["head"].head_local.length, 2 * obj.data.bones["head"].head_local.length, rtol=1e-5)


def test_an_asf_alone_gives_the_skeleton_at_rest(blank, cmu):
    obj = _import(cmu / "05.asf")
    assert obj.name == "05" and len(obj.data.bones) == 31 and obj.animation_data is None
    heights = [bone.head_local.z for bone in obj.data.bones]
    assert 1.4 < max(heights) - min(heights) < 2.0  # a standing person, metres, Z up


def test_find_skeleton_follows_cmu_names_then_the_only_asf(loopsmith, tmp_path):
    find = extension_module(loopsmith, "files.acclaim_files").find_skeleton
    for name in ("05_01.amc", "05.asf", "other.asf", "lone/x.amc", "lone/a.ASF", "two/y.amc", "two/a.asf", "two/b.asf"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    assert find(tmp_path / "05_01.amc") == tmp_path / "05.asf"
    assert find(tmp_path / "lone" / "x.amc") == tmp_path / "lone" / "a.ASF"
    with pytest.raises(loopsmith.core.errors.AcclaimError, match="looked for y.asf in .*two and found 2 other .asf files"):
        find(tmp_path / "two" / "y.amc")


@pytest.mark.smoke
def test_export_writes_the_same_motion_and_its_skeleton_beside(loopsmith, blank, cmu, tmp_path):
    _import(cmu / "05_01.amc")
    target = tmp_path / "05_01.amc"
    assert bpy.ops.loopsmith.export_acclaim(filepath=str(target)) == {"FINISHED"}
    assert (tmp_path / "05.asf").read_text() == (cmu / "05.asf").read_text()  # the skeleton it was imported from, as it was
    original = acclaim.read_acclaim(cmu / "05.asf", cmu / "05_01.amc")
    back = acclaim.read_acclaim(tmp_path / "05.asf", target)
    assert back.num_frames == FRAMES and list(back.frames[[0, -1]]) == [1, FRAMES]
    position = np.abs(kinematics.clip_joint_positions(back) - kinematics.clip_joint_positions(original)).max()
    turn = np.abs(quat.to_rotation_vector(quat.multiply(quat.inverse(original.rotation), back.rotation))).max()
    print(f"\n05_01 imported, exported and read back: {position:.1e} m, {turn:.1e} rad")
    assert position < 1e-6 and turn < 1e-6
    # Again into the same folder: the ASF there is the same skeleton and stays untouched.
    stamp = (tmp_path / "05.asf").stat().st_mtime_ns
    assert bpy.ops.loopsmith.export_acclaim(filepath=str(tmp_path / "05_01_again")) == {"FINISHED"}
    assert (tmp_path / "05_01_again.amc").is_file() and (tmp_path / "05.asf").stat().st_mtime_ns == stamp


def test_export_refuses_what_it_cannot_write_and_writes_nothing(loopsmith, blank, cmu, tmp_path):
    demo = loopsmith.core.demo.walk_cycle(num_frames=20).clip
    walker = loopsmith.bridge.armature.create_armature(blank, demo, "Walker")
    loopsmith.bridge.clip_io.write_clip(walker, demo, "walk")
    message = _one_line_error(lambda: bpy.ops.loopsmith.export_acclaim(filepath=str(tmp_path / "walk.amc")))
    assert "export needs an armature imported from an ASF" in message
    _import(cmu / "05_01.amc")
    other = (cmu / "05.asf").read_text().replace("length 0.45", "length 0.5")  # another skeleton
    (tmp_path / "05.asf").write_text(other)
    (tmp_path / "05_01.asf").write_text(other)  # and at the AMC's own name: nowhere left to put its skeleton
    message = _one_line_error(lambda: bpy.ops.loopsmith.export_acclaim(filepath=str(tmp_path / "05_01.amc")))
    assert "05_01.asf" in message and "another skeleton" in message
    assert sorted(path.name for path in tmp_path.iterdir()) == ["05.asf", "05_01.asf"]


def test_export_names_its_skeleton_as_the_command_line_does(loopsmith, blank, cmu, tmp_path):
    """Beside another 05.asf the AMC goes with its own 05_01.asf, named in its first line, as convert --format amc does;
    where 05.asf is the same skeleton it is used as it is."""
    _import(cmu / "05_01.amc")
    (tmp_path / "05.asf").write_text((cmu / "05.asf").read_text().replace("length 0.45", "length 0.5"))
    assert bpy.ops.loopsmith.export_acclaim(filepath=str(tmp_path / "05_01.amc")) == {"FINISHED"}
    assert (tmp_path / "05_01.amc").read_text().splitlines()[0] == "#!OML:ASF 05_01.asf"
    assert extension_module(loopsmith, "files.acclaim_files").find_skeleton(tmp_path / "05_01.amc") == tmp_path / "05_01.asf"
    shutil.copy(cmu / "05.asf", tmp_path / "05.asf")
    assert bpy.ops.loopsmith.export_acclaim(filepath=str(tmp_path / "walk.amc")) == {"FINISHED"}
    assert (tmp_path / "walk.amc").read_text().splitlines()[0] == "#!OML:ASF 05.asf" and not (tmp_path / "walk.asf").exists()


def test_export_names_a_bone_renamed_or_deleted_since_the_import(loopsmith, blank, cmu, tmp_path):
    obj = _import(cmu / "05_01.amc")
    obj.data.bones["lfemur"].name = "thigh_l"
    message = _one_line_error(lambda: bpy.ops.loopsmith.export_acclaim(filepath=str(tmp_path / "05_01.amc")))
    assert "no bone 'lfemur' of its skeleton 05.asf" in message and "renamed or deleted" in message
    assert not list(tmp_path.iterdir())


def test_importing_a_missing_motion_names_the_motion(loopsmith, blank, tmp_path):
    message = _one_line_error(lambda: bpy.ops.loopsmith.import_acclaim(filepath=str(tmp_path / "05_99.amc")))
    assert "05_99.amc" in message and "no such file" in message and "skeleton" not in message


def _truncated(cmu, folder):
    shutil.copy(cmu / "05.asf", folder / "05.asf")
    data = (cmu / "05_01.amc").read_bytes()
    (folder / "05_01.amc").write_bytes(data[:len(data) // 2])
    return folder / "05_01.amc", "truncated"


def _missing_asf(cmu, folder):
    shutil.copy(cmu / "05_01.amc", folder / "05_01.amc")
    return folder / "05_01.amc", "no skeleton found"


def _binary(cmu, folder):
    shutil.copy(cmu / "05.asf", folder / "05.asf")
    (folder / "05_01.amc").write_bytes(bytes(range(256)) * 64)
    return folder / "05_01.amc", "binary data"


@pytest.mark.parametrize("make", [_truncated, _missing_asf, _binary], ids=["truncated", "missing-asf", "binary"])
def test_bad_input_is_one_line_and_leaves_nothing(blank, cmu, tmp_path, make):
    path, reason = make(cmu, tmp_path)
    before = _data_counts()
    message = _one_line_error(lambda: bpy.ops.loopsmith.import_acclaim(filepath=str(path)))
    assert "05_01.amc" in message and reason in message, message
    assert _data_counts() == before and (blank.scene.render.fps, blank.scene.frame_end) == (30, 250)


def test_a_failure_while_building_removes_the_half_built_armature(loopsmith, blank, cmu, monkeypatch):
    def fail(*args, **kwargs):
        raise loopsmith.core.errors.AcclaimError("the disk went away")

    monkeypatch.setattr(loopsmith.bridge.armature.write_action, "write_clip", fail)
    before = _data_counts()
    message = _one_line_error(lambda: bpy.ops.loopsmith.import_acclaim(filepath=str(cmu / "05_01.amc")))
    assert "the disk went away" in message and _data_counts() == before
    assert blank.scene.render.fps == 30


def test_menus_and_the_panel_button_come_and_go_with_the_extension(loopsmith, blank):
    module = extension_module(loopsmith, "operators.acclaim")
    menus = {name: getattr(bpy.types, name)._dyn_ui_initialize() for name, _ in module.MENUS}
    assert module.draw_import in menus["TOPBAR_MT_file_import"] and module.draw_export in menus["TOPBAR_MT_file_export"]
    layout = RecordingLayout()
    module.draw_import(type("Menu", (), {"layout": layout})(), bpy.context)
    bpy.types.LOOPSMITH_PT_main_view.draw(type("Panel", (), {"layout": layout})(), bpy.context)
    assert layout.log.count(("operator", "loopsmith.import_acclaim")) == 2
    module.unregister()
    try:
        assert module.draw_import not in menus["TOPBAR_MT_file_import"] and module.draw_export not in menus["TOPBAR_MT_file_export"]
        assert not hasattr(bpy.types, "LOOPSMITH_OT_import_acclaim") and not hasattr(bpy.types, "LOOPSMITH_OT_export_acclaim")
    finally:
        module.register()
    assert module.draw_import in menus["TOPBAR_MT_file_import"]
