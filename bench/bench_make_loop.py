"""Make Loop end to end against the bulk I/O floor and a per-key Python baseline.

60 bones x 10,000 frames, location + quaternion + scale on every frame, the
root travelling. Also times the core stitching alone on 100,000 frames.
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_make_loop.py``.
"""

import sys
import time

import common

import numpy as np  # noqa: E402

from bench_bridge import SUBMODULES, floor  # noqa: E402

LOOP_SUBMODULES = SUBMODULES + ("core.loop.make", "core.loop.stitch", "bridge.cycles", "operators.make_loop")


def travelling_scene(bones, frames, submodules=LOOP_SUBMODULES, make_clip=None):
    """The extension enabled (with ``submodules`` reachable) and an armature playing a travelling clip as the action "source".

    make_clip: ``make_clip(ext, bones, frames)`` gives the clip (default :func:`travelling_clip`)."""
    import bpy

    import dev_extension

    ext, _ = dev_extension.enable(submodules)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.render.fps = 30
    clip = (make_clip or travelling_clip)(ext, bones, frames)
    obj = ext.bridge.armature.create_armature(bpy.context, clip, "Bench")
    ext.bridge.clip_io.write_clip(obj, clip, "source")
    return ext, obj


def travelling_clip(ext, bones, frames):
    clip = common.large_clip(ext, bones, frames)
    location = clip.location.copy()
    location[:, 0, 1] += np.arange(frames) * 0.04  # the root walks 1.2 m/s
    return clip.with_channels(location=location)


def make_loop(ext, obj):
    """The operator, as the button runs it."""
    import bpy

    ext.bridge.action_api.assign_action(obj, bpy.data.actions["source"])
    bpy.ops.loopsmith.make_loop(range_mode="ACTION")


BASELINE_CURVES = 12  # the per-key baseline takes minutes for every curve: it is timed on these and scaled


def make_loop_job(ext, obj):
    """Read, stitch, write: the same calls as the operator, as the batch command runs them (no undo step)."""
    import bpy

    source = bpy.data.actions["source"]
    ext.bridge.action_api.assign_action(obj, source)
    clip = ext.bridge.clip_io.read_clip(obj)
    result = ext.core.loop.make.make_loop(clip, int(clip.frames[0]), int(clip.frames[-1]))
    ext.bridge.clip_io.write_loop(obj, result, source)


def per_key_baseline(ext, obj):
    """The older add-on's way: evaluate per frame, blend in Python, insert key by key.

    Runs on the first BASELINE_CURVES curves; main() scales the time to all of them.
    """
    import bpy

    action = bpy.data.actions["source"]
    first, last = (int(f) for f in action.frame_range)
    curves = ext.bridge.action_api.fcurves_of(action, obj)[:BASELINE_CURVES]
    sink = ext.bridge.action_api.CurveSink(bpy.data.actions.new("baseline"), obj)
    blend = 10
    for fcurve in curves:
        values = [fcurve.evaluate(f) for f in range(first, last + 1)]
        for i in range(blend):  # its 10-frame blend towards the first frame
            t = (i / blend) ** 0.5
            values[-blend + i] = (1 - t) * values[-blend + i] + t * values[0]
        points = sink.new_fcurve(fcurve.data_path, fcurve.array_index).keyframe_points
        for offset, value in enumerate(values):
            points.insert(first + offset, value)


def floor_in_undo_operator(ext, obj):
    """The same bulk floor run inside an operator with UNDO, as Make Loop's button runs: its
    action assigned to the armature, Blender's undo step and depsgraph update included."""
    import bpy

    class BENCH_OT_floor(bpy.types.Operator):
        bl_idname = "bench.floor"
        bl_label = "Floor"
        bl_options = {"REGISTER", "UNDO"}

        def execute(self, context):
            sink = floor(ext, obj)
            ext.bridge.action_api.assign_action(obj, sink.action, sink.slot)
            return {"FINISHED"}

    if not hasattr(bpy.types, "BENCH_OT_floor"):
        bpy.utils.register_class(BENCH_OT_floor)
    bpy.ops.bench.floor()


VARIANTS = {"floor": floor, "floor_undo": floor_in_undo_operator, "job": make_loop_job, "make_loop": make_loop, "baseline": per_key_baseline}


def core_only(frames, bones=60):
    """Seconds of the core's stitching (positions and rotations) on a large clip, best of 3."""
    import pathlib
    import types

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from core.motion import clip as clip_module, quat, rotation_modes
    from core.loop import stitch

    ext = types.SimpleNamespace(core=types.SimpleNamespace(motion=types.SimpleNamespace(clip=clip_module, quat=quat, rotation_modes=rotation_modes)))
    clip = common.large_clip(ext, bones, frames)
    params = stitch.StitchParameters(method="CUBIC")  # the stitching functions take one method
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        stitch.stitch_vectors(clip.location, clip.dt, params)
        stitch.stitch_rotations(clip.rotation, clip.dt, params)
        stitch.stitch_vectors(clip.scale, clip.dt, params)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    args = common.size_arguments(__doc__)
    if args.variant:
        ext, obj = travelling_scene(args.bones, args.frames)
        repeats = 1 if args.variant == "baseline" else 5
        seconds, peak = common.measure(lambda: VARIANTS[args.variant](ext, obj), repeats, lambda: common.keep_only_action(ext, obj, "source"))
        common.finish({"seconds": seconds, "peak_mb": peak})

    print(f"make-loop benchmark: {args.bones} bones x {args.frames} frames, every channel keyed, root travelling")
    results = {name: common.run_variant(__file__, name, "--bones", args.bones, "--frames", args.frames) for name in VARIANTS}
    f, u, j, m, b = (results[name] for name in ("floor", "floor_undo", "job", "make_loop", "baseline"))
    curves = 10 * args.bones
    baseline = b["seconds"] * curves / BASELINE_CURVES
    print(f"  floor {f['seconds']:.2f} s | make_loop read + stitch + write {j['seconds']:.2f} s / {j['peak_mb']:.0f} MB "
          f"(floor {f['peak_mb']:.0f} MB) | per-key baseline {baseline:.0f} s ({b['seconds']:.1f} s measured on {BASELINE_CURVES} "
          f"of {curves} curves, scaled)")
    print(f"  make_loop / floor: {j['seconds'] / f['seconds']:.2f}x (target <= 1.5x); baseline / make_loop: {baseline / j['seconds']:.0f}x (target >= 10x)")
    print(f"  as the undoable operator (bpy.ops: undo step, depsgraph update of the newly assigned action): {m['seconds']:.2f} s, "
          f"{m['seconds'] / u['seconds']:.2f}x the floor run the same way ({u['seconds']:.2f} s)")
    seconds = core_only(100_000, args.bones)
    print(f"  core stitching alone, 100,000 frames x {args.bones} bones: {seconds:.2f} s (target <= 1 s)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
