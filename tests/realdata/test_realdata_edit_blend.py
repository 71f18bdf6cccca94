"""Blends of real Bandai clips: two walks at 0.5 stay continuous, skate no more than 1.5x the inputs, and a walk with a bow is refused under CONTACTS.

Run with -s for the table of numbers.
"""

import importlib
import time

import numpy as np
import pytest

from helpers import imported_clip

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

WALK = "bandai/dataset-1_walk_normal_001.bvh"
HAPPY = "bandai-actions/dataset-1_walk_happy_001.bvh"
RUN = "bandai/dataset-1_run_happy_001.bvh"
BOW = "bandai-actions/dataset-1_bow_normal_001.bvh"
# (pair, timing, shorter): whether toe skating must stay within 1.5x the inputs'. FRACTION ignores the feet
# (walk + happy: their footfalls 0.26 s apart, skating 2x), so it is printed, not held to it.
CASES = {("walk-happy", "CONTACTS", "CLAMP"): True, ("walk-happy", "CONTACTS", "LOOP"): True, ("walk-happy", "WARP", "CLAMP"): True,
         ("walk-happy", "FRACTION", "CLAMP"): False, ("run-walk", "CONTACTS", "CLAMP"): True, ("run-walk", "WARP", "CLAMP"): False,
         ("run-walk", "FRACTION", "CLAMP"): False}
PAIRS = {"walk-happy": (WALK, HAPPY), "run-walk": (RUN, WALK)}


@pytest.mark.parametrize("case", CASES, ids=["-".join(case) for case in CASES])
def test_blend_is_continuous_between_the_clips_and_keeps_feet_planted(loopsmith, blank, mocap_dir, case):
    blend = importlib.import_module(f"{loopsmith.__name__}.core.edit.blend")
    pair, timing, shorter = case
    clip_a, clip_b = (imported_clip(loopsmith, mocap_dir.parent / name) for name in PAIRS[pair])
    started = time.perf_counter()
    made = blend.blend(clip_a, clip_b, 0.5, timing, shorter)
    print(f"\n{pair} {timing} {shorter} in {time.perf_counter() - started:.2f} s: {made.summary()}")
    numbers, clip = made.numbers, made.clip
    assert np.all(np.isfinite(clip.location)) and np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0)
    assert numbers["worst_frame"] <= numbers["inputs_worst_frame"], made.summary()
    # The result lasts between the stretches of the two clips it plays (CLAMP trims the steps only one clip has).
    low, high = sorted((numbers["covered_a"], numbers["covered_b"]))
    assert low - clip.dt <= numbers["duration"] <= high + clip.dt, made.summary()
    if timing == "FRACTION":
        assert min(clip_a.duration, clip_b.duration) <= numbers["duration"] <= max(clip_a.duration, clip_b.duration)
    if timing == "CONTACTS":
        assert numbers["contact_mismatch"] < 0.5 * clip.dt, made.summary()
    if CASES[case]:
        assert numbers["skating"] <= 1.5 * numbers["inputs_skating"], made.summary()


def test_a_walk_and_a_bow_cannot_be_matched_by_foot_contacts(loopsmith, blank, mocap_dir):
    blend = importlib.import_module(f"{loopsmith.__name__}.core.edit.blend")
    errors = importlib.import_module(f"{loopsmith.__name__}.core.errors")
    walk, bow = (imported_clip(loopsmith, mocap_dir.parent / name) for name in (WALK, BOW))
    with pytest.raises(errors.EditError, match="never lifts in clip bow and steps in clip walk.*timing FRACTION"):
        blend.blend(walk, bow, names=("walk", "bow"))
    assert blend.blend(walk, bow, timing="FRACTION").clip.num_frames > 0
