"""A BVH file's units and up axis: what Blender's importer is given for them, and guessing them from the posed skeleton."""

from dataclasses import dataclass

import numpy as np

from . import body
from .layout import BvhError, BvhInfo

#: Blender's axes (Z up, -Y forward) to BVH's (Y up, Z forward): (x, y, z) -> (x, z, -y).
BLENDER_TO_Y_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
#: ``bpy.ops.import_anim.bvh`` axis arguments for a file of each up axis (see :func:`up_axis`).
IMPORT_AXES = {"Y": {"axis_forward": "-Z", "axis_up": "Y"}, "Z": {"axis_forward": "Y", "axis_up": "Z"}}
#: Blender's axes to a file's, for each up axis: the inverse of what the import with IMPORT_AXES does.
BLENDER_TO_FILE = {"Y": BLENDER_TO_Y_UP, "Z": np.eye(3)}

#: ``global_scale`` limits of Blender's BVH importer and exporter (their FloatProperty min and
#: max); Blender clamps a value outside them without a word.
BLENDER_SCALE_LIMITS = (0.0001, 1000000.0)
#: Import scales (metres per file unit) a round trip can use: the import takes the scale and
#: the export its inverse, and both must lie within BLENDER_SCALE_LIMITS.
SCALE_RANGE = (0.0001, 10000.0)

#: Units BVH files come in, metres per unit. CMU's BVH conversions keep the ASF's units,
#: inches / 0.45 (mocap.cs.cmu.edu FAQ), so a 1.7 m person is about 30 units tall; MakeHuman's
#: exports are in decimetres (a 1.6 m person 16 units tall, which CMU units would make 0.9 m).
UNITS = (("metres", 1.0), ("decimetres", 0.1), ("centimetres", 0.01), ("millimetres", 0.001), ("inches", 0.0254),
         ("CMU units", 0.0254 / 0.45))
HUMAN_HEIGHT = (0.8, 2.3)  # metres: plausible skeleton heights, feet to the highest joint or End Site
ADULT_HEIGHT = (1.4, 2.1)  # metres: an adult's stature, the unit preferred when one puts a biped there
ANIMAL_LEG, TYPICAL_LEG = (0.05, 2.0), 0.5  # metres: an animal's leg length, hip to foot (a mouse's to a horse's)
TYPICAL_HEIGHT = 1.7  # metres: what a skeleton in no known unit is scaled to
#: The unit named for a skeleton that no unit of UNITS makes a human height: it is scaled to TYPICAL_HEIGHT.
SCALED_TO_TYPICAL = f"scaled to {TYPICAL_HEIGHT} m"
_HEAD_WORDS, _FOOT_WORDS = ("head",), ("foot", "toe", "ankle", "paw", "hoof")


@dataclass(frozen=True)
class ScaleChoice:
    """An import scale and how it was chosen.

    scale: metres per file unit (Blender's ``global_scale``); unit: the name of
    the unit of UNITS it is, SCALED_TO_TYPICAL, or how else it was chosen;
    reason: the sentence that says so (for a guess, with the height found).
    """

    scale: float
    unit: str
    reason: str


def _named(info, words):
    return [joint for joint, name in enumerate(info.names) if any(word in name.lower() for word in words)]


def _clear(rise):
    """Whether one axis of ``rise`` (3,) is at least twice as long as each other."""
    axis = int(np.argmax(np.abs(rise)))
    return abs(rise[axis]) > 0.0 and abs(rise[axis]) >= 2.0 * np.delete(np.abs(rise), axis).max()


def _standing_axis(rise, what):
    """``'Y'`` or ``'Z'``: the axis ``rise`` mostly points along; BvhError for X or pointing down (spans shown as lengths)."""
    axis = int(np.argmax(np.abs(rise)))
    if axis == 0 or rise[axis] < 0.0:
        sign = "-" if rise[axis] < 0.0 else ""
        shown = ", ".join(f"{v:.3g}" for v in np.abs(rise))
        raise BvhError(f"the skeleton stands along {sign}{'XYZ'[axis]} ({what}: {shown}); only Y-up and Z-up files are read")
    return "XYZ"[axis]


def up_axis(info: BvhInfo) -> str:
    """``'Y'`` or ``'Z'``: the file axis the posed skeleton stands along.

    Legs decide (joints named like feet, hanging from the hips: a biped's or
    a quadruped's, whatever the body does above them); without clear legs,
    the head above the feet; without either, the axis of the skeleton's
    largest extent, pointing to the side most joints are on (arms, spine
    and head outnumber legs). Y (BVH's own convention) when none of these
    is clear. BvhError when the skeleton stands along X or upside down; the
    message gives each axis's span as a length (never negative).
    """
    down = body.leg_direction(info) if body.body(info) is not None else None  # legs of no length say nothing
    if down is not None and _clear(-down):
        return _standing_axis(-down, "the hips above the feet")
    points = info.sampled_pose
    heads, feet = _named(info, _HEAD_WORDS), _named(info, _FOOT_WORDS)
    if heads and feet:
        rise = np.median(points[:, heads].mean(axis=1) - points[:, feet].mean(axis=1), axis=0)
        return _standing_axis(rise, "the head above the feet") if _clear(rise) else "Y"
    low, high = points.min(axis=1), points.max(axis=1)
    side = np.sign(np.median(points.mean(axis=1) - 0.5 * (low + high), axis=0))
    rise = side * np.median(high - low, axis=0)
    return _standing_axis(rise, "the skeleton's extent") if _clear(rise) else "Y"


def _extent_height(info, up):
    along = info.sampled_pose[..., "XYZ".index(up)]
    return float(np.percentile(along.max(axis=1) - along.min(axis=1), 90))


def standing_height(info: BvhInfo, up: str | None = None) -> float:
    """The skeleton's height in file units: a biped's stature estimated from its bones (:func:`.body.body`), else the
    90th percentile over posed frames of its extent along ``up`` (:func:`up_axis` by default).

    A biped's stature does not depend on its pose; the extent runs from the
    feet to the highest joint or End Site.
    """
    found = body.body(info)
    if found is not None and found.biped:
        return found.size
    return _extent_height(info, up or up_axis(info))


def suggest_scale(info: BvhInfo, up: str | None = None) -> tuple[float, str]:
    """``(scale, reason)`` of :func:`guess_scale`."""
    guess = guess_scale(info, up)
    return guess.scale, guess.reason


def guess_scale(info: BvhInfo, up: str | None = None) -> ScaleChoice:
    """The :class:`ScaleChoice` guessed for ``info``: metres per file unit for Blender's ``global_scale``, its unit, and why.

    A biped: the unit of UNITS that makes its stature (:func:`standing_height`)
    an adult's (ADULT_HEIGHT), else a human height (HUMAN_HEIGHT), the one
    nearest TYPICAL_HEIGHT where several do (the reason names the others).
    An animal (legs, but no head above them): the unit that makes its legs
    ANIMAL_LEG long, nearest TYPICAL_LEG. A skeleton without legs: its
    extent along ``up`` (:func:`up_axis` by default) as a human height. What
    no unit fits is scaled to the typical size; a skeleton of no size (one
    joint) is read in metres. BvhError if the scale is outside SCALE_RANGE.
    """
    found = body.body(info)
    if found is not None and not found.biped:
        return _choose(found.size, (ANIMAL_LEG,), TYPICAL_LEG, ("its legs are", "long"), "an animal: its head is not above its hips")
    height = found.size if found is not None else _extent_height(info, up or up_axis(info))
    how = "its stature from its bones' lengths" if found is not None else "feet to the top of its posed extent"
    return _choose(height, (ADULT_HEIGHT, HUMAN_HEIGHT), TYPICAL_HEIGHT, ("the skeleton stands", "tall"), how)


def _choose(size, ranges, typical, words, how):
    """The ScaleChoice of a body ``size`` file units large: the first of ``ranges`` (metres) some unit puts it in, the unit
    nearest ``typical`` there, else scaled to ``typical``; ``words`` (subject, adjective) and ``how`` word the reason."""
    subject, adjective = words
    if size <= 0.0:
        return ScaleChoice(1.0, "metres", "the skeleton has no size to measure (one joint), so its units are taken as metres")
    for low, high in ranges:
        fits = sorted((abs(np.log(size * scale / typical)), name, scale) for name, scale in UNITS if low <= size * scale <= high)
        if fits:
            _, name, scale = fits[0]
            others = [f"{other} would make it {size * factor:.2f} m" for _, other, factor in sorted(
                (abs(np.log(size * factor / typical)), other, factor) for other, factor in UNITS
                if other != name and ranges[-1][0] <= size * factor <= ranges[-1][1])]
            nearest = f"; {', '.join(others)}, further from a typical {typical:g} m" if others else ""
            return ScaleChoice(scale, name, f"{subject} {size * scale:.2f} m {adjective} in {name} ({how}){nearest}")
    scale = typical / size
    if not SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]:
        raise BvhError(f"{subject} {size:.4g} units {adjective} ({how}), too far from a usual size to scale within Blender's range")
    return ScaleChoice(float(scale), SCALED_TO_TYPICAL, f"{subject} {size:.4g} units {adjective} ({how}), which no usual "
                                                       f"unit ({', '.join(name for name, _ in UNITS)}) makes a usual size: {SCALED_TO_TYPICAL}")
