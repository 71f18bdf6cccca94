"""Freezing joints (core, synthetic walker): constant where frozen, eased in and out without a jerk."""

import numpy as np
import pytest

from core import demo
from core.measure.edit import edit_verdict
from core.motion import kinematics, quat
from core.edit import freeze
from core.errors import ClipError, EditError


@pytest.fixture(scope="module")
def walk():
    return demo.walk_cycle(num_frames=121).clip


def _angles(a, b):
    return 2.0 * np.arccos(np.clip(np.abs(quat.dot(a, b)), 0.0, 1.0))


def _arm(clip):
    return [name for name in clip.bone_names if "arm" in name.lower()][:2]


def test_whole_clip_frozen_at_a_frame_is_constant_and_nothing_else_moves(walk):
    arms = _arm(walk)
    made = freeze.freeze(walk, arms, frame=walk.frames[10])
    index = [walk.bone_index(name) for name in arms]
    assert _angles(made.clip.rotation[:, index], walk.rotation[10, index]).max() < 1e-6
    others = np.setdiff1d(np.arange(walk.num_bones), index)
    assert np.array_equal(made.clip.rotation[:, others], walk.rotation[:, others])
    assert np.array_equal(made.clip.location, walk.location)
    assert made.numbers["frozen_frames"] == walk.num_frames and made.numbers["blend_frames"] == 0


def test_a_range_is_exact_inside_and_eases_in_and_out(walk):
    arm = _arm(walk)[:1]
    first, last = walk.frames[40], walk.frames[70]
    made = freeze.freeze(walk, arm, frames=(first, last), blend=0.3, rest=True)
    b = walk.bone_index(arm[0])
    q = made.clip.rotation[:, b]
    assert _angles(q[40:71], quat.identity()).max() < 1e-6
    blend = made.numbers["blend_frames"]
    assert blend == 9
    assert np.array_equal(q[:40 - blend], walk.rotation[:40 - blend, b]) and np.array_equal(q[71 + blend:], walk.rotation[71 + blend:, b])
    # Continuous: no step between frames bigger than the clip's own or the ease's share of the way to rest.
    steps = _angles(q[1:], q[:-1])
    assert steps.max() < _angles(walk.rotation[:, b], quat.identity()).max() / blend * 2.5
    assert made.numbers["worst_frame"] < 3.0 * max(made.numbers["source_worst_frame"], 1.0)


def test_the_ease_is_smooth():
    w = freeze.freeze_weights(40, 15, 24, 10)
    assert w[4] == 0.0 and w[15:25].min() == 1.0 and w[35] == 0.0
    curvature = np.abs(np.diff(w, 2))
    assert curvature[[4, 14, 23, 33]].max() < 0.015  # no corner where it leaves or arrives (a cubic ease has 0.028)


def test_location_is_held_too_when_asked(walk):
    made = freeze.freeze(walk, [walk.bone_names[0]], frame=walk.frames[5], location=True)
    assert np.array_equal(made.clip.location[:, 0], np.broadcast_to(walk.location[5, 0], made.clip.location[:, 0].shape))


def test_bad_requests(walk):
    with pytest.raises(ClipError, match="no bone named"):
        freeze.freeze(walk, ["Tail"])
    with pytest.raises(EditError, match="not both"):
        freeze.freeze(walk, _arm(walk), frame=walk.frames[0], rest=True)
    with pytest.raises(EditError, match="not a frame"):
        freeze.freeze(walk, _arm(walk), frame=walk.frames[-1] + 5)
    with pytest.raises(EditError, match="before it starts"):
        freeze.freeze(walk, _arm(walk), frames=(walk.frames[50], walk.frames[10]))
    with pytest.raises(EditError, match="at least one"):
        freeze.freeze(walk, [])


def test_a_hold_judges_only_the_seams_it_makes(walk):
    # Spine2 twists 0.3 rad for one frame and Chest twists back: the take shows nothing of it. Holding Spine2, as asked,
    # leaves Chest's own twist back, a pop of the shoulders the take's channels hold and the hold did not make.
    spine, chest = walk.bone_index("Spine2"), walk.bone_index("Chest")
    rest_turn = kinematics.rest_relative(walk.parents, walk.rest)[chest, :3, :3]
    twist = quat.from_axis_angle([0.0, 1.0, 0.0], 0.3)
    back = quat.from_matrix(rest_turn.T @ quat.to_matrix(quat.inverse(twist)) @ rest_turn)
    rotation = walk.rotation.copy()
    rotation[60, spine] = quat.multiply(rotation[60, spine], twist)
    rotation[60, chest] = quat.multiply(back, rotation[60, chest])
    jittered = walk.with_channels(rotation=rotation)
    assert np.allclose(kinematics.clip_joint_positions(jittered), kinematics.clip_joint_positions(walk), atol=1e-9)
    whole = freeze.freeze(jittered, ["Spine2"], frame=jittered.frames[0])
    assert whole.numbers["worst_frame"] == 0.0  # no seam; on the old code the twist back's pop, VISIBLE
    assert edit_verdict(whole.numbers).word == "GOOD"
    held = freeze.freeze(jittered, ["UpperLeg.L"], frames=(jittered.frames[30], jittered.frames[90]), blend=0.0, rest=True)
    assert edit_verdict(held.numbers).word == "VISIBLE"  # a swinging thigh snapped to its rest: the seams are still judged
