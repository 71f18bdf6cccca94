"""The pipeline's Loopsmith: the batch command line and its reports."""

import json
import pathlib
import subprocess
import sys

import pytest

from helpers import GAIT_CLIPS, import_bvh, run_loopsmith as _run

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def batch(mocap_dir, tmp_path_factory):
    """The whole Bandai folder plus broken files, looped once with two workers."""
    inputs = tmp_path_factory.mktemp("inputs")
    (inputs / "truncated.bvh").write_text((mocap_dir / "dataset-1_walk_normal_001.bvh").read_text()[:3000])
    (inputs / "notes.bvh").write_text("not motion capture\n")
    out = tmp_path_factory.mktemp("out")
    result = _run("make-loop", mocap_dir, inputs, "-o", out, "--jobs", "2")
    report = json.loads((out / "loopsmith_report.json").read_text())
    return result, report, out


@pytest.mark.realdata
def test_batch_loops_every_clip_and_names_the_broken_ones(batch, mocap_dir):
    result, report, out = batch
    assert result.returncode == 1, result.stderr
    entries = {pathlib.Path(entry["file"]).name: entry for entry in report["entries"]}
    assert len(entries) == 15
    for name in ("truncated.bvh", "notes.bvh"):
        assert entries[name]["status"] == "error" and "cannot be read" in entries[name]["error"]
        assert f"{name}: cannot be read" in result.stderr
    looped = [entry for entry in entries.values() if entry["status"] == "ok"]
    assert len(looped) == 13
    assert "Traceback" not in result.stderr
    assert not [p for p in out.iterdir() if "partial" in p.name]
    assert sorted(p.name for p in out.glob("*.bvh")) == sorted(f"{pathlib.Path(e['file']).stem}_loop.bvh" for e in looped)
    html = (out / "loopsmith_report.html").read_text()
    assert html.count("<svg") >= 2 * len(GAIT_CLIPS) and "notes.bvh" in html
    assert "13 looped, 2 failed" in result.stdout


@pytest.mark.every_blender
@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(GAIT_CLIPS))
def test_batch_outputs_are_seamless_loops(loopsmith, blank, batch, name):
    _, report, out = batch
    entry = next(e for e in report["entries"] if e["file"].endswith(name))
    assert entry["seam_after"]["visibility"] <= 1.0 and entry["seam_after"]["max_step_m"] < 1e-4
    obj = import_bvh(out / f"{pathlib.Path(name).stem}_loop.bvh")  # Y up, like the input
    clip = loopsmith.bridge.clip_io.read_clip(obj)
    assert clip.num_frames == entry["length"] + 1
    root = loopsmith.core.motion.root.find_moving_root(clip)
    seam = loopsmith.core.measure.seam.seam_metrics(clip, root)
    assert seam.max_position_step < 1e-4 and seam.visibility <= 1.0, seam.summary()


@pytest.mark.realdata
def test_one_worker_and_two_agree(batch, mocap_dir, tmp_path):
    _, report, _ = batch
    picked = [mocap_dir / "dataset-1_run_happy_001.bvh", mocap_dir / "dataset-1_walk_normal_002.bvh"]
    result = _run("make-loop", *picked, "-o", tmp_path, "--quiet")
    assert result.returncode == 0, result.stderr
    single = json.loads((tmp_path / "loopsmith_report.json").read_text())["entries"]
    for entry in single:
        twin = next(e for e in report["entries"] if e["file"] == entry["file"])
        assert entry["range"] == twin["range"] and entry["seam_after"] == twin["seam_after"]


def _entries(out):
    return {pathlib.Path(entry["file"]).name: entry for entry in json.loads((out / "loopsmith_report.json").read_text())["entries"]}


@pytest.mark.realdata
def test_the_default_method_is_measured_and_reported_and_a_given_one_obeyed(mocap_dir, tmp_path):
    right, left = mocap_dir / "dataset-1_walk-right_normal_001.bvh", mocap_dir / "dataset-1_walk-left_normal_001.bvh"
    made = _run("make-loop", right, left, "--cycles", "2", "-o", tmp_path / "auto", "--quiet")
    assert made.returncode == 0, made.stderr
    entries = _entries(tmp_path / "auto")
    entry = entries[right.name]
    tried = {trial.pop("method"): trial for trial in entry["methods_tried"]}
    assert list(tried) == ["CUBIC", "CROSSFADE", "SOFTFADE", "SPRING"]
    # The crossfade plays this two-cycle walk least visibly (its leg no longer pops); locked, its feet slide at the seam:
    # AUTO, which makes each method with the feet locked and without, keeps it without (locked, cubic's seam plays at 1.07).
    assert entry["method"] == entry["method_chosen"] == "CROSSFADE" and entry["seam_after"] == tried["CROSSFADE"]
    assert not entry["feet_locked"] and entry["seam_after"]["visibility"] <= 1.0
    assert entry["seam_after"]["visibility"] <= min(t["visibility"] for t in tried.values()) + 0.1  # AUTO's tie
    assert entry["verdict"]["word"] == "GOOD" and "FAIR / crossfade (auto)" in made.stdout
    # A cut Find Loop grades POOR whose loop is fine says both.
    assert entries[left.name]["grade"] == "POOR" and entries[left.name]["loop_fine"] and "POOR cut, loop fine" in made.stdout
    page = (tmp_path / "auto" / "loopsmith_report.html").read_text()
    assert "POOR cut, loop fine" in page and "crossfade, the least visible of those made whose own verdict is best" in page
    assert "feet not locked" in page
    assert f"cubic {tried['CUBIC']['visibility']:.2f}, {tried['CUBIC']['max_velocity_jump_m_per_s']:.2f} m/s" in page

    given = _run("make-loop", right, "--cycles", "2", "--method", "CUBIC", "--no-lock-feet", "-o", tmp_path / "cubic", "--quiet")
    assert given.returncode == 0, given.stderr
    cubic = _entries(tmp_path / "cubic")[right.name]
    assert cubic["method"] == "CUBIC" and "methods_tried" not in cubic and cubic["seam_after"] == tried["CUBIC"]
    assert "FAIR / cubic " in given.stdout and "(auto)" not in given.stdout


def test_usage_errors_exit_with_2(tmp_path):
    assert _run("make-loop", tmp_path, "-o", tmp_path / "out").returncode == 2  # nothing to loop
    assert _run("make-loop", tmp_path, "--jobs", "0").returncode == 2
    assert _run("make-loop", tmp_path, "--method", "WIGGLE").returncode == 2
    refused = _run("make-loop", tmp_path, "--crossfade", "0.5", "--halflife-start", "0.2")  # one method's options, with the default AUTO
    assert refused.returncode == 2 and "--halflife-start (SPRING), --crossfade (CROSSFADE) only apply with that --method" in refused.stderr
    assert "only appl" not in _run("make-loop", tmp_path, "--method", "CROSSFADE", "--crossfade", "0.5").stderr
    assert _run("frobnicate").returncode == 2


def _demo_blend(loopsmith, path):
    generated = loopsmith.core.demo.walk_cycle()
    obj = loopsmith.bridge.armature.create_armature(bpy.context, generated.clip, "Walker")
    loopsmith.bridge.clip_io.write_clip(obj, generated.clip, "walk")
    bpy.ops.wm.save_as_mainfile(filepath=str(path))


@pytest.mark.every_blender
def test_blend_input_to_every_output_format(loopsmith, blank, tmp_path):
    source = tmp_path / "walker.blend"
    _demo_blend(loopsmith, source)
    formats = ("blend", "glb", "fbx", "bvh")
    result = _run("make-loop", source, "-o", tmp_path / "out", "--format", *formats, "--range", "10", "74", "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    for output in formats:
        written = tmp_path / "out" / f"walker_loop.{output}"
        assert written.is_file() and written.stat().st_size > 1000
    entry = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][0]
    assert entry["range"] == [10, 74] and entry["root_bone"] == "Hips" and entry["seam_after"]["max_step_m"] < 1e-6
    # The FBX and glTF files made here are inputs too: every armature in them loops again.
    again = _run("make-loop", tmp_path / "out" / "walker_loop.fbx", tmp_path / "out" / "walker_loop.glb", "-o", tmp_path / "again", "--quiet", "--whole")
    assert again.returncode == 0, again.stdout + again.stderr
    entries = json.loads((tmp_path / "again" / "loopsmith_report.json").read_text())["entries"]
    assert {pathlib.Path(e["file"]).suffix for e in entries} == {".fbx", ".glb"} and all(e["status"] == "ok" for e in entries)
    assert (tmp_path / "again" / "walker_loop_loop.fbx").is_file() and (tmp_path / "again" / "walker_loop_loop.glb").is_file()


@pytest.mark.every_blender
def test_blender_batch_script_runs_the_same_job(loopsmith, blank, tmp_path):
    source = tmp_path / "walker.blend"
    _demo_blend(loopsmith, source)
    script = REPO / "tools" / "blender_batch.py"
    result = subprocess.run([sys.executable, str(script), "--", "make-loop", str(source), "-o", str(tmp_path / "out"), "--quiet"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0 and (tmp_path / "out" / "walker_loop.blend").is_file(), result.stderr


@pytest.mark.every_blender
def test_extension_registers_the_blender_command(loopsmith):
    assert loopsmith._cli_command is not None
