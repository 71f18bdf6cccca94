"""The README's main job on the built-in demo clip (run by tools/demo.sh).

Builds the demo walker into ``OUT/demo_walker.blend``, then runs the batch
job on it: Find Loop, Make Loop, and writes the loop as a .blend and a BVH
with the JSON and HTML reports beside them.
"""

import atexit
import os
import pathlib
import shutil
import sys
import tempfile

if "BLENDER_USER_RESOURCES" not in os.environ:
    os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="loopsmith-blender-user-")
    atexit.register(shutil.rmtree, os.environ["BLENDER_USER_RESOURCES"], True)

import bpy  # noqa: E402

from loopsmith.bridge import armature, clip_io  # noqa: E402
from loopsmith.core import demo  # noqa: E402
from loopsmith.pipeline import cli  # noqa: E402


def main(out_dir):
    out_dir = pathlib.Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.render.fps = 30
    generated = demo.walk_cycle()
    obj = armature.create_armature(bpy.context, generated.clip, "LoopsmithWalker")
    clip_io.write_clip(obj, generated.clip, "demo_walk")
    source = out_dir / "demo_walker.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(source))
    print(f"demo clip: {generated.clip.num_bones} bones, {generated.clip.num_frames} frames, true gait period "
          f"{generated.period_frames:.1f} frames -> {source}")
    status = cli.main(["make-loop", str(source), "--out", str(out_dir), "--format", "blend", "bvh"])
    print(f"open {out_dir / 'loopsmith_report.html'} for the pictures, and {out_dir / 'demo_walker_loop.blend'} in Blender "
          "(the loop plays as a cycle on the timeline)")
    return status


if __name__ == "__main__":
    code = main(sys.argv[1] if len(sys.argv) > 1 else "out")
    sys.stdout.flush()
    os._exit(code)  # bpy 4.2/4.5 may crash or hang at interpreter exit
