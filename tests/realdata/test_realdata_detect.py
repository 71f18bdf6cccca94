"""Find Loop on real motion capture."""

import numpy as np
import pytest

from helpers import GAIT_CLIPS, foot_height_period, import_bvh

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")


def _read(loopsmith, path):
    obj = import_bvh(path)
    return obj, loopsmith.bridge.clip_io.read_clip(obj)


@pytest.mark.parametrize("name", sorted(GAIT_CLIPS))
def test_feet_period_matches_the_shared_table(loopsmith, blank, mocap_dir, name):
    _, clip = _read(loopsmith, mocap_dir / name)
    positions = loopsmith.core.motion.kinematics.clip_joint_positions(clip)
    assert abs(foot_height_period(positions, clip.bone_names, clip.fps) - GAIT_CLIPS[name] * clip.fps) <= 1.0


@pytest.mark.parametrize("name", sorted(GAIT_CLIPS))
def test_best_loop_is_whole_gait_cycles(loopsmith, blank, mocap_dir, name):
    _, clip = _read(loopsmith, mocap_dir / name)
    period = foot_height_period(loopsmith.core.motion.kinematics.clip_joint_positions(clip), clip.bone_names, clip.fps)
    best = loopsmith.core.loop.detect.find_loops(clip).best
    assert best is not None and best.grade in ("GOOD", "FAIR")
    assert abs(best.length - best.cycles * period) <= 1.0, (best, period)
    for cycles in (1, 2):
        asked = loopsmith.core.loop.detect.find_loops(clip, cycles=cycles).best
        assert asked.cycles == cycles and abs(asked.length - cycles * period) <= 1.0


@pytest.mark.parametrize("name", sorted(GAIT_CLIPS))
def test_best_candidate_loops_better_than_a_random_start(loopsmith, blank, mocap_dir, name):
    _, clip = _read(loopsmith, mocap_dir / name)
    best = loopsmith.core.loop.detect.find_loops(clip).best
    make = loopsmith.core.loop.make.make_loop
    chosen = make(clip, best.frame_start, best.frame_end).after.visibility
    rng = np.random.default_rng(11)
    starts = rng.integers(clip.frames[0], clip.frames[-1] - best.length, 9)
    random = [make(clip, int(s), int(s) + best.length).after.visibility for s in starts]
    assert chosen < np.median(random), (chosen, sorted(random))


@pytest.mark.parametrize("name", ["dataset-1_walk_normal_002.bvh", "dataset-1_walk-back_normal_001.bvh"])
def test_pre_cut_cycles_are_closed_loops(loopsmith, blank, mocap_dir, name):
    _, clip = _read(loopsmith, mocap_dir / name)
    best = loopsmith.core.loop.detect.find_loops(clip).best
    assert (best.frame_start, best.frame_end, best.length, best.cycles) == (clip.frames[0], clip.frames[-1], clip.num_frames - 1, 1)
    assert best.grade == "GOOD"


def _tiled(loopsmith, clip, copies, offset, rng):
    """A pre-cut clamp cycle repeated ``copies`` times, travel accumulated, noise added, start cut."""
    period = clip.num_frames - 1
    root = loopsmith.core.motion.root.find_moving_root(clip)
    index = np.arange(period * copies + 1) % period
    index[-1] = period
    laps = np.arange(period * copies + 1) // period
    location = clip.location[index].copy()
    location[:, root] += laps[:, None] * (clip.location[period, root] - clip.location[0, root])
    rotation = loopsmith.core.motion.quat.multiply(loopsmith.core.motion.quat.from_rotation_vector(rng.normal(0, 0.004, location.shape)), clip.rotation[index])
    location += rng.normal(0, 0.0005, location.shape)
    tiled = clip.with_channels(frames=np.arange(1, len(index) + 1, dtype=float), location=location,
                               rotation=loopsmith.core.motion.quat.unroll(rotation), scale=clip.scale[index])
    return tiled.slice_frames(offset, tiled.num_frames)


@pytest.mark.parametrize("seed", range(4))
def test_tiled_real_cycle_is_found_at_its_true_period(loopsmith, blank, mocap_dir, seed):
    rng = np.random.default_rng(seed)
    _, cycle = _read(loopsmith, mocap_dir / "dataset-1_walk_normal_002.bvh")
    tiled = _tiled(loopsmith, cycle, int(rng.integers(3, 6)), int(rng.integers(1, 25)), rng)
    detection = loopsmith.core.loop.detect.find_loops(tiled)
    assert abs(detection.period - 30) <= 1.0
    for cycles in (1, 2):
        asked = loopsmith.core.loop.detect.find_loops(tiled, cycles=cycles).best
        assert abs(asked.length - 30 * cycles) <= 1


@pytest.mark.parametrize("name", ["dataset-2_wave-right-hand_normal_021.bvh", "dataset-1_dance-short_normal_001.bvh"])
def test_clips_without_a_gait_are_graded_honestly(loopsmith, blank, mocap_dir, name):
    _, clip = _read(loopsmith, mocap_dir / name)
    detection = loopsmith.core.loop.detect.find_loops(clip)
    for candidate in detection.candidates:
        # The cut graded is the one found, its length in seconds: between frames at 30 fps, a pose every 1/30 s.
        first, last = candidate.graded
        assert abs(first - (candidate.frame_start - clip.frames[0])) <= 0.5 and abs(last - first - candidate.length) <= 0.5
        times = np.linspace(first, last, int(round(last - first)) + 1)
        raw = loopsmith.core.motion.sampling.sample_clip(clip, times, "CUBIC", clip.fps * (len(times) - 1) / (last - first))
        root = loopsmith.core.motion.root.find_moving_root(raw)
        measured = loopsmith.core.measure.seam.seam_metrics(raw, root).visibility
        assert candidate.score == pytest.approx(measured, rel=0.05), candidate  # the score is the raw seam
        assert candidate.grade == loopsmith.core.loop.detect.grade(candidate.score, candidate.correlation)
        assert candidate.grade != "GOOD"  # their moves never repeat exactly
