"""Changing the axes of BVH text (Blender writes Z up, BVH files are Y up)."""

import numpy as np
import pytest

from core.formats import bvh
from core.motion import quat, rotation_modes

TEXT = """HIERARCHY
ROOT Hips
{
\tOFFSET 1.0 2.0 3.0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Spine
\t{
\t\tOFFSET 0.0 0.0 10.0
\t\tCHANNELS 3 Zrotation Xrotation Yrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0.0 0.0 5.0
\t\t}
\t}
}
MOTION
Frames: 3
Frame Time: 0.033333
10.0 20.0 30.0 5.0 -40.0 170.0 1.0 2.0 3.0
11.0 21.0 31.0 6.0 -41.0 179.0 1.5 2.5 3.5
12.0 22.0 32.0 7.0 -42.0 -172.0 2.0 3.0 4.0
"""


def _motion(text):
    return np.array(" ".join(text.split("Frame Time:")[1].splitlines()[1:]).split(), dtype=float).reshape(3, -1)


def _offsets(text):
    return np.array([[float(v) for v in line.split()[1:]] for line in text.splitlines() if line.strip().startswith("OFFSET")])


def _rotation(values, channels):
    euler = np.zeros((len(values), 3))
    for column, axis in enumerate(channels):
        euler[:, "XYZ".index(axis)] = np.radians(values[:, column])
    return rotation_modes.euler_to_quat(euler, channels[::-1])


def test_offsets_positions_and_rotations_follow_the_axis_change():
    converted = bvh.change_axes(TEXT)
    m = bvh.BLENDER_TO_Y_UP
    assert np.allclose(_offsets(converted), _offsets(TEXT) @ m.T)
    before, after = _motion(TEXT), _motion(converted)
    assert np.allclose(after[:, :3], before[:, :3] @ m.T)
    turn = quat.from_matrix(m)
    for columns in (slice(3, 6), slice(6, 9)):
        expected = quat.multiply(quat.multiply(turn, _rotation(before[:, columns], "ZXY")), quat.inverse(turn))
        got = _rotation(after[:, columns], "ZXY")
        assert np.allclose(np.abs(quat.dot(expected, got)), 1.0, atol=1e-9)
    assert np.abs(np.diff(after[:, 3:6], axis=0)).max() < 90.0  # no 360-degree flips between frames
    assert "Frame Time: 0.033333" in converted and "End Site" in converted


def test_changing_there_and_back_returns_the_same_motion():
    back = bvh.change_axes(bvh.change_axes(TEXT), bvh.BLENDER_TO_Y_UP.T)
    turned_back = _motion(back)
    original = _motion(TEXT)
    assert np.allclose(turned_back[:, :3], original[:, :3], atol=1e-5)
    for columns in (slice(3, 6), slice(6, 9)):
        assert np.allclose(np.abs(quat.dot(_rotation(turned_back[:, columns], "ZXY"), _rotation(original[:, columns], "ZXY"))), 1.0, atol=1e-9)


# ---------------------------------------------------------------- reading, writing, layout

def _synthetic(frames=40, seed=3):
    """A small skeleton standing along +Y (centimetres): 6-channel root, 3-channel children, mixed orders."""
    rng = np.random.default_rng(seed)
    names = ("Hips", "Spine", "Chest", "Neck", "Head", "UpLeg_L", "Foot_L", "UpLeg_R", "Foot_R")
    parents = np.array([-1, 0, 1, 2, 3, 0, 5, 0, 7])
    offsets = np.array([[0, 95, 0], [0, 10, 0], [0, 20, 0], [0, 25, 0], [0, 10, 0], [10, -5, 0], [0, -85, 0], [-10, -5, 0], [0, -85, 0]], dtype=float)
    rotations = {0: "Zrotation Yrotation Xrotation", 1: "Xrotation Yrotation Zrotation", 2: "Yrotation Zrotation Xrotation", 3: "Zrotation Xrotation Yrotation",
                 4: "Xrotation Zrotation Yrotation", 5: "Zrotation Xrotation Yrotation", 6: "Zrotation Xrotation Yrotation", 7: "Yrotation Xrotation Zrotation",
                 8: "Zrotation Yrotation Xrotation"}
    moving = {0, 3}  # the root and Neck (a child) have position channels
    channels = tuple(tuple((["Xposition", "Yposition", "Zposition"] if j in moving else []) + rotations[j].split()) for j in range(len(names)))
    t = np.linspace(0, 2 * np.pi, frames)[:, None]
    columns = []
    for j, joint in enumerate(channels):
        for name in joint:
            if name.endswith("position"):
                base = offsets[j, "XYZ".index(name[0])] + (40 * t[:, 0] if (j, name) == (0, "Zposition") else 0)
                columns.append(base + rng.uniform(-3, 3) * np.sin(t[:, 0] + rng.uniform(0, 6)))
            else:
                columns.append(rng.uniform(-50, 50) * np.sin(t[:, 0] * rng.integers(1, 3) + rng.uniform(0, 6)))
    return bvh.BvhInfo(names, parents, offsets, channels, {4: np.array([0, 12.0, 0]), 6: np.array([0, 0, 15.0]), 8: np.array([0, 0, 15.0])},
                       1 / 30, np.stack(columns, axis=1))


def test_text_reads_back_exactly():
    info = _synthetic()
    back = bvh.parse_bvh(bvh.to_text(info))
    assert back.names == info.names and back.channels == info.channels and back.frame_time == info.frame_time
    assert np.array_equal(back.parents, info.parents) and np.array_equal(back.offsets, info.offsets)
    assert back.end_sites.keys() == info.end_sites.keys() and all(np.array_equal(back.end_sites[j], info.end_sites[j]) for j in info.end_sites)
    assert np.abs(back.motion - info.motion).max() <= 5e-7


def test_forward_kinematics_follows_the_channel_order_and_position_channels():
    info = _synthetic()
    positions = bvh.forward_kinematics(info, [7])
    row = info.motion[7]
    hips = _rotation(row[None, 3:6], "ZYX")[0]
    spine = _rotation(row[None, 6:9], "XYZ")[0]
    spine_at = row[:3] + quat.rotate(hips, info.offsets[1])
    chest_at = spine_at + quat.rotate(quat.multiply(hips, spine), info.offsets[2])
    assert np.allclose(positions[0, :3], [row[:3], spine_at, chest_at])
    # Neck's position channels replace its OFFSET, as Blender's importer reads them.
    chest = quat.multiply(quat.multiply(hips, spine), _rotation(row[None, 9:12], "YZX")[0])
    assert np.allclose(positions[0, 3], chest_at + quat.rotate(chest, row[12:15]))
    assert positions.shape == (1, 9 + 3, 3)


def test_up_axis_and_scale_of_a_synthetic_skeleton():
    info = _synthetic()
    assert bvh.up_axis(info) == "Y"
    assert bvh.suggest_scale(info)[0] == 0.01
    lying = bvh.parse_bvh(bvh.change_axes(bvh.to_text(info), np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])))
    assert bvh.up_axis(lying) == "Z" and bvh.suggest_scale(lying)[0] == 0.01


def test_match_layout_takes_another_layout_back_to_the_input():
    info = _synthetic()
    # Blender's layout: 6 channels everywhere, XYZ rotations, Z up.
    six = tuple(("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation") for _ in info.names)
    blender = bvh.BvhInfo(info.names, info.parents, info.offsets, six, info.end_sites, 0.033333, np.zeros((info.frame_count, 6 * len(info.names))))
    blender.motion[:] = bvh.parse_bvh(bvh.match_layout(bvh.to_text(info), blender, up="Z")).motion  # identity axes: layout only
    exported = bvh.change_axes(bvh.to_text(blender), bvh.BLENDER_TO_Y_UP.T)  # into Blender's axes
    back = bvh.parse_bvh(bvh.match_layout(exported, info))
    assert back.channels == info.channels and back.frame_time == info.frame_time
    assert np.abs(bvh.forward_kinematics(back) - bvh.forward_kinematics(info)).max() < 1e-4


def test_a_joint_the_input_cannot_move_is_an_error():
    info = _synthetic()
    still = [j for j, names in enumerate(info.channels) if "Xposition" not in names][0]
    six = tuple(("Xposition", "Yposition", "Zposition") + names if j == still else names for j, names in enumerate(info.channels))
    motion = np.insert(info.motion, [sum(map(len, info.channels[:still]))] * 3, info.offsets[still] + [0.0, 5.0, 0.0], axis=1)
    moved = bvh.BvhInfo(info.names, info.parents, info.offsets, six, info.end_sites, info.frame_time, motion)
    with pytest.raises(bvh.BvhError, match=f"joint '{info.names[still]}' moves off its OFFSET"):
        bvh.match_layout(bvh.to_text(moved), info, up="Z")


# ---------------------------------------------------------------- the fast reader and the chunked writer

_ODD_WORDS = ("1-2", "1e", "--1", "1.2.3", ".", "1e+", "1,5", "nan", "inf", "1e999", "0x10", "1_0", "\x0c", "é", "+.5", "5.", "1E3")


def _outcome(parse, text):
    try:
        return parse(text).motion
    except bvh.BvhError as error:
        return str(error), error.line, error.column


@pytest.mark.parametrize("word", _ODD_WORDS)
def test_the_fast_reader_judges_every_odd_value_as_the_exact_reader_does(word):
    lines = bvh.to_text(_synthetic()).split("\n")
    row = lines.index("Frame Time: 0.03333333333333333") + 6
    values = lines[row].split(" ")
    lines[row] = " ".join(values[:4] + [word] + values[5:])
    text = "\n".join(lines)
    fast, exact = _outcome(bvh.parse_bvh, text), _outcome(bvh.exact.parse_exact, text)
    if isinstance(exact, tuple):
        assert fast == exact and exact[1] == row + 1
    else:  # Python's float() takes it ('1_0', '+.5'): so does Blender's importer
        assert np.array_equal(fast, exact) and word in ("1_0", "+.5", "5.", "1E3")


def _words(text):
    """``plain_decimals``' arguments for the words of ``text`` (bytes)."""
    codes = np.frombuffer(text, dtype=np.uint8)
    edges = np.flatnonzero(np.diff(np.r_[0, codes > 32, 0]))
    return codes, edges[0::2], edges[1::2]


def test_plain_decimals_are_read_bit_for_bit_as_float_reads_them():
    rng = np.random.default_rng(5)
    values = np.concatenate([rng.normal(0, scale, 3000) for scale in (1e-4, 1.0, 90.0, 1e6)])
    words = [f"{value:.{places}f}" for places in (0, 1, 6, 9) for value in values if len(f"{abs(value):.{places}f}") <= 16]
    words += ["-0.000000", "+5", "-.5", "5.", "-0", ".25", "+0.00", "999999999999999", "-9999999.99999999", "0000000000.12345"]
    text = "\n".join(" ".join(words[k:k + 7]) for k in range(0, len(words), 7)).replace(" ", "\t", 50).encode()
    read = bvh.decimals.plain_decimals(*_words(text))
    assert np.array_equal(read.view(np.int64), np.array([float(word) for word in words]).view(np.int64))  # -0.0 too
    for odd in ("1.2.3", "1-2", "+-1", "5+", "-", ".", "-.", "1..2", "1234567890123456", "0.0000000000000001"):
        assert bvh.decimals.plain_decimals(*_words(f"1.5 {odd} 2".encode())) is None, odd


def test_plain_motion_is_read_without_numpys_text_parser(monkeypatch):
    """Numpy's own parser (``fromstring``) takes 5-6 times as long: a plain motion never needs it, CRLF and tabs included."""
    info = _synthetic()
    text = bvh.to_text(info).replace("\n", "\r\n").replace(" ", "\t", 400)
    monkeypatch.setattr(bvh.read.np, "fromstring", lambda *args, **kwargs: pytest.fail("numpy's text parser was used"))
    assert np.array_equal(bvh.parse_bvh(text).motion, bvh.exact.parse_exact(text).motion)


@pytest.mark.parametrize("change", ["short row", "long row", "blank lines", "CRLF", "CR", "Frames"])
def test_the_fast_reader_agrees_with_the_exact_reader_on_layout_problems(change, monkeypatch):
    monkeypatch.setattr(bvh.read, "_CHUNK_BYTES", 200)  # many chunks: problems across their edges
    text = bvh.to_text(_synthetic())
    lines = text.split("\n")
    first = lines.index("Frame Time: 0.03333333333333333") + 1
    if change == "short row":
        lines[first + 20] = " ".join(lines[first + 20].split()[:-1])
    elif change == "long row":
        lines[first + 39] += " 1.0"
    elif change == "blank lines":
        lines[first + 5:first + 5] = ["", "   \t"]
    elif change == "Frames":
        lines[first - 2] = "Frames: 41"
    text = "\n".join(lines)
    text = text.replace("\n", "\r\n") if change == "CRLF" else text.replace("\n", "\r") if change == "CR" else text
    try:
        fast = bvh.parse_bvh(text)
    except bvh.BvhError as error:
        with pytest.raises(bvh.BvhError) as exact:
            bvh.exact.parse_exact(text)
        assert (str(error), error.line) == (str(exact.value), exact.value.line)
        assert change in ("short row", "long row", "Frames")
    else:
        assert np.array_equal(fast.motion, bvh.exact.parse_exact(text).motion) and change not in ("short row", "long row", "Frames")


def test_long_reads_and_writes_report_progress(tmp_path, monkeypatch):
    monkeypatch.setattr(bvh.read, "_CHUNK_BYTES", 1000)
    monkeypatch.setattr(bvh.write, "_ROWS_PER_CHUNK", 3)
    info = _synthetic()
    written, read = [], []
    bvh.write_bvh(tmp_path / "a.bvh", info, progress=written.append)
    assert (tmp_path / "a.bvh").read_text() == bvh.to_text(info)
    back = bvh.read_bvh(tmp_path / "a.bvh", progress=read.append)
    assert np.array_equal(back.motion, bvh.exact.parse_exact(bvh.to_text(info)).motion)
    for fractions in (written, read):
        assert len(fractions) >= 5 and fractions == sorted(fractions) and fractions[-1] == 1.0 and np.all(np.diff(fractions[:-1]) >= 0.05 - 1e-12)


def test_motion_text_is_byte_for_byte_printf():
    rng = np.random.default_rng(1)
    edges = np.array([[0.0, -0.0, 1e-7, -1e-7, 5e-7, -5e-7, 1.5e-6, 2.5e-6, 9.9999995, 99999999.9999995, 999999999.5, 123456789012.5]])
    for motion in (rng.uniform(-180, 180, (300, 7)), rng.normal(0, 1e-6, (300, 5)), np.arange(-2000, 2000).reshape(-1, 4) / 2e6,
                   rng.integers(-1000, 1000, (100, 9)) / 1e6 + 5e-7, rng.uniform(-1e9, 1e9, (100, 3)), edges, edges[:, :-1]):
        expected = "".join(" ".join("%.6f" % value for value in row) + "\n" for row in motion)
        assert bvh.write._rows_text(motion) == expected


def test_a_byte_that_is_not_utf8_is_named_before_a_problem_above_it(tmp_path):
    text = bvh.to_text(_synthetic()).replace("Frame Time: 0.03333333333333333", "Frame Time: 0")
    path = tmp_path / "latin1.bvh"
    path.write_bytes(text.encode("utf-8")[:-2] + b"\xe9\n")
    with pytest.raises(bvh.BvhError, match="byte 0xe9 is not UTF-8") as error:
        bvh.read_bvh(path)
    assert error.value.line == text.count("\n")
