"""A scene job's last step (bpy side): root motion and the engine's conventions, a WRAP loop's closing frame, verified outputs.

The job has written its result as the armature's active action, frame range
set. Here ``--root-motion`` moves the travel onto a root bone (the action
keeps its name: it names the file's animation), the root is named as the
``--engine`` wants, and the outputs are written with that engine's
conventions (:func:`..bridge.export.write`). AMC outputs are written from
the clip by :func:`.file_outputs.acclaim_outputs`, staged and verified with
the other outputs: all or none. Jobs that need no scene write through
:mod:`.file_outputs` alone.
"""

import dataclasses
import time

from ..bridge import clip_io, engine_files, export, read_action, root_motion
from ..core.engine import profiles
from . import file_outputs


def _extract_root_motion(obj, options):
    """Move the travel of ``obj``'s action onto its root bone, in place of the action; the report's ``root_motion``."""
    previous = clip_io.require_action(obj)
    mode = "HEADING" if options.root_motion == "IN_PLACE" else options.root_motion
    action, result = root_motion.extract(obj, mode, options.root_height, options.root_name, options.root_smoothing,
                                         in_place=options.root_motion == "IN_PLACE")
    clip_io.replace_action(previous, action)
    return {"mode": options.root_motion, "height": options.root_height, "root": result.clip.bone_names[result.root], "added": result.added,
            "pelvis": result.clip.bone_names[result.pelvis], **result.as_edit().numbers}


def write_outputs(obj, targets, settings, header, options, entry):
    """Root motion (``--root-motion``), then ``obj``'s active action over its frame range to every target, all or none.

    settings, header: the input's import settings and BVH header (see
    :func:`..bridge.export.replace_outputs`). Adds to the report ``entry``:
    ``root_motion`` (the split's numbers), ``engine`` and ``engine_root`` (the
    root's name in the FBX and GLB files) and a WRAP loop's ``loop_end``
    (whether its closing frame was written, and why).
    """
    profile, root = profiles.PROFILES.get(options.engine), None
    if options.root_motion != "NONE":
        entry["root_motion"] = _extract_root_motion(obj, options)
    if profile is not None:
        # The files name the engine's root as asked; the armature (and a .blend output) keeps its own names.
        profile = dataclasses.replace(profile, root_name=options.root_name)
        entry["engine"], entry["engine_root"] = profile.name, profile.root_name
        root, problem, _ = engine_files.engine_root(obj)
        if problem:
            entry["engine_note"] = f"{problem}: the engine will not move the character"
    action = clip_io.require_action(obj)
    first, last, note = engine_files.export_range(obj, action)
    if note:
        entry["loop_end"] = note
    entry["action"] = action.name
    amc, others = file_outputs.acclaim_targets(targets)
    clip = read_action.read_clip(obj, first, last) if amc else None
    if entry.get("music") and any(target.suffix == ".blend" for target in others):  # the song plays with the dance in the .blend
        import bpy

        from ..bridge import music

        song = entry["music"]
        music.add_song(bpy.context.scene, song["song"], [beat + song["audio_start_s"] for beat in song["beats"]], song["audio_start_s"],
                       read_action.resolve_range(action))
    with file_outputs.acclaim_outputs(clip, amc, settings, entry):
        if others:
            export.replace_outputs(obj, others, first, last, settings, header, profile, action.use_cyclic, root)


def finish(obj, paths, settings, header, options, entry, imported, started):
    """A job's end: the import's settings and seconds in ``entry``, :func:`write_outputs`, the task's seconds; the entries to report.

    imported: seconds the import took; started: the task's :func:`time.perf_counter` start.
    """
    entry["import"], entry["import_seconds"] = settings.to_json(), round(imported, 3)
    write_outputs(obj, paths, settings, header, options, entry)
    entry["seconds"] = round(time.perf_counter() - started, 3)
    return [entry]
