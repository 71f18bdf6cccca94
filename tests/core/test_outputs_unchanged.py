"""Work on speed changes no output: the clips the BVH reader gives, Make Loop (Best Measured over Find Loop's range) and
Make Transition on real Bandai clips, against fingerprints recorded before it (``unchanged_outputs.json``), within 1e-6.

A fingerprint holds every bone's location and rotation at the first, middle and last frames and their means over all
frames, and every number the loop's or the transition's report gives. Record them again only for a change meant to
change outputs: ``.venv/core/bin/python tests/core/test_outputs_unchanged.py`` (from the checkout, with ../shared beside it).
"""

import dataclasses
import json
import pathlib
import sys

import numpy as np

RECORDED = pathlib.Path(__file__).with_name("unchanged_outputs.json")
CLIPS = ("dataset-1_walk_normal_001.bvh", "dataset-1_run_normal_001.bvh", "dataset-1_walk-left_normal_001.bvh",
         "dataset-1_dance-short_normal_001.bvh")
LOOPED = CLIPS[:3]
TRANSITIONS = ((CLIPS[0], CLIPS[1]), (CLIPS[1], CLIPS[0]))
TOLERANCE = 1e-6


def _clip_print(clip):
    """The numbers a clip is known by: channels at three frames and their means, its rate and frames."""
    middle = clip.num_frames // 2
    return {"fps": clip.fps, "frames": [clip.frames[0], clip.frames[-1]], "bones": list(clip.bone_names),
            **{f"{name}_{label}": channel[index].tolist()
               for name, channel in (("location", clip.location), ("rotation", clip.rotation))
               for label, index in (("first", 0), ("middle", middle), ("last", -1))},
            "location_mean": clip.location.mean(axis=0).tolist(), "rotation_mean": clip.rotation.mean(axis=0).tolist()}


def _numbers(value):
    """A dataclass's numeric fields (nested ones flattened with dots), as floats."""
    found = {}
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if dataclasses.is_dataclass(item):
            found.update({f"{field.name}.{key}": number for key, number in _numbers(item).items()})
        elif isinstance(item, (int, float, np.floating, np.integer)) and not isinstance(item, bool):
            found[field.name] = float(item)
        elif isinstance(item, np.ndarray) and item.dtype.kind == "f" and item.size <= 64:
            found[field.name] = item.ravel().tolist()
    return found


def fingerprints(folder):
    """Every fingerprint this test compares, computed with the checkout's code on the Bandai clips in ``folder``."""
    from core.formats import bvh, bvh_clip
    from core.loop import detect, make as loop
    from core.transition import make as transition

    clips = {}
    for name in CLIPS:
        info = bvh.read_bvh(folder / name)
        up = bvh.up_axis(info)
        clips[name] = bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)
    found = {f"read {name}": _clip_print(clip) for name, clip in clips.items()}
    for name in LOOPED:
        (start, end), _ = detect.loop_range(clips[name])
        result = loop.make_loop(clips[name], start, end)
        found[f"loop {name}"] = {"range": [start, end], "method": result.method, "root": result.root, "clip": _clip_print(result.clip),
                                 "before": _numbers(result.before), "after": _numbers(result.after), "body": _numbers(result.body),
                                 "largest_step_ratio": loop.largest_step_ratio(result),
                                 "tried": {trial.method: _numbers(trial.seam) for trial in result.tried}}
    for first, second in TRANSITIONS:
        made = transition.make_transition(clips[first], clips[second])
        found[f"transition {first} -> {second}"] = {
            "at": [made.frame_a, made.frame_b], "method": made.method, "length": made.length, "window": list(made.window),
            "clip": _clip_print(made.clip), "metrics": _numbers(made.metrics),
            "candidates": [[candidate.frame_a, candidate.frame_b, candidate.cost] for candidate in made.candidates[:5]]}
    return found


def _differences(recorded, computed, where=""):
    """Where ``computed`` differs from ``recorded``: a key missing or added, a text unequal, a number off by more than
    TOLERANCE (absolute, or relative to a number larger than 1)."""
    if isinstance(recorded, dict) and isinstance(computed, dict):
        found = [f"{where}{key}: missing" for key in sorted(recorded.keys() - computed.keys())]
        found += [f"{where}{key}: new" for key in sorted(computed.keys() - recorded.keys())]
        for key in sorted(recorded.keys() & computed.keys()):
            found += _differences(recorded[key], computed[key], f"{where}{key}.")
        return found
    if not (_numeric(recorded) and _numeric(computed)):  # names, methods
        return [] if recorded == computed else [f"{where[:-1]}: {recorded!r} -> {computed!r}"]
    wanted, got = np.asarray(recorded, dtype=float), np.asarray(computed, dtype=float)
    if wanted.shape != got.shape:
        return [f"{where[:-1]}: shape {wanted.shape} -> {got.shape}"]
    off = np.abs(wanted - got) / np.maximum(1.0, np.abs(wanted))
    return [f"{where[:-1]}: off by up to {off.max():.2g}"] if off.size and off.max() > TOLERANCE else []


def _numeric(value):
    """Whether ``value`` is a number or (nested) lists of numbers."""
    return isinstance(value, list) and all(map(_numeric, value)) or isinstance(value, (int, float)) and not isinstance(value, bool)


def test_the_outputs_are_the_ones_recorded_before(mocap_dir):
    recorded = json.loads(RECORDED.read_text())
    assert _differences(recorded, json.loads(json.dumps(fingerprints(mocap_dir)))) == []


def test_a_changed_output_is_caught():
    recorded = {"loop": {"clip": {"rotation_first": [[1.0, 0.0, 0.0, 0.0]]}, "method": "CUBIC"}}
    nudged = {"loop": {"clip": {"rotation_first": [[1.0, 0.0, 2e-6, 0.0]]}, "method": "CUBIC"}}
    assert _differences(recorded, nudged) == ["loop.clip.rotation_first: off by up to 2e-06"]
    assert _differences(recorded, {"loop": {"clip": recorded["loop"]["clip"], "method": "SPRING"}}) == ["loop.method: 'CUBIC' -> 'SPRING'"]
    assert _differences(recorded, {"loop": {"method": "CUBIC"}}) == ["loop.clip: missing"]


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
    shared = pathlib.Path(__file__).resolve().parents[3] / "shared" / "mocap" / "bandai"
    RECORDED.write_text(json.dumps(fingerprints(shared), indent=None, separators=(",", ":")) + "\n")
    print(f"recorded {RECORDED} ({RECORDED.stat().st_size // 1024} KB)")
