"""Reports and graphs are never lost: paths that would collide are refused, damaged earlier reports are moved aside.

The in-process tests run in the core tier (the report code is plain
Python); the command-line tests run the real command on shared clips.
"""

import json
import shutil

import pytest

from helpers import checkout_module, run_loopsmith

reports, report = checkout_module("pipeline.reports"), checkout_module("pipeline.entries")

CLIPS = ("dataset-1_walk_normal_001.bvh", "dataset-1_run_normal_001.bvh")
EXTRA = "dataset-2_walk_normal_020.bvh"

# Earlier reports this version cannot keep, each with the reason the warning gives.
DAMAGED = {
    "not JSON": ("{garbage", "not JSON"),
    "nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, "nested deeper"),
    "entries nested 100,000 deep": ('{"entries":' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper"),
    "not UTF-8": (b"\xff\xfe{}", "not JSON"),
    "entries of the wrong shape": (json.dumps({"entries": [1, 2]}), "not an object"),
    "no entries": (json.dumps({"settings": {}}), "no list of entries"),
    "entry missing fields": (json.dumps({"entries": [{"file": "walk.bvh"}]}), "no 'file' or 'status'"),
    "entry with outputs not a list": (json.dumps({"entries": [{"file": "walk.bvh", "status": "ok", "outputs": 5}]}), "'outputs'"),
    "entry this version cannot draw": (json.dumps({"entries": [{"file": "walk.bvh", "status": "ok", "armature": "",
                                                                 "graph": {"nodes": 1}}]}), "can draw"),
}


def _write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)


def _entry(file):
    return report.error_entry(file, "a reason", 0.0)


@pytest.mark.parametrize("damage", DAMAGED)
def test_a_damaged_report_is_moved_aside_and_the_new_one_written(tmp_path, damage):
    content, reason = DAMAGED[damage]
    path = tmp_path / "loopsmith_report.json"
    _write(path, content)
    written = reports.write_reports([_entry(tmp_path / "walk.bvh")], path, "this run", {})
    aside, why = written.moved_aside
    assert reason in why and aside.parent == tmp_path and aside.name.startswith("loopsmith_report.damaged-")
    assert aside.read_bytes() == (content if isinstance(content, bytes) else content.encode())
    assert [entry["file"] for entry in json.loads(path.read_text())["entries"]] == [str(tmp_path / "walk.bvh")]
    assert reports.earlier_outputs(aside) == []  # the run's start reads it without a crash too


def test_a_sound_report_keeps_its_entries_and_is_not_moved(tmp_path):
    path = tmp_path / "loopsmith_report.json"
    reports.write_reports([_entry(tmp_path / "walk.bvh")], path, "first", {})
    written = reports.write_reports([_entry(tmp_path / "run.bvh")], path, "second", {})
    assert written.moved_aside is None and written.kept == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loopsmith_report.html", "loopsmith_report.json"]


def _library(mocap_dir, folder, names=CLIPS):
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(mocap_dir / name, folder / name)
    return folder


def _graph_built(mocap_dir, tmp_path):
    """A library of the shared clips and the folder its graph and report were built into: ``(library, out)``."""
    library, out = _library(mocap_dir, tmp_path / "lib"), tmp_path / "out"
    assert run_loopsmith("graph", library, "-o", out, "--quiet").returncode == 0
    return library, out


def _one_error_line(result):
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.mark.blender
@pytest.mark.realdata
@pytest.mark.parametrize("case", ["report is the graph", "graph is the default report", "report links to the graph"])
def test_a_graph_and_its_report_never_share_a_file(mocap_dir, tmp_path, case):
    library = _library(mocap_dir, tmp_path / "lib")
    graph = tmp_path / "out" / "X.json"
    _write(graph, "the user's earlier graph")
    if case == "report links to the graph":
        (tmp_path / "out" / "link.json").symlink_to(graph)
    args = {"report is the graph": ["-o", graph, "--report", graph],
            "graph is the default report": ["-o", tmp_path / "out" / "loopsmith_report.json"],
            "report links to the graph": ["-o", graph, "--report", tmp_path / "out" / "link.json"]}[case]
    if case == "graph is the default report":
        graph = tmp_path / "out" / "loopsmith_report.json"
        _write(graph, "the user's earlier graph")
    result = run_loopsmith("graph", library, *args, "--quiet")
    line = _one_error_line(result)
    assert result.returncode == 2 and "the report" in line and "the graph (-o)" in line
    assert graph.read_text() == "the user's earlier graph"


@pytest.mark.blender
@pytest.mark.realdata
def test_synth_never_writes_its_report_over_the_graph_it_reads(mocap_dir, tmp_path):
    library = _library(mocap_dir, tmp_path / "lib")
    graph = tmp_path / "g" / "graph.json"
    assert run_loopsmith("graph", library, "-o", graph, "--quiet").returncode == 0
    before = graph.read_bytes()
    result = run_loopsmith("synth", graph, "--seconds", 3, "-o", tmp_path / "s", "--report", graph, "--quiet")
    line = _one_error_line(result)
    assert result.returncode == 2 and "the report" in line and "the graph it reads" in line
    assert graph.read_bytes() == before and not (tmp_path / "s").exists()


@pytest.mark.blender
@pytest.mark.realdata
def test_a_damaged_report_never_stops_a_command(mocap_dir, tmp_path):
    library = _library(mocap_dir, tmp_path / "lib")
    out = tmp_path / "out"
    _write(out / "loopsmith_report.json", DAMAGED["nested 100,000 deep"][0])
    result = run_loopsmith("graph", library, "-o", out, "--quiet")
    warnings = [line for line in result.stderr.splitlines() if "damaged" in line]
    assert result.returncode == 0 and len(warnings) == 1 and "Traceback" not in result.stderr, result.stderr
    assert len(json.loads((out / "loopsmith_report.json").read_text())["entries"]) == 1
    assert len(list(out.glob("loopsmith_report.damaged-*.json"))) == 1


@pytest.mark.blender
@pytest.mark.realdata
def test_a_graph_rebuilt_from_a_changed_library_is_the_one_reported(mocap_dir, tmp_path):
    library, out = _graph_built(mocap_dir, tmp_path)
    shutil.copyfile(mocap_dir / EXTRA, library / EXTRA)
    result = run_loopsmith("graph", library, "-o", out, "--quiet")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    entries = json.loads((out / "loopsmith_report.json").read_text())["entries"]
    assert len(entries) == 1 and len(entries[0]["clips"]) == 3
    assert json.loads((out / "graph.json").read_text())["clips"][2]["name"] == EXTRA
    assert EXTRA in (out / "loopsmith_report.html").read_text()


@pytest.mark.blender
@pytest.mark.realdata
def test_a_shard_without_a_report_keeps_the_folders_report(mocap_dir, tmp_path):
    library, out = _graph_built(mocap_dir, tmp_path)
    before = (out / "loopsmith_report.json").read_bytes()
    result = run_loopsmith("graph", library, "-o", out / "shared.json", "--shard", "1/2", "--quiet")
    assert result.returncode == 0, result.stderr
    assert (out / "loopsmith_report.json").read_bytes() == before
    part = json.loads((out / "loopsmith_report.part-1-of-2.json").read_text())
    assert part["settings"]["shard"] == [1, 2] and len(part["entries"]) == 1


@pytest.mark.blender
def test_merge_reports_names_a_hostile_part_in_one_line(tmp_path):
    parts = tmp_path / "parts"
    _write(parts / "part-1.json", DAMAGED["nested 100,000 deep"][0])
    _write(parts / "part-2.json", json.dumps({"settings": {"shard": [2, 2], "command": "graph", "out": str(tmp_path)},
                                              "entries": [{"file": "x.bvh", "status": "ok", "graph": {}}]}))
    for part in ("part-1.json", "part-2.json"):
        result = run_loopsmith("merge-reports", parts / part)
        assert result.returncode == 1 and part in _one_error_line(result)
    assert not (tmp_path / "loopsmith_report.json").exists()


def test_entries_of_an_earlier_version_without_a_unit_are_summed_up():
    earlier = dict(report.error_entry("walk.bvh", "a reason", 0.0), status="ok", **{"import": {"bvh_scale": 0.01}})
    assert reports.scales_used([earlier]) == ["BVH scale 0.01 m per unit (1 file): unit not recorded"]


def test_a_damaged_report_stays_where_it_was_when_the_new_one_cannot_be_written(tmp_path, monkeypatch):
    path = tmp_path / "loopsmith_report.json"
    _write(path, DAMAGED["not JSON"][0])

    def disk_full(text):
        def write(target):
            raise OSError(28, "No space left on device")
        return write

    monkeypatch.setattr(checkout_module("files.outputs"), "text_writer", disk_full)
    with pytest.raises(reports.ReportError, match="No space left on device"):
        reports.write_reports([_entry(tmp_path / "walk.bvh")], path, "this run", {})
    assert path.read_text() == DAMAGED["not JSON"][0] and sorted(p.name for p in tmp_path.iterdir()) == ["loopsmith_report.json"]
