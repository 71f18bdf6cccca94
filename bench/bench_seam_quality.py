"""Seam quality of the default loop as Blender plays it, per real walk and run clip.

For each multi-cycle walk and run in ../shared/mocap: the range Find Loop picks
(its best, then its best two-cycle loop), then the played seam visibility
(Blender's evaluated pose over two cycles past the range, each wrap's
acceleration over the joint's 95th percentile in the raw take) of the raw cut,
of a 5-frame linear blend (a simple add-on's seam), of each method AUTO tries
(CUBIC was the default before AUTO) and of today's default (AUTO: the least
visible of those, measured in the core), with the method it kept; and the
velocity jump across the seam (m/s) of the raw cut and of the default, from
Make Loop's own numbers. Run: ``.venv/bpy-5.0.1/bin/python bench/bench_seam_quality.py``.
"""

import pathlib
import sys

import common  # noqa: F401  (Blender's user folder, tools/ on the path)

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO)]  # the tests' helpers import the core as a top-level package
MOCAP = REPO.parent / "shared" / "mocap" / "bandai"
CYCLES = (0, 2)  # Find Loop's best loop, then its best two-cycle loop


def main():
    import bpy

    import dev_extension
    from helpers import import_bvh
    from test_realdata_played_seam import gait_paths, linear_blend_loop, played_visibility

    ext, _ = dev_extension.enable(("core.loop.make", "core.loop.detect", "core.measure.seam", "core.motion.root", "core.motion.quat", "core.loop.stitch", "bridge.clip_io",
                                   "bridge.action_api"))
    methods = ext.core.loop.stitch.AUTO_METHODS
    print("played seam visibility (<= 1.0: no more visible than an ordinary frame) and velocity jump, default pipeline")
    print(f"{'clip':42s} {'cyc':>3s} {'range':>9s} {'raw cut':>8s} {'5-frame':>8s} " + " ".join(f"{m.lower():>9s}" for m in methods)
          + f" {'default':>8s} {'kept':>9s} {'jump raw':>9s} {'jump new':>9s}")
    for path in gait_paths(MOCAP):
        for cycles in CYCLES:
            bpy.ops.wm.read_homefile(use_empty=True)
            obj = import_bvh(path)
            source = obj.animation_data.action
            clip = ext.bridge.clip_io.read_clip(obj)
            best = ext.core.loop.detect.find_loops(clip, cycles=cycles).best
            start, end = best.frame_start, best.frame_end
            new = ext.core.loop.make.make_loop(clip, start, end)
            raw = ext.core.loop.make.LoopResult(new.raw, new.root, new.root_mode, new.before, new.before)
            loops = {"raw": raw, "blend": linear_blend_loop(ext, clip, start, end), "new": new}
            loops.update({m: ext.core.loop.make.make_loop(clip, start, end, ext.core.loop.stitch.StitchParameters(method=m)) for m in methods})
            seen = {}
            for label, result in loops.items():
                ext.bridge.action_api.assign_action(obj, source)
                ext.bridge.clip_io.write_loop(obj, result, source)
                seen[label] = played_visibility(ext, obj, clip, start, end)
            print(f"{path.name:42s} {cycles:3d} {start:4d}-{end:<4d} {seen['raw']:8.2f} {seen['blend']:8.2f} "
                  + " ".join(f"{seen[m]:9.2f}" for m in methods)
                  + f" {seen['new']:8.2f} {new.method.lower():>9s} {new.before.max_velocity_jump:9.2f} {new.after.max_velocity_jump:9.3f}")
            sys.stdout.flush()
    common.finish({"clips": len(gait_paths(MOCAP)) * len(CYCLES)})


if __name__ == "__main__":
    main()
