"""Reading input files into the Blender scene, after checks that catch what the importers would repair silently.

bpy side. Blender's importers turn bad values into plausible ones (a NaN
rotation becomes zero, a short row is padded) or take minutes to fail on a
corrupt file; the checks here name the file's problem first.
"""

import contextlib
import dataclasses
import io
import os
import pathlib
import sys
import tempfile

import bpy
import numpy as np

from ..core.errors import AcclaimError, LoopsmithError, SkeletonNotFound
from ..core.formats import acclaim, bvh, bvh_clip, containers
from ..core.formats.import_settings import ImportSettings
from ..files import interrupts, progress
from ..files.inputs import INPUT_SUFFIXES, is_acclaim, not_a_file
from . import acclaim as acclaim_scene, action_curves, armature, read_action, timeline


#: The unit and reason reported for a BVH scale given on the command line.
GIVEN_SCALE = "given with --scale"


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


def require_regular_file(path):
    """InputError unless ``path`` is a regular file (a link to one counts): checked with ``os.stat`` before anything opens it,
    as opening a FIFO waits for a writer and a device such as /dev/zero never ends."""
    problem = not_a_file(path, "a motion file")
    if problem:
        raise InputError(problem)


def read_bvh_header(path, options) -> tuple[bvh.BvhInfo, ImportSettings]:
    """A BVH's checked contents and the import settings after its checks: ``(BvhInfo, settings)``.

    settings: the unit scale (given or detected) with its unit, the up axis
    and the reader (``--bvh-reader``). Raises InputError naming the problem.
    """
    try:
        info = bvh.read_bvh(path, progress=progress.reporter(f"reading {path.name}"))
    except bvh.NotBvhError as error:  # no line to name: the reason stands alone
        raise InputError(str(error)) from None
    except bvh.BvhError as error:
        raise InputError(f"cannot be read: {error}") from None
    spaced = next((name for name in info.names if " " in name), None)
    if spaced is not None and options.bvh_reader == "blender":
        raise InputError(f"cannot be read by Blender's importer: joint name {spaced!r} has spaces, which it turns into "
                         f"{spaced.replace(' ', '_')!r} (the outputs would not keep the input's names): use --bvh-reader numpy")
    try:
        up = options.bvh_up or bvh.up_axis(info)
    except bvh.BvhError as error:
        raise InputError(f"cannot be read: {error} (give it with --bvh-up Y or Z)") from None
    scale = _import_scale(info, up, options)
    return info, ImportSettings(".bvh", bvh_scale=scale.scale, bvh_scale_reason=scale.reason, bvh_unit=scale.unit, up_axis=up,
                                reader=options.bvh_reader)


def _import_scale(info, up, options):
    """The :class:`~..core.formats.bvh.ScaleChoice` of a BVH: the one given with ``--bvh-scale`` (named so as its unit and
    reason), else guessed from the skeleton's height."""
    if options.bvh_scale is not None:
        return bvh.ScaleChoice(options.bvh_scale, GIVEN_SCALE, GIVEN_SCALE)
    try:
        return bvh.guess_scale(info, up)
    except bvh.BvhError as error:
        raise InputError(f"cannot be read: {error} (give the scale with --bvh-scale)") from None


def read_in_numpy(path, options):
    """Whether ``path`` is read in numpy, so that its clip needs no Blender scene: a BVH the numpy reader reads
    (``--bvh-reader numpy``), or an Acclaim motion (AMC), which the core reads."""
    return is_acclaim(path) or (path.suffix.lower() == ".bvh" and options.bvh_reader == "numpy")


def acclaim_skeleton(path, options) -> tuple[acclaim.AsfSkeleton, ImportSettings]:
    """The checked skeleton (ASF) of the AMC at ``path`` and the import settings: ``(skeleton, settings)``.

    The skeleton is ``--asf``, else the one beside the motion
    (:func:`.acclaim.find_skeleton`); settings: the ASF and how it was found,
    ``--amc-fps`` (AMC files carry no rate), metres per skeleton unit (a BVH
    output is written in those units, Y up). InputError saying where it
    looked, or naming the ASF, its line and the reason.
    """
    given = getattr(options, "asf", None)
    try:
        asf_path = pathlib.Path(given) if given is not None else acclaim_scene.find_skeleton(path)
    except SkeletonNotFound as error:
        raise InputError(f"{error.reason}; give it with --asf PATH") from None
    try:
        require_regular_file(asf_path)
    except InputError as error:
        raise InputError(f"its skeleton {asf_path} {error}") from None
    try:
        skeleton = acclaim.read_asf(asf_path)
    except AcclaimError as error:
        raise InputError(f"cannot be read: its skeleton {error}") from None
    fps = float(getattr(options, "amc_fps", None) or acclaim.DEFAULT_FPS)
    found = "given with --asf" if given is not None else f"found beside the motion ({asf_path.name})"
    given_scale = getattr(options, "bvh_scale", None)
    unit = GIVEN_SCALE if given_scale is not None else f"the skeleton's unit, 1/{skeleton.length_unit:g} inch"
    return skeleton, ImportSettings(".amc", bvh_scale=given_scale or skeleton.metres_per_unit, bvh_unit=unit,
                                    up_axis="Y", reader="numpy", asf=str(asf_path), asf_found=found, amc_fps=fps)


def acclaim_bvh_header(skeleton, fps) -> bvh.BvhInfo:
    """The BVH layout of an Acclaim skeleton at ``fps`` frames per second, no motion rows: what its BVH outputs hold (see :func:`..bridge.export.replace_outputs`).

    Its bones as joints in its order and units, Y up (as CMU's BVH
    conversions): OFFSETs from the rest heads, End Sites at the leaves'
    tails, the root with position and rotation channels, every other joint
    with rotation channels, ``Zrotation Yrotation Xrotation``.
    """
    rest, lengths, _ = acclaim.rest_in_file_axes(skeleton, 1.0)
    order = _depth_first(np.asarray(skeleton.parents))  # a BVH lists joints as its hierarchy nests them
    index = {bone: k for k, bone in enumerate(order)}
    parents = np.array([index.get(int(skeleton.parents[bone]), -1) for bone in order])
    heads = rest[order, :3, 3]
    offsets = np.where(parents[:, None] >= 0, heads - heads[np.maximum(parents, 0)], heads)
    end_sites = {k: rest[bone, :3, 1] * lengths[bone] for k, bone in enumerate(order) if not (parents == k).any()}
    rotations = ("Zrotation", "Yrotation", "Xrotation")
    channels = tuple((("Xposition", "Yposition", "Zposition") if parent < 0 else ()) + rotations for parent in parents)
    return bvh.BvhInfo(tuple(skeleton.names[bone] for bone in order), parents, offsets, channels, end_sites, 1.0 / fps,
                       np.zeros((0, sum(map(len, channels)))))


def _depth_first(parents):
    """Bone indices in depth-first order (each bone's children in index order, right after it and its descendants)."""
    order, stack = [], [int(bone) for bone in np.flatnonzero(parents < 0)][::-1]
    while stack:
        bone = stack.pop()
        order.append(bone)
        stack.extend(int(child) for child in np.flatnonzero(parents == bone)[::-1])
    return order


def _acclaim_clip(path, skeleton, settings):
    """The clip of the AMC at ``path`` on ``skeleton``, read at ``settings.amc_fps``, no scene touched; InputError naming its line."""
    try:
        motion = acclaim.read_amc(path, skeleton, progress.reporter(f"reading {path.name}"))
        return acclaim.clip_from_acclaim(skeleton, motion, settings.amc_fps, settings.bvh_scale)
    except AcclaimError as error:
        raise InputError(f"cannot be read: {error}") from None


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


def clip_of_bvh(info, settings: ImportSettings):
    """The clip Blender's importer would give of a BVH read by :func:`read_bvh_header`, computed in numpy (no scene)."""
    return bvh_clip.clip_from_bvh(info, settings.bvh_scale, settings.up_axis)


def bvh_armature_name(path):
    """The name Blender's importer gives a BVH's armature and action: the file's stem, cut to what a name holds."""
    return path.stem.encode("utf-8")[:bvh.MAX_NAME_BYTES].decode("utf-8", "ignore")


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
    return _with_asf(settings, options), None if header is None else _hierarchy_only(header)


def _with_asf(settings, options):
    """``settings`` of a file that is no AMC, with ``--asf`` (the skeleton an AMC output is written on) when given."""
    given = getattr(options, "asf", None)
    return settings if given is None else dataclasses.replace(settings, asf=str(given), asf_found="given with --asf")


def _hierarchy_only(header):
    """A BVH header without its motion rows (what an output in the input's layout needs): a long take's rows are not held
    through the whole job."""
    return dataclasses.replace(header, motion=header.motion[:0])


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
    armature.animated_armature(bpy.context, clip, bvh_armature_name(path), lengths, connected)


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


def load_clip(path, options):
    """The clip of ``path``'s first armature with an action, for a job that needs no scene: ``(clip, settings, header)``.

    A BVH read by the numpy reader or an AMC builds no scene at all; other files are imported as by :func:`armature_clip`.
    """
    if is_acclaim(path):
        require_regular_file(path)
        skeleton, settings = acclaim_skeleton(path, options)
        return _acclaim_clip(path, skeleton, settings), settings, acclaim_bvh_header(skeleton, settings.amc_fps)
    if read_in_numpy(path, options):
        require_regular_file(path)
        header, settings = read_bvh_header(path, options)
        return clip_of_bvh(header, settings), _with_asf(settings, options), _hierarchy_only(header)
    _, clip, settings, header = armature_clip(path, options)
    return clip, settings, header


def several_clips(paths, options):
    """Import every file of ``paths`` after the first (each kept as its clip), then the first (left open in the scene, to
    write onto and export).

    Returns :func:`armature_clip` of the first file plus the list of the
    others' clips and the list of their import settings (their units, for
    the report). A problem with a later file is raised as an InputError
    that starts with its path: the run's report entry is the first file's.
    """
    others = [other_clip_and_settings(path, options) for path in paths[1:]]
    return (*armature_clip(paths[0], options), [clip for clip, _ in others], [settings for _, settings in others])


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
    """:func:`several_clips` of two files: :func:`armature_clip` of ``first`` plus ``second``'s clip and import settings."""
    *opened, (other,), (settings,) = several_clips([first, second], options)
    return (*opened, other, settings)


def other_imports(paths, settings) -> list[dict]:
    """The report's ``"other_imports"``: each later input's file and import settings (its unit and why), in order."""
    return [{"file": str(path), **each.to_json()} for path, each in zip(paths, settings)]
