"""Acclaim ASF/AMC files on disk, no Blender: where an AMC's skeleton is, both files read and checked, whether a file holds
a skeleton already, and where a written AMC's skeleton goes.

Shared by Blender's import and export (:mod:`..bridge.acclaim`) and the command line's jobs that need no scene.
"""

import pathlib

import numpy as np

from ..core.errors import AcclaimError, SkeletonNotFound
from ..core.formats import acclaim
from .inputs import not_a_file


def regular_file(path, kind):
    """``path`` as a Path; AcclaimError naming it unless it is a regular file (a FIFO or a device would block the read)."""
    path = pathlib.Path(path)
    problem = not_a_file(path, f"an {kind} file")
    if problem:
        raise AcclaimError(problem, path)
    return path


def subject_skeleton(amc_path) -> pathlib.Path:
    """The ASF that CMU's naming pairs with ``amc_path``: ``<subject>.asf`` beside ``<subject>_<trial>.amc`` (``<name>.asf``
    beside an AMC whose name has no '_'). It may not exist."""
    amc_path = pathlib.Path(amc_path)
    return amc_path.with_name(f"{amc_path.stem.split('_', 1)[0]}.asf")


def find_skeleton(amc_path) -> pathlib.Path:
    """The ASF of the AMC at ``amc_path`` found beside it: the one its first line names (``#!OML:ASF 05.asf``, as Loopsmith
    writes it; any case); where that line names a file on another machine (CMU's, with its folder) or none, CMU's
    ``<subject>.asf`` for ``<subject>_<trial>.amc`` (see :func:`subject_skeleton`), else the only ``.asf`` in its folder.
    AcclaimError saying where it looked (:class:`~..core.errors.SkeletonNotFound`) when there is none, when the file its
    first line names without a folder is not there (another skeleton beside it is never taken for it), or when there
    are several and none named after the subject."""
    amc_path = pathlib.Path(amc_path)
    folder = amc_path.parent
    wanted = subject_skeleton(amc_path).name.lower()
    try:
        found = sorted(path for path in folder.iterdir() if path.suffix.lower() == ".asf" and path.is_file())
    except OSError as error:
        raise AcclaimError(f"no skeleton found: the folder {folder} cannot be listed ({error.strerror or error})", amc_path) from None
    written = acclaim.skeleton_named(amc_path) or ""
    header = written.replace("\\", "/").rsplit("/", 1)[-1]
    named = [path for path in found if path.name.lower() == header.lower()]
    if named:
        return named[0]
    if header and header == written:  # a file named beside the motion (as Loopsmith writes it) and gone: no other will do
        raise SkeletonNotFound(amc_path, f"{header}, which its first line names,", folder, found)
    named = [path for path in found if path.name.lower() == wanted]
    if named:
        return named[0]
    if len(found) == 1:
        return found[0]
    raise SkeletonNotFound(amc_path, wanted, folder, found)


def read_files(amc_path, asf_path=None, fps=acclaim.DEFAULT_FPS, scale=None, progress=None):
    """The checked contents of an AMC and its ASF, no scene touched: ``(skeleton, asf_text, clip, lengths, connected)``
    (see :func:`..core.formats.acclaim.armature_from_acclaim`). ``asf_path`` None: :func:`find_skeleton`. ``amc_path``
    None: the skeleton alone, one frame in its rest pose."""
    if not fps > 0.0:
        raise AcclaimError(f"frame rate {fps:g}: it must be positive", amc_path)
    if amc_path is not None:
        amc_path = regular_file(amc_path, "AMC")  # a motion that is not there is named before its skeleton is looked for
    if asf_path is None:
        asf_path = find_skeleton(amc_path)
    asf_path = regular_file(asf_path, "ASF")
    skeleton = acclaim.read_asf(asf_path)
    text = asf_path.read_bytes().decode("utf-8", "replace")  # read_asf has checked it is text
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if amc_path is None:
        motion = rest_motion(skeleton)
    else:
        motion = acclaim.read_amc(amc_path, skeleton, progress)
    clip, lengths, connected = acclaim.armature_from_acclaim(skeleton, motion, fps, scale)
    return skeleton, text, clip, lengths, connected


def rest_motion(skeleton):
    """One frame of ``skeleton`` in its rest pose: no turn, the root at its rest position."""
    values = np.zeros((1, int(skeleton.columns[-1])))
    for axis, dof in enumerate(("tx", "ty", "tz")):
        if dof in skeleton.dofs[0]:
            values[0, skeleton.dofs[0].index(dof)] = skeleton.position[axis]
    return acclaim.AmcMotion(np.array([1]), values, np.ones(len(skeleton.names), dtype=bool))


def holds_skeleton(path, skeleton) -> bool:
    """Whether the file at ``path`` is an ASF of ``skeleton`` (False when there is none, or it cannot be read as one)."""
    try:
        return acclaim.asf_text(acclaim.read_asf(regular_file(path, "ASF"))) == acclaim.asf_text(skeleton)
    except AcclaimError:
        return False


def skeleton_beside(amc_path, skeleton, asf_name) -> tuple[pathlib.Path, bool]:
    """Where the ASF of an AMC written at ``amc_path`` goes, and whether it must be written: the skeleton's own file name
    ``asf_name`` (the ASF it was read from) beside the AMC, unless a file there holds another skeleton; else the AMC's
    own ``<name>.asf``. Nothing is written where the file holds this skeleton already. The AMC names the one chosen in
    its first line, and :func:`find_skeleton` finds it first: the command line and Blender's export choose alike."""
    amc_path = pathlib.Path(amc_path)
    own = amc_path.with_suffix(".asf")
    for candidate in dict.fromkeys([amc_path.with_name(asf_name) if asf_name else own, own]):
        if not candidate.exists():
            return candidate, True
        if holds_skeleton(candidate, skeleton):
            return candidate, False
    return own, True
