"""What real files from different exporters bring, numpy only: a transition between rigs that differ names every mismatch
at once, with what would fix each; a cycle longer than Find Loop's longest loop is named with its length; units and up
axes read from corpus skeletons, and messages that never show a negative span."""

import re

import numpy as np
import pytest

from core import demo
from core.formats import bvh
from core.errors import NoLoopFound, TransitionError
from core.loop import detect
from core.transition import make
from helpers import CORPUS, NO_CORPUS

needs_corpus = pytest.mark.skipif(NO_CORPUS is not None, reason=str(NO_CORPUS))


def test_a_transition_between_rigs_that_differ_names_every_mismatch_at_once():
    walk = demo.walk_cycle(num_frames=120).clip
    other = demo.walk_cycle(num_frames=100, fps=24.0, seed=3).clip
    renamed = other.with_channels(bone_names=tuple(name.replace("Foot", "Ankle") for name in other.bone_names))
    with pytest.raises(TransitionError) as raised:
        make.make_transition(walk, renamed, labels=("FROM (walk.bvh)", "TO (run.bvh)"))
    text = str(raised.value)
    assert "FROM (walk.bvh) plays at 30 fps and TO (run.bvh) at 24: resample one to match the other" in text
    assert "TO (run.bvh) has no bone named 'Foot.L', 'Foot.R'" in text and "rename them to FROM (walk.bvh)'s" in text
    assert "\n" not in text


def test_a_cycle_longer_than_the_longest_loop_says_how_long_it_is():
    # A walk whose stride takes 6 s: Find Loop searches up to 4 s, and says the loop it finds beyond that.
    slow = demo.walk_cycle(num_frames=400, period_seconds=6.0).clip
    with pytest.raises(NoLoopFound) as raised:
        detect.loop_range(slow)
    assert raised.value.needed == pytest.approx(6.0, abs=0.1) and "it repeats every 6.0" in str(raised.value)
    assert detect.loop_range(slow, max_length=6.5)[0][1] - detect.loop_range(slow, max_length=6.5)[0][0] == pytest.approx(180, abs=2)


@needs_corpus
def test_an_upside_down_skeleton_is_named_with_spans_never_negative(tmp_path):
    walk = bvh.read_bvh(CORPUS / "pybvh_cmu_12_01_walk.bvh")
    upside_down = tmp_path / "upside_down.bvh"
    upside_down.write_text(bvh.change_axes(bvh.to_text(walk), np.diag([1.0, -1.0, -1.0])))
    with pytest.raises(bvh.BvhError) as raised:
        bvh.up_axis(bvh.read_bvh(upside_down))
    message = str(raised.value)
    assert message.startswith("the skeleton stands along -Y (the hips above the feet: ") and not re.search(r"[(,] -\d", message), message


@needs_corpus
def test_makehuman_is_read_in_decimetres_and_a_chain_without_head_or_feet_y_up():
    walk = bvh.read_bvh(CORPUS / "mh_walk1.bvh")
    assert bvh.up_axis(walk) == "Z" and bvh.guess_scale(walk).unit == "decimetres"  # 1.59 m, where CMU units made 0.90 m
    assert bvh.up_axis(bvh.read_bvh(CORPUS / "fairmotion_sinusoidal_2.bvh")) == "Y"
