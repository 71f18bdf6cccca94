"""Every job's last step (bpy side): root motion and the engine's conventions, a WRAP loop's closing frame, verified outputs.

The job has written its result as the armature's active action, frame range
set. Here ``--root-motion`` moves the travel onto a root bone (the action
keeps its name: it names the file's animation), the root is named as the
``--engine`` wants, and the outputs are written with that engine's
conventions (:func:`..bridge.export.write`).
"""

import dataclasses
import time

from ..bridge import clip_io, engine_files, export, importers, root_motion
from ..core.engine import profiles
from ..files import outputs
from ..files.inputs import output_suffixes


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
    export.replace_outputs(obj, targets, first, last, settings, header, profile, action.use_cyclic, root)


def targets(options, stem, source, inputs):
    """The output paths ``OUT/<stem>.<format>`` of a task whose (first) input is ``source``; OutputError if one is an input."""
    paths = [options.out / f"{stem}{suffix}" for suffix in output_suffixes(source, options.format)]
    outputs.refuse_inputs(paths, inputs)
    return paths


def scene_free(path, options):
    """Whether a job on ``path`` can run without a Blender scene: a BVH read by the numpy reader, written as BVH files only,
    with nothing Blender must do (no ``--engine``, no ``--root-motion``)."""
    return (importers.read_in_numpy(path, options) and options.root_motion == "NONE" and options.engine is None
            and set(output_suffixes(path, options.format)) == {".bvh"})


def write_scene_free(clip, targets, settings, header, entry, action):
    """:func:`write_outputs` for a :func:`scene_free` job: ``clip`` (every frame) as the BVH ``targets``; ``entry`` gets the
    import's ``settings`` and ``action``, the name the scene's path would give the result's action."""
    entry["import"], entry["action"] = settings.to_json(), action
    export.replace_bvh_outputs(clip, targets, settings, header)


def finish(obj, paths, settings, header, options, entry, imported, started):
    """A job's end: the import's settings and seconds in ``entry``, :func:`write_outputs`, the task's seconds; the entries to report.

    imported: seconds the import took; started: the task's :func:`time.perf_counter` start.
    """
    entry["import"], entry["import_seconds"] = settings.to_json(), round(imported, 3)
    write_outputs(obj, paths, settings, header, options, entry)
    entry["seconds"] = round(time.perf_counter() - started, 3)
    return [entry]
