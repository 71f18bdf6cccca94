"""Conversions between Blender's rotation modes and w-first unit quaternions.

Blender stores a bone's rotation as ``rotation_quaternion`` (w, x, y, z),
``rotation_euler`` (x, y, z angles in radians, applied in the order its mode
names: mode ``'XYZ'`` rotates about X first, so the matrix is Rz @ Ry @ Rx),
or ``rotation_axis_angle`` (angle in radians, then the axis x, y, z).
Arrays have frames on axis 0; any further leading axes (bones) broadcast.
"""

import numpy as np

from . import quat

EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
ROTATION_MODES = ("QUATERNION", "AXIS_ANGLE") + EULER_ORDERS

#: Number of F-curve components each rotation mode stores.
COMPONENTS = {"QUATERNION": 4, "AXIS_ANGLE": 4, **{order: 3 for order in EULER_ORDERS}}

_AXES = {"X": 0, "Y": 1, "Z": 2}
_TWO_PI = 2.0 * np.pi


def _cyclic_sign(i, j):
    """+1 if the axes (i, j, k) are in cyclic order (XYZ, YZX, ZXY), else -1."""
    return 1.0 if (j - i) % 3 == 1 else -1.0


def euler_to_quat(euler: np.ndarray, order: str) -> np.ndarray:
    """Unit quaternions from Euler angles ``(..., 3)`` (x, y, z radians) in ``order``.

    Closed form of ``q_k(c) * q_j(b) * q_i(a)`` for the order's axes i, j, k.
    """
    euler = np.asarray(euler, dtype=float)
    i, j, k = (_AXES[letter] for letter in order)
    sign = _cyclic_sign(i, j)
    half = 0.5 * euler
    ci, si = np.cos(half[..., i]), np.sin(half[..., i])
    cj, sj = np.cos(half[..., j]), np.sin(half[..., j])
    ck, sk = np.cos(half[..., k]), np.sin(half[..., k])
    # p = q_j * q_i, then q = q_k * p (e_i x e_j = sign * e_k).
    pw, pi, pj, pk = cj * ci, cj * si, ci * sj, -sign * sj * si
    q = np.empty(euler.shape[:-1] + (4,))
    q[..., 0] = ck * pw - sk * pk
    q[..., 1 + i] = ck * pi - sign * sk * pj
    q[..., 1 + j] = ck * pj + sign * sk * pi
    q[..., 1 + k] = ck * pk + sk * pw
    return q


def _wrap(angle):
    """Angles brought into [-pi, pi] (rounding is several times faster than a float modulo)."""
    return angle - _TWO_PI * np.rint(angle / _TWO_PI)


def _branch_distance(a, b):
    return np.sum(np.abs(_wrap(a - b)), axis=-1)


def _principal_euler(q, order):
    """Euler angles with the middle angle in [-pi/2, pi/2]."""
    i, j, k = (_AXES[letter] for letter in order)
    # Even permutations of XYZ keep the sign pattern of the XYZ formulas.
    parity = _cyclic_sign(i, j)
    m = quat.matrix_entries(q)
    sin_mid = np.clip(-parity * m[k][i], -1.0, 1.0)
    cos_mid = np.hypot(m[k][j], m[k][k])
    first = np.arctan2(parity * m[k][j], m[k][k])
    last = np.arctan2(parity * m[j][i], m[i][i])
    locked = cos_mid <= 1e-6
    if locked.any():  # gimbal lock: the first angle takes the whole turn about the shared axis
        first[locked] = np.arctan2(-parity * m[j][k][locked], m[j][j][locked])
        last[locked] = 0.0
    euler = np.empty(q.shape[:-1] + (3,))
    euler[..., i] = first
    euler[..., j] = np.arctan2(sin_mid, cos_mid)
    euler[..., k] = last
    return euler


def _alternate_euler(euler, order):
    """The other Euler triple of the same rotation: (a + pi, pi - b, c + pi)."""
    i, j, k = (_AXES[letter] for letter in order)
    alt = euler.copy()
    alt[..., i] += np.pi
    alt[..., j] = np.pi - euler[..., j]
    alt[..., k] += np.pi
    return alt


def smallest_euler(q: np.ndarray, order: str) -> np.ndarray:
    """Of the two Euler triples of each rotation ``(..., 4)``, each angle in [-pi, pi], the one with the smaller sum of absolute
    angles ``(..., 3)``: what Blender gives for a matrix without a previous Euler to stay near."""
    principal = _principal_euler(q, order)
    alternate = _wrap(_alternate_euler(principal, order))
    return np.where((np.abs(alternate).sum(axis=-1) < np.abs(principal).sum(axis=-1))[..., None], alternate, principal)


def quat_to_euler(q: np.ndarray, order: str, reference: np.ndarray | None = None) -> np.ndarray:
    """Euler angles ``(F, ..., 3)`` continuous over frames (axis 0) from quaternions.

    Of the two Euler triples of each rotation (and their 2*pi multiples), picks
    the one nearest the previous frame's, so curves have no 360 or 180 degree
    flips. ``reference (..., 3)``: Euler angles the first frame should be near,
    typically the source curve's first value, so a round trip keeps the
    animator's winding.
    """
    q = np.asarray(q, dtype=float)
    principal = _principal_euler(q, order)
    alternate = _alternate_euler(principal, order)
    start = np.zeros(q.shape[1:-1], dtype=bool)
    if reference is not None:
        reference = np.asarray(reference, dtype=float)
        start = _branch_distance(alternate[0], reference) < _branch_distance(principal[0], reference)
    jumps = np.diff(principal, axis=0)
    steps = np.abs(_wrap(jumps))
    toggles = None
    if steps.size and steps.max() >= 0.5 * np.pi:
        # Switching branch between frames is a toggle; the branch of each frame
        # is the parity of the toggles before it (the relation is symmetric).
        toggles = _branch_distance(alternate[1:], principal[:-1]) < np.sum(steps, axis=-1)
    if toggles is None and not start.any():
        euler = principal  # one branch throughout: the usual case
    else:
        toggles = np.zeros(steps.shape[:-1], dtype=bool) if toggles is None else toggles
        use_alternate = np.cumsum(np.concatenate([start[None], toggles], axis=0), axis=0) % 2 == 1
        euler = np.where(use_alternate[..., None], alternate, principal)
        jumps = np.diff(euler, axis=0)
    turns = np.round(jumps / _TWO_PI)
    if turns.any():  # undo full-turn jumps between frames
        euler[1:] -= _TWO_PI * np.cumsum(turns, axis=0)
    anchor = reference if reference is not None else euler[0]
    euler += _TWO_PI * np.round((anchor - euler[0]) / _TWO_PI)[None]
    return euler


def axis_angle_to_quat(axis_angle: np.ndarray) -> np.ndarray:
    """Unit quaternions from Blender axis-angle ``(..., 4)``: (angle, x, y, z)."""
    axis_angle = np.asarray(axis_angle, dtype=float)
    return quat.from_axis_angle(axis_angle[..., 1:], axis_angle[..., 0])


def quat_to_axis_angle(q: np.ndarray) -> np.ndarray:
    """Blender axis-angle ``(F, ..., 4)`` (angle, x, y, z) from sign-continuous quaternions.

    The angle lies in [0, 2*pi] with the axis kept from flipping between frames
    (the sign of each frame's quaternion is followed, not forced to w >= 0).
    """
    q = quat.unroll(np.asarray(q, dtype=float))
    sin_half = np.linalg.norm(q[..., 1:], axis=-1)
    angle = 2.0 * np.arctan2(sin_half, q[..., 0])
    axis = np.where(sin_half[..., None] > 1e-9, q[..., 1:] / np.maximum(sin_half, 1e-300)[..., None], np.array([0.0, 1.0, 0.0]))
    return np.concatenate([angle[..., None], axis], axis=-1)


def to_quat(values: np.ndarray, mode: str) -> np.ndarray:
    """Quaternions from a rotation mode's F-curve components ``(..., COMPONENTS[mode])``."""
    if mode == "QUATERNION":
        return quat.normalize(values)
    if mode == "AXIS_ANGLE":
        return axis_angle_to_quat(values)
    return euler_to_quat(values, mode)


def from_quat(q: np.ndarray, mode: str, reference: np.ndarray | None = None) -> np.ndarray:
    """A rotation mode's F-curve components from quaternions over frames (axis 0).

    ``reference``: the first frame's original components, which Euler output is
    kept near (see :func:`quat_to_euler`) and quaternion output matches in sign.
    """
    if mode == "QUATERNION":
        return quat.unroll(q, reference)
    if mode == "AXIS_ANGLE":
        return quat_to_axis_angle(q)
    return quat_to_euler(q, mode, reference)
