"""CMU's own dance takes (ASF/AMC): every joint of 05_01 where the reference BVH conversion puts it, and written back unchanged."""

import numpy as np
import pytest

from core.formats import acclaim, bvh, bvh_clip
from core.motion import kinematics, quat


@pytest.fixture(scope="module")
def skeleton(cmu):
    return acclaim.read_asf(cmu / "05.asf")


def test_05_01_matches_the_reference_bvh_on_every_frame(cmu, skeleton):
    clip = acclaim.clip_from_acclaim(skeleton, acclaim.read_amc(cmu / "05_01.amc", skeleton))
    reference = bvh_clip.clip_from_bvh(bvh.read_bvh(cmu / "reference_05_01.bvh"), 0.0254 / 0.45, "Y")
    assert clip.num_frames == reference.num_frames == 598 and clip.fps == 120.0
    ours = kinematics.clip_joint_positions(clip)
    theirs = kinematics.clip_joint_positions(reference)[:, [reference.bone_index(name) for name in clip.bone_names]]
    error = np.abs(ours - theirs).max()
    print(f"\n05_01: largest joint difference from the reference BVH over 598 frames and 31 joints: {error:.2e} m")
    assert error < 1e-4
    assert 1.4 < ours[0, :, 2].max() - ours[0, :, 2].min() < 2.0  # a standing person, Z up, in metres


@pytest.mark.parametrize("take, frames", [("05_01", 598), ("05_02", 1123), ("05_03", 434)])
def test_every_take_reads_with_numpy_and_writes_back(cmu, skeleton, take, frames, tmp_path, monkeypatch):
    motion = acclaim.read_amc(cmu / f"{take}.amc", skeleton)
    assert motion.frame_count == frames and list(motion.frames[[0, -1]]) == [1, frames] and motion.fully_specified
    clip = acclaim.clip_from_acclaim(skeleton, motion)
    acclaim.write_asf(tmp_path / "05.asf", skeleton)
    acclaim.write_amc(tmp_path / f"{take}.amc", clip, skeleton)
    back = acclaim.read_acclaim(tmp_path / "05.asf", tmp_path / f"{take}.amc")
    position = np.abs(kinematics.clip_joint_positions(back) - kinematics.clip_joint_positions(clip)).max()
    turn = np.abs(quat.to_rotation_vector(quat.multiply(quat.inverse(clip.rotation), back.rotation))).max()
    print(f"\n{take} written and read back: {position:.1e} m, {turn:.1e} rad")
    assert position < 1e-6 and turn < 1e-6
    # The line-by-line reader gives the same numbers as the numpy path.
    monkeypatch.setattr(acclaim.amc._Reader, "_fast", lambda self, chunk: (_ for _ in ()).throw(acclaim.amc._NotFast()))
    slow = acclaim.read_amc(cmu / f"{take}.amc", skeleton)
    assert np.array_equal(slow.values, motion.values)


def test_a_cut_take_names_its_last_line(cmu, skeleton, tmp_path):
    data = (cmu / "05_03.amc").read_bytes()
    cut = tmp_path / "05_03.amc"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(acclaim.AcclaimError) as caught:
        acclaim.read_amc(cut, skeleton)
    assert caught.value.line == data[:len(data) // 2].rstrip().count(b"\n") + 1 and "truncated" in caught.value.reason
