"""Every job's last step (bpy side): root motion and the engine's conventions, a WRAP loop's closing frame, verified outputs.

The job has written its result as the armature's active action, frame range
set. Here ``--root-motion`` moves the travel onto a root bone (the action
keeps its name: it names the file's animation), the root is named as the
``--engine`` wants, and the outputs are written with that engine's
conventions (:func:`.export.write`).
"""

from ..bridge import clip_io, root_motion
from ..core import loop
from ..core.engine import profiles
from . import export


def _extract_root_motion(obj, options, profile):
    """Move the travel of ``obj``'s action onto its root bone, in place of the action; the report's ``root_motion``."""
    previous = clip_io.require_action(obj)
    mode = "HEADING" if options.root_motion == "IN_PLACE" else options.root_motion
    action, result = root_motion.extract(obj, mode, options.root_height, options.root_name, options.root_smoothing,
                                         in_place=options.root_motion == "IN_PLACE")
    clip_io.replace_action(previous, action)
    root = result.clip.bone_names[result.root]
    if profile is not None and root != options.root_name:  # an engine finds its root by name: the rig's floor bone too
        root_motion.rename_bone(obj, root, options.root_name)
    numbers = result.as_edit().numbers
    return {"mode": options.root_motion, "height": options.root_height, "root": root_motion.top_bone(obj),
            "added": result.added, "pelvis": result.clip.bone_names[result.pelvis], **numbers}


def export_range(obj, action):
    """``(first, last, note)``: the frames of ``action`` a file holds, and for a WRAP loop what was decided ('' otherwise).

    A WRAP loop's closing frame (one past its range) is left out only when
    every bone repeats there; a travelling root's last sample is one cycle's
    travel, so it is kept (seed 002).
    """
    first, last = int(round(action.frame_start)), int(round(action.frame_end))
    if not clip_io.loop_playback(action, obj).wrap:
        return first, last, ""
    moving = loop.non_repeating_bones(clip_io.read_clip(obj, frame_end=last + 1))
    if not moving:
        return first, last, "WRAP: every bone repeats at the closing frame, which the files leave out"
    return first, last + 1, (f"WRAP: the closing frame is kept, as '{moving[0]}'{f' and {len(moving) - 1} more' if len(moving) > 1 else ''} "
                             "does not repeat there (a travelling root's last sample is one cycle's travel)")


def write_outputs(obj, targets, settings, header, options, entry):
    """Root motion (``--root-motion``), then ``obj``'s active action over its frame range to every target, all or none.

    settings, header: the input's import settings and BVH header (see
    :func:`.export.replace_outputs`). Adds to the report ``entry``:
    ``root_motion`` (the split's numbers), ``engine`` and a WRAP loop's
    ``loop_end`` (whether its closing frame was written, and why).
    """
    profile = profiles.PROFILES.get(options.engine)
    if options.root_motion != "NONE":
        entry["root_motion"] = _extract_root_motion(obj, options, profile)
    if profile is not None:
        entry["engine"] = profile.name
    action = clip_io.require_action(obj)
    first, last, note = export_range(obj, action)
    if note:
        entry["loop_end"] = note
    entry["action"] = action.name
    export.replace_outputs(obj, targets, first, last, settings, header, profile, action.use_cyclic)
