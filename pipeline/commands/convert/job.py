"""convert's job for one file: read it, write it in every format asked, read each output back and measure.

Run by :mod:`.runner`. A BVH read by the numpy reader or an AMC written as
BVH or AMC needs no Blender scene (:func:`...file_outputs.scene_free`), nor
bpy; any other file is imported into a scene and written from it (Blender
is imported only then). BVH and AMC outputs are read back by the core, FBX, GLB
and .blend ones imported into a fresh scene once every output is in place.
"""

import pathlib
import time

import numpy as np

from ....core.errors import LoopsmithError
from ....core.formats import acclaim, bvh, bvh_clip
from ....core.motion import kinematics
from ....files import interrupts, read_motion
from ... import clips, file_outputs
from ...entries import error_entry
from . import report


def process(task, options, name, inputs):
    """Convert the task's file into ``OUT/<name>.<format>`` for every ``--format``; one report entry, or one error entry.

    ``inputs``: real paths of every input of the run (as strings), which no output may replace.
    """
    (path,) = task
    started = time.perf_counter()
    try:
        if file_outputs.scene_free(path, options):
            clip, settings, header = read_motion.read_clip(path, options)
            obj, placement, armature = None, np.eye(4), read_motion.armature_name(path)
        else:  # Blender's importer, only for a file that needs it; a one-frame action is read as a one-frame clip
            obj, clip, settings, header = clips.importers().armature_clip(path, options, pose=True)
            placement, armature = np.array(obj.matrix_world), obj.name
        imported = time.perf_counter() - started
        targets = file_outputs.targets(options, name, path, inputs)
        entry = report.convert_entry(path, armature, targets, clip)
        if obj is None:
            file_outputs.write_scene_free(clip, targets, settings, header, entry, entry["armature"])
            entry["import_seconds"] = round(imported, 3)
        else:
            clips.blender_side("...engine_output", __package__).finish(obj, targets, settings, header, options, entry, imported, started)
        differences = {str(target): _difference(clip, placement, target, settings, options, entry) for target in targets}
        report.judge(entry, differences)
        entry["seconds"] = round(time.perf_counter() - started, 3)
        return [entry]
    except LoopsmithError as error:
        interrupts.check()
        return [error_entry(path, str(error), time.perf_counter() - started)]


def _world_joints(clip, placement):
    """World positions ``(F, B, 3)`` of ``clip``'s joints (bone heads) on an armature placed by the 4x4 ``placement``."""
    return kinematics.clip_joint_positions(clip) @ placement[:3, :3].T + placement[:3, 3]


def _read_back(target, settings, options, fps, entry):
    """``(clip, placement)`` of a written output: a BVH read at the scale and axes it was written in, an AMC with the ASF
    written beside it, at the input's rate; FBX, GLB and .blend imported into a fresh scene (its armature's placement)."""
    suffix = target.suffix.lower()
    if suffix == ".bvh":
        return bvh_clip.clip_from_bvh(bvh.read_bvh(target), settings.bvh_scale or 1.0, settings.up_axis or "Y"), np.eye(4)
    if suffix == ".amc":
        scale = settings.bvh_scale if settings.suffix == ".amc" else None
        return acclaim.read_acclaim(entry["asf_output"], target, fps, scale), np.eye(4)
    obj, clip, _, _ = clips.importers().armature_clip(target, options, pose=True)  # FBX, GLB, .blend: by Blender's importers
    return clip, np.array(obj.matrix_world)


def _difference(clip, placement, target, settings, options, entry):
    """What reading ``target`` back gives against the input: ``{"joints_m": largest joint distance over the frames and
    joints both hold (metres), "frames": the output's frames, "bones": joints compared}``; a ``problem`` instead when it
    cannot be read back or shares no joint with the input."""
    try:
        back, back_placement = _read_back(pathlib.Path(target), settings, options, clip.fps, entry)
    except LoopsmithError as error:
        return {"problem": f"it cannot be read back: {error}"}
    common = [name for name in clip.bone_names if name in back.bone_names]
    if not common:
        return {"problem": "it holds none of the input's joints"}
    frames = min(clip.num_frames, back.num_frames)
    ours = _world_joints(clip, placement)[:frames, [clip.bone_names.index(name) for name in common]]
    theirs = _world_joints(back, back_placement)[:frames, [back.bone_names.index(name) for name in common]]
    return {"joints_m": float(np.linalg.norm(ours - theirs, axis=-1).max()), "frames": int(back.num_frames), "bones": len(common)}
