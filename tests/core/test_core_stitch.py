"""Make Loop's core: offsets of every method, root motion, seam metrics."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from core import demo
from core.motion import contacts, kinematics, quat, root as root_motion, sampling
from core.measure import grounding, seam as metrics
from core.loop import stitch
from core.motion.cycles import chained_positions, seam_mismatch
from core.errors import LoopError
from core.loop.make import AUTO_TIE, kept_trial, largest_step_ratio, loop_motion_share, make_loop

CONTINUOUS = ("CUBIC", "LINEAR_INERTIALIZE", "SOFTFADE")
DT = 1.0 / 30.0


def _signal(n, seed, width=3):
    rng = np.random.default_rng(seed)
    t = np.arange(n)[:, None] * DT
    return np.sin(t * rng.uniform(1, 6, width) + rng.uniform(0, 6, width)) + rng.normal(0, 0.3, width) * t


def _rotations(n, seed):
    return quat.unroll(quat.from_rotation_vector(_signal(n, seed)))


@pytest.mark.parametrize("method", CONTINUOUS)
def test_continuity_methods_close_position_and_velocity_exactly(method):
    params = stitch.StitchParameters(method=method)
    x = stitch.stitch_vectors(_signal(60, 1), DT, params)
    assert np.abs(x[-1] - x[0]).max() < 1e-12
    assert np.abs(seam_mismatch(x)).max() < 1e-12
    q = stitch.stitch_rotations(_rotations(60, 2), DT, params)
    assert np.abs(quat.to_rotation_vector(quat.multiply(q[-1], quat.inverse(q[0])))).max() < 1e-12
    assert np.abs(stitch._rotation_mismatch(q[[0, 1, 2, -3, -2, -1]])).max() < 1e-8
    assert np.allclose(np.linalg.norm(q, axis=-1), 1.0)


def test_softfade_is_velocity_continuous_where_the_published_slope_is_not():
    params = stitch.StitchParameters(method="SOFTFADE", ratio=0.3, softfade_start=0.3, softfade_end=0.6, hardness_start=8, hardness_end=20)
    raw = _signal(80, 3)
    looped = stitch.stitch_vectors(raw, DT, params)
    assert np.abs(seam_mismatch(looped)).max() < 1e-12
    # Without the velocity term the softfade's own slope leaves a visible jump.
    fade_only = raw + (0.3 * stitch._softfade(np.arange(80) * DT / 0.3, 8)[:, None] - 0.7 * stitch._softfade(np.arange(80)[::-1] * DT / 0.6, 20)[:, None]) * (raw[-1] - raw[0])
    assert np.abs(seam_mismatch(fade_only)).max() > 100 * np.abs(seam_mismatch(looped)).max() + 1e-6


def test_spring_leaves_an_honest_residual_and_none_changes_nothing():
    raw = _signal(60, 4)
    spring = stitch.stitch_vectors(raw, DT, stitch.StitchParameters(method="SPRING"))
    assert np.abs(seam_mismatch(spring)).max() < np.abs(seam_mismatch(raw)).max()
    assert np.abs(spring[-1] - spring[0]).max() < 1e-3
    assert np.array_equal(stitch.stitch_vectors(raw, DT, stitch.StitchParameters(method="NONE")), raw)


@pytest.mark.parametrize("side, moved", [("START", 0), ("END", -1)])
def test_one_sided_correction_leaves_the_other_end_alone(side, moved):
    raw = _signal(90, 5)
    looped = stitch.stitch_vectors(raw, DT, stitch.StitchParameters(method="CUBIC", side=side))
    untouched = -1 if moved == 0 else 0
    assert np.allclose(looped[untouched], raw[untouched]) and not np.allclose(looped[moved], raw[moved])


def test_crossfade_ends_exactly_on_the_first_frame_with_a_smooth_seam():
    raw, rotations = _signal(60, 6), _rotations(60, 7)
    params = stitch.StitchParameters(method="CROSSFADE")
    x = stitch.crossfade_vectors(raw, DT, params)
    q = stitch.crossfade_rotations(rotations, DT, params)
    assert np.array_equal(x[-1], raw[0]) and np.allclose(q[-1], q[0])
    assert np.abs(seam_mismatch(x)).max() < 0.5 * np.abs(seam_mismatch(raw)).max()


def test_crossfade_continues_a_jittery_240_fps_take_without_a_pop():
    """The demo walk (0.3 degrees of jitter on every joint) at 240 fps, cut at both its ends: frame 0 continued backwards by
    its velocity and acceleration from three frames moved a joint 34x as far in a frame as the walk does."""
    clip = demo.walk_cycle(num_frames=770, fps=240.0).clip
    looped = make_loop(clip, clip.frames[0], clip.frames[-1], stitch.StitchParameters(method="CROSSFADE"), lock_feet=False)
    assert largest_step_ratio(looped) < 1.5


def test_a_seam_measures_alike_at_30_and_120_fps():
    """The demo walk resampled to 120 fps and cut at the same seconds: measured frame to frame, the raw cut's seam read 7.0
    (velocity jump 40x the clip's own) against 1.4 at 30 fps; over the same 1/30 s at both rates it reads the same."""
    clip = demo.walk_cycle(num_frames=70).clip
    seams = []
    for fps in (30.0, 120.0):
        resampled = sampling.sample_clip(clip, np.arange(int(69 * fps / 30.0) + 1) * 30.0 / fps, "CUBIC", fps)
        first = resampled.frames[0]
        seams.append(make_loop(resampled, first + fps / 3.0, first + 1.4 * fps, stitch.StitchParameters(method="NONE")).before)
    assert seams[1].visibility == pytest.approx(seams[0].visibility, rel=0.1)
    assert seams[1].velocity_jump_ratio == pytest.approx(seams[0].velocity_jump_ratio, rel=0.25)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(6, 90),
    seed=st.integers(0, 10_000),
    method=st.sampled_from(stitch.METHODS),
    side=st.sampled_from(stitch.SIDES),
    ratio=st.floats(0.0, 1.0),
    blend=st.floats(2.0 * DT, 0.5),
    hardness=st.floats(0.5, 40.0),
    halflife=st.floats(0.01, 1.0),
)
def test_random_clips_and_parameters_never_produce_nan(n, seed, method, side, ratio, blend, hardness, halflife):
    duration = (n - 1) * DT
    blend = min(blend, duration)
    params = stitch.StitchParameters(method=method, side=side, ratio=ratio, blend_start=blend, blend_end=min(blend * 1.3, duration),
                                     softfade_start=min(2 * blend, duration), softfade_end=blend, hardness_start=hardness,
                                     hardness_end=hardness, halflife_start=halflife, halflife_end=halflife, crossfade=blend)
    raw, rotations = _signal(n, seed), _rotations(n, seed + 1)
    if method == "CROSSFADE":
        x, q = stitch.crossfade_vectors(raw, DT, params), stitch.crossfade_rotations(rotations, DT, params)
    else:
        x, q = stitch.stitch_vectors(raw, DT, params), stitch.stitch_rotations(rotations, DT, params)
    assert np.all(np.isfinite(x)) and np.all(np.isfinite(q))
    assert np.allclose(np.linalg.norm(q, axis=-1), 1.0)
    if method in CONTINUOUS + ("CROSSFADE", "LINEAR"):
        assert np.abs(x[-1] - x[0]).max() < 1e-9
    if method in CONTINUOUS:
        assert np.abs(seam_mismatch(x)).max() <= np.abs(seam_mismatch(raw)).max() + 1e-9


@pytest.fixture(scope="module")
def walk():
    return demo.walk_cycle(num_frames=106)


@pytest.mark.parametrize("method", CONTINUOUS + ("CROSSFADE",))
def test_demo_walk_loops_seamlessly_while_travelling(walk, method):
    result = make_loop(walk.clip, 10, 74, stitch.StitchParameters(method=method))
    assert result.root_mode == "TRAVEL" and walk.clip.bone_names[result.root] == walk.root_bone
    assert result.after.max_position_step < 1e-6
    assert result.after.visibility <= 1.0
    assert result.after.max_velocity_jump < 0.25 * result.before.max_velocity_jump
    travel = result.clip.location[-1, result.root] - result.clip.location[0, result.root]
    assert np.linalg.norm(travel) > 2.0  # the displacement is kept


def test_loop_and_in_place_root_modes(walk):
    looped = make_loop(walk.clip, 10, 74, root_mode="LOOP")
    assert looped.root == -1 and looped.after.max_position_step < 1e-6
    in_place = make_loop(walk.clip, 10, 74, root_mode="IN_PLACE")
    root = in_place.root
    assert np.linalg.norm(in_place.clip.location[-1, root] - in_place.clip.location[0, root]) < 1e-6
    assert in_place.after.max_position_step < 1e-6


def test_wrap_drops_the_duplicate_last_frame(walk):
    clamp = make_loop(walk.clip, 10, 74)
    wrap = make_loop(walk.clip, 10, 74, loop_mode="WRAP")
    assert clamp.clip.num_frames == 65 and wrap.clip.num_frames == 64
    assert clamp.length == wrap.length == 64


def test_bad_ranges_and_parameters_raise_loop_errors(walk):
    with pytest.raises(LoopError, match="at least 4 frames"):
        make_loop(walk.clip, 10, 12)
    with pytest.raises(LoopError, match="at least two frames"):
        make_loop(walk.clip, 10, 30, stitch.StitchParameters(blend_start=0.04))
    with pytest.raises(LoopError, match="within the loop"):
        make_loop(walk.clip, 10, 30, stitch.StitchParameters(blend_start=2.0))
    with pytest.raises(LoopError, match="not inside"):
        make_loop(walk.clip, 0, 500)
    still = walk.clip.with_channels(location=np.zeros_like(walk.clip.location))
    with pytest.raises(LoopError, match="no bone travels"):
        make_loop(still, 10, 74, root_mode="TRAVEL")


def test_auto_measures_the_takes_own_skating_once_for_all_its_loops(walk, monkeypatch):
    """Where loops' feet slide at the seam, AUTO weighs them against the take's own contacts: measured once, not once per
    loop (on a 200,000-frame take each measure poses every frame's feet: 0.6 s, eight times over)."""
    measured, median = [], contacts.median_skating
    monkeypatch.setattr(contacts, "seam_skating", lambda *args, **options: 0.05)  # every loop's feet slide at its seam
    monkeypatch.setattr(contacts, "median_skating", lambda clip: measured.append(clip.num_frames) or median(clip))
    make_loop(walk.clip, 10, 74)
    assert len(measured) == 1


def test_auto_keeps_the_least_visible_method_and_lists_every_one(walk):
    auto = make_loop(walk.clip, 10, 74)
    assert auto.params.method == auto.method in stitch.AUTO_METHODS
    assert [trial.method for trial in auto.tried] == list(stitch.AUTO_METHODS)
    for trial in auto.tried:
        given = make_loop(walk.clip, 10, 74, stitch.StitchParameters(method=trial.method))
        assert given.tried == () and given.method == trial.method
        assert given.after.visibility == trial.seam.visibility  # each measured as it is made alone
        assert auto.after.visibility <= given.after.visibility + AUTO_TIE
        if trial.method == auto.method:
            assert np.array_equal(given.clip.rotation, auto.clip.rotation) and np.array_equal(given.clip.location, auto.clip.location)


def test_auto_tries_the_methods_whose_own_timings_fit(walk):
    short = make_loop(walk.clip, 10, 20, root_blend=0.2)  # 0.33 s: Softfade's 0.4 s ramps do not fit, the others do
    assert [trial.method for trial in short.tried] == ["CUBIC", "CROSSFADE", "SPRING"]


def test_auto_ties_go_to_the_simpler_method():
    def seam(visibility, jump_ratio):
        return metrics.SeamMetrics(np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1), visibility, jump_ratio)

    assert kept_trial([seam(0.60, 0.5), seam(0.65, 0.2), seam(0.45, 0.9)]) == 2  # clearly least visible
    assert kept_trial([seam(0.60, 0.5), seam(0.55, 0.2), seam(0.7, 0.1)]) == 0  # within AUTO_TIE: the first
    assert kept_trial([seam(0.60, 0.9), seam(0.60, 0.1)]) == 0  # a jump under the clip's own is no preference
    assert kept_trial([seam(0.60, 1.4), seam(0.65, 0.3)]) == 1  # ... one beyond it shows
    assert kept_trial([seam(0.50, 0.9), seam(0.54, 0.5)], [True, False]) == 1  # the least visible skates at the seam: one as good
    assert kept_trial([seam(0.50, 0.9), seam(0.60, 0.5)], [True, False]) == 0  # ... but not one seen more
    assert kept_trial([seam(0.50, 0.9), seam(0.54, 0.5)], [True, True]) == 0  # every one does: the least visible
    assert kept_trial([seam(0.60, 0.5), seam(0.65, 0.5), seam(0.9, 0.5)], None, [True, True, False]) == 2  # the body off the floor:
    assert kept_trial([seam(0.60, 0.5), seam(1.2, 0.5)], None, [True, False]) == 0  # any on it up to an ordinary frame


def _turning(walk, degrees_per_second):
    """The demo walk bent onto a curve: heading and path turn steadily about the up axis."""
    clip, hips = walk.clip, walk.clip.bone_index(walk.root_bone)
    global_root, _ = root_motion.root_frames(clip, hips)
    angle = np.radians(degrees_per_second) * np.arange(clip.num_frames) * clip.dt
    turn = quat.from_rotation_vector(np.outer(angle, [0.0, 0.0, 1.0]))
    step = np.diff(global_root[:, :3, 3], axis=0)
    turned = np.einsum("fij,fj->fi", quat.to_matrix(turn[1:]), step)
    path = global_root[0, :3, 3] + np.concatenate([np.zeros((1, 3)), np.cumsum(turned, axis=0)])
    return root_motion.with_root_global(clip, hips, path, quat.multiply(turn, quat.from_matrix(global_root[:, :3, :3])))


def _played_by_cycles_modifiers(result, cycles=2):
    """Joint positions ``(cycles * P + 3, B, 3)`` as Blender plays a CLAMP loop: one frame before it, then
    every channel repeated by the Cycles modifiers, the travelling root's location with offset; and the wrap indices."""
    clip, period = result.clip, result.clip.num_frames - 1
    frame = np.arange(-1, cycles * period + 2)
    lap = np.floor_divide(frame - 1, period)
    key = frame - lap * period
    location = clip.location[key]
    if result.root_mode == "TRAVEL":
        location[:, result.root] += lap[:, None] * (clip.location[-1, result.root] - clip.location[0, result.root])
    played = clip.with_channels(location=location, rotation=clip.rotation[key], scale=clip.scale[key])
    return kinematics.forward_kinematics(played.parents, played.rest, played.location, played.rotation, played.scale)[..., :3, 3], 1 + period * np.arange(1, cycles + 1)


@pytest.mark.parametrize("turn", [0.0, 40.0])
def test_cycles_modifiers_play_a_travelling_loop_as_seamless_as_measured(walk, turn):
    clip = _turning(walk, turn)
    result = make_loop(clip, 10, 74)
    global_root, _ = root_motion.root_frames(result.clip, result.root)
    # Blender's Cycles modifier repeats the travel without turning it: the loop ends facing as it began.
    assert np.allclose(global_root[-1, :3, :3], global_root[0, :3, :3], atol=1e-9)
    positions, wraps = _played_by_cycles_modifiers(result)
    reference = metrics.clip_baseline(clip.slice_frames(9, 74)).acceleration
    played = metrics.played_visibility(positions, clip.dt, wraps, reference)
    assert played == pytest.approx(result.after.visibility, rel=1e-6) and played <= 1.0
    raw = make_loop(clip, 10, 74, stitch.StitchParameters(method="NONE"))
    raw_positions, _ = _played_by_cycles_modifiers(raw)
    assert metrics.played_visibility(raw_positions, clip.dt, wraps, reference) > played


@pytest.mark.parametrize("root_mode", ["TRAVEL", "LOOP", "IN_PLACE"])
def test_before_numbers_measure_the_raw_cut_in_the_loops_own_space(walk, root_mode):
    result = make_loop(walk.clip, 10, 74, root_mode=root_mode)
    # The walk's 1.3 m/s travel is no seam: measured as one it read hundreds, and tens of m/s.
    assert 1.0 < result.before.visibility < 20.0 and result.before.max_velocity_jump < 10.0, result.before.summary()
    assert result.before.max_position_step < 0.1
    again = metrics.seam_metrics(result.raw, result.root if root_mode == "TRAVEL" else None, metrics.clip_baseline(walk.clip.slice_frames(9, 74)))
    if root_mode != "LOOP":  # LOOP's raw cut is chained by the travel a looping root no longer has
        assert again.visibility == pytest.approx(result.before.visibility)
    if root_mode == "IN_PLACE":
        hips = result.raw.location[:, result.root]
        assert np.linalg.norm(hips[-1, :2] - hips[0, :2]) < 0.05


@pytest.mark.parametrize("method", ["CROSSFADE", "CUBIC"])
def test_the_largest_step_is_measured_as_three_cycles_play(walk, method):
    """A travelling loop posed once (each later cycle is the first moved rigidly) gives the ratio of three cycles played
    end to end, and sees a pop that is only at the wrap: the root rising 30 cm over the loop, a few millimetres a frame
    inside it, drops back 30 cm into the next cycle."""
    result = make_loop(walk.clip, 10, 74, stitch.StitchParameters(method=method), lock_feet=False)
    played = chained_positions(result.clip, result.root, 3)
    own = metrics.floored(np.linalg.norm(np.diff(kinematics.clip_joint_positions(result.raw), axis=0), axis=-1).max(axis=0))
    as_played = (np.linalg.norm(np.diff(played, axis=0), axis=-1).max(axis=0) / own).max()
    assert result.root_mode == "TRAVEL" and largest_step_ratio(result) == pytest.approx(as_played, rel=1e-12)
    location = result.clip.location.copy()
    location[:, result.root, 1] += np.linspace(0.0, 0.3, result.clip.num_frames)  # the demo root's Y is up
    rising = result.clip.with_channels(location=location)
    inside = (np.linalg.norm(np.diff(kinematics.clip_joint_positions(rising), axis=0), axis=-1).max(axis=0) / own).max()
    assert inside < 1.1 * as_played and largest_step_ratio(replace(result, clip=rising)) > 3.0 * as_played


@pytest.mark.parametrize("feet_named", [True, False])
def test_the_verdict_reads_the_loops_joints_posed_once_and_gets_what_posing_gives(feet_named):
    take = demo.walk_cycle(num_frames=300).clip
    take = take if feet_named else take.with_channels(bone_names=tuple(f"b{k}" for k in range(take.num_bones)))
    result = make_loop(take, 20, 250)
    assert np.array_equal(result.joints, kinematics.clip_joint_positions(result.clip))
    assert np.array_equal(result.raw_joints, kinematics.clip_joint_positions(result.raw))
    travel = result.root if result.root_mode == "TRAVEL" else None
    assert largest_step_ratio(result) == metrics.largest_step_ratio(result.clip, result.raw, travel)
    assert grounding.floor_height(result.clip, result.joints) == grounding.floor_height(result.clip)
    assert loop_motion_share(result, take) == metrics.motion_share(result.clip, take)


@pytest.mark.parametrize("frames", [300, 900])  # ranked on the whole loop, and on a long loop's ends
def test_auto_and_the_verdict_pose_every_joint_of_the_raw_cut_once(frames, monkeypatch):
    """AUTO's ranking, the body's grounding and the verdict's measures share one posing of every joint of the raw cut (AUTO
    measured pops against a posing of its own, in single precision), beside the yardstick's."""
    take = demo.walk_cycle(num_frames=frames).clip
    posed, posing = [], kinematics.forward_kinematics

    def recorded(parents, rest, location, rotation, scale, bones=None, *args, **kwargs):
        posed.append((location, bones))
        return posing(parents, rest, location, rotation, scale, bones, *args, **kwargs)

    monkeypatch.setattr(kinematics, "forward_kinematics", recorded)
    result = make_loop(take, take.frames[10], take.frames[-10])
    assert largest_step_ratio(result) > 0.0 and loop_motion_share(result, take) > 0.0
    of_every_joint = [location for location, bones in posed if bones is None]
    raw_cut = [location for location in of_every_joint if np.array_equal(location, result.raw.location)]
    assert len(raw_cut) == 2  # its yardstick's frames (clip_baseline, every frame of a loop this short) and its joints
