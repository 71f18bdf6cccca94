"""Splice, numpy only: the lower body kept exactly, the upper body's locals carried over, its torso in the character frame."""

import numpy as np
import pytest

from core import demo
from core.motion import quat, root as root_motion, sampling
from core.edit import splice
from core.errors import EditError
from core.motion.kinematics import descendants
from core.transition import align, timewarp


def _walks():
    """A lower walk (200 frames) and an upper walk of another speed and gait period, turned and moved (150 frames)."""
    lower = demo.walk_cycle(num_frames=200, speed=1.3, period_seconds=1.07).clip
    upper = demo.walk_cycle(num_frames=150, speed=1.8, period_seconds=0.8, seed=3).clip
    return lower, align.rigidly_moved(upper, 0, align.floor_motion(np.radians(120.0), np.zeros(2), np.array([3.0, -2.0])))


def _upper_body(clip, name="Spine"):
    """Mask ``(B,)`` of ``name`` and the bones below it, and the mask without ``name``."""
    mask = descendants(clip.parents, clip.bone_index(name))
    below = mask.copy()
    below[clip.bone_index(name)] = False
    return mask, below


def _angles(a, b):
    """Angles (radians) between quaternion arrays."""
    return 2.0 * np.arccos(np.clip(np.abs(quat.dot(a, b)), 0.0, 1.0))


@pytest.mark.parametrize("timing", ["NONE", "WARP"])
def test_the_lower_body_and_root_are_exactly_the_lower_clips(timing):
    lower, upper = _walks()
    result = splice.splice(lower, upper, timing=timing)
    mask, _ = _upper_body(lower)
    clip = result.clip
    assert result.edit == "splice" and np.array_equal(clip.frames, lower.frames)
    for channel in ("location", "rotation", "scale"):
        assert np.array_equal(getattr(clip, channel)[:, ~mask], getattr(lower, channel)[:, ~mask])
    assert result.numbers["skating"] == result.numbers["lower_skating"]


@pytest.mark.parametrize("shorter", splice.SHORTER)
def test_upper_locals_below_the_upper_root_are_the_upper_clips_frame_for_frame(shorter):
    lower, upper = _walks()
    result = splice.splice(lower, upper, timing="NONE", shorter=shorter)
    _, below = _upper_body(lower)
    m, n = upper.num_frames, lower.num_frames
    played = np.arange(n) % m if shorter == "LOOP" else np.minimum(np.arange(n), m - 1)
    # Whole frames sampled: the keys themselves, to rounding.
    assert np.abs(result.clip.rotation[:, below] - upper.rotation[played][:, below]).max() < 1e-12
    assert np.abs(result.clip.location[:, below] - upper.location[played][:, below]).max() < 1e-12
    assert any(("again from its start" if shorter == "LOOP" else "is held") in note for note in result.notes)


def test_warp_plays_a_slowed_copy_at_its_own_pace():
    lower = demo.walk_cycle(num_frames=200).clip
    upper = sampling.sample_clip(lower, np.linspace(0.0, 199.0, 250))  # the same walk, 1.25 times slower
    pelvis, root, mask = splice.split(lower)
    played, times, used, _ = splice.match_timing(lower, upper, pelvis, mask, timing="WARP")
    assert used == "WARP" and played is upper
    assert np.abs(times - 1.25 * np.arange(200)).max() < 1.5  # frame for frame would be 50 frames off at the end
    assert np.all(np.diff(times) >= 0.0)
    result = splice.splice(lower, upper, timing="WARP")
    _, below = _upper_body(lower)
    expected = sampling.sample_clip(upper, times, "CUBIC")
    assert np.array_equal(result.clip.rotation[:, below], expected.rotation[:, below])
    assert result.numbers["time_rate"] == pytest.approx(1.25, abs=0.01)


def test_a_long_warp_onto_itself_is_the_identity_across_chunks():
    clip = demo.walk_cycle(num_frames=3 * timewarp.CHUNK // 2 + 17).clip
    pelvis, _, mask = splice.split(clip)
    _, times, _, _ = splice.match_timing(clip, clip, pelvis, mask, timing="WARP")
    assert np.abs(times - np.arange(clip.num_frames)).max() < 1e-9


def _pelvis_pitched(clip, degrees):
    """``clip`` with the Hips pitched forward about the world's X axis and the Spine turned back: the torso stays where it was in the world."""
    hips, spine = clip.bone_index("Hips"), clip.bone_index("Spine")
    spine_pose, _ = root_motion.root_frames(clip, spine)
    hips_pose, _ = root_motion.root_frames(clip, hips)
    pitch = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), np.radians(degrees))
    tilted = root_motion.with_root_global(clip, hips, hips_pose[:, :3, 3], quat.multiply(pitch, quat.from_matrix(hips_pose[:, :3, :3])))
    _, space = root_motion.root_frames(tilted, spine)
    rotation = tilted.rotation.copy()
    rotation[:, spine] = quat.multiply(quat.inverse(quat.from_matrix(space[:, :3, :3])), quat.from_matrix(spine_pose[:, :3, :3]))
    return tilted.with_channels(rotation=quat.unroll(rotation))


def test_the_torso_keeps_its_posture_in_the_character_frame_not_on_the_upper_clips_pelvis():
    lower = demo.walk_cycle(num_frames=200).clip
    upper = demo.walk_cycle(num_frames=200, speed=1.8, period_seconds=0.8, seed=3).clip
    spine = lower.bone_index("Spine")
    plain = splice.splice(lower, upper, timing="NONE").clip
    pitched = splice.splice(lower, _pelvis_pitched(upper, 25.0), timing="NONE").clip
    torso = [root_motion.root_frames(clip, spine)[0][:, :3, :3] for clip in (plain, pitched)]
    # Copying the spine's local rotation would pitch the result's torso back by the 25 degrees.
    assert np.degrees(_angles(*(quat.from_matrix(m) for m in torso))).max() < 1.0


@pytest.mark.parametrize("degrees", [90.0, 180.0, -135.0])
def test_the_torso_faces_where_the_lower_pelvis_faces_whatever_way_the_upper_clip_walks(degrees):
    lower, upper = _walks()
    turned = align.rigidly_moved(upper, 0, align.floor_motion(np.radians(degrees), np.zeros(2), np.array([-5.0, 1.0])))
    spine = lower.bone_index("Spine")
    torso = [root_motion.root_frames(splice.splice(lower, clip, timing="NONE").clip, spine)[0][:, :3, :3] for clip in (upper, turned)]
    assert np.degrees(_angles(*(quat.from_matrix(m) for m in torso))).max() < 1e-4  # arccos resolves ~1e-6 degrees
    # And it faces the lower pelvis' way: the spine's heading stays within the walk's own twist of the pelvis'.
    hips_heading = root_motion.heading(quat.from_matrix(root_motion.root_frames(lower, 0)[0][:, :3, :3]), 0)
    spine_heading = root_motion.heading(quat.from_matrix(torso[1]), 0)
    assert np.degrees(np.abs(align.shortest_turn(spine_heading - hips_heading))).max() < 15.0


def test_the_upper_root_is_found_or_refused_with_a_reason():
    lower, upper = _walks()
    pelvis, root, mask = splice.split(lower)
    assert lower.bone_names[pelvis] == "Hips" and lower.bone_names[root] == "Spine"
    assert {lower.bone_names[bone] for bone in np.flatnonzero(mask)} >= {"Chest", "Head", "Hand.L", "Hand.R"}
    assert not any("Leg" in lower.bone_names[bone] or "Foot" in lower.bone_names[bone] for bone in np.flatnonzero(mask))
    chest = splice.splice(lower, upper, upper_root="Chest", timing="NONE").clip
    assert np.array_equal(chest.rotation[:, lower.bone_index("Spine")], lower.rotation[:, lower.bone_index("Spine")])
    for name, reason in (("Tail", "no bone named 'Tail'"), ("Hips", "foot"), ("UpperLeg.L", "foot 'Foot.L'")):
        with pytest.raises(EditError, match=reason):
            splice.splice(lower, upper, upper_root=name)


@pytest.mark.parametrize("options, upper_rate, message", [(dict(timing="FAST"), 30.0, "timing 'FAST'"), (dict(shorter="WRAP"), 30.0, "'WRAP'"),
                                                           ({}, 60.0, "fps")])
def test_bad_options_and_clips_are_refused(options, upper_rate, message):
    lower, upper = _walks()
    with pytest.raises(EditError, match=message):
        splice.splice(lower, upper.with_channels(fps=upper_rate), **options)


def test_messages_name_the_clips_given():
    lower, upper = _walks()
    with pytest.raises(EditError, match=r"^the lower clip \(walk\.bvh\)'s armature has no bone named 'Tail'"):
        splice.splice(lower, upper, upper_root="Tail", names=("walk.bvh", "wave.bvh"))
    with pytest.raises(EditError, match=r"^the upper clip \(wave\.bvh\) does not fit the lower clip \(walk\.bvh\)'s skeleton: "):
        splice.splice(lower, upper.with_channels(fps=60.0), names=("walk.bvh", "wave.bvh"))
    with pytest.raises(EditError, match=r"^the lower clip's armature has no bone named 'Tail'"):
        splice.splice(lower, upper, upper_root="Tail")
