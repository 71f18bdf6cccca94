"""What the command line guarantees: no input or earlier output is ever lost, and no option misleads.

Each test is a case that went wrong once (an input overwritten, a corrupt
file reported "ok", Ctrl-C turned into a failed file...). They run the real
command in a fresh process, as a pipeline would.
"""

import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from core.formats import bvh
from helpers import bvh_in_units, bvh_z_up, interruptible, run_loopsmith

pytestmark = pytest.mark.blender

WALK = "dataset-1_walk_normal_001.bvh"
RUN = "dataset-1_run_happy_001.bvh"
CYCLE = "dataset-1_run_normal_001.bvh"


def _copy(mocap_dir, name, target):
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(mocap_dir / name, target)
    return target


def _entries(folder, name="loopsmith_report.json"):
    return json.loads((pathlib.Path(folder) / name).read_text())["entries"]


def _bvh_rows_agree(path):
    """A BVH's header frame count equals its motion rows, all of one width."""
    lines = pathlib.Path(path).read_text().splitlines()
    at = lines.index("MOTION")
    frames = int(lines[at + 1].split()[1])
    rows = [line.split() for line in lines[at + 3:] if line.strip()]
    return frames == len(rows) and len({len(row) for row in rows}) == 1


def _partials(folder):
    return [p.name for p in pathlib.Path(folder).rglob("*") if "partial" in p.name or p.name.endswith(".lock")]


# Section 1: data is never lost or corrupted.

@pytest.mark.realdata
def test_an_output_never_replaces_an_input(mocap_dir, tmp_path):
    folder = tmp_path / "clips"
    _copy(mocap_dir, WALK, folder / "walk.bvh")
    users_file = _copy(mocap_dir, RUN, folder / "walk_loop.bvh")  # the user's own file, named like an output
    before = users_file.read_bytes()
    result = run_loopsmith("make-loop", folder, "-o", folder, "--quiet")
    assert users_file.read_bytes() == before
    assert result.returncode == 1 and "it is an input of this run" in result.stderr, result.stderr
    assert (folder / "walk_loop_loop.bvh").is_file()  # the user's file is an input like any other


@pytest.mark.realdata
def test_a_rerun_inside_the_input_folder_does_not_loop_its_own_outputs(mocap_dir, tmp_path):
    folder = tmp_path / "clips"
    _copy(mocap_dir, WALK, folder / "walk.bvh")
    assert run_loopsmith("make-loop", folder, "-o", folder, "--quiet").returncode == 0
    again = run_loopsmith("make-loop", folder, "-o", folder, "--quiet")
    assert again.returncode == 0 and "skipped 1 earlier outputs" in again.stderr
    assert sorted(p.name for p in folder.glob("*.bvh")) == ["walk.bvh", "walk_loop.bvh"]
    assert [pathlib.Path(entry["file"]).name for entry in _entries(folder)] == ["walk.bvh"]


@pytest.mark.realdata
@pytest.mark.parametrize("report", ["walk.bvh", "out/r.html", "out", "walk.json-looking.txt"])
def test_a_report_path_that_is_an_input_a_folder_or_not_json_is_a_usage_error(mocap_dir, tmp_path, report):
    walk = _copy(mocap_dir, WALK, tmp_path / "walk.bvh")
    _copy(mocap_dir, RUN, tmp_path / "run.bvh")
    (tmp_path / "out").mkdir()
    before = walk.read_bytes()
    result = run_loopsmith("make-loop", "--report", report, "run.bvh", "-o", "out", cwd=tmp_path)
    assert result.returncode == 2 and "--report" in result.stderr, result.stderr
    assert walk.read_bytes() == before and not list((tmp_path / "out").iterdir())


@pytest.mark.realdata
def test_the_json_report_and_its_html_page_live_side_by_side(mocap_dir, tmp_path):
    _copy(mocap_dir, WALK, tmp_path / "walk.bvh")
    result = run_loopsmith("make-loop", "walk.bvh", "-o", "out", "--report", "reports/r.json", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert _entries(tmp_path / "reports", "r.json")[0]["status"] == "ok" and (tmp_path / "reports" / "r.html").is_file()


@pytest.mark.realdata
def test_inputs_with_the_same_name_get_distinct_outputs(mocap_dir, tmp_path):
    _copy(mocap_dir, WALK, tmp_path / "a" / "walk.bvh")
    _copy(mocap_dir, RUN, tmp_path / "b" / "walk.bvh")
    result = run_loopsmith("make-loop", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 0, result.stderr
    outputs = sorted((tmp_path / "out").glob("*.bvh"))
    assert [p.name for p in outputs] == ["a-walk_loop.bvh", "b-walk_loop.bvh"]
    assert outputs[0].read_bytes() != outputs[1].read_bytes()


@pytest.mark.realdata
def test_two_runs_into_one_folder_at_once_write_whole_files_and_keep_each_others_entries(mocap_dir, tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "loopsmith", "make-loop", "-o", str(out), "--quiet"]
    first = subprocess.Popen(command + [str(mocap_dir / WALK), str(mocap_dir / RUN)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen(command + [str(mocap_dir / WALK), str(mocap_dir / CYCLE)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for process in (first, second):
        _, errors = process.communicate(timeout=300)
        assert process.returncode == 0 and "Traceback" not in errors, errors
    outputs = sorted(out.glob("*.bvh"))
    assert len(outputs) == 3 and all(_bvh_rows_agree(path) for path in outputs)
    assert sorted(pathlib.Path(entry["file"]).name for entry in _entries(out)) == sorted([WALK, RUN, CYCLE])
    assert not _partials(out)


def _file_size_limit(limit):
    """preexec_fn: writes past ``limit`` bytes fail with EFBIG, as on a full disk (SIGXFSZ ignored, as Blender would see it)."""

    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.realdata
@pytest.mark.parametrize("limit", [60_000, 300], ids=["outputs", "report"])
def test_a_full_disk_never_replaces_a_good_output_or_report(mocap_dir, tmp_path, limit):
    _copy(mocap_dir, WALK, tmp_path / "walk.bvh")
    out = tmp_path / "out"
    assert run_loopsmith("make-loop", "walk.bvh", "-o", out, "--format", "blend", "bvh", "--quiet", cwd=tmp_path).returncode == 0
    good = {path.name: path.read_bytes() for path in out.iterdir()}
    full = run_loopsmith("make-loop", "walk.bvh", "-o", out, "--format", "blend", "bvh", "--quiet", cwd=tmp_path,
                         preexec_fn=_file_size_limit(limit))
    assert full.returncode == 1, full.stdout + full.stderr
    assert "walk.bvh" in full.stdout and "FAILED" in full.stdout  # the summary reaches the terminal
    assert "loopsmith: walk.bvh: " in full.stderr and "Traceback" not in full.stderr
    for name in ("walk_loop.blend", "walk_loop.bvh"):
        assert (out / name).read_bytes() == good[name]
    if limit < 1000:
        assert f"cannot write the report {out / 'loopsmith_report.json'}" in full.stderr
        assert (out / "loopsmith_report.json").read_bytes() == good["loopsmith_report.json"]
    else:
        assert _entries(out)[0]["status"] == "error"  # the report tells this run's truth
    assert not _partials(out)


def test_an_output_folder_that_cannot_be_written_is_a_usage_error(tmp_path, mocap_dir):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the output folder should be")
    result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", blocker / "out")
    assert result.returncode == 2 and "the output folder cannot be written" in result.stderr and "Traceback" not in result.stderr
    result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", blocker)
    assert result.returncode == 2 and "the output folder is a file, not a folder" in result.stderr


@pytest.mark.realdata
def test_a_bvh_with_values_blender_would_repair_fails_and_names_the_line(mocap_dir, tmp_path):
    lines = (mocap_dir / WALK).read_text().splitlines()
    at = lines.index("MOTION") + 3 + 40
    row = lines[at].split()
    row[5] = "nan"
    lines[at] = " ".join(row)
    (tmp_path / "nan.bvh").write_text("\n".join(lines) + "\n")
    _copy(mocap_dir, RUN, tmp_path / "run.bvh")
    result = run_loopsmith("make-loop", tmp_path, "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    entries = {pathlib.Path(entry["file"]).name: entry for entry in _entries(tmp_path / "out")}
    assert entries["run.bvh"]["status"] == "ok" and entries["nan.bvh"]["status"] == "error"
    assert f"line {at + 1}" in entries["nan.bvh"]["error"] and "nan" in entries["nan.bvh"]["error"].lower()
    assert not (tmp_path / "out" / "nan_loop.bvh").exists()


def _children(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as stream:
        return [int(child) for child in stream.read().split()]


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stream:
            return stream.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.realdata
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_the_whole_run_cleanly(mocap_dir, tmp_path, number):
    for index in range(8):
        _copy(mocap_dir, (WALK, RUN)[index % 2], tmp_path / "clips" / f"clip{index}.bvh")
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "loopsmith", "make-loop", str(tmp_path / "clips"), "-o", str(out), "--jobs", "2",
                                "--format", "bvh", "blend", "fbx", "glb"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=interruptible)
    deadline = time.monotonic() + 60
    while not list(out.glob("*_loop.*")) and time.monotonic() < deadline:  # well into the run: a file done
        time.sleep(0.05)
    workers = _children(process.pid)
    assert workers, "the run should have a worker process"
    process.send_signal(number)
    stopped = time.monotonic()
    output, errors = process.communicate(timeout=30)
    assert time.monotonic() - stopped < 10
    assert process.returncode == 130, errors
    assert "Traceback" not in errors and "KeyboardInterrupt" not in output + errors
    assert "interrupted" in output
    time.sleep(0.2)
    assert not [pid for pid in workers if _alive(pid)]
    assert not _partials(out)
    assert all(entry["status"] == "ok" for entry in _entries(out))  # what was done, and nothing reported as broken


_STOP_IN_A_BLENDER_HANDLER = """
import os, signal, sys
import bpy
from loopsmith.pipeline import cli

@bpy.app.handlers.persistent
def stop(*_):  # the stop arrives while Blender runs this Python for itself: Blender prints the exception and carries on
    if not getattr(stop, "sent", False):
        stop.sent = True
        os.kill(os.getpid(), signal.SIGTERM)

bpy.app.handlers.load_post.append(stop)
status = cli.main(sys.argv[1:])
sys.stdout.flush()
sys.stderr.flush()
os._exit(status)  # as python -m loopsmith does: bpy 4.2 and 4.5 may hang at interpreter exit
"""


@pytest.mark.realdata
def test_a_stop_that_blender_swallows_still_stops_the_run(mocap_dir, tmp_path):
    for index in range(3):
        _copy(mocap_dir, WALK, tmp_path / "clips" / f"clip{index}.bvh")
    driver = tmp_path / "driver.py"
    driver.write_text(_STOP_IN_A_BLENDER_HANDLER)
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, str(driver), "make-loop", str(tmp_path / "clips"), "-o", str(out), "--range", "10", "40",
                             "--format", "bvh", "blend", "--quiet"], capture_output=True, text=True, timeout=120, preexec_fn=interruptible)
    assert result.returncode == 130, result.stdout + result.stderr
    assert "interrupted" in result.stdout and not _partials(out)
    assert len(_entries(out)) < 3


def _wait_until_it_handles_stops(process, timeout=60.0):
    """Wait until ``process`` catches SIGTERM: Loopsmith's first statement installs its handlers (Python itself catches only
    SIGINT), so the command runs from then on. Linux's /proc tells."""
    status, deadline = pathlib.Path(f"/proc/{process.pid}/status"), time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        caught = next(line for line in status.read_text().splitlines() if line.startswith("SigCgt:"))
        if int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.002)
    raise AssertionError(f"python -m loopsmith never installed its stop handlers (exit {process.poll()})")


@pytest.mark.realdata
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("delay", [0.0, 0.15, 0.4])  # from the moment the command runs: its imports of numpy and Blender
def test_ctrl_c_in_the_first_moments_exits_cleanly(mocap_dir, tmp_path, delay):
    process = subprocess.Popen([sys.executable, "-m", "loopsmith", "make-loop", str(mocap_dir / WALK), "-o", str(tmp_path / "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    _wait_until_it_handles_stops(process)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=30)
    assert process.returncode in (130, 0) and "Traceback" not in errors, (process.returncode, errors)


def test_a_worker_that_dies_reports_the_files_it_finished(loopsmith, tmp_path):
    import importlib

    workers = importlib.import_module(loopsmith.__name__ + ".pipeline.workers")
    worker = workers.Worker.__new__(workers.Worker)
    worker.tasks = [(pathlib.Path("a.bvh"),), (pathlib.Path("b.bvh"),), (pathlib.Path("c.bvh"),)]
    worker.output, worker.log, worker.command = tmp_path / "worker.jsonl", tmp_path / "worker.log", "make-loop"
    # a.bvh finished; b.bvh's line was being written when the worker was killed.
    worker.output.write_text(json.dumps([{"file": "a.bvh", "armature": "a", "status": "ok"}]) + '\n[{"file": "b.bvh", "arma')
    worker.log.write_text("")
    worker.process = subprocess.Popen([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    worker.process.wait()
    entries = worker.entries(stopped=False)
    assert [entry["status"] for entry in entries] == ["ok", "error", "error"]
    assert all("SIGKILL" in entry["error"] and entry["command"] == "make-loop" for entry in entries[1:])


# Section 2: inputs and options that mislead.

@pytest.mark.realdata
def test_workers_take_inputs_written_the_way_tab_completion_writes_them(mocap_dir, tmp_path):
    _copy(mocap_dir, WALK, tmp_path / "clips" / "walk.bvh")
    _copy(mocap_dir, CYCLE, tmp_path / "x.bvh")
    result = run_loopsmith("make-loop", "clips/", "./clips", "./x.bvh", "-o", "out", "--jobs", "8", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "--jobs 8 capped at 2" in result.stderr
    assert sorted(p.name for p in (tmp_path / "out").glob("*.bvh")) == ["walk_loop.bvh", "x_loop.bvh"]


@pytest.mark.parametrize("options, named", [
    (["--ratio", "5"], "--ratio"),
    (["--ratio", "nan"], "--ratio"),
    (["--blend-start", "nan"], "--blend-start"),
    (["--max-length", "nan"], "--max-length"),
    (["--min-length", "3", "--max-length", "2"], "--min-length"),
    (["--root-blend", "-1"], "--root-blend"),
    (["--range", "80", "20"], "--range"),
    (["--range", "20", "20"], "--range"),
    (["--scale", "1e30"], "--scale"),
    (["--scale", "0"], "--scale"),
    (["--jobs", "0"], "--jobs"),
    (["--cycles", "-1"], "--cycles"),
    (["--method", "WIGGLE"], "--method"),
    (["--range", "10", "60", "--cycles", "2"], "--cycles"),
    (["--whole", "--max-length", "0.5"], "--max-length"),
])
def test_every_option_is_checked_where_it_is_parsed(tmp_path, options, named):
    (tmp_path / "walk.bvh").write_text("not read: the options fail first\n")
    result = run_loopsmith("make-loop", tmp_path / "walk.bvh", "-o", tmp_path / "out", *options)
    assert result.returncode == 2 and named in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.realdata
def test_a_poor_loop_is_shown_as_poor(mocap_dir, tmp_path):
    result = run_loopsmith("make-loop", mocap_dir / "dataset-1_dance-short_normal_001.bvh", "-o", tmp_path, "--quiet")
    entry = _entries(tmp_path)[0]
    assert entry["status"] == "ok" and entry["grade"] == "POOR", entry
    row = next(line for line in result.stdout.splitlines() if line.startswith("dataset-1_dance"))
    # The cut's grade is in the row: as the reason when the loop is not fine, else beside the method ("POOR cut, loop fine").
    assert "POOR" in (row.split("  ")[-1] if not entry["loop_fine"] else row)


def test_a_corrupt_fbx_fails_in_seconds(tmp_path):
    corrupt = tmp_path / "broken.fbx"
    corrupt.write_bytes(b"Kaydara FBX Binary  \x00\x1a\x00" + (7400).to_bytes(4, "little") + os.urandom(200_000))
    (tmp_path / "empty.glb").touch()
    started = time.monotonic()
    result = run_loopsmith("make-loop", corrupt, tmp_path / "empty.glb", "-o", tmp_path / "out", "--quiet")
    assert time.monotonic() - started < 20
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "broken.fbx: cannot be read" in result.stderr and "empty.glb: cannot be read: the file is empty" in result.stderr


@pytest.mark.realdata
def test_a_pre_cut_cycle_loops_with_cycles_given(mocap_dir, tmp_path):
    result = run_loopsmith("make-loop", mocap_dir / CYCLE, "-o", tmp_path, "--cycles", "2", "--quiet")
    assert result.returncode == 1 and "no repeating motion" not in result.stderr
    assert "the clip is one closed loop" in result.stderr and "ask for 1 cycle" in result.stderr
    assert run_loopsmith("make-loop", mocap_dir / CYCLE, "-o", tmp_path, "--cycles", "1", "--quiet").returncode == 0


@pytest.mark.realdata
def test_bvh_units_are_detected_and_reported(mocap_dir, tmp_path):
    cmu = 0.0254 / 0.45
    (tmp_path / "cmu.bvh").write_text(bvh.to_text(bvh_in_units(bvh.read_bvh(mocap_dir / WALK), 0.01 / cmu)))
    result = run_loopsmith("make-loop", tmp_path / "cmu.bvh", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 0, result.stderr
    entry = _entries(tmp_path / "out")[0]
    assert entry["import"]["bvh_scale"] == pytest.approx(cmu) and "CMU units" in entry["import"]["bvh_scale_reason"]
    assert f"BVH scale {cmu:g} m per unit (1 file): CMU units" in result.stdout
    given = run_loopsmith("make-loop", tmp_path / "cmu.bvh", "-o", tmp_path / "given", "--scale", "0.05", "--quiet")
    assert _entries(tmp_path / "given")[0]["import"]["bvh_scale"] == 0.05 and "given with --scale" in given.stdout


@pytest.mark.realdata
def test_a_z_up_bvh_keeps_its_travel_with_a_range(mocap_dir, tmp_path):
    (tmp_path / "z_up.bvh").write_text(bvh.to_text(bvh_z_up(bvh.read_bvh(mocap_dir / WALK))))
    shutil.copyfile(mocap_dir / WALK, tmp_path / "y_up.bvh")
    result = run_loopsmith("make-loop", tmp_path, "-o", tmp_path / "out", "--range", "34", "131", "--quiet")
    assert result.returncode == 0, result.stderr
    entries = {pathlib.Path(entry["file"]).name: entry for entry in _entries(tmp_path / "out")}
    assert entries["z_up.bvh"]["import"]["up_axis"] == "Z" and entries["y_up.bvh"]["import"]["up_axis"] == "Y"
    assert entries["z_up.bvh"]["root_mode"] == "TRAVEL"
    assert entries["z_up.bvh"]["seam_after"] == pytest.approx(entries["y_up.bvh"]["seam_after"], abs=1e-3)
    written = bvh.read_bvh(tmp_path / "out" / "z_up_loop.bvh")  # Z up like its input, travelling along the floor
    hips = bvh.forward_kinematics(written)[:, written.names.index("Hips")]
    floor = np.hypot(*np.ptp(hips[:, :2], axis=0))
    assert floor > 100 and np.ptp(hips[:, 2]) < 0.1 * floor  # centimetres


@pytest.mark.realdata
def test_bvh_outputs_keep_the_inputs_channel_layout(mocap_dir, tmp_path):
    result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", tmp_path, "--quiet")
    assert result.returncode == 0, result.stderr
    source, written = bvh.read_bvh(mocap_dir / WALK), bvh.read_bvh(tmp_path / "dataset-1_walk_normal_001_loop.bvh")
    assert written.names == source.names and written.channels == source.channels
    assert written.frame_time == pytest.approx(source.frame_time)


@pytest.mark.every_blender
@pytest.mark.realdata
def test_a_wrap_loop_writes_its_distinct_frames_and_reads_back(mocap_dir, tmp_path):
    for root_mode, root_option in (("IN_PLACE", "--root-motion"), ("TRAVEL", "--root-mode")):  # in place: one spelling, --root-motion
        out = tmp_path / root_mode
        result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", out, "--loop-mode", "WRAP", root_option, root_mode,
                               "--format", "bvh", "glb", "blend", "--quiet")
        assert result.returncode == 0, result.stderr
        entry = _entries(out)[0]
        lines = (out / "dataset-1_walk_normal_001_loop.bvh").read_text().splitlines()
        # In place every bone repeats: the n distinct frames. A travelling root's last sample is the cycle's travel: kept.
        frames = entry["length"] if root_mode == "IN_PLACE" else entry["length"] + 1
        assert f"Frames: {frames}" in [line.replace("\t", " ") for line in lines], root_mode
        assert ("leave out" if root_mode == "IN_PLACE" else "closing frame is kept") in entry["loop_end"]
        again = run_loopsmith("make-loop", out / "dataset-1_walk_normal_001_loop.blend", "-o", tmp_path / "again", "--whole", "--quiet")
        assert again.returncode == 0, again.stdout + again.stderr  # read back as its n distinct frames


@pytest.mark.realdata
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_their_parent(mocap_dir, tmp_path):
    for index in range(6):
        _copy(mocap_dir, WALK, tmp_path / "clips" / f"clip{index}.bvh")
    process = subprocess.Popen([sys.executable, "-m", "loopsmith", "make-loop", str(tmp_path / "clips"), "-o", str(tmp_path / "out"), "--jobs", "2"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not _children(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = _children(process.pid)
    process.kill()
    process.wait()
    deadline = time.monotonic() + 10
    while [pid for pid in workers if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers and not [pid for pid in workers if _alive(pid)]


@pytest.mark.every_blender
@pytest.mark.realdata
def test_fbx_and_glb_outputs_read_back_as_the_loops_they_hold(mocap_dir, tmp_path):
    assert run_loopsmith("make-loop", mocap_dir / WALK, "-o", tmp_path / "a", "--format", "fbx", "glb", "--quiet").returncode == 0
    length = _entries(tmp_path / "a")[0]["length"]
    again = run_loopsmith("make-loop", tmp_path / "a", "-o", tmp_path / "b", "--include-outputs", "--quiet")
    assert again.returncode == 0, again.stdout + again.stderr
    entries = {pathlib.Path(entry["file"]).suffix: entry for entry in _entries(tmp_path / "b")}
    # Read at its own rate, not the scene's 24 fps: the walk's Frame Time of 0.0333333 s is 30.00003 fps.
    assert entries[".glb"]["import"]["key_rate"] == pytest.approx(1 / 0.0333333, rel=1e-6)
    for entry in entries.values():
        assert entry["length"] == length and entry["grade"] == "GOOD", entry  # found as the closed loop it is


@pytest.mark.realdata
def test_a_reader_that_goes_away_does_not_stop_the_run(mocap_dir, tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "loopsmith", "make-loop", str(mocap_dir / WALK), "-o", str(tmp_path), "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # like `| head -1` having read its line
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0 and "Traceback" not in errors, errors
    assert _entries(tmp_path)[0]["status"] == "ok"


@pytest.mark.realdata
def test_a_loop_with_a_visible_seam_says_so(mocap_dir, tmp_path):
    result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", tmp_path, "--range", "10", "60", "--method", "NONE", "--quiet")
    row = next(line for line in result.stdout.splitlines() if line.startswith(WALK))
    assert " VISIBLE " in row and "seam visibility" in row


@pytest.mark.realdata
def test_no_blender_session_folder_is_left_behind(mocap_dir, tmp_path):
    folder = tmp_path / "tmp"
    folder.mkdir()
    result = run_loopsmith("make-loop", mocap_dir / CYCLE, "-o", tmp_path / "out", "--quiet", env_extra={"TMPDIR": str(folder)}, fresh=True)
    assert result.returncode == 0 and not list(folder.iterdir())


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder nobody may create files in: write permission off, and as root (whom permissions do not stop) immutable."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if root and subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr: no folder is read-only for root here")
    yield folder
    if root:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    folder.chmod(0o755)


@pytest.mark.realdata
def test_a_read_only_output_folder_is_a_usage_error_before_any_work(mocap_dir, read_only_folder):
    result = run_loopsmith("make-loop", mocap_dir / WALK, "-o", read_only_folder)
    assert result.returncode == 2 and f"cannot write {read_only_folder}: the output folder cannot be written" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not list(read_only_folder.iterdir())
