"""Quaternion and rotation-mode conversions (numpy only)."""

import numpy as np
import pytest

from core.motion import quat, rotation_modes


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def _same_rotation(a, b):
    return np.abs(np.abs(quat.dot(a, b)) - 1.0)


@pytest.mark.parametrize("order", rotation_modes.EULER_ORDERS)
def test_euler_round_trip_every_order(order, rng):
    euler = rng.uniform(-np.pi, np.pi, (500, 3))
    q = rotation_modes.euler_to_quat(euler, order)
    back = rotation_modes.euler_to_quat(rotation_modes._principal_euler(q, order), order)
    assert _same_rotation(q, back).max() < 1e-12
    assert np.allclose(np.linalg.norm(q, axis=-1), 1.0)


@pytest.mark.parametrize("order", rotation_modes.EULER_ORDERS)
def test_gimbal_locked_rotations_put_the_turn_on_the_first_axis(order, rng):
    euler = rng.uniform(-np.pi, np.pi, (50, 3))
    _, middle, last = (rotation_modes._AXES[letter] for letter in order)
    euler[:, middle] = rng.choice([-0.5 * np.pi, 0.5 * np.pi], 50)
    q = rotation_modes.euler_to_quat(euler, order)
    recovered = rotation_modes._principal_euler(q, order)
    assert np.all(recovered[:, last] == 0.0)
    assert _same_rotation(rotation_modes.euler_to_quat(recovered, order), q).max() < 1e-12


@pytest.mark.parametrize("order", rotation_modes.EULER_ORDERS)
def test_euler_stays_continuous_through_gimbal_and_full_turns(order):
    seconds = np.linspace(0.0, 4.0 * np.pi, 3000)
    # The middle angle sweeps past +-90 degrees; the last winds through two turns.
    path = np.stack([2.0 * np.sin(seconds), 2.6 * np.sin(0.5 * seconds), seconds + 7.0], axis=-1)
    q = rotation_modes.euler_to_quat(path, order)
    recovered = rotation_modes.quat_to_euler(q, order, reference=path[0])
    assert np.abs(np.diff(recovered, axis=0)).max() < 0.02
    assert np.abs(recovered - path).max() < 1e-9


def test_euler_output_follows_reference_winding():
    path = np.array([[0.1, 0.2, 0.3 + 4 * np.pi]])
    q = rotation_modes.euler_to_quat(path, "XYZ")
    assert np.allclose(rotation_modes.quat_to_euler(q, "XYZ", reference=path[0]), path)
    assert np.abs(rotation_modes.quat_to_euler(q, "XYZ")).max() < np.pi


def test_axis_angle_round_trip_keeps_axis_from_flipping(rng):
    angles = np.linspace(0.1, 6.0, 200)
    axis = np.tile([0.0, 0.6, 0.8], (200, 1))
    values = np.concatenate([angles[:, None], axis], axis=-1)
    q = rotation_modes.to_quat(values, "AXIS_ANGLE")
    back = rotation_modes.from_quat(q, "AXIS_ANGLE")
    assert np.allclose(back, values, atol=1e-9)


def test_matrix_round_trip_and_scale_tolerance(rng):
    q = quat.normalize(rng.normal(size=(400, 4)))
    m = quat.to_matrix(q)
    assert np.allclose(m @ np.swapaxes(m, -1, -2), np.eye(3), atol=1e-12)
    scaled = m * np.array([2.0, 0.5, 3.0])[None, None, :]
    assert _same_rotation(quat.from_matrix(scaled), q).max() < 1e-12


def test_rotate_matches_matrix(rng):
    q = quat.normalize(rng.normal(size=(50, 4)))
    v = rng.normal(size=(50, 3))
    assert np.allclose(quat.rotate(q, v), (quat.to_matrix(q) @ v[..., None])[..., 0])


def test_log_exp_and_rotation_vectors(rng):
    v = rng.normal(size=(100, 3))
    assert np.allclose(quat.log(quat.exp(v * 0.4)), v * 0.4)
    rotvec = rng.uniform(-1, 1, (100, 3))
    assert np.allclose(quat.to_rotation_vector(quat.from_rotation_vector(rotvec)), rotvec)
    assert np.allclose(quat.to_rotation_vector(quat.identity((3,))), 0.0)


def test_multiply_inverse_is_identity(rng):
    q = quat.normalize(rng.normal(size=(20, 7, 4)))
    assert _same_rotation(quat.multiply(q, quat.inverse(q)), quat.identity((20, 7))).max() < 1e-12


def test_unroll_removes_sign_flips(rng):
    q = rotation_modes.euler_to_quat(np.stack([np.linspace(0, 9, 300)] * 3, -1), "XYZ")
    flipped = q * rng.choice([-1.0, 1.0], size=(300, 1))
    unrolled = quat.unroll(flipped)
    assert (quat.dot(unrolled[1:], unrolled[:-1]) > 0).all()
    assert _same_rotation(unrolled, q).max() < 1e-12
    in_place = flipped.copy()
    assert quat.unroll(in_place, out=in_place) is in_place and np.array_equal(in_place, unrolled)  # a long take's, with no second copy


@pytest.mark.parametrize("reference", [False, True])
@pytest.mark.parametrize("shape", [(100, 3, 4), (98, 4)])
def test_unroll_carries_the_sign_from_one_block_of_frames_to_the_next(rng, monkeypatch, reference, shape):
    """Worked through a few frames at a time (the last block short, or whole), each frame keeps the sign a walk through
    the frames one by one gives it, in place too."""
    q = rng.normal(size=shape)
    first = rng.normal(size=shape[1:]) if reference else None
    expected = q.copy()
    if reference:
        expected[0] *= np.where(quat.dot(q[0], first) < 0.0, -1.0, 1.0)[..., None]
    for frame in range(1, len(q)):
        expected[frame] *= np.where(quat.dot(expected[frame], expected[frame - 1]) < 0.0, -1.0, 1.0)[..., None]
    monkeypatch.setattr(quat, "UNROLL_BLOCK", 7)
    assert np.array_equal(quat.unroll(q, first), expected)
    in_place = q.copy()
    assert np.array_equal(quat.unroll(in_place, first, out=in_place), expected)


def test_slerp_and_nlerp_endpoints_and_midpoint():
    a = quat.identity()
    b = quat.from_axis_angle([0.0, 0.0, 1.0], 1.0)
    assert np.allclose(quat.slerp(a, b, 0.0), a) and np.allclose(quat.slerp(a, b, 1.0), b)
    assert np.allclose(quat.slerp(a, b, 0.5), quat.from_axis_angle([0.0, 0.0, 1.0], 0.5))
    assert np.allclose(quat.nlerp(a, -b, 1.0), b)  # shorter arc despite the sign


def test_angular_velocity_of_steady_spin():
    fps, rate = 30.0, 2.0  # radians per second about Y
    frames = np.arange(10) / fps
    q = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), rate * frames)
    omega = quat.angular_velocity(q, 1.0 / fps)
    assert np.allclose(omega, [0.0, rate, 0.0])
