"""follow on the command line: a bad path or a speed the clips cannot reach is one line naming the file, an SVG drawing is
followed (the motion and its targets: tests/realdata/test_realdata_follow.py)."""

import json

import pytest

from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

GAITS = ("dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh")


@pytest.fixture(scope="module")
def graph(mocap_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("graph") / "graph.json"
    assert run_loopsmith("graph", *(mocap_dir / name for name in GAITS), "-o", out, "--quiet").returncode == 0
    return out


def test_a_bad_path_and_a_speed_out_of_reach_are_one_line(graph, tmp_path):
    empty, straight = tmp_path / "empty.json", tmp_path / "straight.json"
    empty.write_text(json.dumps({"points": []}))
    straight.write_text(json.dumps({"points": [[0, 0], [4, 0]]}))
    result = run_loopsmith("follow", graph, "--path", empty, "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 2 and f"{empty}: the path is empty" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    result = run_loopsmith("follow", graph, "--path", straight, "--speed", "5", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 1 and "a speed of 5 m/s is out of the clips' reach: they travel at 1.01-2.11 m/s" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out" / "follow.bvh").exists()
    result = run_loopsmith("follow", graph, "--path", straight, "--svg-scale", "0.01", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 2 and "--svg-scale scales an SVG drawing" in result.stderr
    result = run_loopsmith("follow", graph, "--path", straight, "--horizon", "9", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 2 and "--horizon" in result.stderr and "0.5" in result.stderr and "Traceback" not in result.stderr


def test_an_svg_drawing_is_followed(graph, tmp_path):
    drawing = tmp_path / "path.svg"
    drawing.write_text('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 H300 c 100 0 100 -100 100 -100"/></svg>')
    result = run_loopsmith("follow", graph, "--path", drawing, "--svg-scale", "0.01", "--end", "walk", "--horizon", "1.5",
                           "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][0]
    points = entry["follow"]["points"]
    assert points[0] == [0, 0] and points[-1] == [4, 1]  # Y turned up, 0.01 m per unit
    assert entry["follow"]["numbers"]["deviation_max_m"] <= 0.15 and (tmp_path / "out" / "follow.bvh").is_file()
    # Walking to the end as asked, searched 1.5 s ahead: no standing pose is looked for, so none is missed in the notes.
    assert entry["follow"]["end_asked"] == "walk" and entry["follow"]["horizon_s"] == 1.5
    assert entry["follow"]["numbers"]["ends_standing"] == 0 and not any("standing" in note for note in entry["follow"]["notes"])
