"""A BVH skeleton's unit and up axis come from its body (legs, spine, head), not from how the take moves it."""

import re

import numpy as np
import pytest

from bvh_bodies import BIPED, BIPED_ENDS, CM, CROUCH, DM, DOG, DOG_ENDS, INCH, OTHER_ENDS, OTHER_RIG, SIX, body_info, walk
from core.formats import bvh, bvh_clip
from core.measure import grounding
from core.motion import kinematics
from core.transition import align, make
from helpers import bvh_z_up


def test_a_crouching_take_in_inches_is_an_adult_in_inches():
    # Feet to head, the crouch stands 0.99 m: inches made it 1.0 m, CMU units (1/0.45 in) 2.2 m, and CMU units won.
    crouched = body_info(BIPED, BIPED_ENDS, INCH, CROUCH, root_positions=np.tile([0, 0.45, 0], (4, 1)))
    choice = bvh.guess_scale(crouched)
    assert bvh.up_axis(crouched) == "Y" and choice.unit == "inches", choice.reason
    stature = float(re.search(r"stands (\d\.\d\d) m tall", choice.reason).group(1))
    assert 1.6 <= stature <= 1.9 and choice.reason.startswith("the skeleton stands"), choice.reason


def test_a_root_that_is_not_the_pelvis_does_not_change_the_unit():
    # A reference root a metre under the floor, the pelvis its child: the extent from it made no unit fit (2.7 m in cm).
    joints = [("Reference", None, (0, -1.0, 0))] + [(name, parent or "Reference", (0, 1.95, 0) if parent is None else offset)
                                                    for name, parent, offset in BIPED]
    info = body_info(joints, BIPED_ENDS, CM)
    choice = bvh.guess_scale(info)
    assert choice.unit == "centimetres" and choice.scale == 0.01, choice.reason


def test_a_lean_forward_run_is_y_up():
    # Bent over, the head far ahead of the feet ((0, 69, 35) cm above them): the head over the feet found no clear axis.
    lean = {"Spine": (0, 100, 0), "Chest": (0, 30, 0), "LeftUpLeg": (0, -30, 0), "RightUpLeg": (0, 20, 0)}
    info = body_info(BIPED, BIPED_ENDS, CM, lean)
    assert bvh.up_axis(info) == "Y" and bvh.guess_scale(info).unit == "centimetres"


@pytest.mark.parametrize("per_metre, unit", [(CM, "centimetres"), (INCH, "inches")])
def test_a_quadruped_gets_its_up_axis_from_its_legs_and_its_unit_from_their_length(per_metre, unit):
    dog = body_info(DOG, DOG_ENDS, per_metre)
    assert bvh.up_axis(dog) == "Y"
    choice = bvh.guess_scale(dog)
    assert choice.unit == unit and re.search(r"its legs are 0\.5\d m long", choice.reason) and "an animal" in choice.reason, choice.reason
    lying = bvh.parse_bvh(bvh.change_axes(bvh.to_text(dog), np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])))  # Z up
    assert bvh.up_axis(lying) == "Z" and bvh.guess_scale(lying).unit == unit


def test_a_biped_plausible_in_two_units_takes_the_nearer_to_a_typical_height_and_says_so():
    info = body_info(BIPED, BIPED_ENDS, DM)  # 1.76 m in decimetres, 0.99 m in CMU units
    choice = bvh.guess_scale(info)
    assert choice.unit == "decimetres", choice.reason
    assert re.search(r"CMU units would make it 0\.\d\d m, further from a typical 1\.7 m", choice.reason), choice.reason


def test_a_one_joint_file_reads_in_metres():
    text = "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 " + " ".join(SIX) + "\n}\nMOTION\nFrames: 2\nFrame Time: 0.04\n" \
           "0 0.9 0 0 0 0\n0.1 0.9 0 0 0 5\n"
    one = bvh.parse_bvh(text)
    assert bvh.up_axis(one) == "Y"
    choice = bvh.guess_scale(one)
    assert choice.scale == 1.0 and choice.unit == "metres" and "one joint" in choice.reason


def test_the_stature_does_not_depend_on_the_pose():
    standing, crouched = body_info(BIPED, BIPED_ENDS, CM), body_info(BIPED, BIPED_ENDS, CM, CROUCH)
    assert bvh.standing_height(standing) == bvh.standing_height(crouched)
    assert 170.0 <= bvh.standing_height(standing) <= 182.0  # the skeleton reaches 178 cm (feet to the head's End Site)


def test_a_transition_to_another_rig_keeps_the_feet_on_the_floor():
    # A game rig walks into a CMU-style take of a taller subject (hip joints between, legs 20 degrees apart): the pelvis
    # at the taker's 1.11 m lifted the shorter legs 16 cm off the floor.
    game, cmu = (body_info(joints, ends, CM, *walk(90, 30, height), frames=90)
                 for joints, ends, height in ((BIPED, BIPED_ENDS, 0.95), (OTHER_RIG, OTHER_ENDS, 1.11)))
    clips = [bvh_clip.clip_from_bvh(info, 0.01, "Y") for info in (game, cmu)]
    assert abs(grounding.floor_height(clips[0])) < 0.02 and abs(grounding.floor_height(clips[1])) < 0.02
    made = make.make_transition(*clips, at=(40, 30), method="INERTIALIZE", length=0.3)
    assert made.metrics.floor_offset < 0.03 and made.metrics.grounded, made.metrics.summary()


def test_another_rig_whose_bones_rest_turned_otherwise_keeps_its_legs_under_it():
    # The CMU-style rig stood up along Z by its root only: every bone rests turned 90 degrees from the game rig's, and
    # its hip joints sit between pelvis and thighs. Its thighs' frames, read against the wrong parent, pointed the legs up.
    game = body_info(BIPED, BIPED_ENDS, CM, *walk(30, 30, 0.95), frames=30)
    cmu = bvh.parse_bvh(bvh.to_text(bvh_z_up(body_info(OTHER_RIG, OTHER_ENDS, CM, *walk(30, 30, 1.11), frames=30))))
    a, b = bvh_clip.clip_from_bvh(game, 0.01, "Y"), bvh_clip.clip_from_bvh(cmu, 0.01, "Z")
    moved = kinematics.clip_joint_positions(align.on_skeleton(b, a))
    own = kinematics.clip_joint_positions(b)
    for name in ("LeftFoot", "RightFoot", "Head", "LeftHand"):
        step = own[:, b.bone_index(name)] - own[:, b.bone_index("Hips")]
        assert np.abs(moved[:, a.bone_index(name)] - moved[:, a.bone_index("Hips")] - step).max() < 0.25, name  # 20-degree splay
    assert abs(grounding.floor_height(align.on_skeleton(b, a)) - grounding.floor_height(b)) < 0.01


def test_an_animal_that_names_no_foot_stands_on_its_legs():
    # Legs named by segment only (Leg_Rear_L_01...): the skeleton's largest extent, its length along Z, made it Z up.
    names = {"LeftThigh": "Leg_Rear_L_01", "LeftShin": "Leg_Rear_L_02", "LeftHindFoot": "Leg_Rear_L_03",
             "RightThigh": "Leg_Rear_R_01", "RightShin": "Leg_Rear_R_02", "RightHindFoot": "Leg_Rear_R_03",
             "LeftUpperArm": "Leg_Front_L_01", "LeftForearm": "Leg_Front_L_02", "LeftPaw": "Leg_Front_L_03",
             "RightUpperArm": "Leg_Front_R_01", "RightForearm": "Leg_Front_R_02", "RightPaw": "Leg_Front_R_03"}
    joints = [(names.get(name, name), names.get(parent, parent) if parent else None, offset) for name, parent, offset in DOG]
    dog = body_info(joints, {names.get(name, name): end for name, end in DOG_ENDS.items()}, CM)
    assert bvh.up_axis(dog) == "Y" and bvh.guess_scale(dog).unit == "centimetres"
