"""Seamless loops by inertialized stitching: offsets that close a clip on itself.

A loop range of ``n`` frames follows the clamp convention: frame ``n-1`` is
where the cycle wraps and must equal frame 0. Offsets are added to positions
and applied on the left to rotations (``exp(offset) * q``, offsets as rotation
vectors in radians). Every method splits the start-end difference between the
two ends with ``ratio`` (1: all at the start, 0: all at the end).

Derivation used for every method but SPRING: write the offset as
``o(i) = r D p_s(i) - (1-r) D p_e(i) + beta (r w_s(i) + (1-r) w_e(i))`` where
``p`` are position shapes (1 at their end of the clip, 0 at the other) and
``w`` velocity shapes (0 at both ends, slope at their own end). The first term
closes the position gap D exactly. With ``g`` the seam's velocity mismatch in
units per frame (:func:`seam_mismatch`, a linear function of the samples), continuity needs
``g(x + o) = 0``; ``g`` is linear, so ``beta = -(g(x) + r D g(p_s) - (1-r) D g(p_e)) / g(r w_s + (1-r) w_e)``.
This includes whatever slope a shape has at its ends (softfade's ramp, the
linear fade's constant slope), in the discrete form the seam is seen in, so
the loop is velocity-continuous by construction, not by approximation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LoopError
from ..measure.seam import one_sided_velocities
from ..motion import quat
from ..motion.cycles import seam_mismatch, span_frames

#: Every method, in the order menus list them: (label, what it does).
METHOD_INFO = {
    "CUBIC": ("Cubic", "inertialize the start-end difference away within a blend time at each end (exact)"),
    "LINEAR_INERTIALIZE": ("Linear + Inertialize", "spread the difference over the whole loop, velocity corrected at the ends"),
    "SOFTFADE": ("Softfade", "fade the difference out over a soft ramp at each end, velocity corrected"),
    "SPRING": ("Spring", "decay the difference with critically damped springs (leaves a tiny, reported residual)"),
    "LINEAR": ("Linear", "spread the difference over the whole loop without velocity correction"),
    "CROSSFADE": ("Crossfade", "blend the last frames into a continuation of the first frame"),
    "NONE": ("None (Trim)", "only cut the range, for comparison"),
}
METHODS = tuple(METHOD_INFO)
#: The methods AUTO makes and measures, simplest first (a tie goes to the earlier).
AUTO_METHODS = ("CUBIC", "CROSSFADE", "SOFTFADE", "SPRING")
#: Make Loop's choices: AUTO (the default: each of AUTO_METHODS made and measured, the least visible kept, near ties to the simpler), then every method.
CHOICE_INFO = {"AUTO": ("Best Measured", "make the loop with " + ", ".join(name.title() for name in AUTO_METHODS)
                        + " and keep the one whose seam shows least as played (velocity jump, then simplicity, break ties)"),
               **METHOD_INFO}
CHOICES = tuple(CHOICE_INFO)
#: Parameters only one method uses, and that method: AUTO makes that method with their defaults.
SINGLE_METHOD_PARAMETERS = {
    "halflife_start": "SPRING", "halflife_end": "SPRING",
    "softfade_start": "SOFTFADE", "softfade_end": "SOFTFADE", "hardness_start": "SOFTFADE", "hardness_end": "SOFTFADE",
    "crossfade": "CROSSFADE", "crossfade_preroll": "CROSSFADE",
}
SIDES = ("START", "END", "BOTH")


@dataclass(frozen=True)
class StitchParameters:
    """How to close the seam. Times are seconds, so defaults suit any frame rate.

    The defaults follow the published inertialization demo: half-lives 0.1 s,
    cubic blends 0.2 s, softfade 0.4 s at hardness 16, ratio 0.5. method:
    one of :data:`CHOICES`; AUTO is resolved by :func:`.make.make_loop` (see
    :meth:`candidates`), the stitching functions take a method.
    """

    method: str = "AUTO"
    side: str = "BOTH"  # SPRING and CUBIC: which end takes the correction
    ratio: float = 0.5  # share of the correction at the start when side is BOTH
    halflife_start: float = 0.1
    halflife_end: float = 0.1
    blend_start: float = 0.2  # cubic blend / velocity-correction time
    blend_end: float = 0.2
    softfade_start: float = 0.4
    softfade_end: float = 0.4
    hardness_start: float = 16.0
    hardness_end: float = 16.0
    crossfade: float = 0.3  # seconds blended before the seam
    crossfade_preroll: bool = False  # blend towards the frames before the loop start, when the clip has them

    def effective_ratio(self) -> float:
        if self.method in ("SPRING", "CUBIC") and self.side != "BOTH":
            return 1.0 if self.side == "START" else 0.0
        return float(np.clip(self.ratio, 0.0, 1.0))

    def candidates(self) -> tuple[StitchParameters, ...]:
        """The parameters of each method tried: this one's method, or with AUTO each of :data:`AUTO_METHODS`.

        AUTO keeps the parameters several methods share (side, ratio, blend
        times) and takes those of :data:`SINGLE_METHOD_PARAMETERS` at their defaults.
        """
        if self.method != "AUTO":
            return (self,)
        shared = {name: getattr(self, name) for name in self.__dataclass_fields__ if name not in SINGLE_METHOD_PARAMETERS}
        return tuple(StitchParameters(**{**shared, "method": method}) for method in AUTO_METHODS)

    @classmethod
    def from_settings(cls, settings: object) -> StitchParameters:
        """The parameters named like this class's fields, read off ``settings`` (an operator, a scene's settings, parsed options)."""
        return cls(**{name: getattr(settings, name) for name in cls.__dataclass_fields__})

    def check(self, num_frames: int, dt: float) -> None:
        """Raise LoopError if these parameters cannot close a loop of ``num_frames``."""
        if self.method not in CHOICES:
            raise LoopError(f"unknown method '{self.method}' (one of {', '.join(CHOICES)})")
        if self.side not in SIDES:
            raise LoopError(f"unknown side '{self.side}'")
        if num_frames < 4:
            raise LoopError(f"a loop needs at least 4 frames, the range has {num_frames}")
        timed = {
            "AUTO": ("blend_start", "blend_end"),  # the shared timings; a method whose own defaults do not fit is not tried
            "CUBIC": ("blend_start", "blend_end"),
            "LINEAR_INERTIALIZE": ("blend_start", "blend_end"),
            "SOFTFADE": ("blend_start", "blend_end", "softfade_start", "softfade_end"),
            "CROSSFADE": ("crossfade",),
        }.get(self.method, ())
        for name in timed:
            check_time(name, getattr(self, name), num_frames, dt)
        for name in ("halflife_start", "halflife_end", "hardness_start", "hardness_end"):
            if getattr(self, name) <= 0.0:
                raise LoopError(f"{name.replace('_', ' ')} must be above 0")


def check_time(name: str, value: float, num_frames: int, dt: float) -> None:
    """Raise LoopError unless the time ``value`` (seconds) of the setting ``name`` spans two frames and fits a loop of ``num_frames``."""
    duration = (num_frames - 1) * dt
    if not (2.0 * dt <= value + 1e-9 and value <= duration + 1e-9):
        raise LoopError(f"{name.replace('_', ' ')} {value:.3g} s must be at least two frames and within the loop's {duration:.3g} s")


def cubic_position(u: float | np.ndarray) -> np.ndarray:
    u = np.clip(u, 0.0, 1.0)
    return 2.0 * u**3 - 3.0 * u**2 + 1.0


def cubic_velocity(u: float | np.ndarray) -> np.ndarray:
    u = np.clip(u, 0.0, 1.0)
    return u**3 - 2.0 * u**2 + u


def _softfade(u, hardness):
    """Softfade ramp normalized to exactly 1 at u=0 and 0 from u=1 on."""
    ramp = np.logaddexp(0.0, hardness - 2.0 * hardness * np.clip(u, 0.0, 1.0)) / hardness
    top, bottom = np.logaddexp(0.0, hardness) / hardness, np.logaddexp(0.0, -hardness) / hardness
    return (ramp - bottom) / (top - bottom)


def _shapes(n, dt, params):
    """Position and velocity shapes ``(n,)`` for the start and the end side."""
    since_start = np.arange(n) * dt
    until_end = since_start[::-1]
    method = params.method
    if method in ("LINEAR", "LINEAR_INERTIALIZE"):
        fade = np.arange(n) / (n - 1)
        p_start, p_end = 1.0 - fade, fade
    elif method == "SOFTFADE":
        p_start = _softfade(since_start / params.softfade_start, params.hardness_start)
        p_end = _softfade(until_end / params.softfade_end, params.hardness_end)
    else:  # CUBIC
        p_start = cubic_position(since_start / params.blend_start)
        p_end = cubic_position(until_end / params.blend_end)
    if method == "LINEAR":
        w_start = w_end = np.zeros(n)
    else:
        w_start, w_end = velocity_shapes(n, dt, params.blend_start, params.blend_end)
    return p_start, p_end, w_start, w_end


def velocity_shapes(n: int, dt: float, blend_start: float, blend_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Cubic velocity-correction shapes ``(n,)`` at the start and the end (blend times in seconds).

    Each is 0 at both ends of the clip and has a slope only at its own end.
    """
    since_start = np.arange(n) * dt
    w_start = blend_start * cubic_velocity(since_start / blend_start)
    w_end = blend_end * cubic_velocity(since_start[::-1] / blend_end)
    return w_start, w_end


def _expand(shape, like):
    return shape.reshape((-1,) + (1,) * (like.ndim - 1))


def _mismatch_rows(n, span):
    """The frames :func:`seam_mismatch` over ``span`` frames reads of a clip of ``n``: 0, span, 2 span and as far from n-1."""
    return np.r_[0, span, 2 * span, n - 1 - 2 * span, n - 1 - span, n - 1]


def _closing_weights(n, dt, params, span):
    """Per-frame weights ``(n,)`` of the gap and of the velocity term, their mismatches over ``span`` frames and the frames
    those read."""
    if params.method not in METHODS:
        raise LoopError(f"stitching needs one of {', '.join(METHODS)}, not '{params.method}' (make_loop chooses for AUTO)")
    r = params.effective_ratio()
    p_start, p_end, w_start, w_end = _shapes(n, dt, params)
    velocity_shape, gap_shape = r * w_start + (1.0 - r) * w_end, r * p_start - (1.0 - r) * p_end
    return gap_shape, velocity_shape, seam_mismatch(velocity_shape, span), seam_mismatch(gap_shape, span), _mismatch_rows(n, span)


def _closing_offsets(gap, mismatch, weights, frames):
    """Offsets at ``frames`` closing a position gap and velocity mismatch (both ``(...)``)."""
    gap_shape, velocity_shape, g_velocity, g_gap, _ = weights
    beta = -(mismatch + gap * g_gap) / g_velocity if abs(g_velocity) > 1e-12 else 0.0
    return _expand(gap_shape[frames], gap[None]) * gap + _expand(velocity_shape[frames], gap[None]) * beta


def _support(weights):
    """Frames where an offset is not zero (short blends touch only the ends), and those the seam's mismatch reads."""
    gap_shape, velocity_shape, _, _, rows = weights
    touched = (gap_shape != 0.0) | (velocity_shape != 0.0)
    touched[rows] = True
    return np.flatnonzero(touched)


def _spring_offsets(gap, velocity_gap, n, dt, params):
    """The seed's critically damped springs; their tails leave a small residual."""
    r = params.effective_ratio()
    since_start = np.arange(n) * dt

    def decayed(x, v, halflife, t):
        y = 2.0 * np.log(2.0) / halflife  # half the damping of a critically damped spring
        t = _expand(t, x[None])
        return np.exp(-y * t) * (x + (v + x * y) * t)

    return (decayed(r * gap, r * velocity_gap, params.halflife_start, since_start)
            + decayed(-(1.0 - r) * gap, (1.0 - r) * velocity_gap, params.halflife_end, since_start[::-1]))


def stitch_vectors(x: np.ndarray, dt: float, params: StitchParameters) -> np.ndarray:
    """Loop vector channels ``x (n, ..., k)`` (locations in metres, scales): returns a new array."""
    x = np.asarray(x, dtype=float)
    n, span = len(x), span_frames(dt, len(x))
    gap = x[-1] - x[0]
    if params.method == "SPRING":
        velocity_gap = seam_mismatch(x, span) / dt
        return x + _spring_offsets(gap, velocity_gap, n, dt, params)
    if params.method == "NONE":
        return x.copy()
    weights = _closing_weights(n, dt, params, span)
    frames = _support(weights)
    out = x.copy()
    out[frames] += _closing_offsets(gap, seam_mismatch(x, span), weights, frames)
    return out


def _rotation_mismatch(ends, span=1):
    """:func:`seam_mismatch` over ``span`` frames of rotations, from the frames it reads (:func:`_mismatch_rows`) ``ends (6,
    ..., 4)``, as a rotation vector per frame."""
    def step(a, b):
        return quat.to_rotation_vector(quat.multiply(ends[b], quat.inverse(ends[a])))

    first, second = step(0, 1), step(1, 2)
    before_last, last = step(3, 4), step(4, 5)
    return (last - first + 0.5 * ((second - first) + (last - before_last))) / span


def stitch_rotations(q: np.ndarray, dt: float, params: StitchParameters, tolerance: float = 1e-10, max_iterations: int = 30) -> np.ndarray:
    """Loop sign-continuous rotations ``q (n, ..., 4)`` with left-applied rotation-vector offsets.

    The offset algebra is linear in rotation vectors while rotations compose
    non-linearly, so the velocity term is refined on the result until the
    seam mismatch is under ``tolerance`` radians per frame.
    """
    q = np.asarray(q, dtype=float)  # sign-continuous already (a Clip guarantees it)
    n, span = len(q), span_frames(dt, len(q))
    gap = quat.to_rotation_vector(quat.multiply(q[-1], quat.inverse(q[0])))
    mismatch = _rotation_mismatch(q[_mismatch_rows(n, span)], span)
    if params.method == "NONE":
        return q.copy()
    if params.method == "SPRING":
        offsets = _spring_offsets(gap, mismatch / dt, n, dt, params)
        return quat.unroll(quat.multiply(quat.from_rotation_vector(offsets), q))
    weights = _closing_weights(n, dt, params, span)
    _, velocity_shape, g_velocity, _, rows = weights
    frames = _support(weights)
    offsets = _closing_offsets(gap, mismatch, weights, frames)
    # The mismatch reads only six frames (rows).
    ends = np.searchsorted(frames, rows)
    for _ in range(max_iterations if abs(g_velocity) > 1e-12 else 0):
        residual = _rotation_mismatch(quat.multiply(quat.from_rotation_vector(offsets[ends]), q[frames[ends]]), span)
        if np.abs(residual).max() < tolerance:
            break
        offsets = offsets - _expand(velocity_shape[frames], gap[None]) * (residual / g_velocity)
    out = q.copy()
    changed = quat.multiply(quat.from_rotation_vector(offsets), q[frames])
    # Offsets stay well under a half turn, so each changed frame keeps the sign of the
    # (sign-continuous) original: continuity without a pass over every frame.
    out[frames] = np.where(quat.dot(changed, q[frames])[..., None] < 0.0, -changed, changed)
    return out


def crossfade_vectors(x: np.ndarray, dt: float, params: StitchParameters, preroll: np.ndarray | None = None) -> np.ndarray:
    """Blend the last frames of ``x (n, ..., k)`` into a continuation of frame 0.

    The target is ``preroll`` (the frames before the loop start, same trailing
    shape, at least as many as blended) when given, else frame 0 continued
    backwards (:func:`_reversal`). Smootherstep weights reach 1 on the last
    frame, which then equals frame 0 exactly.
    """
    x = np.asarray(x, dtype=float)
    count, weights = _crossfade_weights(len(x), dt, params)
    if preroll is not None and len(preroll) >= count - 1:
        target = np.concatenate([np.asarray(preroll, float)[len(preroll) - (count - 1):], x[:1]])
    else:
        target = _reversal(x, count, dt)
    out = x.copy()
    out[-count:] = x[-count:] + _expand(weights, x) * (target - x[-count:])
    out[-1] = x[0]
    return out


def _crossfade_weights(n, dt, params):
    count = int(min(n - 1, max(2, round(params.crossfade / dt) + 1)))
    u = np.arange(1, count + 1) / count
    return count, u**3 * (10.0 - 15.0 * u + 6.0 * u**2)  # smootherstep: flat to second order at both ends


def _start_velocity(offsets, dt):
    """The velocity ``(...)`` per second at frame 0 of ``offsets (2 span + 1, ...)``, a clip's first frames as offsets from
    frame 0 (:func:`_velocity_frames`): the second-order estimate from ahead over the seam's span in seconds
    (:data:`..motion.cycles.SPAN`), so the take's rate and a jittery frame change it no more than they change the seam."""
    return one_sided_velocities(offsets, dt, np.array([0]), (len(offsets) - 1) // 2)[1][0]


def _velocity_frames(n, dt):
    """How many of a clip's ``n`` first frames :func:`_start_velocity` takes."""
    return 2 * span_frames(dt, n) + 1


def _reversal(x, count, dt):
    """Frame 0 of ``x (n, ...)`` continued backwards as ``x[k] - 2 v t`` (``(count, ...)``, k = count-1 ... 0 frames, t
    seconds, before frame 0; v its velocity): the motion after it with its velocity turned round, which keeps frame 0's
    velocity and acceleration and never strays further than the clip moves over the blend plus its velocity's, where
    extrapolating velocity and acceleration from three frames turned a jittery 120 fps take's joints by up to 134 radians
    over the blend (a joint popping at 75 m/s)."""
    velocity = _start_velocity(x[:_velocity_frames(len(x), dt)] - x[0], dt)
    return x[count - 1::-1] - 2.0 * _expand(_steps_back(count) * dt, x) * velocity


def _steps_back(count):
    """Frames before frame 0 of each blended frame, ``(count,)``: count-1 ... 0."""
    return np.arange(count - 1, -1, -1).astype(float)


def crossfade_rotations(q: np.ndarray, dt: float, params: StitchParameters, preroll: np.ndarray | None = None) -> np.ndarray:
    """Rotation counterpart of :func:`crossfade_vectors`: each blended frame turned that weight of the way to the target, the
    turn followed continuously from the seam back (a target a half turn or more away turns on, never back the short way)."""
    q = quat.unroll(np.asarray(q, dtype=float))
    count, weights = _crossfade_weights(len(q), dt, params)
    if preroll is not None and len(preroll) >= count - 1:
        target = np.concatenate([np.asarray(preroll, float)[len(preroll) - (count - 1):], q[:1]])
    else:
        turned = quat.to_rotation_vector(quat.multiply(q[:_velocity_frames(len(q), dt)], quat.inverse(q[:1])))  # small so soon
        back = _expand(_steps_back(count) * dt, turned) * _start_velocity(turned, dt)
        target = quat.multiply(quat.from_rotation_vector(-2.0 * back), q[count - 1::-1])  # _reversal's turn
    turn = quat.unroll(quat.multiply(target, quat.inverse(q[-count:]))[::-1])[::-1]  # from the seam's own, the shortest
    out = q.copy()
    out[-count:] = quat.multiply(quat.exp(_expand(weights, turn) * quat.log(turn)), q[-count:])
    out[-1] = q[0]
    return quat.unroll(out)
