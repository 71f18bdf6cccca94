"""A clip's channels at any time: between frames, on another frame grid, at another speed.

Times are 0-based fractional frame indices into the clip (seconds times fps).
LINEAR interpolation lerps vectors and slerps rotations; CUBIC passes a
Catmull-Rom spline through the keys (rotations through their sign-continuous
components, then normalized), so speeds do not jump at every original frame
when a clip is slowed down. Both reproduce the keys exactly on whole frames.
"""

import numpy as np

from ..errors import ClipError
from . import quat
from .clip import Clip

INTERPOLATIONS = ("LINEAR", "CUBIC")


def _neighbours(count, times):
    """Lower key index ``(T,)`` (clamped so the upper exists) and the fraction past it ``(T,)``."""
    times = np.asarray(times, dtype=float)
    low = np.clip(np.floor(times).astype(int), 0, max(count - 2, 0))
    return low, times - low


def _catmull_rom(values, low, part):
    """Catmull-Rom between ``values[low]`` and ``values[low + 1]`` at ``part``; one-sided tangents at the ends."""
    last = len(values) - 1
    p1, p2 = values[low], values[np.minimum(low + 1, last)]
    p0 = np.where(_column(low > 0, p1), values[np.maximum(low - 1, 0)], 2.0 * p1 - p2)
    p3 = np.where(_column(low + 2 <= last, p1), values[np.minimum(low + 2, last)], 2.0 * p2 - p1)
    u = _column(part, p1)
    m1, m2 = 0.5 * (p2 - p0), 0.5 * (p3 - p1)
    u2, u3 = u * u, u * u * u
    return (2 * u3 - 3 * u2 + 1) * p1 + (u3 - 2 * u2 + u) * m1 + (-2 * u3 + 3 * u2) * p2 + (u3 - u2) * m2


def _column(x, like):
    """``x (T,)`` shaped to broadcast against ``like (T, ...)``."""
    return np.reshape(x, (-1,) + (1,) * (np.ndim(like) - 1))


def values_at(values: np.ndarray, times: np.ndarray, interpolation: str = "LINEAR") -> np.ndarray:
    """``values (F, ...)`` at fractional frame indices ``times (T,)``; ``(T, ...)``.

    Times outside ``0..F-1`` hold the end values (LINEAR) or continue the
    end tangent (CUBIC); callers keep times inside the clip.
    """
    values = np.asarray(values, dtype=float)
    if len(values) == 1:
        return np.repeat(values, len(np.atleast_1d(times)), axis=0)
    low, part = _neighbours(len(values), times)
    if interpolation == "CUBIC":
        return _catmull_rom(values, low, part)
    part = np.clip(part, 0.0, 1.0)
    return values[low] * (1.0 - _column(part, values[low])) + values[low + 1] * _column(part, values[low])


def rotations_at(q: np.ndarray, times: np.ndarray, interpolation: str = "LINEAR") -> np.ndarray:
    """Sign-continuous unit quaternions ``q (F, ..., 4)`` at fractional frame indices ``times (T,)``; ``(T, ..., 4)``."""
    q = np.asarray(q, dtype=float)
    if len(q) == 1:
        return np.repeat(q, len(np.atleast_1d(times)), axis=0)
    low, part = _neighbours(len(q), times)
    if interpolation == "CUBIC":
        return quat.normalize(_catmull_rom(q, low, part))
    part = np.clip(part, 0.0, 1.0)
    return quat.slerp(q[low], q[low + 1], part.reshape((-1,) + (1,) * (q.ndim - 2)))


def sample_clip(clip: Clip, times: np.ndarray, interpolation: str = "LINEAR", fps: float | None = None) -> Clip:
    """The clip at fractional frame indices ``times (T,)``, as a clip of T frames numbered on from its first.

    fps: the new clip's frame rate (default the clip's). ClipError for an
    unknown interpolation or times outside the clip.
    """
    if interpolation not in INTERPOLATIONS:
        raise ClipError(f"unknown interpolation '{interpolation}' (one of {', '.join(INTERPOLATIONS)})")
    times = np.asarray(times, dtype=float)
    if times.ndim != 1 or not len(times) or not np.all(np.isfinite(times)):
        raise ClipError("sample times must be a non-empty list of finite frame indices")
    slack = 1e-9 * clip.num_frames
    if times.min() < -slack or times.max() > clip.num_frames - 1 + slack:
        raise ClipError(f"sample times {times.min():g}..{times.max():g} lie outside the clip's frames 0..{clip.num_frames - 1}")
    times = np.clip(times, 0.0, clip.num_frames - 1)
    return clip.with_channels(
        fps=float(clip.fps if fps is None else fps),
        frames=clip.frames[0] + np.arange(len(times), dtype=float),
        location=values_at(clip.location, times, interpolation),
        rotation=quat.unroll(rotations_at(clip.rotation, times, interpolation)),
        scale=values_at(clip.scale, times, interpolation))


def clip_at_seconds(clip: Clip, seconds: np.ndarray, interpolation: str = "LINEAR") -> Clip:
    """The clip's poses at ``seconds (T,)`` after its first frame, as a clip of T frames (see :func:`sample_clip`)."""
    return sample_clip(clip, np.asarray(seconds, dtype=float) * clip.fps, interpolation)


def low_pass(values: np.ndarray, width: int) -> np.ndarray:
    """``values (F, ...)`` averaged over a centred window of ``width`` frames, without lag.

    The ends are reflected through the end values (a point reflection), so the
    first and last values are kept exactly and a steady motion is unchanged.
    """
    values = np.asarray(values, dtype=float)
    half = min(int(width) // 2, len(values) - 1)
    if half < 1:
        return values.copy()
    head = 2.0 * values[0] - values[half:0:-1]
    tail = 2.0 * values[-1] - values[-2:-half - 2:-1]
    padded = np.concatenate([head, values, tail])
    total = np.concatenate([np.zeros((1,) + values.shape[1:]), np.cumsum(padded, axis=0)])
    return (total[2 * half + 1:] - total[:-2 * half - 1]) / (2 * half + 1)
