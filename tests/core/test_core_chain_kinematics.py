"""Forward kinematics of one chain (root frames, foot lock): the same poses as the whole skeleton's, from its chain's channels only."""

import numpy as np

from core import demo
from core.motion import kinematics, root


def _shuffled_clip():
    """The demo walker with every bone's channels perturbed, so each bone's pose depends on all of its own channels."""
    clip = demo.walk_cycle().clip
    rng = np.random.default_rng(4)
    shape = clip.location.shape
    return clip.with_channels(location=clip.location + rng.normal(0, 0.05, shape),
                              scale=clip.scale * rng.uniform(0.9, 1.1, shape))


def test_chain_forward_kinematics_equals_the_whole_skeletons():
    clip = _shuffled_clip()
    whole = kinematics.clip_forward_kinematics(clip)
    toe, hand = clip.bone_index("Toe.L"), clip.bone_index("Hand.R")
    pose, chain = root.chain_forward_kinematics(clip, (toe, hand))
    assert [clip.bone_names[b] for b in chain] == ["Hips", "Spine", "Spine2", "Chest", "Shoulder.R", "UpperArm.R", "LowerArm.R",
                                                   "Hand.R", "UpperLeg.L", "LowerLeg.L", "Foot.L", "Toe.L"]
    assert np.abs(pose - whole[:, chain]).max() < 1e-12


def test_root_frames_of_a_bone_with_a_parent():
    clip = _shuffled_clip()
    whole = kinematics.clip_forward_kinematics(clip)
    bone = clip.bone_index("LowerLeg.R")
    parent = clip.parents[bone]
    pose, space = root.root_frames(clip, bone)
    relative = kinematics.rest_relative(clip.parents, clip.rest)[bone]
    assert np.abs(pose - whole[:, bone]).max() < 1e-12
    assert np.abs(space - whole[:, parent] @ relative).max() < 1e-12
    # The channels act in that space: the space times the local basis is the pose.
    assert np.abs(space[:, :3, 3] + np.einsum("fij,fj->fi", space[:, :3, :3], clip.location[:, bone]) - pose[:, :3, 3]).max() < 1e-12

