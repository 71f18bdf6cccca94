"""What a file written for a game engine holds: the bone the engine takes as its root, and the frames (a WRAP loop's closing frame).

Shared by Export for Engine and every command's ``--engine`` output.
"""

from ..core.engine import root_bone
from ..files.write_motion import wrap_closing_frame
from . import action_curves, read_action, write_policy

#: The share of the pelvis's travel below which a file written for an engine is said to have no root motion.
ROOT_SHARE = 0.9


def engine_root(obj):
    """``(name, problem, remedy)``: the floor bone on top of ``obj`` that an engine takes as its root (None if there is none),
    why it does not carry the travel of the active action ('' when it carries at least :data:`ROOT_SHARE` of it), and the
    step that helps ('' when nothing is wrong)."""
    clip = read_action.read_clip(obj)
    top, share = root_bone.root_share(clip)
    name = clip.bone_names[top] if top is not None else None
    if name == action_curves.OBJECT_CHANNELS:  # the armature object travels: no bone can stand in for it
        return None, "the action moves the armature object, not a root bone", "apply the object's motion to the bones first"
    if share >= ROOT_SHARE:
        return name, "", ""
    carried = f"'{name}' carries {share:.0%} of it" if name is not None else "no floor bone is on top"
    return name, f"no root bone carries the travel ({carried})", "run Extract Root Motion first"


def export_range(obj, action):
    """``(first, last, note)``: the frames of ``action`` a file holds, and for a WRAP loop what was decided ('' otherwise)."""
    first, last = read_action.resolve_range(action, pose=True)  # the manual range, else the keys'; a held pose is written too
    if not write_policy.loop_playback(action, obj).wrap:
        return first, last, ""
    keep, note = wrap_closing_frame(read_action.read_clip(obj, frame_end=last + 1))
    return first, last + 1 if keep else last, note


