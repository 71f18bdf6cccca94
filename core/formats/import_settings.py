"""What was decided on reading an input file, kept for its outputs and reported as its entry's ``"import"``."""

from dataclasses import dataclass

#: The fields reported for each input format; other formats report none.
_REPORTED = {
    ".bvh": ("bvh_scale", "bvh_scale_reason", "bvh_unit", "up_axis", "reader"),
    ".glb": ("key_rate",),
    ".gltf": ("key_rate",),
    ".amc": ("asf", "asf_found", "amc_fps", "bvh_scale", "bvh_unit"),
}


@dataclass(frozen=True)
class ImportSettings:
    """How an input file was read.

    suffix: the file's format, lower case (``'.bvh'``, ``'.fbx'``...).
    A BVH sets bvh_scale (metres per file unit), bvh_scale_reason (the
    sentence saying how it was chosen), bvh_unit (the unit's name, e.g.
    ``'centimetres'``, or ``'scaled to 1.7 m'`` when no unit fits, or
    ``'given with --scale'``), up_axis (``'Y'`` or ``'Z'``) and reader
    (``'blender'`` or ``'numpy'``). A glTF sets key_rate, its animation's
    frames per second (None when it has no evenly keyed animation). An
    Acclaim motion (``'.amc'``) sets asf (its skeleton file), asf_found (how
    that was found: given with ``--asf``, beside the motion), amc_fps (the
    frame rate it was read at: AMC files carry none), bvh_scale (metres per
    skeleton unit), bvh_unit (that unit in words), up_axis ``'Y'`` and reader
    ``'numpy'``: a BVH output of it is written in the skeleton's units, Y up.
    """

    suffix: str
    bvh_scale: float | None = None
    bvh_scale_reason: str | None = None
    bvh_unit: str | None = None
    up_axis: str | None = None
    reader: str | None = None
    key_rate: float | None = None
    asf: str | None = None
    asf_found: str | None = None
    amc_fps: float | None = None

    def to_json(self) -> dict:
        """The report's ``"import"`` dict: the fields of this file's format (see _REPORTED), in that order."""
        return {name: getattr(self, name) for name in _REPORTED.get(self.suffix, ())}
