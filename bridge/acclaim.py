"""Acclaim ASF/AMC in the Blender scene: an AMC (and its ASF) as an armature with its action, and an action back as AMC.

bpy side. The files are read by :mod:`..core.formats.acclaim` before the
scene is touched; the armature and its action are built in bulk by the
builder the numpy BVH reader uses (:func:`.armature.animated_armature`). A
failure while building removes what was made: the scene is left as it was.
The armature keeps the ASF it came from (its text, file name and metres per
unit, as custom properties of the armature data), so that its action can be
written back on the same skeleton.
"""

import os
import pathlib

import bpy
import numpy as np

from ..core.errors import AcclaimError
from ..core.formats import acclaim
from ..files import outputs
from ..files.acclaim_files import read_files, regular_file, rest_motion, skeleton_beside
from ..files.read_motion import armature_name
from . import armature, read_action, timeline

#: Custom properties of an armature imported from an ASF: the ASF's text, its file name, the metres per file unit used.
ASF_TEXT, ASF_NAME, ASF_SCALE = "loopsmith_asf", "loopsmith_asf_name", "loopsmith_asf_scale"
_NEEDS_ASF = "export needs an armature imported from an ASF"
_SAME_REST = 1e-4  # metres (and matrix entries) within which an armature's rest is its ASF's, bar single precision


def import_acclaim(amc_path, asf_path=None, fps=acclaim.DEFAULT_FPS, scale=None, context=None, progress=None):
    """Import the AMC at ``amc_path`` as an armature with its action (named after the file); returns the object.

    asf_path: the skeleton (default: :func:`..files.acclaim_files.find_skeleton`). fps: the rate the
    AMC is played at (AMC files carry none: CMU's 120 by default). scale:
    metres per file unit (default the ASF's ``:units length``). The scene is
    set to play the action: its frame rate (a whole ``fps`` and ``fps_base``)
    and range (the AMC's frame numbers, 1 to 598 for CMU's 05_01). ``amc_path``
    None: the ASF's skeleton alone, in its rest pose, with no action.
    AcclaimError (one line: file, line, reason) on bad input; on any failure
    nothing is left in the scene or the file.
    """
    context = context or bpy.context
    skeleton, text, clip, lengths, connected = read_files(amc_path, asf_path, fps, scale, progress)
    asf_name = pathlib.Path(skeleton.path).name
    name = armature_name(pathlib.Path(amc_path) if amc_path is not None else pathlib.Path(skeleton.path))
    kept = {ASF_TEXT: text, ASF_NAME: asf_name, ASF_SCALE: skeleton.metres_per_unit if scale is None else float(scale)}
    obj = _build(context, clip, name, lengths, connected, amc_path is not None, kept)
    if amc_path is not None:
        scene = context.scene
        timeline.set_scene_fps(scene, clip.fps)
        scene.frame_start, scene.frame_end = int(clip.frames[0]), int(clip.frames[-1])
        scene.frame_set(int(clip.frames[0]))
    return obj


def _build(context, clip, name, lengths, connected, animated, kept):
    """The armature (animated by ``clip`` or at rest) with the custom properties ``kept`` on its data; whatever it made is
    removed again if anything fails."""
    before = [(collection, set(collection)) for collection in (bpy.data.objects, bpy.data.armatures, bpy.data.actions)]
    selected, active = list(context.selected_objects), context.view_layer.objects.active
    if active is not None and active.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    try:
        if animated:
            obj = armature.animated_armature(context, clip, name, lengths, connected)
        else:
            obj = armature.create_armature(context, clip, name, lengths, connected)
        for key, value in kept.items():
            obj.data[key] = value
        return obj
    except BaseException:
        for collection, old in before:
            for made in [item for item in collection if item not in old]:
                collection.remove(made)
        for obj in selected:
            obj.select_set(True)
        context.view_layer.objects.active = active
        raise


def stored_skeleton(obj):
    """``(skeleton, asf_text, asf_name, scale)`` kept on an armature imported from an ASF; AcclaimError if it has none."""
    data = obj.data if obj is not None and obj.type == "ARMATURE" else None
    if data is None or ASF_TEXT not in data:
        raise AcclaimError(_NEEDS_ASF)
    text = str(data[ASF_TEXT])
    skeleton = acclaim.parse_asf(text, data.get(ASF_NAME) or "skeleton.asf")
    return skeleton, text, str(data.get(ASF_NAME) or ""), float(data.get(ASF_SCALE, skeleton.metres_per_unit))


def export_acclaim(obj, amc_path, asf_path=None, progress=None):
    """Write the action of the armature ``obj`` as the AMC at ``amc_path``, on the skeleton it was imported from.

    The ASF goes to ``asf_path`` (default :func:`..files.acclaim_files.skeleton_beside` the AMC,
    which its first line names) unless that file already holds the same
    skeleton; a different skeleton there is refused. Both are
    written through temporary files and verified by reading them back: on
    any failure nothing at either path changes. Frames keep the action's
    numbers (renumbered from 1 if they start below 0: AMC frame numbers are
    not negative). Returns ``(amc_path, asf_path, wrote_asf, clip)``.
    AcclaimError when the armature has no ASF (:data:`_NEEDS_ASF`) or its
    motion does not fit the skeleton's dofs; OutputError when a file
    cannot be written.
    """
    skeleton, text, asf_name, scale = stored_skeleton(obj)
    amc_path = pathlib.Path(amc_path)
    asf_path = pathlib.Path(asf_path) if asf_path is not None else skeleton_beside(amc_path, skeleton, asf_name)[0]
    clip = read_action.read_clip(obj)
    missing = [name for name in skeleton.names if name not in clip.bone_names]
    if missing:
        raise AcclaimError(f"the armature '{obj.name}' has no bone '{missing[0]}' of its skeleton {asf_name or 'skeleton.asf'}: "
                           "it was renamed or deleted since the import (name it back, or import the AMC again)")
    clip = _exact_rest(clip, skeleton, scale)
    if clip.frames[0] < 0:
        clip = clip.with_channels(frames=clip.frames - clip.frames[0] + 1.0)
    motion = acclaim.motion_from_clip(clip, skeleton, scale)  # before any file is opened: a misfit writes nothing
    wrote_asf = not _holds_skeleton(asf_path, skeleton)

    def write_amc(path):
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            for piece in acclaim.amc_chunks(motion, skeleton, asf_path.name, progress):
                stream.write(piece)
            stream.flush()
            os.fsync(stream.fileno())

    def verify_amc(path):
        back = acclaim.read_amc(path, skeleton)
        if back.frame_count != motion.frame_count or np.abs(back.values - motion.values).max(initial=0.0) > 1e-5:
            raise AcclaimError("the written AMC does not read back as the motion", amc_path)

    items = [(amc_path, write_amc, verify_amc)]
    if wrote_asf:
        items.append((asf_path, outputs.text_writer(text), lambda path: acclaim.read_asf(path)))
    outputs.replace_all(items)
    return amc_path, asf_path, wrote_asf, clip


def _exact_rest(clip, skeleton, scale):
    """``clip`` with the ASF's own rest in place of the armature's where they agree (Blender keeps bone matrices in single
    precision: its rolls differ by up to 2e-6), so that the AMC's values come back as they were read; an armature whose
    rest was edited keeps its own, and its bones' rotations are written relative to it."""
    exact = acclaim.armature_from_acclaim(skeleton, rest_motion(skeleton), scale=scale)[0].rest
    bones = [clip.bone_names.index(name) for name in skeleton.names]
    if np.abs(clip.rest[bones] - exact).max() > _SAME_REST:
        return clip
    rest = clip.rest.copy()
    rest[bones] = exact
    return clip.with_channels(rest=rest)


def _holds_skeleton(path, skeleton):
    """Whether the file at ``path`` is an ASF of ``skeleton``; False when there is none; AcclaimError when it holds another."""
    if not path.exists():
        return False
    try:
        there = acclaim.read_asf(regular_file(path, "ASF"))
    except AcclaimError as error:
        raise AcclaimError(f"is in the way of the skeleton and is no ASF ({error.reason}): choose another folder or name", path) from None
    if acclaim.asf_text(there) != acclaim.asf_text(skeleton):
        raise AcclaimError("is there beside the AMC and holds another skeleton: choose another folder or name", path)
    return True
