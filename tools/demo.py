"""The README's main job on the built-in demo clip (run by tools/demo.sh).

Builds the demo walker, runs Find Loop and Make Loop through their operators
as an animator would, and writes a .blend and a BVH of the loop.
"""

import os
import pathlib
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="loopsmith-blender-user-"))

import bpy  # noqa: E402

import dev_extension  # noqa: E402


def main(out_dir):
    out_dir = pathlib.Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    ext, disable = dev_extension.enable(("core.demo", "bridge.clip_io", "bridge.armature"))
    try:
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        scene.render.fps = 30
        generated = ext.core.demo.walk_cycle()
        obj = ext.bridge.armature.create_armature(bpy.context, generated.clip, "LoopsmithWalker")
        ext.bridge.clip_io.write_clip(obj, generated.clip, "demo_walk")
        print(f"demo clip: {generated.clip.num_bones} bones, {generated.clip.num_frames} frames, true gait period {generated.period_frames:.1f} frames")

        bpy.ops.loopsmith.find_loop()
        for candidate in scene.loopsmith.candidates:
            print(f"  candidate {candidate.frame_start}-{candidate.frame_end}: {candidate.cycles} cycle(s), raw seam {candidate.score:.2f}, {candidate.grade}")
        bpy.ops.loopsmith.make_loop(range_mode="FOUND")
        result = scene.loopsmith.result
        print(f"Make Loop {result.frame_start}-{result.frame_end} into '{result.action}' (root {result.root_mode.lower()} on {result.root_bone}):")
        print(f"  seam visibility {result.visibility_before:.2f} -> {result.visibility_after:.2f}, step {result.step_before * 1000:.1f} -> "
              f"{result.step_after * 1000:.3f} mm, velocity jump {result.jump_before:.2f} -> {result.jump_after:.2f} m/s")

        scene.frame_start, scene.frame_end = result.frame_start, result.frame_end + 3 * (result.frame_end - result.frame_start)
        blend = out_dir / "loopsmith_demo.blend"
        bpy.ops.wm.save_as_mainfile(filepath=str(blend))
        bvh = out_dir / "loopsmith_demo_loop.bvh"
        bpy.ops.export_anim.bvh(filepath=str(bvh), frame_start=result.frame_start, frame_end=result.frame_end, root_transform_only=False)
        print(f"wrote {blend} (the loop plays as a cycle for 4 laps)")
        print(f"wrote {bvh}")
    finally:
        disable()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")
    sys.stdout.flush()
    os._exit(0)  # bpy 4.2/4.5 may crash or hang at interpreter exit
