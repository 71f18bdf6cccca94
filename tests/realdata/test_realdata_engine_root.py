"""Root motion on every real Bandai clip: joint_Root carries the travel, the world pose stays.

The Bandai skeleton already has a floor bone above the hips, joint_Root: it is
used, never a new bone. Blender stores rest matrices in single precision, so
the hips' rest relative to joint_Root is orthonormal only to 3e-7: a rotation
channel cannot undo a new root turn through it exactly, and the world pose
moves by up to 2e-7 m (synthetic clips with exact rests: 1e-15 m), far under
the required 1e-5 m. Run with -s for the numbers per clip.
"""

import time

import numpy as np
import pytest

from helpers import BANDAI_CLIPS, extension_module, hand_picked_range, imported_clip

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

ACTIONS = ("dataset-1_walk_happy_001.bvh", "dataset-1_dash_happy_001.bvh", "dataset-1_kick_normal_001.bvh",
           "dataset-1_bow_normal_001.bvh", "dataset-1_punch_normal_001.bvh", "dataset-2_walk-turn-right_normal_001.bvh")
CLIPS = tuple(f"bandai/{name}" for name in BANDAI_CLIPS) + tuple(f"bandai-actions/{name}" for name in ACTIONS)
#: The required bound on the world pose change (metres), and how far the hips may stray from the root.
WORLD_TOLERANCE, PELVIS_OFFSET = 1e-5, 0.25


@pytest.mark.parametrize("name", CLIPS)
def test_joint_root_carries_the_travel_and_the_world_pose_stays(loopsmith, blank, mocap_dir, name):
    root_bone, fk = extension_module(loopsmith, "core.engine.root_bone"), loopsmith.core.motion.kinematics.clip_forward_kinematics
    clip = imported_clip(loopsmith, mocap_dir.parent / name)
    started = time.perf_counter()
    result = root_bone.extract_root_motion(clip)
    seconds = time.perf_counter() - started
    in_place = root_bone.extract_root_motion(clip, in_place=True)
    numbers = result.numbers
    print(f"\n{name:48s} {clip.num_frames:5d} frames in {1000 * seconds:6.1f} ms: "
          + ", ".join(f"{key} {value:.3g}" for key, value in numbers.items()) + f"; in place: world_error {in_place.numbers['world_error']:.1e}")

    out = result.clip.validate()
    assert not result.added and out.bone_names == clip.bone_names
    assert (result.root, result.pelvis) == (clip.bone_index("joint_Root"), clip.bone_index("Hips"))
    before, after = fk(clip), fk(out)
    body = np.arange(clip.num_bones) != result.root
    assert np.abs(after[:, body, :3, 3] - before[:, body, :3, 3]).max() < WORLD_TOLERANCE
    assert np.abs(after[:, body, :3, :3] - before[:, body, :3, :3]).max() < WORLD_TOLERANCE
    assert numbers["world_error"] < 1e-6  # single-precision rests, see above
    root_pose = after[:, result.root]
    assert np.abs(root_pose[:, 2, 3]).max() < 1e-9 and np.abs(root_pose[:, :3, 2] - (0.0, 0.0, 1.0)).max() < 1e-6  # on the floor, upright (to single precision)
    if loopsmith.core.motion.root.find_moving_root(clip) is not None:
        assert numbers["root_share"] >= 0.9
    assert numbers["pelvis_offset"] < PELVIS_OFFSET
    assert np.allclose(np.linalg.norm(out.rotation, axis=-1), 1.0, atol=1e-9)
    assert np.all(np.isfinite(out.location)) and np.all(np.isfinite(out.rotation))

    # In place: the root stays at the origin and the body moves by exactly the travel the root had.
    still = fk(in_place.clip)
    assert np.abs(still[:, result.root, :3, 3]).max() < 1e-9 and np.abs(still[:, result.root] - still[0, result.root]).max() < 1e-9
    moved = still[0, result.root] @ np.linalg.inv(root_pose)
    assert np.abs(still[:, body] - (moved[:, None] @ before)[:, body]).max() < WORLD_TOLERANCE
    hips = still[:, result.pelvis, :3, 3]
    assert np.linalg.norm(hips[:, :2] - hips[0, :2], axis=-1).max() < 2 * PELVIS_OFFSET


def test_a_loop_closes_for_the_body_while_joint_root_keeps_the_travel(loopsmith, blank, mocap_dir):
    root_bone, loop = extension_module(loopsmith, "core.engine.root_bone"), loopsmith.core.loop.make
    clip = imported_clip(loopsmith, mocap_dir / "dataset-1_walk_normal_001.bvh")
    positions = loopsmith.core.motion.kinematics.clip_joint_positions(clip)
    start, length = hand_picked_range(positions, clip.rotation, 1.07 * clip.fps)
    looped = loop.make_loop(clip, clip.frames[start], clip.frames[start + length]).clip
    result = root_bone.extract_root_motion(looped)
    out, root = result.clip, result.root
    body = np.arange(out.num_bones) != root
    assert result.numbers["world_error"] < 1e-6
    assert np.abs(out.location[-1, body] - out.location[0, body]).max() < 1e-6
    assert np.abs(loopsmith.core.motion.quat.dot(out.rotation[-1, body], out.rotation[0, body])).min() > 1.0 - 1e-9
    pose = loopsmith.core.motion.kinematics.clip_forward_kinematics(out)[:, root, :3, 3]
    travel = np.linalg.norm(pose[-1, :2] - pose[0, :2])
    print(f"\nloop of {out.num_frames} frames: the root's last sample is {travel:.3f} m from its first")
    assert travel > 2.0  # two cycles at 1.2 m/s: the displacement per loop lives in the last sample
