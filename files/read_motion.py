"""Motion files read in numpy, no Blender: a BVH (its units and up axis decided from its skeleton) and an Acclaim AMC on its
ASF, each checked first so that a problem is named before anything repairs it.

Shared by Blender's import (:mod:`..bridge.importers`, which builds the scene from these clips) and the command line's
jobs that need no scene. Every problem is one line: an :class:`InputError`, or the AcclaimError of an AMC's folder that cannot be listed.
"""

import dataclasses
import pathlib

import numpy as np

from ..core.errors import AcclaimError, LoopsmithError, SkeletonNotFound
from ..core.formats import acclaim, bvh, bvh_clip
from ..core.formats.import_settings import ImportSettings
from . import progress
from .acclaim_files import find_skeleton
from .inputs import is_acclaim, not_a_file


#: The unit and reason reported for a BVH scale given on the command line.
GIVEN_SCALE = "given with --scale"


class InputError(LoopsmithError):
    """A file that cannot be read as motion (missing, corrupt, unsupported)."""


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
    (:func:`.acclaim_files.find_skeleton`); settings: the ASF and how it was found,
    ``--amc-fps`` (AMC files carry no rate), metres per skeleton unit (a BVH
    output is written in those units, Y up). InputError saying where it
    looked, or naming the ASF, its line and the reason.
    """
    given = getattr(options, "asf", None)
    try:
        asf_path = pathlib.Path(given) if given is not None else find_skeleton(path)
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
    """The BVH layout of an Acclaim skeleton at ``fps`` frames per second, no motion rows: what its BVH outputs hold (see :func:`.write_motion.replace_bvh_outputs`).

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


def clip_of_bvh(info, settings: ImportSettings):
    """The clip Blender's importer would give of a BVH read by :func:`read_bvh_header`, computed in numpy (no scene)."""
    return bvh_clip.clip_from_bvh(info, settings.bvh_scale, settings.up_axis)


def armature_name(path):
    """The name Blender's importers give a file's armature and action: the file's stem, cut to
    :data:`..core.formats.bvh.MAX_NAME_BYTES` bytes of UTF-8 (what a bone name holds), no character split."""
    return path.stem.encode("utf-8")[:bvh.MAX_NAME_BYTES].decode("utf-8", "ignore")


def with_asf(settings, options):
    """``settings`` of a file that is no AMC, with ``--asf`` (the skeleton an AMC output is written on) when given."""
    given = getattr(options, "asf", None)
    return settings if given is None else dataclasses.replace(settings, asf=str(given), asf_found="given with --asf")


def hierarchy_only(header):
    """A BVH header without its motion rows (what an output in the input's layout needs): a long take's rows are not held
    through the whole job."""
    return dataclasses.replace(header, motion=header.motion[:0])


def read_clip(path, options):
    """The clip of a file :func:`read_in_numpy` reads, no scene touched: ``(clip, settings, header)``; header: the BVH
    layout its BVH outputs keep (the input's, or the AMC skeleton's), without motion rows. InputError naming the problem."""
    require_regular_file(path)
    if is_acclaim(path):
        skeleton, settings = acclaim_skeleton(path, options)
        return _acclaim_clip(path, skeleton, settings), settings, acclaim_bvh_header(skeleton, settings.amc_fps)
    header, settings = read_bvh_header(path, options)
    return clip_of_bvh(header, settings), with_asf(settings, options), hierarchy_only(header)
