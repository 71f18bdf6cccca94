"""A BVH file's units and up axis: what Blender's importer is given for them, and guessing them from the posed skeleton."""

from dataclasses import dataclass

import numpy as np

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
TYPICAL_HEIGHT = 1.7  # metres: what a skeleton in no known unit is scaled to
#: The unit named for a skeleton that no unit of UNITS makes a human height: it is scaled to TYPICAL_HEIGHT.
SCALED_TO_TYPICAL = f"scaled to {TYPICAL_HEIGHT} m"
_HEAD_WORDS, _FOOT_WORDS = ("head",), ("foot", "toe", "ankle")


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


def up_axis(info: BvhInfo) -> str:
    """``'Y'`` or ``'Z'``: the file axis the posed skeleton stands along (head above feet).

    Joints named like a head and feet decide; without them, the axis of the
    skeleton's largest extent, pointing to the side most joints are on (arms,
    spine and head outnumber legs), and Y (BVH's own convention) when that
    extent is unclear but Y's is at least half the largest. BvhError when the
    answer is unclear, or the skeleton stands along X or upside down; the
    message gives each axis's span as a length (never negative).
    """
    points = info.sampled_pose
    heads, feet = _named(info, _HEAD_WORDS), _named(info, _FOOT_WORDS)
    if heads and feet:
        rise = np.median(points[:, heads].mean(axis=1) - points[:, feet].mean(axis=1), axis=0)
        what = "the head above the feet"
    else:
        low, high = points.min(axis=1), points.max(axis=1)
        side = np.sign(np.median(points.mean(axis=1) - 0.5 * (low + high), axis=0))
        rise = side * np.median(high - low, axis=0)
        what = "the skeleton's extent"
    axis = int(np.argmax(np.abs(rise)))
    others = np.delete(np.abs(rise), axis)
    shown = ", ".join(f"{v:.3g}" for v in np.abs(rise))
    if abs(rise[axis]) < 2.0 * others.max():
        if not (heads and feet) and rise[1] >= 0.5 * abs(rise[axis]):
            return "Y"
        raise BvhError(f"no clear up axis: {what} spans ({shown}) along X, Y, Z")
    if axis == 0 or rise[axis] < 0.0:
        sign = "-" if rise[axis] < 0.0 else ""
        raise BvhError(f"the skeleton stands along {sign}{'XYZ'[axis]} ({what}: {shown}); only Y-up and Z-up files are read")
    return "XYZ"[axis]


def standing_height(info: BvhInfo, up: str | None = None) -> float:
    """The skeleton's height in file units: the 90th percentile over posed frames of its extent along ``up``.

    Joints and End Sites count, so it runs from the feet to the highest of
    them (the head's End Site when standing); ``up`` defaults to :func:`up_axis`.
    """
    along = info.sampled_pose[..., "XYZ".index(up or up_axis(info))]
    return float(np.percentile(along.max(axis=1) - along.min(axis=1), 90))


def suggest_scale(info: BvhInfo, up: str | None = None) -> tuple[float, str]:
    """``(scale, reason)`` of :func:`guess_scale`."""
    guess = guess_scale(info, up)
    return guess.scale, guess.reason


def guess_scale(info: BvhInfo, up: str | None = None) -> ScaleChoice:
    """The :class:`ScaleChoice` guessed for ``info``: metres per file unit for Blender's ``global_scale``, its unit, and why.

    The unit of UNITS that makes the skeleton's :func:`standing_height` a
    human height (HUMAN_HEIGHT; the one nearest TYPICAL_HEIGHT if several);
    otherwise the scale that makes it TYPICAL_HEIGHT. BvhError if that is
    outside SCALE_RANGE. ``up`` defaults to :func:`up_axis`.
    """
    height = standing_height(info, up)
    fits = [(abs(np.log(height * scale / TYPICAL_HEIGHT)), name, scale) for name, scale in UNITS
            if HUMAN_HEIGHT[0] <= height * scale <= HUMAN_HEIGHT[1]]
    if fits:
        _, name, scale = min(fits)
        return ScaleChoice(scale, name, f"the skeleton stands {height:.4g} units tall: {name} ({height * scale:.2f} m)")
    scale = TYPICAL_HEIGHT / height if height > 0.0 else np.inf
    if not SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]:
        raise BvhError(f"the skeleton stands {height:.4g} units tall, too far from a human height to scale within Blender's range")
    return ScaleChoice(float(scale), SCALED_TO_TYPICAL, f"the skeleton stands {height:.4g} units tall, which no usual unit "
                                                       f"({', '.join(name for name, _ in UNITS)}) makes a human height: {SCALED_TO_TYPICAL}")
