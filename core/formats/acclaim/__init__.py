"""Acclaim ASF/AMC files, with no Blender: the skeleton (:mod:`.asf`), the motion (:mod:`.amc`, numpy first), both as the
clip every command uses and back (:mod:`.clip`), and writing them (:mod:`.write`). Errors are :class:`AcclaimError`,
naming the file, the line and the reason."""

from ...errors import AcclaimError
from .amc import AmcMotion, parse_amc, read_amc, skeleton_named
from .asf import INCHES, ROOT, AsfSkeleton, parse_asf, read_asf
from .clip import (DEFAULT_FPS, armature_from_acclaim, clip_from_acclaim, euler_orders, kept_to_dofs, motion_from_clip, read_acclaim,
                   rest_in_file_axes)
from .write import amc_chunks, amc_text, asf_text, write_amc, write_asf

__all__ = [
    "DEFAULT_FPS", "INCHES", "ROOT", "AcclaimError", "AmcMotion", "AsfSkeleton", "amc_chunks", "amc_text", "armature_from_acclaim",
    "asf_text", "clip_from_acclaim", "euler_orders", "kept_to_dofs", "motion_from_clip", "parse_amc", "parse_asf", "read_acclaim", "read_amc",
    "read_asf", "rest_in_file_axes", "skeleton_named", "write_amc", "write_asf",
]
