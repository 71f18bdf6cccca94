"""Where the body stands: its feet on the clips' floor and its pelvis at their height.

A result made from clips (a loop, a transition, a blend, a composition) must
keep the body where those clips keep it: a re-expressed take whose rest
differs can lift the whole body off the floor or sink it, which neither
accelerations nor skating see. Heights are armature-space Z in the clips'
unit (metres for imported mocap); seconds are counted in whole frames.
"""

from dataclasses import dataclass

import numpy as np

from ..motion import contacts, kinematics
from ..motion.clip import Clip

#: Clip units (metres): a body standing further than this off its clips' floor or height is flagged.
TOLERANCE = 0.05


@dataclass
class Grounding:
    """How far a result's body leaves its clips' heights, plain floats in the clips' unit (0 when it never does).

    floor_offset: the largest distance of the lowest foot's minimum over a
    second of the result outside the range of the clips' own such minima.
    pelvis_offset: the largest distance of the pelvis's height on a frame of
    the result outside the range of the clips' own pelvis heights.
    lifted: the signed floor offset of the worst second (positive: above
    the floor, negative: under it).
    """

    floor_offset: float
    pelvis_offset: float
    lifted: float

    @property
    def off(self) -> bool:
        """True when the body stands visibly off its clips' floor or height."""
        return stands_off(self.floor_offset, self.pelvis_offset)

    def summary(self, clips: str = "the clips") -> str:
        """One phrase: how far the feet and the pelvis leave ``clips``' floor and heights (lengths in metres)."""
        where = "above" if self.lifted > 0 else "under"
        return (f"the feet {abs(self.lifted):.2f} m {where} {clips}' floor, the pelvis {self.pelvis_offset:.2f} m outside "
                f"{clips}' heights")


def stands_off(floor_offset: float, pelvis_offset: float) -> bool:
    """True when either offset (clip units) is beyond :data:`TOLERANCE`: the body is visibly off its clips' floor or height."""
    return max(floor_offset, pelvis_offset) > TOLERANCE


def legs(bone_names: tuple, parents: np.ndarray, positions: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """(the foot joints ``(k,)``, the pelvis): feet as :func:`..motion.contacts.foot_joints` finds them, the pelvis where their chains meet.

    positions ``(F, B, 3)`` help find feet that no name gives. The pelvis is
    the lowest bone above every foot (the hips of a biped; the root when the
    feet share no other ancestor).
    """
    feet = contacts.foot_joints(bone_names, positions)
    chains = []
    for foot in feet:
        chain, bone = [], int(foot)
        while bone >= 0:
            chain.append(bone)
            bone = int(parents[bone])
        chains.append(chain)
    shared = [bone for bone in chains[0] if all(bone in chain for chain in chains[1:])] if chains else []
    pelvis = next((bone for bone in shared if bone not in feet), shared[-1] if shared else 0)
    return feet, pelvis


def second_minima(heights: np.ndarray, fps: float) -> np.ndarray:
    """The minimum of ``heights (F,)`` over each whole second (the last, shorter one too), ``(ceil(F / fps),)``."""
    span = max(1, int(round(fps)))
    return np.minimum.reduceat(heights, np.arange(0, len(heights), span))


def body_heights(positions: np.ndarray, feet: list | np.ndarray, pelvis: int) -> tuple[np.ndarray, np.ndarray]:
    """(the lowest foot's height ``(F,)``, the pelvis's height ``(F,)``) of joints ``positions (F, B, 3)``."""
    return positions[:, feet, 2].min(axis=1), positions[:, pelvis, 2]


def clip_heights(clip: Clip, feet: list[str], pelvis: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`body_heights` of ``clip`` for bones called ``feet`` and ``pelvis`` (names), posing only their chains."""
    bones = [clip.bone_index(name) for name in (*feet, pelvis)]
    positions = kinematics.clip_joint_positions(clip, bones)  # (F, feet and pelvis, 3)
    return body_heights(positions, list(range(len(feet))), len(feet))


def _own_heights(clip, positions, feet, pelvis):
    """:func:`body_heights` of ``clip``'s joints ``feet`` and ``pelvis`` (indices): read from its joints ``positions
    (F, B, 3)`` when it is posed already, else posing only their chains (:func:`clip_heights`)."""
    if positions is None:
        return clip_heights(clip, [clip.bone_names[f] for f in feet], clip.bone_names[pelvis])
    return body_heights(positions, feet, pelvis)


def grounding(result: tuple[np.ndarray, np.ndarray], sources: list, fps: float) -> Grounding:
    """:class:`Grounding` of a result against the clips it was made from.

    result, and each of sources: (lowest foot height ``(F,)``, pelvis
    height ``(F,)``) as :func:`body_heights` gives them; fps: frames per second.
    """
    floors = [second_minima(foot, fps) for foot, _ in sources]
    low, high = min(f.min() for f in floors), max(f.max() for f in floors)
    floor = second_minima(result[0], fps)
    outside = np.where(floor > high, floor - high, np.where(floor < low, floor - low, 0.0))
    worst = int(np.argmax(np.abs(outside)))
    pelvis_low, pelvis_high = min(p.min() for _, p in sources), max(p.max() for _, p in sources)
    height = result[1]
    pelvis_offset = max(0.0, float(height.max() - pelvis_high), float(pelvis_low - height.min()))
    return Grounding(floor_offset=float(abs(outside[worst])), pelvis_offset=pelvis_offset, lifted=float(outside[worst]))


def of_clip(clip: Clip, positions: np.ndarray | None, sources: tuple | list) -> Grounding:
    """:class:`Grounding` of ``clip`` against ``sources``.

    positions: ``clip``'s joints ``(F, B, 3)`` when already posed, or None
    to pose only the legs' chains (feet found by name). sources: the clips
    it was made from (on their own skeletons, bones matched by name), or
    their joint positions on ``clip``'s bones.
    """
    feet, pelvis = legs(clip.bone_names, clip.parents, positions)
    if not len(feet):  # no bone is named like a foot: the lowest joints on frames spread over the clip
        sample = clip.take_frames(np.unique(np.linspace(0, clip.num_frames - 1, 100).astype(int)))
        feet, pelvis = legs(clip.bone_names, clip.parents, kinematics.clip_joint_positions(sample))
    given = [set(s.bone_names) for s in sources if not isinstance(s, np.ndarray)]
    feet = np.array([f for f in feet if all(clip.bone_names[f] in names for names in given)] or feet)  # an importer's end bones
    names = [clip.bone_names[f] for f in feet], clip.bone_names[pelvis]
    heights = [body_heights(s, feet, pelvis) if isinstance(s, np.ndarray) else clip_heights(s, *names) for s in sources]
    own = _own_heights(clip, positions, feet, pelvis)
    return grounding(own, heights, clip.fps)


def floor_height(clip: Clip, positions: np.ndarray | None = None) -> float:
    """Where a take's feet stand (armature Z, clip units): the median over its seconds of the lowest foot's lowest point.

    About 0 for a take on the floor; negative when it stands under it (a file that puts the pelvis at the origin), positive
    above it. Feet as :func:`of_clip` finds them; a single pose counts as one second. positions: the clip's joints
    ``(F, B, 3)`` when already posed (:func:`~..motion.kinematics.clip_joint_positions`), else only the legs are posed.
    """
    sampled = np.unique(np.linspace(0, clip.num_frames - 1, min(clip.num_frames, 100)).astype(int))
    sample = kinematics.clip_joint_positions(clip.take_frames(sampled)) if positions is None else positions[sampled]
    feet, pelvis = legs(clip.bone_names, clip.parents, sample)
    lowest, _ = _own_heights(clip, positions, feet, pelvis)
    return float(np.median(second_minima(lowest, clip.fps)))


def grounded(clip: Clip, floor: float = 0.0) -> Clip:
    """``clip`` moved along Z so its feet stand on the floor at height ``floor`` (its :func:`floor_height`): each root bone's
    location shifted, in its rest frame (a root's head in armature space is its rest head plus its rest turn applied to
    its location)."""
    height = floor_height(clip) - floor
    roots = np.flatnonzero(clip.parents < 0)
    location = clip.location.copy()
    location[:, roots] -= np.einsum("rji,j->ri", clip.rest[roots, :3, :3], np.array([0.0, 0.0, height]))
    animated = clip.animated_location.copy()
    animated[roots] = True
    return clip.with_channels(location=location, animated_location=animated)


def numbers(body: Grounding) -> dict[str, float]:
    """The report's numbers (``floor_offset_m``, ``pelvis_offset_m``) of a :class:`Grounding`: the verdict judges them."""
    return {"floor_offset_m": body.floor_offset, "pelvis_offset_m": body.pelvis_offset}


def numbers_and_notes(body: Grounding, inputs: str) -> tuple[dict[str, float], list[str]]:
    """:func:`numbers`, and a note saying how far the body stands off its clips' floor or height when it does (``inputs``:
    what they are called, e.g. "the pieces")."""
    return numbers(body), ([body.summary(inputs)] if body.off else [])
