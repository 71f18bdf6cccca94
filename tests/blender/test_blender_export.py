"""Writing a loop as BVH, FBX, GLB and .blend, read back as engines and Blender would, and verifying written files."""

import importlib
import json
import re
import struct
import types

import numpy as np
import pytest

from helpers import evaluated_pose, import_bvh

bpy = pytest.importorskip("bpy")

CLIP = "dataset-1_walk_normal_001.bvh"
START, END = 35, 67  # two gait cycles of the walk (frames, inclusive)


def _world_heads(obj, frames):
    """Joint positions in world space (metres) by bone name: ``{name: (F, 3)}``."""
    pose = evaluated_pose(obj, frames)
    world = np.array(obj.matrix_world) @ pose
    return {bone.name: world[:, i, :3, 3] for i, bone in enumerate(obj.pose.bones)}


def _scene_state(context, obj):
    scene = context.scene
    return (scene.name, scene.frame_start, scene.frame_end, scene.frame_current,
            sorted(other.name for other in context.view_layer.objects if other.select_get()),
            context.view_layer.objects.active.name, [strip.mute for track in obj.animation_data.nla_tracks for strip in track.strips])


@pytest.fixture(scope="module")
def written(loopsmith, mocap_dir, tmp_path_factory):
    """The walk's loop written in every format (and a GLB the old way), with what the files must hold.

    The armature is neither selected nor active while writing, the scene's
    range and frame are not the loop's, and the original action is on an NLA
    track: the files must hold only the loop, and the scene come back as it was.
    """
    export = importlib.import_module(loopsmith.__name__ + ".bridge.export")
    clip_io = loopsmith.bridge.clip_io
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = import_bvh(mocap_dir / CLIP)
    source = clip_io.require_action(obj)
    result = loopsmith.core.loop.make.make_loop(clip_io.read_clip(obj), START, END)
    action = clip_io.write_loop(obj, result, source).action
    frames = result.clip.num_frames
    heads = _world_heads(obj, range(START, END + 1))

    context = bpy.context
    obj.animation_data.nla_tracks.new().strips.new(source.name, 1, source)
    bpy.ops.object.empty_add()
    bystander = context.object
    context.scene.frame_start, context.scene.frame_end = 5, 100
    context.scene.frame_set(12)
    before = _scene_state(context, obj)
    folder = tmp_path_factory.mktemp("export")
    paths, after = {}, {}
    for suffix in export.FORMATS:
        paths[suffix] = folder / f"walk_loop{suffix}"
        export.write(obj, paths[suffix], suffix, START, END, 0.01)
        after[suffix] = _scene_state(context, obj)
    # What Loopsmith wrote before: every action of the armature, the original first.
    old_glb = folder / "old.glb"
    for other in context.view_layer.objects:
        other.select_set(other == obj)
    bpy.ops.export_scene.gltf(filepath=str(old_glb), export_format="GLB", use_selection=True)
    assert bystander.name in before[4]
    return types.SimpleNamespace(export=export, paths=paths, old_glb=old_glb, name=action.name, armature=obj.name,
                                 frames=frames, fps=context.scene.render.fps / context.scene.render.fps_base,
                                 heads=heads, before=before, after=after)


def _fresh_scene():
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.render.fps, bpy.context.scene.render.fps_base = 30, 1.0


def _largest_gap(heads, imported):
    """Largest joint position difference (metres) over the joints both hold."""
    shared = heads.keys() & imported.keys()
    assert len(shared) == len(heads)
    return max(np.abs(heads[name] - imported[name]).max() for name in shared)


def _glb_json(path):
    data = path.read_bytes()
    return json.loads(data[20:20 + struct.unpack_from("<I", data, 12)[0]])


@pytest.mark.parametrize("suffix", [".bvh", ".fbx", ".glb", ".blend"])
def test_written_files_verify_and_the_scene_is_left_as_it_was(written, suffix):
    written.export.verify(written.paths[suffix], suffix, written.frames)
    assert written.after[suffix] == written.before


def test_glb_holds_only_the_loop_starting_at_zero(written):
    document = _glb_json(written.paths[".glb"])
    [animation] = document["animations"]
    assert animation["name"] == written.name
    times = [document["accessors"][sampler["input"]] for sampler in animation["samplers"]]
    assert max(accessor["count"] for accessor in times) == written.frames
    assert min(accessor["min"][0] for accessor in times) == 0.0
    assert max(accessor["max"][0] for accessor in times) == pytest.approx((written.frames - 1) / written.fps, abs=1e-5)

    _fresh_scene()
    bpy.ops.import_scene.gltf(filepath=str(written.paths[".glb"]))
    [action] = bpy.data.actions
    assert action.name in (written.name, f"{written.name}_{written.armature}")  # 4.2 appends the object's name
    assert action.frame_range[0] == pytest.approx(0.0, abs=1e-3)
    assert action.frame_range[1] == pytest.approx(written.frames - 1, abs=1e-3)
    armature = next(obj for obj in bpy.data.objects if obj.type == "ARMATURE")
    assert _largest_gap(written.heads, _world_heads(armature, range(written.frames))) < 1e-4


def test_glb_written_the_old_way_fails_verification(written):
    with pytest.raises(written.export.ExportError, match="holds 2 animations, not one"):
        written.export.verify(written.old_glb, ".glb", written.frames)


def test_fbx_holds_one_take_named_after_the_loop(written):
    _fresh_scene()
    bpy.ops.import_scene.fbx(filepath=str(written.paths[".fbx"]))
    [action] = bpy.data.actions
    assert action.name == f"{written.armature}|{written.name}"
    armature = next(obj for obj in bpy.data.objects if obj.type == "ARMATURE")
    offset = round(action.frame_range[0]) - START  # Blender's FBX importer shifts takes by its Animation Offset
    frames = range(START + offset, END + offset + 1)
    # Every frame is keyed (no key reduction): the take is the loop to float precision.
    assert _largest_gap(written.heads, _world_heads(armature, frames)) < 1e-4


def test_bvh_reads_back_as_the_loop(written):
    _fresh_scene()
    armature = import_bvh(written.paths[".bvh"])
    assert bpy.context.scene.render.fps == 30
    assert armature.animation_data.action.frame_range[:] == pytest.approx((1, written.frames))
    assert _largest_gap(written.heads, _world_heads(armature, range(1, written.frames + 1))) < 1e-4


def test_blend_holds_the_armature_and_the_loop(written):
    with bpy.data.libraries.load(str(written.paths[".blend"])) as (contents, _):
        assert written.name in contents.actions and written.armature in contents.objects


@pytest.mark.parametrize("suffix", [".bvh", ".fbx", ".glb", ".blend"])
@pytest.mark.parametrize("cut", [0, 10, 0.1, 0.5, 0.9, -40, -20, -8, -1])
def test_truncated_files_fail_verification(written, tmp_path, suffix, cut):
    data = written.paths[suffix].read_bytes()
    keep = int(len(data) * cut) if isinstance(cut, float) else cut % len(data) if cut < 0 else cut
    truncated = tmp_path / f"cut{suffix}"
    truncated.write_bytes(data[:keep])
    with pytest.raises(written.export.ExportError, match=rf"^the written \{suffix} file (is empty|fails verification: .+)$"):
        written.export.verify(truncated, suffix, written.frames)


def _bvh_edit(text, edit):
    """The BVH text with its motion rows (after the Frame Time line) replaced by ``edit(rows)``."""
    head, rows = text.split("Frame Time:", 1)
    frame_time, *rows = rows.split("\n")
    return head + "Frame Time:" + frame_time + "\n" + "\n".join(edit(rows))


@pytest.mark.parametrize("edit, message", [
    (lambda rows: rows[:10] + rows[11:], r"'Frames: 33' but the motion has 32 rows"),
    (lambda rows: rows[:4] + [rows[4].rsplit(" ", 1)[0]] + rows[5:], r"expected 132 values \(the hierarchy's channels\), got 131"),
    (lambda rows: rows[:7] + [rows[7].replace(" ", " nan ", 1).rsplit(" ", 1)[0]] + rows[8:], r"column 2: 'nan' is not a finite number"),
    (lambda rows: rows[:3] + ["1x " + rows[3].split(" ", 1)[1]] + rows[4:], r"column 1: '1x' is not"),
])
def test_corrupt_bvh_fails_verification(written, tmp_path, edit, message):
    broken = tmp_path / "broken.bvh"
    broken.write_text(_bvh_edit(written.paths[".bvh"].read_text(), edit))
    with pytest.raises(written.export.ExportError, match=message):
        written.export.verify(broken, ".bvh", written.frames)


def test_bvh_with_another_frame_count_or_no_frame_time_fails_verification(written, tmp_path):
    text = written.paths[".bvh"].read_text()
    with pytest.raises(written.export.ExportError, match=rf"it has 33 frames, not the loop's {written.frames + 1}"):
        written.export.verify(written.paths[".bvh"], ".bvh", written.frames + 1)
    broken = tmp_path / "stopped.bvh"
    broken.write_text(re.sub(r"Frame Time:\s*\S+", "Frame Time: 0", text))
    with pytest.raises(written.export.ExportError, match="Frame Time 0 is not a positive number"):
        written.export.verify(broken, ".bvh", written.frames)


def test_corrupt_glb_fails_verification(written, tmp_path):
    data = bytearray(written.paths[".glb"].read_bytes())
    broken = tmp_path / "broken.glb"
    data[20] = ord("x")  # the JSON's opening brace
    broken.write_bytes(data)
    with pytest.raises(written.export.ExportError, match="the glTF JSON does not parse"):
        written.export.verify(broken, ".glb", written.frames)
    with pytest.raises(written.export.ExportError, match=rf"its animation has {written.frames} frames, not the loop's 10"):
        written.export.verify(written.paths[".glb"], ".glb", 10)


def test_fbx_and_blend_of_something_else_fail_verification(written, tmp_path):
    impostor = tmp_path / "impostor.fbx"
    impostor.write_bytes(b"glTF" + written.paths[".fbx"].read_bytes()[4:])
    with pytest.raises(written.export.ExportError, match="not an FBX file"):
        written.export.verify(impostor, ".fbx")
    impostor = impostor.with_suffix(".blend")
    impostor.write_bytes(b"BLANDER" + written.paths[".blend"].read_bytes()[7:])
    with pytest.raises(written.export.ExportError, match="not a .blend file"):
        written.export.verify(impostor, ".blend")


def test_blend_blender_cannot_read_or_without_an_action_fails_verification(written, tmp_path):
    _fresh_scene()
    empty = tmp_path / "empty.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(empty), copy=True, compress=True)
    with pytest.raises(written.export.ExportError, match="it holds no object or no action"):
        written.export.verify(empty, ".blend")
    # A damaged compressed frame: the seek table still adds up, only reading the file shows it.
    data = bytearray(written.paths[".blend"].read_bytes())
    compressed = tmp_path / "compressed.blend"
    if not data.startswith(b"\x28\xb5\x2f\xfd"):
        bpy.ops.wm.open_mainfile(filepath=str(written.paths[".blend"]), load_ui=False)
        bpy.ops.wm.save_as_mainfile(filepath=str(compressed), copy=True, compress=True)
        data = bytearray(compressed.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    compressed.write_bytes(data)
    with pytest.raises(written.export.ExportError, match="Blender cannot read it"):
        written.export.verify(compressed, ".blend")


def test_write_failures_are_one_line_export_errors(loopsmith, blank, mocap_dir, tmp_path):
    export = importlib.import_module(loopsmith.__name__ + ".bridge.export")
    obj = import_bvh(mocap_dir / CLIP)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    for suffix in export.FORMATS:
        with pytest.raises(export.ExportError, match=rf"^cannot be written as \{suffix}: [^\n]+$") as caught:
            export.write(obj, not_a_folder / f"loop{suffix}", suffix, START, END, 0.01)
        assert "Traceback" not in str(caught.value)
    with pytest.raises(export.ExportError, match=r"cannot write '\.obj' files"):
        export.write(obj, tmp_path / "loop.obj", ".obj", START, END, 0.01)
    obj.animation_data.action = None
    with pytest.raises(export.ExportError, match="has no action"):
        export.write(obj, tmp_path / "loop.bvh", ".bvh", START, END, 0.01)
