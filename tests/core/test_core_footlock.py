"""Foot lock: two-bone IK and the corrections that plant feet near the seam."""

import numpy as np
import pytest

from core.motion import contacts, footlock, kinematics, quat
from core import demo
from core.measure import seam as metrics
from core.loop import make, stitch
from core.loop.make import make_loop


def _leg(rng, count, bend=0.12):
    hip = rng.normal(size=(count, 3))
    knee = hip + np.array([0.0, -bend, -0.43]) + rng.normal(0, 0.02, (count, 3))  # knee bent forward
    ankle = knee + np.array([0.0, bend, -0.40]) + rng.normal(0, 0.02, (count, 3))
    return hip, knee, ankle


def _solved_ankle(hip, knee, ankle, thigh, shin):
    new_knee = hip + quat.rotate(thigh, knee - hip)
    return new_knee + quat.rotate(quat.multiply(thigh, shin), ankle - knee), new_knee


def test_two_bone_ik_reaches_targets_and_keeps_bone_lengths():
    rng = np.random.default_rng(2)
    hip, knee, ankle = _leg(rng, 50, bend=0.2)
    target = ankle + rng.normal(0, 0.02, (50, 3))  # within the leg's easy reach
    thigh, shin = footlock._solve_two_bone(hip, knee, ankle, target)
    reached, new_knee = _solved_ankle(hip, knee, ankle, thigh, shin)
    assert np.abs(reached - target).max() < 1e-9
    assert np.allclose(np.linalg.norm(new_knee - hip, axis=-1), np.linalg.norm(knee - hip, axis=-1))
    assert np.allclose(np.linalg.norm(reached - new_knee, axis=-1), np.linalg.norm(ankle - knee, axis=-1))


def test_two_bone_ik_changes_nothing_without_a_correction_and_never_snaps():
    rng = np.random.default_rng(3)
    hip, knee, ankle = _leg(rng, 20)
    thigh, shin = footlock._solve_two_bone(hip, knee, ankle, ankle)
    assert np.allclose(np.abs(thigh[:, 0]), 1.0) and np.allclose(np.abs(shin[:, 0]), 1.0)
    # Pulling the ankle ever further: the knee straightens smoothly, it does not jump.
    direction = (ankle[0] - hip[0]) / np.linalg.norm(ankle[0] - hip[0])
    pulls = np.linspace(0.0, 0.2, 201)[:, None] * direction  # 1 mm steps, far past full extension
    thigh, shin = footlock._solve_two_bone(*(np.repeat(x[:1], 201, axis=0) for x in (hip, knee, ankle)), ankle[0] + pulls)
    reached, new_knee = _solved_ankle(hip[:1], knee[:1], ankle[:1], thigh, shin)
    assert np.linalg.norm(np.diff(new_knee, axis=0), axis=-1).max() < 0.003
    leg = np.linalg.norm(knee[0] - hip[0]) + np.linalg.norm(ankle[0] - knee[0])
    assert np.linalg.norm(reached - hip[0], axis=-1).max() < leg


def test_a_bent_knee_keeps_its_side_whatever_frame_its_thigh_is_held_in():
    """A transition's frames come from two takes whose thighs may be held in frames that do not agree (here the second
    half's turned half round the thigh): each clearly bent knee keeps bending its own way, with a target a little
    nearer the hip it bends further the same way (the knee flipped backwards on half the frames: a visible 2.59 on a
    PyMO walk into a Xia walk)."""
    rng = np.random.default_rng(4)
    hip, knee, ankle = _leg(rng, 40, bend=0.12)
    turn = np.repeat(np.eye(3)[None], 40, axis=0)
    along_thigh = np.mean(knee - hip, axis=0) / np.linalg.norm(np.mean(knee - hip, axis=0))
    turn[20:] = quat.to_matrix(quat.from_axis_angle(along_thigh, np.pi))  # half round the thigh
    target = hip + 0.97 * (ankle - hip)
    thigh, shin = footlock._solve_two_bone(hip, knee, ankle, target, turn)
    _, new_knee = _solved_ankle(hip, knee, ankle, thigh, shin)
    forward = np.sum((new_knee - knee) * np.array([0.0, -1.0, 0.0]), axis=-1)  # the knee moves further forward (-y)
    assert np.all(forward > 0.0), forward


def test_bridging_blends_between_known_values():
    values = np.zeros((10, 1))
    known = np.zeros(10, dtype=bool)
    values[2], values[7] = 1.0, 3.0
    known[[2, 7]] = True
    filled = footlock.bridge_gaps(values, known)[:, 0]
    assert filled[0] == 1.0 and filled[9] == 3.0 and filled[2] == 1.0 and filled[7] == 3.0
    assert np.all(np.diff(filled[2:8]) >= 0)


def test_legs_are_found_by_name():
    clip = demo.walk_cycle().clip
    chains = {tuple(clip.bone_names[b] for b in leg) for leg in footlock.leg_chains(clip)}
    assert chains == {("UpperLeg.L", "LowerLeg.L", "Foot.L"), ("UpperLeg.R", "LowerLeg.R", "Foot.R")}


@pytest.mark.parametrize("method", ["CUBIC", "SOFTFADE", "CROSSFADE"])
def test_lock_keeps_the_loop_closed_and_planted_feet_from_sliding(method):
    walk = demo.walk_cycle(num_frames=106)
    params = stitch.StitchParameters(method=method)
    free = make_loop(walk.clip, 10, 74, params, lock_feet=False)
    locked = make_loop(walk.clip, 10, 74, params)
    assert locked.after.max_position_step < 1e-6 and locked.after.visibility <= 1.0
    assert np.allclose(np.linalg.norm(locked.clip.rotation, axis=-1), 1.0)
    root = locked.root
    assert contacts.seam_skating(locked.clip, root) <= contacts.seam_skating(free.clip, root) + 1e-6
    others = [b for b in range(walk.clip.num_bones) if b not in {bone for leg in footlock.leg_chains(walk.clip) for bone in leg}]
    # Only legs change. To rounding: BLAS and SIMD sums may differ in the last bit from run to run
    # (two CI runs out of many); a bone the lock touched would differ by far more.
    assert np.abs(locked.clip.rotation[:, others] - free.clip.rotation[:, others]).max() < 1e-12


def test_nothing_to_lock_leaves_the_clip_alone():
    walk = demo.walk_cycle(num_frames=106)
    result = make_loop(walk.clip, 10, 74, stitch.StitchParameters(method="NONE"))
    segment = walk.clip.slice_frames(9, 74)
    assert np.array_equal(result.clip.rotation, segment.rotation) and np.array_equal(result.clip.location, segment.location)
    assert metrics.seam_metrics(result.clip, result.root).max_position_step > 1e-3


def _planted_walk(fps, seconds=2.6, period=1.07):
    """The demo walk with its legs swung afresh (no jitter) and its hips carried so the lower ankle stays where it landed:
    feet planted as a capture's are, each knee passing through straight (a degree past it) at mid-stance."""
    clip = demo.walk_cycle(num_frames=int(seconds * fps) + 1, fps=fps).clip
    phase = 2.0 * np.pi * np.arange(clip.num_frames) / fps / period
    rotation = clip.rotation.copy()
    rotation[:, 0] = quat.identity((clip.num_frames,))
    for side, shift in ((".L", 0.0), (".R", np.pi)):
        thigh = -6.0 + 24.0 * np.sin(phase + shift)  # degrees about X, positive backward: the stance swings it back
        knee = 24.0 - 27.5 * np.cos(phase + shift)  # on the rest's 2.5 degree bend: 1 degree past straight at mid-stance
        for name, degrees in (("UpperLeg", thigh), ("LowerLeg", knee), ("Foot", -thigh - knee)):
            bone = clip.bone_names.index(name + side)
            rotation[:, bone] = quat.from_axis_angle(clip.rest[bone, :3, :3].T @ np.array([1.0, 0.0, 0.0]), np.radians(degrees))
    still = clip.with_channels(rotation=rotation, location=np.zeros_like(clip.location))
    ankles = kinematics.clip_joint_positions(still)[:, [clip.bone_names.index("Foot.L"), clip.bone_names.index("Foot.R")]]
    stance = np.argmin(ankles[:, :, 2], axis=1)  # the lower foot carries the body
    hips = np.zeros((clip.num_frames, 3))
    hips[1:, :2] = -np.cumsum(np.diff(ankles[:, :, :2], axis=0)[np.arange(clip.num_frames - 1), stance[1:]], axis=0)
    hips[:, 2] = 0.1 - ankles[:, :, 2].min(axis=1)
    location = np.zeros_like(clip.location)
    location[:, 0] = hips @ clip.rest[0, :3, :3]
    return still.with_channels(location=location)


@pytest.mark.parametrize("fps", [30.0, 240.0])
def test_a_knee_passing_through_straight_does_not_flip_where_the_lock_plants_the_foot(fps):
    """A walk whose knees straighten a degree past straight at mid-stance: the lock keeps each knee bending the way it
    bends over the cycle, so the loop pops no more at 240 fps than at 30 (the knee flipped: 1.56 at 30 fps, 12.9 at 240)."""
    walk = _planted_walk(fps)
    first = walk.frames[0]
    locked = make_loop(walk, first + round(0.2 * fps), first + round(2.233 * fps), stitch.StitchParameters(method="CUBIC"))
    assert locked.feet_locked
    assert make.largest_step_ratio(locked) < 1.5
