"""A job's outputs that need no Blender scene: the paths of a task's outputs, whether a job can run without a scene, and a
clip written as BVH and Acclaim AMC files, staged, verified, then moved into place, all or none.

An AMC output is written from the clip on the Acclaim skeleton (the
input's, or ``--asf``), its ASF beside it. The scene side
(:mod:`.engine_output`) writes its AMC outputs here too.
"""

import contextlib
import os
import pathlib
import time

import numpy as np

from ..core.errors import AcclaimError
from ..core.formats import acclaim
from ..core.measure import verdict as verdicts
from ..files import acclaim_files, interrupts, outputs, progress, read_motion, write_motion
from ..files.inputs import output_suffixes
from . import entries


SCENE_FREE_SUFFIXES = {".bvh", ".amc"}  # what a clip read in numpy is written as with no scene


_READ_BACK = 1e-5  # radians or skeleton units an AMC's 6 decimals may move a value by (far less, in fact)


def targets(options, stem, source, inputs):
    """The output paths ``OUT/<stem>.<format>`` of a task whose (first) input is ``source``; OutputError if one is an input."""
    paths = [options.out / f"{stem}{suffix}" for suffix in output_suffixes(source, options.format)]
    outputs.refuse_inputs(paths, inputs)
    return paths


def scene_free(path, options):
    """Whether a job on ``path`` can run without a Blender scene: a BVH read by the numpy reader or an AMC, written as BVH
    or AMC files only, with nothing Blender must do (no ``--engine``, no ``--root-motion``)."""
    return (read_motion.read_in_numpy(path, options) and options.root_motion == "NONE" and options.engine is None
            and set(output_suffixes(path, options.format)) <= SCENE_FREE_SUFFIXES)


def write_scene_free(clip, targets, settings, header, entry, action):
    """:func:`.engine_output.write_outputs` for a :func:`scene_free` job: ``clip`` (every frame) as the BVH and AMC
    ``targets``; ``entry`` gets the import's ``settings`` and ``action``, the name the scene's path gives the result's
    action (which Blender 4.2 and 4.5 cut to 63 bytes; 5.0 keeps it whole)."""
    entry["import"], entry["action"] = settings.to_json(), action
    amc, others = acclaim_targets(targets)
    with acclaim_outputs(clip, amc, settings, entry):
        if others:
            write_motion.replace_bvh_outputs(clip, others, settings, header)


def finish(clip, targets, settings, header, entry, action, imported, started):
    """A scene-free job's end, as :func:`.engine_output.finish` is a scene job's: :func:`write_scene_free`, then the
    import's and the task's seconds in ``entry``; the entries to report. imported: seconds the import took; started: the
    task's :func:`time.perf_counter` start."""
    write_scene_free(clip, targets, settings, header, entry, action)
    entry["import_seconds"], entry["seconds"] = round(imported, 3), round(time.perf_counter() - started, 3)
    return [entry]


def acclaim_targets(targets):
    """``(AMC targets, the others)`` of a task's output paths."""
    paths = [pathlib.Path(target) for target in targets]
    return [p for p in paths if p.suffix.lower() == ".amc"], [p for p in paths if p.suffix.lower() != ".amc"]


def _acclaim_skeleton(settings, target):
    """``(skeleton, metres per its unit)`` an AMC output is written on: the input AMC's skeleton at the scale it was read
    at, or ``--asf`` (kept in ``settings.asf`` for any input) at its own; OutputError naming ``target`` otherwise."""
    if settings.asf is None:
        raise outputs.OutputError(target, "an AMC needs an Acclaim skeleton and this input has none: give one with --asf")
    try:
        skeleton = acclaim.read_asf(settings.asf)
    except AcclaimError as error:
        raise outputs.OutputError(target, f"its skeleton {error}") from None
    return skeleton, settings.bvh_scale if settings.suffix == ".amc" else None


def _numbered(clip):
    """``clip`` with frame numbers an AMC holds: its own when they are consecutive whole numbers from 0 on, else 1, 2, ..."""
    frames = clip.frames
    whole = np.all(frames == np.rint(frames)) and np.all(np.diff(frames) == 1.0) and frames[0] >= 0
    return clip if whole else clip.with_channels(frames=np.arange(1.0, clip.num_frames + 1.0))


def _asf_target(amc_target, skeleton, settings):
    """Where the ASF of an AMC output goes, and whether it must be written (:func:`..files.acclaim_files.skeleton_beside`: the
    input skeleton's file name beside the AMC, else ``<name>.asf``, this output's own, replaced like it; never the
    skeleton read)."""
    target, write = acclaim_files.skeleton_beside(amc_target, skeleton, pathlib.Path(settings.asf).name)
    if write:
        outputs.refuse_inputs([target], {os.path.realpath(settings.asf)})
    return target, write


def _amc_writer(motion, skeleton, asf_name, target):
    def write(path):
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            for piece in acclaim.amc_chunks(motion, skeleton, asf_name, progress.reporter(f"writing {target.name}")):
                stream.write(piece)
            stream.flush()
            os.fsync(stream.fileno())

    return write


def _verify_amc(path, motion, skeleton, target):
    """OutputError naming ``target`` unless the AMC at ``path`` reads back as ``motion``: every frame, every value."""
    try:
        back = acclaim.read_amc(path, skeleton)
    except AcclaimError as error:
        raise outputs.OutputError(target, f"the written AMC does not read back: {error.reason}") from None
    if back.frame_count != motion.frame_count or np.abs(back.values - motion.values).max(initial=0.0) > _READ_BACK:
        raise outputs.OutputError(target, "the written AMC does not read back as the motion written")


def _staged_asf(skeleton, asf_target):
    """The ASF of ``skeleton`` written under a temporary name beside ``asf_target`` and read back; its path."""
    temporary = outputs.temporary_path(asf_target)
    outputs.text_writer(acclaim.asf_text(skeleton))(temporary)
    try:
        acclaim.read_asf(temporary)
    except AcclaimError as error:
        raise outputs.OutputError(asf_target, f"the written ASF does not read back: {error.reason}") from None
    return temporary


def _place_asf(temporary, asf_target, skeleton, shared):
    """Move a staged ASF into place; at a ``shared`` name (the input skeleton's, which other tasks' AMCs may name too)
    without replacing a file another task has put there meanwhile: OutputError when that file holds another skeleton."""
    if shared:
        try:
            os.link(temporary, asf_target)  # fails rather than replace: two tasks may share the skeleton's file name
            return
        except FileExistsError:
            if acclaim_files.holds_skeleton(asf_target, skeleton):
                return
            raise outputs.OutputError(asf_target, "another task wrote a different skeleton there meanwhile; run again") from None
        except OSError:
            pass  # a file system without links: replace as every output
    os.replace(temporary, asf_target)


@contextlib.contextmanager
def acclaim_outputs(clip, amc_targets, settings, entry):
    """Write ``clip`` as every AMC of ``amc_targets`` (and its ASF) under temporary names and verify them; the block writes
    the other outputs (all or none themselves); then these are moved into place. Any failure leaves every path as it was.
    Adds ``asf_output`` to ``entry``."""
    if not amc_targets:
        yield
        return
    skeleton, scale = _acclaim_skeleton(settings, amc_targets[0])
    clip, (dropped, bone) = acclaim.kept_to_dofs(_numbered(clip), skeleton)
    if dropped > 0.01:
        entry["amc_dropped"] = {"bone": bone, "degrees": round(dropped, 3)}
        entries.worsened(entry, verdicts.of_dropped_turn(dropped, bone))
    try:
        motion = acclaim.motion_from_clip(clip, skeleton, scale)
    except AcclaimError as error:
        raise outputs.OutputError(amc_targets[0], f"the motion does not fit the skeleton {error}") from None
    asf_target, new_asf = _asf_target(amc_targets[0], skeleton, settings)
    staged, asf_temporary = [(outputs.temporary_path(target), target) for target in amc_targets], None
    try:
        for temporary, target in staged:
            _amc_writer(motion, skeleton, asf_target.name, target)(temporary)
            _verify_amc(temporary, motion, skeleton, target)
        asf_temporary = _staged_asf(skeleton, asf_target) if new_asf else None
        yield
        with interrupts.deferred():
            for temporary, target in staged:
                os.replace(temporary, target)
            if asf_temporary is not None:
                _place_asf(asf_temporary, asf_target, skeleton, asf_target != amc_targets[0].with_suffix(".asf"))
    except OSError as error:
        raise outputs.OutputError(amc_targets[0], error.strerror or str(error)) from None
    finally:
        for temporary in [path for path, _ in staged] + ([asf_temporary] if asf_temporary else []):
            with contextlib.suppress(OSError):
                temporary.unlink()
    entry["asf_output"] = str(asf_target)
