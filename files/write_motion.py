"""Written motion files checked before they replace anything, and BVH outputs written from a clip, no Blender.

:func:`verify` checks a written BVH, FBX, GLB or .blend file's structure
and content (Blender reading a .blend back is :func:`..bridge.export.verify`'s);
:func:`replace_bvh_outputs` writes a clip read by the numpy reader as BVH in
the input's layout, verified, all or none; :func:`wrap_closing_frame` says
whether a WRAP loop's file holds its closing frame.
"""

import pathlib

from ..core.errors import LoopsmithError
from ..core.formats import bvh, bvh_clip, containers
from ..core.formats.import_settings import ImportSettings
from ..core.loop import make as loop
from . import outputs, progress


class ExportError(LoopsmithError):
    """A loop that cannot be written, or a written file that is incomplete or not what was written."""


def verify(path, suffix, frames=None, fps=None):
    """Check a written file is complete and holds one loop; ExportError naming what is wrong.

    frames: how many frames the loop has; when given, a BVH's motion rows and
    the GLB animation's longest sampler must hold exactly that many (a held
    pose's samplers two, its start and end; .blend frames are not counted). fps: the frame rate it was written at; when
    given, a BVH's Frame Time, the GLB animation's last key time and a binary
    FBX take's stop time must agree with it. A GLB must hold one animation
    starting at 0 s, a binary FBX one take starting at 0 s; a .blend must be
    a whole .blend container (:func:`..bridge.export.verify` also reads it in Blender).
    """
    path = pathlib.Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ExportError(f"the written {suffix} file cannot be read: {error.strerror or error}") from None
    if not data:
        raise ExportError(f"the written {suffix} file is empty")
    checks = {".bvh": _bvh_problem, ".glb": _glb_output_problem, ".fbx": _fbx_output_problem,
              ".blend": lambda data, frames, fps: containers.blend_problem(data)}
    problem = checks[suffix](data, frames, fps)
    if problem:
        raise failed(suffix, problem)


def failed(suffix, problem) -> ExportError:
    """The error of a written ``suffix`` file that fails verification for the reason ``problem``."""
    return ExportError(f"the written {suffix} file fails verification: {problem}")


def _bvh_problem(data, frames, fps):
    # Written rows end with a newline: a file cut inside its last number would otherwise still parse.
    if not data.endswith(b"\n"):
        return "it is truncated (no newline at its end)"
    try:
        written = bvh.parse_bvh(data.decode("utf-8"))
    except (bvh.BvhError, UnicodeDecodeError) as error:
        return str(error)
    if frames is not None and written.frame_count != frames:
        return f"it has {written.frame_count} frames, not the loop's {frames}"
    if fps is not None and abs(written.frame_time * fps - 1.0) > 1e-5:
        return f"its Frame Time {written.frame_time:g} s is not {fps:g} fps"
    return None


def _fbx_output_problem(data, frames, fps):
    problem = containers.fbx_problem(data, written=True)
    span = containers.fbx_take_span(data) if problem is None and data.startswith(b"Kaydara") else None
    if span is None:
        return problem
    start, stop = span
    if abs(start) > 1e-6:
        return f"its take starts at {start:g} s, not at 0"
    if fps is not None and frames is not None and abs(stop - (frames - 1) / fps) > 0.25 / fps:
        return f"its take ends at {stop:g} s, not at {(frames - 1) / fps:g} s ({frames} frames at {fps:g} fps)"
    return None


def _glb_output_problem(data, frames, fps):
    problem, document = containers.glb_document(data)
    if problem:
        return problem
    try:
        animations = document.get("animations", [])
        if len(animations) != 1:
            return f"it holds {len(animations)} animations, not one"
        accessors = document["accessors"]
        inputs = [accessors[sampler["input"]] for sampler in animations[0]["samplers"]]
        longest = max(accessor["count"] for accessor in inputs)
        start = min(accessor["min"][0] for accessor in inputs)
        end = max(accessor["max"][0] for accessor in inputs)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
        return f"its glTF JSON has no complete animation ({type(error).__name__}: {error})"
    # The exporter keeps two keys (start and end) of a channel that never changes: a held pose has no more.
    held = frames is not None and longest == 2 < frames
    if frames is not None and longest != frames and not held:
        return f"its animation has {longest} frames, not the loop's {frames}"
    if abs(start) > 1e-6:
        return f"its animation starts at {start:g} s, not at 0"
    if fps is not None and frames is not None and abs(end - (frames - 1) / fps) > 0.25 / fps:
        return f"its animation ends at {end:g} s, not at {(frames - 1) / fps:g} s ({frames} frames at {fps:g} fps)"
    return None


def replace_bvh_outputs(clip, targets, settings: ImportSettings, header):
    """:func:`..bridge.export.replace_outputs` without a scene, for a BVH read by the numpy reader: ``clip`` (every frame) as BVH to every
    path of ``targets``, in the input's units, axes and layout (``header``, ``settings``), verified, all or none."""
    written = file_bvh(clip, settings, header)
    outputs.replace_all([(target, bvh_writer(written, target), lambda path: verify(path, ".bvh", clip.num_frames, clip.fps))
                         for target in targets])


def file_bvh(clip, settings, header):
    """``clip`` (every frame) in the input's hierarchy, channels, axes and units: a :class:`~..core.formats.bvh.BvhInfo`; ExportError
    when the input's channels cannot hold it (a joint without position channels that moves)."""
    try:
        return bvh_clip.bvh_from_clip(clip, header, settings.up_axis, settings.bvh_scale)
    except bvh.BvhError as error:
        raise ExportError(f"cannot be written as .bvh: {error}") from None


def bvh_writer(written, target):
    """A ``write(path)`` of the BvhInfo ``written`` a piece at a time, the progress bar naming ``target``."""
    return lambda path: bvh.write_bvh(path, written, progress.reporter(f"writing {target.name}"))


def wrap_closing_frame(clip):
    """``(keep, note)``: whether a WRAP loop's file keeps the closing frame of ``clip`` (the loop with it), and why.

    The closing frame is left out only when every bone repeats there; a
    travelling root's last sample is one cycle's travel, so it is kept.
    """
    moving = loop.non_repeating_bones(clip)
    if not moving:
        return False, "WRAP: every bone repeats at the closing frame, which the files leave out"
    return True, (f"WRAP: the closing frame is kept, as '{moving[0]}'{f' and {len(moving) - 1} more' if len(moving) > 1 else ''} "
                  "does not repeat there (a travelling root's last sample is one cycle's travel)")
