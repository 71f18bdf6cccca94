"""Composition, numpy only: segments and windows where they are said to be, loops that close, trimming, and one-line errors."""

import time

import numpy as np
import pytest

from core import demo
from core.measure import seam as metrics
from core.motion import cycles, quat, root as root_motion
from core.compose import Junction, Piece, compose, trim
from core.errors import CompositionError, LoopsmithError
from core.transition import align


def _walker(frames=150, speed=1.2, period=1.07, seed=7):
    return demo.walk_cycle(num_frames=frames, speed=speed, period_seconds=period, seed=seed).clip


@pytest.fixture(scope="module")
def walkers():
    """A slow and a fast walk, 150 frames at 30 fps."""
    return _walker(), _walker(speed=1.8, period=0.8, seed=3)


@pytest.fixture(scope="module")
def three(walkers):
    slow, fast = walkers
    return compose([Piece(slow, name="slow"), Piece(fast, name="fast"), Piece(slow, name="slow again")])


def _root_track(clip):
    """The Hips' armature-space positions ``(F, 3)`` and headings ``(F,)`` (one heading axis for every clip: the demo's Hips)."""
    pose, _ = root_motion.root_frames(clip, 0)
    return pose[:, :3, 3], root_motion.heading(quat.from_matrix(pose[:, :3, :3]), 0)


def _same_rotations(a, b):
    sign = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    return float(np.abs(a - sign * b).max())


def test_segments_tile_the_clip_and_every_frame_outside_the_windows_is_its_piece_rigidly_placed(walkers, three):
    slow, fast = walkers
    sources = [slow, fast, slow]
    clip = three.clip
    assert [s.piece for s in three.segments] == [0, 1, 2] and [s.name for s in three.segments] == ["slow", "fast", "slow again"]
    assert three.segments[0].out_first == 0 and three.segments[-1].out_last == clip.num_frames - 1
    assert all(b.out_first == a.out_last + 1 for a, b in zip(three.segments, three.segments[1:]))
    assert sum(s.out_last - s.out_first + 1 for s in three.segments) == clip.num_frames
    assert np.array_equal(clip.frames, slow.frames[0] + np.arange(clip.num_frames))
    assert [(t.junction, t.frame_a) for t in three.transitions] == [(k, three.segments[k].source_last) for k in range(2)]
    assert [t.frame_b + 1 for t in three.transitions] == [s.source_first for s in three.segments[1:]]
    windows = [t.window for t in three.transitions]
    for k, (segment, source) in enumerate(zip(three.segments, sources)):
        # Untouched frames: after the window into the segment, before the window out of it; they play 1:1 up to its last.
        first = max(segment.out_first, windows[k - 1][1] + 1 if k else 0)
        last = min(segment.out_last, windows[k][0] - 1 if k < len(windows) else clip.num_frames - 1)
        out = np.arange(first, last + 1)
        shown = (segment.source_last - (segment.out_last - out) - source.frames[0]).astype(int)
        assert len(out) > 20 and shown.min() >= 0
        assert _same_rotations(clip.rotation[out, 1:], source.rotation[shown, 1:]) < 1e-9  # every bone below the root as it was
        # The root: one rigid floor motion for the whole stretch (height untouched, heading turned by a constant).
        (position, heading), (own_position, own_heading) = _root_track(clip.take_frames(out)), _root_track(source.take_frames(shown))
        turn = heading[0] - own_heading[0]
        motion = align.floor_motion(turn, own_position[0, :2], position[0, :2])
        assert np.allclose(heading - own_heading, turn, atol=1e-9)
        assert np.allclose(own_position[:, :2] @ motion[:2, :2].T + motion[:2, 3], position[:, :2], atol=1e-9)
        assert np.allclose(position[:, 2], own_position[:, 2], atol=1e-9)


def test_every_junction_of_demo_walks_meets_the_transition_criteria(three):
    numbers = three.numbers
    assert numbers["worst_visibility"] <= 1.2 and numbers["root_speed_jump_ratio"] <= 1.0, numbers
    assert numbers["heading_snap_rad"] == 0.0 and numbers["skating_ratio"] <= 1.5, numbers
    assert numbers["duration_s"] == pytest.approx(three.clip.duration)
    assert numbers["trimmed_s"] == 0.0 and not three.loop and "seam_visibility" not in numbers
    # The walk keeps walking: the composition travels as far as its pieces' shown frames do, within a step.
    position, _ = _root_track(three.clip)
    assert np.linalg.norm(position[-1, :2] - position[0, :2]) > 0.9 * 1.2 * three.clip.duration
    assert all(isinstance(value, float) for value in numbers.values())
    assert sum(note.startswith("junction") for note in three.notes) == 2


@pytest.mark.parametrize("count", [1, 2])
def test_a_loop_closes_on_a_frame_of_the_first_piece_and_plays_twice_without_a_seam(walkers, count):
    slow, fast = walkers
    long_slow = _walker(frames=240)
    pieces = [Piece(long_slow, name="slow"), Piece(fast, name="fast")][:count]
    made = compose(pieces, loop=True)
    clip = made.clip
    assert made.loop and len(made.transitions) == count and len(made.segments) == count + 1
    first, last = made.segments[0], made.segments[-1]
    assert first.piece == last.piece == 0 and last.source_last == first.source_first and clip.frames[0] == first.source_first
    assert last.out_last == clip.num_frames - 1 and sum(s.out_last - s.out_first + 1 for s in made.segments) == clip.num_frames
    # Played twice, the wrap is no more visible than the first piece's own motion, and the loop keeps walking.
    played = cycles.chained_positions(clip, 0, cycles=2)
    reference = metrics.clip_baseline(long_slow).acceleration
    visibility = metrics.played_visibility(played, clip.dt, [clip.num_frames - 1], reference)
    assert visibility <= 1.0 and made.numbers["seam_visibility"] == pytest.approx(visibility, rel=0.05)
    travel = np.linalg.norm(played[clip.num_frames - 1, 0, :2] - played[0, 0, :2])
    assert travel > 0.5 and made.numbers["travel_per_cycle_m"] == pytest.approx(travel, rel=1e-6)
    # The cycle ends facing as it began (Blender's Cycles modifier offsets travel, it cannot turn).
    _, heading = _root_track(clip)
    assert abs(align.shortest_turn(heading[-1] - heading[0])) < 1e-6
    assert made.numbers["worst_visibility"] <= 1.2, made.numbers


def _spinning(clip, turns):
    """``clip`` whose root turns steadily by ``turns`` whole turns plus a quarter over the clip, its path turning along."""
    pose, _ = root_motion.root_frames(clip, 0)
    angle = 2.0 * np.pi * (turns + 0.25) * np.linspace(0.0, 1.0, clip.num_frames)
    step = np.diff(pose[:, :2, 3], axis=0)
    c, s = np.cos(angle[:-1]), np.sin(angle[:-1])
    path = np.concatenate([[pose[0, :2, 3]], pose[0, :2, 3] + np.cumsum(np.stack([c * step[:, 0] - s * step[:, 1], s * step[:, 0] + c * step[:, 1]], 1), 0)])
    turn = quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), angle)
    return root_motion.with_root_global(clip, 0, np.concatenate([path, pose[:, 2:3, 3]], axis=1), quat.multiply(turn, quat.from_matrix(pose[:, :3, :3])))


def test_a_loop_that_spins_whole_turns_keeps_spinning_instead_of_unwinding():
    """A dance spins: only the turn left over after whole turns is taken out to close the loop (Make Loop used to unwind them all)."""
    spinning = _spinning(_walker(frames=300), turns=2)
    made = compose([Piece(spinning, name="spin")], loop=True)
    _, own = _root_track(spinning)
    _, heading = _root_track(made.clip)
    own_rate, rate = np.diff(own).mean(), np.diff(heading).mean()
    # Unwinding two turns over the loop would take 4 pi / frames from every frame's turn.
    assert abs(rate - own_rate) < 0.5 * np.pi / made.clip.num_frames, (own_rate, rate)
    assert made.numbers["heading_snap_rad"] == 0.0 and made.numbers["seam_visibility"] <= 1.0, made.numbers


def test_a_given_point_method_and_length_are_used_and_reported(walkers):
    slow, fast = walkers
    made = compose([Piece(slow), Piece(fast)], [Junction(at=(120, 20), method="INERTIALIZE", length=0.4)])
    transition = made.transitions[0]
    assert (transition.frame_a, transition.frame_b, transition.method, transition.length) == (120, 20, "INERTIALIZE", 0.4)
    assert transition.candidates == [] and made.segments[0].source_last == 120 and made.segments[1].source_first == 21
    assert made.segments[0].out_last == 120 - slow.frames[0]  # A plays 1:1 from its first frame
    assert any("frames 120 -> 20 (given), INERTIALIZE 0.4 s" in note for note in made.notes)


def test_a_junction_that_stays_visible_is_a_warning_and_one_that_does_not_is_none(walkers):
    slow, fast = walkers
    seen = compose([Piece(slow, name="slow"), Piece(fast, name="fast")], [Junction(at=(100, 60), method="CROSSFADE", length=0.3)])
    assert seen.visible_junctions == [1] and len(seen.warnings) == 1
    assert seen.warnings[0].startswith("junction 1 stays visible: visibility ") and seen.warnings[0] in seen.notes
    hidden = compose([Piece(slow, name="invisible"), Piece(fast, name="fast")], [Junction(at=(70, 100), method="INERTIALIZE", length=0.3)])
    assert hidden.visible_junctions == [] and hidden.warnings == ()


def test_a_length_that_does_not_fit_is_refused_never_replaced(walkers):
    slow, fast = walkers
    with pytest.raises(CompositionError, match=r"junction 1 .*CROSSFADE 0.7 s does not fit .*leave the method and length to be chosen"):
        compose([Piece(slow), Piece(fast)], [Junction(at=(140, 20), method="CROSSFADE", length=0.7)])  # A ends 10 frames after 140


def test_without_align_the_next_piece_plays_where_it_stands(walkers):
    slow, fast = walkers
    made = compose([Piece(slow), Piece(fast)], align=False)
    window_end = made.transitions[0].window[1]
    segment = made.segments[1]
    out = np.arange(window_end + 1, segment.out_last + 1)
    shown = (segment.source_last - (segment.out_last - out) - fast.frames[0]).astype(int)
    assert np.allclose(_root_track(made.clip.take_frames(out))[0], _root_track(fast.take_frames(shown))[0], atol=1e-9)


def _held(clip, before, after):
    """``clip`` with its first pose held ``before`` frames and its last ``after`` frames (standing still)."""
    index = np.r_[np.zeros(before, dtype=int), np.arange(clip.num_frames), np.full(after, clip.num_frames - 1)]
    return clip.take_frames(index).with_channels(frames=clip.frames[0] + np.arange(len(index), dtype=float))


def test_trimming_cuts_the_idle_ends_and_says_how_much(walkers):
    slow, fast = walkers
    idle = _held(slow, 45, 30)
    cut_start, cut_end = trim.idle_ends(idle)
    lead = round(trim.LEAD_IN_SECONDS * idle.fps)
    assert 45 - lead - 6 <= cut_start <= 45 and 30 - lead - 6 <= cut_end <= 30  # the smoothing blurs the onset by a few frames
    assert trim.idle_ends(slow) == (0, 0)
    made = compose([Piece(idle, name="idle walk"), Piece(fast, name="fast")], trim=True)
    assert made.segments[0].source_first == idle.frames[cut_start] and made.clip.frames[0] == idle.frames[cut_start]
    assert made.numbers["trimmed_s"] == pytest.approx((cut_start + cut_end) / idle.fps)
    assert f"'idle walk': trimmed {cut_start / idle.fps:.2f} s idle at the start and {cut_end / idle.fps:.2f} s at the end" in made.notes
    untrimmed = compose([Piece(idle), Piece(fast)])
    assert untrimmed.segments[0].source_first == idle.frames[0] and untrimmed.numbers["trimmed_s"] == 0.0


def test_trimming_never_cuts_more_than_its_share(walkers):
    slow, _ = walkers
    mostly_still = _held(slow.slice_frames(0, 40), 100, 100)
    cut_start, cut_end = trim.idle_ends(mostly_still)
    limit = int(trim.MAX_TRIM_SHARE * mostly_still.num_frames)
    assert cut_start == cut_end == limit


def _renamed(clip, old, new):
    return clip.with_channels(bone_names=tuple(new if name == old else name for name in clip.bone_names))


def _nan(clip):
    location = clip.location.copy()
    location[5, 0, 0] = np.nan
    return clip.with_channels(location=location)


@pytest.mark.parametrize("case, message", [
    ("one piece", "needs at least two pieces, got 1"),
    ("no piece to loop", "needs at least one piece to loop, got 0"),
    ("not a list", "pieces must be a list of Piece"),
    ("reversed", "'b': the range 100-50 is reversed"),
    ("outside", "'b': the range 50-400 is not inside the clip's frames 1-150"),
    ("fractional", "'b': the range must be whole frame numbers"),
    ("too short", "'b' keeps 11 frames, under the 1 s a piece needs"),
    ("junction count", "2 junctions given for 2 pieces: there must be 1, one fewer than the pieces"),
    ("loop junction count", "1 junctions given for 2 pieces: there must be 2, as many as pieces with loop"),
    ("not a junction", "junction 1 is a dict, not a Junction"),
    ("method", "junction 1: unknown method 'SLERP'"),
    ("length", "junction 1: the blend length must be a positive number of seconds or None"),
    ("point", "junction 1: the point must be 'auto' or (frame_a, frame_b) whole frame numbers"),
    ("point outside", "junction 1: frame 170 is not in 'a''s kept frames 1-150"),
    ("frame rate", "'b' cannot follow 'a' (clip A: the first piece, clip B: 'b'): clip A plays at 30 fps and clip B at 60"),
    ("bones", "'b' cannot follow 'a' (clip A: the first piece, clip B: 'b'): clip B has no bone named 'Head'"),
    ("nan", "'b': the location channels contain NaN"),
])
def test_bad_input_gets_one_clear_line(walkers, case, message):
    slow, fast = walkers
    a, b = Piece(slow, name="a"), Piece(fast, name="b")
    arguments = {
        "one piece": ([a],), "no piece to loop": ([], None, True), "not a list": (a,),
        "reversed": ([a, Piece(fast, 100, 50, "b")],), "outside": ([a, Piece(fast, 50, 400, "b")],),
        "fractional": ([a, Piece(fast, 1.5, 40, "b")],), "too short": ([a, Piece(fast, 10, 20, "b")],),
        "junction count": ([a, b], [Junction(), Junction()]), "loop junction count": ([a, b], [Junction()], True),
        "not a junction": ([a, b], [{"at": "auto"}]), "method": ([a, b], [Junction(method="SLERP")]),
        "length": ([a, b], [Junction(length=-1.0)]), "point": ([a, b], [Junction(at=(12.5, 3))]),
        "point outside": ([a, b], [Junction(at=(170, 3))]),
        "frame rate": ([a, Piece(fast.with_channels(fps=60.0), name="b")],),
        "bones": ([a, Piece(_renamed(fast, "Head", "Skull"), name="b")],), "nan": ([a, Piece(_nan(fast), name="b")],),
    }[case]
    with pytest.raises(CompositionError) as raised:
        compose(*arguments)
    text = str(raised.value)
    assert message in text and "\n" not in text, text
    assert isinstance(raised.value, LoopsmithError)


def test_a_piece_too_short_to_leave_after_entering_is_named(walkers):
    slow, fast = walkers
    with pytest.raises(CompositionError, match=r"junction 2: .*'short'") as raised:
        compose([Piece(slow, name="a"), Piece(fast, 1, 45, "short"), Piece(slow, name="c")], junctions=[Junction(length=1.0)] * 2)
    assert "\n" not in str(raised.value)


def test_ten_pieces_compose_in_time_linear_in_their_length(walkers):
    """Each junction costs about the same whatever came before: ten pieces take about ten times two (run with -s for timings).

    Process time, not wall time: other processes on a shared machine do not count.
    """
    slow, fast = walkers
    timings = {}
    for count in (2, 10):
        started = time.process_time()
        made = compose([Piece(slow if k % 2 == 0 else fast, name=str(k)) for k in range(count)])
        timings[count] = time.process_time() - started
        assert len(made.transitions) == count - 1 and made.numbers["worst_visibility"] <= 1.2, made.numbers
    print(f"\ncompose: 2 pieces {timings[2]:.2f} s, 10 pieces {timings[10]:.2f} s")
    assert timings[10] < 2.0 * (10 - 1) * timings[2]  # quadratic growth would take ~ (10/2)^2 = 25 times as long

