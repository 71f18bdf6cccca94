"""The Flamenco job type (flamenco/loopsmith_make_loop.js) and ``merge-reports``.

The job compiler runs under node with a stand-in for Flamenco's ``author``
API (tests/cli/flamenco_author.js); its commands are read back with Loopsmith's
own parser, then run here (``python -m loopsmith`` in place of
``blender -b -c loopsmith``, which needs a Blender) and their merged report
compared with a single run's. The merge's own checks need neither node nor Blender.
"""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from helpers import checkout_module, run_loopsmith

REPO = pathlib.Path(__file__).resolve().parents[2]
JOB_TYPE = REPO / "flamenco" / "loopsmith_make_loop.js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="the job compiler runs under node, which is not installed")

cli, merge_reports, report, reports = (checkout_module(f"pipeline.{name}") for name in ("cli", "merge_reports", "entries", "reports"))

BLENDER = ["-b", "-c", "loopsmith"]  # what every task runs after the worker's Blender
CREATED = "2026-01-02T03:04:05"  # the job's creation, local time: its parts go to OUT/reports/2026-01-02_030405
PARTS = pathlib.PurePosixPath("reports/2026-01-02_030405")


def compile_job(settings):
    """The job the Manager would make of ``settings``: {"tasks": [...]} or {"error": message}."""
    submitted = json.dumps({"name": "loops", "created": CREATED, "settings": settings})
    done = subprocess.run([NODE, str(REPO / "tests" / "cli" / "flamenco_author.js"), str(JOB_TYPE)], input=submitted, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def loopsmith_args(task):
    """The Loopsmith command line of a task (after ``blender -b -c loopsmith``)."""
    (command,) = task["commands"]
    assert command["name"] == "exec" and command["parameters"]["exe"] == "{blender}"
    args = command["parameters"]["args"]
    assert args[:3] == BLENDER and all(isinstance(arg, str) for arg in args)
    return args[3:]


def make_loop_choices(dest):
    """The values make-loop's parser accepts for option ``dest``."""
    subparsers = next(action for action in cli.parser()._actions if action.dest == "command")
    return next(action.choices for action in subparsers.choices["make-loop"]._actions if action.dest == dest)


@needs_node
def test_one_task_per_chunk_then_a_merge_after_all_of_them(tmp_path):
    source, out = tmp_path / "mo cap", tmp_path / "loops out"
    job = compile_job({"input_folder": str(source), "output_folder": f"{out}/", "chunks": 3, "range_mode": "RANGE",
                       "range_start": 10, "range_end": 40, "formats": "bvh, glb", "engine": "unity", "lock_feet": False})
    assert job["jobType"] == "loopsmith-make-loop"
    *chunks, merge = job["tasks"]
    assert [task["name"] for task in chunks] == ["make-loop-1-of-3", "make-loop-2-of-3", "make-loop-3-of-3"]
    assert all(task["type"] == "blender" and task["dependencies"] == [] for task in chunks)
    assert merge["name"] == "merge-reports" and merge["dependencies"] == [task["name"] for task in chunks]
    for k, task in enumerate(chunks, 1):
        options = cli.parser().parse_args(loopsmith_args(task))
        assert (options.command, options.inputs, options.out, options.shard) == ("make-loop", [source], out, (k, 3))
        assert options.report == out / PARTS / f"part-{k}.json" and options.quiet
        assert (options.range, options.format, options.engine, options.lock_feet) == ([10, 40], ["bvh", "glb"], "unity", False)
    options = cli.parser().parse_args(loopsmith_args(merge))
    assert (options.command, options.parts, options.report) == ("merge-reports", [out / PARTS], out / "loopsmith_report.json")


@needs_node
@pytest.mark.parametrize("key, dest", [("method", "method"), ("root_mode", "root_mode"), ("loop_mode", "loop_mode"), ("engine", "engine")])
def test_every_choice_is_one_make_loop_takes(tmp_path, key, dest):
    folders = {"input_folder": str(tmp_path / "in"), "output_folder": str(tmp_path / "out")}
    setting = next(s for s in compile_job(folders)["JOB_TYPE"]["settings"] if s["key"] == key)
    offered = [choice for choice in setting["choices"] if choice != "none"]  # "none": no --engine
    assert sorted(offered) == sorted(make_loop_choices(dest))
    for choice in setting["choices"]:
        job = compile_job(dict(folders, **{key: choice}))
        options = cli.parser().parse_args(loopsmith_args(job["tasks"][0]))
        assert getattr(options, dest) == (None if choice == "none" else choice)


@needs_node
def test_range_modes_and_formats_reach_make_loop(tmp_path):
    folders = {"input_folder": str(tmp_path / "in"), "output_folder": str(tmp_path / "out")}
    for mode, flags in (("AUTO", (True, False, None)), ("WHOLE", (False, True, None)), ("RANGE", (False, False, [1, 100]))):
        options = cli.parser().parse_args(loopsmith_args(compile_job(dict(folders, range_mode=mode))["tasks"][0]))
        assert (options.auto, options.whole, options.range) == flags
    formats = " ".join(make_loop_choices("format"))
    options = cli.parser().parse_args(loopsmith_args(compile_job(dict(folders, formats=formats))["tasks"][0]))
    assert options.format == formats.split()


@needs_node
@pytest.mark.parametrize("settings, reason", [
    ({"chunks": 0}, "chunks must be a whole number of at least 1"),
    ({"range_mode": "RANGE", "range_start": 40, "range_end": 40}, "range_end (40) must be a whole number after range_start (40)"),
    ({"formats": "bvh mp4"}, 'unknown output format "mp4"'),
    ({"output_folder": "{in}/looped"}, "is inside the input folder"),
    ({"output_folder": "{in}/"}, "is inside the input folder"),
])
def test_settings_that_cannot_work_are_refused_at_submission(tmp_path, settings, reason):
    folders = {"input_folder": str(tmp_path / "in"), "output_folder": str(tmp_path / "out")}
    folders.update({key: value.replace("{in}", folders["input_folder"]) if isinstance(value, str) else value for key, value in settings.items()})
    assert reason in compile_job(folders)["error"]


def _write_part(folder, k, n, files, **changed):
    """A part report as ``make-loop --shard K/N`` writes it: one error entry per file (two for ``*2`` names: two armatures)."""
    settings = {"command": "make-loop", "inputs": [str(folder / "in")], "out": str(folder / "out"), "method": "CUBIC",
                "shard": [k, n], "report": str(folder / f"part-{k}.json"), "jobs": 1, "quiet": True, **changed}
    entries = [dict(report.error_entry(folder / "in" / name, f"cannot be read: broken {name}", 0.5, armature), command=settings["command"])
               for name in files for armature in (("A", "B") if "2" in name else ("A",))]
    reports.write_reports(entries, folder / "parts" / f"part-{k}.json", "", settings)


def _merge(capsys, *args):
    code = merge_reports.main(cli.parser().parse_args(["merge-reports", *map(str, args)]))
    return code, capsys.readouterr()


def test_merged_entries_come_in_the_run_order_and_a_failure_fails_the_merge(tmp_path, capsys):
    _write_part(tmp_path, 1, 2, ["a.bvh", "c2.bvh", "e.bvh"])  # every 2nd file from the 1st ...
    _write_part(tmp_path, 2, 2, ["b.bvh", "d.bvh"])  # ... and from the 2nd
    code, printed = _merge(capsys, tmp_path / "parts")
    assert code == 1
    merged = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())
    assert [(pathlib.Path(e["file"]).name, e["armature"]) for e in merged["entries"]] == [
        ("a.bvh", "A"), ("b.bvh", "A"), ("c2.bvh", "A"), ("c2.bvh", "B"), ("d.bvh", "A"), ("e.bvh", "A")]
    assert merged["settings"]["shard"] is None and len(merged["settings"]["merged_parts"]) == 2
    assert (tmp_path / "out" / "loopsmith_report.html").is_file()
    assert "0 looped, 6 failed" in printed.out and "broken d.bvh" in printed.err


def test_parts_with_nothing_to_do_merge_into_an_empty_report(tmp_path, capsys):
    for k in (1, 2, 3):
        _write_part(tmp_path, k, 3, [])
    code, _ = _merge(capsys, *sorted((tmp_path / "parts").glob("*.json")), "--report", tmp_path / "merged.json")
    assert code == 0 and json.loads((tmp_path / "merged.json").read_text())["entries"] == []


@pytest.mark.parametrize("breakage, named, reason", [
    ("missing", "parts", "part 2 of 3 is missing"),
    ("truncated", "part-3.json", "is not a JSON report"),
    ("other command", "part-3.json", "is not from the same run as"),
    ("other settings", "part-3.json", "(they differ in method)"),
    ("other count", "part-3.json", "is part 3 of 4, not of 3"),
    ("not sharded", "part-3.json", "is not the report of a --shard K/N run"),
])
def test_a_missing_or_foreign_part_is_named_on_one_line_and_nothing_is_written(tmp_path, capsys, breakage, named, reason):
    _write_part(tmp_path, 1, 3, ["a.bvh"])
    if breakage != "missing":
        _write_part(tmp_path, 2, 3, ["b.bvh"])
    third = {"other command": {"command": "transition"}, "other settings": {"method": "SPRING"}, "other count": {"shard": [3, 4]},
             "not sharded": {"shard": None}}.get(breakage, {})
    _write_part(tmp_path, 3, 3, ["c.bvh"], **third)
    if breakage == "truncated":
        part = tmp_path / "parts" / "part-3.json"
        part.write_text(part.read_text()[:40])
    code, printed = _merge(capsys, tmp_path / "parts")
    assert code == 1 and printed.out == ""
    (line,) = printed.err.strip().splitlines()
    assert line.startswith(f"loopsmith merge-reports: {tmp_path / 'parts'}") and named in line and reason in line
    assert not (tmp_path / "out").exists()


def test_a_report_path_that_cannot_be_one_is_a_usage_error(tmp_path, capsys):
    _write_part(tmp_path, 1, 1, ["a.bvh"])
    code, printed = _merge(capsys, tmp_path / "parts", "--report", tmp_path / "merged.txt")
    assert code == 2 and "--report" in printed.err and not (tmp_path / "merged.txt").exists()
    with pytest.raises(SystemExit) as parsed:
        cli.parser().parse_args(["merge-reports"])
    assert parsed.value.code == 2


def _without_times(entry, out):
    """An entry as two runs over the same files agree on it: no durations or run times, outputs relative to the output folder."""
    kept = {key: value for key, value in entry.items() if key not in ("seconds", "import_seconds", "run")}
    return dict(kept, outputs=[str(pathlib.Path(path).relative_to(out)) for path in entry.get("outputs", ())])


@needs_node
@pytest.mark.blender
@pytest.mark.realdata
def test_the_compiled_job_run_here_writes_what_one_run_writes(mocap_dir, tmp_path):
    clips, farm, single = mocap_dir.parent / "bandai-actions", tmp_path / "farm out", tmp_path / "single"
    job = compile_job({"input_folder": str(clips), "output_folder": str(farm), "chunks": 4, "range_mode": "RANGE",
                       "range_start": 10, "range_end": 40})
    *chunks, merge = job["tasks"]
    # The workers run the chunks at once, into one output folder.
    running = [subprocess.Popen([sys.executable, "-m", "loopsmith", *loopsmith_args(task)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for task in chunks]
    for process in running:
        _, errors = process.communicate(timeout=600)
        assert process.returncode == 0, errors
    merged = run_loopsmith(*loopsmith_args(merge))
    assert merged.returncode == 0, merged.stderr
    alone = run_loopsmith("make-loop", clips, "-o", single, "--range", "10", "40", "--quiet")
    assert alone.returncode == 0, alone.stderr

    ours, theirs = (json.loads((folder / "loopsmith_report.json").read_text())["entries"] for folder in (farm, single))
    assert len(ours) == len(sorted(clips.glob("*.bvh"))) == 6
    assert [_without_times(entry, farm) for entry in ours] == [_without_times(entry, single) for entry in theirs]
    written = sorted(path.name for path in single.glob("*_loop.*"))
    assert written == sorted(path.name for path in farm.glob("*_loop.*")) and len(written) == 6
    for name in written:
        assert (farm / name).read_bytes() == (single / name).read_bytes(), name
    assert "6 looped, 0 failed" in merged.stdout


def test_a_folder_holding_the_whole_runs_report_beside_the_parts_merges(tmp_path, capsys):
    _write_part(tmp_path, 1, 2, ["a.bvh"])
    _write_part(tmp_path, 2, 2, ["b.bvh"])
    reports.write_reports([], tmp_path / "parts" / reports.DEFAULT_NAME, "", {"command": "make-loop", "shard": None})
    (tmp_path / "parts" / "loopsmith_report.damaged-20260101-000000.json").write_text("{not json")
    code, printed = _merge(capsys, tmp_path / "parts")
    assert code == 1 and "broken b.bvh" in printed.err and "is not" not in printed.err
    assert len(json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"]) == 2
