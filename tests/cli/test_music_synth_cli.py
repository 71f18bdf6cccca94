"""synth --music and compose --music through the command line: a graph over shared walks and a run synthesized to a 120 BPM
click track (keyposes on the beat), a tempo out of reach of --max-stretch, and a song shorter than one bar (Blender, real clips)."""

import json

import numpy as np
import pytest

from helpers import built_graph, run_loopsmith
from sound import click_track, write_wav

pytestmark = [pytest.mark.blender, pytest.mark.realdata]
CLIPS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh", "dataset-2_run_normal_040.bvh")


@pytest.fixture(scope="module")
def graph(mocap_dir, tmp_path_factory):
    return built_graph([mocap_dir / name for name in CLIPS], tmp_path_factory.mktemp("graph"))


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
    assert done.returncode == 0, done.stderr  # was refused: performed at the nearest stretch allowed, and told how near
    music = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]["music"]
    reasons = " ".join(music["verdict"]["reasons"])
    print(reasons)
    assert music["verdict"]["word"] == "CHECK" and music["out_of_reach"] and "would need" in reasons and "--max-stretch" in reasons


def test_compose_to_a_song_shorter_than_a_bar(mocap_dir, tmp_path):
    song = _click(tmp_path / "short.wav", 120.0, 1.5)
    walks = [mocap_dir / name for name in CLIPS[:2]]
    done = run_loopsmith("compose", *walks, "--music", song, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 1, done.stderr
    print(_one_line(done.stderr))
    assert not list((tmp_path / "out").glob("composition.*"))


def test_synth_lasts_to_the_last_beat_within_its_seconds(graph, tmp_path):
    """The sync may play faster than captured: synth makes enough motion to last --seconds, and ends on the last beat in them."""
    song = _click(tmp_path / "click.wav", 110.0, 30.0)
    done = run_loopsmith("synth", graph, "--seconds", "8", "--music", song, "--seed", "1", "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    music = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]["music"]
    beats = [0.25 + k * 60.0 / 110.0 for k in range(60)]
    last = max(beat for beat in beats if beat <= 8.0)
    print(f"ends at {music['end_s']} s, the last beat within 8 s at {last:.3f} s")
    assert abs(music["end_s"] - last) < 0.02 and music["on_beat_after"] >= 0.8


def test_synth_dances_runs_at_three_keyposes_to_two_beats(mocap_dir, tmp_path):
    """On a graph of two walks and two runs every random walk of 8 s passes a run, which at 100 BPM (155 keyposes a minute)
    would need 1.29x at two keyposes a beat, 0.65x at one (synth refused it): it takes three keyposes to two beats."""
    runs = ("dataset-1_run_happy_001.bvh", "dataset-2_run_normal_040.bvh")
    done = run_loopsmith("graph", *[mocap_dir / name for name in (*CLIPS[:2], *runs)], "-o", tmp_path / "g" / "graph.json", "--quiet")
    assert done.returncode == 0, done.stderr
    song = _click(tmp_path / "click.wav", 100.0, 20.0)
    done = run_loopsmith("synth", tmp_path / "g" / "graph.json", "--seconds", "8", "--music", song, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    music = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]["music"]
    print(music["verdict"], music["parts"])
    assert not music["out_of_reach"] and any("run" in part["clip"] and part["ratio"] == 1.5 for part in music["parts"])


def test_a_song_fault_names_the_song_and_a_clip_fault_the_clip(mocap_dir, tmp_path):
    """Noise has no beat: the line names the song, not the first clip; a run out of a 120 BPM song's reach within 0.9-1.1x
    (1.16x at three keyposes to two beats) is danced, its verdict naming the run."""
    noise = write_wav(tmp_path / "noise.wav", 0.3 * np.random.default_rng(0).standard_normal(22050 * 10))
    walks = [mocap_dir / name for name in CLIPS[:2]]
    done = run_loopsmith("compose", *walks, "--music", noise, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 1 and _one_line(done.stderr).startswith(f"loopsmith: {noise}: no steady beat found in")
    song = _click(tmp_path / "click.wav", 120.0, 20.0)
    run = mocap_dir / "dataset-1_run_happy_001.bvh"
    done = run_loopsmith("compose", walks[0], run, walks[1], "--music", song, "--max-stretch", "0.9", "1.1", "-o", tmp_path / "out",
                         "--quiet")
    assert done.returncode == 0, done.stderr
    music = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]["music"]
    reasons = music["verdict"]["reasons"]
    assert any(reason.startswith("dataset-1_run_happy_001.bvh would need 1.1") for reason in reasons), reasons
    waveform = np.array(music["waveform"]["values"])  # the song under the beats and keyposes: a click's peak on every beat
    assert len(waveform) * music["waveform"]["step_s"] >= music["end_s"] - 0.1 and 0.5 < waveform.max() <= 1.0
    assert 'class="waveform"' in (tmp_path / "out" / "loopsmith_report.html").read_text()
    assert music["other_bpm"] in (pytest.approx(60.0, rel=0.02), pytest.approx(240.0, rel=0.02))  # the pulse's other level
    assert all(part["danced_bpm"] == pytest.approx(part["ratio"] * 120.0, rel=0.02) for part in music["parts"])
    done = run_loopsmith("compose", *walks, "--music", song, "--music-start", "25", "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 1 and _one_line(done.stderr) == f"loopsmith: {song}: --music-start 25 s is past the end of the song (20.0 s long)"
    done = run_loopsmith("compose", *walks, "--music", tmp_path, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 2 and done.stderr.strip().endswith(f"--music {tmp_path}: a folder, not a song file")


@pytest.mark.parametrize("bpm", [110.0, 90.0])
def test_a_loop_to_music_plays_whole_bars(mocap_dir, tmp_path, bpm):
    song = _click(tmp_path / "click.wav", bpm, 40.0)
    walks = [mocap_dir / name for name in CLIPS[:2]]
    done = run_loopsmith("compose", *walks, "--music", song, "--loop", "--max-stretch", "0.75", "1.25", "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    music = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]["music"]
    bars = music["end_s"] / (4 * 60.0 / bpm)
    print(f"{bpm:g} BPM: {bars:.3f} bars, {music['on_beat_after']:.0%} on the beat")
    assert abs(bars - round(bars)) * 4 * 60.0 / bpm <= 1.5 / 30.0 and music["on_beat_after"] >= 0.8


def test_a_loop_no_whole_bars_hold_inside_the_stretch_is_made_at_the_nearest_and_checked(mocap_dir, tmp_path):
    song = _click(tmp_path / "click.wav", 90.0, 40.0)
    walks = [mocap_dir / name for name in CLIPS[:2]]
    done = run_loopsmith("compose", *walks, "--music", song, "--loop", "--max-stretch", "0.99", "1.01", "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr  # was refused: it would need more than 1.01x (or less than 0.99x) to fill whole bars
    music = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]["music"]
    reasons = " ".join(music["verdict"]["reasons"])
    print(reasons)
    assert music["verdict"]["word"] == "CHECK" and "to loop in whole bars of the song" in reasons and "--max-stretch" in reasons
    assert min(music["stretch_range"]) >= 0.99 - 1e-6 and max(music["stretch_range"]) <= 1.01 + 1e-6
