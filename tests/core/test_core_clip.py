"""Clip container, forward kinematics, the demo clip, and the core's purity."""

import ast
import pathlib
import sys

import numpy as np
import pytest

from core import demo
from core.motion import kinematics, quat
from core.errors import ClipError

CORE = pathlib.Path(__file__).resolve().parents[2] / "core"


def test_core_imports_only_numpy_and_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"numpy"}
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_forward_kinematics_of_a_two_bone_chain():
    rest = np.tile(np.eye(4), (2, 1, 1))
    rest[1, :3, 3] = [0.0, 1.0, 0.0]  # child head one unit up the parent's Y
    location = np.zeros((1, 2, 3))
    location[0, 0] = [5.0, 0.0, 0.0]
    rotation = quat.identity((1, 2))
    rotation[0, 0] = quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), np.pi / 2)
    pose = kinematics.forward_kinematics(np.array([-1, 0]), rest, location, rotation, np.ones((1, 2, 3)))
    assert np.allclose(pose[0, 1, :3, 3], [4.0, 0.0, 0.0])  # rotated +90 about Z: +Y becomes -X


def test_rest_relative_is_worked_out_once_and_never_handed_out_to_be_changed():
    clip = demo.walk_cycle().clip
    first = kinematics.rest_relative(clip.parents, clip.rest)
    expected = first.copy()
    first[:] = 0.0  # a caller writing into its copy
    again = kinematics.rest_relative(clip.parents, clip.rest)
    assert np.array_equal(again, expected) and again is not first
    parent = clip.parents[1]
    assert np.allclose(clip.rest[parent] @ expected[1], clip.rest[1])  # relative to its parent's rest


def test_demo_clip_is_a_deterministic_humanoid_walk():
    first, again = demo.walk_cycle(), demo.walk_cycle()
    clip = first.clip
    assert clip.num_bones >= 20 and np.array_equal(clip.rotation, again.clip.rotation)
    assert first.period_frames % 1 != 0
    assert 3.0 < clip.num_frames / first.period_frames < 3.6
    assert np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0)
    positions = kinematics.clip_joint_positions(clip)
    root = clip.bone_index(first.root_bone)
    travel = positions[-1, root, :2] - positions[0, root, :2]
    assert np.linalg.norm(travel) > 3.0  # it walks, along -Y
    assert travel[1] < 0.0


def test_demo_feet_repeat_at_the_true_period():
    generated = demo.walk_cycle(num_frames=400)
    positions = kinematics.clip_joint_positions(generated.clip)
    height = positions[:, generated.clip.bone_index("Foot.L"), 2]
    height = height - height.mean()
    lags = np.arange(20, 60)
    correlation = [np.dot(height[:-lag], height[lag:]) / (len(height) - lag) for lag in lags]
    assert abs(lags[int(np.argmax(correlation))] - generated.period_frames) <= 1.0


def test_demo_speed_drifts_slowly():
    generated = demo.walk_cycle(num_frames=300)
    positions = kinematics.clip_joint_positions(generated.clip)[:, 0, 1]
    period = int(round(generated.period_frames))
    early = positions[0] - positions[period]
    late = positions[-1 - period] - positions[-1]
    assert 1.03 < late / early < 1.12


def test_validate_rejects_nan_and_bad_shapes():
    clip = demo.walk_cycle().clip
    broken = clip.location.copy()
    broken[3, 2, 1] = np.nan
    with pytest.raises(ClipError, match="NaN"):
        clip.with_channels(location=broken).validate()
    with pytest.raises(ClipError, match="shape"):
        clip.with_channels(rotation=clip.rotation[:, :3]).validate()


def test_slice_frames_keeps_bones_and_cuts_frames():
    clip = demo.walk_cycle().clip
    part = clip.slice_frames(10, 20)
    assert part.num_frames == 10 and part.frames[0] == clip.frames[10]
    assert part.bone_names == clip.bone_names


def test_affine_inverse_matches_lapack_on_scaled_rotated_transforms():
    """Forward kinematics inverts rest and root matrices with cofactors, not LAPACK (whose threads cost 6x under load in Blender)."""
    rng = np.random.default_rng(3)
    m = np.zeros((5, 21, 4, 4))
    m[..., :3, :3] = quat.to_matrix(quat.normalize(rng.normal(size=(5, 21, 4)))) * rng.uniform(0.5, 2.0, (5, 21, 1, 3))
    m[..., :3, 3] = rng.normal(size=(5, 21, 3))
    m[..., 3, 3] = 1.0
    assert np.abs(kinematics.affine_inverse(m) - np.linalg.inv(m)).max() < 1e-12
    assert np.abs(kinematics.affine_inverse(m) @ m - np.eye(4)).max() < 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lengths_are_numpys_norm_bit_for_bit(dtype):
    rng = np.random.default_rng(3)
    for width in range(1, 8):
        for scale in (1e-6, 1.0, 1e5):
            vectors = (rng.normal(size=(500, 7, width)) * scale).astype(dtype)
            for shaped in (vectors, vectors[::3, 1:5], np.swapaxes(vectors, 0, 1)):  # strided and transposed views too
                found = kinematics.lengths(shaped)
                assert found.dtype == dtype and np.array_equal(found, np.linalg.norm(shaped, axis=-1))
    unchanged = vectors.copy()
    kinematics.lengths(vectors)
    assert np.array_equal(vectors, unchanged)  # the caller's vectors are never written
