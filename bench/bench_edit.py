"""Motion edits end to end against the bulk I/O floor and a per-key Python baseline.

60 bones x 10,000 frames, location + quaternion + scale on every frame, the
root travelling. Each edit runs as the batch job does: read the action,
one core call, write a new action. Resample and retime write as many frames
as they read here (30 -> 30000/1001 fps, speed 1.001), so the floor (read
and write every key in bulk, nothing computed) is their own; blend and
splice read a second action. The baseline retimes the way a straightforward
add-on does: evaluate every curve at every new frame, insert key by key.
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_edit.py``.
"""

import sys

import common

from bench_bridge import SUBMODULES, floor  # noqa: E402
from bench_make_loop import travelling_scene  # noqa: E402

EDIT_SUBMODULES = SUBMODULES + ("core.edit.timing", "core.edit.freeze", "core.edit.mirror", "core.edit.blend", "core.edit.splice")
BASELINE_CURVES = 12  # the per-key baseline is timed on these curves and scaled to all of them


def _job(edit):
    """A variant: read the source action, ``edit(ext, clip)`` -> EditResult, write the result as a new action."""

    def run(ext, obj):
        import bpy

        source = bpy.data.actions["source"]
        ext.bridge.action_api.assign_action(obj, source)
        clip = ext.bridge.clip_io.read_clip(obj)
        edited = edit(ext, clip)
        ext.bridge.clip_io.write_clip(obj, edited.clip, "edited", source_action=source)

    return run


def _other(ext, clip):
    """A second motion for blend and splice: the same clip played 3 % slower from another start."""
    return ext.core.edit.timing.retime(clip.slice_frames(100, clip.num_frames), speed=0.97).clip


def per_key_retime(ext, obj):
    """Evaluate each curve at every new (fractional) frame and insert key by key, on BASELINE_CURVES curves."""
    import bpy

    action = bpy.data.actions["source"]
    first, last = (int(f) for f in action.frame_range)
    curves = ext.bridge.action_api.fcurves_of(action, obj)[:BASELINE_CURVES]
    sink = ext.bridge.action_api.CurveSink(bpy.data.actions.new("baseline"), obj)
    count = last - first + 1
    for fcurve in curves:
        points = sink.new_fcurve(fcurve.data_path, fcurve.array_index).keyframe_points
        for k in range(count):
            points.insert(first + k, fcurve.evaluate(first + k * 1.001))


VARIANTS = {
    "floor": floor,
    "resample": _job(lambda ext, clip: ext.core.edit.timing.resample(clip, 30000 / 1001)),
    "retime": _job(lambda ext, clip: ext.core.edit.timing.retime(clip, speed=1.001)),
    "freeze": _job(lambda ext, clip: ext.core.edit.freeze.freeze(clip, clip.bone_names[5:15], frames=(2000, 6000))),
    "blend": _job(lambda ext, clip: ext.core.edit.blend.blend(clip, _other(ext, clip), 0.5, "FRACTION")),
    "splice": _job(lambda ext, clip: ext.core.edit.splice.splice(clip, _other(ext, clip), clip.bone_names[1], "NONE")),
    "baseline": per_key_retime,
}


def main():
    args = common.size_arguments(__doc__)
    if args.variant:
        ext, obj = travelling_scene(args.bones, args.frames, EDIT_SUBMODULES)
        repeats = 1 if args.variant in ("baseline", "blend", "splice") else 3
        seconds, peak = common.measure(lambda: VARIANTS[args.variant](ext, obj), repeats, lambda: common.keep_only_action(ext, obj, "source"))
        common.finish({"seconds": seconds, "peak_mb": peak})

    print(f"edit benchmark: {args.bones} bones x {args.frames} frames, every channel keyed, root travelling")
    results = {}
    for name in VARIANTS:
        try:
            results[name] = common.run_variant(__file__, name, "--bones", args.bones, "--frames", args.frames)
        except RuntimeError as error:
            print(f"  {name}: failed: {str(error).strip().splitlines()[-1]}")
    base = results["floor"]["seconds"]
    print(f"  floor (bulk read + write of every key) {base:.2f} s / {results['floor']['peak_mb']:.0f} MB")
    for name, target in (("resample", 1.3), ("retime", 1.3), ("freeze", None), ("blend", None), ("splice", None)):
        if name in results:
            r = results[name]
            goal = f" (target <= {target:g}x)" if target else ""
            print(f"  {name:9s} read + edit + write {r['seconds']:.2f} s / {r['peak_mb']:.0f} MB: {r['seconds'] / base:.2f}x the floor{goal}")
    if "baseline" in results and "retime" in results:
        baseline = results["baseline"]["seconds"] * 10 * args.bones / BASELINE_CURVES
        print(f"  per-key retime baseline {baseline:.0f} s (measured on {BASELINE_CURVES} of {10 * args.bones} curves, scaled): "
              f"{baseline / results['retime']['seconds']:.0f}x slower than retime")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
