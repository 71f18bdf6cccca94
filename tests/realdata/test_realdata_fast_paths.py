"""The fast paths of the BVH reader, Make Loop's ranking and Make Transition's search and foot lock give what the straightforward
ones give (core only).

Each straightforward path is computed here, on the shared clips (and the
corpus's BVH files where it is there): numpy's own text parser, the whole take posed at once for a loop's skating yardstick, every bone played there
and back for a transition's foot lock, the root found again for every blend of its search.
"""

import itertools

import numpy as np
import pytest

from core.formats import bvh, bvh_clip
from core.loop import make as loop
from core.motion import contacts, footlock, kinematics, quat, root as root_motion, rotation_modes
from core.transition import blend, make as transition, points
from helpers import CORPUS, NO_CORPUS


def _clip(mocap_dir, name):
    info = bvh.read_bvh(mocap_dir / name)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


def _whole_take_skating(clip):
    """The take's median slide per contact with every bone of every frame posed at once."""
    positions = kinematics.clip_forward_kinematics(clip)[..., :3, 3]
    rows = contacts._skating_rows(positions, clip.bone_names, clip.dt)
    return float(np.median(rows[:, 3])) if len(rows) else 0.0


def _every_bone_planted(result, reference, blended, still_before=0, switch=0):
    """The foot lock of :func:`..transition.blend._planted` with the whole skeleton played there and back."""
    there_and_back = np.r_[0:result.num_frames, result.num_frames - 2:-1:-1]
    locked = footlock.lock_feet(blend.joined(reference).take_frames(there_and_back), result.take_frames(there_and_back),
                                filter_span=blend.LOCK_FILTER_SPAN)
    rotation = locked.rotation[:result.num_frames]
    weight = blend._faded_in(result.num_frames, still_before, switch)
    rotation = np.where((weight < 1.0)[:, None, None], quat.slerp(result.rotation, rotation, weight[:, None]), rotation)
    changed = blended | ((np.abs(rotation - result.rotation) > blend.CHANGED).any(axis=(1, 2)) & (weight > 0.0))
    kept = np.zeros_like(changed)
    for start, stop in contacts.contact_segments(changed):
        kept[start:stop] = blended[start:stop].any()
    return result.with_channels(rotation=np.where(kept[:, None, None], rotation, result.rotation)), kept


def _bvh_files(folder):
    return sorted(path for path in folder.rglob("*") if path.suffix.lower() == ".bvh")


def _reads_as_numpys_parser_does(paths, monkeypatch):
    fast = [bvh.read_bvh(path).motion for path in paths]
    monkeypatch.setattr(bvh.decimals, "plain_decimals", lambda *args: None)  # every chunk through np.fromstring
    for path, motion in zip(paths, fast):
        assert np.array_equal(motion.view(np.int64), bvh.read_bvh(path).motion.view(np.int64)), path  # bit for bit, -0.0 too


def test_the_shared_bvh_files_read_bit_for_bit_as_numpys_parser_reads_them(mocap_dir, monkeypatch):
    paths = _bvh_files(mocap_dir.parent)
    assert len(paths) >= 20
    _reads_as_numpys_parser_does(paths, monkeypatch)


@pytest.mark.skipif(NO_CORPUS is not None, reason=NO_CORPUS or "")
def test_the_corpus_bvh_files_read_bit_for_bit_as_numpys_parser_reads_them(monkeypatch):
    _reads_as_numpys_parser_does(_bvh_files(CORPUS), monkeypatch)


def test_a_bvhs_rotations_are_seen_from_the_rest_as_quaternion_products_see_them(mocap_dir):
    """The clip of a BVH turns each joint's rotation into its bone's rest frame a component at a time: as rest^-1 * q * rest."""
    for name in ("dataset-1_walk_normal_001.bvh", "dataset-1_dance-short_normal_001.bvh"):
        info = bvh.read_bvh(mocap_dir / name)
        up = bvh.up_axis(info)
        scale = bvh.suggest_scale(info, up)[0]
        clip = bvh_clip.clip_from_bvh(info, scale, up)
        rest, _, _, order = bvh_clip._importer_bones(info, scale)
        turn = quat.from_matrix(rest[:, :3, :3])
        rotation = np.array(clip.rotation)
        for j, layout in enumerate(bvh.layouts(info.channels)[k] for k in order):
            if layout.rotations:
                euler = rotation_modes.euler_to_quat(np.radians(info.motion[:, list(layout.rotations)]), layout.order)
                rotation[:, j] = quat.multiply(quat.multiply(quat.inverse(turn[j]), euler), turn[j])
        assert np.abs(np.abs(quat.dot(rotation, clip.rotation)) - 1.0).max() <= 1e-12


def test_a_long_takes_blocks_are_converted_on_threads_as_one_block_is(mocap_dir, monkeypatch):
    """The Euler rows of a long take are turned into quaternions a block at a time on several threads: bit for bit one pass."""
    info = bvh.read_bvh(mocap_dir / "dataset-1_dance-short_normal_001.bvh")
    up = bvh.up_axis(info)
    scale = bvh.suggest_scale(info, up)[0]
    whole = bvh_clip.clip_from_bvh(info, scale, up)
    monkeypatch.setattr(bvh_clip, "_FRAMES_PER_BLOCK", 97)  # a block of a prime number of frames: the last one short
    monkeypatch.setattr(bvh_clip, "_THREADS", 3)
    blocks = bvh_clip.clip_from_bvh(info, scale, up)
    assert info.frame_count > 10 * 97
    for channel in ("location", "rotation"):
        assert np.array_equal(getattr(blocks, channel), getattr(whole, channel)), channel


def test_only_heads_poses_the_bones_nothing_hangs_from_by_their_location_alone(mocap_dir):
    """Where only positions are read, a bone no posed bone hangs from gets its head alone: the same positions, bit for bit,
    on a real skeleton and a random one with scale, in both precisions."""
    clip = _clip(mocap_dir, "dataset-1_walk_normal_001.bvh")
    rng = np.random.default_rng(3)
    count, frames = 9, 40
    parents = np.array([-1, 0, 1, 1, 3, 0, 5, -1, 7])  # two roots; bones 2, 4, 6 and 8 end chains
    rest = np.tile(np.eye(4), (count, 1, 1))
    rest[:, :3, 3] = rng.normal(size=(count, 3))
    random = (parents, rest, rng.normal(size=(frames, count, 3)), rng.normal(size=(frames, count, 4)), rng.uniform(0.5, 2.0, (frames, count, 3)))
    skeletons = [random, (clip.parents, clip.rest, clip.location, clip.rotation, clip.scale)]
    for skeleton, dtype, bones in itertools.product(skeletons, (np.float64, np.float32), (None, [2, 4], [1, 2], [0])):  # [1, 2]: a bone asked for that another hangs from
        full = kinematics.forward_kinematics(*skeleton, bones, dtype)
        heads = kinematics.forward_kinematics(*skeleton, bones, dtype, heads_only=True)
        assert np.array_equal(heads[..., :, 3], full[..., :, 3])
    ends = kinematics.forward_kinematics(*random, heads_only=True)[:, [2, 4, 6, 8], :3, :3]
    assert not ends.any() and kinematics.forward_kinematics(*random)[:, [2, 4, 6, 8], :3, :3].any()  # their turns left out


def test_skating_finds_each_contact_as_a_walk_through_its_frames_does():
    rng = np.random.default_rng(5)
    positions = np.cumsum(rng.normal(0.0, 0.01, (400, 3, 3)), axis=0)
    planted = rng.random((400, 3)) < 0.85
    planted[:, 2] = False  # a joint never planted
    expected = []
    for joint in range(3):
        frame = 0
        while frame < 400:
            if not planted[frame, joint]:
                frame += 1
                continue
            stop = frame
            while stop < 400 and planted[stop, joint]:
                stop += 1
            if stop - frame >= 3:
                path = np.linalg.norm(np.diff(positions[frame:stop, joint, :2], axis=0), axis=-1).sum()
                expected.append((joint, frame, stop, path))
            frame = stop
    rows = contacts.skating(positions, planted)
    assert len(expected) > 20 and rows.shape == (len(expected), 4)
    assert np.array_equal(rows[:, :3], np.array(expected)[:, :3])
    assert np.allclose(rows[:, 3], np.array(expected)[:, 3], rtol=0, atol=1e-12)
    assert contacts.skating(positions, np.zeros_like(planted)).shape == (0, 4)


def test_a_takes_skating_is_posed_a_block_of_frames_and_the_feet_at_a_time(mocap_dir, monkeypatch):
    clip = _clip(mocap_dir, "dataset-1_dance-short_normal_001.bvh")
    expected = _whole_take_skating(clip)
    posed, forward = [], kinematics.forward_kinematics
    monkeypatch.setattr(kinematics, "POSITION_BLOCK_BYTES", 500 * clip.num_bones * 16 * 8)  # 500 frames a block
    monkeypatch.setattr(kinematics, "POSITION_BLOCK_FRAMES", 1)
    monkeypatch.setattr(kinematics, "forward_kinematics", lambda parents, rest, location, *rest_of: posed.append(location.shape[:2])
                        or forward(parents, rest, location, *rest_of))
    assert abs(contacts.median_skating(clip) - expected) <= 1e-9
    assert max(frames for frames, _ in posed) <= 500  # never the whole take at once


@pytest.mark.parametrize("last", [72, 1901])
def test_make_loop_auto_keeps_the_loop_the_whole_take_posed_at_once_keeps(mocap_dir, monkeypatch, last):
    clip = _clip(mocap_dir, "dataset-1_dance-short_normal_001.bvh")
    fast = loop.make_loop(clip, 1, last)
    monkeypatch.setattr(contacts, "median_skating", _whole_take_skating)
    straightforward = loop.make_loop(clip, 1, last)
    assert fast.method == straightforward.method
    for channel in ("location", "rotation", "scale"):
        assert np.abs(getattr(fast.clip, channel) - getattr(straightforward.clip, channel)).max() <= 1e-6
    assert [t.seam.visibility for t in fast.tried] == pytest.approx([t.seam.visibility for t in straightforward.tried], abs=1e-6)


@pytest.mark.parametrize("names", [("walk_normal", "run_normal"), ("run_normal", "walk-left_normal")])
def test_make_transition_locks_the_feet_of_the_legs_alone_as_of_the_whole_skeleton(mocap_dir, monkeypatch, names):
    clip_a, clip_b = (_clip(mocap_dir, f"dataset-1_{name}_001.bvh") for name in names)
    played, lock, found, find = [], footlock.lock_feet, [], root_motion.find_moving_root
    monkeypatch.setattr(footlock, "lock_feet", lambda raw, looped, *more, **options: played.append(looped.num_bones)
                        or lock(raw, looped, *more, **options))
    monkeypatch.setattr(root_motion, "find_moving_root", lambda clip: found.append(clip.num_frames) or find(clip))
    compared, match = [], points.matching_features
    monkeypatch.setattr(points, "matching_features", lambda *args: compared.append(args) or match(*args))
    fast = transition.make_transition(clip_a, clip_b)
    assert len(compared) == 1  # the search's candidates reuse the features the transition compared
    assert max(played) < clip_a.num_bones  # the legs and the bones above them, not the whole skeleton
    assert len(found) <= 4 < len(played)  # the root found once for the search's blends (and once for the whole clips), not per blend
    monkeypatch.setattr(blend, "_planted", _every_bone_planted)
    made = blend.transition  # the straightforward search: every blend finds the root again
    monkeypatch.setattr(blend, "transition", lambda *args, root=None, **options: made(*args, **options))
    straightforward = transition.make_transition(clip_a, clip_b)
    assert (fast.frame_a, fast.frame_b, fast.method, fast.length, fast.window) == (
        straightforward.frame_a, straightforward.frame_b, straightforward.method, straightforward.length, straightforward.window)
    for channel in ("location", "rotation", "scale"):
        assert np.abs(getattr(fast.clip, channel) - getattr(straightforward.clip, channel)).max() <= 1e-6
    assert fast.metrics.visibility == pytest.approx(straightforward.metrics.visibility, abs=1e-6)
