"""Composition with a heading per piece, numpy only: 0 changes nothing, a turn leaves the next piece travelling that way,
made over the junction's blend without spinning in place or sliding planted feet; bad headings get one clear line."""

import numpy as np
import pytest

from core import demo
from core.compose import Piece, compose
from core.errors import CompositionError
from core.measure import transition as measure
from core.motion import contacts, quat, root as root_motion

TURN_TOLERANCE_DEGREES = 5.0
SKATING_TOLERANCE = 0.02  # metres per second of toe speed while planted, over the no-turn composition's


def _walker(frames=150, speed=1.2, period=1.07, seed=7):
    return demo.walk_cycle(num_frames=frames, speed=speed, period_seconds=period, seed=seed).clip


@pytest.fixture(scope="module")
def walkers():
    return _walker(), _walker(speed=1.8, period=0.8, seed=3)


def _composed(walkers, degrees):
    slow, fast = walkers
    return compose([Piece(slow, name="slow"), Piece(fast, name="fast", heading=np.radians(degrees))])


def turn_numbers(composition, root=0):
    """What a turned junction shows: (travel turn in degrees, the root's heading ``(F,)``, the window's frame-to-frame heading
    rates ``(W,)`` rad/s, the largest rate of the two clips' own, the window's toe skating per second).

    The travel turn: the root's horizontal travel over the second after the window against that over the second before the
    blend, the shortest signed angle.
    """
    clip = composition.clip
    transition = composition.transitions[0]
    pose, _ = root_motion.root_frames(clip, root)
    position = pose[:, :3, 3]
    heading = root_motion.heading(quat.from_matrix(pose[:, :3, :3]), root_motion.heading_axis(quat.from_matrix(pose[:, :3, :3])))
    second = int(round(clip.fps))
    (first, last), blend_first = transition.window, transition.blend_span[0]
    before = position[blend_first - 1] - position[max(blend_first - 1 - second, 0)]
    after = position[min(last + 1 + second, clip.num_frames - 1)] - position[last + 1]
    turn = np.degrees(np.arctan2(before[0] * after[1] - before[1] * after[0], before @ after))
    rates = np.abs(np.diff(heading[first - 1:last + 2])) * clip.fps
    positions = measure.clip_positions(clip, clip.bone_names)
    skating = contacts.toe_skating(positions, contacts.toe_joints(clip.bone_names, positions), clip.dt, slice(first - 1, last + 2))
    return float(turn), heading, rates, transition.metrics.clips_heading_rate, skating


def test_heading_zero_is_the_composition_without_one(walkers):
    slow, fast = walkers
    plain = compose([Piece(slow, name="slow"), Piece(fast, name="fast")])
    zero = _composed(walkers, 0.0)
    assert np.array_equal(plain.clip.location, zero.clip.location) and np.array_equal(plain.clip.rotation, zero.clip.rotation)
    assert [t.window for t in plain.transitions] == [t.window for t in zero.transitions]


@pytest.mark.parametrize("degrees", [90.0, -90.0, 45.0, 180.0])
def test_the_next_piece_travels_the_way_asked_turned_over_the_blend(walkers, degrees):
    straight, turned = _composed(walkers, 0.0), _composed(walkers, degrees)
    base_turn, *_ = turn_numbers(straight)
    turn, heading, rates, clips_rate, skating = turn_numbers(turned)
    *_, straight_skating = turn_numbers(straight)
    transition = turned.transitions[0]
    first, last = transition.blend_span
    spread = abs(np.radians(degrees)) / transition.length
    print(f"\nface {degrees:+g}: travel turned {turn:+.1f} degrees (without: {base_turn:+.1f}), blend {transition.method} "
          f"{transition.length:.2f} s, heading rate {rates.max():.2f} rad/s (clips {clips_rate:.2f}, turn spread {spread:.2f}), "
          f"toe skating {skating:.4f} (without the turn {straight_skating:.4f}) m/s, visibility {transition.metrics.visibility:.2f}")
    assert abs(((turn - degrees + 180.0) % 360.0) - 180.0) <= TURN_TOLERANCE_DEGREES
    # The turn happens over the blend: the heading outside it changes as the clips' own does.
    change = np.degrees(heading[last + 1] - heading[first - 1])
    assert abs(abs(change) - abs(degrees)) <= 15.0 and np.sign(change) == np.sign(degrees)
    assert rates.max() <= 2.0 * clips_rate + 2.0 * spread  # no spin: never faster than the spread turn plus the clips' own
    assert skating <= straight_skating + SKATING_TOLERANCE
    for clip in (turned.clip,):
        assert np.isfinite(clip.location).all() and np.isfinite(clip.rotation).all()
        assert np.allclose(np.linalg.norm(clip.rotation, axis=-1), 1.0, atol=1e-9)


def test_the_turn_is_monotonic_over_the_blend_and_the_frames_before_it_are_untouched(walkers):
    straight, turned = _composed(walkers, 0.0), _composed(walkers, 90.0)
    first, last = turned.transitions[0].blend_span
    assert np.array_equal(turned.clip.rotation[:first - 1], straight.clip.rotation[:first - 1])
    _, heading, *_ = turn_numbers(turned)
    _, own, *_ = turn_numbers(straight)
    # The turn itself (the heading beyond the straight composition's, which has no turn of its own here) never goes back.
    added = np.diff(heading[first - 1:last + 2] - own[first - 1:last + 2])
    assert (added >= -0.02).all(), added.min()


def test_a_later_piece_of_three_turns_and_the_notes_say_so(walkers):
    slow, fast = walkers
    composed = compose([Piece(slow, name="slow"), Piece(fast, name="fast"), Piece(slow, name="slow again", heading=np.radians(-90.0))])
    assert any("'slow again' turned -90 degrees" in note for note in composed.notes)
    assert len(composed.transitions) == 2


@pytest.mark.parametrize("pieces, message", [
    (lambda slow, fast: [Piece(slow, heading=0.5), Piece(fast)], "piece 1 opens the composition facing its own way: its heading must be 0, got 0.5"),
    (lambda slow, fast: [Piece(slow), Piece(fast, heading=4.0)], "piece 2: the heading must be radians from -pi to pi, got 4.0"),
    (lambda slow, fast: [Piece(slow), Piece(fast, heading=float("nan"))], "piece 2: the heading must be radians from -pi to pi, got nan"),
    (lambda slow, fast: [Piece(slow), Piece(fast, heading="90")], "piece 2: the heading must be radians from -pi to pi, got '90'"),
])
def test_a_bad_heading_is_one_line(walkers, pieces, message):
    with pytest.raises(CompositionError) as error:
        compose(pieces(*walkers))
    assert str(error.value) == message and "\n" not in str(error.value)
