"""Root motion on a root bone: the character's travel moved from the pelvis onto a bone at the floor.

Game engines read a character's travel from the top bone of the skeleton:
a root on the floor under the character carries the horizontal
position and the heading, and the pelvis below it keeps only its sway and
bounce. The world (armature-space) pose of every other bone is unchanged: only
the split between the root and the bones directly below it moves. Armature
space is Blender's, Z up; lengths are the clip's unit (metres for imported
mocap), angles radians, times seconds.
"""

from dataclasses import dataclass, field

import numpy as np

from ..errors import ClipError
from ..measure.edit import EditResult
from ..motion import kinematics, quat, root as root_motion, sampling
from ..motion.clip import Clip
from ..motion.features import character_root

#: HEADING: the root turns with the pelvis; POSITION: it keeps the first frame's heading.
MODES = ("HEADING", "POSITION")
#: PELVIS: the root stays on the floor and the pelvis keeps its height; ROOT: the root also rises and
#: falls with the pelvis's smoothed height change (stairs, jumps).
HEIGHTS = ("PELVIS", "ROOT")
#: An existing top bone is used as the root only if it stays this low, as a share of the pelvis's mean height.
FLOOR_SHARE = 0.1


@dataclass
class RootMotion:
    """The clip with its travel on a root bone, and how the travel was split.

    root, pelvis: bone indices in ``clip``. added: whether the root bone was
    added at index 0 (otherwise the clip's own top bone carries the travel).
    numbers: root_travel and pelvis_travel (horizontal path lengths, clip
    units), root_share (the root's displacement first to last over the
    pelvis's), pelvis_offset (the largest horizontal pelvis-to-root distance,
    clip units), world_error (the largest joint position change, clip units,
    beyond the travel removed when in place).
    """

    clip: Clip
    root: int
    pelvis: int
    added: bool
    numbers: dict = field(default_factory=dict)
    in_place: bool = False

    def as_edit(self) -> EditResult:
        """The extraction as an :class:`~..measure.edit.EditResult` (edit ``root``, or ``inplace``), written like any edit.

        It keeps a loop a loop: the body repeats and the root's last sample is one cycle's travel.
        """
        root, pelvis = self.clip.bone_names[self.root], self.clip.bone_names[self.pelvis]
        if self.in_place:
            note = f"the travel is removed: '{root}' stays at the origin and the character walks in place"
        elif self.added:
            note = f"a root bone '{root}' was added above the skeleton; it carries the travel of '{pelvis}'"
        else:
            note = f"'{root}' carries the travel of '{pelvis}'"
        numbers = {name: round(value, 6) for name, value in self.numbers.items()}
        return EditResult(self.clip, "inplace" if self.in_place else "root", numbers, (note,), None, keeps_loop=True)


def _floor_frames(position, heading):
    """Matrices ``(F, 4, 4)`` at ``position (F, 3)`` turned ``heading (F,)`` radians about Z."""
    m = np.zeros(heading.shape + (4, 4))
    m[:, 0, 0] = m[:, 1, 1] = np.cos(heading)
    m[:, 0, 1], m[:, 1, 0] = -np.sin(heading), np.sin(heading)
    m[:, 2, 2] = m[:, 3, 3] = 1.0
    m[:, :3, 3] = position
    return m


def _usable_top_bone(clip, pose, pelvis):
    """The clip's single top bone if it can carry the travel (not the pelvis, near the floor, unscaled), else None."""
    tops = np.flatnonzero(clip.parents < 0)
    if len(tops) != 1 or tops[0] == pelvis:
        return None
    top = int(tops[0])
    height = np.abs(pose[:, top, 2, 3]).max()
    scaled = np.abs(clip.scale[:, top] - 1.0).max() > 1e-6
    return None if scaled or height > FLOOR_SHARE * np.abs(pose[:, pelvis, 2, 3]).mean() else top


#: Bytes a bone name holds in Blender (longer names are cut, possibly inside a character).
MAX_NAME_BYTES = 63


def check_root_name(name: str) -> None:
    """ClipError unless ``name`` can name a root bone: not blank, at most :data:`MAX_NAME_BYTES` bytes of UTF-8."""
    if not name or not name.strip():
        raise ClipError("the root bone needs a name")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise ClipError(f"the root bone's name '{name[:20]}...' is longer than the {MAX_NAME_BYTES} bytes a bone name holds")


def root_share(clip: Clip) -> tuple[int | None, float]:
    """``(top, share)``: the clip's top bone if it is a floor bone (else None), and the share (0-1) of the pelvis's horizontal
    displacement, first frame to last, that it carries (1.0 when the pelvis does not move)."""
    pose = kinematics.clip_forward_kinematics(clip)
    pelvis = character_root(clip, pose)
    top = _usable_top_bone(clip, pose, pelvis)
    if top is None:
        return None, 0.0
    moved = np.linalg.norm(pose[-1, pelvis, :2, 3] - pose[0, pelvis, :2, 3])
    carried = np.linalg.norm(pose[-1, top, :2, 3] - pose[0, top, :2, 3])
    return top, float(min(carried / moved, 1.0)) if moved > 1e-3 else 1.0


def _with_root_bone(clip, name):
    """The clip with a still bone ``name`` at index 0, at the armature origin, above every old top bone."""
    check_root_name(name)
    if name in clip.bone_names:
        raise ClipError(f"cannot add a root bone named '{name}': the armature already has a bone of that name")
    frames = clip.num_frames

    def prepend(array, value):
        return np.concatenate([np.broadcast_to(value, (frames, 1) + array.shape[2:]), array], axis=1)

    return Clip(
        fps=clip.fps,
        frames=clip.frames,
        bone_names=(name,) + tuple(clip.bone_names),
        parents=np.concatenate([[-1], clip.parents + 1]),  # old top bones (-1) become children of bone 0
        rest=np.concatenate([np.eye(4)[None], clip.rest]),
        location=prepend(clip.location, 0.0),
        rotation=prepend(clip.rotation, (1.0, 0.0, 0.0, 0.0)),
        scale=prepend(clip.scale, 1.0),
        rotation_modes=("QUATERNION",) + tuple(clip.rotation_modes),
        animated_location=np.concatenate([np.ones((1, 3), dtype=bool), clip.animated_location]),
        animated_rotation=np.concatenate([[True], clip.animated_rotation]),
        animated_scale=np.concatenate([np.zeros((1, 3), dtype=bool), clip.animated_scale]),
    )


def _horizontal_path(position):
    """Horizontal distance ``position (F, 3)`` covers, summed frame to frame."""
    return float(np.linalg.norm(np.diff(position[:, :2], axis=0), axis=-1).sum())


def _periodic(values, shift, pad):
    """``values (F, ...)`` of a loop (frame F - 1 closes the cycle) continued ``pad`` frames each way by ``shift``.

    shift(values, cycles): the values ``cycles`` (+1 or -1) periods later.
    """
    period = len(values) - 1
    pad = min(pad, period)
    return np.concatenate([shift(values[period - pad:period], -1), values, shift(values[1:pad + 1], 1)]), pad


def _smoothed_floor(floor, heading, width, cyclic):
    """The pelvis's floor track ``floor (F, 3)`` and ``heading (F,)`` low-passed over ``width`` frames.

    cyclic: the clip is a loop; the tracks are continued across its seam by
    the cycle's own move (its turn about Z and its travel), so the smoothed
    root ends where one cycle moves its first sample, with the same velocity.
    """
    if not cyclic or len(floor) < 3:
        return sampling.low_pass(floor, width), sampling.low_pass(heading, width)
    turn = heading[-1] - heading[0]
    ends = _floor_frames(floor[[0, -1]], heading[[0, -1]])
    cycle = ends[1] @ kinematics.affine_inverse(ends[0])  # takes the first frame's floor frame to the last's: one cycle on

    def move(points, cycles):
        matrix = cycle if cycles > 0 else kinematics.affine_inverse(cycle)
        return points @ matrix[:3, :3].T + matrix[:3, 3]

    half = int(width) // 2 + 1
    padded_floor, pad = _periodic(floor, move, half)
    padded_heading, _ = _periodic(heading, lambda values, cycles: values + cycles * turn, half)
    keep = slice(pad, pad + len(floor))
    return sampling.low_pass(padded_floor, width)[keep], sampling.low_pass(padded_heading, width)[keep]


def extract_root_motion(clip: Clip, mode: str = "HEADING", root_name: str = "root", smoothing: float = 0.25, in_place: bool = False,
                        cyclic: bool = False, height: str = "PELVIS") -> RootMotion:
    """Move the character's travel onto a root bone; every other bone keeps its world pose.

    clip: a :class:`~..motion.clip.Clip` (Z up). mode: one of :data:`MODES`;
    height: one of :data:`HEIGHTS`.
    root_name: the bone added when the clip's top bone cannot carry the
    travel (ClipError if another bone has that name). smoothing: seconds of
    the centred window that low-passes the pelvis's floor position and
    heading into the root's. in_place: the root stays at the origin with the
    first frame's heading and the smoothed travel is removed from the whole
    character instead (engines that bake the travel into the pose).
    cyclic: the clip is a loop whose last frame closes the cycle (a CLAMP
    loop, or a WRAP loop read with its closing key); the smoothing runs on
    across the seam, so the root's last sample is its first moved by one
    cycle's travel and turn, and the pelvis below it repeats exactly.
    Returns a :class:`RootMotion`.
    """
    if mode not in MODES:
        raise ClipError(f"unknown root motion mode '{mode}': use one of {', '.join(MODES)}")
    if height not in HEIGHTS:
        raise ClipError(f"unknown root height '{height}': use one of {', '.join(HEIGHTS)}")
    if not (np.isfinite(smoothing) and smoothing >= 0.0):
        raise ClipError(f"root motion smoothing must be zero or more seconds, not {smoothing!r}")
    pose = kinematics.clip_forward_kinematics(clip)
    pelvis = character_root(clip, pose)
    root = _usable_top_bone(clip, pose, pelvis)
    added = root is None
    if added:
        clip, root, pelvis = _with_root_bone(clip, root_name), 0, pelvis + 1
        pose = np.concatenate([np.broadcast_to(np.eye(4), (clip.num_frames, 1, 4, 4)), pose], axis=1)

    pelvis_position = pose[:, pelvis, :3, 3]
    pelvis_rotation = quat.from_matrix(pose[:, pelvis, :3, :3])
    width = smoothing * clip.fps
    heading = root_motion.heading(pelvis_rotation, root_motion.heading_axis(pelvis_rotation))
    floor, heading = _smoothed_floor(pelvis_position, heading, width, cyclic)
    floor[:, 2] = floor[:, 2] - pelvis_position[0, 2] if height == "ROOT" else 0.0
    if mode == "POSITION":
        heading = np.full_like(heading, heading[0])
    travelling = _floor_frames(floor, heading)
    if in_place:
        # Each frame moves by what takes its floor frame to the root's, at the origin facing the first heading.
        root_world = _floor_frames(np.zeros_like(floor), np.full_like(heading, heading[0]))
        moved = root_world @ kinematics.affine_inverse(travelling)
    else:
        root_world, moved = travelling, np.broadcast_to(np.eye(4), travelling.shape)

    scale = clip.scale.copy()
    scale[:, root] = 1.0  # the root's world transform is a position and a heading only
    result = root_motion.with_root_global(clip.with_channels(scale=scale), root, root_world[:, :3, 3], quat.from_matrix(root_world[:, :3, :3]))
    children = np.flatnonzero(clip.parents == root)
    for child in children:
        target = moved @ pose[:, child]
        result = root_motion.with_root_global(result, child, target[:, :3, 3], quat.from_matrix(target[:, :3, :3]))
    animated_location, animated_rotation = clip.animated_location.copy(), clip.animated_rotation.copy()
    animated_location[[root, *children]] = True
    animated_rotation[[root, *children]] = True
    result = result.with_channels(animated_location=animated_location, animated_rotation=animated_rotation)

    new_pose = kinematics.clip_forward_kinematics(result, heads_only=True)  # only heads are read
    expected = moved[:, None] @ pose
    body = np.arange(clip.num_bones) != root
    root_track = new_pose[:, root, :3, 3]
    displacement = np.linalg.norm(pelvis_position[-1, :2] - pelvis_position[0, :2])
    numbers = {
        "root_travel": _horizontal_path(root_track),
        "pelvis_travel": _horizontal_path(pelvis_position),
        "root_share": float(np.linalg.norm(root_track[-1, :2] - root_track[0, :2]) / displacement) if displacement > 1e-9 else float(not in_place),
        "pelvis_offset": float(np.linalg.norm(new_pose[:, pelvis, :2, 3] - root_track[:, :2], axis=-1).max()),
        "world_error": float(np.linalg.norm(new_pose[:, body, :3, 3] - expected[:, body, :3, 3], axis=-1).max()),
    }
    return RootMotion(result, root, pelvis, added, numbers, in_place)
