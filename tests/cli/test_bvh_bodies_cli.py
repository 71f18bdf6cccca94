"""convert on skeletons whose unit the old rule got wrong (a crouching biped, a dog, one joint): each reads, converts, and
the summary says which unit was chosen and why."""

import numpy as np

from bvh_bodies import BIPED, BIPED_ENDS, CM, CROUCH, DOG, DOG_ENDS, INCH, SIX, body_info
from core.formats import bvh
from helpers import run_loopsmith


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
