"""Shared test helpers for the Blender tiers (imported by test modules)."""

import numpy as np

BANDAI_CLIPS = (
    "dataset-2_walk_normal_020.bvh",
    "dataset-1_walk_normal_001.bvh",
    "dataset-2_run_normal_040.bvh",
    "dataset-1_run_happy_001.bvh",
    "dataset-1_walk-left_normal_001.bvh",
    "dataset-1_walk-right_normal_001.bvh",
    "dataset-1_walk-back_masculinity_001.bvh",
    "dataset-2_walk-turn-left_normal_007.bvh",
    "dataset-1_dance-short_normal_001.bvh",
    "dataset-2_wave-right-hand_normal_021.bvh",
    "dataset-1_walk_normal_002.bvh",
    "dataset-1_walk-back_normal_001.bvh",
    "dataset-1_run_normal_001.bvh",
)


def import_bvh(path, rotate_mode="NATIVE"):
    """Import a BVH at scale 0.01 (metres) with the scene's fps set from the file."""
    import bpy

    bpy.ops.import_anim.bvh(filepath=str(path), global_scale=0.01, rotate_mode=rotate_mode, update_scene_fps=True)
    return bpy.context.object


def evaluated_pose(obj, frames):
    """Armature-space matrices ``(F, B, 4, 4)`` of every pose bone (pose.bones order) at each frame."""
    import bpy

    scene = bpy.context.scene
    flat = np.empty(len(obj.pose.bones) * 16, dtype=np.float32)
    out = []
    for frame in frames:
        scene.frame_set(int(frame))
        obj.pose.bones.foreach_get("matrix", flat)
        out.append(flat.reshape(-1, 4, 4).transpose(0, 2, 1).copy())  # foreach_get is column-major
    return np.array(out, dtype=float)


def pose_errors(a, b):
    """Largest position difference and rotation angle (radians) between pose matrix arrays."""
    position = np.abs(a[..., :3, 3] - b[..., :3, 3]).max()
    ra = a[..., :3, :3] / np.linalg.norm(a[..., :3, :3], axis=-2, keepdims=True)
    rb = b[..., :3, :3] / np.linalg.norm(b[..., :3, :3], axis=-2, keepdims=True)
    relative = np.swapaxes(ra, -1, -2) @ rb
    # atan2 of the skew part keeps small angles exact (arccos would not).
    skew = 0.5 * np.stack([relative[..., 2, 1] - relative[..., 1, 2], relative[..., 0, 2] - relative[..., 2, 0], relative[..., 1, 0] - relative[..., 0, 1]], -1)
    cos = (np.trace(relative, axis1=-2, axis2=-1) - 1.0) / 2.0
    return position, float(np.arctan2(np.linalg.norm(skew, axis=-1), cos).max())


def fcurve_snapshot(fcurves):
    """Every curve's path, index and key coordinates, for checking nothing changed."""
    snapshot = {}
    for fcurve in fcurves:
        co = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
        fcurve.keyframe_points.foreach_get("co", co)
        snapshot[(fcurve.data_path, fcurve.array_index)] = co
    return snapshot
