"""Files as exporters write them: names with spaces (3ds Max, Truebones) or colons (Mixamo), one joint, six channels on
every joint, tabs and CRLF, frame counts in the hundreds of thousands; a file that is no BVH names its line."""

import time

import numpy as np
import pytest

from bvh_bodies import BIPED, BIPED_ENDS, CM, SIX, body_info, renamed_walk, walk
from core.formats import bvh

def test_names_with_spaces_and_colons_read_and_write_back():
    info = renamed_walk()
    assert "Bip01 L Thigh" in info.names and "mixamorig:Hips" in info.names
    back = bvh.parse_bvh(bvh.to_text(info).replace("\n", "\r\n"))  # CRLF, and the writer's tabs
    assert back.names == info.names and np.abs(back.motion - info.motion).max() < 1e-5
    assert bvh.up_axis(info) == "Y" and bvh.guess_scale(info).unit == "centimetres"


def test_six_channels_on_every_joint_read_as_the_offsets():
    info = body_info(BIPED, BIPED_ENDS, CM, *walk(30, 30, 0.95), frames=30)
    six = (SIX,) * len(info.names)
    # Perception Neuron's layout: every joint's position (its OFFSET) before its rotation.
    columns = [info.motion[:, :6]] + [np.concatenate([np.broadcast_to(info.offsets[joint], (30, 3)), info.motion[:, 3 + 3 * joint:6 + 3 * joint]],
                                                     axis=1) for joint in range(1, len(info.names))]
    motion = np.concatenate(columns, axis=1)
    neuron = bvh.parse_bvh(bvh.to_text(bvh.BvhInfo(info.names, info.parents, info.offsets, six, info.end_sites, info.frame_time, motion)))
    assert np.abs(bvh.forward_kinematics(neuron) - bvh.forward_kinematics(info)).max() < 1e-4
    assert bvh.guess_scale(neuron).unit == "centimetres" and bvh.up_axis(neuron) == "Y"


def test_a_take_of_two_hundred_thousand_frames_reads_at_numpy_speed():
    frames = 200_000
    rows = np.zeros((frames, 6))
    rows[:, 0] = np.arange(frames) * 0.01
    text = ("HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 " + " ".join(SIX) + "\n\tEnd Site\n\t{\n\t\tOFFSET 0 10 0\n\t}\n}\n"
            f"MOTION\nFrames: {frames}\nFrame Time: 0.008333\n") + "\n".join(" ".join(f"{v:g}" for v in row) for row in rows[:10])
    text += "\n" + "0 0 0 0 0 0\n" * (frames - 10)
    started = time.perf_counter()
    info = bvh.parse_bvh(text)
    assert info.frame_count == frames and time.perf_counter() - started < 3.0
    with pytest.raises(bvh.BvhError, match=r"^line 12: 'Frames: 900000000000' but the motion has 200000 rows \(is the file cut short\?\)$"):
        bvh.parse_bvh(text.replace(f"Frames: {frames}", "Frames: 900000000000"))


@pytest.mark.parametrize("change, message", [
    (lambda text: text.replace("HIERARCHY", "HIERARCHIE"), "line 1: the file does not start with HIERARCHY (found 'HIERARCHIE')"),
    (lambda text: text.replace("\tJOINT Bip01 L Thigh\n\t{", "\tJOINT Bip01 L Thigh\n\t("), "line 7: expected '{' after JOINT Bip01 L Thigh"),
    (lambda text: text.replace("Frame Time: 0.0333", "Frame Time: fast"), "line 119: 'fast3333333333333' is not a number (Frame Time)"),
    (lambda text: text.replace(" 95.000000 ", " 95.000000x ", 1), "line 120, column 2: '95.000000x' is not a number (joint 'mixamorig:Hips', Yposition)"),
])
def test_a_file_that_is_no_bvh_names_its_line_and_reason(change, message):
    with pytest.raises(bvh.BvhError) as raised:
        bvh.parse_bvh(change(bvh.to_text(renamed_walk(3))))
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value), str(raised.value)
