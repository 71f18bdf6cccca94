"""BVH files: checked reading, units and up axis, writing, and Blender's exported text back in the input's layout.

One module per job: :mod:`.layout` (the file's contents as data, where
channels sit in a row, forward kinematics), :mod:`.read` (the checked
reader, numpy first) with :mod:`.decimals` (plain decimal words to numbers,
vectorized) and :mod:`.exact` (the token-by-token reader that names a
problem's line and column), :mod:`.write`, :mod:`.units` (scale and up
axis, from the legs, head and stature that :mod:`.body` finds) and :mod:`.blender_text` (Blender exporter's text into the input's
axes and layout). Callers use the names this package exposes.
"""

from .blender_text import change_axes, match_layout
from .layout import (CHANNEL_NAMES, MAX_NAME_BYTES, BvhError, BvhInfo, Layout, NotBvhError, forward_kinematics, kept_frame_time, layouts,
                     rows_in_layout)
from .read import parse_bvh, read_bvh
from .units import (BLENDER_SCALE_LIMITS, BLENDER_TO_FILE, BLENDER_TO_Y_UP, HUMAN_HEIGHT, IMPORT_AXES, SCALE_RANGE, SCALED_TO_TYPICAL,
                    TYPICAL_HEIGHT, UNITS, ScaleChoice, guess_scale, standing_height, suggest_scale, up_axis)
from .write import to_text, write_bvh, write_chunks

__all__ = [
    "BLENDER_SCALE_LIMITS", "BLENDER_TO_FILE", "BLENDER_TO_Y_UP", "CHANNEL_NAMES", "HUMAN_HEIGHT", "IMPORT_AXES", "MAX_NAME_BYTES",
    "SCALED_TO_TYPICAL", "SCALE_RANGE", "TYPICAL_HEIGHT", "UNITS", "BvhError", "BvhInfo", "Layout", "NotBvhError", "ScaleChoice",
    "change_axes", "forward_kinematics", "guess_scale", "kept_frame_time", "layouts", "match_layout", "parse_bvh", "read_bvh",
    "rows_in_layout", "standing_height", "suggest_scale", "to_text", "up_axis", "write_bvh", "write_chunks",
]
