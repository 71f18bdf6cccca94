"""One verdict vocabulary: GOOD, CHECK, VISIBLE, FAILED from one set of thresholds."""

import pytest

from core.measure import verdict

CLEAN = {"visibility": 0.9, "root_speed_jump": 0.1, "clips_root_speed_jump": 0.2, "heading_rate": 0.1, "clips_heading_rate": 0.4,
         "skating": 0.03, "clips_skating": 0.05, "floor_offset": 0.0, "pelvis_offset": 0.0}


@pytest.mark.parametrize("ratio, word", [(0.5, "GOOD"), (verdict.SAME, "GOOD"), (verdict.SAME + 0.01, "CHECK"), (verdict.SEEN, "CHECK"),
                                         (verdict.SEEN + 0.01, "VISIBLE")])
def test_the_worst_ratio_to_the_clips_own_decides(ratio, word):
    judged = verdict.judge([verdict.Measure("seam visibility", ratio), verdict.Measure("seam velocity jump", 0.2)])
    assert judged.word == word and (judged.reasons == ()) == (word == "GOOD")


def test_a_measure_below_what_anyone_sees_is_the_clips_own_whatever_theirs():
    tiny = verdict.Measure("toe skating", 0.01, 0.001, "m/s", verdict.NEGLIGIBLE_SKATING)
    assert tiny.ratio == 0.0 and verdict.judge([tiny]).word == "GOOD"
    seen = verdict.Measure("toe skating", 0.2, 0.05, "m/s", verdict.NEGLIGIBLE_SKATING)
    assert verdict.judge([seen]).word == "VISIBLE" and "0.2 m/s, 4.00x the clips' own (0.05 m/s)" in verdict.judge([seen]).reasons[0]


def test_off_the_floor_is_visible_and_a_named_concern_is_at_least_check():
    assert verdict.of_transition(CLEAN).word == "GOOD"
    assert verdict.of_transition(CLEAN | {"floor_offset": 0.06}).word == "VISIBLE"
    assert verdict.of_transition(CLEAN | {"pelvis_offset": 0.05}).word == "GOOD"  # 5 cm is on the floor
    assert verdict.of_seam(0.8, 0.7, concerns=("the motion barely repeats",)).word == "CHECK"
    assert verdict.of_seam(2.0, 0.7, concerns=("the motion barely repeats",)).word == "VISIBLE"


def test_failed_and_the_worst_of_several_and_the_json():
    assert verdict.failed("cannot be read").to_json() == {"word": "FAILED", "reasons": ["cannot be read"], "measures": []}
    assert verdict.worst([verdict.of_seam(0.8, 0.7), verdict.of_seam(1.3, 0.7)]) == "CHECK" and verdict.worst([]) == "GOOD"
    measures = verdict.of_transition(CLEAN | {"visibility": 1.3}).to_json()["measures"]
    assert measures[0] == {"name": "junction visibility", "value": 1.3, "own": 1.0, "ratio": 1.3, "unit": ""}
    assert {m["name"] for m in measures} == {"junction visibility", "root speed jump", "heading turn rate", "toe skating"}


def test_a_composition_is_no_better_than_a_junction_off_the_floor():
    """A junction whose pelvis leaves the clips' height is VISIBLE in its own line, and so is the composition holding it."""
    off = CLEAN | {"pelvis_offset": 0.0517}
    assert verdict.of_transition(off).word == "VISIBLE"
    assert verdict.of_composition([CLEAN, off]).word == "VISIBLE" and verdict.of_composition([CLEAN, CLEAN]).word == "GOOD"
    assert verdict.of_composition([CLEAN], floor_offset=0.06).word == "VISIBLE"
