"""follow on the command line: a bad path or a speed the clips cannot reach is one line naming the file (the motion and its
targets: tests/realdata/test_realdata_follow.py; a run that works: tests/cli/test_smoke_commands.py)."""

import json

import pytest

from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

GAITS = ("dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh")


def test_a_bad_path_and_a_speed_out_of_reach_are_one_line(mocap_dir, tmp_path):
    graph = tmp_path / "graph.json"
    assert run_loopsmith("graph", *(mocap_dir / name for name in GAITS), "-o", graph, "--quiet").returncode == 0
    empty, straight = tmp_path / "empty.json", tmp_path / "straight.json"
    empty.write_text(json.dumps({"points": []}))
    straight.write_text(json.dumps({"points": [[0, 0], [4, 0]]}))
    result = run_loopsmith("follow", graph, "--path", empty, "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 2 and f"{empty}: the path is empty" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    result = run_loopsmith("follow", graph, "--path", straight, "--speed", "5", "-o", tmp_path / "out", "--quiet")
    assert result.returncode == 1 and "a speed of 5 m/s is out of the clips' reach: they travel at 1.01-2.11 m/s" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out" / "follow.bvh").exists()
