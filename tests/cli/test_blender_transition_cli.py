"""``python -m loopsmith transition FROM TO``: one clip into another, with make-loop's guarantees."""

import json
import pathlib
import shutil

import numpy as np
import pytest

from core.formats import bvh
from helpers import bvh_z_up, run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

WALK = "dataset-1_walk_normal_001.bvh"
RUN = "dataset-1_run_happy_001.bvh"


def _entry(folder):
    return json.loads((pathlib.Path(folder) / "loopsmith_report.json").read_text())["entries"][0]


@pytest.fixture(scope="module")
def walk_to_run(mocap_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("walk_to_run")
    result = run_loopsmith("transition", mocap_dir / WALK, mocap_dir / RUN, "-o", out, "--format", "bvh", "glb", "--quiet")
    return result, out


def test_a_transition_is_written_with_its_window_and_numbers(walk_to_run, mocap_dir):
    result, out = walk_to_run
    assert result.returncode == 0, result.stdout + result.stderr
    entry = _entry(out)
    stem = "dataset-1_walk_normal_001_to_dataset-1_run_happy_001"
    assert entry["outputs"] == [str(out / f"{stem}.bvh"), str(out / f"{stem}.glb")]
    written, source = bvh.read_bvh(out / f"{stem}.bvh"), bvh.read_bvh(mocap_dir / WALK)
    t = entry["transition"]
    first, last = t["window"]
    assert written.frame_count == entry["frames"] and 0 <= first <= last < entry["frames"]
    assert written.channels == source.channels  # FROM's layout
    # Before the window the file is FROM as captured: the blend changed only the frames it names.
    before = bvh.forward_kinematics(written, np.arange(first)) - bvh.forward_kinematics(source, np.arange(first))
    assert np.abs(before).max() < 0.05  # centimetres
    metrics = t["metrics"]
    assert metrics["visibility"] <= 1.2 and metrics["root_speed_jump"] <= metrics["clips_root_speed_jump"] + 1e-6
    assert t["candidates"] and (t["candidates"][0]["from_frame"], t["candidates"][0]["to_frame"]) != (None, None)
    assert "1 made, 0 failed" in result.stdout and "Traceback" not in result.stderr


def test_the_report_shows_the_distance_map_with_the_point_and_path(walk_to_run):
    _, out = walk_to_run
    page = (out / "loopsmith_report.html").read_text()
    assert 'href="data:image/png;base64,' in page and 'class="chosen"' in page
    assert 'class="path"' in page or _entry(out)["transition"]["path"] is None


def test_given_frames_are_used(mocap_dir, tmp_path):
    result = run_loopsmith("transition", mocap_dir / WALK, mocap_dir / RUN, "-o", tmp_path, "--at", "150", "30", "--method", "INERTIALIZE",
                           "--length", "0.4", "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    t = _entry(tmp_path)["transition"]
    assert (t["from_frame"], t["to_frame"], t["method"], t["candidates"]) == (150, 30, "INERTIALIZE", [])
    assert t["length_s"] == pytest.approx(0.4)


@pytest.mark.parametrize("arguments, named", [
    (["{walk}"], "two files"),
    (["{walk}", "{folder}"], "two files"),
    (["{walk}", "{run}", "--at", "5"], "--at"),
    (["{walk}", "{run}", "--at", "x", "y"], "--at"),
    (["{walk}", "{run}", "--length", "-1"], "--length"),
    (["{walk}", "{run}", "--joints", "legs"], "--joints"),
    (["{walk}", "{run}", "--method", "WIGGLE"], "--method"),
    (["{walk}", "{run}", "--method", "INERTIALIZE", "--no-timewarp"], "--no-timewarp"),
    (["{walk}", "{run}", "--at", "100", "20", "--joints", "lower"], "--joints"),
])
def test_usage_errors_name_the_option(mocap_dir, tmp_path, arguments, named):
    paths = {"walk": mocap_dir / WALK, "run": mocap_dir / RUN, "folder": mocap_dir}
    result = run_loopsmith("transition", *[a.format(**paths) for a in arguments], "-o", tmp_path / "out")
    assert result.returncode == 2 and named in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_a_bad_target_file_is_named_and_the_inputs_are_untouched(mocap_dir, tmp_path):
    walk = shutil.copyfile(mocap_dir / WALK, tmp_path / "walk.bvh")
    broken = tmp_path / "broken.bvh"
    broken.write_text("HIERARCHY\nROOT Hips\n{\n")
    before = walk.read_bytes(), broken.read_bytes()
    result = run_loopsmith("transition", walk, broken, "-o", tmp_path, "--quiet")
    assert result.returncode == 1 and f"{broken}: cannot be read" in result.stderr and "Traceback" not in result.stderr
    assert (walk.read_bytes(), broken.read_bytes()) == before
    assert not [p for p in tmp_path.iterdir() if "partial" in p.name or p.name.startswith("walk_to_")]


def test_a_target_standing_along_another_axis_is_blended_upright(mocap_dir, tmp_path):
    (tmp_path / "run_z_up.bvh").write_text(bvh.to_text(bvh_z_up(bvh.read_bvh(mocap_dir / RUN))))
    result = run_loopsmith("transition", mocap_dir / WALK, tmp_path / "run_z_up.bvh", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    written = bvh.read_bvh(next((tmp_path / "out").glob("*.bvh")))
    head = bvh.forward_kinematics(written)[:, written.names.index("Head")]
    assert head[:, 1].min() > 100  # centimetres above the floor on every frame: the run was re-expressed in the walk's rest
    assert _entry(tmp_path / "out")["transition"]["metrics"]["visibility"] <= 1.2


def test_fbx_and_glb_clips_blend_with_bvh_ones(walk_to_run, mocap_dir, tmp_path):
    _, out = walk_to_run
    glb = next(out.glob("*.glb"))
    assert run_loopsmith("transition", mocap_dir / WALK, mocap_dir / RUN, "-o", tmp_path, "--format", "fbx", "--quiet").returncode == 0
    fbx = next(tmp_path.glob("*.fbx"))
    for source, target in ((fbx, mocap_dir / RUN), (mocap_dir / WALK, glb)):
        result = run_loopsmith("transition", source, target, "-o", tmp_path / "again", "--format", "bvh", "--quiet")
        assert result.returncode == 0, result.stdout + result.stderr  # an importer's end bones and a still object do not block


def test_a_time_warped_crossfade_keeps_the_roots_own_speed(mocap_dir, tmp_path):
    dash = mocap_dir.parent / "bandai-actions" / "dataset-1_dash_happy_001.bvh"
    result = run_loopsmith("transition", mocap_dir / WALK, dash, "-o", tmp_path, "--method", "CROSSFADE", "--length", "1.0",
                           "--at", "120", "30", "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    metrics = _entry(tmp_path)["transition"]["metrics"]
    assert metrics["root_speed_jump"] <= metrics["clips_root_speed_jump"]  # the warp times the body, not the travel


@pytest.mark.parametrize("source, target", [("dataset-1_walk-back_masculinity_001.bvh", "../bandai-actions/dataset-1_walk_happy_001.bvh"),
                                            ("../bandai-actions/dataset-1_walk_happy_001.bvh", "dataset-1_walk-back_masculinity_001.bvh")])
def test_takes_whose_rests_differ_keep_the_body_on_the_floor(mocap_dir, tmp_path, source, target):
    """The pelvis's rest offset of one take holds where it starts (4.5 m back): the written file stands on the floor throughout."""
    result = run_loopsmith("transition", mocap_dir / source, mocap_dir / target, "-o", tmp_path, "--format", "bvh")
    assert result.returncode == 0, result.stdout + result.stderr
    entry = _entry(tmp_path)
    metrics = entry["transition"]["metrics"]
    assert metrics["floor_offset"] < 0.05 and metrics["pelvis_offset"] < 0.05, metrics
    assert "off the floor" not in result.stdout
    written = bvh.read_bvh(next(tmp_path.glob("*.bvh")))
    joints = bvh.forward_kinematics(written)
    toes = [written.names.index(name) for name in ("Toes_L", "Toes_R")]
    lowest = joints[:, toes, 1].min(axis=1)  # centimetres, Y up
    assert lowest.max() < 20 and lowest.min() > -5  # on the floor on every frame (the lifted take had 360-370 cm)
    hips = joints[:, written.names.index("Hips"), 1]
    assert 70 < hips.min() and hips.max() < 110
