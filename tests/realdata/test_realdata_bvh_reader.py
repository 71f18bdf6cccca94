"""The numpy BVH reader against Blender's importer on every real clip: same clip, same pose, same file back."""

import importlib
import sys
import time

import numpy as np
import pytest

from core.formats import bvh, bvh_clip
from core.motion import kinematics



def _clips(mocap_dir):
    """The 19 Bandai takes. (The CMU reference conversion beside them is for the Acclaim reader: Blender 4.2's importer
    connects one of its bones where 4.5 and 5.0 do not.)"""
    return sorted(mocap_dir.glob("*.bvh")) + sorted((mocap_dir.parent / "bandai-actions").glob("*.bvh"))


def _settings(path):
    info = bvh.read_bvh(path)
    up = bvh.up_axis(info)
    return info, bvh.suggest_scale(info, up)[0], up


def _file_pose(info, scale, up, names):
    """World joint positions ``(F, J, 3)`` (metres, Blender's axes, the clip's bone order) from the file itself, in float64."""
    order = [info.names.index(name) for name in names]
    return scale * bvh.forward_kinematics(info)[:, order] @ bvh.BLENDER_TO_FILE[up]


def test_the_clip_poses_the_file_and_writes_it_back(mocap_dir):
    for path in _clips(mocap_dir):
        info, scale, up = _settings(path)
        clip = bvh_clip.clip_from_bvh(info, scale, up)
        assert np.abs(kinematics.clip_joint_positions(clip) - _file_pose(info, scale, up, clip.bone_names)).max() < 1e-6, path.name
        back = bvh.parse_bvh(bvh.to_text(bvh_clip.bvh_from_clip(clip, info, up, scale)))
        assert back.names == info.names and back.channels == info.channels and back.frame_time == info.frame_time
        # 6 decimals of centimetres and degrees: a few 1e-6 cm over a chain of 22 joints.
        assert np.abs(bvh.forward_kinematics(back) - bvh.forward_kinematics(info)).max() < 1e-4, path.name


def test_a_3000_joint_chain_reads_and_converts(tmp_path):
    joints, frames = 3000, 200
    rng = np.random.default_rng(5)
    channels = (("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"),) + (("Zrotation", "Xrotation", "Yrotation"),) * (joints - 1)
    motion = np.concatenate([rng.uniform(-5, 5, (frames, 3)), rng.uniform(-2, 2, (frames, 3 * joints))], axis=1)
    info = bvh.BvhInfo(tuple(f"j{j}" for j in range(joints)), np.arange(joints) - 1, np.tile([0.0, 1.0, 0.0], (joints, 1)), channels,
                       {joints - 1: np.array([0.0, 1.0, 0.0])}, 1 / 30, motion)
    path = tmp_path / "chain.bvh"
    start = time.perf_counter()
    bvh.write_bvh(path, info)
    written = time.perf_counter() - start
    read = bvh.read_bvh(path)
    read_at = time.perf_counter()
    clip = bvh_clip.clip_from_bvh(read, 0.01, "Y")
    converted = time.perf_counter()
    back = bvh_clip.bvh_from_clip(clip, read, "Y", 0.01)
    print(f"\n3,000-joint chain, {frames} frames: write {written:.2f} s, read {read_at - start - written:.2f} s, "
          f"clip_from_bvh {converted - read_at:.2f} s, bvh_from_clip {time.perf_counter() - converted:.2f} s", file=sys.stderr)
    assert clip.bone_names == info.names and np.array_equal(clip.parents, info.parents)
    assert np.abs(back.motion - read.motion).max() < 1e-6
    tip = kinematics.clip_forward_kinematics(clip, bones=[joints - 1])[:, joints - 1, :3, 3]
    # The rest heads are summed down the chain in single precision, as Blender's importer does: 30 m of chain.
    assert np.abs(tip - _file_pose(read, 0.01, "Y", clip.bone_names)[:, -1]).max() < 2e-3


@pytest.mark.every_blender
@pytest.mark.blender
def test_clip_and_armature_match_blenders_importer(loopsmith, blank, mocap_dir):
    import bpy

    from helpers import evaluated_pose

    armature = importlib.import_module(loopsmith.__name__ + ".bridge.armature")
    ext_bvh_clip = importlib.import_module(loopsmith.__name__ + ".core.formats.bvh_clip")
    read_clip = loopsmith.bridge.clip_io.read_clip
    worst = {}
    for path in _clips(mocap_dir):
        info, scale, up = _settings(path)
        bpy.ops.wm.read_homefile(use_empty=True)
        bpy.ops.import_anim.bvh(filepath=str(path), global_scale=scale, update_scene_fps=True, **bvh.IMPORT_AXES[up])
        imported = bpy.context.object
        reference = read_clip(imported)
        clip, lengths, connected = ext_bvh_clip.armature_from_bvh(info, scale, up)
        built_obj = armature.animated_armature(bpy.context, clip, "built", lengths, connected)
        built = read_clip(built_obj)
        for other in (reference, built):
            assert other.bone_names == clip.bone_names and np.array_equal(other.parents, clip.parents), path.name
            assert other.rotation_modes == clip.rotation_modes and other.fps == clip.fps and np.array_equal(other.frames, clip.frames)
            for flag in ("animated_location", "animated_rotation", "animated_scale"):
                assert np.array_equal(getattr(other, flag), getattr(clip, flag)), (path.name, flag)
        # Single precision: Blender keeps matrices and keys in float32.
        for name, tolerance in (("rest", 3e-6), ("location", 2e-6), ("scale", 0.0)):
            assert np.abs(getattr(built, name) - getattr(clip, name)).max() <= tolerance, (path.name, name)
            assert np.abs(getattr(reference, name) - getattr(clip, name)).max() <= tolerance, (path.name, name)
        assert np.abs(built.rotation - clip.rotation).max() < 1e-6, path.name
        assert [imported.data.bones[n].use_connect for n in clip.bone_names] == [built_obj.data.bones[n].use_connect for n in clip.bone_names]
        assert np.allclose([imported.data.bones[n].length for n in clip.bone_names], [built_obj.data.bones[n].length for n in clip.bone_names], atol=1e-6)

        exact = _file_pose(info, scale, up, clip.bone_names)
        ours, blenders = kinematics.clip_joint_positions(clip), kinematics.clip_joint_positions(reference)
        apart = np.abs(ours - blenders).max(axis=(1, 2))
        blender_error = np.abs(blenders - exact).max(axis=(1, 2))
        # Within 1e-5 m, except on frames where Blender's own single-precision Euler keys stray from the file by more
        # (the dance passes through gimbal lock): there the numpy clip is the one on the file's pose.
        assert np.all((apart < 1e-5) | ((blender_error > 1e-5) & (np.abs(ours - exact).max(axis=(1, 2)) < 1e-6))), path.name
        worst[path.name] = (float(apart.max()), float(blender_error.max()))

        frames = np.unique(np.linspace(1, info.frame_count, 4).astype(int))
        pose_imported = evaluated_pose(imported, frames)[..., :3, 3]
        pose_built = evaluated_pose(built_obj, frames)[..., :3, 3]
        names = [bone.name for bone in imported.pose.bones]
        order = [names.index(bone.name) for bone in built_obj.pose.bones]
        world = lambda obj, pose: pose @ np.array(obj.matrix_world)[:3, :3].T + np.array(obj.matrix_world)[:3, 3]
        assert np.abs(world(built_obj, pose_built) - world(imported, pose_imported)[:, order]).max() < 1e-5, path.name
    print("\nlargest joint distance numpy vs Blender's importer, and Blender's importer vs the file (m):", file=sys.stderr)
    for name, (apart, blender_error) in worst.items():
        print(f"  {name}: {apart:.2e} {blender_error:.2e}", file=sys.stderr)
