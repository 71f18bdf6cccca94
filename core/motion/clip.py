"""The clip: an armature's animation over a frame range as numpy arrays.

Shapes use F for frames and B for bones. Units are Blender's: frames, seconds
(``1 / fps`` per frame), the armature's own length unit (metres for imported
mocap at scale 0.01) and radians.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import ClipError
from .rotation_modes import ROTATION_MODES


def scene_rate(fps: float) -> tuple[int, float]:
    """``(fps, fps_base)``: the settings that make a Blender scene play ``fps`` frames per second, the nearest whole number
    (at least 1) and the base that makes up the rest (29.97 is 30 / 1.001)."""
    whole = max(1, int(round(fps)))
    return whole, whole / fps


@dataclass
class Clip:
    """An armature's pose channels over consecutive integer frames.

    fps: frames per second.
    frames: ``(F,)`` frame numbers, consecutive integers.
    bone_names: ``B`` names, parents listed before their children.
    parents: ``(B,)`` parent index of each bone, -1 for a root.
    rest: ``(B, 4, 4)`` armature-space rest matrices (Blender ``bone.matrix_local``).
    location: ``(F, B, 3)`` local location (pose-bone ``location``).
    rotation: ``(F, B, 4)`` local rotation, unit quaternions, w first,
        sign-continuous over frames whatever each bone's rotation mode.
    scale: ``(F, B, 3)`` local scale.
    rotation_modes: each bone's Blender rotation mode, used when writing back.
    animated_location, animated_scale: ``(B, 3)`` which components had curves.
    animated_rotation: ``(B,)`` whether the rotation had curves.
    """

    fps: float
    frames: np.ndarray
    bone_names: tuple
    parents: np.ndarray
    rest: np.ndarray
    location: np.ndarray
    rotation: np.ndarray
    scale: np.ndarray
    rotation_modes: tuple
    animated_location: np.ndarray = field(default=None)
    animated_rotation: np.ndarray = field(default=None)
    animated_scale: np.ndarray = field(default=None)

    def __post_init__(self):
        bones = len(self.bone_names)
        if self.animated_location is None:
            self.animated_location = np.ones((bones, 3), dtype=bool)
        if self.animated_rotation is None:
            self.animated_rotation = np.ones(bones, dtype=bool)
        if self.animated_scale is None:
            self.animated_scale = np.zeros((bones, 3), dtype=bool)

    @property
    def num_frames(self) -> int:
        return len(self.frames)

    @property
    def num_bones(self) -> int:
        return len(self.bone_names)

    @property
    def dt(self) -> float:
        """Seconds per frame."""
        return 1.0 / self.fps

    @property
    def duration(self) -> float:
        """Seconds from the first to the last frame."""
        return (self.num_frames - 1) * self.dt

    def bone_index(self, name: str) -> int:
        """Index of the bone called ``name``; ClipError if there is none."""
        try:
            return self.bone_names.index(name)
        except ValueError:
            raise ClipError(f"the armature has no bone named '{name}'") from None

    def with_channels(self, **arrays: object) -> Clip:
        """A copy with some channel or frame arrays replaced (no other data copied)."""
        return replace(self, **arrays)

    def slice_frames(self, start: int | None, stop: int | None) -> Clip:
        """The sub-clip of frame indices ``start`` (inclusive) to ``stop`` (exclusive)."""
        return self.take_frames(slice(start, stop))

    def take_frames(self, index: slice | np.ndarray) -> Clip:
        """The sub-clip at frame indices ``index`` (a slice, or an integer array in any order)."""
        return self.with_channels(frames=self.frames[index], location=self.location[index], rotation=self.rotation[index], scale=self.scale[index])

    def take_bones(self, bones: list | np.ndarray, index: slice | np.ndarray = slice(None)) -> Clip:
        """The clip of bones ``bones`` alone (indices, ascending, each bone's parent among them unless it is a root) at frame
        indices ``index``: their parents renumbered, nothing of the other bones copied."""
        bones = np.asarray(bones, dtype=int)
        position = np.full(self.num_bones, -1)
        position[bones] = np.arange(len(bones))
        parents = np.where(self.parents[bones] >= 0, position[self.parents[bones]], -1)
        cells = np.ix_(np.arange(self.num_frames)[index], bones)
        per_bone = {name: getattr(self, name)[bones] for name in ("rest", "animated_location", "animated_rotation", "animated_scale")}
        return replace(self, frames=self.frames[index], bone_names=tuple(self.bone_names[b] for b in bones), parents=parents,
                       location=self.location[cells], rotation=self.rotation[cells], scale=self.scale[cells],
                       rotation_modes=tuple(self.rotation_modes[b] for b in bones), **per_bone)

    def validate(self) -> None:
        """Raise ClipError unless shapes agree and every value is finite."""
        frames, bones = self.num_frames, self.num_bones
        expected = {
            "location": (frames, bones, 3),
            "rotation": (frames, bones, 4),
            "scale": (frames, bones, 3),
            "parents": (bones,),
            "rest": (bones, 4, 4),
        }
        for name, shape in expected.items():
            if getattr(self, name).shape != shape:
                raise ClipError(f"{name} has shape {getattr(self, name).shape}, expected {shape}")
        if len(self.rotation_modes) != bones or not set(self.rotation_modes) <= set(ROTATION_MODES):
            raise ClipError("every bone needs one of Blender's rotation modes")
        if np.any(self.parents >= np.arange(bones)):
            raise ClipError("bones must be listed after their parents")
        for name in ("location", "rotation", "scale"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise ClipError(f"the {name} channels contain NaN or infinite values")
        return self
