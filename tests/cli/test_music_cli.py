"""compose --music: a click track synthesized here, the entry's music block, refused options, a silent song, and the
.blend with the song's strip, the beat markers and the performance's range (Blender, real clips)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from sound import blender_audio_missing, click_track, RATE, write_wav
from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]
WALKS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh")
BPM, PHASE = 120.0, 0.25


def _click_track(path, seconds=20.0):
    return write_wav(path, click_track(seconds, BPM, PHASE)[0])


def _walks(mocap_dir):
    return [mocap_dir / name for name in WALKS]


def test_compose_to_a_click_track(mocap_dir, tmp_path):
    if blender_audio_missing():  # its .blend output carries the song as a sound strip
        pytest.skip(blender_audio_missing())
    song = _click_track(tmp_path / "click.wav")
    done = run_loopsmith("compose", *_walks(mocap_dir), "--music", song, "-o", tmp_path / "out", "--format", "bvh", "blend", "--quiet")
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]
    music = entry["music"]
    print({key: music[key] for key in ("tempo_bpm", "ratio", "stretch_range", "on_beat_before", "on_beat_after", "visibility_before",
                                       "visibility_after", "skating_before", "skating_after_per_input")})
    assert abs(music["tempo_bpm"] - BPM) < 2 and music["on_beat_after"] >= 0.8 and music["verdict"]["word"] == "GOOD"
    assert 0.8 - 1e-6 <= music["stretch_range"][0] <= music["stretch_range"][1] <= 1.25 + 1e-6
    assert entry["figure"]["audio"] and entry["figure"]["beats"] == music["beats"] and entry["frames"] == entry["figure"]["last"] + 1
    assert "offsets from the beat" in (tmp_path / "out" / "loopsmith_report.html").read_text()
    script = ("import bpy, json, sys; bpy.ops.wm.open_mainfile(filepath=sys.argv[1]); s = bpy.context.scene; e = s.sequence_editor; "
              "strips = list(e.strips if hasattr(e, 'strips') else e.sequences); "
              "print(json.dumps({'strips': [[x.type, x.frame_final_start, bpy.path.abspath(x.sound.filepath)] for x in strips], "
              "'range': [s.frame_start, s.frame_end], 'markers': sorted(m.frame for m in s.timeline_markers)}))")
    opened = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out" / "composition.blend")], capture_output=True, text=True)
    found = json.loads(opened.stdout.strip().splitlines()[-1])
    first, last = found["range"]
    assert last - first + 1 == entry["frames"]
    assert [kind for kind, _, _ in found["strips"]] == ["SOUND"] and found["strips"][0][1] == first
    assert found["strips"][0][2].endswith("click.wav")
    expected = [first + int(round(beat * 30)) for beat in music["beats"]]
    assert len(found["markers"]) == len(expected) and np.max(np.abs(np.array(found["markers"]) - expected)) <= 1


def test_max_stretch_without_music_is_refused(mocap_dir, tmp_path):
    done = run_loopsmith("compose", *_walks(mocap_dir), "--max-stretch", "0.9", "1.1", "-o", tmp_path / "out")
    assert done.returncode == 2 and "--max-stretch applies to --music" in done.stderr.strip().splitlines()[-1]


def test_a_silent_song_has_no_steady_beat(mocap_dir, tmp_path):
    song = write_wav(tmp_path / "silence.wav", np.zeros(RATE * 10, np.float32))
    done = run_loopsmith("compose", *_walks(mocap_dir), "--music", song, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 1 and "no steady beat found in" in done.stderr and "Traceback" not in done.stderr
    assert not list((tmp_path / "out").glob("composition.*"))
