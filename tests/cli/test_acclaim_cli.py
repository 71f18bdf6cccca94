"""Acclaim ASF/AMC on the command line, on CMU's own dance takes: every command reads them, ``--format amc`` writes them,
``convert`` changes the format and never the motion, and bad input gets one line naming the file."""

import json
import shutil

import numpy as np
import pytest

from core.formats import acclaim, bvh, bvh_clip
from core.motion import kinematics
from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]
bpy = pytest.importorskip("bpy")

TOLERANCE = 1e-4  # metres: every joint on every frame, after a round trip through the files
SAME_VISIBILITY = 1.1  # a junction no more visible than the takes' own ordinary stretches (core.measure.verdict.SAME)


def _report(folder):
    return json.loads((folder / "loopsmith_report.json").read_text())["entries"]


def _run(*args):
    """``python -m loopsmith ARGS --quiet``, which must succeed without a traceback; its report's entries."""
    result = run_loopsmith(*args, "--quiet")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def _joints(clip):
    """World joint positions ``(F, B, 3)`` by bone name order of ``clip``."""
    return kinematics.clip_joint_positions(clip)


def _largest_difference(clip, other):
    """The largest distance between two clips' joints of the same name, over every frame (both must hold as many)."""
    assert clip.num_frames == other.num_frames
    names = [name for name in clip.bone_names if name in other.bone_names]
    assert len(names) == len(clip.bone_names)
    ours = _joints(clip)[:, [clip.bone_names.index(name) for name in names]]
    theirs = _joints(other)[:, [other.bone_names.index(name) for name in names]]
    return float(np.linalg.norm(ours - theirs, axis=-1).max())


@pytest.fixture(scope="module")
def original(cmu):
    return acclaim.read_acclaim(cmu / "05.asf", cmu / "05_01.amc")


def test_amc_to_bvh_and_back_to_amc_keeps_every_joint(cmu, original, tmp_path):
    _run("convert", cmu / "05_01.amc", "--format", "bvh", "-o", tmp_path / "bvh")
    written = tmp_path / "bvh" / "05_01.bvh"
    (entry,) = _report(tmp_path / "bvh")
    assert entry["verdict"]["word"] == "GOOD" and entry["import"]["amc_fps"] == 120.0
    assert entry["import"]["asf"] == str(cmu / "05.asf")
    info = bvh.read_bvh(written)
    assert info.frame_count == 598 and abs(info.frame_time - 1.0 / 120.0) < 1e-9
    assert _largest_difference(original, bvh_clip.clip_from_bvh(info, acclaim.read_asf(cmu / "05.asf").metres_per_unit, "Y")) < TOLERANCE

    _run("convert", written, "--asf", cmu / "05.asf", "--format", "amc", "-o", tmp_path / "amc")
    (entry,) = _report(tmp_path / "amc")
    assert entry["verdict"]["word"] == "GOOD" and entry["asf_output"] == str(tmp_path / "amc" / "05.asf")
    back = acclaim.read_acclaim(tmp_path / "amc" / "05.asf", tmp_path / "amc" / "05_01.amc")
    error = _largest_difference(original, back)
    print(f"AMC -> BVH -> AMC: largest joint difference {error:.3g} m")
    assert error < TOLERANCE


@pytest.mark.every_blender
def test_amc_to_fbx_and_glb_reimported_keeps_every_joint(cmu, original, tmp_path):
    _run("convert", cmu / "05_01.amc", "--format", "fbx", "glb", "-o", tmp_path / "engine")
    (entry,) = _report(tmp_path / "engine")
    assert entry["verdict"]["word"] == "GOOD"
    for name in ("05_01.fbx", "05_01.glb"):  # read back by the job with the importers every command uses
        found = entry["read_back"][str(tmp_path / "engine" / name)]
        print(f"AMC -> {name}: re-imported joints within {found['joints_m']:.3g} m")
        assert found["joints_m"] < TOLERANCE and found["frames"] == 598 and found["bones"] == 31
    # And independently: the FBX and GLB converted to BVH (metres, Y up), held against the AMC read by the core.
    _run("convert", tmp_path / "engine" / "05_01.fbx", tmp_path / "engine" / "05_01.glb", "--format", "bvh", "-o", tmp_path / "back")
    for name in ("05_01-fbx.bvh", "05_01-glb.bvh"):
        clip = bvh_clip.clip_from_bvh(bvh.read_bvh(tmp_path / "back" / name), 1.0, "Y")
        error = _largest_difference(original, clip)
        print(f"AMC -> {name.split('-')[1][:3]} -> BVH: largest joint difference {error:.3g} m")
        assert error < TOLERANCE


def test_make_loop_on_a_dance_take_gives_a_loop(cmu, tmp_path):
    _run("make-loop", cmu / "05_03.amc", "-o", tmp_path)
    (entry,) = _report(tmp_path)
    print(f"make-loop 05_03.amc: {entry['verdict']['word']} {entry['verdict']['reasons']}")
    assert entry["status"] == "ok" and (tmp_path / "05_03_loop.amc").is_file()


def test_compose_the_dance_takes_trimmed(cmu, tmp_path):
    _run("compose", cmu / "05_01.amc", cmu / "05_02.amc", cmu / "05_03.amc", "--trim", "-o", tmp_path)
    (entry,) = _report(tmp_path)
    visibilities = [junction["metrics"]["visibility"] for junction in entry["transitions"]]
    print(f"compose 05_01 05_02 05_03 --trim: junction visibilities {visibilities}, verdict {entry['verdict']['word']}")
    assert len(visibilities) == 2
    assert max(visibilities) <= SAME_VISIBILITY, entry["verdict"]["reasons"]


def _one_line_failure(result, path):
    lines = [line for line in result.stderr.splitlines() if line.startswith("loopsmith: ")]
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1 and str(path) in lines[0], result.stderr
    return lines[0]


def test_bad_acclaim_input_is_one_line(cmu, tmp_path):
    lonely = tmp_path / "lonely" / "take_01.amc"
    lonely.parent.mkdir()
    shutil.copy(cmu / "05_01.amc", lonely)
    line = _one_line_failure(run_loopsmith("convert", lonely, "--format", "bvh", "-o", tmp_path / "out1", "--quiet"), lonely)
    assert "take.asf" in line and str(lonely.parent) in line and "--asf" in line

    truncated = tmp_path / "truncated" / "05_01.amc"
    truncated.parent.mkdir()
    shutil.copy(cmu / "05.asf", truncated.parent)
    truncated.write_bytes((cmu / "05_01.amc").read_bytes()[:200_000])
    line = _one_line_failure(run_loopsmith("convert", truncated, "--format", "bvh", "-o", tmp_path / "out2", "--quiet"), truncated)
    assert "line" in line and "truncated" in line

    binary = tmp_path / "binary.asf"
    binary.write_bytes(bytes(range(256)) * 8)
    result = run_loopsmith("convert", cmu / "05_01.amc", "--asf", binary, "--format", "bvh", "-o", tmp_path / "out3", "--quiet")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("loopsmith convert: error: --asf ") and str(binary) in result.stderr


def test_acclaim_options_without_an_amc_are_refused(mocap_dir, tmp_path):
    walk = mocap_dir / "dataset-1_walk_normal_002.bvh"
    for extra in (("--asf", "05.asf"), ("--amc-fps", "60")):
        result = run_loopsmith("convert", walk, *extra, "--format", "fbx", "-o", tmp_path, "--quiet")
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert extra[0] in result.stderr.strip().splitlines()[-1]
    result = run_loopsmith("convert", walk, "--format", "amc", "-o", tmp_path, "--quiet")
    assert result.returncode == 2 and "--asf" in result.stderr and "Traceback" not in result.stderr
