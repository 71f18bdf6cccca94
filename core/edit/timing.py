"""Edits of time: another frame rate (resample) or another speed (retime).

Both sample the clip at fractional frame times (:mod:`..motion.sampling`), computed
from the frame number directly, never accumulated, so nothing drifts over a
long take. Both keep the first and the last pose: the root's whole travel is
kept, and a loop stays a loop. Frames keep their numbers from the clip's first.
"""

import numpy as np

from ..errors import EditError
from ..measure.edit import EditResult, retimed_skating
from ..motion import sampling
from ..motion.clip import Clip

#: Highest and lowest rates and speeds accepted (a typo such as 6000 fps would make a huge clip).
FPS_RANGE = (1.0, 1000.0)
SPEED_RANGE = (0.01, 100.0)
MAX_FRAMES = 10_000_000
END_SLACK = 0.01  # source frames a resampled clip's last frame may be moved onto the clip's last


def _check(value, bounds, what):
    if not (np.isfinite(value) and bounds[0] <= value <= bounds[1]):
        raise EditError(f"{what} must be between {bounds[0]:g} and {bounds[1]:g}, not {value:g}")


def _frame_count(count, what):
    if count > MAX_FRAMES:
        raise EditError(f"{what} would make {count:,} frames (more than {MAX_FRAMES:,})")
    if count < 2:
        raise EditError(f"{what} would leave under two frames")
    return count


def resample(clip: Clip, fps: float, interpolation: str = "CUBIC") -> EditResult:
    """The clip on a grid of ``fps`` frames per second; EditResult (edit ``resample``).

    New frame k shows the clip at ``k / fps`` seconds, so every original
    frame the new grid meets is reproduced exactly (30 -> 60 -> 30 gives the
    original back). When the duration is not a whole number of new frames,
    the last fraction of a new frame (under ``1 / fps`` s) is left out, and a
    note says how much; within :data:`END_SLACK` of a whole number, the last
    new frame is the clip's last. numbers: ``fps`` (new), ``source_fps``, ``frames``,
    ``source_frames``, ``dropped_seconds`` (at the end).
    """
    _check(fps, FPS_RANGE, "the new frame rate")
    ratio = clip.fps / fps  # source frames per new frame
    # A rate read from a file is rounded (a BVH's 0.033333 s is 30.00003 fps): a last new frame that
    # misses the clip's end by a hundredth of a frame shows the end.
    count = _frame_count(int(np.floor((clip.num_frames - 1) / ratio + END_SLACK)) + 1, f"resampling to {fps:g} fps")
    times = np.minimum(np.arange(count) * ratio, clip.num_frames - 1)
    dropped = (clip.num_frames - 1 - times[-1]) / clip.fps
    notes = (f"the last {dropped:.4f} s (under a frame at {fps:g} fps) is left out",) if dropped > 0.0 else ()
    result = sampling.sample_clip(clip, times, interpolation, fps=fps)
    return EditResult(result, "resample", {"fps": float(fps), "source_fps": clip.fps, "frames": count, "source_frames": clip.num_frames,
                                           "dropped_seconds": max(dropped, 0.0)}, notes, times, keeps_loop=dropped == 0.0)


def retime(clip: Clip, speed: float | None = None, duration: float | None = None, interpolation: str = "CUBIC") -> EditResult:
    """The clip played ``speed`` times as fast, or stretched to last ``duration`` seconds; EditResult (edit ``retime``).

    Exactly one of speed or duration. The frame rate stays; the new clip
    has ``round(clip.duration / speed * fps) + 1`` frames spread evenly from
    the first pose to the last, so the speed actually applied can differ
    from the one asked by under half a frame over the clip (a note says so).
    The root travels as far in total; its speed, and any foot skating,
    scale with the speed. CUBIC interpolation keeps slowed-down motion smooth
    between the original frames. numbers: ``speed`` (applied), ``duration``
    and ``source_duration`` (s), ``frames``, ``skating`` and ``source_skating``
    (mean toe speed in contact, per second, on the source's contacts: a clip
    that slides only as much as the original has ``skating = speed * source_skating``).
    """
    if (speed is None) == (duration is None):
        raise EditError("retime takes a speed or a duration, not both or neither")
    if duration is not None:
        _check(duration, (1.0 / clip.fps, clip.duration / SPEED_RANGE[0]), "the new duration in seconds")
        asked = clip.duration / duration
    else:
        _check(speed, SPEED_RANGE, "the speed")
        asked = speed
    count = _frame_count(int(round(clip.duration / asked * clip.fps)) + 1, f"retiming at speed {asked:g}")
    applied = (clip.num_frames - 1) / (count - 1)
    times = np.linspace(0.0, clip.num_frames - 1, count)
    result = sampling.sample_clip(clip, times, interpolation)
    notes = (f"speed {applied:.4f} applied: the nearest to {asked:g} that fills a whole number of frames",) if abs(applied - asked) > 1e-9 * asked else ()
    skating, source_skating = retimed_skating(clip, result, times)
    return EditResult(result, "retime", {"speed": applied, "duration": result.duration, "source_duration": clip.duration, "frames": count,
                                         "skating": skating, "source_skating": source_skating}, notes, times, keeps_loop=True)
