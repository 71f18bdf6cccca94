"""Mirror on every real Bandai clip: twice gives the clip back, joints land on the mirror image, walks still walk, no more skating.

The Bandai rest is folded and its bone lengths are not quite symmetric (the
right shoulder and lower arm are 3 micrometres longer than the left ones):
the bones keep their own lengths, so mirrored joints land up to the sum of
those differences along their chain off the exact mirror image, 6 micrometres
at most. Run with -s for the numbers per clip.
"""

import time

import numpy as np
import pytest

from helpers import BANDAI_CLIPS, evaluated_pose, extension_module, import_bvh

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

ACTIONS = ("dataset-1_walk_happy_001.bvh", "dataset-1_dash_happy_001.bvh", "dataset-1_kick_normal_001.bvh",
           "dataset-1_bow_normal_001.bvh", "dataset-1_punch_normal_001.bvh", "dataset-2_walk-turn-right_normal_001.bvh")
CLIPS = tuple(f"bandai/{name}" for name in BANDAI_CLIPS) + tuple(f"bandai-actions/{name}" for name in ACTIONS)
S = np.diag([-1.0, 1.0, 1.0])
#: The largest distance (metres) the Bandai rest's asymmetry puts between a mirrored joint and the exact mirror image.
REST_ASYMMETRY = 1e-5


def _read(loopsmith, path):
    """The armature and clip of a BVH imported into a fresh scene (metres, Z up)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = import_bvh(path)
    return obj, loopsmith.bridge.clip_io.read_clip(obj)


def _partners(mirror, clip):
    pairs = mirror.mirror_pairs(clip.bone_names)
    return np.array([clip.bone_names.index(pairs[name]) for name in clip.bone_names])


def _path_length(positions):
    """Horizontal distance ``positions (F, 3)`` travel, metres."""
    return float(np.linalg.norm(np.diff(positions[:, :2], axis=0), axis=-1).sum())


@pytest.mark.parametrize("name", CLIPS)
def test_mirror_is_the_mirror_image_and_twice_gives_the_clip_back(loopsmith, blank, mocap_dir, name):
    mirror, measure, root = (extension_module(loopsmith, f"core.{module}") for module in ("edit.mirror", "measure.edit", "motion.root"))
    _, clip = _read(loopsmith, mocap_dir.parent / name)
    started = time.perf_counter()
    result = mirror.mirror(clip)
    seconds = time.perf_counter() - started
    mirrored = result.clip
    original, image = measure.joint_positions(clip), measure.joint_positions(mirrored)
    partners = _partners(mirror, clip)
    per_joint = np.linalg.norm(image[:, partners] - original @ S, axis=-1).max(axis=0)
    residual = float(per_joint.max())
    twice = measure.joint_positions(mirror.mirror(mirrored).clip)
    back = float(np.abs(twice - original).max())
    moving = root.find_moving_root(clip)
    travel = (_path_length(original[:, moving]), _path_length(image[:, moving])) if moving is not None else (0.0, 0.0)
    skating = measure.toe_skating(clip, original), measure.toe_skating(mirrored, image)
    print(f"\n{name:48s} {clip.num_frames:5d} frames in {1000 * seconds:6.1f} ms: {result.summary()}; twice {back:.1e} m; "
          f"travel {travel[0]:.3f} -> {travel[1]:.3f} m; skating {skating[0]:.4f} -> {skating[1]:.4f} m/s")

    assert result.numbers["pairs"] == 8
    assert result.numbers["position_error"] == pytest.approx(residual, abs=1e-12)
    assert residual < REST_ASYMMETRY
    # That residual is the rest's asymmetry: each joint is off by at most its chain's bone length differences.
    lengths = np.linalg.norm(loopsmith.core.motion.kinematics.rest_relative(clip.parents, clip.rest)[:, :3, 3], axis=1)
    asymmetry = np.where(clip.parents >= 0, np.abs(lengths - lengths[partners]), 0.0)
    for bone, parent in enumerate(clip.parents):
        asymmetry[bone] += asymmetry[parent] if parent >= 0 else 0.0
    assert np.all(per_joint <= asymmetry + 1e-6), per_joint - asymmetry  # 1e-6: Blender's rest matrices are float32
    assert back < 1e-5  # the required bound; float precision in fact
    assert np.all(np.isfinite(mirrored.rotation)) and np.all(np.isfinite(mirrored.location))
    assert np.abs(np.linalg.norm(mirrored.rotation, axis=-1) - 1.0).max() < 1e-9
    assert np.all(np.sum(mirrored.rotation[1:] * mirrored.rotation[:-1], axis=-1) > 0.0)
    # Not trivially so: the character moved to the other side.
    assert np.abs(image - original).max() > 0.05
    if moving is not None:
        assert mirrored.bone_names[moving] == clip.bone_names[moving]  # a centre bone
        assert travel[1] == pytest.approx(travel[0], rel=1e-6)
    assert skating[1] == pytest.approx(skating[0], rel=0.05)


@pytest.mark.parametrize("name", ["bandai/dataset-1_walk-left_normal_001.bvh", "bandai/dataset-1_run_normal_001.bvh"])
def test_the_mirrored_action_plays_the_mirror_image_in_blender_and_mirrors_back(loopsmith, blank, mocap_dir, name):
    mirror, clip_io = extension_module(loopsmith, "core.edit.mirror"), loopsmith.bridge.clip_io
    obj, clip = _read(loopsmith, mocap_dir.parent / name)
    source = obj.animation_data.action
    order = [clip.bone_names.index(bone.name) for bone in obj.pose.bones]  # evaluated poses come in pose-bone order
    played = np.empty((clip.num_frames, clip.num_bones, 3))
    played[:, order] = evaluated_pose(obj, clip.frames)[..., :3, 3]

    clip_io.write_clip(obj, mirror.mirror(clip).clip, "mirrored", source_action=source)
    image = np.empty_like(played)
    image[:, order] = evaluated_pose(obj, clip.frames)[..., :3, 3]
    residual = float(np.linalg.norm(image[:, _partners(mirror, clip)] - played @ S, axis=-1).max())

    clip_io.write_clip(obj, mirror.mirror(clip_io.read_clip(obj)).clip, "mirrored twice", source_action=source)
    back = np.empty_like(played)
    back[:, order] = evaluated_pose(obj, clip.frames)[..., :3, 3]
    error = float(np.abs(back - played).max())
    print(f"\n{name}: played mirror image off by {residual:.1e} m, mirrored twice off by {error:.1e} m")
    assert residual < REST_ASYMMETRY + 1e-5  # float32 keys and poses
    assert error < 1e-5
