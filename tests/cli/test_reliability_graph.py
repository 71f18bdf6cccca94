"""The graph and synth commands against hostile libraries, graph files and options: one line each, the right exit code."""

import json
import re
import shutil

import pytest

from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

WALK, RUN, WALK_2, RUN_2 = ("dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_walk_normal_020.bvh",
                            "dataset-2_run_normal_040.bvh")


def _entries(folder):
    return json.loads((folder / "loopsmith_report.json").read_text())["entries"]


def _one_line(result):
    lines = [line for line in result.stderr.splitlines() if line.startswith("loopsmith") and "reports:" not in line]
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr, result.stderr
    return lines


@pytest.fixture(scope="module")
def graph(mocap_dir, tmp_path_factory):
    """Two walks and two runs copied into a folder, and their graph."""
    folder = tmp_path_factory.mktemp("library")
    for name in (WALK, RUN, WALK_2, RUN_2):
        shutil.copy(mocap_dir / name, folder / name)
    out = tmp_path_factory.mktemp("graph") / "graph.json"
    result = run_loopsmith("graph", folder, "-o", out, "--quiet")
    assert result.returncode == 0, result.stderr
    return out


def _bvh_rows(path):
    text = path.read_text()
    start = text.index("\n", text.index("Frame Time")) + 1
    return text[:start], text[start:].splitlines()


def _hostile_library(mocap_dir, folder):
    """Two good clips, and one bad file of each kind: {name: what its error must say}."""
    folder.mkdir()
    for name in (WALK, RUN):
        shutil.copy(mocap_dir / name, folder / name)
    header, rows = _bvh_rows(mocap_dir / WALK_2)
    bad = {"empty.bvh": ("", "empty"), "cut.bvh": (header + "\n".join(rows[:40])[:-30], "cut short"),
           "garbage.bvh": ("no motion here\n", "HIERARCHY"), "frames.bvh": (re.sub(r"Frames:\s*\d+", "Frames: 9999", header) + "\n".join(rows),
                                                                          "Frames: 9999"),
           "nan.bvh": (header + "\n".join([rows[0].replace(rows[0].split()[4], "nan", 1)] + rows[1:]), "finite"),
           "inf.bvh": (header + "\n".join(rows[:5] + [rows[5].replace(rows[5].split()[3], "inf", 1)] + rows[6:]), "finite")}
    for name, (text, _) in bad.items():
        (folder / name).write_text(text)
    other = folder / "a_other_skeleton.bvh"  # first on the command line: the odd one out is named, not the first
    shutil.copy(mocap_dir.parent / "cmu-dance" / "reference_05_01.bvh", other)
    expected = {name: reason for name, (_, reason) in bad.items()}
    expected.update({"missing.bvh": "no such file", other.name: "skeleton differs"})
    return [other, folder / WALK, folder / RUN, *(folder / name for name in bad), folder / "missing.bvh"], expected


def test_bad_clips_are_named_and_the_graph_is_built_from_the_rest(mocap_dir, tmp_path):
    files, expected = _hostile_library(mocap_dir, tmp_path / "lib")
    out = tmp_path / "out"
    result = run_loopsmith("graph", *files, "-o", out / "graph.json", "--quiet")
    assert result.returncode == 1, result.stderr
    _one_line(result)
    entries = _entries(out)
    built = [entry for entry in entries if entry["status"] == "ok"]
    assert len(built) == 1 and sorted(built[0]["clips"]) == sorted(str(tmp_path / "lib" / name) for name in (WALK, RUN))
    errors = {entry["file"].split("/")[-1]: entry["error"] for entry in entries if entry["status"] != "ok"}
    assert set(errors) == set(expected)
    for name, reason in expected.items():
        assert reason in errors[name] and f"{name}: " in result.stderr, (name, errors[name])
    document = json.loads((out / "graph.json").read_text())
    assert [clip["name"] for clip in document["clips"]] == [WALK, RUN] and all(clip["bones"] for clip in document["clips"])


def test_a_library_with_no_readable_clip_says_so_in_one_line(tmp_path):
    (tmp_path / "a.bvh").write_text("")
    (tmp_path / "b.bvh").write_text("HIERARCHY\n")
    result = run_loopsmith("graph", tmp_path / "a.bvh", tmp_path / "b.bvh", "-o", tmp_path / "out" / "graph.json", "--quiet")
    assert result.returncode == 1
    assert any("no graph: none of the 2 clips" in line for line in _one_line(result)), result.stderr
    assert not (tmp_path / "out" / "graph.json").exists()


def test_still_poses_find_no_transitions_and_leak_no_warning(mocap_dir, tmp_path):
    header, rows = _bvh_rows(mocap_dir / WALK_2)
    for name in ("still_a.bvh", "still_b.bvh"):
        (tmp_path / name).write_text(header + "\n".join([rows[0]] * len(rows)) + "\n")
    result = run_loopsmith("graph", tmp_path / "still_a.bvh", tmp_path / "still_b.bvh", "-o", tmp_path / "out" / "graph.json", "--quiet")
    assert result.returncode == 1
    assert [line for line in _one_line(result) if "no transitions found" in line], result.stderr


def _edit(document, what):
    if what == "fps of clips and settings":
        for clip in document["clips"]:
            clip["fps"] *= 33
        document["settings"]["fps"] *= 33
    elif what == "a clip's bones":
        document["clips"][1]["bones"][0] = "Pelvis"
    elif what == "checksums removed":
        for clip in document["clips"]:
            del clip["sha256"]
    elif what == "settings' fps alone":
        document["settings"]["fps"] = 1000.0
    elif what == "a node out of range":
        document["edges"][0]["to"] = len(document["nodes"]) + 5
    elif what == "a cost of NaN":
        document["edges"][-1]["cost"] = float("nan")
    return json.dumps(document)


@pytest.mark.parametrize("what, code, says", [
    ("not JSON", 2, "is not JSON"), ("nested 100,000 deep", 2, "nested too deep"), ("settings' fps alone", 2, "its settings say"),
    ("a node out of range", 2, "edge 0"), ("a cost of NaN", 2, "NaN"), ("checksums removed", 2, "no file path and SHA-256"),
    ("fps of clips and settings", 1, "plays at 30 fps, the graph says 990"), ("a clip's bones", 1, "has other bones than the graph records"),
])
def test_graph_files_are_checked_in_full_before_anything_is_rendered(graph, tmp_path, what, code, says):
    edited = tmp_path / "graph.json"
    text = {"not JSON": "{'version': 1", "nested 100,000 deep": "[" * 100_000 + "]" * 100_000}.get(what)
    edited.write_text(text or _edit(json.loads(graph.read_text()), what))
    result = run_loopsmith("synth", edited, "--seconds", "4", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == code, result.stderr
    lines = _one_line(result)
    assert len(lines) == 1 and says in lines[0], result.stderr
    assert not list((tmp_path / "out").glob("synthesis*"))


def test_via_advice_names_a_length_that_works_and_the_clip_that_limits_it(graph, tmp_path):
    result = run_loopsmith("synth", graph, "--seconds", "1", "--via", "walk", "run", "walk", "-o", tmp_path / "short", "--quiet")
    assert result.returncode == 2
    (line,) = _one_line(result)
    assert re.search(r"the longest stretch: [\d.]+ s in 'dataset-\d_(walk|run)_\w+\.bvh'", line), line
    enough = re.search(r"takes at least ([\d.]+) s", line).group(1)
    followed = run_loopsmith("synth", graph, "--seconds", enough, "--via", "walk", "run", "walk", "-o", tmp_path / "enough", "--quiet")
    assert followed.returncode == 0, followed.stderr
    entry = _entries(tmp_path / "enough")[0]
    assert abs(entry["frames"] / entry["fps"] - float(enough)) <= 1.0
    kinds = ["run" if "run" in segment["source"] else "walk" for segment in entry["segments"]]
    assert kinds[0] == "walk" and "run" in kinds and "walk" in kinds[kinds.index("run"):]


@pytest.mark.parametrize("args, says", [
    (["--via", "bow"], "no clip in the motion graph is called or contains 'bow'"), (["--via", ""], "--via '' names no clip"),
    (["--via", "walk", "--seed", "3"], "--seed draws a random walk"),
])
def test_impossible_via_requests_are_usage_errors(graph, tmp_path, args, says):
    result = run_loopsmith("synth", graph, "--seconds", "20", *args, "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 2 and says in result.stderr, result.stderr
    _one_line(result)


@pytest.mark.parametrize("command, option, value", [
    ("graph", "--tolerance", "1e9"), ("graph", "--threshold", "1e30"), ("graph", "--tolerance", "nan"),
    ("synth", "--seed", "-1"), ("synth", "--seed", str(2 ** 70)), ("synth", "--seconds", "1e9"), ("synth", "--seconds", "inf"),
    ("synth", "--seconds", "0.001"),
])
def test_absurd_numbers_are_usage_errors_naming_the_option(graph, tmp_path, command, option, value):
    inputs = [graph] if command == "synth" else [graph.parent]
    extra = [] if option == "--seconds" else ["--seconds", "4"] if command == "synth" else []
    result = run_loopsmith(command, *inputs, option, value, *extra, "-o", tmp_path / "out.json", "--quiet")
    assert result.returncode == 2 and f"argument {option}" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
