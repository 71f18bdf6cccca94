"""The motion graph on the command line: the graph and synth commands (Build Graph / Synthesize in Blender are in
tests/blender/test_blender_graph.py)."""

import importlib
import json
import pathlib
import shutil
from html import escape

import numpy as np
import pytest

from helpers import run_loopsmith, strongly_connected

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

GAITS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_run_normal_040.bvh",
         "dataset-2_walk-turn-left_normal_007.bvh", "dataset-1_walk-left_normal_001.bvh", "dataset-1_walk-right_normal_001.bvh")


@pytest.fixture(scope="module")
def library(mocap_dir, tmp_path_factory):
    """The walk and run clips copied into a folder (so one can be changed), and the graph built over them."""
    folder = tmp_path_factory.mktemp("library")
    for name in GAITS:
        shutil.copy(mocap_dir / name, folder / name)
    out = tmp_path_factory.mktemp("graph")
    result = run_loopsmith("graph", folder, "-o", out / "graph.json")
    assert result.returncode == 0, result.stderr
    return folder, out


def _entry(folder):
    return json.loads((folder / "loopsmith_report.json").read_text())["entries"][0]


def test_graph_command_writes_a_documented_strongly_connected_graph(library):
    folder, out = library
    document = json.loads((out / "graph.json").read_text())
    assert document["version"] == 1 and {"clips", "nodes", "edges", "stats"} <= set(document)
    assert all(clip["path"].endswith(".bvh") and len(clip["sha256"]) == 64 for clip in document["clips"])
    kinds = {edge["kind"] for edge in document["edges"]}
    assert kinds == {"clip", "transition"}
    count = len(document["nodes"])
    assert strongly_connected(count, document["edges"])
    entry = _entry(out)
    assert entry["command"] == "graph" and entry["graph"]["nodes"] == count
    html = (out / "loopsmith_report.html").read_text()
    assert "Clips as lanes to scale, transitions bundled" in html and "threshold" in html


def test_synth_lasts_as_asked_with_clean_transitions_and_the_same_seed_repeats(loopsmith, library, tmp_path):
    _, out = library
    runs = []
    for name in ("a", "b"):
        result = run_loopsmith("synth", out / "graph.json", "--seconds", "12", "--seed", "7", "-o", tmp_path / name, "--format", "bvh")
        assert result.returncode == 0, result.stderr
        runs.append(_entry(tmp_path / name))
    entry = runs[0]
    assert abs(entry["frames"] / entry["fps"] - 12.0) <= 1.0
    assert entry["transitions"] and all(t["metrics"]["visibility"] <= 1.2 for t in entry["transitions"])
    for transition in entry["transitions"]:
        first, last = transition["window"]
        assert 0 <= first <= last < entry["frames"]
    # The same seed, the same motion: the same transitions and the same file, to the last digit it writes (sums in forward
    # kinematics may differ in their last bit with memory alignment, which can flip a rounding once in a long while).
    assert [t["window"] for t in runs[1]["transitions"]] == [t["window"] for t in entry["transitions"]]
    a, b = (loopsmith.core.formats.bvh.parse_bvh((tmp_path / name / "synthesis.bvh").read_text()) for name in ("a", "b"))
    assert a.names == b.names and a.motion.shape == b.motion.shape and np.abs(a.motion - b.motion).max() <= 1e-6
    # 16 s: the cheapest way from a walk into a run may now pass through a turning walk first (each transition plays 2 s).
    via = run_loopsmith("synth", out / "graph.json", "--seconds", "16", "--via", "walk", "run", "walk", "-o", tmp_path / "via")
    assert via.returncode == 0, via.stderr
    sources = [segment["source"] for segment in _entry(tmp_path / "via")["segments"]]
    kinds = [("run" if "run" in source else "walk") for source in sources]
    assert "run" in kinds and kinds.index("run") > 0 and "walk" in kinds[kinds.index("run"):]


def test_synth_refuses_a_changed_clip_and_a_file_that_is_no_graph(library, tmp_path):
    folder, out = library
    graph = tmp_path / "graph.json"
    document = json.loads((out / "graph.json").read_text())
    changed = tmp_path / GAITS[0]
    shutil.copy(folder / GAITS[0], changed)
    document["clips"][0]["path"] = str(changed)
    graph.write_text(json.dumps(document))
    with changed.open("a") as stream:
        stream.write("\n")
    result = run_loopsmith("synth", graph, "--seconds", "5", "-o", tmp_path / "out")
    assert result.returncode == 2 and "has changed since the graph was built" in result.stderr
    (tmp_path / "notes.json").write_text("{}")
    result = run_loopsmith("synth", tmp_path / "notes.json", "--seconds", "5", "-o", tmp_path / "out")
    assert result.returncode == 2 and "is not a motion graph" in result.stderr and "Traceback" not in result.stderr


def test_graph_names_what_it_leaves_out_and_its_coverage_in_summary_json_and_page(library, tmp_path):
    folder, _ = library
    out = tmp_path / "tight"
    result = run_loopsmith("graph", folder, "-o", out / "graph.json", "--tolerance", "0.3")
    assert result.returncode == 0, result.stderr
    graph = _entry(out)["graph"]
    coverage = graph["coverage"]
    assert 0 < coverage["clips_kept"] < coverage["clips"] == len(GAITS) and 0 < coverage["frames_kept"] < coverage["frames"]
    assert graph["left_out"] and len(graph["left_out"]) == coverage["clips"] - coverage["clips_kept"]
    html = (out / "loopsmith_report.html").read_text()
    covers = f"{coverage['clips_kept']}/{coverage['clips']} clips, {coverage['frames_kept']:,}/{coverage['frames']:,} frames"
    assert f"covers {covers}" in result.stdout and f"Coverage: {covers}" in html
    for entry in graph["left_out"]:
        assert entry["name"] in GAITS and entry["reason"] and entry["include"].startswith("--tolerance ")
        assert entry["name"] in result.stdout and entry["include"] in result.stdout
        assert escape(entry["name"]) in html and escape(entry["include"]) in html and escape(entry["reason"]) in html
    document = json.loads((out / "graph.json").read_text())
    assert all({"clip", "name", "reason", "include"} <= set(entry) for entry in document["stats"]["left_out"])
    assert [entry["name"] for entry in document["stats"]["left_out"]] == [entry["name"] for entry in graph["left_out"]]
    assert document["stats"]["coverage"] == coverage


def test_the_same_take_in_two_folders_makes_a_graph_that_reads_back(loopsmith, mocap_dir, tmp_path):
    # Identical windows sum to a float32 rounding below 0 (-2e-8): the graph was written, failed to read back, and the command failed.
    for folder in ("a", "b"):
        (tmp_path / "lib" / folder).mkdir(parents=True)
        shutil.copy(mocap_dir / GAITS[0], tmp_path / "lib" / folder / GAITS[0])
    shutil.copy(mocap_dir / GAITS[2], tmp_path / "lib" / "a" / GAITS[2])
    result = run_loopsmith("graph", tmp_path / "lib", "-o", tmp_path / "out" / "graph.json")
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "out" / "graph.json").read_text())
    graph = importlib.import_module(f"{loopsmith.__name__}.core.formats.graph_json").graph_from_json(document)
    assert min(edge["cost"] for edge in graph.edges) >= 0.0 and min(edge["cost"] for edge in document["edges"]) >= 0.0
    assert {clip["name"] for clip in graph.clips} == {f"a/{GAITS[0]}", f"b/{GAITS[0]}", f"a/{GAITS[2]}"}
    assert _entry(tmp_path / "out")["graph"]["coverage"]["clips_kept"] == 3


def test_clips_with_one_file_name_in_two_folders_keep_apart(loopsmith):
    distinct_names = importlib.import_module(f"{loopsmith.__name__}.pipeline.commands.graph.job").distinct_names
    names = distinct_names([pathlib.Path("/lib/a/take.bvh"), pathlib.Path("/lib/b/take.bvh"), pathlib.Path("/lib/a/walk.bvh")])
    assert names == ["a/take.bvh", "b/take.bvh", "a/walk.bvh"]
    assert distinct_names([pathlib.Path("/lib/a/take.bvh"), pathlib.Path("/lib/a/walk.bvh")]) == ["take.bvh", "walk.bvh"]
