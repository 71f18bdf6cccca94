"""Headings on real clips (core only): Bandai walks composed with the second turned 90 degrees either way travel that way
after the junction, turned over its blend without spinning in place or sliding planted feet more than the straight
composition; CMU's dance takes composed with their idle ends trimmed. Run with -s for the numbers."""

import functools
import pathlib
import sys

import numpy as np
import pytest

from core.compose import Piece, compose, trim
from core.formats import acclaim, bvh, bvh_clip

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "core"))
from test_core_compose_face import SKATING_TOLERANCE, TURN_TOLERANCE_DEGREES, turn_numbers  # noqa: E402

WALK, WALK_2 = "dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh"
TAKES = ("05_01", "05_02", "05_03")


@functools.lru_cache(maxsize=None)
def _clip(path):
    info = bvh.read_bvh(path)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


@functools.lru_cache(maxsize=None)
def _walks(folder):
    return _clip(folder / WALK), _clip(folder / WALK_2)


@functools.lru_cache(maxsize=None)
def _composed(folder, degrees):
    first, second = _walks(folder)
    return compose([Piece(first, name="walk"), Piece(second, name="walk 2", heading=np.radians(degrees))])


@pytest.mark.parametrize("degrees", [90.0, -90.0])
def test_bandai_walks_turned_travel_that_way_without_spin_or_skating(mocap_dir, degrees):
    straight, turned = _composed(mocap_dir, 0.0), _composed(mocap_dir, degrees)
    root = turned.transitions[0].metrics and _walks(mocap_dir)[0].bone_index(_root_name(turned))
    base_turn, _, base_rates, _, straight_skating = turn_numbers(straight, root)
    turn, heading, rates, clips_rate, skating = turn_numbers(turned, root)
    transition = turned.transitions[0]
    first, last = transition.blend_span
    spread = abs(np.radians(degrees)) / transition.length
    print(f"\nBandai walk -> walk 2, face {degrees:+g}: travel turned {turn:+.1f} degrees (straight: {base_turn:+.1f}), blend "
          f"{transition.method} {transition.length:.2f} s, heading rate {rates.max():.2f} rad/s (clips {clips_rate:.2f}, turn spread "
          f"{spread:.2f}, straight {base_rates.max():.2f}), toe skating {skating:.4f} m/s (straight {straight_skating:.4f}), "
          f"visibility {transition.metrics.visibility:.2f} (straight {straight.transitions[0].metrics.visibility:.2f})")
    assert abs(((turn - base_turn - degrees + 180.0) % 360.0) - 180.0) <= TURN_TOLERANCE_DEGREES
    change = np.degrees(heading[last + 1] - heading[first - 1])
    assert np.sign(change) == np.sign(degrees) and abs(change) <= abs(degrees) + 30.0
    assert rates.max() <= 2.0 * clips_rate + 2.0 * spread
    assert skating <= straight_skating + SKATING_TOLERANCE
    assert np.isfinite(turned.clip.location).all() and np.allclose(np.linalg.norm(turned.clip.rotation, axis=-1), 1.0, atol=1e-9)


def _root_name(composition):
    """The travelling root the junction aligned (the Bandai clips' hips)."""
    clip = composition.clip
    from core.motion import root as root_motion
    return clip.bone_names[root_motion.find_moving_root(clip)]


@pytest.fixture(scope="module")
def takes(mocap_dir):
    folder = mocap_dir.parent / "cmu-dance"
    if not (folder / "05.asf").is_file():
        pytest.skip(f"CMU's dance takes not found in {folder}")
    return {take: acclaim.read_acclaim(folder / "05.asf", folder / f"{take}.amc") for take in TAKES}


def test_the_dance_takes_trimmed_and_composed(takes):
    for take, clip in takes.items():
        start, end = trim.idle_ends(clip)
        energy = trim.motion_energy(clip)
        print(f"\n{take}: {clip.num_frames} frames at {clip.fps:g} fps, trimmed {start} at the start ({start / clip.fps:.2f} s) and "
              f"{end} at the end ({end / clip.fps:.2f} s), keeps frames {start + 1}-{clip.num_frames - end}; energy at the ends "
              f"{energy[0]:.2f} / {energy[-1]:.2f}, typical {np.percentile(energy, trim.TYPICAL_PERCENTILE):.2f} m/s")
    composed = compose([Piece(clip, name=take) for take, clip in takes.items()], trim=True)
    visibilities = [t.metrics.visibility for t in composed.transitions]
    print("compose 05_01 05_02 05_03 --trim:", ", ".join(f"junction {k + 1} visibility {v:.2f}" for k, v in enumerate(visibilities)),
          "|", "; ".join(note for note in composed.notes if "trimmed" in note))
    turned = compose([Piece(clip, name=take, heading=np.radians(90.0) if take == "05_02" else 0.0) for take, clip in takes.items()], trim=True)
    print("the same with 05_02 turned 90 degrees:", ", ".join(f"junction {k + 1} visibility {t.metrics.visibility:.2f}, heading rate "
                                                             f"{t.metrics.heading_rate:.2f} (clips {t.metrics.clips_heading_rate:.2f}) rad/s, skating "
                                                             f"{t.metrics.skating:.3f} (clips {t.metrics.clips_skating:.3f})"
                                                             for k, t in enumerate(turned.transitions)))
    assert len(visibilities) == 2 and composed.numbers["trimmed_s"] > 0.0
    assert np.isfinite(turned.clip.location).all()
