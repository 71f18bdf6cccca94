"""The README's main job on the built-in demo clip (run by tools/demo.sh)."""

import os
import pathlib
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="loopsmith-blender-user-"))

import bpy  # noqa: E402
import numpy as np  # noqa: E402

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
        source = ext.bridge.clip_io.write_clip(obj, generated.clip, "demo_walk")
        clip = ext.bridge.clip_io.read_clip(obj)
        copy = ext.bridge.clip_io.write_clip(obj, clip, "demo_walk_copy", source_action=source, frame_range=True)
        error = np.abs(clip.location - generated.clip.location[:, [generated.clip.bone_names.index(n) for n in clip.bone_names]]).max()
        scene.frame_start, scene.frame_end = int(clip.frames[0]), int(clip.frames[-1])
        blend = out_dir / "loopsmith_demo.blend"
        bpy.ops.wm.save_as_mainfile(filepath=str(blend))
        print(f"demo clip: {clip.num_bones} bones, {clip.num_frames} frames, true gait period {generated.period_frames:.1f} frames")
        print(f"bridge round trip: '{source.name}' -> numpy -> '{copy.name}', largest location difference {error:.2e}")
        print(f"wrote {blend}")
    finally:
        disable()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")
    sys.stdout.flush()
    os._exit(0)  # bpy 4.2/4.5 may crash or hang at interpreter exit
