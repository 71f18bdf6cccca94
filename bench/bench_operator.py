"""The Make Loop button against the floor every undoable operator pays, and where its time goes.

60 bones x 10,000 frames (600 curves keyed on every frame), the root
travelling and two legs named for Lock Feet (the bench rig of
``bench_make_loop``). The floor is an undoable operator that reads the action
with ``clip_io.read_clip`` and writes it back with ``clip_io.write_clip``;
Make Loop runs with its defaults (Lock Feet on, root AUTO: travelling) on the
whole action, so both write as many keys (the default AUTO range would add
detection and write a loop of a few dozen frames). The rig's legs are found
and their contacts measured, but its random motion plants no foot, so the IK
solve itself (about 20 ms a leg at this length) is skipped.

Both go through ``bpy.ops``, best of three (``--repeats``), interleaved in one
process, in wall and CPU seconds; every run's wall time is printed too (on a
shared machine single runs vary by a third). Then one instrumented run of each
splits its time into read, core (and its parts), write, the view-layer updates
``bpy.ops`` runs before and after, and the undo step (the operator call minus
its ``execute``). The bpy module runs in background mode, where Blender keeps
no undo stack: the step is measured but costs nothing there; as a stand-in for
the memfile step a UI session takes, the file is written to memory-backed
/dev/shm after each operator. Run: ``.venv/bpy-5.0.1/bin/python bench/bench_operator.py``.
"""

import argparse
import contextlib
import functools
import importlib
import os
import sys
import tempfile
import time

import common  # noqa: F401 (puts the checkout's tools and tests on the path)

from bench_make_loop import LOOP_SUBMODULES, travelling_clip, travelling_scene  # noqa: E402

SUBMODULES = LOOP_SUBMODULES + ("core.motion.footlock", "core.motion.root", "core.measure.seam", "operators.common")
LEGS = {"thigh": "upper_leg.{}", "shin": "lower_leg.{}", "ankle": "foot.{}"}


def rig_clip(ext, bones, frames):
    """The travelling bench clip with two separate three-bone chains below the root named as legs, so Lock Feet finds them."""
    clip = travelling_clip(ext, bones, frames)
    names = list(clip.bone_names)
    parents = clip.parents
    legs = []
    for ankle in range(bones):
        knee = parents[ankle]
        if len(legs) < 2 and knee > 0 and parents[knee] > 0 and not {parents[knee], knee, ankle} & {b for leg in legs for b in leg}:
            legs.append((parents[knee], knee, ankle))
    for side, leg in zip("LR", legs):
        for role, bone in zip(("thigh", "shin", "ankle"), leg):
            names[bone] = LEGS[role].format(side)
    return clip.with_channels(bone_names=tuple(names))


def scene(bones, frames):
    return travelling_scene(bones, frames, SUBMODULES, rig_clip)


def register_floor(ext):
    """The floor operator: the bulk read and write every operator must pay, as a new action."""
    import bpy

    class BENCH_OT_read_write(bpy.types.Operator):
        bl_idname = "bench.read_write"
        bl_label = "Read and write"
        bl_options = {"REGISTER", "UNDO"}

        def execute(self, context):
            obj = context.active_object
            source = obj.animation_data.action
            clip = ext.bridge.clip_io.read_clip(obj)
            ext.bridge.clip_io.write_clip(obj, clip, f"{source.name}_copy", source_action=source)
            return {"FINISHED"}

    bpy.utils.register_class(BENCH_OT_read_write)
    return BENCH_OT_read_write


def floor_operator():
    import bpy

    bpy.ops.bench.read_write()


def make_loop_operator():
    import bpy

    bpy.ops.loopsmith.make_loop(range_mode="ACTION")


class Split:
    """Wall time of named calls, accumulated while ``patched`` is active."""

    def __init__(self):
        self.seconds = {}

    def _add(self, name, start):
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def wrap(self, name, function):
        if name == "execute":  # Blender calls an operator's methods with as many arguments as they declare
            def timed_execute(operator, context):
                start = time.perf_counter()
                try:
                    return function(operator, context)
                finally:
                    self._add(name, start)
            return timed_execute

        @functools.wraps(function)
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self._add(name, start)
        return timed

    @contextlib.contextmanager
    def patched(self, targets):
        """targets: (label, module or class, attribute name); each attribute is replaced by a timed wrapper."""
        saved = [(owner, attribute, getattr(owner, attribute)) for _, owner, attribute in targets]
        try:
            for label, owner, attribute in targets:
                setattr(owner, attribute, self.wrap(label, getattr(owner, attribute)))
            yield self
        finally:
            for owner, attribute, original in reversed(saved):
                setattr(owner, attribute, original)


def _ops_targets(operator_class):
    import bpy

    return [
        ("view layer update", bpy.ops._BPyOpsSubModOp, "_view_layer_update"),
        ("operator call", bpy.ops, "_op_call"),
        ("execute", operator_class, "execute"),
    ]


def split_floor(ext, floor_class):
    """Seconds of one floor run by part."""
    targets = _ops_targets(floor_class) + [("read", ext.bridge.clip_io, "read_clip"), ("write", ext.bridge.clip_io, "write_clip")]
    return _timed_run(floor_operator, targets)


def split_make_loop(ext):
    """Seconds of one Make Loop run by part: the operator module's own calls and the core's inside make_loop."""
    operator = importlib.import_module(ext.__name__ + ".operators.make_loop")
    loop = ext.core.loop.make
    targets = _ops_targets(operator.LOOPSMITH_OT_make_loop) + [
        ("read", operator.common, "read_action_clip"),
        ("core", operator.loop, "make_loop"),
        ("write", operator.clip_io, "write_loop"),
        # Inside make_loop; the root's travel includes the stitching of its own track, foot lock its root frames.
        ("  find root", loop, "_resolve_root"),
        ("  baseline", loop, "clip_baseline"),
        ("  stitch", loop.stitch, "stitch_vectors"),
        ("  stitch", loop.stitch, "stitch_rotations"),
        ("  root frames", loop.root_motion, "root_frames"),
        ("  root travel", loop.travel, "loop_travel"),
        ("  foot lock", loop.footlock, "lock_feet"),
        ("  seam metrics", loop, "seam_metrics"),
    ]
    return _timed_run(make_loop_operator, targets)


def _timed_run(run, targets):
    split = Split()
    with split.patched(targets):
        start = time.perf_counter()
        run()
        split.seconds["bpy.ops"] = time.perf_counter() - start
    return split.seconds


def memfile_stand_in():
    """Seconds to write the whole file to memory-backed /dev/shm: roughly what a UI session's memfile undo step serializes."""
    import bpy

    folder = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=folder) as directory:
        start = time.perf_counter()
        bpy.ops.wm.save_as_mainfile(filepath=os.path.join(directory, "undo.blend"), copy=True, compress=False)
        return time.perf_counter() - start


def print_split(label, split, parts):
    total, call, execute = split.pop("bpy.ops"), split.pop("operator call"), split.pop("execute")
    print(f"  {label}: one run {total:.2f} s through bpy.ops")
    for name in parts:
        print(f"    {name:18s} {split[name]:6.3f} s")
    print(f"    {'execute, rest':18s} {execute - sum(split[name] for name in ('read', 'core', 'write') if name in split):6.3f} s")
    print(f"    {'undo step':18s} {call - execute:6.3f} s (the operator call minus its execute)")


def main():
    import bpy

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bones", type=int, default=60)
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs of each operator; the best counts")
    args = parser.parse_args()
    ext, obj = scene(args.bones, args.frames)
    floor_class = register_floor(ext)
    reset = functools.partial(common.keep_only_action, ext, obj, "source")
    wall = {"floor": [], "make_loop": []}
    cpu = {"floor": [], "make_loop": []}
    for _ in range(args.repeats):  # interleaved, so a busy machine slows both alike
        for name, run in (("floor", floor_operator), ("make_loop", make_loop_operator)):
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
            reset()
    best, best_cpu = ({name: min(seconds) for name, seconds in runs.items()} for runs in (wall, cpu))
    floor_split = split_floor(ext, floor_class)
    floor_file = memfile_stand_in()
    reset()
    loop_split = split_make_loop(ext)
    loop_file = memfile_stand_in()
    reset()
    print(f"operator benchmark: {args.bones} bones x {args.frames} frames, every channel keyed, root travelling, Lock Feet on")
    print(f"  floor (read_clip + write_clip in an UNDO operator) {best['floor']:.2f} s | Make Loop {best['make_loop']:.2f} s"
          f" | ratio {best['make_loop'] / best['floor']:.2f}x (target <= 1.2x); best of {args.repeats}, interleaved")
    print(f"  the same runs in CPU seconds (Blender's and numpy's other threads included): floor {best_cpu['floor']:.2f} s | Make Loop"
          f" {best_cpu['make_loop']:.2f} s | ratio {best_cpu['make_loop'] / best_cpu['floor']:.2f}x")
    print("  every run (wall s): " + " | ".join(f"{name} " + " ".join(f"{seconds:.2f}" for seconds in runs) for name, runs in wall.items()))
    print_split("floor", floor_split, ("read", "write", "view layer update"))
    core_parts = [name for name in loop_split if name.startswith(" ")]
    print_split("Make Loop", loop_split, ("read", "core", *core_parts, "write", "view layer update"))
    print(f"  undo: background {bpy.app.background}, undo available {bpy.ops.ed.undo.poll()}; the file written to memory after"
          f" the floor {floor_file:.2f} s, after Make Loop {loop_file:.2f} s (a UI session's undo step serializes about this much)")
    sys.stdout.flush()
    common.finish({"floor": best["floor"], "make_loop": best["make_loop"], "ratio": best["make_loop"] / best["floor"],
                   "cpu_ratio": best_cpu["make_loop"] / best_cpu["floor"]})


if __name__ == "__main__":
    main()
