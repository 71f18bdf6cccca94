"""A job's clips read from its files: in numpy where the file allows (a BVH read by the numpy reader, an Acclaim AMC), with
no Blender at all; any other file imported by Blender (:mod:`..bridge.importers`, imported only then)."""

import importlib

from ..core.errors import LoopsmithError
from ..files import interrupts, read_motion
from ..files.read_motion import InputError


def blender_side(module: str, package: str):
    """The module ``module`` (relative to ``package``, as ``from . import``), which imports bpy, imported with interrupts
    deferred: a signal while Blender initialises would crash it. A job imports its scene side only for a file that needs it."""
    with interrupts.deferred():
        return importlib.import_module(module, package)


def importers():
    """Blender's importers (:mod:`..bridge.importers`, which imports bpy), for a file that needs a scene."""
    return blender_side("..bridge.importers", __package__)


def load_clip(path, options):
    """The clip of ``path``'s first armature with an action, for a job that needs the clip only: ``(clip, settings, header)``.

    A BVH read by the numpy reader or an AMC is read without Blender (:func:`..files.read_motion.read_clip`); other
    files are imported into a fresh scene (:func:`..bridge.importers.armature_clip`).
    """
    if read_motion.read_in_numpy(path, options):
        return read_motion.read_clip(path, options)
    _, clip, settings, header = importers().armature_clip(path, options)  # only for a file Blender must import
    return clip, settings, header


def several_clips(paths, options):
    """Read every file of ``paths`` after the first (each kept as its clip, :func:`load_clip`), then import the first
    (left open in the scene, to write onto and export).

    Returns :func:`..bridge.importers.armature_clip` of the first file plus
    the list of the others' clips and the list of their import settings
    (their units, for the report). A problem with a later file is raised as an InputError
    that starts with its path: the run's report entry is the first file's.
    """
    others = [other_clip_and_settings(path, options) for path in paths[1:]]
    return (*importers().armature_clip(paths[0], options), [clip for clip, _ in others], [settings for _, settings in others])


def other_clip(path, options):
    """The clip of a task's file after its first (:func:`load_clip`); an InputError starts with its path, as the task's
    report entry is the first file's."""
    return other_clip_and_settings(path, options)[0]


def other_clip_and_settings(path, options):
    """:func:`other_clip` and the file's import settings (its unit and up axis, for the report): ``(clip, settings)``."""
    try:
        clip, settings, _ = load_clip(path, options)
    except LoopsmithError as error:
        raise InputError(f"{path}: {error}") from None
    return clip, settings


def pair_clips(first, second, options):
    """:func:`several_clips` of two files: :func:`..bridge.importers.armature_clip` of ``first`` plus ``second``'s clip
    and import settings."""
    *opened, (other,), (settings,) = several_clips([first, second], options)
    return (*opened, other, settings)


def other_imports(paths, settings) -> list[dict]:
    """The report's ``"other_imports"``: each later input's file and import settings (its unit and why), in order."""
    return [{"file": str(path), **each.to_json()} for path, each in zip(paths, settings)]
