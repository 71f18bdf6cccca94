"""The compose command: segments and junction windows in the report, the page, usage errors."""

import json

import pytest

from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

WALK, RUN = "dataset-1_walk_normal_001.bvh", "dataset-2_run_normal_040.bvh"


def test_compose_command_reports_segments_and_windows_in_the_file(loopsmith, blank, mocap_dir, tmp_path):
    walk, run = mocap_dir / WALK, mocap_dir / RUN
    result = run_loopsmith("compose", walk, run, walk, "-o", tmp_path, "--format", "bvh", "glb", "--range", "2", "10", "100")
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "loopsmith_report.json").read_text())["entries"][0]
    assert entry["command"] == "compose" and [s["source"] for s in entry["segments"]] == [str(walk), str(run), str(walk)]
    written = loopsmith.core.formats.bvh.parse_bvh((tmp_path / "composition.bvh").read_text())
    assert written.frame_count == entry["frames"]
    outs = [s["output_frames"] for s in entry["segments"]]
    assert outs[0][0] == 0 and outs[-1][1] == entry["frames"] - 1 and all(b[0] == a[1] + 1 for a, b in zip(outs, outs[1:]))
    assert 10 <= entry["segments"][1]["range"][0] and entry["segments"][1]["range"][1] <= 100
    # Each point is near its junction: the run hands over in the later half of the range it was given (10-100).
    assert entry["segments"][1]["range"][1] >= 55
    for transition, (before, after) in zip(entry["transitions"], zip(outs, outs[1:])):
        first, last = transition["window"]
        assert before[0] <= first <= after[0] <= last <= entry["frames"] - 1  # the blend straddles the junction, in the file's frames
        assert transition["metrics"]["visibility"] <= 1.2
    html = (tmp_path / "loopsmith_report.html").read_text()
    assert "Segments in order" in html and "<svg" in html
    for args, message in (((walk,), "at least two files"), ((walk, run, "--range", "3", "1", "10"), "there is no clip 3"),
                          ((walk, run, "--at", "2", "1", "1"), "there is no junction 2"), ((walk, tmp_path), "not folders")):
        failed = run_loopsmith("compose", *args, "-o", tmp_path / "bad")
        assert failed.returncode == 2 and message in failed.stderr, failed.stderr
