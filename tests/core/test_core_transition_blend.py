"""Transitions, numpy only: alignment, inertialized and crossfaded blends, root from velocities."""

import numpy as np
import pytest

from core import demo
from core.motion import kinematics, quat, root as root_motion
from core.errors import TransitionError
from core.transition import align, blend
from core.measure import transition as measure

TURNS = (0.0, 90.0, 179.0, 181.0, 270.0)


def _walks():
    """Two forward walks (along -Y) of different speeds and gait periods, 120 frames at 30 fps."""
    slow = demo.walk_cycle(num_frames=120, speed=1.2, period_seconds=1.07).clip
    fast = demo.walk_cycle(num_frames=120, speed=1.8, period_seconds=0.8, seed=3).clip
    return slow, fast


def _turned(clip, degrees, shift=(3.0, -2.0)):
    """``clip`` turned by ``degrees`` about Z and moved on the floor by ``shift`` metres."""
    return align.rigidly_moved(clip, 0, align.floor_motion(np.radians(degrees), np.zeros(2), np.asarray(shift)))


def _root_track(clip, axis=None):
    """The root's (Hips) armature-space positions ``(F, 3)`` and headings ``(F,)``."""
    pose, _ = root_motion.root_frames(clip, 0)
    return pose[:, :3, 3], root_motion.heading(quat.from_matrix(pose[:, :3, :3]), axis)


def _same_rotations(a, b):
    """Largest component difference between quaternion arrays, each pair compared with matching signs."""
    sign = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    return float(np.abs(a - sign * b).max())


@pytest.mark.parametrize("degrees", TURNS)
def test_alignment_puts_b_on_a_without_spinning(degrees):
    a, b = _walks()
    b = _turned(b, degrees)
    aligned = align.align(b, 20, a, 60)
    position_a, heading_a = _root_track(a, 0)
    position_b, heading_b = _root_track(aligned, 0)
    assert np.allclose(position_b[20, :2], position_a[60, :2], atol=1e-9)
    assert abs(align.shortest_turn(heading_b[20] - heading_a[60])) < 1e-9
    assert np.allclose(position_b[:, 2], _root_track(b)[0][:, 2])  # height untouched
    # The same rigid motion at every frame: B turns exactly as it did, never spins.
    _, heading_original = _root_track(b, 0)
    assert np.allclose(np.diff(heading_b), np.diff(heading_original), atol=1e-9)
    assert np.array_equal(aligned.rotation[:, 1:], b.rotation[:, 1:])


def test_alignment_turns_the_short_way():
    assert align.shortest_turn(np.radians(181.0)) == pytest.approx(np.radians(-179.0))
    assert align.shortest_turn(np.radians(270.0)) == pytest.approx(np.radians(-90.0))
    assert align.shortest_turn(np.radians(-190.0)) == pytest.approx(np.radians(170.0))


@pytest.mark.parametrize("degrees", TURNS)
@pytest.mark.parametrize("method", blend.METHODS)
def test_transitions_to_a_turned_clip_never_spin(degrees, method):
    a, b = _walks()
    result = blend.transition(a, 60, _turned(b, degrees), 20, 0.4, method=method)
    _, heading = _root_track(result.clip, 0)
    own = max(np.abs(np.diff(_root_track(clip, 0)[1])).max() for clip in (a, b))
    assert np.abs(np.diff(heading)).max() <= 1.5 * own  # a spin the long way turns ~6 degrees a frame here


def test_inertialize_is_a_before_and_aligned_b_after():
    a, b = _walks()
    result = blend.transition(a, 60, _turned(b, 120.0), 20, 0.4)
    first, last = result.window
    assert first > 0 and last < result.clip.num_frames - 1
    clip = result.clip
    assert np.array_equal(clip.location[:first], a.location[:first]) and _same_rotations(clip.rotation[:first], a.rotation[:first]) == 0.0
    # After the window, B as aligned where the blend ends: every channel, and the root in the world.
    placed = align.align(b, result.end_b, clip, result.blend_end)
    offset = result.end_b - result.blend_end
    after = np.arange(last + 1, clip.num_frames)
    assert _same_rotations(clip.rotation[after], placed.rotation[after + offset]) < 1e-9
    assert np.allclose(kinematics.clip_joint_positions(clip)[after], kinematics.clip_joint_positions(placed)[after + offset], atol=1e-9)
    assert clip.num_frames == 61 + b.num_frames - 20 - 1


def _velocity_jump(positions, frame):
    """|velocity out of ``frame`` - velocity into it| per joint ``(B,)``, second-order one-sided estimates, per frame."""
    p = positions
    behind = 1.5 * p[frame] - 2.0 * p[frame - 1] + 0.5 * p[frame - 2]
    ahead = -1.5 * p[frame] + 2.0 * p[frame + 1] - 0.5 * p[frame + 2]
    return np.linalg.norm(ahead - behind, axis=-1)


@pytest.mark.parametrize("method", blend.METHODS)
def test_blend_edges_are_position_and_velocity_continuous(method):
    a, b = _walks()
    result = blend.transition(a, 60, b, 20, 0.4, method=method, lock_feet=False)
    positions = kinematics.clip_joint_positions(result.clip)
    # The raw cut: A to frame 60, then B from frame 21, aligned, with nothing blended.
    cut = blend.joined([a.slice_frames(0, 61), align.align(b, 20, a, 60).slice_frames(21, b.num_frames)])
    cut_jump = _velocity_jump(kinematics.clip_joint_positions(cut), 60)
    own = max(np.percentile([_velocity_jump(kinematics.clip_joint_positions(c), f) for f in range(3, 117)], 95, axis=0).max() for c in (a, b))
    for edge in (result.frame_a, result.blend_end):
        jump = _velocity_jump(positions, edge)
        assert jump.max() <= own, (edge, jump.max(), own)
        assert jump.max() < 0.25 * cut_jump.max()
        step = np.linalg.norm(positions[edge + 1] - positions[edge], axis=-1).max()
        assert step < 0.1  # metres per frame: no jump in position either


def test_inertialize_offset_is_exact_at_the_switch_and_gone_at_the_end():
    rng = np.random.default_rng(4)
    before = rng.normal(size=(3, 5, 3))
    offsets = blend.decaying_offsets(before, 13)
    assert np.array_equal(offsets[0], before[-1]) and np.abs(offsets[-1]).max() < 1e-15
    # The discrete seam across the switch is as smooth as a continuing signal.
    from core.motion.cycles import seam_mismatch
    assert np.abs(seam_mismatch(np.concatenate([offsets[:3], before]))).max() < 1e-12


@pytest.mark.parametrize("curve", blend.CURVES)
def test_crossfade_weights_run_from_0_to_1(curve):
    w = blend.blend_weights(13, curve)
    assert w[0] == 0.0 and w[-1] == 1.0 and np.all(np.diff(w) > 0.0)


@pytest.mark.parametrize("curve", blend.CURVES)
def test_crossfade_starts_on_a_and_ends_on_b(curve):
    a, b = _walks()
    result = blend.transition(a, 60, b, 20, 0.4, method="CROSSFADE", curve=curve, lock_feet=False)
    clip = result.clip
    assert result.window == (61, 71)
    assert _same_rotations(clip.rotation[:61], a.rotation[:61]) == 0.0
    placed = align.align(b, result.end_b, clip, result.blend_end)
    assert (result.blend_end, result.end_b) == (72, 32)
    assert _same_rotations(clip.rotation[72:], placed.rotation[32:]) < 1e-9
    assert np.allclose(clip.location[72:], placed.location[32:], atol=1e-9)
    # Halfway, the pose lies between A's and B's.
    middle = quat.multiply(clip.rotation[66], quat.inverse(a.rotation[66]))
    assert 0.0 < _same_rotations(middle, quat.identity(middle.shape[:-1]))


def test_time_warped_pairs_are_blended_as_given():
    a, b = _walks()
    plain = blend.transition(a, 60, b, 20, 0.4, method="CROSSFADE", lock_feet=False)
    one_to_one = np.stack([60 + np.arange(13), 20 + np.arange(13)], axis=1)
    same = blend.transition(a, 60, b, 20, 0.4, method="CROSSFADE", pairs=one_to_one, lock_feet=False)
    assert np.array_equal(same.clip.rotation, plain.clip.rotation)
    # A held for a frame while B plays on: a different blend that still ends on B.
    warped = one_to_one.copy()
    warped[6:, 0] -= 1
    held = blend.transition(a, 60, b, 20, 0.4, method="CROSSFADE", pairs=warped, lock_feet=False)
    assert not np.allclose(held.clip.rotation[62:71], plain.clip.rotation[62:71])
    assert held.end_b == plain.end_b


@pytest.mark.parametrize("method", blend.METHODS)
def test_root_never_walks_backwards_between_walks_of_different_speeds(method):
    a, b = _walks()
    for first, second in ((a, b), (b, a)):
        result = blend.transition(first, 60, _turned(second, 37.0, (5.0, 1.0)), 20, 0.4, method=method)
        position, heading = _root_track(result.clip, 0)
        step = np.diff(position[:, :2], axis=0)
        # Forward is where the walk has been heading lately (the hips sway a little).
        direction = np.stack([np.cos(heading[:-1]), np.sin(heading[:-1])], axis=1)
        forward = np.einsum("ij,ij->i", step, direction @ np.array([[0.0, -1.0], [1.0, 0.0]]))
        along = np.abs(forward) > 0.5 * np.linalg.norm(step, axis=1)  # which of the root's axes walks forward
        assert along.all() and (np.sign(forward) == np.sign(forward[0])).all()
        assert np.linalg.norm(step, axis=1).min() * first.fps > 0.8  # metres per second


def test_a_naive_crossfade_of_unaligned_clips_walks_backwards():
    a, b = _walks()
    naive = naive_crossfade(a, 60, _turned(b, 37.0, (5.0, 1.0)), 20, 0.4)
    position, _ = _root_track(naive.clip)
    speed = np.linalg.norm(np.diff(position[:, :2], axis=0), axis=1) * a.fps
    assert speed[61:72].max() > 5.0  # the root slides metres in 0.4 s


def naive_crossfade(clip_a, frame_a, clip_b, frame_b, length):
    """A linear blend of the unaligned clips' local channels over the same frames, as Blender's NLA gives.

    Root positions are lerped in world space; rotations nlerped. Returns a
    :class:`blend.TransitionResult` so it is measured like the real one.
    """
    span = int(round(length * clip_a.fps))
    b = align.on_skeleton(clip_b, clip_a)
    weight = np.linspace(0.0, 1.0, span + 1)
    index_a, index_b = frame_a + np.arange(span + 1), frame_b + np.arange(span + 1)
    w = weight[:, None, None]
    mixed = clip_a.with_channels(frames=np.arange(span + 1.0), location=(1.0 - w) * clip_a.location[index_a] + w * b.location[index_b],
                                 rotation=quat.nlerp(clip_a.rotation[index_a], b.rotation[index_b], weight[:, None]),
                                 scale=(1.0 - w) * clip_a.scale[index_a] + w * b.scale[index_b])
    clip = blend.joined([clip_a.slice_frames(0, frame_a + 1), mixed.slice_frames(1, span), b.slice_frames(frame_b + span, b.num_frames)])
    return blend.TransitionResult(clip, (frame_a + 1, frame_a + span - 1), frame_a, frame_b, frame_a + span, frame_b + span,
                                  align.travel_root(clip_a, b), "NAIVE")


def test_metrics_see_the_naive_crossfade_and_not_the_blend():
    a, b = _walks()
    turned = _turned(b, 90.0)
    ours = measure.transition_metrics(blend.transition(a, 60, turned, 20, 0.4), a, turned)
    naive = measure.transition_metrics(naive_crossfade(a, 60, turned, 20, 0.4), a, turned)
    assert ours.visibility < 1.5 and ours.root_speed_jump <= 1.5 * ours.clips_root_speed_jump, ours.summary()
    assert naive.visibility > 3.0 * ours.visibility and naive.root_speed_jump > 3.0 * naive.clips_root_speed_jump, naive.summary()


@pytest.mark.parametrize("options, message", [
    (dict(method="SNAP"), "unknown transition method"),
    (dict(curve="cosine", method="CROSSFADE"), "unknown blend curve"),
    (dict(length=0.05), "under three frames"),
    (dict(length=float("nan")), "under three frames"),
    (dict(frame_b=110), "ends"),
    (dict(frame_b=1), "three frames of clip B"),
    (dict(frame_a=500), "not a frame index of clip A"),
    (dict(method="CROSSFADE", pairs=np.zeros((4, 2))), "pairs must be 13"),
    (dict(pairs=np.zeros((13, 2))), "pairs are for CROSSFADE"),
])
def test_bad_transitions_are_one_clear_error(options, message):
    a, b = _walks()
    arguments = dict(clip_a=a, frame_a=60, clip_b=b, frame_b=20, length=0.4) | options
    with pytest.raises(TransitionError, match=message):
        blend.transition(**arguments)


def test_clips_must_share_bones_and_frame_rate():
    a, b = _walks()
    with pytest.raises(TransitionError, match="no bone named 'Hips'"):
        align.on_skeleton(b.with_channels(bone_names=("Pelvis",) + b.bone_names[1:]), a)
    with pytest.raises(TransitionError, match="fps"):
        blend.transition(a, 60, b.with_channels(fps=24.0), 20, 0.4)


def test_b_on_as_own_skeleton_is_a_read_only_view_of_its_channels():
    a = demo.walk_cycle().clip
    b = a.with_channels(location=a.location + 0.01)
    on_a = align.on_skeleton(b, a)
    for name in ("frames", "location", "rotation", "scale"):
        channel = getattr(on_a, name)
        assert np.shares_memory(channel, getattr(b, name)) and np.array_equal(channel, getattr(b, name))
        with pytest.raises(ValueError):  # a write would change the caller's clip: it fails instead
            channel[...] = 0.0
    assert np.array_equal(b.location, a.location + 0.01)
