"""Loops of real takes that carry their motion and verdicts that see what is wrong: AUTO makes every method with the feet
locked and without and keeps one whose own verdict passes (no one-frame pop); Find Loop never picks a still stretch of a
walk, and a loop of one is never GOOD."""

import numpy as np
import pytest

from core.formats import acclaim, bvh, bvh_clip
from core.loop import detect, make, stitch
from core.motion import sampling
from core.measure import verdict


@pytest.fixture(scope="module")
def turning(mocap_dir):
    path = mocap_dir.parent / "bandai-actions" / "dataset-2_walk-turn-right_normal_001.bvh"
    info = bvh.read_bvh(path)
    return bvh_clip.clip_from_bvh(info, 0.01, "Y")


def test_the_foot_lock_makes_no_pop_and_auto_keeps_none(turning):
    """The Bandai turn right: Spring, the least visible (0.48), moved a leg 1.53x as far in a frame as the take does with the
    feet locked, its knee flipping where the leg passes through straight; it no longer does (1.11, as without the lock), and
    AUTO keeps a loop without a pop (Cubic, 0.54: a tie)."""
    (start, end), _ = detect.loop_range(turning)
    auto = make.make_loop(turning, start, end, stitch.StitchParameters())
    locked = make.make_loop(turning, start, end, stitch.StitchParameters(method="SPRING"))
    assert make.largest_step_ratio(locked) < 1.2
    assert make.largest_step_ratio(auto) < 1.2
    judged = verdict.of_seam(auto.after.visibility, auto.after.velocity_jump_ratio, auto.body.floor_offset, auto.body.pelvis_offset,
                             step_ratio=make.largest_step_ratio(auto))
    assert judged.word == verdict.GOOD, judged.reasons


@pytest.fixture(scope="module")
def walk_with_a_pause(mocap_dir):
    """A real walk that stands still for two seconds after frame 100 (that pose held for 60 frames)."""
    walk = bvh_clip.clip_from_bvh(bvh.read_bvh(mocap_dir / "dataset-1_walk_normal_001.bvh"), 0.01, "Y")
    frames = np.r_[0:100, np.full(60, 100), 100:walk.num_frames]
    return walk.take_frames(frames).with_channels(frames=np.arange(1, len(frames) + 1, dtype=float))


def test_find_loop_never_picks_the_still_stretch_of_a_walk(walk_with_a_pause):
    (start, end), _ = detect.loop_range(walk_with_a_pause)
    assert start > 160 or end < 101, (start, end)  # the pause holds frames 101-160


def test_a_loop_that_barely_moves_is_never_good(walk_with_a_pause):
    still = make.make_loop(walk_with_a_pause, 110, 140, stitch.StitchParameters())
    moving = make.make_loop(walk_with_a_pause, 165, 198, stitch.StitchParameters())
    assert make.concerns(moving, walk_with_a_pause) == ()
    (concern,) = make.concerns(still, walk_with_a_pause)
    assert concern == "the loop barely moves: its joints move at 0% of the take's speed"
    judged = verdict.of_seam(still.after.visibility, still.after.velocity_jump_ratio, concerns=make.concerns(still, walk_with_a_pause))
    assert judged.word != verdict.GOOD


@pytest.mark.parametrize("fps", [24.0, 60.0, 120.0, 240.0])
def test_a_walk_resampled_grades_and_judges_as_at_its_own_rate(mocap_dir, fps):
    walk = bvh_clip.clip_from_bvh(bvh.read_bvh(mocap_dir / "dataset-1_walk_normal_001.bvh"), 0.01, "Y")
    resampled = sampling.sample_clip(walk, np.arange(int((walk.num_frames - 1) * fps / walk.fps) + 1) * walk.fps / fps, "CUBIC", fps)
    for clip in (walk, resampled):
        (start, end), found = detect.loop_range(clip)
        made = make.make_loop(clip, start, end, stitch.StitchParameters())
        judged = verdict.of_seam(made.after.visibility, made.after.velocity_jump_ratio, made.body.floor_offset, made.body.pelvis_offset)
        # The cut of a walk that repeats cleanly is never POOR for its frame rate (a 120 fps cut scored 16x a 30 fps one).
        assert found.best.grade != "POOR" and judged.word == verdict.GOOD, (clip.fps, found.best, judged.reasons)


def test_auto_keeps_what_passes_its_own_verdict(mocap_dir):
    """The side-step right, two cycles: AUTO makes every method with the feet locked and without and keeps a loop that
    passes without the lock (Cubic locked plays at 1.07): Crossfade without it, 0.71 (locked, its feet slide at the seam).
    Crossfade's leg, which moved 1.8x as far in a frame as the walk does (frame 0 continued by three frames' velocity and
    acceleration), no longer pops."""
    clip = bvh_clip.clip_from_bvh(bvh.read_bvh(mocap_dir / "dataset-1_walk-right_normal_001.bvh"), 0.01, "Y")
    auto = make.make_loop(clip, 44, 112, stitch.StitchParameters())
    crossfade = make.make_loop(clip, 44, 112, stitch.StitchParameters(method="CROSSFADE"))
    assert make.largest_step_ratio(crossfade) < 1.4
    judged = verdict.of_seam(auto.after.visibility, auto.after.velocity_jump_ratio, auto.body.floor_offset, auto.body.pelvis_offset,
                             step_ratio=make.largest_step_ratio(auto))
    assert judged.word == verdict.GOOD, (auto.method, judged.reasons)
    assert not auto.feet_locked and auto.after.visibility < 0.8


@pytest.fixture(scope="module")
def dance(cmu):
    """CMU's 05_03 (Acclaim, 120 fps, frames 1-434)."""
    skeleton = acclaim.read_asf(cmu / "05.asf")
    return acclaim.clip_from_acclaim(skeleton, acclaim.read_amc(cmu / "05_03.amc", skeleton))


@pytest.mark.parametrize("start, end", [(1, 414), (100, 434)])
def test_the_crossfade_of_a_cmu_dance_does_not_pop(dance, start, end):
    """Cuts at the take's first or last frame: continued backwards by its velocity and acceleration from three frames, frame
    1 turned a hand by 134 radians over the blend and the crossfade moved a joint 15.9x (1-414: 75 m/s) and 46x (100-434)
    as far in a frame as the dance does. Now 1.8x and 1.2x: what is left of 1-414's is the crossfade's own, the whole gap
    closed in its last 0.3 s (1.9x with no velocity at all in the continuation; Cubic, which splits it, 1.3x)."""
    assert make.largest_step_ratio(make.make_loop(dance, start, end, stitch.StitchParameters(method="CROSSFADE"))) < 2.0


def test_auto_never_keeps_a_cmu_loop_that_pops_when_another_passes(dance):
    """05_03, frames 100-434: AUTO keeps a method without a pop."""
    auto = make.make_loop(dance, 100, 434, stitch.StitchParameters())
    assert make.largest_step_ratio(auto) <= verdict.SEEN, (auto.method, make.largest_step_ratio(auto))
