"""The numpy BVH reader behind the command line: the loops Blender's importer gives, with or without a scene."""

import json
import pathlib

import numpy as np
import pytest

from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata, pytest.mark.every_blender]  # Blender's BVH importer
bpy = pytest.importorskip("bpy")

RANGE = ("--range", "2", "20")  # inside every real clip (the shortest has 24 frames)
# Metres. The read poses agree within 1e-5 m (tests/realdata/test_realdata_bvh_reader.py); Blender's path keeps keys and exports
# in float32, which puts a few micrometres of noise on its loops (6e-6 m measured on the gait clips).
POSE_TOLERANCE = 3e-5


@pytest.fixture(scope="module")
def runs(mocap_dir, tmp_path_factory):
    """make-loop over every real clip three ways: Blender's importer, the numpy reader without a scene (BVH out only), and
    the numpy reader building the armature in bulk (a .blend output needs the scene)."""
    folders = [mocap_dir, mocap_dir.parent / "bandai-actions"]
    found = {}
    for label, extra in (("blender", ("--bvh-reader", "blender")), ("numpy", ()), ("scene", ("--format", "bvh", "blend"))):
        out = tmp_path_factory.mktemp(label)
        result = run_loopsmith("make-loop", *folders, "-o", out, *RANGE, "--quiet", "--jobs", "2", *extra)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        report = json.loads((out / "loopsmith_report.json").read_text())
        found[label] = (out, {pathlib.Path(entry["file"]).name: entry for entry in report["entries"]})
    return found


def _positions(loopsmith, path, scale):
    """World positions (metres, file axes) of every joint and End Site on every frame of the BVH at ``path``."""
    return loopsmith.core.formats.bvh.forward_kinematics(loopsmith.core.formats.bvh.read_bvh(path)) * scale


@pytest.mark.parametrize("label", ["numpy", "scene"])
def test_numpy_reader_loops_every_clip_as_blenders_importer_does(loopsmith, runs, label):
    _, reference = runs["blender"]
    _, entries = runs[label]
    assert entries.keys() == reference.keys() and len(entries) == 19
    for name, entry in entries.items():
        expected = reference[name]
        assert entry["status"] == "ok", entry
        assert entry["import"]["reader"] == "numpy" and expected["import"]["reader"] == "blender"
        for key in ("armature", "action", "range", "length", "root_mode", "root_bone"):
            assert entry[key] == expected[key], (name, key)
        for seam in ("seam_before", "seam_after"):
            for metric, value in entry[seam].items():
                # Ratios to the clip's own smallest accelerations: float32 keys (Blender's) move them by up to 0.5%.
                assert value == pytest.approx(expected[seam][metric], rel=1e-2, abs=1e-3), (name, seam, metric)


@pytest.mark.parametrize("label", ["numpy", "scene"])
def test_numpy_reader_writes_the_same_poses(loopsmith, runs, label):
    blender_out, reference = runs["blender"]
    out, entries = runs[label]
    worst = 0.0
    for name, entry in entries.items():
        written = pathlib.Path(entry["outputs"][0]).name
        assert written.endswith("_loop.bvh")
        scale = entry["import"]["bvh_scale"]
        ours, theirs = _positions(loopsmith, out / written, scale), _positions(loopsmith, blender_out / written, scale)
        assert ours.shape == theirs.shape, name
        worst = max(worst, float(np.abs(ours - theirs).max()))
    assert worst < POSE_TOLERANCE, f"the numpy reader's loops differ by {worst:.3g} m ({label})"


def test_scene_free_run_writes_only_what_it_lists(runs):
    out, entries = runs["numpy"]
    assert sorted(p.name for p in out.glob("*.bvh")) == sorted(pathlib.Path(e["outputs"][0]).name for e in entries.values())
    assert not [p for p in out.iterdir() if "partial" in p.name]


@pytest.mark.parametrize("edit", [("resample", "--fps", "60"), ("mirror",)])
def test_scene_free_edits_match_blenders_path(loopsmith, mocap_dir, tmp_path, edit):
    clips = [mocap_dir / "dataset-1_walk_normal_001.bvh", mocap_dir / "dataset-1_run_normal_001.bvh"]
    found = {}
    for label, extra in (("blender", ("--bvh-reader", "blender")), ("numpy", ())):
        out = tmp_path / label
        result = run_loopsmith(*edit, *clips, "-o", out, "--quiet", *extra)
        assert result.returncode == 0, result.stderr
        found[label] = (out, {pathlib.Path(e["file"]).name: e for e in json.loads((out / "loopsmith_report.json").read_text())["entries"]})
    (blender_out, reference), (out, entries) = found["blender"], found["numpy"]
    for name, entry in entries.items():
        expected = reference[name]
        assert entry["import"]["reader"] == "numpy"
        for key in ("armature", "action", "edit"):
            assert entry[key] == expected[key], (name, key)
        written = pathlib.Path(entry["outputs"][0]).name
        ours = loopsmith.core.formats.bvh.read_bvh(out / written)
        theirs = loopsmith.core.formats.bvh.read_bvh(blender_out / written)
        assert ours.frame_time == theirs.frame_time and ours.frame_count == theirs.frame_count, name
        scale = entry["import"]["bvh_scale"]
        worst = np.abs(loopsmith.core.formats.bvh.forward_kinematics(ours) - loopsmith.core.formats.bvh.forward_kinematics(theirs)).max() * scale
        assert worst < POSE_TOLERANCE, (name, worst)


def test_an_up_axis_that_cannot_be_found_can_be_given(loopsmith, mocap_dir, tmp_path):
    bvh = loopsmith.core.formats.bvh
    info = bvh.read_bvh(mocap_dir / "dataset-1_walk_normal_002.bvh")
    lying = tmp_path / "lying.bvh"
    lying.write_text(bvh.change_axes(bvh.to_text(info), np.array([[0.0, 1, 0], [-1, 0, 0], [0, 0, 1]])))  # stands along X
    refused = run_loopsmith("make-loop", lying, "-o", tmp_path / "out", "--whole", "--quiet")
    assert refused.returncode == 1 and "stands along X" in refused.stderr and "--bvh-up Y or Z" in refused.stderr
    given = run_loopsmith("make-loop", lying, "-o", tmp_path / "out", "--whole", "--quiet", "--bvh-up", "Y")
    assert given.returncode == 0, given.stderr
    [entry] = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"]  # the earlier failure is gone
    assert entry["import"]["up_axis"] == "Y" and entry["status"] == "ok"
