"""synth --music and compose --music through the command line: a graph over shared walks and a run synthesized to a 120 BPM
click track (keyposes on the beat), a tempo out of reach of --max-stretch, and a song shorter than one bar (Blender, real clips)."""

import json

import pytest

from helpers import run_loopsmith
from sound import click_track, write_wav

pytestmark = [pytest.mark.blender, pytest.mark.realdata]
CLIPS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh", "dataset-2_run_normal_040.bvh")


@pytest.fixture(scope="module")
def graph(mocap_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("graph")
    done = run_loopsmith("graph", *[mocap_dir / name for name in CLIPS], "-o", out / "graph.json", "--quiet")
    assert done.returncode == 0, done.stderr
    return out / "graph.json"


def _click(path, bpm, seconds):
    return write_wav(path, click_track(seconds, bpm, 0.25)[0])


def _one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_synth_to_a_click_track(graph, tmp_path):
    song = _click(tmp_path / "click.wav", 120.0, 20.0)
    done = run_loopsmith("synth", graph, "--seconds", "10", "--music", song, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    music = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]["music"]
    print({key: music.get(key) for key in ("tempo_bpm", "ratio", "stretch_range", "on_beat_before", "on_beat_after", "seeds")})
    assert music["on_beat_after"] >= 0.8


def test_synth_to_a_tempo_out_of_reach(graph, tmp_path):
    # Walks keep about 110 keyposes a minute and runs 150: at 70 BPM neither fits within 1% at one, two or half a keypose per beat.
    song = _click(tmp_path / "click.wav", 70.0, 20.0)
    done = run_loopsmith("synth", graph, "--seconds", "10", "--music", song, "--max-stretch", "0.99", "1.01", "-o", tmp_path / "out",
                         "--quiet")
    assert done.returncode == 1 and "would need" in _one_line(done.stderr)


def test_compose_to_a_song_shorter_than_a_bar(mocap_dir, tmp_path):
    song = _click(tmp_path / "short.wav", 120.0, 1.5)
    walks = [mocap_dir / name for name in CLIPS[:2]]
    done = run_loopsmith("compose", *walks, "--music", song, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 1, done.stderr
    print(_one_line(done.stderr))
    assert not list((tmp_path / "out").glob("composition.*"))
