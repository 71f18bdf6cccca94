"""Mirror, numpy only: bone pairs from names, the exact mirror image on symmetric and folded rests, mirror twice, errors."""

import numpy as np
import pytest

from core import demo
from core.motion import kinematics, quat
from core.motion.clip import Clip
from core.edit import mirror
from core.errors import EditError

S = np.diag([-1.0, 1.0, 1.0])  # across the armature's X = 0 plane

# name, parent, head (metres, Z up); the right side is the left one mirrored.
_LEFT_AND_CENTRE = (
    ("Hips", None, (0.0, 0.0, 1.0)),
    ("Spine", "Hips", (0.0, 0.02, 1.2)),
    ("Chest", "Spine", (0.0, 0.0, 1.4)),
    ("Head", "Chest", (0.0, -0.03, 1.6)),
    ("Shoulder.L", "Chest", (0.05, 0.0, 1.45)),
    ("Arm.L", "Shoulder.L", (0.2, 0.01, 1.45)),
    ("Hand.L", "Arm.L", (0.5, 0.03, 1.3)),
    ("Thigh.L", "Hips", (0.1, 0.0, 0.95)),
    ("Shin.L", "Thigh.L", (0.11, -0.02, 0.5)),
    ("Foot.L", "Shin.L", (0.1, 0.03, 0.08)),
)
_LEAVES = ("Head", "Hand.L", "Foot.L")


def _random_rotation(rng):
    return quat.to_matrix(quat.from_rotation_vector(rng.uniform(-np.pi, np.pi, 3)))


def _symmetric_rig(seed=1):
    """Names, parents and rest matrices of a left/right symmetric biped whose rest frames are tilted every which way.

    Centre bones keep their Y axis (the tail) on the mirror plane; a right
    bone's frame is the left one's mirror times any reflection that keeps
    the tail (leaves) or times any reflection at all (bones with children,
    whose children's offsets fix the correspondence).
    """
    rng = np.random.default_rng(seed)
    rows = list(_LEFT_AND_CENTRE) + [(n.replace(".L", ".R"), p and p.replace(".L", ".R"), S @ h) for n, p, h in _LEFT_AND_CENTRE if ".L" in n]
    names = tuple(name for name, *_ in rows)
    parents = np.array([names.index(parent) if parent else -1 for _, parent, _ in rows])
    rest = np.tile(np.eye(4), (len(names), 1, 1))
    for index, (name, _, head) in enumerate(rows):
        rest[index, :3, 3] = head
        if ".R" in name:
            left = names.index(name.replace(".R", ".L"))
            tail_kept = name.replace(".R", ".L") in _LEAVES
            spin = quat.to_matrix(quat.from_axis_angle([0.0, 1.0, 0.0], rng.uniform(-np.pi, np.pi))) if tail_kept else _random_rotation(rng)
            rest[index, :3, :3] = S @ rest[left, :3, :3] @ spin @ S
        elif ".L" in name:
            rest[index, :3, :3] = _random_rotation(rng)
        else:
            angle, roll = rng.uniform(-np.pi, np.pi, 2)
            y = np.array([0.0, np.cos(angle), np.sin(angle)])
            x = np.cos(roll) * np.array([1.0, 0.0, 0.0]) + np.sin(roll) * np.cross(y, [1.0, 0.0, 0.0])
            rest[index, :3, :3] = np.stack([x, y, np.cross(x, y)], axis=1)
    return names, parents, rest


def _animated(names, parents, rest, frames=40, seed=2):
    """A clip of smooth random rotations on every bone but Head, hips travel, and a moving left shoulder."""
    rng = np.random.default_rng(seed)
    bones = len(names)
    t = np.arange(frames)[:, None, None] / 30.0
    vectors = rng.uniform(-0.8, 0.8, (1, bones, 3)) * np.sin(2.0 * np.pi * rng.uniform(0.5, 1.5, (1, bones, 1)) * t + rng.uniform(0, 6, (1, bones, 3)))
    animated_rotation = np.array([name != "Head" for name in names])
    rotation = np.where(animated_rotation[:, None], quat.from_rotation_vector(vectors), quat.identity((frames, bones)))
    location = np.zeros((frames, bones, 3))
    location[:, 0] = np.stack([0.3 * np.sin(3.0 * t[:, 0, 0]), 1.3 * t[:, 0, 0], 0.05 * np.cos(6.0 * t[:, 0, 0])], axis=-1)
    shoulder = names.index("Shoulder.L")
    location[:, shoulder] = 0.02 * np.sin(4.0 * t[:, 0])
    animated_location = np.zeros((bones, 3), dtype=bool)
    animated_location[[0, shoulder]] = True
    return Clip(fps=30.0, frames=np.arange(1.0, frames + 1), bone_names=names, parents=parents, rest=rest,
                location=location, rotation=quat.unroll(rotation), scale=np.ones((frames, bones, 3)),
                rotation_modes=("QUATERNION",) * bones, animated_location=animated_location,
                animated_rotation=animated_rotation, animated_scale=np.zeros((bones, 3), dtype=bool)).validate()


def _folded(names, parents, rest, seed=3):
    """The rig re-posed at random and that pose taken as its rest, as Bandai's folded rest is: no longer symmetric."""
    rng = np.random.default_rng(seed)
    bend = quat.from_rotation_vector(rng.uniform(-1.5, 1.5, (1, len(names), 3)))
    pose = kinematics.forward_kinematics(parents, rest, np.zeros((1, len(names), 3)), bend, np.ones((1, len(names), 3)))[0]
    return names, parents, pose


def _straight(names, parents, rest):
    """Every bone laid along +X from its parent, left and right alike, frames all the same: a literal all-+X BVH rest."""
    rest = np.tile(np.eye(4), (len(names), 1, 1))
    rest[:, :3, :3] = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]  # Y (the tail) along +X
    depth = np.zeros(len(names))
    for bone, parent in enumerate(parents):
        if parent >= 0:
            depth[bone] = depth[parent] + 1
            rest[bone, :3, 3] = rest[parent, :3, 3] + [0.05 + 0.1 / depth[bone], 0.0, 0.0]
    return names, parents, rest


_RIGS = {"tilted": _symmetric_rig, "folded": lambda: _folded(*_symmetric_rig()), "straight": lambda: _straight(*_symmetric_rig())}


def _partners(clip):
    pairs = mirror.mirror_pairs(clip.bone_names)
    return np.array([clip.bone_names.index(pairs[name]) for name in clip.bone_names])


def _mirror_image_error(clip, mirrored):
    """Largest distance between a mirrored joint and the mirror image of its partner's original."""
    original, image = kinematics.clip_joint_positions(clip), kinematics.clip_joint_positions(mirrored)
    return float(np.linalg.norm(image[:, _partners(clip)] - original @ S, axis=-1).max())


@pytest.mark.parametrize("names, expected", [
    (("Hips", "Arm.L", "Arm.R", "Hand.l", "Hand.r", "Leg.L.001", "Leg.R.001"),
     {"Hips": "Hips", "Arm.L": "Arm.R", "Hand.l": "Hand.r", "Leg.R.001": "Leg.L.001"}),
    (("mixamorig:Hips", "mixamorig:LeftArm", "mixamorig:RightArm", "mixamorig:LeftUpLeg", "mixamorig:RightUpLeg"),
     {"mixamorig:Hips": "mixamorig:Hips", "mixamorig:LeftArm": "mixamorig:RightArm", "mixamorig:RightUpLeg": "mixamorig:LeftUpLeg"}),
    (("pelvis", "upperarm_l", "upperarm_r", "hand_left", "hand_right", "Bright"),
     {"pelvis": "pelvis", "upperarm_l": "upperarm_r", "hand_right": "hand_left", "Bright": "Bright"}),
    (("joint_Root", "Hips", "UpperLeg_L", "UpperLeg_R", "Toes_L", "Toes_R"),
     {"joint_Root": "joint_Root", "Hips": "Hips", "UpperLeg_L": "UpperLeg_R", "Toes_R": "Toes_L"}),
    (("Root", "L_Foot", "R_Foot", "LEFT_EYE", "RIGHT_EYE"), {"Root": "Root", "R_Foot": "L_Foot", "LEFT_EYE": "RIGHT_EYE"}),
    # The leaf bones Blender's FBX exporter adds, and twist bones: the side marker inside the name.
    (("Hips", "Toes_L", "Toes_R", "Toes_L_end", "Toes_R_end", "arm.L.twist", "arm.R.twist"),
     {"Toes_L_end": "Toes_R_end", "arm.R.twist": "arm.L.twist", "Hips": "Hips"}),
])
def test_pairs_are_found_from_the_usual_naming_schemes(names, expected):
    pairs = mirror.mirror_pairs(names)
    assert set(pairs) == set(names)
    assert all(pairs[pairs[name]] == name for name in names)
    for name, partner in expected.items():
        assert pairs[name] == partner


def test_cmus_single_capital_sides_pair_and_a_word_starting_with_l_or_r_stays_in_the_centre():
    names = ("Hips", "LHipJoint", "LeftUpLeg", "RHipJoint", "RightUpLeg", "LowerBack", "Spine", "LeftHand", "LThumb", "RightHand",
             "RThumb", "LFingers", "RFingers", "Root", "RFoot", "Bip01 L Thigh", "Bip01 R Thigh", "l_ankle", "r_ankle")
    pairs = mirror.mirror_pairs(names)
    assert pairs["LHipJoint"] == "RHipJoint" and pairs["RThumb"] == "LThumb" and pairs["LFingers"] == "RFingers"
    assert pairs["Bip01 L Thigh"] == "Bip01 R Thigh" and pairs["r_ankle"] == "l_ankle" and pairs["LeftUpLeg"] == "RightUpLeg"
    for centre in ("LowerBack", "Root", "RFoot", "Spine"):  # no capital after the letter, or no other side: not a side
        assert pairs[centre] == centre


def test_a_cmu_skeleton_mirrors_and_unpaired_parents_are_named_with_the_fix():
    names, parents, rest = _symmetric_rig()
    cmu = {"Thigh.L": "LHipJoint", "Thigh.R": "RHipJoint", "Shin.L": "LeftUpLeg", "Shin.R": "RightUpLeg"}
    clip = _animated(tuple(cmu.get(name, name) for name in names), parents, rest)
    assert _mirror_image_error(clip, mirror.mirror(clip).clip) < 1e-9  # on the old code refused: the hip joints were centre bones
    with pytest.raises(EditError, match=r"hang from 'LHipJoint' and 'RHipJoint', which are not left/right partners \('LHipJoint' mirrors "
                                        r"onto 'LHipJoint'\): name the sides of the bones above them"):
        mirror.mirror(clip, {"LeftUpLeg": "RightUpLeg"})  # the hip joints left as centre bones, as the old code took them


def test_a_side_bone_without_its_partner_and_a_skeleton_without_pairs_are_refused():
    with pytest.raises(EditError, match="bone 'Hand.L' has no partner 'Hand.R' to mirror onto"):
        mirror.mirror_pairs(("Hips", "Arm.L", "Arm.R", "Hand.L"))
    with pytest.raises(EditError, match="no left/right bone pairs"):
        mirror.mirror_pairs(("Hips", "Spine", "Head"))


def test_pairs_that_do_not_match_the_hierarchy_are_refused():
    clip = _animated(*_symmetric_rig())
    with pytest.raises(EditError, match="'Hand.L' and 'Foot.R' are partners but hang from 'Arm.L' and 'Shin.R'"):
        mirror.mirror(clip, {"Hand.L": "Foot.R"})
    with pytest.raises(EditError, match="'Hand.X', which the armature does not have"):
        mirror.mirror(clip, {"Hand.L": "Hand.X"})


@pytest.mark.parametrize("rig", [*_RIGS, "demo walker"])
def test_mirrored_joints_are_the_mirror_image_of_their_partners(rig):
    # The demo walker has Blender's own bone conventions and location on the hips only.
    clip = demo.walk_cycle().clip if rig == "demo walker" else _animated(*_RIGS[rig]())
    result = mirror.mirror(clip)
    error = _mirror_image_error(clip, result.clip)
    print(f"\n{rig}: mirror image error {error:.2e}")
    assert error < 1e-9
    assert result.edit == "mirror" and result.numbers["position_error"] < 1e-9
    assert result.numbers["pairs"] == (6 if rig != "demo walker" else 8)
    assert np.abs(np.linalg.norm(result.clip.rotation, axis=-1) - 1.0).max() < 1e-12
    assert np.all(quat.dot(result.clip.rotation[1:], result.clip.rotation[:-1]) > 0.0)  # sign-continuous
    if rig in ("tilted", "demo walker"):  # a symmetric rest: every bone frame (leaves' twist included) is the mirror image too
        rest = clip.rest[:, :3, :3]
        correspondence = np.swapaxes(rest, 1, 2) @ S @ rest[_partners(clip)]  # W_b^T S W_partner
        expected = S @ kinematics.clip_forward_kinematics(clip)[..., :3, :3] @ correspondence
        assert np.abs(kinematics.clip_forward_kinematics(result.clip)[:, _partners(clip), :3, :3] - expected).max() < 1e-9
    # Not trivially so: the motion did change sides.
    assert np.abs(kinematics.clip_joint_positions(result.clip) - kinematics.clip_joint_positions(clip)).max() > 0.1


@pytest.mark.parametrize("rig", _RIGS)
def test_mirror_twice_gives_back_the_channels_and_joints(rig):
    clip = _animated(*_RIGS[rig]())
    twice = mirror.mirror(mirror.mirror(clip).clip).clip
    for channel in ("location", "rotation", "scale"):
        assert np.abs(getattr(twice, channel) - getattr(clip, channel)).max() < 1e-9, channel
    for mask in ("animated_location", "animated_rotation", "animated_scale"):
        assert np.array_equal(getattr(twice, mask), getattr(clip, mask)), mask
    assert np.abs(kinematics.clip_joint_positions(twice) - kinematics.clip_joint_positions(clip)).max() < 1e-9


def test_a_symmetric_rest_pose_mirrors_onto_itself_channel_for_channel():
    names, parents, rest = _symmetric_rig()
    clip = _animated(names, parents, rest)
    still = clip.with_channels(location=np.zeros_like(clip.location), rotation=quat.identity(clip.rotation.shape[:2]))
    mirrored = mirror.mirror(still).clip
    assert np.abs(mirrored.location).max() < 1e-12
    assert np.abs(mirrored.rotation - quat.identity(clip.rotation.shape[:2])).max() < 1e-12  # +identity, not -identity


def test_animated_masks_move_with_the_motion_and_other_channels_are_kept():
    clip = _animated(*_symmetric_rig())
    left, right, head = (clip.bone_names.index(name) for name in ("Shoulder.L", "Shoulder.R", "Head"))
    mirrored = mirror.mirror(clip).clip
    assert mirrored.animated_location[right].all() and not mirrored.animated_location[left].any()
    assert not mirrored.animated_rotation[head] and mirrored.animated_rotation.sum() == clip.animated_rotation.sum()
    assert np.array_equal(mirrored.location[:, left], clip.location[:, right])  # unanimated: carried over as it was
    assert np.ptp(mirrored.location[:, right], axis=0).max() > 0.03  # the left shoulder's motion, now on the right
    assert mirrored.rotation_modes == clip.rotation_modes


def test_a_rest_that_is_not_symmetric_reports_its_asymmetry_and_still_mirrors_back():
    names, parents, rest = _symmetric_rig()
    rest = rest.copy()
    shin, foot = names.index("Shin.R"), names.index("Foot.R")
    along = rest[foot, :3, 3] - rest[shin, :3, 3]
    rest[foot, :3, 3] += 0.01 * along / np.linalg.norm(along)  # the right shin 1 cm longer than the left
    clip = _animated(names, parents, rest)
    result = mirror.mirror(clip)
    assert abs(result.numbers["position_error"] - 0.01) < 1e-9  # the feet land 1 cm off: the bones keep their lengths
    assert abs(_mirror_image_error(clip, result.clip) - 0.01) < 1e-9
    twice = mirror.mirror(result.clip).clip
    assert np.abs(kinematics.clip_joint_positions(twice) - kinematics.clip_joint_positions(clip)).max() < 1e-9
