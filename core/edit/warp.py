"""The pace a time warp between two motions expects: each clip's gait cycle, from its footfalls.

Splice and blend time-align clips with :func:`..transition.timewarp.chunked_warp`,
which looks for each chunk's end within a gait cycle of where the clips'
cycles expect it. Frames are 0-based indices, positions armature space (Z up).
"""

import numpy as np

from ..motion import contacts


def gait_cycle(positions: np.ndarray, toes: np.ndarray, dt: float) -> float | None:
    """Frames from one footfall to the next of the same foot (the median, over ``toes``), or None unless every toe lands twice.

    positions ``(F, B, 3)`` armature space; a footfall starts a contact after
    the clip's first frame (a foot planted from the start has not landed).
    """
    planted = contacts.detect_contacts(positions[:, toes], dt)
    cycles = []
    for column in planted.T:  # one per toe
        landings = contacts.contact_segments(column)[:, 0]
        landings = landings[landings > 0]
        if len(landings) < 2:
            return None
        cycles.append(np.median(np.diff(landings)))
    return float(np.mean(cycles)) if cycles else None


def gait_cycles(positions_a: np.ndarray, positions_b: np.ndarray, toes: np.ndarray, fps: float) -> tuple[tuple[float, float], bool]:
    """Both clips' gait cycles in frames (A's, B's) and whether both step (see :func:`gait_cycle`).

    positions ``(F, B, 3)`` of clips on one skeleton; toes: joint indices.
    Unless both step, each cycle is one second: the warp expects both clips
    at one speed and searches a second around it.
    """
    cycles = tuple(gait_cycle(positions, toes, 1.0 / fps) if len(toes) else None for positions in (positions_a, positions_b))
    steps = None not in cycles
    return (cycles if steps else (fps, fps)), steps
