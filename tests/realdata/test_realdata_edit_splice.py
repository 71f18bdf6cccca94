"""Splice on real Bandai clips: a wave, a run and a punch on a walk.

The walk's feet and root stay the walk's, the arms follow the upper clip, and
the spine join is no more visible than the walk's own torso (or the upper
clip's, for an upper body that moves harder than a walker's). Run with -s
for the numbers.
"""

import numpy as np
import pytest

from helpers import extension_module, imported_clip

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

WALK = "bandai/dataset-1_walk_normal_001.bvh"
UPPERS = {
    "wave": ("bandai/dataset-2_wave-right-hand_normal_021.bvh", "AUTO"),
    "run": ("bandai/dataset-1_run_happy_001.bvh", "WARP"),
    "punch": ("bandai-actions/dataset-1_punch_normal_001.bvh", "AUTO"),
}
TORSO = ("Spine", "Chest", "Neck", "Head", "Shoulder_L", "Shoulder_R")


def _contact_agreement(contacts, walk_positions, upper_positions, times, toes, dt):
    """Fraction of (frame, toe) where the walk and the upper clip at the matched times agree on which foot is planted."""
    walk = contacts.detect_contacts(walk_positions[:, toes], dt)
    upper = contacts.detect_contacts(upper_positions[:, toes], dt)
    return float((walk == upper[np.round(times).astype(int)]).mean())


@pytest.mark.parametrize("name", UPPERS)
def test_splice_keeps_the_walk_follows_the_upper_body_and_hides_the_join(loopsmith, blank, mocap_dir, name):
    splice, measure = extension_module(loopsmith, "core.edit.splice"), extension_module(loopsmith, "core.measure.edit")
    contacts, align = extension_module(loopsmith, "core.motion.contacts"), extension_module(loopsmith, "core.transition.align")
    path, timing = UPPERS[name]
    walk, upper = imported_clip(loopsmith, mocap_dir.parent / WALK), imported_clip(loopsmith, mocap_dir.parent / path)
    result = splice.splice(walk, upper, timing=timing)
    numbers, clip = result.numbers, result.clip
    print(f"\n{name:6s} {result.summary()}")

    # The walk's root, pelvis and legs, channel for channel.
    names = walk.bone_names
    upper_body = [names.index(bone) for bone in names if bone not in ("joint_Root", "Hips") and "Leg" not in bone
                  and "Foot" not in bone and "Toes" not in bone]
    lower_body = np.setdiff1d(np.arange(walk.num_bones), upper_body)
    for channel in ("location", "rotation", "scale"):
        assert np.array_equal(getattr(clip, channel)[:, lower_body], getattr(walk, channel)[:, lower_body])
    assert numbers["skating"] <= 1.5 * numbers["lower_skating"]

    # The arms follow: hands relative to the chest, in the character frame, within 3 cm RMS of the upper clip's.
    assert numbers["upper_follow"] < 0.03, result.summary()

    # No visible join: the torso joints no sharper than the walk's own, or than the upper clip's own on the walk's scale.
    torso = [names.index(bone) for bone in TORSO]
    walk_positions = measure.joint_positions(walk)
    reference = measure.acceleration_reference(walk_positions, dt=walk.dt)
    upper_own = measure.worst_frame(measure.joint_positions(align.on_skeleton(upper, walk)), walk.dt, reference, torso)
    assert numbers["join_visibility"] <= max(numbers["lower_join_visibility"], upper_own) * (1 + 1e-9), result.summary()
    if name == "wave":
        assert numbers["join_visibility"] <= numbers["lower_join_visibility"], result.summary()
        # Frame for frame (a standing wave is not warped), and the right hand rises above the shoulder when the wave's does.
        assert result.notes[0] == "timing NONE"
        positions, wave = measure.joint_positions(clip), measure.joint_positions(upper)[:walk.num_frames]
        hand, shoulder = names.index("Hand_R"), names.index("Shoulder_R")
        raised, waved = positions[:, hand, 2] > positions[:, shoulder, 2], wave[:, hand, 2] > wave[:, shoulder, 2]
        assert waved.mean() > 0.2 and (raised == waved).mean() > 0.95
    if name == "run":
        # The warp lines the run's steps up with the walk's: the same foot down at the same moment far more often.
        assert result.notes[0].startswith("timing WARP") and 0.5 < numbers["time_rate"] < 0.9
        pelvis, _, mask = splice.split(walk)
        on_walk = align.on_skeleton(upper, walk)
        toes = contacts.toe_joints(names)
        upper_positions = measure.joint_positions(on_walk)
        agreement = {}
        for timing in ("NONE", "WARP"):
            _, times, _, _ = splice.match_timing(walk, on_walk, pelvis, mask, timing)
            agreement[timing] = _contact_agreement(contacts, walk_positions, upper_positions, times, toes, walk.dt)
        print(f"{'':6s} contact agreement {agreement}")
        assert agreement["WARP"] >= agreement["NONE"] + 0.15
