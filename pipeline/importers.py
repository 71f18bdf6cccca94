"""Reading input files into the Blender scene, after checks that catch what the importers would repair silently.

bpy side. Blender's importers turn bad values into plausible ones (a NaN
rotation becomes zero, a short row is padded) or take minutes to fail on a
corrupt file; the checks here name the file's problem first.
"""

import contextlib
import io
import os
import sys
import tempfile

import bpy

from ..bridge import clip_io
from ..core import bvh
from ..core.errors import LoopsmithError
from . import containers, interrupts
from .inputs import INPUT_SUFFIXES


class InputError(LoopsmithError):
    """A file that cannot be read as motion (missing, corrupt, unsupported)."""


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


def _bvh_settings(path, options):
    """Importer settings for a BVH after its checks: the unit scale (given or detected) and the up axis."""
    try:
        info = bvh.read_bvh(path)
        up = bvh.up_axis(info)
        scale, how = (options.bvh_scale, "given with --bvh-scale") if options.bvh_scale is not None else bvh.suggest_scale(info, up)
    except bvh.BvhError as error:
        raise InputError(f"cannot be read: {error}") from None
    return info, {"bvh_scale": scale, "bvh_scale_reason": how, "up_axis": up}


def load(path, options):
    """Read ``path`` into a fresh scene; returns what was decided on import (for the report) and the BVH header, if any.

    Raises InputError with one line naming the problem.
    """
    suffix = path.suffix.lower()
    if not path.is_file():
        raise InputError("no such file")
    if suffix not in INPUT_SUFFIXES:
        raise InputError(f"not a supported file type ({', '.join(INPUT_SUFFIXES)})")
    header, settings = None, {}
    if suffix == ".bvh":
        header, settings = _bvh_settings(path, options)
    else:
        data = path.read_bytes()
        problem = containers.input_problem(data, suffix)
        if problem:
            raise InputError(f"cannot be read: {problem}")
        if suffix in (".glb", ".gltf"):
            settings["key_rate"] = containers.key_rate(containers.gltf_document(data, suffix))
    try:
        with silenced():
            if suffix == ".blend":
                bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False)
            else:
                bpy.ops.wm.read_homefile(use_empty=True)
                _read(path, suffix, settings)
    except (RuntimeError, ValueError, IndexError, UnicodeDecodeError, OSError) as error:
        interrupts.check()  # an interrupt inside an importer arrives wrapped in RuntimeError
        raise InputError(f"cannot be read: {reason(error)}") from None
    return settings, header


def _read(path, suffix, settings):
    if suffix == ".bvh":
        bpy.ops.import_anim.bvh(filepath=str(path), global_scale=settings["bvh_scale"], update_scene_fps=True,
                                update_scene_duration=True, **bvh.IMPORT_AXES[settings["up_axis"]])
    elif suffix == ".fbx":
        bpy.ops.import_scene.fbx(filepath=str(path))
    else:
        rate = settings.get("key_rate")
        if rate:  # keys land on whole frames at the file's own rate
            scene = bpy.context.scene
            scene.render.fps = max(1, round(rate))
            scene.render.fps_base = scene.render.fps / rate
        bpy.ops.import_scene.gltf(filepath=str(path))


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


def armature_clip(path, options):
    """:func:`first_armature`, with its action's clip after the armature: (armature, clip, settings, header)."""
    obj, settings, header = first_armature(path, options)
    return obj, clip_io.read_clip(obj), settings, header


def several_clips(paths, options):
    """Import every file of ``paths`` after the first (each kept as its clip), then the first (left open in the scene, to
    write onto and export).

    Returns :func:`armature_clip` of the first file plus the list of the
    others' clips. A problem with a later file is raised as an InputError
    that starts with its path: the run's report entry is the first file's.
    """
    others = []
    for path in paths[1:]:
        try:
            others.append(armature_clip(path, options)[1])
        except LoopsmithError as error:
            raise InputError(f"{path}: {error}") from None
    return (*armature_clip(paths[0], options), others)


def pair_clips(first, second, options):
    """:func:`several_clips` of two files: :func:`armature_clip` of ``first`` plus ``second``'s clip."""
    *opened, (other,) = several_clips([first, second], options)
    return (*opened, other)
