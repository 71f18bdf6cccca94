"""Quaternion helpers on w-first ``(..., 4)`` float arrays.

Every function is vectorized: leading axes are frames, bones or anything else,
and broadcast as numpy does. Angles are radians; angular velocities are
radians per second. Rotation vectors ("scaled angle-axis") are the axis times
the full rotation angle, the space in which rotation offsets are added.
"""

import numpy as np

_EPS = 1e-12
#: Frames :func:`unroll` works through at once: 8,192 of 60 bones' signs are 4 MB.
UNROLL_BLOCK = 8192


def _floats(q):
    """``q`` as a float array, keeping single precision when it is given."""
    q = np.asarray(q)
    return q if q.dtype in (np.float32, np.float64) else q.astype(float)


def identity(shape: tuple = ()) -> np.ndarray:
    """Identity quaternions of the given leading shape, ``shape + (4,)``."""
    q = np.zeros(tuple(shape) + (4,))
    q[..., 0] = 1.0
    return q


def normalize(q: np.ndarray) -> np.ndarray:
    """Unit quaternions; a zero quaternion becomes the identity."""
    q = _floats(q)
    norm = np.sqrt(np.einsum("...i,...i->...", q, q))[..., None]
    out = q / np.maximum(norm, _EPS)
    degenerate = norm[..., 0] <= _EPS
    if degenerate.any():
        out[degenerate] = (1.0, 0.0, 0.0, 0.0)
    return out


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a * b`` (apply ``b`` first, then ``a``)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = aw * bw - ax * bx - ay * by - az * bz
    out[..., 1] = aw * bx + ax * bw + ay * bz - az * by
    out[..., 2] = aw * by - ax * bz + ay * bw + az * bx
    out[..., 3] = aw * bz + ax * by - ay * bx + az * bw
    return out


def inverse(q: np.ndarray) -> np.ndarray:
    """Inverse of unit quaternions (the conjugate)."""
    q = np.asarray(q, dtype=float)
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def hemisphere(q: np.ndarray) -> np.ndarray:
    """The same rotations with ``w >= 0`` (the shortest-path representative)."""
    q = np.asarray(q, dtype=float)
    return np.where(q[..., :1] < 0.0, -q, q)


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v (..., 3)`` by unit quaternions ``q (..., 4)``."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    w = q[..., :1]
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def log(q: np.ndarray) -> np.ndarray:
    """Quaternion logarithm of unit quaternions: axis times half the angle, ``(..., 3)``."""
    q = np.asarray(q, dtype=float)
    vec = q[..., 1:]
    sin_half = np.linalg.norm(vec, axis=-1, keepdims=True)
    half = np.arctan2(sin_half, q[..., :1])
    # half/sin(half) -> 1 as the angle vanishes; the series keeps it exact.
    scale = np.where(sin_half > 1e-8, half / np.maximum(sin_half, 1e-300), 1.0 + sin_half**2 / 6.0)
    return vec * scale


def exp(v: np.ndarray) -> np.ndarray:
    """Quaternion exponential of ``v (..., 3)`` (axis times half angle): unit quaternions."""
    v = np.asarray(v, dtype=float)
    half = np.linalg.norm(v, axis=-1, keepdims=True)
    sinc = np.where(half > 1e-8, np.sin(half) / np.maximum(half, 1e-300), 1.0 - half**2 / 6.0)
    return np.concatenate([np.cos(half), v * sinc], axis=-1)


def to_rotation_vector(q: np.ndarray) -> np.ndarray:
    """Scaled angle-axis ``(..., 3)`` in radians of the shortest rotation equal to ``q``."""
    return 2.0 * log(hemisphere(q))


def from_rotation_vector(v: np.ndarray) -> np.ndarray:
    """Unit quaternions from scaled angle-axis vectors ``(..., 3)`` in radians."""
    return exp(0.5 * np.asarray(v, dtype=float))


def from_axis_angle(axis: np.ndarray, angle: float | np.ndarray) -> np.ndarray:
    """Unit quaternions rotating ``angle`` radians about ``axis (..., 3)``."""
    axis = np.asarray(axis, dtype=float)
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = np.where(norm > _EPS, axis / np.maximum(norm, _EPS), np.array([0.0, 1.0, 0.0]))
    half = 0.5 * np.asarray(angle, dtype=float)[..., None]
    return np.concatenate([np.cos(half), np.sin(half) * unit], axis=-1)


def between(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Shortest rotations taking directions ``u`` to ``v`` (both ``(..., 3)``)."""
    u = np.asarray(u, dtype=float) / np.maximum(np.linalg.norm(u, axis=-1, keepdims=True), _EPS)
    v = np.asarray(v, dtype=float) / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), _EPS)
    q = np.concatenate([1.0 + np.sum(u * v, axis=-1, keepdims=True), np.cross(u, v)], axis=-1)
    return normalize(q)


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """4D dot product, ``(...)``; the operands broadcast."""
    a, b = np.broadcast_arrays(a, b)
    return np.einsum("...i,...i->...", a, b)  # several times faster than summing a product over a short axis


def nlerp(a: np.ndarray, b: np.ndarray, t: float | np.ndarray) -> np.ndarray:
    """Normalized linear interpolation along the shorter arc; ``t`` broadcasts to ``(...)``."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    b = np.where(dot(a, b)[..., None] < 0.0, -b, b)
    t = np.asarray(t, dtype=float)[..., None]
    return normalize((1.0 - t) * a + t * b)


def slerp(a: np.ndarray, b: np.ndarray, t: float | np.ndarray) -> np.ndarray:
    """Spherical linear interpolation along the shorter arc; ``t`` broadcasts to ``(...)``.

    The weights ``sin((1 - t) theta) / sin(theta)`` and ``sin(t theta) / sin(theta)``
    on the two quaternions (a fifth of the time of composing a rotation
    vector). For tiny angles the weights tend to ``1 - t`` and ``t`` whatever
    the rounding of theta, and are taken as those.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    t = np.asarray(t, dtype=float)
    # Written out, not einsum: einsum's sums can round differently with the arrays' memory alignment,
    # and the same blend must give the same bits every time (a loop's untouched bones compare equal).
    product = a * b
    cos = product[..., 0] + product[..., 1] + product[..., 2] + product[..., 3]
    b = np.where(cos[..., None] < 0.0, -b, b)
    theta = np.arccos(np.minimum(np.abs(cos), 1.0))
    sin = np.sin(theta)
    tiny = sin < 1e-9
    sin = np.where(tiny, 1.0, sin)
    weight_a = np.where(tiny, 1.0 - t, np.sin((1.0 - t) * theta) / sin)
    weight_b = np.where(tiny, t, np.sin(t * theta) / sin)
    return normalize(weight_a[..., None] * a + weight_b[..., None] * b)


def angular_velocity(q: np.ndarray, dt: float) -> np.ndarray:
    """World-frame angular velocity between consecutive samples along axis 0.

    ``q`` is ``(F, ..., 4)``, ``dt`` seconds per frame; returns ``(F-1, ..., 3)``
    in radians per second: the rotation taking ``q[i]`` to ``q[i+1]``, divided by dt.
    """
    q = np.asarray(q, dtype=float)
    return to_rotation_vector(multiply(q[1:], inverse(q[:-1]))) / dt


def unroll(q: np.ndarray, reference: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Sign-continuous quaternions along axis 0 (no 180-degree flips between frames).

    Each sample keeps the sign that makes its dot product with the previous
    sample non-negative; ``reference (..., 4)`` optionally fixes the sign of the
    first sample. Vectorized: the flips are a cumulative product of signs,
    :data:`UNROLL_BLOCK` frames at a time (the sign carried from one block to
    the next), so a long take's temporaries stay a few MB, not its size each.
    out: where to write them (``q`` itself turns a long take's quaternions in place, with no second copy).
    """
    q = np.asarray(q, dtype=float)
    if q.shape[0] == 0:
        return q.copy()
    out = np.empty_like(q) if out is None else out
    sign = np.ones(q.shape[1:-1]) if reference is None else np.where(dot(q[0], reference) < 0.0, -1.0, 1.0)
    before = None  # the unflipped sample before the block (``out`` may be ``q``)
    for start in range(0, q.shape[0], UNROLL_BLOCK):
        block = q[start:start + UNROLL_BLOCK]
        steps = np.empty(block.shape[:-1])
        steps[0] = sign if before is None else sign * np.where(dot(block[0], before) < 0.0, -1.0, 1.0)
        steps[1:] = np.where(dot(block[1:], block[:-1]) < 0.0, -1.0, 1.0)
        signs = np.cumprod(steps, axis=0, out=steps)
        sign, before = signs[-1].copy(), block[-1].copy()
        np.multiply(block, signs[..., None], out=out[start:start + len(block)])
    return out


def matrix_entries(q: np.ndarray) -> list[np.ndarray]:
    """The rotation matrices of quaternions (any length; zero gives the identity) as nine arrays.

    Returns rows ``[[m00, m01, m02], [m10, ...], ...]`` of ``(...)`` arrays:
    whole arrays per entry, so callers can fill strided outputs or scale
    columns at full numpy speed (broadcasting over a trailing axis of 3 is slow).
    """
    q = _floats(q)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    # 2 / |q|^2 instead of normalizing first: the same matrix, one division per quaternion.
    length2 = np.einsum("...i,...i->...", q, q)
    s = np.divide(2.0, length2, out=np.zeros_like(length2), where=length2 > _EPS**2)
    xs, ys, zs = x * s, y * s, z * s
    xx, yy, zz = x * xs, y * ys, z * zs
    xy, xz, yz, wx, wy, wz = x * ys, x * zs, y * zs, w * xs, w * ys, w * zs
    return [
        [1.0 - (yy + zz), xy - wz, xz + wy],
        [xy + wz, 1.0 - (xx + zz), yz - wx],
        [xz - wy, yz + wx, 1.0 - (xx + yy)],
    ]


def to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(..., 3, 3)`` of quaternions (any length; a zero quaternion gives the identity)."""
    q = _floats(q)
    m = np.empty(q.shape[:-1] + (3, 3), dtype=q.dtype)
    for i, row in enumerate(matrix_entries(q)):
        for j, entry in enumerate(row):
            m[..., i, j] = entry
    return m


def from_matrix(m: np.ndarray) -> np.ndarray:
    """Unit quaternions (``w >= 0``) of rotation matrices ``(..., 3, 3)``.

    Columns are normalized first, so matrices carrying a positive scale work.
    Uses the numerically best of the four Shepperd branches per element.
    """
    m = np.asarray(m, dtype=float)
    m = m / np.maximum(np.linalg.norm(m, axis=-2, keepdims=True), _EPS)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    candidates = np.stack(
        [
            np.stack([1 + m00 + m11 + m22, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], -1),
            np.stack([m[..., 2, 1] - m[..., 1, 2], 1 + m00 - m11 - m22, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0]], -1),
            np.stack([m[..., 0, 2] - m[..., 2, 0], m[..., 0, 1] + m[..., 1, 0], 1 - m00 + m11 - m22, m[..., 1, 2] + m[..., 2, 1]], -1),
            np.stack([m[..., 1, 0] - m[..., 0, 1], m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], 1 - m00 - m11 + m22], -1),
        ],
        axis=-2,
    )
    diagonal = np.stack([m00 + m11 + m22, m00, m11, m22], axis=-1)
    best = np.argmax(diagonal, axis=-1)
    q = np.take_along_axis(candidates, best[..., None, None], axis=-2)[..., 0, :]
    return hemisphere(normalize(q))
