"""BVH input checks, units and up axis on real clips, and BVH output in the input's layout.

Broken files are written into tmp_path from a real Bandai clip; each error must
name the line (and column) and the reason. The Blender tests import and export
with Blender's own BVH add-on and compare poses by forward kinematics.
"""

from dataclasses import replace

import numpy as np
import pytest

from core.formats import bvh
from core.errors import LoopsmithError
from helpers import Y_UP_TO_Z_UP, bvh_in_units, bvh_z_up

RUN = "dataset-1_run_normal_001.bvh"  # 24 frames; rows on lines 135-158
WALK = "dataset-1_walk_normal_001.bvh"
FIRST_ROW = 135


@pytest.fixture
def run_text(mocap_dir):
    return (mocap_dir / RUN).read_text()


def _broken(tmp_path, text, name="broken.bvh"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _with_row(text, line, change):
    lines = text.split("\n")
    lines[line - 1] = change(lines[line - 1].split())
    return "\n".join(lines)


def _error(path):
    with pytest.raises(bvh.BvhError) as caught:
        bvh.read_bvh(path)
    assert isinstance(caught.value, LoopsmithError) and "\n" not in str(caught.value)
    return str(caught.value)


# ---------------------------------------------------------------- broken files


@pytest.mark.realdata
@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity"])
def test_a_non_finite_rotation_names_line_column_joint_and_channel(tmp_path, run_text, value):
    # Hips is the second joint: its Zrotation is value 10 of the row.
    text = _with_row(run_text, FIRST_ROW + 5, lambda row: " ".join(row[:9] + [value] + row[10:]))
    assert _error(_broken(tmp_path, text)) == f"line {FIRST_ROW + 5}, column 10: '{value}' is not a finite number (joint 'Hips', Zrotation)"


@pytest.mark.realdata
def test_a_word_in_the_motion_is_not_a_number(tmp_path, run_text):
    text = _with_row(run_text, FIRST_ROW + 2, lambda row: " ".join(row[:130] + ["1,5"] + row[131:]))
    assert _error(_broken(tmp_path, text)) == f"line {FIRST_ROW + 2}, column 131: '1,5' is not a number (joint 'Toes_R', Xrotation)"


@pytest.mark.realdata
@pytest.mark.parametrize("cut, message", [
    ("  JOINT Hips\n  {\n    OFFSET 0.0408292 93.9915 0.0639531\n    CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n",
     "line 9: the file ends inside joint 'Hips': the hierarchy is cut short"),
    ("  JOINT Hips\n  {\n    OFFSET", "line 8: OFFSET of joint 'Hips' needs 3 numbers, got 0"),
    ("MOTION\n", "line 132: the file ends after MOTION: 'Frames: <count>' is missing"),
])
def test_a_file_cut_in_the_hierarchy(tmp_path, run_text, cut, message):
    end = run_text.index(cut) + len(cut)
    assert _error(_broken(tmp_path, run_text[:end])) == message


@pytest.mark.realdata
def test_a_file_cut_in_the_motion(tmp_path, run_text):
    lines = run_text.split("\n")
    cut = "\n".join(lines[:FIRST_ROW + 9] + [" ".join(lines[FIRST_ROW + 9].split()[:37])])
    assert _error(_broken(tmp_path, cut)) == f"line {FIRST_ROW + 10}: expected 132 values (the hierarchy's channels), got 37 (is the file cut short?)"


@pytest.mark.realdata
def test_a_file_without_its_motion_section(tmp_path, run_text):
    assert _error(_broken(tmp_path, run_text[:run_text.index("MOTION")])) == "line 131: the file ends after its hierarchy: the MOTION section is missing"


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_an_empty_file(tmp_path, content):
    assert _error(_broken(tmp_path, content)) == "line 1: the file is empty"


@pytest.mark.realdata
@pytest.mark.parametrize("change, got", [(lambda row: row[:-1], 131), (lambda row: row + ["0"], 133)])
def test_a_short_or_long_row(tmp_path, run_text, change, got):
    text = _with_row(run_text, FIRST_ROW + 3, lambda row: " ".join(change(row)))
    assert _error(_broken(tmp_path, text)) == f"line {FIRST_ROW + 3}: expected 132 values (the hierarchy's channels), got {got}"


@pytest.mark.realdata
@pytest.mark.parametrize("count, message", [
    (25, "line 133: 'Frames: 25' but the motion has 24 rows (is the file cut short?)"),
    (23, "line 133: 'Frames: 23' but the motion has 24 rows"),
])
def test_a_frame_count_that_disagrees_with_the_rows(tmp_path, run_text, count, message):
    assert _error(_broken(tmp_path, run_text.replace("Frames:\t24", f"Frames:\t{count}"))) == message


@pytest.mark.realdata
def test_a_missing_frame_count_line_is_an_error_but_a_missing_space_is_not(tmp_path, run_text):
    # Without it, Blender's importer would take the first row for the Frame Time line and lose it.
    message = _error(_broken(tmp_path, run_text.replace("Frames:\t24\n", "")))
    assert message == "line 133: expected 'Frames: <count>' after MOTION, found 'Frame Time: 0.0333333'"
    assert bvh.read_bvh(_broken(tmp_path, run_text.replace("Frames:\t24", "Frames:24"))).frame_count == 24


@pytest.mark.realdata
@pytest.mark.parametrize("line, message", [
    ("Frame Time:\t0", "line 134: Frame Time 0 is not a positive number of seconds"),
    ("Frame Time:\t-0.033", "line 134: Frame Time -0.033 is not a positive number of seconds"),
    ("Frame Time:\tnan", "line 134: 'nan' is not a finite number (Frame Time)"),
    ("Frame Time:", "line 134: expected 'Frame Time: <seconds>', found 'Frame Time:'"),
])
def test_a_bad_frame_time(tmp_path, run_text, line, message):
    assert _error(_broken(tmp_path, run_text.replace("Frame Time:\t0.0333333", line))) == message


@pytest.mark.realdata
def test_a_byte_order_mark(tmp_path, run_text):
    message = _error(_broken(tmp_path, b"\xef\xbb\xbf" + run_text.encode()))
    assert message.startswith("line 1: the file starts with a UTF-8 byte-order mark, which Blender's BVH importer cannot read")


@pytest.mark.realdata
def test_a_latin_1_joint_name(tmp_path, run_text):
    text = run_text.replace("JOINT Chest", "JOINT Poitrine_\xe9").encode("latin-1")
    assert _error(_broken(tmp_path, text)) == "line 14: byte 0xe9 is not UTF-8, which Blender's BVH importer needs ('JOINT Poitrine_\ufffd')"


@pytest.mark.realdata
@pytest.mark.parametrize("old, new, message", [
    ("JOINT Chest", "JOINT Spine", "line 14: joint name 'Spine' is used twice (first on line 10): Blender's importer would rename it 'Spine.001'"),
    ("JOINT Chest", "JOINT " + "C" * 64, "line 14: joint name 'CCCCCCCCCCCCCCCCCCCC...' is 64 bytes long: Blender's bones keep 63"),
    ("Zposition Zrotation Xrotation Yrotation\n      JOINT Chest",
     "Zposition Zrotation Xrotation Yroll\n      JOINT Chest",
     "line 13: unknown channel 'Yroll' of joint 'Spine' (BVH channels are Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation)"),
    ("CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n      JOINT Chest",
     "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation\n      JOINT Chest",
     "line 13: CHANNELS of joint 'Spine' says 6 but names 5 channels"),
    ("CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n      JOINT Chest",
     "CHANNELS 5 Yposition Zposition Zrotation Xrotation Yrotation\n      JOINT Chest",
     "line 13: joint 'Spine' has position channels for YZ only: Blender's importer needs all three or none"),
])
def test_a_hierarchy_blender_would_read_otherwise(tmp_path, run_text, old, new, message):
    assert old in run_text
    assert _error(_broken(tmp_path, run_text.replace(old, new, 1))) == message


def test_a_missing_file(tmp_path):
    assert _error(tmp_path / "absent.bvh") == "cannot be read: No such file or directory"


# ---------------------------------------------------------------- units and up axis


def _bandai(mocap_dir):
    return sorted(mocap_dir.glob("*.bvh")) + sorted((mocap_dir.parent / "bandai-actions").glob("*.bvh"))


@pytest.mark.realdata
def test_every_bandai_clip_reads_as_centimetres_and_y_up(mocap_dir):
    paths = _bandai(mocap_dir)
    assert len(paths) == 19
    for path in paths:
        info = bvh.read_bvh(path)
        assert info.motion.shape[1] == 132 and len(info.names) == 22 and abs(info.frame_time - 1 / 30) < 1e-6
        assert bvh.up_axis(info) == "Y", path.name
        scale, reason = bvh.suggest_scale(info)
        assert scale == 0.01 and "centimetres" in reason, (path.name, reason)


@pytest.mark.realdata
@pytest.mark.parametrize("unit, scale", [("metres", 1.0), ("millimetres", 0.001), ("inches", 0.0254), ("CMU units", 0.0254 / 0.45)])
@pytest.mark.parametrize("name", [WALK, "dataset-2_wave-right-hand_normal_021.bvh"])
def test_a_clip_in_other_units_gets_its_unit(tmp_path, mocap_dir, unit, scale, name):
    path = _broken(tmp_path, bvh.to_text(bvh_in_units(bvh.read_bvh(mocap_dir / name), 0.01 / scale)), "scaled.bvh")
    suggested, reason = bvh.suggest_scale(bvh.read_bvh(path))
    assert suggested == scale and unit in reason


@pytest.mark.realdata
def test_a_giant_gets_scaled_to_a_human_height_and_says_so(mocap_dir):
    giant = bvh_in_units(bvh.read_bvh(mocap_dir / WALK), 3.0)  # 4.2 m in centimetres: no unit makes it human
    scale, reason = bvh.suggest_scale(giant)
    assert abs(bvh.standing_height(giant) * scale - 1.7) < 1e-9 and "scaled to 1.7 m" in reason
    assert bvh.SCALE_RANGE[0] <= scale <= bvh.SCALE_RANGE[1]


def test_scale_range_is_what_blender_import_and_export_both_accept():
    low, high = bvh.BLENDER_SCALE_LIMITS
    assert bvh.SCALE_RANGE == (max(low, 1 / high), min(high, 1 / low))


@pytest.mark.realdata
def test_a_z_up_clip_is_detected(tmp_path, mocap_dir):
    info = bvh.read_bvh(mocap_dir / WALK)
    path = _broken(tmp_path, bvh.to_text(bvh_z_up(info)), "z_up.bvh")
    z_up = bvh.read_bvh(path)
    assert np.abs(bvh.forward_kinematics(z_up) - bvh.forward_kinematics(info) @ Y_UP_TO_Z_UP.T).max() < 1e-3  # centimetres
    assert bvh.up_axis(z_up) == "Z" and bvh.suggest_scale(z_up)[0] == 0.01


@pytest.mark.realdata
def test_a_skeleton_lying_along_x_is_refused(mocap_dir):
    info = bvh.read_bvh(mocap_dir / WALK)
    along_x = bvh.parse_bvh(bvh.change_axes(bvh.to_text(info), np.array([[0.0, 1, 0], [-1, 0, 0], [0, 0, 1]])))
    with pytest.raises(bvh.BvhError, match=r"the skeleton stands along X \(the hips above the feet: .*only Y-up and Z-up files are read"):
        bvh.up_axis(along_x)


# ---------------------------------------------------------------- Blender: import axes and output layout


def _import(bpy, path, up="Y"):
    bpy.ops.import_anim.bvh(filepath=str(path), global_scale=0.01, update_scene_fps=True, **bvh.IMPORT_AXES[up])
    return bpy.context.object


def _world_heads(obj, frames):
    from helpers import evaluated_pose

    heads = evaluated_pose(obj, frames)[..., :3, 3]
    world = np.array(obj.matrix_world)
    return heads @ world[:3, :3].T + world[:3, 3]


@pytest.mark.blender
@pytest.mark.realdata
def test_a_z_up_clip_imports_as_the_y_up_original(blank, tmp_path, mocap_dir):
    import bpy

    path = _broken(tmp_path, bvh.to_text(bvh_z_up(bvh.read_bvh(mocap_dir / WALK))), "z_up.bvh")
    frames = range(1, 196, 4)
    original = _world_heads(_import(bpy, mocap_dir / WALK), frames)
    bpy.ops.wm.read_homefile(use_empty=True)
    z_up = _world_heads(_import(bpy, path, bvh.up_axis(bvh.read_bvh(path))), frames)
    assert np.abs(z_up - original).max() < 1e-4  # metres
    travel = np.linalg.norm(z_up[-1, :, :2] - z_up[0, :, :2], axis=-1).max()  # on Hips in this clip
    assert travel > 5.0 and 1.3 < np.ptp(z_up[..., 2], axis=1).min()  # walks 6 cycles over the floor, standing along Z


def _round_trip(bpy, tmp_path, path, up="Y"):
    info = bvh.read_bvh(path)
    _import(bpy, path, up)
    exported = tmp_path / "exported.bvh"
    bpy.ops.export_anim.bvh(filepath=str(exported), frame_start=1, frame_end=info.frame_count, global_scale=100.0)
    return info, bvh.parse_bvh(bvh.match_layout(exported.read_text(), info, up)), bvh.parse_bvh(exported.read_text())


def _check_round_trip(info, back):
    assert back.names == info.names and back.channels == info.channels and np.array_equal(back.parents, info.parents)
    assert np.array_equal(back.offsets, info.offsets) and back.frame_time == info.frame_time and back.frame_count == info.frame_count
    error = np.abs(bvh.forward_kinematics(back) - bvh.forward_kinematics(info)).max() * 0.01
    assert error < 1e-4, error  # metres, every joint and End Site, every frame


@pytest.mark.blender
@pytest.mark.realdata
@pytest.mark.parametrize("up", ["Y", "Z"])
def test_bandai_round_trip_keeps_the_layout_and_pose(blank, tmp_path, mocap_dir, up):
    path = mocap_dir / RUN
    if up == "Z":
        path = _broken(tmp_path, bvh.to_text(bvh_z_up(bvh.read_bvh(path))), "z_up.bvh")
    info, back, _ = _round_trip(__import__("bpy"), tmp_path, path, up)
    _check_round_trip(info, back)


@pytest.mark.blender
def test_three_channel_children_and_mixed_orders_round_trip(blank, tmp_path):
    from test_core_bvh import _synthetic

    info = _synthetic()
    path = _broken(tmp_path, bvh.to_text(info), "synthetic.bvh")
    info, back, exported = _round_trip(__import__("bpy"), tmp_path, path)
    # Blender's own layout differs (6 channels on unconnected bones, its rotation orders) ...
    assert exported.channels != info.channels
    # ... the converted file has the input's, and its pose.
    _check_round_trip(info, back)


@pytest.mark.blender
def test_a_clip_far_from_the_origin_round_trips(blank, tmp_path):
    """Blender evaluates in single precision: 130 m out, its rounding must not pass for a joint moving off its OFFSET."""
    from test_core_bvh import _synthetic

    info = _synthetic()
    root = [info.channels[0].index(axis + "position") for axis in "XZ"]
    motion = info.motion.copy()
    motion[:, root] += 13_000.0  # centimetres
    path = _broken(tmp_path, bvh.to_text(replace(info, motion=motion)), "far.bvh")
    info, back, _ = _round_trip(__import__("bpy"), tmp_path, path)
    _check_round_trip(info, back)
