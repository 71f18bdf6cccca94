"""The action <-> numpy bridge inside Blender (every version's action API)."""

import numpy as np
import pytest

from helpers import evaluated_pose, fcurve_snapshot, pose_errors

bpy = pytest.importorskip("bpy")


@pytest.fixture
def ext(blank, loopsmith):
    return loopsmith


def _walker(ext, context, modes=None, num_frames=40):
    demo = ext.core.demo.walk_cycle(num_frames=num_frames)
    clip = demo.clip
    if modes is not None:
        clip = clip.with_channels(rotation_modes=tuple(modes[i % len(modes)] for i in range(clip.num_bones)))
    obj = ext.bridge.armature.create_armature(context, clip, "Walker")
    ext.bridge.clip_io.write_clip(obj, clip, "walk")
    return obj, clip


def test_mathutils_agrees_with_core_euler_orders(ext):
    from mathutils import Euler

    rng = np.random.default_rng(3)
    for order in ext.core.motion.rotation_modes.EULER_ORDERS:
        angles = rng.uniform(-3.0, 3.0, (20, 3))
        ours = ext.core.motion.rotation_modes.euler_to_quat(angles, order)
        theirs = np.array([tuple(Euler(a, order).to_quaternion()) for a in angles])
        assert np.abs(np.abs(np.sum(ours * theirs, -1)) - 1).max() < 1e-6, order


def test_demo_armature_rest_matches_the_clip(ext, blank):
    obj, clip = _walker(ext, blank)
    rest = np.array([np.array(obj.data.bones[name].matrix_local) for name in clip.bone_names])
    assert np.abs(rest - clip.rest).max() < 1e-6


def test_core_forward_kinematics_matches_blender(ext, blank):
    obj, clip = _walker(ext, blank)
    read = ext.bridge.clip_io.read_clip(obj)
    blender = evaluated_pose(obj, read.frames)
    order = [obj.pose.bones.find(name) for name in read.bone_names]
    position, angle = pose_errors(blender[:, order], ext.core.motion.kinematics.clip_forward_kinematics(read))
    assert position < 1e-5 and angle < 1e-4


@pytest.mark.parametrize("modes", [("QUATERNION",), ("AXIS_ANGLE",), ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")])
def test_round_trip_is_exact_in_every_rotation_mode(ext, blank, modes):
    obj, _ = _walker(ext, blank, modes)
    source = obj.animation_data.action
    before = evaluated_pose(obj, range(1, 41))
    clip = ext.bridge.clip_io.read_clip(obj)
    written = ext.bridge.clip_io.write_clip(obj, clip, "copy", source_action=source)
    assert obj.animation_data.action == written
    position, angle = pose_errors(evaluated_pose(obj, range(1, 41)), before)
    assert position < 1e-5 and angle < 1e-4
    assert np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0)


def test_euler_curves_are_written_without_flips(ext, blank):
    demo = ext.core.demo.walk_cycle(num_frames=120)
    clip = demo.clip.with_channels(rotation_modes=("XYZ",) * demo.clip.num_bones)
    spin = ext.core.motion.quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), np.linspace(0, 3 * np.pi, 120))
    rotation = clip.rotation.copy()
    rotation[:, 0] = ext.core.motion.quat.multiply(spin, rotation[:, 0])  # the hips turn 1.5 times
    clip = clip.with_channels(rotation=ext.core.motion.quat.unroll(rotation))
    obj = ext.bridge.armature.create_armature(blank, clip, "Spinner")
    action = ext.bridge.clip_io.write_clip(obj, clip, "spin")
    curves = ext.bridge.action_api.fcurves_of(action, obj)
    euler = [fc for fc in curves if fc.data_path.endswith("rotation_euler")]
    assert len(euler) == 3 * clip.num_bones
    for fcurve in euler:
        values = fcurve_snapshot([fcurve])[(fcurve.data_path, fcurve.array_index)][1::2]
        assert np.abs(np.diff(values)).max() < 0.5, fcurve.data_path
    hips_z = [fc for fc in euler if '"Hips"' in fc.data_path and fc.array_index == 2][0]
    z = fcurve_snapshot([hips_z])[(hips_z.data_path, 2)][1::2]
    assert z[-1] - z[0] > 2.5 * np.pi  # the turn accumulates instead of wrapping


def test_sparse_curves_are_sampled_and_unanimated_channels_stay_unanimated(ext, blank):
    obj, clip = _walker(ext, blank, num_frames=40)
    obj.animation_data.action = None
    bpy.context.scene.frame_set(1)
    pose_bone = obj.pose.bones["UpperLeg.L"]
    for frame, angle in ((1, 0.0), (11, 0.7), (31, -0.4)):
        pose_bone.rotation_quaternion = (np.cos(angle / 2), np.sin(angle / 2), 0.0, 0.0)
        pose_bone.keyframe_insert("rotation_quaternion", frame=frame)
    obj["stride"] = 1.0
    obj.keyframe_insert('["stride"]', frame=1)
    obj["stride"] = 3.0
    obj.keyframe_insert('["stride"]', frame=31)
    source = obj.animation_data.action
    read = ext.bridge.clip_io.read_clip(obj, 5, 25)
    expected = evaluated_pose(obj, range(5, 26))
    assert read.animated_rotation.sum() == 1 and not read.animated_location.any()
    written = ext.bridge.clip_io.write_clip(obj, read, "sparse", source_action=source)
    curves = ext.bridge.action_api.fcurves_of(written, obj)
    paths = {(fc.data_path, fc.array_index) for fc in curves}
    assert paths == {('pose.bones["UpperLeg.L"].rotation_quaternion', i) for i in range(4)} | {('["stride"]', 0)}
    position, angle = pose_errors(evaluated_pose(obj, range(5, 26)), expected)
    assert position < 1e-5 and angle < 1e-4
    stride = [fc for fc in curves if fc.data_path == '["stride"]'][0]
    keys = fcurve_snapshot([stride])[('["stride"]', 0)].reshape(-1, 2)
    assert keys[0, 0] == 5 and keys[-1, 0] == 25  # trimmed to the range
    original = [fc for fc in ext.bridge.action_api.fcurves_of(source, obj) if fc.data_path == '["stride"]'][0]
    assert abs(keys[0, 1] - original.evaluate(5)) < 1e-6


def test_sub_ranges_and_modified_curves_read_what_blender_plays(ext, blank):
    obj, clip = _walker(ext, blank)
    whole = ext.bridge.clip_io.read_clip(obj)
    part = ext.bridge.clip_io.read_clip(obj, 3, 30)
    assert np.array_equal(part.frames, whole.frames[2:30])
    assert np.allclose(part.location, whole.location[2:30]) and np.allclose(part.rotation, whole.rotation[2:30])
    # A curve with a live modifier is not what its keys say: Blender evaluates it.
    curve = [fc for fc in ext.bridge.action_api.fcurves_of(obj.animation_data.action, obj)
             if fc.data_path == 'pose.bones["Hips"].location' and fc.array_index == 2][0]
    noise = curve.modifiers.new("NOISE")
    noise.strength = 0.2
    moved = ext.bridge.clip_io.read_clip(obj, 3, 30)
    hips = clip.bone_names.index("Hips")
    expected = [curve.evaluate(frame) for frame in range(3, 31)]
    assert np.allclose(moved.location[:, hips, 2], expected, atol=1e-6)
    assert np.abs(moved.location[:, hips, 2] - part.location[:, hips, 2]).max() > 1e-3


def test_source_action_is_never_modified(ext, blank):
    obj, _ = _walker(ext, blank)
    source = obj.animation_data.action
    before = fcurve_snapshot(ext.bridge.action_api.fcurves_of(source, obj))
    clip = ext.bridge.clip_io.read_clip(obj, 3, 30)
    ext.bridge.clip_io.write_clip(obj, clip, "trimmed", source_action=source, frame_range=True, cyclic=True)
    after = fcurve_snapshot(ext.bridge.action_api.fcurves_of(source, obj))
    assert before.keys() == after.keys() and all(np.array_equal(before[k], after[k]) for k in before)
    written = obj.animation_data.action
    assert written.use_frame_range and written.use_cyclic and tuple(written.frame_range) == (3.0, 30.0)


def test_new_action_gets_a_slot_on_slotted_versions(ext, blank):
    obj, _ = _walker(ext, blank)
    if ext.bridge.action_api.HAS_SLOTS:
        assert obj.animation_data.action_slot is not None
        assert obj.animation_data.action_slot in obj.animation_data.action.slots[:]


def test_bad_input_gets_domain_errors(ext, blank):
    ClipError = ext.core.errors.ClipError
    read = ext.bridge.clip_io.read_clip
    mesh = bpy.data.objects.new("Mesh", bpy.data.meshes.new("Mesh"))
    with pytest.raises(ClipError, match="not an armature"):
        read(mesh)
    with pytest.raises(ClipError, match="no active object"):
        read(None)
    obj, _ = _walker(ext, blank)
    with pytest.raises(ClipError, match="fewer than two frames"):
        read(obj, 5, 5)
    with pytest.raises(ClipError, match="outside the keys"):
        read(obj, 30, 90)
    action = obj.animation_data.action
    curve = ext.bridge.action_api.fcurves_of(action, obj)[0]
    curve.keyframe_points[4].co.y = float("nan")
    frame = curve.keyframe_points[4].co.x
    with pytest.raises(ClipError, match=rf"{curve.data_path[:10]}.*NaN or infinite value at frame {frame:g}"):
        read(obj)
    obj.animation_data.action = None
    with pytest.raises(ClipError, match="has no action"):
        read(obj)
