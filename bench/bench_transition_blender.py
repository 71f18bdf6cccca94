"""Make Transition end to end in Blender against the bulk I/O floor.

Two 10,000-frame actions of a 60-bone armature (location + quaternion + scale
keyed on every frame, the root travelling; the target is the source's motion
a hundred seconds later), blended with every choice left automatic. The floor
is raw bulk I/O of the same curves: ``foreach_get`` of both actions, then
``add`` + ``foreach_set`` + ``update`` of an action as long as both. The button
is also held against the same floor run as an undoable operator through
``bpy.ops`` (what every button pays besides its work: the view-layer updates
``bpy.ops`` runs around it, the undo push), as bench_operator holds Make Loop. The ratios are
of the best of three runs of each, interleaved in one process; each variant's
peak memory is read from one run in a process of its own.
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_transition_blender.py``.
"""

import os
import sys
import time

import common

import numpy as np  # noqa: E402

from bench_make_loop import LOOP_SUBMODULES, travelling_clip  # noqa: E402

SUBMODULES = LOOP_SUBMODULES + ("core.transition.make", "operators.make_transition")
TARGET_OFFSET = 3000  # frames: the target plays the source's motion from here on


def _scene(bones, frames):
    import bpy

    import dev_extension

    ext, _ = dev_extension.enable(SUBMODULES)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.render.fps = 30
    clip = travelling_clip(ext, bones, frames + TARGET_OFFSET)
    obj = ext.bridge.armature.create_armature(bpy.context, clip, "Bench")
    ext.bridge.clip_io.write_clip(obj, clip.slice_frames(TARGET_OFFSET, frames + TARGET_OFFSET).with_channels(frames=clip.frames[:frames]), "target")
    ext.bridge.clip_io.write_clip(obj, clip.slice_frames(0, frames), "source")
    return ext, obj


def floor(ext, obj):
    """Raw bulk I/O: foreach_get every curve of both actions, then one action holding both's keys end to end."""
    import bpy

    data = {}
    for name in ("source", "target"):
        for fcurve in ext.bridge.action_api.fcurves_of(bpy.data.actions[name], obj):
            co = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
            fcurve.keyframe_points.foreach_get("co", co)
            data.setdefault((fcurve.data_path, fcurve.array_index), []).append(co)
    sink = ext.bridge.action_api.CurveSink(bpy.data.actions.new("floor"), obj)
    for (path, index), (first, second) in data.items():
        second = second.copy()
        second[0::2] += first[-2] + 1.0  # the target's keys after the source's
        co = np.concatenate([first, second])
        target = sink.new_fcurve(path, index)
        target.keyframe_points.add(len(co) // 2)
        target.keyframe_points.foreach_set("co", co)
        target.update()
    ext.bridge.action_api.assign_action(obj, sink.action, sink.slot)


def floor_operator(ext, obj):
    """The floor as an undoable button: :func:`floor` in an operator run through bpy.ops."""
    import bpy

    if not hasattr(bpy.types, "BENCH_OT_transition_floor"):
        class BENCH_OT_transition_floor(bpy.types.Operator):
            bl_idname = "bench.transition_floor"
            bl_label = "Read both, write one"
            bl_options = {"REGISTER", "UNDO"}

            def execute(self, context):
                floor(ext, context.active_object)
                return {"FINISHED"}

        bpy.utils.register_class(BENCH_OT_transition_floor)
    bpy.ops.bench.transition_floor()


def job(ext, obj):
    """Read both actions, make the transition, write it: the operator's calls without its undo step."""
    import bpy

    source, target = bpy.data.actions["source"], bpy.data.actions["target"]
    clip_a = ext.bridge.clip_io.read_clip(obj, action=source)
    clip_b = ext.bridge.clip_io.read_clip(obj, action=target)
    transition = ext.core.transition.make.make_transition(clip_a, clip_b)
    ext.bridge.clip_io.write_clip(obj, transition.clip, "source_to_target", source_action=source, frame_range=True)


def operator(ext, obj):
    """The button: bpy.ops with its undo step, the distance picture and the list."""
    import bpy

    bpy.ops.loopsmith.make_transition(target_action="target", point_mode="AUTO")


def core_only(ext, obj):
    """make_transition alone on the two clips read once, best of 3 (seconds)."""
    import bpy

    clips = [ext.bridge.clip_io.read_clip(obj, action=bpy.data.actions[name]) for name in ("source", "target")]
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        ext.core.transition.make.make_transition(*clips)
        best = min(best, time.perf_counter() - start)
    return best


VARIANTS = {"floor": floor, "job": job, "operator": operator, "floor_operator": floor_operator}


def _reset(ext, obj):
    import bpy

    for action in list(bpy.data.actions):
        if action.name not in ("source", "target"):
            bpy.data.actions.remove(action)
    ext.bridge.action_api.assign_action(obj, bpy.data.actions["source"])


def interleaved(ext, obj, rounds=3):
    """Best seconds of each variant over ``rounds`` rounds of all of them in turn, in this one process: a busy
    machine slows them alike, so their ratios hold where separate processes' do not."""
    best, cpu = dict.fromkeys(VARIANTS, np.inf), dict.fromkeys(VARIANTS, np.inf)
    for _ in range(rounds):
        for name, variant in VARIANTS.items():
            start, started = time.perf_counter(), time.process_time()
            variant(ext, obj)
            best[name] = min(best[name], time.perf_counter() - start)
            cpu[name] = min(cpu[name], time.process_time() - started)
            _reset(ext, obj)
    return best | {f"{name} cpu": seconds for name, seconds in cpu.items()}


def main():
    args = common.size_arguments(__doc__)
    if args.variant in ("core", "interleaved"):
        ext, obj = _scene(args.bones, args.frames)
        common.finish({"seconds": core_only(ext, obj)} if args.variant == "core" else interleaved(ext, obj))
    if args.variant:
        ext, obj = _scene(args.bones, args.frames)
        seconds, peak = common.measure(lambda: VARIANTS[args.variant](ext, obj), 1, lambda: _reset(ext, obj))
        common.finish({"seconds": seconds, "peak_mb": peak})

    print(f"make-transition benchmark: two actions of {args.bones} bones x {args.frames} frames, every channel keyed, root travelling")
    results = {name: common.run_variant(__file__, name, "--bones", args.bones, "--frames", args.frames) for name in (*VARIANTS, "core")}
    f, j, o, c = (results[name] for name in ("floor", "job", "operator", "core"))
    best = common.run_variant(__file__, "interleaved", "--bones", args.bones, "--frames", args.frames)
    print(f"  floor (read both, write one as long) {best['floor']:.2f} s / {f['peak_mb']:.0f} MB | read + make_transition + write "
          f"{best['job']:.2f} s / {j['peak_mb']:.0f} MB | make_transition alone {c['seconds']:.2f} s (best of 3)")
    print(f"  job / floor: {best['job'] / best['floor']:.2f}x (target <= 1.5x); the undoable operator (bpy.ops, picture, list): "
          f"{best['operator']:.2f} s / {o['peak_mb']:.0f} MB, {best['operator'] / best['floor']:.2f}x the floor (target <= 1.5x); best of 3 interleaved in one "
          f"process (peak memory: each variant once in its own)")
    print(f"  the operator against the floor as an undoable operator ({best['floor_operator']:.2f} s / "
          f"{results['floor_operator']['peak_mb']:.0f} MB, through bpy.ops): "
          f"{best['operator'] / best['floor_operator']:.2f}x (CPU {best['operator cpu'] / best['floor_operator cpu']:.2f}x)")
    print(f"  the same runs in CPU seconds (Blender's and numpy's other threads included): job {best['job cpu'] / best['floor cpu']:.2f}x, "
          f"operator {best['operator cpu'] / best['floor cpu']:.2f}x the floor's {best['floor cpu']:.2f} s (load "
          f"{', '.join(f'{value:.1f}' for value in os.getloadavg())})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
