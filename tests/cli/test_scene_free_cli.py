"""Jobs that need no Blender scene never import Blender: a BVH read by the numpy reader or an AMC, written as BVH or AMC.

Each run is the real command line in a fresh Python, which then says whether ``bpy`` was imported. In the venv without
bpy the runs prove the jobs need only numpy; with bpy they prove it is not loaded (0.8-2.2 s and about 250 MB a run). A
file that needs a scene, in a Python without bpy, fails with one line that says so.
"""

import json
import subprocess
import sys

import pytest

from helpers import REPO

pytestmark = pytest.mark.realdata

BANDAI = REPO.parent / "shared" / "mocap" / "bandai"
CMU = REPO.parent / "shared" / "mocap" / "cmu-dance"
WALK = BANDAI / "dataset-1_walk_normal_001.bvh"
RUN_AND_TELL = ("import sys\nfrom loopsmith.pipeline.cli import main\nstatus = main(sys.argv[1:])\n"
                "print('BPY-LOADED' if 'bpy' in sys.modules else 'NO-BPY', status)\n")


def _run(*args):
    """``python -m loopsmith ARGS`` in a fresh Python: (exit status, whether bpy was imported, stderr)."""
    result = subprocess.run([sys.executable, "-c", RUN_AND_TELL, *map(str, args), "--quiet"], capture_output=True, text=True, timeout=300)
    told = result.stdout.strip().splitlines()[-1].split()
    return int(told[1]), told[0] == "BPY-LOADED", result.stderr


@pytest.fixture(scope="module", autouse=True)
def _shared_clips():
    if not (WALK.is_file() and (CMU / "05_01.amc").is_file()):
        pytest.skip(f"the shared clips are missing: {WALK.parent}, {CMU}")


@pytest.mark.parametrize("args", [
    ("make-loop", WALK, "--format", "bvh"),
    ("make-loop", CMU / "05_01.amc", "--range", "100", "339", "--format", "amc", "bvh"),
    ("convert", CMU / "05_02.amc", "--format", "bvh", "amc"),
    ("resample", WALK, "--fps", "60"),
    ("blend", WALK, BANDAI / "dataset-1_walk_normal_002.bvh", "--weight", "0.5"),
    ("transition", WALK, BANDAI / "dataset-1_run_normal_001.bvh"),
    ("graph", WALK, BANDAI / "dataset-1_walk_normal_002.bvh", BANDAI / "dataset-1_run_normal_001.bvh"),
], ids=lambda args: " ".join(str(a) for a in args[:1] + args[2:]))
def test_a_bvh_or_amc_job_runs_without_blender(args, tmp_path):
    status, loaded, errors = _run(*args, "-o", tmp_path)
    assert status == 0 and not loaded, errors
    report = json.loads((tmp_path / "loopsmith_report.json").read_text())
    assert [entry["verdict"] for entry in report["entries"]] != [] and all(entry["verdict"] != "FAILED" for entry in report["entries"])
    written = {path.suffix for path in tmp_path.iterdir()} - {".json", ".html", ".asf"}
    expected = args[args.index("--format") + 1:] if "--format" in args else [] if args[0] == "graph" else ["bvh"]
    assert written == {"." + suffix for suffix in expected}


def test_without_blender_a_job_that_needs_a_scene_says_so(tmp_path):
    if _importable("bpy"):
        pytest.skip("this Python has bpy")
    status, _, errors = _run("make-loop", WALK, "--format", "glb", "-o", tmp_path)
    assert status == 1 and errors.strip().splitlines()[-1] == (
        f"loopsmith: {WALK}: needs Blender, and this Python has no bpy module: run it with the bpy module or in Blender")


@pytest.mark.blender
@pytest.mark.parametrize("needs_scene", [False, True], ids=["bvh to bvh", "bvh to glb"])
def test_with_blender_there_only_a_job_that_needs_a_scene_loads_it(needs_scene, tmp_path):
    pytest.importorskip("bpy")
    status, loaded, errors = _run("make-loop", WALK, "--format", "glb" if needs_scene else "bvh", "-o", tmp_path)
    assert status == 0 and loaded == needs_scene, errors


def _importable(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


@pytest.mark.blender
def test_a_transition_without_a_scene_writes_what_the_scene_writes(tmp_path):
    """The same transition, its report entry the same but for timings, and its BVH within the float32 rounding of the
    action's keys the scene path writes from (1.2e-4 of a centimetre or a degree here; 1e-3 allowed)."""
    pytest.importorskip("bpy")
    from core.formats import bvh

    other = BANDAI / "dataset-1_run_normal_001.bvh"
    runs = {}
    for name, formats in (("free", ["bvh"]), ("scene", ["bvh", "glb"])):
        status, loaded, errors = _run("transition", WALK, other, "--format", *formats, "-o", tmp_path / name)
        assert status == 0 and loaded == (name == "scene"), errors
        entry = json.loads((tmp_path / name / "loopsmith_report.json").read_text())["entries"][0]
        runs[name] = entry, bvh.read_bvh(tmp_path / name / f"{WALK.stem}_to_{other.stem}.bvh")
    (free, free_bvh), (scene, scene_bvh) = runs["free"], runs["scene"]
    # Not compared: timings, the outputs each run lists, the figure the page plays (the scene's from float32 keys).
    differ = {"seconds", "import_seconds", "run", "figure", "outputs"}
    assert {key: value for key, value in free.items() if key not in differ} == {key: value for key, value in scene.items() if key not in differ}
    assert free_bvh.motion.shape == scene_bvh.motion.shape and abs(free_bvh.motion - scene_bvh.motion).max() < 1e-3


def test_a_one_frame_take_to_leave_is_one_line(tmp_path):
    lines = WALK.read_text().splitlines()
    motion = next(k for k, line in enumerate(lines) if line.startswith("Frame Time"))
    one = tmp_path / "one.bvh"
    one.write_text("\n".join(lines[:motion - 1] + ["Frames: 1", lines[motion], lines[motion + 1]]) + "\n")
    status, _, errors = _run("transition", one, BANDAI / "dataset-1_run_normal_001.bvh", "-o", tmp_path / "out")
    assert status == 1 and errors.strip().splitlines()[-1] == (
        f"loopsmith: {one}: FROM (one.bvh) has 1 frame, fewer than the 2 a transition out of it needs")
