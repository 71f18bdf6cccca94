"""Bridge read + write against the bulk I/O floor and a naive per-frame/per-key baseline.

60 bones x 10,000 frames, location + rotation + scale keyed on every frame
(600 curves, 6 M keys), once with quaternion bones and once with Euler ZXY
bones. Run: ``.venv/bpy-5.0.1/bin/python bench/bench_bridge.py``.
"""

import argparse
import sys

import common

import numpy as np  # noqa: E402

SUBMODULES = ("core.motion.clip", "core.motion.quat", "core.motion.rotation_modes", "bridge.clip_io", "bridge.armature", "bridge.action_api")


def _scene(mode, bones, frames):
    import bpy

    import dev_extension

    ext, _ = dev_extension.enable(SUBMODULES)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.render.fps = 30
    clip = common.large_clip(ext, bones, frames, mode)
    obj = ext.bridge.armature.create_armature(bpy.context, clip, "Bench")
    ext.bridge.clip_io.write_clip(obj, clip, "source")
    return ext, obj


def floor(ext, obj):
    """Raw bulk I/O: foreach_get every curve, then add + foreach_set + update into a new action; returns its CurveSink."""
    import bpy

    action = obj.animation_data.action
    curves = ext.bridge.action_api.fcurves_of(action, obj)
    data = []
    for fcurve in curves:
        co = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
        fcurve.keyframe_points.foreach_get("co", co)
        data.append((fcurve.data_path, fcurve.array_index, co))
    sink = ext.bridge.action_api.CurveSink(bpy.data.actions.new("floor"), obj)
    for path, index, co in data:
        target = sink.new_fcurve(path, index)
        target.keyframe_points.add(len(co) // 2)
        target.keyframe_points.foreach_set("co", co)
        target.update()
    return sink


def bridge(ext, obj):
    source = obj.animation_data.action
    clip = ext.bridge.clip_io.read_clip(obj)
    ext.bridge.clip_io.write_clip(obj, clip, "bridge", source_action=source)


def naive(ext, obj):
    """What a straightforward add-on does: evaluate per frame, then kp.co per key."""
    import bpy

    action = obj.animation_data.action
    first, last = (int(f) for f in action.frame_range)
    curves = ext.bridge.action_api.fcurves_of(action, obj)
    data = [(fc.data_path, fc.array_index, [fc.evaluate(f) for f in range(first, last + 1)]) for fc in curves]
    sink = ext.bridge.action_api.CurveSink(bpy.data.actions.new("naive"), obj)
    for path, index, values in data:
        target = sink.new_fcurve(path, index)
        points = target.keyframe_points
        points.add(len(values))
        for offset, (point, value) in enumerate(zip(points, values)):
            point.co = (first + offset, value)
        target.update()


VARIANTS = {"floor": floor, "bridge": bridge, "naive": naive}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant")
    parser.add_argument("--bones", type=int, default=60)
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--mode", default="QUATERNION")
    args, _ = parser.parse_known_args()
    if args.variant:
        ext, obj = _scene(args.mode, args.bones, args.frames)
        repeats = 1 if args.variant == "naive" else 5
        seconds, peak = common.measure(lambda: VARIANTS[args.variant](ext, obj), repeats, lambda: common.keep_only_action(ext, obj, "source"))
        common.finish({"seconds": seconds, "peak_mb": peak})

    print(f"bridge benchmark: {args.bones} bones x {args.frames} frames, location + rotation + scale on every frame")
    for mode in ("QUATERNION", "ZXY"):
        results = {name: common.run_variant(__file__, name, "--bones", args.bones, "--frames", args.frames, "--mode", mode) for name in VARIANTS}
        f, b, n = results["floor"], results["bridge"], results["naive"]
        print(f"  {mode:10s} floor {f['seconds']:.2f} s / {f['peak_mb']:.0f} MB | bridge {b['seconds']:.2f} s / {b['peak_mb']:.0f} MB"
              f" | naive {n['seconds']:.2f} s")
        print(f"  {'':10s} bridge / floor: time {b['seconds'] / f['seconds']:.2f}x (target <= 1.3x),"
              f" memory {b['peak_mb'] / max(f['peak_mb'], 1e-9):.2f}x (target <= 1.5x); naive / bridge: {n['seconds'] / b['seconds']:.1f}x")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
