"""Blending two motions, numpy only: weights, timings (FRACTION, CONTACTS, WARP), the shorter clip, the root from velocities."""

import numpy as np
import pytest

from core import demo
from core.motion import kinematics, quat, root as root_motion
from core.edit import blend
from core.errors import EditError

_LEGS = {"L": "UpperLeg.L", "R": "UpperLeg.R"}


def _march(frames, period, first_lift, speed=0.2, lift_share=0.4, still=False):
    """Stepping on the demo skeleton: each foot lifts for ``lift_share`` of a ``period``-frame cycle, the hips creep along -Y and bob.

    first_lift: {"L": frame, "R": frame} where each foot first leaves the
    floor (they alternate every period). still: both feet planted throughout.
    Planted feet slide at ``speed`` m/s, under the contact detector's limit.
    """
    clip = demo.walk_cycle(num_frames=frames).clip
    rotation = quat.identity((frames, clip.num_bones))
    location = np.zeros((frames, clip.num_bones, 3))
    t = np.arange(frames, dtype=float)
    if not still:
        for side, leg in _LEGS.items():
            phase = ((t - first_lift[side]) % period) / (period * lift_share)
            bend = np.where(phase < 1.0, np.radians(35.0) * np.sin(np.pi * np.minimum(phase, 1.0)) ** 2, 0.0)
            thigh, shin = clip.bone_index(leg), clip.bone_index(leg.replace("Upper", "Lower"))
            rotation[:, thigh] = quat.from_axis_angle([1.0, 0.0, 0.0], bend)  # the rest's X is the hip's left-right axis
            rotation[:, shin] = quat.from_axis_angle([1.0, 0.0, 0.0], -2.0 * bend)
        bob = 0.02 * np.cos(4.0 * np.pi * (t - first_lift["L"]) / period)  # the hips dip once a step: every joint accelerates
        travel = np.stack([np.zeros(frames), -speed * t / clip.fps, bob], axis=1)
        location[:, 0] = travel @ clip.rest[0, :3, :3]
    return clip.with_channels(rotation=rotation, location=location).validate()


def _steppers():
    """A: steps every 16 frames, left foot first, 200 frames. B: every 12 frames, right foot first, 150 frames."""
    a = _march(200, 32, {"L": 2, "R": 18})
    b = _march(150, 24, {"R": 2, "L": 14}, speed=0.3)
    return a, b


def _foot_falls(clip):
    sides = blend.foot_sides(clip.bone_names, np.flatnonzero(["Foot" in n or "Toe" in n for n in clip.bone_names]))
    return blend.footfalls(blend.side_contacts(kinematics.clip_joint_positions(clip), sides, clip.dt))


def _root(clip):
    pose, _ = root_motion.root_frames(clip, 0)
    return pose[:, :3, 3]


def test_the_steppers_step_as_built():
    a, b = _steppers()
    frames, sides = _foot_falls(a)
    assert len(frames) >= 10 and np.all(np.diff(frames) == 16) and sides[0] == 0 and np.all(np.diff(sides) != 0)
    frames, sides = _foot_falls(b)
    assert len(frames) >= 10 and np.all(np.diff(frames) == 12) and sides[0] == 1


@pytest.mark.parametrize("timing", blend.TIMINGS)
def test_weight_zero_gives_a_timed_as_a(timing):
    a, b = _steppers()
    result = blend.blend(a, b, 0.0, timing)
    # A's lead-in before its first footfall is the shorter one, so every timing starts on A's first frame.
    n = result.clip.num_frames
    assert result.numbers["covered_a"] == pytest.approx(result.numbers["duration"], abs=1e-9)
    assert np.allclose(result.clip.rotation[:, 1:], a.rotation[:n, 1:], atol=1e-9)
    assert np.allclose(_root(result.clip), _root(a)[:n], atol=1e-9)


def test_weight_one_gives_b_where_a_starts():
    a, b = _steppers()
    result = blend.blend(a, b, 1.0, "FRACTION").clip
    assert result.num_frames == b.num_frames
    assert np.allclose(result.rotation[:, 1:], b.rotation[:, 1:], atol=1e-9)
    root, root_b = _root(result), _root(b)
    assert np.allclose(root[0, :2], _root(a)[0, :2]) and np.allclose(root[:, 2], root_b[:, 2])
    assert np.allclose(np.diff(root, axis=0), np.diff(root_b, axis=0), atol=1e-9)  # B's own steps, from A's start


@pytest.mark.parametrize("weight", [0.25, 0.5, 0.8])
def test_fraction_lasts_the_lerp_of_the_durations(weight):
    a, b = _steppers()
    result = blend.blend(a, b, weight, "FRACTION")
    expected = (1.0 - weight) * a.duration + weight * b.duration
    assert expected - a.dt < result.numbers["duration"] <= expected + 1e-9
    assert a.duration - a.dt < result.numbers["covered_a"] <= a.duration and b.duration - b.dt < result.numbers["covered_b"] <= b.duration


def test_contacts_put_the_same_foot_down_at_the_same_moment():
    a, b = _steppers()
    contacts = blend.blend(a, b, 0.5, "CONTACTS")
    fraction = blend.blend(a, b, 0.5, "FRACTION")
    assert contacts.numbers["contact_mismatch"] < 0.1 * a.dt
    assert fraction.numbers["contact_mismatch"] > 2.0 * a.dt  # what CONTACTS is for
    # The blend's own feet: left and right alternate every (16 + 12) / 2 frames, as both inputs' steps lerped.
    frames, sides = _foot_falls(contacts.clip)
    assert len(frames) >= 8 and np.all(np.diff(sides) != 0)
    assert np.abs(np.diff(frames) - 14).max() <= 1


def test_loop_lasts_as_long_as_the_longer_clip():
    a, b = _steppers()
    clamped = blend.blend(a, b, 0.5, "CONTACTS", "CLAMP")
    looped = blend.blend(a, b, 0.5, "CONTACTS", "LOOP")
    assert clamped.numbers["covered_b"] < b.duration
    assert looped.numbers["covered_a"] >= a.duration - a.dt  # A, the longer in steps, plays to its end
    assert looped.numbers["covered_b"] > b.duration and any("looped" in note for note in looped.notes)
    assert looped.numbers["contact_mismatch"] < 0.1 * a.dt
    assert looped.numbers["worst_frame"] <= looped.numbers["inputs_worst_frame"]


def test_each_loop_repeat_is_joined_onto_the_last_cycles_only(monkeypatch):
    a = _march(900, 32, {"L": 2, "R": 18})
    b = _march(150, 24, {"R": 2, "L": 14}, speed=0.3)
    joined_onto = []
    transition = blend.transition_blend.transition

    def counted(clip_a, *arguments, **options):
        joined_onto.append(clip_a.num_frames)
        return transition(clip_a, *arguments, **options)

    monkeypatch.setattr(blend.transition_blend, "transition", counted)
    looped = blend.blend(a, b, 0.5, "CONTACTS", "LOOP")
    assert looped.numbers["covered_b"] > 4.0 * b.duration and len(joined_onto) > 20
    # The first repeat joins onto B whole, every later one onto the same few cycles, not onto all looped so far.
    assert max(joined_onto[1:]) == min(joined_onto[1:]) < 4 * 24 + b.num_frames
    assert looped.numbers["contact_mismatch"] < 0.1 * a.dt
    assert looped.numbers["worst_frame"] <= looped.numbers["inputs_worst_frame"]


def test_standing_and_stepping_cannot_be_matched_by_contacts():
    a, _ = _steppers()
    standing = _march(120, 32, {}, still=True)
    with pytest.raises(EditError, match="never lifts in clip idle and steps in clip walk.*FRACTION"):
        blend.blend(a, standing, 0.5, "CONTACTS", names=("walk", "idle"))
    assert blend.blend(a, standing, 0.5, "FRACTION").clip.num_frames > 0


def test_a_weight_curve_ends_on_each_clips_pose():
    a, b = _steppers()
    result = blend.blend(a, b, [[0.0, 0.0], [1.0, 1.0]], "FRACTION").clip
    assert np.allclose(result.rotation[0, 1:], a.rotation[0, 1:], atol=1e-9)
    assert np.allclose(result.rotation[-1, 1:], b.rotation[-1, 1:], atol=1e-9)
    middle = blend.blend(a, b, 0.5, "FRACTION").clip
    assert result.num_frames == middle.num_frames  # timed by the curve's mean weight
    assert not np.allclose(result.rotation[1:-1], middle.rotation[1:-1], atol=1e-3)


@pytest.mark.parametrize("weight", [1.5, -0.1, float("nan"), [[0.5, 0.2], [0.2, 0.3]], [[0.0, 2.0]], [[0.0, 0.1, 0.2]], [[-0.5, 0.1]], "half"])
def test_bad_weights_are_refused(weight):
    a, b = _steppers()
    with pytest.raises(EditError, match="weight"):
        blend.blend(a, b, weight)


def test_bad_options_are_refused():
    a, b = _steppers()
    with pytest.raises(EditError, match="timing"):
        blend.blend(a, b, timing="PHASE")
    with pytest.raises(EditError, match="shorter"):
        blend.blend(a, b, shorter="HOLD")
    with pytest.raises(EditError, match="fps"):
        blend.blend(a, b.with_channels(fps=60.0))


@pytest.mark.parametrize("shorter", blend.SHORTER)
@pytest.mark.parametrize("timing", blend.TIMINGS)
def test_every_blend_is_finite_with_unit_rotations_and_continuous(timing, shorter):
    a, b = _steppers()
    result = blend.blend(a, b, [[0.1, 0.2], [0.7, 0.9]], timing, shorter)
    clip = result.clip
    assert all(np.all(np.isfinite(channel)) for channel in (clip.location, clip.rotation, clip.scale))
    assert np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0)
    # A warp between cadences 4:3 apart changes playback rates every few frames: a little sharper than the inputs.
    assert result.numbers["worst_frame"] <= (1.3 if timing == "WARP" else 1.0) * result.numbers["inputs_worst_frame"]
    assert clip.frames[0] == a.frames[0] and np.all(np.diff(clip.frames) == 1)


def test_skeletons_without_named_feet_blend_by_fraction_and_say_why_not_otherwise():
    a, b = _steppers()
    anonymous = tuple(f"bone_{index:02d}" for index in range(a.num_bones))
    a, b = a.with_channels(bone_names=anonymous), b.with_channels(bone_names=anonymous)
    made = blend.blend(a, b, 0.5, "FRACTION")
    assert np.isfinite(made.clip.rotation).all() and "contact_mismatch" not in made.numbers
    with pytest.raises(EditError, match="left foot from the right"):
        blend.blend(a, b, 0.5, "CONTACTS")
    with pytest.raises(EditError, match="legs and feet are found by name"):
        blend.blend(a, b, 0.5, "WARP")
