"""Resample, retime and freeze on every real walk and run: the required criteria, measured on the clips as Blender reads them."""

import numpy as np
import pytest

from helpers import GAIT_CLIPS, extension_module, import_bvh

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")


def _clip(loopsmith, path):
    bpy.ops.wm.read_homefile(use_empty=True)
    return loopsmith.bridge.clip_io.read_clip(import_bvh(path))


def _root_speed(loopsmith, clip):
    """Mean horizontal speed of the travelling root, per second."""
    root = loopsmith.core.motion.root.find_moving_root(clip)
    position = loopsmith.core.motion.root.root_frames(clip, root)[0][:, :2, 3]
    return np.linalg.norm(np.diff(position, axis=0), axis=-1).mean() * clip.fps


@pytest.mark.parametrize("name", GAIT_CLIPS)
def test_half_speed_doubles_the_length_halves_the_root_speed_and_the_skating(loopsmith, blank, mocap_dir, name):
    timing = extension_module(loopsmith, "core.edit.timing")
    clip = _clip(loopsmith, mocap_dir / name)
    slow = timing.retime(clip, speed=0.5)
    assert slow.clip.num_frames == 2 * clip.num_frames - 1 and slow.clip.duration == pytest.approx(2 * clip.duration)
    assert _root_speed(loopsmith, slow.clip) == pytest.approx(0.5 * _root_speed(loopsmith, clip), rel=0.01)
    # The feet slide no more than the clip's own sliding, played at half speed.
    print(f"\n{name}: toe skating {slow.numbers['skating']:.4f} m/s, the clip's own {slow.numbers['source_skating']:.4f} m/s")
    assert slow.numbers["source_skating"] > 0.01  # real feet slide a little: the measure sees them
    assert slow.numbers["skating"] <= 0.5 * slow.numbers["source_skating"] * 1.15


@pytest.mark.parametrize("name", GAIT_CLIPS)
def test_resampling_up_and_down_keeps_every_frame_and_the_travel(loopsmith, blank, mocap_dir, name):
    timing, kinematics = extension_module(loopsmith, "core.edit.timing"), loopsmith.core.motion.kinematics
    clip = _clip(loopsmith, mocap_dir / name)
    back = timing.resample(timing.resample(clip, 60.0).clip, clip.fps).clip
    assert back.num_frames == clip.num_frames
    error = np.abs(kinematics.clip_joint_positions(back) - kinematics.clip_joint_positions(clip)).max()
    assert error < 1e-3  # metres; the required bound (a file's 30.00003 fps puts 60 fps frames a millionth of a frame off)
    for fps in (24.0, 30000 / 1001, 120.0):
        made = timing.resample(clip, fps)
        assert made.clip.fps == fps and made.numbers["dropped_seconds"] < 1.0 / fps
        assert np.isfinite(made.clip.rotation).all() and np.allclose(np.linalg.norm(made.clip.rotation, axis=-1), 1.0)


def test_frozen_shoulders_are_constant_and_ease_in_and_out_smoothly(loopsmith, blank, mocap_dir):
    freeze, quat = extension_module(loopsmith, "core.edit.freeze"), loopsmith.core.motion.quat
    clip = _clip(loopsmith, mocap_dir / "dataset-1_walk_normal_001.bvh")
    first = int(clip.frames[0])
    made = freeze.freeze(clip, ["Shoulder_L", "Shoulder_R", "UpperArm_L", "UpperArm_R"], frame=first + 60, frames=(first + 50, first + 120),
                         blend=0.5)
    bones = [clip.bone_index(name) for name in ("Shoulder_L", "Shoulder_R", "UpperArm_L", "UpperArm_R")]
    inside = made.clip.rotation[50:121, bones]
    angle = 2 * np.arccos(np.clip(np.abs(quat.dot(inside, clip.rotation[60, bones])), 0.0, 1.0))
    assert angle.max() < 1e-6
    print(f"\nfrozen arms: worst frame {made.numbers['worst_frame']:.2f} (the walk's own {made.numbers['source_worst_frame']:.2f})")
    assert made.numbers["worst_frame"] <= 1.5 * made.numbers["source_worst_frame"]  # the ease is no sharper than the arms' own swing
