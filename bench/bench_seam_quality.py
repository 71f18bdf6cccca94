"""Seam quality of the default loop as Blender plays it, per real walk and run clip.

For each multi-cycle walk and run in ../shared/mocap: the range Find Loop picks,
then the played seam visibility (Blender's evaluated pose over two cycles past
the range, each wrap's acceleration over the joint's 95th percentile in the raw
take) of the raw cut, of a 5-frame linear blend (a simple add-on's seam), of the
old default (the core at commit OLD_COMMIT: CUBIC 0.2 s, travel keeping its
turn) and of today's default; and the velocity jump across the seam (m/s) of the
raw cut and of today's default, from Make Loop's own numbers.
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_seam_quality.py``.
"""

import importlib.util
import pathlib
import subprocess
import sys
import tempfile

import common  # noqa: F401  (Blender's user folder, tools/ on the path)

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
MOCAP = REPO.parent / "shared" / "mocap" / "bandai"
OLD_COMMIT = "6065300"  # the last commit before the played-seam work


def _old_core():
    """The core package as it was at OLD_COMMIT, imported from a temporary folder."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="loopsmith-old-core-"))
    archive = subprocess.run(["git", "-C", str(REPO), "archive", OLD_COMMIT, "core"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    spec = importlib.util.spec_from_file_location("old_core", folder / "core" / "__init__.py", submodule_search_locations=[str(folder / "core")])
    package = importlib.util.module_from_spec(spec)
    sys.modules["old_core"] = package
    spec.loader.exec_module(package)
    return importlib.import_module("old_core.loop")


def main():
    import bpy

    import dev_extension
    from helpers import import_bvh
    from test_realdata_played_seam import gait_paths, linear_blend_loop, played_visibility

    ext, _ = dev_extension.enable(("core.loop", "core.detect", "core.metrics", "core.root", "core.quat", "bridge.clip_io", "bridge.action_api"))
    old_loop = _old_core()
    print("played seam visibility (<= 1.0: no more visible than an ordinary frame) and velocity jump, default pipeline")
    print(f"{'clip':42s} {'range':>9s} {'raw cut':>8s} {'5-frame':>8s} {'old def':>8s} {'new def':>8s} {'jump raw':>9s} {'jump new':>9s}")
    for path in gait_paths(MOCAP):
        bpy.ops.wm.read_homefile(use_empty=True)
        obj = import_bvh(path)
        source = obj.animation_data.action
        clip = ext.bridge.clip_io.read_clip(obj)
        best = ext.core.detect.find_loops(clip).best
        start, end = best.frame_start, best.frame_end
        new = ext.core.loop.make_loop(clip, start, end)
        raw = ext.core.loop.LoopResult(new.raw, new.root, new.root_mode, new.before, new.before)
        loops = {"raw": raw, "blend": linear_blend_loop(ext, clip, start, end), "old": old_loop.make_loop(clip, start, end), "new": new}
        seen = {}
        for label, result in loops.items():
            ext.bridge.action_api.assign_action(obj, source)
            ext.bridge.clip_io.write_loop(obj, result, source, end)
            seen[label] = played_visibility(ext, obj, clip, start, end)
        print(f"{path.name:42s} {start:4d}-{end:<4d} {seen['raw']:8.2f} {seen['blend']:8.2f} {seen['old']:8.2f} {seen['new']:8.2f} "
              f"{new.before.max_velocity_jump:9.2f} {new.after.max_velocity_jump:9.3f}")
        sys.stdout.flush()
    common.finish({"clips": len(gait_paths(MOCAP))})


if __name__ == "__main__":
    main()
