"""Reading input files into the Blender scene, after checks that catch what the importers would repair silently.

bpy side. Blender's importers turn bad values into plausible ones (a NaN
rotation becomes zero, a short row is padded) or take minutes to fail on a
corrupt file; the checks here, and the BVH and AMC reading and checks of
:mod:`..files.read_motion` they build on, name the file's problem first.
"""

import contextlib
import io
import os
import sys
import tempfile

import bpy

from ..core.errors import AcclaimError
from ..core.formats import bvh, bvh_clip, containers
from ..core.formats.import_settings import ImportSettings
from ..files import interrupts, progress
from ..files.inputs import INPUT_SUFFIXES, is_acclaim
from ..files.read_motion import (InputError, acclaim_bvh_header, acclaim_skeleton, armature_name, hierarchy_only,
                                 read_bvh_header, require_regular_file, with_asf)
from . import acclaim as acclaim_scene, action_curves, armature, read_action, timeline


@contextlib.contextmanager
def silenced():
    """Hide what Blender and the importers print (tracebacks included) at the file-descriptor level."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def reason(error):
    """The message of a Blender operator's error, without its traceback and location lines."""
    lines = [line.strip() for line in str(error).splitlines()
             if line.strip() and not line.strip().startswith(("Location:", "File ", "^", "~", "Traceback"))]
    return lines[-1].removeprefix("Error: ") if lines else type(error).__name__


def _load_acclaim(path, options):
    """:func:`load` of an AMC: its armature and action built in bulk (:func:`.acclaim.import_acclaim`), the scene's rate and range set."""
    skeleton, settings = acclaim_skeleton(path, options)
    with silenced():
        bpy.ops.wm.read_homefile(use_empty=True)
    try:
        acclaim_scene.import_acclaim(path, settings.asf, settings.amc_fps, settings.bvh_scale, progress=progress.reporter(f"reading {path.name}"))
    except AcclaimError as error:
        raise InputError(f"cannot be read: {error}") from None
    interrupts.check()
    return settings, acclaim_bvh_header(skeleton, settings.amc_fps)


def load(path, options) -> tuple[ImportSettings, bvh.BvhInfo | None]:
    """Read ``path`` into a fresh scene; returns what was decided on import (for the report) and the BVH header, if any.

    Raises InputError with one line naming the problem.
    """
    suffix = path.suffix.lower()
    require_regular_file(path)
    if suffix not in INPUT_SUFFIXES:
        raise InputError(f"not a supported file type ({', '.join(INPUT_SUFFIXES)})")
    if is_acclaim(path):
        return _load_acclaim(path, options)
    header, settings = None, ImportSettings(suffix)
    if suffix == ".bvh":
        header, settings = read_bvh_header(path, options)
    else:
        data = path.read_bytes()
        problem = containers.input_problem(data, suffix)
        if problem:
            raise InputError(f"cannot be read: {problem}")
        if suffix in (".glb", ".gltf"):
            settings = ImportSettings(suffix, key_rate=containers.key_rate(containers.gltf_document(data, suffix)))
    try:
        with silenced():
            if suffix == ".blend":
                bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False)
            else:
                bpy.ops.wm.read_homefile(use_empty=True)
                _read(path, suffix, settings, header)
    except (RuntimeError, ValueError, IndexError, UnicodeDecodeError, OSError) as error:
        interrupts.check()  # an interrupt inside an importer arrives wrapped in RuntimeError
        raise InputError(f"cannot be read: {reason(error)}") from None
    interrupts.check()  # one raised in a load handler Blender runs (add-ons' Python) is printed and swallowed by Blender
    if suffix in (".fbx", ".glb", ".gltf"):  # keys timed in seconds: those a hair off a frame go onto it
        for name in armatures_with_actions():
            action_curves.keys_on_whole_frames(bpy.data.objects[name])
    return with_asf(settings, options), None if header is None else hierarchy_only(header)


def _read(path, suffix, settings, header):
    if suffix == ".bvh" and settings.reader == "numpy":
        _build_bvh_scene(path, header, settings)
    elif suffix == ".bvh":
        bpy.ops.import_anim.bvh(filepath=str(path), global_scale=settings.bvh_scale, update_scene_fps=True,
                                update_scene_duration=True, **bvh.IMPORT_AXES[settings.up_axis])
    elif suffix == ".fbx":
        bpy.ops.import_scene.fbx(filepath=str(path))
    else:
        scene = bpy.context.scene
        if settings.key_rate:  # keys land on whole frames at the file's own rate
            timeline.set_scene_fps(scene, settings.key_rate)
        with timeline.gltf_rate(scene):
            bpy.ops.import_scene.gltf(filepath=str(path))


def _build_bvh_scene(path, header, settings):
    """What Blender's importer makes of a BVH (scene rate and length, armature, action), built in bulk from the numpy reader's clip."""
    scene = bpy.context.scene
    timeline.set_scene_fps(scene, 1.0 / header.frame_time)  # as the importer's update_scene_fps
    scene.frame_end = max(scene.frame_end, 1 + header.frame_count)  # and update_scene_duration
    clip, lengths, connected = bvh_clip.armature_from_bvh(header, settings.bvh_scale, settings.up_axis)
    armature.animated_armature(bpy.context, clip, armature_name(path), lengths, connected)


def armatures_with_actions():
    """Names of the scene's armatures that have an action to loop."""
    return [obj.name for obj in bpy.data.objects if obj.type == "ARMATURE" and obj.animation_data and obj.animation_data.action]


def first_armature(path, options):
    """Import ``path``; its first armature with an action, the import settings and the BVH header (or None)."""
    settings, header = load(path, options)
    names = armatures_with_actions()
    if not names:
        raise InputError("has no armature with an action")
    return bpy.data.objects[names[0]], settings, header


def armature_clip(path, options, pose=False):
    """:func:`first_armature`, with its action's clip after the armature: (armature, clip, settings, header); ``pose``: a
    one-frame action is read as a one-frame clip (else refused)."""
    obj, settings, header = first_armature(path, options)
    return obj, read_action.read_clip(obj, pose=pose), settings, header


