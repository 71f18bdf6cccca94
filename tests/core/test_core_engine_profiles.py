"""Engine profiles' names and the exact-loop test WRAP relies on, numpy only."""

import numpy as np
import pytest

from core import demo
from core.engine import profiles
from core.engine.root_bone import extract_root_motion
from core.loop.make import make_loop, non_repeating_bones


@pytest.mark.parametrize("name, looping, expected", [
    ("walk", True, "walk_loop"),
    ("walk_loop", True, "walk_loop"),
    ("Loop_walk", True, "Loop_walk"),
    ("walk_Cycle", True, "walk_Cycle"),
    ("walk_to_run", False, "walk_to_run"),
    ("walk_loop_root", True, "walk_loop_root_loop"),  # Godot looks at the ends of the name only
])
def test_godot_names_a_loop_so_its_importer_loops_it(name, looping, expected):
    assert profiles.animation_name(profiles.PROFILES["godot"], name, looping) == expected
    assert profiles.animation_name(profiles.PROFILES["gltf"], name, looping) == name


def test_profiles_say_what_they_write():
    assert {name: profile.suffix for name, profile in profiles.PROFILES.items()} == {
        "unreal": ".fbx", "unity": ".fbx", "godot": ".glb", "gltf": ".glb"}
    assert profiles.PROFILES["unreal"].centimetres and profiles.PROFILES["unreal"].armature_node == "Armature"
    assert all(profile.root_name == "root" and profile.shows for profile in profiles.PROFILES.values())


def test_only_an_exact_loop_repeats_every_bone():
    walk = demo.walk_cycle().clip
    looped = make_loop(walk, 10, 10 + 64).clip  # the hips travel
    assert non_repeating_bones(looped) == ["Hips"]
    in_place = extract_root_motion(looped, cyclic=True, in_place=True).clip
    assert non_repeating_bones(in_place) == []
    travelling = extract_root_motion(looped, cyclic=True).clip
    assert non_repeating_bones(travelling) == ["root"]
    # A turn of a tenth of a milliradian or a tenth of a millimetre still counts as repeating; more does not.
    nudged = in_place.with_channels(location=in_place.location.copy())
    nudged.location[-1, 3, 0] += 0.5e-4
    assert non_repeating_bones(nudged) == []
    nudged.location[-1, 3, 0] += 1e-4
    assert non_repeating_bones(nudged) == [in_place.bone_names[3]]
    assert not np.isnan(in_place.location).any()
