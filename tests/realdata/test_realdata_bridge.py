"""Exactness of the bridge on every real clip, imported both ways."""

import hashlib

import numpy as np
import pytest

from helpers import BANDAI_CLIPS, evaluated_pose, fcurve_snapshot, import_bvh, pose_errors

pytestmark = [pytest.mark.blender, pytest.mark.every_blender]  # the action API and Blender's importer
bpy = pytest.importorskip("bpy")


def test_real_clips_are_intact(mocap_dir):
    sums = {}
    for line in (mocap_dir / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        sums[name.lstrip("*")] = digest
    for name in BANDAI_CLIPS:
        assert hashlib.sha256((mocap_dir / name).read_bytes()).hexdigest() == sums[name], name


@pytest.mark.parametrize("rotate_mode", ["NATIVE", "QUATERNION"])
@pytest.mark.parametrize("name", BANDAI_CLIPS)
def test_round_trip_reproduces_the_evaluated_pose(loopsmith, blank, mocap_dir, name, rotate_mode):
    obj = import_bvh(mocap_dir / name, rotate_mode)
    source = obj.animation_data.action
    before_keys = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(source, obj))
    clip = loopsmith.bridge.clip_io.read_clip(obj)
    assert clip.fps == pytest.approx(30.0, abs=1e-3)
    assert np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0)
    assert (loopsmith.core.motion.quat.dot(clip.rotation[1:], clip.rotation[:-1]) >= 0).all()  # sign-continuous
    before = evaluated_pose(obj, clip.frames)
    written = loopsmith.bridge.clip_io.write_clip(obj, clip, f"{source.name}_copy", source_action=source)
    assert obj.animation_data.action == written != source
    position, angle = pose_errors(evaluated_pose(obj, clip.frames), before)
    assert position <= 1e-5 and angle <= 1e-4, (position, angle)
    after_keys = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(source, obj))
    assert all(np.array_equal(before_keys[k], after_keys[k]) for k in before_keys)
