"""The Acclaim ASF/AMC reader and writer on small synthetic files: every parse feature, every bad input, the math and the round trip."""

import numpy as np
import pytest

from core.errors import AcclaimError
from core.formats import acclaim
from core.motion import kinematics, quat, rotation_modes

# Bones listed out of hierarchy order, a comment, radians nowhere, limits on two lines, an axis in another order.
ASF = """# a test skeleton
:version 1.10
:name TEST
:units
  mass 1.0
  length 0.45
  angle deg
:documentation
   free text: ignored
:root
   order TX TY TZ RX RY RZ
   axis XYZ
   position 0 0 0
   orientation 0 0 0
:bonedata
  begin
     id 2
     name shin
     direction 0 -1 0
     length 4
     axis 0 0 30 XYZ
    dof rx
    limits (-10.0 170.0)
  end
  begin   # the first bone of the chain
     id 1
     name thigh
     direction 0.6 -0.8 0
     length 5
     axis 10 0 20 ZYX
    dof rx ry rz
    limits (-160.0 20.0)
           (-70.0 70.0)
           (-60.0 70.0)
  end
  begin
     id 3
     name spine
     direction 0 1 0
     length 3
     axis 0 0 0 XYZ
    dof rz rx
  end
:hierarchy
  begin
    root thigh spine
    thigh shin
  end
"""

AMC = """#!OML:ASF test.asf
:FULLY-SPECIFIED
:DEGREES
1
root 1 2 3 10 20 30
thigh -20 5 10
shin 30
spine 5 -7
2
root 1.5 2 3 11 21 31
thigh -21 6 11
shin 31
spine 6 -8
3
root 2 2 3 12 22 32
thigh -22 7 12
shin 32
spine 7 -9
"""


def _skeleton(text=ASF):
    return acclaim.parse_asf(text, "test.asf")


def _error(function, *args):
    with pytest.raises(AcclaimError) as caught:
        function(*args)
    return caught.value


def _amc_error(text, asf=ASF):
    return _error(acclaim.parse_amc, text, _skeleton(asf), "take.amc")


def test_the_asf_is_read_with_every_field():
    skeleton = _skeleton()
    assert skeleton.names == ("root", "thigh", "spine", "shin")
    assert list(skeleton.parents) == [-1, 0, 0, 1]
    assert skeleton.dofs == (("tx", "ty", "tz", "rx", "ry", "rz"), ("rx", "ry", "rz"), ("rz", "rx"), ("rx",))
    assert skeleton.axis_orders[1] == "ZYX" and np.allclose(np.degrees(skeleton.axes[1]), [10, 0, 20])
    assert np.allclose(np.degrees(skeleton.limits[1]), [[-160, 20], [-70, 70], [-60, 70]])
    assert np.isinf(skeleton.limits[2]).all()
    assert np.allclose(skeleton.directions[1], [0.6, -0.8, 0]) and skeleton.lengths[3] == 4
    assert skeleton.metres_per_unit == pytest.approx(0.0254 / 0.45) and skeleton.ids[1] == 1 and skeleton.name == "TEST"
    assert list(skeleton.columns) == [0, 6, 9, 11, 12]


def test_radians_in_the_asf_are_radians():
    skeleton = _skeleton(ASF.replace("angle deg", "angle rad").replace("axis 0 0 30 XYZ", "axis 0 0 0.5 XYZ"))
    assert skeleton.angle == "rad" and skeleton.axes[3, 2] == 0.5
    assert skeleton.limits[3][0, 1] == 170.0  # taken as radians, as the file says


def _global(skeleton, values, bone):
    """The README's rule, bone by bone: parent_global * C * M * C^-1 as quaternions."""
    orders = acclaim.euler_orders(skeleton)
    start = skeleton.columns[bone]
    order, axes = orders[bone]
    euler = np.array([values[start + i] if i >= 0 else 0.0 for i in axes])
    c = rotation_modes.euler_to_quat(skeleton.axes[bone], skeleton.axis_orders[bone])
    local = quat.multiply(quat.multiply(c, rotation_modes.euler_to_quat(euler, order)), quat.inverse(c))
    parent = skeleton.parents[bone]
    return local if parent < 0 else quat.multiply(_global(skeleton, values, parent), local)


def test_the_clip_poses_the_bones_as_the_acclaim_rule_does():
    skeleton = _skeleton()
    motion = acclaim.parse_amc(AMC, skeleton)
    assert list(motion.frames) == [1, 2, 3] and motion.degrees and motion.fully_specified
    clip = acclaim.clip_from_acclaim(skeleton, motion, fps=60.0, scale=0.1)
    assert clip.fps == 60.0 and list(clip.frames) == [1.0, 2.0, 3.0] and clip.rotation_modes[0] == "QUATERNION"
    heads = kinematics.clip_joint_positions(clip)  # metres, Blender's axes
    to_blender = acclaim.clip.BLENDER_TO_Y_UP.T
    for frame in range(3):
        values = motion.values[frame]
        expected = {"root": 0.1 * values[:3]}
        for child, parent in (("thigh", "root"), ("spine", "root"), ("shin", "thigh")):
            p = skeleton.bone_index(parent)
            segment = skeleton.lengths[p] * skeleton.directions[p]
            expected[child] = expected[parent] + 0.1 * quat.rotate(_global(skeleton, values, p), segment)
        for name, point in expected.items():
            assert np.allclose(heads[frame, clip.bone_index(name)], to_blender @ point, atol=1e-12), (frame, name)


def test_the_armature_has_lengths_and_connections():
    skeleton = _skeleton()
    clip, lengths, connected = acclaim.armature_from_acclaim(skeleton, acclaim.parse_amc(AMC, skeleton))
    unit = 0.0254 / 0.45
    assert np.allclose(lengths[1:], unit * np.array([5, 3, 4]))
    assert list(connected) == [False, False, False, True]  # the root's children start at its head, the shin at the thigh's tail
    tails = clip.rest[:, :3, 3] + lengths[:, None] * clip.rest[:, :3, 1]
    assert np.allclose(tails[1], clip.rest[3, :3, 3])
    assert clip.rest[0, 2, 1] > 0.99  # the root, of no length in the ASF, points up (Z in Blender)


def test_bones_left_out_turn_nothing_and_a_root_left_out_stays_at_its_position():
    text = AMC.replace(":FULLY-SPECIFIED\n", "").replace("shin 31\n", "").replace("root 1 2 3 10 20 30\n", "")
    text = "\n".join(line for line in text.splitlines() if not line.startswith("spine")) + "\n"
    skeleton = _skeleton(ASF.replace("position 0 0 0", "position 1 2 3"))
    motion = acclaim.parse_amc(text, skeleton)
    assert np.allclose(motion.values[0, :6], [1, 2, 3, 0, 0, 0]) and motion.values[1, 11] == 0.0
    assert not motion.given[2] and motion.given[3]
    assert np.all(motion.values[:, 9:11] == 0.0)


def test_radians_and_comments_and_crlf():
    text = AMC.replace(":DEGREES", ":RADIANS # small angles").replace("\n", "\r\n")
    text = text.replace("10 20 30", "0.1 0.2 0.3").replace("11 21 31", "0.1 0.2 0.3").replace("12 22 32", "0.1 0.2 0.3")
    text = text.replace("-20 5 10", "-0.2 0.05 0.1").replace("-21 6 11", "-0.2 0.05 0.1").replace("-22 7 12", "-0.2 0.05 0.1")
    for a, b in (("30", "0.3"), ("31", "0.3"), ("32", "0.3"), ("5 -7", "0.05 -0.07"), ("6 -8", "0.05 -0.07"), ("7 -9", "0.05 -0.07")):
        text = text.replace(f"shin {a}", f"shin {b}").replace(f"spine {a}", f"spine {b}")
    motion = acclaim.parse_amc(text, _skeleton())
    assert not motion.degrees and motion.values[0, 3] == 0.1 and motion.values[2, 6] == -0.2


def test_the_numpy_path_and_the_line_reader_agree(monkeypatch):
    skeleton = _skeleton()
    fast = acclaim.parse_amc(AMC, skeleton)
    monkeypatch.setattr(acclaim.amc._Reader, "_fast", lambda self, chunk: (_ for _ in ()).throw(acclaim.amc._NotFast()))
    slow = acclaim.parse_amc(AMC, skeleton)
    assert np.array_equal(fast.values, slow.values) and np.array_equal(fast.frames, slow.frames)


def test_long_files_are_read_in_chunks(monkeypatch):
    monkeypatch.setattr(acclaim.amc, "_CHUNK_BYTES", 100)
    frames = "".join(f"{n}\nroot {n} 2 3 10 20 30\nthigh -20 5 {n % 7}\nshin 30\nspine 5 -7\n" for n in range(1, 200))
    motion = acclaim.parse_amc(":DEGREES\n" + frames, _skeleton())
    assert list(motion.frames) == list(range(1, 200)) and np.allclose(motion.values[:, 0], np.arange(1, 200))
    assert np.allclose(np.degrees(motion.values[:, 8]), np.arange(1, 200) % 7)


def test_the_writer_round_trips(tmp_path):
    skeleton = _skeleton()
    clip = acclaim.clip_from_acclaim(skeleton, acclaim.parse_amc(AMC, skeleton))
    acclaim.write_asf(tmp_path / "out.asf", skeleton)
    acclaim.write_amc(tmp_path / "out.amc", clip, skeleton)
    again = acclaim.read_asf(tmp_path / "out.asf")
    assert again.names == skeleton.names and np.allclose(again.axes, skeleton.axes) and again.axis_orders == skeleton.axis_orders
    back = acclaim.read_acclaim(tmp_path / "out.asf", tmp_path / "out.amc")
    assert np.abs(kinematics.clip_joint_positions(back) - kinematics.clip_joint_positions(clip)).max() < 1e-6
    assert np.abs(quat.to_rotation_vector(quat.multiply(quat.inverse(clip.rotation), back.rotation))).max() < 1e-6
    assert (tmp_path / "out.amc").read_text().startswith("#!OML:ASF test.asf\n:FULLY-SPECIFIED\n:DEGREES\n1\n")


def test_the_writer_refuses_what_the_dofs_cannot_hold():
    skeleton = _skeleton()
    clip = acclaim.clip_from_acclaim(skeleton, acclaim.parse_amc(AMC, skeleton))
    shin = clip.bone_index("shin")
    rotation = clip.rotation.copy()
    rotation[:, shin] = quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), 0.3)
    assert "no dof" in str(_error(acclaim.motion_from_clip, clip.with_channels(rotation=rotation), skeleton))
    location = clip.location.copy()
    location[:, shin, 0] = 0.1
    assert "moves off" in str(_error(acclaim.motion_from_clip, clip.with_channels(location=location), skeleton))


@pytest.mark.parametrize("edit, words, line", [
    (lambda t: t[:t.rindex("spine 7")], "frame 3 ends after 3 bones of the first frame's 4 (no 'spine'): the file looks truncated", 17),
    (lambda t: t.replace("thigh -21 6 11", "thigh -21 6"), "bone 'thigh' has 2 values, the ASF gives it 3 dofs", 11),
    (lambda t: t.replace("shin 31", "shin 31\ntail 4"), "bone 'tail' is not in the ASF (test.asf)", 13),
    (lambda t: t.split("1\nroot")[0], "no frames", None),
    (lambda t: t.replace("\n3\n", "\n4\n"), "frame number 4 where frame 3 should follow frame 2", 14),
    (lambda t: t.replace("shin 31", "shin 3x1"), "'3x1' in bone 'shin''s values is not a number", 12),
    (lambda t: t.replace("shin 31", "shin nan"), "not a finite number", 12),
    (lambda t: t.replace("shin 31", "shin 31\nshin 31"), "a second time in frame 2", 13),
    (lambda t: t.replace("spine 6 -8\n", ""), "has no 'spine', though the file says :FULLY-SPECIFIED", 9),
    (lambda t: t.replace("1\nroot", "root 1 2 3 4 5 6\n1\nroot"), "'root' before the first frame number", 4),
    (lambda t: t.replace(":DEGREES", ":RADIANS"), "bone 'shin' turns 32 rad (1833 degrees) in frame 3, far beyond its limits (-10 to 170 degrees): the file says :RADIANS, "
     "but the angles look like degrees", 17),
])
def test_bad_amc_files_name_the_line_and_the_reason(edit, words, line):
    error = _amc_error(edit(AMC))
    assert words in error.reason and error.line == line and error.path == "take.amc"
    assert str(error).startswith(f"take.amc line {line}: " if line else "take.amc: ")


def test_a_truncated_line_says_the_file_was_cut():
    error = _amc_error(AMC[:AMC.rindex("-9")])
    assert error.reason == "bone 'spine' has 1 value, the ASF gives it 2 dofs (the file ends here: it looks truncated)" and error.line == 18


@pytest.mark.parametrize("edit, words, line", [
    (lambda t: t.replace(":hierarchy\n  begin\n    root thigh spine\n    thigh shin\n  end\n", ""), "no :hierarchy section", None),
    (lambda t: t.replace("root thigh spine\n    thigh shin", "root spine\n    thigh shin\n    shin thigh"), "cycle: shin -> thigh -> shin", 48),
    (lambda t: t.replace("thigh shin\n", "thigh shin\n    shin root\n"), "the root is given a parent", 48),
    (lambda t: t.replace("thigh shin", "thigh shin tail"), "bone 'tail' is in the :hierarchy but not in the :bonedata", 47),
    (lambda t: t.replace("    thigh shin\n", ""), "bone 'shin' is not in the :hierarchy", 16),
    (lambda t: t.replace("thigh shin", "thigh shin\n    spine shin"), "bone 'shin' has a second parent ('spine'; the first on line 47)", 48),
    (lambda t: t.replace("angle deg", "angle grad"), "angle unit 'grad'", 7),
    (lambda t: t.replace("length 4\n", "length four\n"), "'four' is not a number", 20),
    (lambda t: t.replace("     length 4\n", ""), "the bone beginning on line 16 has no length", 23),
    (lambda t: t.replace("dof rx\n", "dof tx\n"), "only the root translates", 22),
    (lambda t: t.replace("axis 0 0 30 XYZ", "axis 0 0 30 XXZ"), "axis order 'XXZ'", 21),
    (lambda t: t.replace("    limits (-10.0 170.0)\n", "    limits (-10.0 170.0) (0 1)\n"), "2 limits for 1 dofs", 23),
    (lambda t: t.replace("name shin", "name thigh"), "a second bone named 'thigh'", 25),
    (lambda t: "hello\n" + t, "'hello' before the first section", 1),
])
def test_bad_asf_files_name_the_line_and_the_reason(edit, words, line):
    error = _error(acclaim.parse_asf, edit(ASF), "test.asf")
    assert words in error.reason and error.line == line, (error.reason, error.line)


def test_binary_and_unreadable_files(tmp_path):
    binary = tmp_path / "take.amc"
    binary.write_bytes(b":DEGREES\n1\nroot \x00\x01\x02\x03" + bytes(range(256)) * 4)
    error = _error(acclaim.read_amc, binary, _skeleton())
    assert "binary data" in error.reason and error.line == 3 and str(error).startswith("take.amc line 3: ")
    assert "cannot be read" in _error(acclaim.read_asf, tmp_path / "missing.asf").reason
    latin = tmp_path / "latin.asf"
    latin.write_bytes(ASF.replace("free text", "caf\xe9").encode("latin-1"))
    assert _error(acclaim.read_asf, latin).line == 9


def test_files_read_from_disk_carry_their_path(tmp_path):
    (tmp_path / "05.asf").write_text(ASF)
    (tmp_path / "05_01.amc").write_text(AMC.replace("thigh -21 6 11", "thigh -21 6"))
    skeleton = acclaim.read_asf(tmp_path / "05.asf")
    error = _error(acclaim.read_amc, tmp_path / "05_01.amc", skeleton)
    assert str(error) == "05_01.amc line 11: bone 'thigh' has 2 values, the ASF gives it 3 dofs"
    assert error.path == tmp_path / "05_01.amc"
