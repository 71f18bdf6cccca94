"""Root motion on a root bone, numpy only: the travel moves onto a floor bone, the world pose stays."""

import numpy as np
import pytest

from core import demo
from core.motion import kinematics, quat, root as root_motion, sampling
from core.engine.root_bone import extract_root_motion
from core.errors import ClipError
from core.loop.make import make_loop


@pytest.fixture(scope="module")
def walk():
    return demo.walk_cycle()


def _turning(clip, degrees_per_second):
    """The demo walk bent onto a curve: the hips' heading and path turn steadily about Z."""
    hips_pose, _ = root_motion.root_frames(clip, 0)
    angle = np.radians(degrees_per_second) * np.arange(clip.num_frames) * clip.dt
    turn = quat.from_rotation_vector(np.outer(angle, [0.0, 0.0, 1.0]))
    turned = np.einsum("fij,fj->fi", quat.to_matrix(turn[1:]), np.diff(hips_pose[:, :3, 3], axis=0))
    path = hips_pose[0, :3, 3] + np.concatenate([np.zeros((1, 3)), np.cumsum(turned, axis=0)])
    return root_motion.with_root_global(clip, 0, path, quat.multiply(turn, quat.from_matrix(hips_pose[:, :3, :3])))


def _world(clip):
    return kinematics.clip_forward_kinematics(clip)


def _root_heading(result):
    """Heading (radians) of the root's X axis, and how far its Z axis tilts off vertical."""
    pose = _world(result.clip)[:, result.root]
    return np.unwrap(np.arctan2(pose[:, 1, 0], pose[:, 0, 0])), float(np.abs(pose[:, :3, 2] - (0.0, 0.0, 1.0)).max())


def _assert_world_pose_kept(before, result, added):
    old, new = _world(before), _world(result.clip)[:, 1:] if added else _world(result.clip)
    body = np.arange(before.num_bones) != (-1 if added else result.root)
    assert np.abs(new[:, body, :3, 3] - old[:, body, :3, 3]).max() < 1e-5  # metres
    assert np.abs(new[:, body, :3, :3] - old[:, body, :3, :3]).max() < 1e-5  # rotation matrix entries, about radians
    assert result.numbers["world_error"] < 1e-9


def test_low_pass_keeps_the_ends_and_steady_motion_and_has_no_lag():
    t = np.arange(200, dtype=float)
    steady = np.stack([0.04 * t, -0.01 * t + 3.0], axis=1)
    assert np.allclose(sampling.low_pass(steady, 9), steady, atol=1e-12)
    sway = 0.05 * np.sin(2 * np.pi * t / 32.0)
    path = 0.04 * t + sway
    smooth = sampling.low_pass(path, 9)
    assert (smooth[0], smooth[-1]) == pytest.approx((path[0], path[-1]), abs=1e-12)
    inner = slice(20, -20)
    # A centred window removes part of the sway and shifts nothing: what is left is in phase with it.
    left = smooth[inner] - 0.04 * t[inner]
    gain = np.dot(left, sway[inner]) / np.dot(sway[inner], sway[inner])
    assert 0.5 < gain < 0.95
    assert np.abs(left - gain * sway[inner]).max() < 1e-9
    assert np.array_equal(sampling.low_pass(path, 1), path)


def test_a_pelvis_topped_skeleton_gets_a_root_bone_that_carries_the_travel(walk):
    clip = walk.clip
    result = extract_root_motion(clip)
    out = result.clip.validate()
    assert result.added and result.root == 0 and result.pelvis == 1
    assert out.bone_names == ("root",) + clip.bone_names
    assert np.array_equal(out.parents, np.concatenate([[-1], clip.parents + 1]))
    assert np.array_equal(out.rest[0], np.eye(4)) and np.array_equal(out.rest[1:], clip.rest)
    assert out.rotation_modes[0] == "QUATERNION" and out.animated_location[0].all() and out.animated_rotation[0]
    assert not out.animated_scale[0].any()
    _assert_world_pose_kept(clip, result, added=True)
    root_pose = _world(out)[:, 0]
    assert np.abs(root_pose[:, 2, 3]).max() < 1e-12  # on the floor
    hips = _world(clip)[:, 0, :3, 3]
    share = np.linalg.norm(root_pose[-1, :2, 3] - root_pose[0, :2, 3]) / np.linalg.norm(hips[-1, :2] - hips[0, :2])
    assert share >= 0.9 and result.numbers["root_share"] == pytest.approx(share)
    assert result.numbers["root_travel"] > 0.9 * result.numbers["pelvis_travel"] > 4.0  # the walk covers 4.6 m
    assert result.numbers["pelvis_offset"] < 0.05  # the hips sway 3 cm: they stay over the root
    # The hips keep only their sway and bounce: their local location no longer travels.
    assert np.ptp(out.location[:, 1], axis=0).max() < 0.1 < np.ptp(clip.location[:, 0], axis=0).max()
    assert np.allclose(np.linalg.norm(out.rotation, axis=-1), 1.0, atol=1e-12)
    assert np.all(np.isfinite(out.location)) and np.all(np.isfinite(out.rotation))


def test_a_floor_top_bone_is_used_and_a_high_one_is_not(walk):
    with_root = extract_root_motion(walk.clip, root_name="joint_Root").clip
    again = extract_root_motion(with_root, root_name="joint_Root")
    assert not again.added and again.root == 0 and again.pelvis == 1 and again.clip.bone_names == with_root.bone_names
    _assert_world_pose_kept(with_root, again, added=False)
    # A top bone that rides at hip height is not a floor root: a new one goes above it.
    lifted = with_root.with_channels(location=with_root.location.copy())
    lifted.location[:, 0] = (0.0, 0.0, 1.0)
    lifted.location[:, 1] -= (0.0, 0.0, 1.0)
    result = extract_root_motion(lifted)
    assert result.added and result.pelvis == 2 and result.clip.bone_names[:2] == ("root", "joint_Root")
    _assert_world_pose_kept(lifted, result, added=True)


def test_heading_turns_with_the_pelvis_and_position_mode_does_not(walk):
    turning = _turning(walk.clip, 30.0)
    hips_rotation = quat.from_matrix(_world(turning)[:, 0, :3, :3])
    hips_heading = root_motion.heading(hips_rotation, root_motion.heading_axis(hips_rotation))
    heading = extract_root_motion(turning, mode="HEADING")
    position = extract_root_motion(turning, mode="POSITION")
    for result in (heading, position):
        _assert_world_pose_kept(turning, result, added=True)
    turned, tilt = _root_heading(heading)
    assert tilt < 1e-12  # a turn about Z only
    assert (turned[0], turned[-1]) == pytest.approx((hips_heading[0], hips_heading[-1]), abs=1e-9)  # the ends are kept
    assert turned[-1] - turned[0] == pytest.approx(np.radians(30.0) * walk.clip.duration, abs=np.radians(8.0))
    assert np.abs(turned - hips_heading).max() < np.radians(4.0)  # the hips' yaw sways 4 degrees about the smoothed heading
    kept, tilt = _root_heading(position)
    assert tilt < 1e-12 and np.ptp(kept) < 1e-12 and kept[0] == pytest.approx(turned[0])


def test_root_height_lets_the_root_follow_the_pelvis_up_a_slope(walk):
    clip = walk.clip.with_channels(location=walk.clip.location.copy())
    climb = 0.3 * np.arange(clip.num_frames) / (clip.num_frames - 1)
    clip.location[:, 0] += climb[:, None] * (clip.rest[0, 2, :3])  # armature +Z in the hips' rest frame
    flat, keep = extract_root_motion(clip), extract_root_motion(clip, height="ROOT")
    for result in (flat, keep):
        _assert_world_pose_kept(clip, result, added=True)
    assert np.abs(_world(flat.clip)[:, 0, 2, 3]).max() < 1e-12
    root_height = _world(keep.clip)[:, 0, 2, 3]
    level = _world(extract_root_motion(walk.clip, height="ROOT").clip)[:, 0, 2, 3]
    assert root_height[0] == pytest.approx(0.0, abs=1e-12)
    # The smoothing is linear and keeps a steady climb: the slope rides on the root, the bob stays on the hips.
    assert np.abs(root_height - level - climb).max() < 1e-9 and np.ptp(level) < 0.06


def test_in_place_removes_exactly_the_travel(walk):
    turning = _turning(walk.clip, 30.0)
    travelling = extract_root_motion(turning)
    result = extract_root_motion(turning, in_place=True)
    out = result.clip.validate()
    root_pose = _world(out)[:, 0]
    assert np.abs(root_pose[:, :3, 3]).max() < 1e-12
    assert np.abs(root_pose - root_pose[0]).max() < 1e-12
    assert result.numbers["root_travel"] == 0.0 and result.numbers["root_share"] == 0.0
    # Every body bone moved by exactly what takes the travelling root's frame to the still one's.
    moved = root_pose[0] @ np.linalg.inv(_world(travelling.clip)[:, 0])
    expected = moved[:, None] @ _world(turning)
    assert np.abs(_world(out)[:, 1:] - expected).max() < 1e-9
    hips = _world(out)[:, 1, :3, 3]
    assert np.linalg.norm(hips[-1, :2] - hips[0, :2]) < 0.05 < 4.0 < result.numbers["pelvis_travel"]
    spin, _ = _root_heading(travelling)
    hips_rotation = quat.from_matrix(_world(out)[:, 1, :3, :3])
    still = root_motion.heading(hips_rotation, root_motion.heading_axis(hips_rotation))
    assert spin[-1] - spin[0] > 0.9 and abs(still[-1] - still[0]) < np.radians(4.0)
    assert result.numbers["pelvis_offset"] < 0.05 and result.numbers["world_error"] < 1e-9


def test_a_loop_closes_for_the_body_while_the_root_keeps_the_travel(walk):
    looped = make_loop(walk.clip, 10, 10 + 64).clip  # two gait periods of 32.1 frames
    result = extract_root_motion(looped)
    out = result.clip
    _assert_world_pose_kept(looped, result, added=True)
    body = slice(1, None)
    assert np.abs(out.location[-1, body] - out.location[0, body]).max() < 1e-6
    assert np.abs(quat.dot(out.rotation[-1, body], out.rotation[0, body])).min() > 1.0 - 1e-9
    travel = out.location[-1, 0] - out.location[0, 0]
    assert np.linalg.norm(travel[:2]) > 2.0  # about 2.8 m over two cycles, kept in the root's last sample


def _seam_changes(result):
    """How much the root's per-frame step (clip units) and turn (radians) change across the seam, and at most between
    two frames inside the clip: a root that moves on smoothly through the seam changes there no more than inside."""
    pose = _world(result.clip)[:, result.root]
    heading, _ = _root_heading(result)
    steps, turns = np.diff(pose[:, :2, 3], axis=0), np.diff(heading)
    c, s = np.cos(heading[0] - heading[-1]), np.sin(heading[0] - heading[-1])
    into = np.array([[c, -s], [s, c]]) @ steps[-1]  # turned back by the cycle's turn, comparable with the first step
    seam = np.linalg.norm(into - steps[0]), abs(turns[-1] - turns[0])
    inside = np.linalg.norm(np.diff(steps, axis=0), axis=-1).max(), np.abs(np.diff(turns)).max()
    return seam, inside


@pytest.mark.parametrize("degrees_per_second", [0.0, 25.0])
def test_a_cyclic_extraction_keeps_the_root_velocity_across_the_seam(walk, degrees_per_second):
    looped = make_loop(_turning(walk.clip, degrees_per_second), 10, 10 + 64).clip
    plain, cyclic = extract_root_motion(looped), extract_root_motion(looped, cyclic=True)
    _assert_world_pose_kept(looped, cyclic, added=True)
    (step, turn), (step_inside, turn_inside) = _seam_changes(cyclic)
    assert step < 0.5 * step_inside and turn <= turn_inside  # 0.26x and 0.97x on the demo walk
    # Smoothing that stops at the ends follows the hips' sway there: the root's step and turn jump at the seam.
    (plain_step, plain_turn), _ = _seam_changes(plain)
    assert plain_step > step_inside and plain_turn > 2 * turn_inside
    body = slice(1, None)
    assert np.abs(cyclic.clip.location[-1, body] - cyclic.clip.location[0, body]).max() < 1e-6
    assert np.abs(quat.dot(cyclic.clip.rotation[-1, body], cyclic.clip.rotation[0, body])).min() > 1.0 - 1e-9


def test_clips_that_cannot_take_a_root_bone_are_refused(walk):
    with pytest.raises(ClipError, match="'Spine'"):
        extract_root_motion(walk.clip, root_name="Spine")
    with pytest.raises(ClipError, match="name"):
        extract_root_motion(walk.clip, root_name="")
    with pytest.raises(ClipError, match="mode 'SIDEWAYS'"):
        extract_root_motion(walk.clip, mode="SIDEWAYS")
    with pytest.raises(ClipError, match="height 'UP'"):
        extract_root_motion(walk.clip, height="UP")
    with pytest.raises(ClipError, match="smoothing"):
        extract_root_motion(walk.clip, smoothing=float("nan"))
