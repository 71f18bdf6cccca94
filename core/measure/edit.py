"""What an edit did, in numbers: the edited clip against the clips it was made from.

Lengths are the clips' unit (metres for imported mocap), times seconds,
speeds per second, accelerations per second squared.
"""

from dataclasses import dataclass, field

import numpy as np

from ..motion import contacts, kinematics
from ..motion.clip import Clip
from . import seam as metrics, verdict as verdicts


@dataclass
class EditResult:
    """An edited clip and its measurements.

    clip: the result, on the (first) input's skeleton, frames numbered on
    from the input's first. edit: the edit's name (``resample``, ``retime``,
    ``freeze``, ``splice``, ``blend``, ``mirror``). numbers: measurements by
    name, plain floats, units in the names' docs of each edit (shown in
    reports). notes: sentences worth telling the user (what was chosen or
    clamped). source_times: ``(F,)`` the (first) input's 0-based fractional
    frame index each result frame shows, when the edit changed time (None:
    frame for frame), so other curves of the input can follow. keeps_loop:
    whether a looping input still loops (its first and last poses keep
    their relation), so the result can be written to play as a cycle too.
    windows: ``(first, last, what)`` 0-based result frames the edit changed
    in a way worth marking (a freeze's held range and its eases), in order.
    """

    clip: Clip
    edit: str
    numbers: dict = field(default_factory=dict)
    notes: tuple = ()
    source_times: np.ndarray = None
    keeps_loop: bool = False
    windows: tuple = ()

    @property
    def verdict(self) -> verdicts.Verdict:
        """The edit's :func:`edit_verdict`."""
        return edit_verdict(self.numbers)

    def summary(self) -> str:
        """One line: the verdict and its reasons, the numbers, then the notes."""
        verdict = self.verdict
        parts = [f"{name.replace('_', ' ')} {value:.3g}" for name, value in self.numbers.items()]
        return "; ".join([": ".join([verdict.word, *verdict.reasons[:1]]) + "".join(f"; {r}" for r in verdict.reasons[1:]),
                          ", ".join(parts), *self.notes])


def joint_positions(clip: Clip) -> np.ndarray:
    """Armature-space joint positions ``(F, B, 3)``."""
    return kinematics.clip_joint_positions(clip)


def _toes(clip):
    """The clip's toe joints (:func:`..motion.contacts.toe_joints`): by name, else the two lowest on frames spread over the clip."""
    named = contacts.toe_joints(clip.bone_names)
    if len(named):
        return named
    sample = clip.take_frames(np.unique(np.linspace(0, clip.num_frames - 1, 100).astype(int)))
    return contacts.toe_joints(clip.bone_names, joint_positions(sample))


def _toe_positions(clip, toes):
    """Armature-space positions ``(F, len(toes), 3)``, posing only the toes and the bones above them."""
    return kinematics.clip_forward_kinematics(clip, bones=toes, heads_only=True)[..., :3, 3][:, toes]


def _planted_speed(positions, planted, dt):
    """Mean horizontal speed per second over the steps of ``positions (F, J, 3)`` whose both ends are ``planted (F, J)``; 0 if none."""
    speed = np.linalg.norm(np.diff(positions[..., :2], axis=0), axis=-1) / dt
    steps = planted[1:] & planted[:-1]
    return float(speed[steps].mean()) if steps.any() else 0.0


def toe_skating(clip: Clip, positions: np.ndarray | None = None) -> float:
    """Mean horizontal toe speed while in contact over the whole clip, per second (:func:`..motion.contacts.toe_skating`).

    positions: the clip's joint positions ``(F, B, 3)`` when already known;
    otherwise only the toes and the bones above them are posed (cheap on long takes).
    """
    if positions is not None:
        return contacts.toe_skating(positions, contacts.toe_joints(clip.bone_names, positions), clip.dt)
    toes = _toes(clip)
    return contacts.toe_skating(_toe_positions(clip, toes), np.arange(len(toes)), clip.dt)


def _retimed_toes(source, result, times):
    """The toes' positions in ``source`` and ``result``, the source's contacts and the result frames planted on them."""
    toes = _toes(source)
    before = _toe_positions(source, toes)
    planted = contacts.detect_contacts(before, source.dt)
    low = np.floor(times).astype(int)
    mapped = planted[low] & planted[np.minimum(low + 1, len(planted) - 1)]
    return before, _toe_positions(result, toes), planted, mapped


def retimed_skating(source: Clip, result: Clip, times: np.ndarray) -> tuple[float, float]:
    """(result's, source's) mean toe speed in contact, per second, over the source's contacts.

    times ``(F,)``: the source frame (fractional index) each result frame
    shows. A result frame counts as planted when the source frames on both
    sides of its time are; so the same contacts are measured in both, and a
    retime that adds no sliding of its own has ``result = speed * source``.
    """
    before, after, planted, mapped = _retimed_toes(source, result, times)
    return _planted_speed(after, mapped, result.dt), _planted_speed(before, planted, source.dt)


def warped_skating(source: Clip, result: Clip, times: np.ndarray, stretch: np.ndarray) -> tuple[float, float, float]:
    """A time warp's toe skating, per second: (result's as played, result's per second of the source's time, source's
    over the frames the result shows), over the source's contacts as in :func:`retimed_skating`.

    times ``(F,)``: the source frame each result frame shows; stretch ``(F,)``: the speed each plays at. Per second of
    the source's time, each step of the result is divided by its mean stretch, so a warp that adds no sliding of its
    own has it equal to the source's.
    """
    before, after, planted, mapped = _retimed_toes(source, result, times)
    step = 0.5 * (stretch[1:] + stretch[:-1])
    scaled = np.concatenate([after[:1], after[:1] + np.cumsum(np.diff(after, axis=0) / step[:, None, None], axis=0)])
    shown = slice(int(np.floor(times[0])), int(np.ceil(times[-1])) + 1)
    return (_planted_speed(after, mapped, result.dt), _planted_speed(scaled, mapped, result.dt),
            _planted_speed(before[shown], planted[shown], source.dt))


def acceleration_reference(*positions: np.ndarray, dt: float) -> np.ndarray:
    """Per joint ``(B,)``: the largest of the clips' 95th-percentile accelerations (``positions`` each ``(F, B, 3)``), floored at a quarter of the median joint's."""
    reference = np.max([metrics.baseline(p, dt).acceleration for p in positions], axis=0)
    return metrics.floored(reference)


def worst_frame(positions: np.ndarray, dt: float, reference: np.ndarray, joints: list | np.ndarray | None = None,
                frames: np.ndarray | None = None) -> float:
    """The largest acceleration over every inner frame and joint of ``positions (F, B, 3)``, over ``reference (B,)``.

    joints: indices to measure (default all); frames: the inner frame indices to measure (default all). 1 means as
    sharp as the reference clips' 95th percentile; a clip's own worst frame is usually 2-4.
    """
    joints = np.arange(positions.shape[1]) if joints is None else np.asarray(joints)
    inner = np.arange(1, len(positions) - 1)
    if frames is not None:
        inner = np.intersect1d(inner, frames)
    if not len(inner) or not len(joints):
        return 0.0  # nothing to accelerate
    return float((kinematics.accelerations(positions[:, joints], dt, inner) / reference[joints]).max())


# (the result's measure, the inputs' same measure, its name, unit, what is too small to see) by which an edit is judged.
JUDGED = (("worst_frame", "inputs_worst_frame", "sharpest frame", "", 0.0), ("worst_frame", "source_worst_frame", "sharpest frame", "", 0.0),
          ("join_visibility", "lower_join_visibility", "waist join visibility", "", 0.0),
          ("skating", "source_skating", "toe skating", "m/s", verdicts.NEGLIGIBLE_SKATING),
          ("skating", "inputs_skating", "toe skating", "m/s", verdicts.NEGLIGIBLE_SKATING),
          ("skating", "lower_skating", "toe skating", "m/s", verdicts.NEGLIGIBLE_SKATING))


def edit_verdict(numbers: dict) -> verdicts.Verdict:
    """An edit's :class:`~.verdict.Verdict` from its numbers: its sharpest frame, waist join and toe skating against its
    inputs' own, and its body against their floor (``floor_offset_m``, ``pelvis_offset_m``) where it measures them."""
    measures = [verdicts.Measure(name, numbers[result], numbers[own], unit, negligible)
                for result, own, name, unit, negligible in JUDGED if result in numbers and own in numbers]
    return verdicts.judge(measures, numbers.get("floor_offset_m", 0.0), numbers.get("pelvis_offset_m", 0.0))


def same_motion(clip_a: Clip, clip_b: Clip) -> bool:
    """Whether two clips hold the same motion (one file or action given twice), to rounding."""
    return (clip_a.num_frames == clip_b.num_frames and clip_a.bone_names == clip_b.bone_names
            and np.allclose(clip_a.rotation, clip_b.rotation, atol=1e-7) and np.allclose(clip_a.location, clip_b.location, atol=1e-7))
