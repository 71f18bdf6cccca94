"""Transition metrics: is the blend more visible than the clips' own motion?

Everything is measured on the frames around the transition's window (one
frame either side, where a kink at its edges shows) and compared with the
two clips' own motion. Lengths are the clips' unit (metres for imported
mocap), times seconds, angles radians.
"""

from dataclasses import dataclass

import numpy as np

from ..motion import contacts, kinematics, quat, root as root_motion
from ..motion.clip import Clip
from . import grounding, seam as metrics


@dataclass
class TransitionMetrics:
    """The transition window against the clips it joins, all plain floats."""

    visibility: float  # max over joints and window frames of acceleration / the clips' p95 over runs as long (see :func:`run_reference`)
    root_speed_jump: float  # largest change of the root's horizontal speed from one frame to the next in the window, per second
    clips_root_speed_jump: float  # the same, the largest anywhere in either clip
    heading_rate: float  # largest heading change from one frame to the next in the window, radians per second
    clips_heading_rate: float  # the same, the largest anywhere in either clip
    skating: float  # mean horizontal toe speed while in contact in the window, per second
    clips_skating: float  # the same over each whole clip, the larger of the two
    floor_offset: float = 0.0  # how far the feet leave the clips' floor anywhere in the result (see :mod:`.grounding`), clip units
    pelvis_offset: float = 0.0  # how far the pelvis leaves the clips' heights anywhere in the result, clip units

    def summary(self) -> str:
        return (f"visibility {self.visibility:.2f}, root speed jump {self.root_speed_jump:.2f} (clips {self.clips_root_speed_jump:.2f}) /s, "
                f"heading rate {self.heading_rate:.2f} (clips {self.clips_heading_rate:.2f}) rad/s, "
                f"toe skating {self.skating:.3f} (clips {self.clips_skating:.3f}) /s, "
                f"off the floor {self.floor_offset:.3f}, pelvis off its height {self.pelvis_offset:.3f}")

    @property
    def grounded(self) -> bool:
        """True when the body stays on the clips' floor and at their height (within :data:`.grounding.TOLERANCE`)."""
        return not grounding.stands_off(self.floor_offset, self.pelvis_offset)


def run_reference(positions: np.ndarray, dt: float, run: int) -> np.ndarray:
    """Each joint's typical acceleration peak over ``run`` frames ``(B,)``, per second squared.

    positions ``(F, B, 3)``: for every run of ``run`` consecutive frames, the
    largest acceleration of each joint in it; the 95th percentile over runs.
    """
    return acceleration_peaks(inner_accelerations(positions, dt), run)


def inner_accelerations(positions: np.ndarray, dt: float) -> np.ndarray:
    """Acceleration magnitudes ``(F - 2, B)`` per second squared of positions ``(F, B, 3)`` at every frame but the two ends."""
    return kinematics.accelerations(positions, dt, np.arange(1, len(positions) - 1))


def acceleration_peaks(accelerations: np.ndarray, run: int) -> np.ndarray:
    """:func:`run_reference` from a clip's :func:`inner_accelerations` ``(F - 2, B)``: the 95th percentile over runs of
    ``run`` frames of each joint's largest acceleration in the run ``(B,)``."""
    return np.percentile(_running_max(accelerations, min(run, len(accelerations))), 95, axis=0)


def _running_max(values: np.ndarray, size: int) -> np.ndarray:
    """``y[k] = max(values[k:k + size])`` along axis 0, ``(len(values) - size + 1, ...)``: maxima over spans that double,
    log2(size) passes (a window of every ``size`` values would take ``size``)."""
    span = 1
    while 2 * span <= size:
        values = np.maximum(values[:-span], values[span:])  # each entry: the largest of 2 span values from it on
        span *= 2
    rest = size - span
    return np.maximum(values[:len(values) - rest], values[rest:]) if rest else values


def _speed_changes(position, dt):
    """Changes ``(F,)`` of the horizontal speed of ``position (F, 3)`` at each frame (step after minus step before), per second; 0 at the ends."""
    speed = kinematics.lengths(np.diff(position[:, :2], axis=0)) / dt
    return np.concatenate([[0.0], np.diff(speed), [0.0]])


def clip_positions(clip: Clip, names: tuple | list) -> np.ndarray:
    """Armature-space positions ``(F, len(names), 3)`` of ``clip``'s bones called ``names``."""
    bones = [clip.bone_index(name) for name in names]
    positions = kinematics.clip_joint_positions(clip)
    return positions if bones == list(range(clip.num_bones)) else positions[:, bones]  # every bone in order: no copy


class Yardstick:
    """What two clips measure on their own, which every transition between them is held to: computed once, however many
    transitions are measured (a search measures dozens).

    positions: the two clips' :func:`clip_positions` on the result's bones ``names``, when already computed.
    """

    def __init__(self, clip_a: Clip, clip_b: Clip, names: tuple, positions: tuple | list | None = None):
        self.clips = clip_a, clip_b
        self.positions = [clip_positions(c, names) for c in self.clips] if positions is None else list(positions)
        self._references, self._roots, self._skating, self._accelerations = {}, {}, {}, {}

    def reference(self, dt: float, run: int) -> np.ndarray:
        """Each joint's typical acceleration peak over ``run`` frames ``(B,)``: the larger of the clips' :func:`run_reference`, floored."""
        if (dt, run) not in self._references:
            larger = np.maximum(*(acceleration_peaks(accelerations, run) for accelerations in self.accelerations(dt)))
            self._references[dt, run] = metrics.floored(larger)
        return self._references[dt, run]

    def accelerations(self, dt: float) -> list[np.ndarray]:
        """Each clip's :func:`inner_accelerations` at ``dt``: measured once, the same for every run length."""
        if dt not in self._accelerations:
            self._accelerations[dt] = [inner_accelerations(positions, dt) for positions in self.positions]
        return self._accelerations[dt]

    def skating(self, toes: np.ndarray, dt: float) -> float:
        """The larger of the clips' :func:`..motion.contacts.toe_skating` of the joints ``toes``, per second."""
        if (tuple(toes), dt) not in self._skating:
            self._skating[tuple(toes), dt] = max(contacts.toe_skating(p, toes, dt, slice(None)) for p in self.positions)
        return self._skating[tuple(toes), dt]

    def root_motion(self, root_name: str, dt: float) -> tuple[np.ndarray, float, float]:
        """(the axis the root turns about, the clips' largest heading rate, their largest root speed jump) of the bone ``root_name``."""
        if (root_name, dt) not in self._roots:
            roots = [root_motion.root_frames(c, c.bone_index(root_name))[0] for c in self.clips]
            rotations = [quat.from_matrix(r[:, :3, :3]) for r in roots]
            axis = root_motion.heading_axis(np.concatenate(rotations))  # the axis the blend turned the root about
            turns = [np.abs(np.diff(root_motion.heading(r, axis))).max() / dt for r in rotations]
            jumps = [np.abs(_speed_changes(r[:, :3, 3], dt)).max() for r in roots]
            self._roots[root_name, dt] = axis, float(max(turns)), float(max(jumps))
        return self._roots[root_name, dt]


def transition_metrics(result: object, clip_a: Clip, clip_b: Clip, positions: tuple | list | None = None,
                       made_from: tuple | None = None, yardstick: Yardstick | None = None,
                       result_positions: np.ndarray | None = None) -> TransitionMetrics:
    """:class:`TransitionMetrics` of a :class:`..transition.blend.TransitionResult` made from ``clip_a`` and ``clip_b``.

    The window is measured from one frame before its first to one after its
    last. The yardstick for each joint's acceleration is the larger of the
    two clips' :func:`run_reference` for runs as long as the measured frames.
    positions: the two clips' :func:`clip_positions` on the result's bones,
    when already computed; yardstick: their :class:`Yardstick`, to measure
    several transitions of one pair (it holds the positions).
    made_from: the two clips as given, on their own skeletons, whose floor
    and heights the result must keep (default: clip_a and clip_b).
    result_positions: the result clip's :func:`clip_positions` ``(F, B, 3)``,
    when already computed (see :func:`..transition.blend.joint_positions`).
    """
    clip = result.clip
    dt = clip.dt
    names = clip.bone_names
    first, last = max(result.window[0] - 1, 1), min(result.window[1] + 1, clip.num_frames - 2)
    measured = np.arange(first, last + 1)

    own = yardstick or Yardstick(clip_a, clip_b, names, positions)
    positions = [clip_positions(clip, names) if result_positions is None else result_positions] + own.positions
    visibility = metrics.played_visibility(positions[0], dt, measured, own.reference(dt, len(measured)))

    axis, clips_heading_rate, clips_root_speed_jump = own.root_motion(names[result.root], dt)
    root = root_motion.root_frames(clip.slice_frames(first - 1, last + 2), result.root)[0]  # the measured frames and one either side
    turns = np.abs(np.diff(root_motion.heading(quat.from_matrix(root[:, :3, :3]), axis))) / dt
    speed_jumps = np.abs(_speed_changes(root[:, :3, 3], dt))[1:-1]

    toes = contacts.toe_joints(names, positions[0])
    body = grounding.of_clip(clip, positions[0], positions[1:] if made_from is None else made_from)
    return TransitionMetrics(
        visibility=visibility,
        root_speed_jump=float(speed_jumps.max()),
        clips_root_speed_jump=clips_root_speed_jump,
        heading_rate=float(turns.max()),
        clips_heading_rate=clips_heading_rate,
        skating=contacts.toe_skating(positions[0], toes, dt, slice(first - 1, last + 2)),
        clips_skating=own.skating(toes, dt),
        floor_offset=body.floor_offset,
        pelvis_offset=body.pelvis_offset,
    )
