"""Changing the axes of BVH text (Blender writes Z up, BVH files are Y up)."""

import numpy as np

from core import bvh, quat, rotation_modes

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
