"""The editing commands (``python -m loopsmith resample|retime|freeze|splice|blend|mirror``) on real files, with make-loop's guarantees."""

import dataclasses
import json
import pathlib

import numpy as np
import pytest

from core.formats import bvh
from helpers import run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

WALK = "dataset-1_walk_normal_001.bvh"
WAVE = "dataset-2_wave-right-hand_normal_021.bvh"
DANCE = "dataset-1_dance-short_normal_001.bvh"
HAPPY = "../bandai-actions/dataset-1_walk_happy_001.bvh"


def _entries(folder):
    return json.loads((pathlib.Path(folder) / "loopsmith_report.json").read_text())["entries"]


def _ok(result):
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_a_120_fps_take_resamples_to_30_without_drift(mocap_dir, tmp_path):
    # A CMU-style 120 fps file: the dance's frames, four to a 30 fps frame.
    dance = bvh.read_bvh(mocap_dir / DANCE)
    fast = tmp_path / "dance120.bvh"
    fast.write_text(bvh.to_text(dataclasses.replace(dance, frame_time=1.0 / 120.0)))
    result = run_loopsmith("resample", fast, "--fps", "30", "-o", tmp_path / "out", "--quiet")
    _ok(result)
    written = bvh.read_bvh(tmp_path / "out" / "dance120_resample.bvh")
    assert written.frame_time == pytest.approx(1 / 30, abs=1e-6) and written.frame_count == (dance.frame_count - 1) // 4 + 1
    # Every written frame is the 120 fps frame it lands on, to the last: no drift over 1901 frames.
    error = bvh.forward_kinematics(written) - bvh.forward_kinematics(dance, np.arange(0, dance.frame_count, 4))
    assert np.abs(error).max() < 0.1  # centimetres: the file's 6 decimals and single-precision keys


def test_retime_and_freeze_and_mirror_write_named_outputs(mocap_dir, tmp_path):
    walk = mocap_dir / WALK
    out = tmp_path / "out"
    _ok(run_loopsmith("retime", walk, "--speed", "0.5", "-o", out, "--format", "bvh", "glb", "--quiet"))
    slow = bvh.read_bvh(out / "dataset-1_walk_normal_001_retime.bvh")
    source = bvh.read_bvh(walk)
    assert slow.frame_count == 2 * source.frame_count - 1 and slow.channels == source.channels
    assert (out / "dataset-1_walk_normal_001_retime.glb").is_file()
    entry = _entries(out)[0]
    assert entry["edit"]["name"] == "retime" and entry["edit"]["numbers"]["speed"] == 0.5
    _ok(run_loopsmith("freeze", walk, "--bone", "UpperArm_L", "--bone", "UpperArm_R", "--range", "20", "80", "-o", out, "--quiet"))
    frozen = bvh.read_bvh(out / "dataset-1_walk_normal_001_freeze.bvh")
    column = sum(len(c) for c in frozen.channels[:frozen.names.index("UpperArm_L")])
    arm = frozen.motion[19:80, column + 3:column + 6]
    assert np.abs(arm - arm[0]).max() < 1e-3  # degrees, the file's precision
    result = run_loopsmith("mirror", walk, "-o", out, "--quiet")
    _ok(result)
    assert "mirrored" in result.stdout
    # One report for the folder: each command's entry for the walk is kept beside the others'.
    assert sorted(entry["command"] for entry in _entries(out)) == ["freeze", "mirror", "retime"]


def test_splice_and_blend_take_a_pair(mocap_dir, tmp_path):
    out = tmp_path / "out"
    walk, wave, happy = mocap_dir / WALK, mocap_dir / WAVE, mocap_dir / HAPPY
    _ok(run_loopsmith("splice", "--lower", walk, "--upper", wave, "-o", out, "--quiet"))
    spliced = bvh.read_bvh(out / "dataset-1_walk_normal_001_dataset-2_wave-right-hand_normal_021_splice.bvh")
    assert spliced.frame_count == bvh.read_bvh(walk).frame_count
    _ok(run_loopsmith("blend", walk, happy, "--weight", "0.5", "-o", out, "--quiet"))
    entry = [e for e in _entries(out) if e["edit"]["name"] == "blend"][0]
    assert entry["with"] == str(happy) and entry["status"] == "ok"
    html = (out / "loopsmith_report.html").read_text()
    assert "Blend" in html and "Splice" in html


@pytest.mark.parametrize("arguments, named", [
    (("retime", WALK), "--speed --duration"),
    (("retime", WALK, "--speed", "0"), "--speed"),
    (("resample", WALK), "--fps"),
    (("resample", WALK, "--fps", "5000"), "--fps"),
    (("freeze", WALK), "--bone"),
    (("freeze", WALK, "--bone", "Head", "--frame", "3", "--rest"), "--rest"),
    (("freeze", WALK, "--bone", "Head", "--blend", "1"), "--blend"),
    (("freeze", WALK, "--bone", "Head", "--range", "50", "10"), "--range"),
    (("blend", WALK), "two files"),
    (("blend", WALK, WAVE, "--weight", "2"), "--weight"),
    (("blend", WALK, WAVE, "--weight", "0.3", "--weight-curve", "0:0", "1:1"), "--weight-curve"),
    (("blend", WALK, WAVE, "--weight-curve", "0:0", "x"), "--weight-curve"),
    (("splice", "--lower", WALK), "--upper"),
    (("splice", WALK, "--lower", WALK, "--upper", WAVE), "not both"),
])
def test_usage_errors_name_the_option(mocap_dir, tmp_path, arguments, named):
    command, *rest = arguments
    rest = [str(mocap_dir / value) if value.endswith(".bvh") else value for value in rest]
    result = run_loopsmith(command, *rest, "-o", tmp_path / "out")
    assert result.returncode == 2, result.stdout + result.stderr
    assert any(word in result.stderr for word in named.split()) and "Traceback" not in result.stderr


def test_bad_inputs_and_impossible_edits_are_one_line_and_exit_1(mocap_dir, tmp_path):
    broken = tmp_path / "broken.bvh"
    broken.write_text("HIERARCHY\nROOT Hips\n{\n")
    out = tmp_path / "out"
    result = run_loopsmith("mirror", broken, "-o", out, "--quiet")
    assert result.returncode == 1 and "broken.bvh" in result.stderr and "Traceback" not in result.stderr
    result = run_loopsmith("freeze", mocap_dir / WALK, "--bone", "Tail", "-o", out, "--quiet")
    assert result.returncode == 1 and "Tail" in result.stderr + result.stdout
    result = run_loopsmith("blend", mocap_dir / WALK, broken, "-o", out, "--quiet")
    assert result.returncode == 1 and "broken.bvh" in result.stderr and "Traceback" not in result.stderr
    assert not list(out.glob("*_freeze*")) and not list(out.glob("*_blend*"))


def _glb_times(path):
    """The first animation's key times (its longest sampler's) of a GLB, parsed here (not by Blender); and the animation count."""
    import struct

    data = path.read_bytes()
    length, _ = struct.unpack_from("<I4s", data, 12)
    document = json.loads(data[20:20 + length])
    binary = data[20 + length + 8:]
    animation = document["animations"][0]
    accessor = max((document["accessors"][sampler["input"]] for sampler in animation["samplers"]), key=lambda a: a["count"])
    view = document["bufferViews"][accessor["bufferView"]]
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    return np.frombuffer(binary[start:start + 4 * accessor["count"]], dtype="<f4"), len(document["animations"])


@pytest.mark.parametrize("fps", [29.97, 60.0])
def test_resampled_outputs_are_timed_at_the_new_rate_in_every_format(mocap_dir, tmp_path, fps):
    out = tmp_path / "out"
    _ok(run_loopsmith("resample", mocap_dir / WALK, "--fps", fps, "-o", out, "--format", "bvh", "glb", "--quiet"))
    written = bvh.read_bvh(out / "dataset-1_walk_normal_001_resample.bvh")
    assert written.frame_time == pytest.approx(1.0 / fps, rel=1e-8)  # not Blender's 6 decimals (1e-5 off at 29.97)
    times, animations = _glb_times(out / "dataset-1_walk_normal_001_resample.glb")
    assert animations == 1 and len(times) == written.frame_count
    assert np.abs(times - np.arange(len(times)) / fps).max() < 1e-4  # Blender's glTF exporter alone would time 29.97 as 30.03


def test_a_file_resampled_there_and_back_keeps_every_frame(mocap_dir, tmp_path):
    _ok(run_loopsmith("resample", mocap_dir / DANCE, "--fps", "120", "-o", tmp_path / "up", "--quiet"))
    _ok(run_loopsmith("resample", tmp_path / "up" / "dataset-1_dance-short_normal_001_resample.bvh", "--fps", "30", "-o", tmp_path / "back",
                      "--quiet"))
    source = bvh.read_bvh(mocap_dir / DANCE)
    back = bvh.read_bvh(tmp_path / "back" / "dataset-1_dance-short_normal_001_resample_resample.bvh")
    assert back.frame_count == source.frame_count
    error = bvh.forward_kinematics(back) - bvh.forward_kinematics(source)
    assert np.abs(error).max() < 0.05  # centimetres, over all 1901 frames: no drift


def test_doubtful_blends_and_splices_are_flagged_in_the_summary(mocap_dir, tmp_path):
    walk = mocap_dir / WALK
    result = run_loopsmith("blend", walk, mocap_dir / "dataset-1_walk-back_normal_001.bvh", "-o", tmp_path / "out", "--quiet")
    _ok(result)  # made, but a forward walk blended with a backward one slides: said so
    assert " VISIBLE " in result.stdout and "toe skating" in result.stdout and "left out" in result.stdout
    result = run_loopsmith("splice", walk, walk, "-o", tmp_path / "out", "--quiet")
    _ok(result)
    assert "the same motion" in result.stdout
