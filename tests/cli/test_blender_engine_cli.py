"""Engine profiles and root motion through the command line: files re-imported and read as an engine would."""

import json
import struct

import numpy as np
import pytest

from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]
bpy = pytest.importorskip("bpy")

WALK = "dataset-1_walk_normal_001.bvh"
STEM = "dataset-1_walk_normal_001_loop"
ENGINES = ("unreal", "unity", "godot", "gltf")


@pytest.fixture(scope="module")
def made(mocap_dir, tmp_path_factory):
    """The walk looped once per engine profile, each also as a .blend (the loop as it was in Blender, to compare with)."""
    runs = {}
    for engine in ENGINES:
        out = tmp_path_factory.mktemp(engine)
        suffix = ".fbx" if engine in ("unreal", "unity") else ".glb"
        result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", out, "--engine", engine, "--format", suffix[1:], "blend")
        assert result.returncode == 0, result.stderr
        entry = json.loads((out / "loopsmith_report.json").read_text())["entries"][0]
        runs[engine] = out / f"{STEM}{suffix}", out / f"{STEM}.blend", entry
    return runs


def _glb_json(path):
    data = path.read_bytes()
    length, kind = struct.unpack_from("<II", data, 12)
    assert data[:4] == b"glTF" and kind == 0x4E4F534A
    return json.loads(data[20:20 + length])


def _fbx_double(data, name):
    """A binary FBX property's double value (``P: "name", type, label, flags, value``), read from the bytes."""
    at = data.index(b"S" + struct.pack("<I", len(name)) + name.encode())
    at += 5 + len(name)
    for _ in range(3):  # the type, label and flags strings
        assert data[at:at + 1] == b"S"
        at += 5 + struct.unpack_from("<I", data, at + 1)[0]
    assert data[at:at + 1] == b"D"
    return struct.unpack_from("<d", data, at + 1)[0]


def _import(path):
    """The armature of a written file, imported with its first key where the file puts it (frame = seconds x fps)."""
    before = set(bpy.data.objects)
    if path.suffix == ".fbx":
        bpy.ops.import_scene.fbx(filepath=str(path), anim_offset=0.0)
    elif path.suffix == ".glb":
        bpy.ops.import_scene.gltf(filepath=str(path))
    else:
        with bpy.data.libraries.load(str(path)) as (source, target):
            target.objects = [name for name in source.objects]
        for obj in target.objects:
            bpy.context.scene.collection.objects.link(obj)
    return next(obj for obj in set(bpy.data.objects) - before if obj.type == "ARMATURE")


def _read(loopsmith, obj, names=None):
    """The armature's clip over its action's keys, and its world joint positions ``(F, B, 3)`` (in the order of ``names``).

    An imported FBX animates the armature object too: its clip has the object's channels on top.
    """
    first, last = (int(round(f)) for f in obj.animation_data.action.frame_range)
    clip = loopsmith.bridge.clip_io.read_clip(obj, first, last)
    positions = loopsmith.core.motion.kinematics.clip_joint_positions(clip)
    world = np.asarray(obj.matrix_world)
    positions = positions @ world[:3, :3].T + world[:3, 3]
    if names is not None:
        positions = positions[:, [clip.bone_names.index(name) for name in names]]
    return clip, positions


@pytest.mark.every_blender
@pytest.mark.parametrize("engine", ENGINES)
def test_each_profile_reimports_as_documented(loopsmith, blank, made, engine):
    written, blend, entry = made[engine]
    # The rig's own floor bone carries the travel; the files call it 'root', the armature keeps its name.
    assert entry["engine"] == engine and entry["root_motion"]["root"] == "joint_Root" and entry["engine_root"] == "root"
    obj = _import(written)
    action = obj.animation_data.action
    # One animation (glTF) or one take (FBX), named after the loop; Godot loops it because the name ends in 'loop'.
    if written.suffix == ".glb":
        document = _glb_json(written)
        (animation,) = document["animations"]
        assert animation["name"] == STEM
        accessors = document["accessors"]
        inputs = [accessors[sampler["input"]] for sampler in animation["samplers"]]
        assert min(a["min"][0] for a in inputs) == 0.0  # sampled from 0 s
        assert max(a["max"][0] for a in inputs) == pytest.approx(entry["length"] / 30.0, abs=1e-4)  # the Bandai clips' 30 fps
        assert max(a["count"] for a in inputs) == entry["length"] + 1
        nodes = {node["name"] for node in document["nodes"]}
        assert "root" in nodes
    else:
        data = written.read_bytes()
        assert data.count(b"\x00\x01AnimStack") == 1
        assert STEM.encode() + b"\x00\x01AnimStack" in data  # the take is named after the action
        # Unreal: centimetres (unit scale 1); Unity: metres (unit scale 100), so both import at scale 1.
        assert _fbx_double(data, "UnitScaleFactor") == (1.0 if engine == "unreal" else 100.0)
        assert [a.name for a in bpy.data.actions if a.users] == [action.name] and action.name.endswith(STEM)
        assert action.frame_range[0] == pytest.approx(0.0)  # the first key at time 0
        if engine == "unreal":  # the armature object is called 'Armature': Unreal's importer drops it instead of adding a bone
            assert obj.name == "Armature"
    assert [bone.name for bone in obj.data.bones if bone.parent is None] == ["root"]
    clip, positions = _read(loopsmith, obj)
    names = [name for name in clip.bone_names if name in obj.data.bones]
    positions = positions[:, [clip.bone_names.index(name) for name in names]]
    root, hips = names.index("root"), names.index("Hips")
    # The root carries the travel, the pelvis stays over it.
    travel = np.linalg.norm(positions[-1, root, :2] - positions[0, root, :2])
    assert travel >= 0.9 * np.linalg.norm(positions[-1, hips, :2] - positions[0, hips, :2]) and travel > 1.0
    assert np.linalg.norm(positions[:, hips, :2] - positions[:, root, :2], axis=-1).max() < 0.05
    assert np.abs(positions[:, root, 2]).max() < 1e-3  # on the floor
    # The loop closes as well as it did in Blender: the seam against the .blend's loop, each against its own accelerations.
    # The .blend keeps the rig's own name for the floor bone the files call 'root', and every action in it still plays on it.
    kept = _import(blend)
    with bpy.data.libraries.load(str(blend)) as (source, target):
        target.actions = list(source.actions)
    assert len(target.actions) == 2 and all(loopsmith.bridge.clip_io.action_problem(action, kept) is None for action in target.actions)
    original, original_positions = _read(loopsmith, kept, ["joint_Root" if name == "root" else name for name in names])
    before = loopsmith.core.measure.seam.seam_metrics(original, original.bone_names.index("joint_Root"))
    after = loopsmith.core.measure.seam.seam_metrics(clip, clip.bone_names.index("root"))
    assert clip.num_frames == original.num_frames == entry["length"] + 1
    assert after.visibility <= before.visibility + 0.02 and after.max_position_step < before.max_position_step + 1e-3, after.summary()
    assert np.abs(positions - original_positions).max() < 1e-3  # the same motion, to the file's precision


def _glb_frames(path):
    document = _glb_json(path)
    accessors = document["accessors"]
    return max(accessors[sampler["input"]]["count"] for sampler in document["animations"][0]["samplers"])


def _reimported(loopsmith, path):
    """A written file read back into Loopsmith: the bones whose last frame does not repeat the first, and the largest
    joint step from the last frame to the first over the largest step between two frames inside."""
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.render.fps = 30  # the file's rate: the importer keys frame = seconds x the scene's fps
    clip, positions = _read(loopsmith, _import(path))
    inside = np.linalg.norm(np.diff(positions, axis=0), axis=-1).max()
    return loopsmith.core.loop.make.non_repeating_bones(clip), np.linalg.norm(positions[0] - positions[-1], axis=-1).max() / inside


@pytest.mark.every_blender
def test_wrap_drops_the_closing_frame_only_when_every_bone_repeats(loopsmith, blank, mocap_dir, tmp_path):
    runs = {}
    for name, extra in (("travel", ()), ("in_place", ("--root-motion", "IN_PLACE")), ("clamp", ("--loop-mode", "CLAMP"))):
        out = tmp_path / name
        mode = () if name == "clamp" else ("--loop-mode", "WRAP")
        result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", out, "--engine", "gltf", *mode, *extra)
        assert result.returncode == 0, result.stderr
        runs[name] = json.loads((out / "loopsmith_report.json").read_text())["entries"][0], out / f"{STEM}.glb"
    (travel, travel_file), (in_place, in_place_file), (clamp, clamp_file) = runs["travel"], runs["in_place"], runs["clamp"]
    # A travelling root's last sample is the cycle's travel: kept, and the report says so.
    assert "closing frame is kept" in travel["loop_end"] and "'joint_Root'" in travel["loop_end"]
    assert _glb_frames(travel_file) == travel["length"] + 1
    # In place, every bone repeats: the n distinct frames, and the step from the last back to the first is an ordinary step.
    assert "leave out" in in_place["loop_end"] and _glb_frames(in_place_file) == in_place["length"]
    assert in_place["root_motion"]["root_share"] == 0.0
    _, wrap_step = _reimported(loopsmith, in_place_file)  # the last frame leads on to the first: no bone repeats there
    assert wrap_step < 1.0, wrap_step
    # CLAMP keeps the closing frame, equal to the first but for the root's travel.
    assert "loop_end" not in clamp and _glb_frames(clamp_file) == clamp["length"] + 1
    moving, _ = _reimported(loopsmith, clamp_file)
    assert moving == ["root"]


def test_root_motion_on_other_commands_and_a_bvh_output(loopsmith, blank, mocap_dir, tmp_path):
    happy = mocap_dir.parent / "bandai-actions" / "dataset-1_walk_happy_001.bvh"
    result = run_loopsmith("transition", mocap_dir / WALK, happy, "-o", tmp_path / "t", "--engine", "unreal", "--format", "fbx", "bvh")
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "t" / "loopsmith_report.json").read_text())["entries"][0]
    assert entry["root_motion"]["root_share"] > 0.9 and entry["engine"] == "unreal"
    written = tmp_path / "t" / f"{WALK[:-4]}_to_{happy.stem}"
    data = written.with_suffix(".fbx").read_bytes()
    assert data.count(b"\x00\x01AnimStack") == 1
    # A BVH is not an engine's format: it keeps the input's skeleton, names and layout, the travel now on its floor joint.
    info = loopsmith.core.formats.bvh.parse_bvh(written.with_suffix(".bvh").read_text())
    assert info.names[0] == "joint_Root" and info.frame_count == entry["frames"] and info.channels[0][0] == "Xposition"
    positions = loopsmith.core.formats.bvh.forward_kinematics(info)
    assert np.linalg.norm(positions[-1, 0, [0, 2]] - positions[0, 0, [0, 2]]) > 100.0  # centimetres, Y up: the root walks
    result = run_loopsmith("mirror", mocap_dir / WALK, "-o", tmp_path / "m", "--root-motion", "POSITION", "--root-height", "ROOT")
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "m" / "loopsmith_report.json").read_text())["entries"][0]
    assert entry["root_motion"]["mode"] == "POSITION" and entry["root_motion"]["root"] == "joint_Root" and "engine" not in entry
    assert entry["root_motion"]["root_share"] > 0.95 and entry["root_motion"]["world_error"] < 1e-6


def test_engine_options_are_checked_where_they_are_parsed(tmp_path, mocap_dir):
    for args, message in ((("--engine", "cryengine"), "invalid choice: 'cryengine'"),
                          (("--root-motion", "SIDEWAYS"), "invalid choice: 'SIDEWAYS'"),
                          (("--root-motion", "HEADING", "--root-smoothing", "-1"), "--root-smoothing: -1 must be at least 0"),
                          (("--root-height", "ROOT"), "--root-height only apply with --root-motion"),
                          (("--engine", "unreal", "--root-motion", "NONE", "--root-smoothing", "1"), "--root-smoothing only apply"),
                          (("--engine", "unreal", "--root-name", " "), "--root-name: the root bone needs a name"),
                          (("--engine", "unreal", "--root-name", "r" * 80), "longer than the 63 bytes")):
        result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", tmp_path, *args)
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    help_text = run_loopsmith("make-loop", "--help").stdout
    assert all(engine in help_text for engine in ENGINES) and "--root-motion" in help_text
