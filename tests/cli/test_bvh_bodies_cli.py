"""convert on skeletons whose unit the old rule got wrong (a crouching biped, a dog, one joint), and transition between
two rigs of other sizes and units: each reads, the summary says each input's unit and why, the body stays on the floor."""

import json
import pathlib

import numpy as np
import pytest

from bvh_bodies import BIPED, BIPED_ENDS, CM, CROUCH, DOG, DOG_ENDS, INCH, OTHER_ENDS, OTHER_RIG, SIX, body_info, renamed_walk, walk
from core.formats import bvh
from helpers import run_loopsmith

pytestmark = pytest.mark.blender


def test_convert_says_each_inputs_unit_and_why(tmp_path):
    walking = [[0, 0.45, 0.05 * frame] for frame in range(6)]
    (tmp_path / "crouch.bvh").write_text(bvh.to_text(body_info(BIPED, BIPED_ENDS, INCH, CROUCH, root_positions=walking, frames=6)))
    (tmp_path / "dog.bvh").write_text(bvh.to_text(body_info(DOG, DOG_ENDS, CM, root_positions=np.add(walking, [0, 0.15, 0]), frames=6)))
    (tmp_path / "one.bvh").write_text("HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 " + " ".join(SIX) + "\n}\nMOTION\n"
                                      "Frames: 2\nFrame Time: 0.04\n0 0.9 0 0 0 0\n0.1 0.9 0 0 0 5\n")
    result = run_loopsmith("convert", tmp_path / "crouch.bvh", tmp_path / "dog.bvh", tmp_path / "one.bvh", "-o", tmp_path / "out",
                           "--format", "bvh")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith(f"BVH scale {0.0254:g} m per unit (1 file): inches: the skeleton stands 1.7") for line in lines), lines
    assert any(line.startswith("BVH scale 0.01 m per unit (1 file): centimetres: its legs are 0.5") for line in lines), lines
    assert "BVH scale 1 m per unit (1 file): metres: the skeleton has no size to measure (one joint)" in result.stdout
    for name in ("crouch", "dog", "one"):
        written = bvh.read_bvh(tmp_path / "out" / f"{name}.bvh")
        assert written.frame_count == bvh.read_bvh(tmp_path / f"{name}.bvh").frame_count


def test_a_transition_between_rigs_says_each_inputs_unit_and_stands_on_the_floor(tmp_path):
    (tmp_path / "game.bvh").write_text(bvh.to_text(body_info(BIPED, BIPED_ENDS, CM, *walk(90, 30, 0.95), frames=90)))
    (tmp_path / "cmu.bvh").write_text(bvh.to_text(body_info(OTHER_RIG, OTHER_ENDS, INCH, *walk(90, 30, 1.11), frames=90)))
    result = run_loopsmith("transition", tmp_path / "game.bvh", tmp_path / "cmu.bvh", "-o", tmp_path / "out", "--at", "40", "30")
    assert result.returncode == 0, result.stderr
    assert "BVH scale 0.01 m per unit (1 file): centimetres: the skeleton stands" in result.stdout
    assert f"BVH scale {0.0254:g} m per unit (1 file): inches: the skeleton stands" in result.stdout
    assert "off the floor" not in result.stdout, result.stdout
    [entry] = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"]
    assert [(pathlib.Path(other["file"]).name, other["bvh_unit"]) for other in entry["other_imports"]] == [("cmu.bvh", "inches")]
    blended = run_loopsmith("blend", tmp_path / "game.bvh", tmp_path / "cmu.bvh", "-o", tmp_path / "blend")  # an edit of two files
    assert blended.returncode == 0 and f"BVH scale {0.0254:g} m per unit (1 file): inches" in blended.stdout, blended.stdout


def test_names_with_spaces_and_colons_convert_to_every_format_and_back(tmp_path):
    (tmp_path / "names.bvh").write_text(bvh.to_text(renamed_walk()))
    result = run_loopsmith("convert", tmp_path / "names.bvh", "-o", tmp_path / "out", "--format", "bvh", "fbx", "glb", "--quiet")
    assert result.returncode == 0, result.stderr
    back = run_loopsmith("convert", tmp_path / "out" / "names.fbx", tmp_path / "out" / "names.glb", "-o", tmp_path / "back", "--format",
                         "bvh", "--quiet")
    assert back.returncode == 0, back.stderr
    for written in (tmp_path / "out" / "names.bvh", *sorted((tmp_path / "back").glob("*.bvh"))):
        names = bvh.read_bvh(written).names
        assert "Bip01 L Thigh" in names and "mixamorig:Hips" in names, (written.name, names)
    refused = run_loopsmith("convert", tmp_path / "names.bvh", "-o", tmp_path / "blender", "--format", "bvh", "--bvh-reader", "blender",
                            "--quiet")
    assert refused.returncode == 1 and "joint name 'Bip01 L Thigh' has spaces, which it turns into 'Bip01_L_Thigh'" in refused.stderr


def test_a_pose_held_for_several_frames_converts_to_glb(tmp_path):
    # The glTF exporter keeps two keys of a channel that never changes: the check wanted one key per frame.
    (tmp_path / "held.bvh").write_text(bvh.to_text(body_info(BIPED, BIPED_ENDS, CM, CROUCH, frames=5)))
    result = run_loopsmith("convert", tmp_path / "held.bvh", "-o", tmp_path / "out", "--format", "glb", "bvh", "--quiet")
    assert result.returncode == 0, result.stderr
    assert bvh.read_bvh(tmp_path / "out" / "held.bvh").frame_count == 5 and (tmp_path / "out" / "held.glb").stat().st_size > 0
