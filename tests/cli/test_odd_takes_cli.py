"""Takes the corpus showed are odd: a frame rate that is no whole number (a Frame Time of 0.008333 s, 120.005 fps, as the
SFU and Xia databases write it) keeps every frame in a GLB, a one-frame pose converts to every format, and a transition
near a short take's end shortens its blend and says so."""

import json

import numpy as np
import pytest

from helpers import run_loopsmith

pytestmark = [pytest.mark.blender]
bpy = pytest.importorskip("bpy")


def _chain_bvh(frames, frame_time):
    """A three-joint chain, centimetres, its root travelling and every joint turning a little on every frame."""
    rows = []
    for frame in range(frames):
        turn = 20.0 * np.sin(frame * 0.05)
        rows.append(f"{0.5 * frame:.4f} 90 0 0 {turn:.4f} 0 {turn:.4f} 0 0 0 0 {-turn:.4f}")
    return ("HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 90 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
            "\tJOINT Knee\n\t{\n\t\tOFFSET 0 -45 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
            "\t\tJOINT Ankle\n\t\t{\n\t\t\tOFFSET 0 -45 0\n\t\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
            "\t\t\tEnd Site\n\t\t\t{\n\t\t\t\tOFFSET 0 0 10\n\t\t\t}\n\t\t}\n\t}\n}\n"
            f"MOTION\nFrames: {frames}\nFrame Time: {frame_time}\n" + "\n".join(rows) + "\n")


def test_a_take_at_120_005_fps_keeps_every_frame_in_a_glb(tmp_path):
    (tmp_path / "walk.bvh").write_text(_chain_bvh(270, "0.008333"))
    done = run_loopsmith("convert", tmp_path / "walk.bvh", "--format", "glb", "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    [entry] = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"]
    [back] = entry["read_back"].values()
    assert back["frames"] == 270 and back["joints_m"] < 1e-5, back  # on the old code 269 frames: the GLB read back at 120 fps
    assert entry["verdict"]["word"] == "GOOD", entry["verdict"]


def test_a_one_frame_pose_converts_to_glb_fbx_and_blend(tmp_path):
    (tmp_path / "pose.bvh").write_text(_chain_bvh(1, "0.041667"))
    done = run_loopsmith("convert", tmp_path / "pose.bvh", "--format", "glb", "fbx", "blend", "bvh", "-o", tmp_path / "out")
    assert done.returncode == 0, done.stderr  # on the old code: "frame range 1-1 has fewer than two frames"
    assert "1 frame (a pose)" in done.stdout, done.stdout
    [entry] = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"]
    assert entry["verdict"]["word"] == "GOOD", entry["verdict"]
    assert [back["frames"] for back in entry["read_back"].values()] == [1, 1, 1, 1], entry["read_back"]


def test_a_transition_near_a_takes_end_shortens_its_blend_and_says_so(tmp_path):
    (tmp_path / "chain.bvh").write_text(_chain_bvh(60, "0.0333333"))
    done = run_loopsmith("transition", tmp_path / "chain.bvh", tmp_path / "chain.bvh", "--at", "30", "56", "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr  # on the old code: "TO (chain.bvh) ends 26 frames before the blend does"
    [entry] = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"]
    assert entry["transition"]["shortened"] and entry["transition"]["length_s"] == pytest.approx(4 / 30, abs=1e-3)
    assert entry["verdict"]["word"] != "GOOD"
    assert any(reason.startswith("the blend is shortened to 0.133 s") for reason in entry["verdict"]["reasons"]), entry["verdict"]
