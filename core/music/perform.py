"""A composed performance retimed to a song: its keyposes on the beats, its junctions as good as before.

:func:`sync_performance` finds the keyposes of the performance as composed, warps it with
:func:`.sync.sync_to_beats` (or, for a loop, a warp that plays the whole cycle in a whole number of bars) and
samples it with :func:`.sync.warp_clip`. :func:`measure_sync` gives the numbers a report shows of it: the share
of keyposes on the beat grid before and after, the stretch, and each junction's visibility and the toe skating
before and after the warp. Times are seconds on the song's clock (output time 0 is the output's first frame);
frames are 0-based indices.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import SyncError
from ..measure import edit as edit_measure, seam as seam_measure, transition as transition_measure
from ..motion import kinematics
from ..motion.clip import Clip
from . import keyposes as keyposes_module, sync as sync_module

BEATS_PER_BAR = sync_module.BEATS_PER_BAR
ON_BEAT_GOOD = 0.8  # share of keyposes within a frame of the grid that is GOOD
RESAMPLING = 1.08  # a junction this much sharper than composed is worth a second sync (resampling alone moves it up to about 9%)
WINDOW_MARGIN = 3  # frames either side of a junction's window the warp holds down too (its measure reads one)


def _phase(keys, strength, spacing):
    """The time in ``[0, spacing)`` the keyposes ``keys (K,)`` (output seconds) fall on most, modulo ``spacing``: their
    circular mean, weighted by ``strength (K,)``."""
    angle = 2.0 * np.pi * keys / spacing
    mean = np.angle(np.sum(strength * np.exp(1j * angle)))
    return float((mean % (2.0 * np.pi)) / (2.0 * np.pi) * spacing)


def _loop_bars(duration, speed, bar, most, max_stretch):
    """``(bars, stretch, needed)`` for a loop's cycle of ``duration`` s: of 1 to ``most`` bars of ``bar`` s, the count whose
    stretch (``duration`` over its length) lies inside ``max_stretch`` nearest ``speed`` in log, and None; where no count is
    inside, the one nearest the bounds, played at the nearest bound, and the stretch it needed."""
    counts = np.arange(1, most + 1)
    stretches = duration / (counts * bar)
    low, high = np.log(max_stretch[0]), np.log(max_stretch[1])
    outside = np.maximum(np.maximum(low - np.log(stretches), np.log(stretches) - high), 0.0)
    if np.any(outside <= 1e-12):
        best = int(np.argmin(np.where(outside <= 1e-12, np.abs(np.log(stretches / speed)), np.inf)))
        return int(counts[best]), float(stretches[best]), None
    best = int(np.argmin(outside))
    return int(counts[best]), float(np.clip(stretches[best], *max_stretch)), float(stretches[best])


def _loop_part(name, ratio, keys, bars, per_bar, beat, cycle_out, reach):
    """The loop's one :class:`.sync.PartTempo`: ``reach`` the (stretch, needed, max_stretch) of :func:`_loop_bars`; out of
    reach, what it needed for and how far each repeat of its cycle of ``cycle_out`` s leaves the bar line."""
    stretch, needed, max_stretch = reach
    part = sync_module.PartTempo(name, 0.0, ratio, stretch, 60.0 / float(np.median(np.diff(keys))))
    if needed is None:
        return part
    length = bars * per_bar * beat
    goal = (f"loop in whole bars of the song ({bars} bar{'' if bars == 1 else 's'} of {per_bar} beats, {length:.2f} s; its cycle "
            f"plays {cycle_out:.2f} s, each repeat {abs(cycle_out - length) * 1000.0:.0f} ms {'after' if cycle_out > length else 'before'} the bar line)")
    return replace(part, needed=needed, fit=sync_module.stretch_to_fit(needed, max_stretch), goal=goal)


def _loop_sync(keys, strength, beats, duration, fps, max_stretch, seconds, per_bar, name):
    """:func:`.sync.sync_to_beats` for a loop: the whole cycle (input 0 to ``duration``) in a whole number of bars, the warp's
    slope the same at both ends so the wrap keeps its speed. The beats (from 0) are moved later by up to a beat, to where
    the keyposes fall when the cycle plays at its mean speed: the returned grid is where they play in the output. A cycle no
    whole number of bars holds inside ``max_stretch`` plays at the nearest bound (its part says what it needed)."""
    beat = 60.0 / sync_module.song_tempo(beats)
    ratio, speed = sync_module.choose_ratio(60.0 / float(np.median(np.diff(keys))), sync_module.song_tempo(beats), max_stretch, name)
    most = sync_module.loop_beats(beats, seconds if seconds is not None else beats[-1], per_bar) // per_bar
    if most < 1:
        raise SyncError(f"the song holds no whole bar of {per_bar} beats to loop {name} over", clip=name)
    bars, played_at, needed = _loop_bars(duration, speed, per_bar * beat, most, max_stretch)
    exact = duration / played_at * fps  # a whole number of frames (the loop repeats in step), at the nearest bound inside it
    cycle_out = next(frames for frames in (round(exact), np.ceil(exact), np.floor(exact))
                     if needed is None or max_stretch[0] - 1e-9 <= duration * fps / frames <= max_stretch[1] + 1e-9) / fps
    part = _loop_part(name, ratio, keys, bars, per_bar, beat, cycle_out, (played_at, needed, max_stretch))
    if beats[-1] - beats[0] < cycle_out + beat:  # a cycle longer than the song (out of reach): its beat continued
        beats = np.append(beats, beats[-1] + beat * np.arange(1, int(np.ceil((cycle_out + beat) / beat)) + 1))
    phase = _phase(keys * cycle_out / duration, strength, beat / max(ratio, 1.0))
    shifted = np.concatenate([[phase - beat], beats - beats[0] + phase])
    found = sync_module.sync_to_beats(keys, shifted[shifted >= 0.0], duration, fps, max_stretch, None, strength, name)
    found.grid = sync_module.beat_grid(shifted, sync_module.division(ratio))[0]
    inner = found.anchors[(found.anchors[:, 0] > 1e-9) & (found.anchors[:, 0] < cycle_out - 1e-9)
                          & (found.anchors[:, 1] > 1e-9) & (found.anchors[:, 1] < duration - 1e-9) & (needed is None)]  # else even
    anchors = np.concatenate([[[0.0, 0.0]], inner, [[cycle_out, duration]]])
    x = sync_module.relax_anchors(anchors[:, 0], anchors[:, 1], max_stretch)
    x[-1] = cycle_out
    # One anchor either side from the other end of the cycle: the knot slopes at 0 and at the end come out equal.
    warp = sync_module.monotone_warp(np.concatenate([[x[-2] - cycle_out], x, [x[1] + cycle_out]]),
                                     np.concatenate([[anchors[-2, 1] - duration], anchors[:, 1], [anchors[1, 1] + duration]]), max_stretch)
    count = int(round(cycle_out * fps)) + 1
    input_times, stretch = warp(np.arange(count) / fps)
    input_times[-1] = duration
    dense = np.arange((count - 1) * sync_module.OVERSAMPLING + 1) / (fps * sync_module.OVERSAMPLING)
    played = np.interp(keys[keys <= duration], warp(dense)[0], dense)
    return replace(found, input_times=np.clip(input_times, 0.0, duration), stretch=stretch, anchors=np.stack([x, anchors[:, 1]], 1),
                   matched=np.where(np.isnan(found.matched), np.nan, np.interp(keys, anchors[:, 1], x)), end=cycle_out, parts=(part,),
                   offsets_after=grid_offsets(played, found.grid))


def grid_offsets(times, grid):
    """Each of ``times (n,)`` minus the nearest of ``grid (M,)``."""
    grid = np.sort(np.asarray(grid, dtype=float))
    if not len(times) or not len(grid):
        return np.zeros(0)
    nearest = np.abs(np.asarray(times)[:, None] - grid[None, :]).argmin(axis=1)
    return np.asarray(times) - grid[nearest]


def junction_spans(windows: list, fps: float) -> np.ndarray:
    """Input seconds ``(S, 2)`` whose speed the warp holds down (:func:`.sync.speed_ceiling`): each junction window
    ``(first, last)`` (0-based frames) and :data:`WINDOW_MARGIN` frames either side."""
    frames = np.asarray([(first, last) for first, last in windows], dtype=float).reshape(-1, 2)
    return (frames + np.array([-WINDOW_MARGIN, WINDOW_MARGIN])) / fps


def sync_performance(clip: Clip, beats: np.ndarray, max_stretch: tuple[float, float] = sync_module.MAX_STRETCH,
                     seconds: float | None = None, loop_bars: int | None = None, name: str = "the performance",
                     found: keyposes_module.Keyposes | None = None, windows: list | None = None,
                     parts: list | None = None) -> tuple[Clip, sync_module.Sync]:
    """``clip`` (a composed performance) retimed so its keyposes land on ``beats (N,)`` (seconds from its first frame):
    ``(warped clip, Sync)``.

    The performance ends on a beat at or before ``seconds`` (None: the last beat, that is the song's end). loop_bars:
    beats per bar for a loop (``clip`` a CLAMP loop whose last frame closes the cycle): the beats must start at 0 and the
    whole cycle plays in a whole number of bars. found: the clip's keyposes when known. windows: the composition's junction
    windows ``(first, last)`` (0-based frames of ``clip``): the warp plays each (and its measured margin) no faster than
    keeps it as sharp against its clips as composed, and the performance does not start inside one (not for a loop). The
    clips' typical accelerations as played depend on the warp itself: a first warp estimates them from the clips' speeds;
    when that leaves a junction sharper than composed by more than resampling alone does, a second reads them from the
    first, and is kept when its sharpest junction is the less sharp and it puts as many keyposes on the grid (or enough).
    parts: ``[(clip name, first frame), ...]`` the composition's clips in order: each keeps its own keyposes per beat and
    speed (not for a loop, whose cycle keeps one). SyncError naming the clip (or ``name``) and the stretch it would need when the tempos cannot meet inside ``max_stretch``.
    """
    found = keyposes_module.find_keyposes(clip) if found is None else found
    beats = np.asarray(beats, dtype=float)
    keys, strength, duration = found.seconds, found.strength, float(clip.duration)
    if loop_bars:
        if len(keys) < 2 or len(beats) < 2:
            raise SyncError(f"{name} has too few keyposes or the song too few beats to sync", clip=name)
        result = _loop_sync(keys, strength, beats, duration, clip.fps, max_stretch, seconds, int(loop_bars), name)
        return sync_module.warp_clip(clip, result.input_times), result
    spans, windows = junction_spans(windows or [], clip.fps), windows or []
    parts = [(part, first / clip.fps) for part, first in parts] if parts else None
    accelerations = junction_accelerations(clip, windows) if windows else None
    result = sync_module.sync_to_beats(keys, beats, duration, clip.fps, max_stretch, seconds, strength, name, spans=spans,
                                       parts=parts, accelerations=accelerations)
    warped = sync_module.warp_clip(clip, result.input_times)
    if not windows:
        return warped, result
    played, sharpest = _as_played(warped, result, windows, accelerations)
    if sharpest <= RESAMPLING:
        return warped, result
    second = sync_module.sync_to_beats(keys, beats, duration, clip.fps, max_stretch, seconds, strength, name, spans=spans,
                                       parts=parts, accelerations=played)
    warped_second = sync_module.warp_clip(clip, second.input_times)
    on_beat = [np.mean(np.abs(each.offsets_after) <= 1.0 / clip.fps + 1e-9) for each in (result, second)]
    better = _as_played(warped_second, second, windows, accelerations)[1] < sharpest and on_beat[1] >= min(on_beat[0], ON_BEAT_GOOD)
    return (warped_second, second) if better else (warped, result)


def _as_played(warped, result, windows, accelerations):
    """``accelerations`` (:class:`.sync.JunctionAccelerations` per junction window) with the typical peaks of the clips either
    side of each junction ``warped`` (the warp of ``result``) shows whole, as it plays them; and the most any of them plays
    sharper than composed (their visibilities' ratio; 0 for none). A junction the performance cuts is left as it was: its
    measure reads another window than the one composed."""
    shown, cut, _ = _shown_junctions(result, windows)
    junctions, positions = _junction_references(warped, [tuple(int(f) for f in output_frames(result, window)) for window in cut])
    played, sharpest = list(accelerations), 0.0
    for k, window, (measured, pair) in zip(shown, cut, junctions):  # a few junctions
        if tuple(window) != tuple(windows[k]):
            continue
        played[k] = replace(accelerations[k], played=tuple(pair))
        if len(measured):
            visibility = seam_measure.played_visibility(positions, warped.dt, measured, seam_measure.floored(np.maximum(*pair)))
            sharpest = max(sharpest, visibility / max(accelerations[k].visibility(), 1e-9))
    return played, sharpest


def output_frames(result: sync_module.Sync, frames: np.ndarray) -> np.ndarray:
    """The warped output's frame ``(n,)`` that plays each input frame of ``frames (n,)``: the first at or after it (clipped)."""
    index = np.searchsorted(result.input_frames, np.asarray(frames, dtype=float) - 1e-6)
    return np.clip(index, 0, len(result.input_frames) - 1)


def _pieces_around(windows, num_frames):
    """Per junction window ``(first, last)``: the frames ``(start, stop)`` of the piece before it and the piece after it,
    each from the window before to the window after (a piece's other junction plays as part of it)."""
    edges = [(0, -1)] + [(int(first), int(last)) for first, last in windows] + [(num_frames, num_frames - 1)]
    return [((edges[k][0], edges[k + 1][0]), (edges[k + 1][1] + 1, edges[k + 2][1] + 1)) for k in range(len(windows))]


def _junction_references(clip, windows, positions=None):
    """Per junction window ``(first, last)``: the frames its measure reads ``(n,)`` (the window and a frame either side) and
    the typical peaks ``(B,)`` of the pieces before and after it (:func:`..measure.transition.run_reference`: runs as
    long, the pieces' frames between the windows as played in ``clip``; a piece too short lends the other's, both too
    short the whole clip's), with the clip's joint positions ``(F, B, 3)`` (``positions`` when known)."""
    positions = transition_measure.clip_positions(clip, clip.bone_names) if positions is None else positions
    junctions = []
    for (first, last), pieces in zip(windows, _pieces_around(windows, clip.num_frames)):  # a few junctions
        measured = np.arange(max(int(first) - 1, 1), min(int(last) + 1, clip.num_frames - 2) + 1)
        own = [positions[start:stop] if stop - start >= 3 else None for start, stop in pieces]
        own = [piece if piece is not None else next((other for other in own if other is not None), positions) for piece in own]
        references = [transition_measure.run_reference(piece, clip.dt, max(len(measured), 1)) for piece in own]
        junctions.append((measured, references))
    return junctions, positions


def junction_visibility(clip: Clip, windows: list, positions: np.ndarray | None = None) -> list[float]:
    """Per junction window ``(first, last)`` (0-based frames of ``clip``): the composition's own measure of a junction, on
    ``clip`` as it plays. The worst acceleration over the window (and a frame either side) against the larger of the two
    pieces' typical peaks (:func:`_junction_references`), so a piece played faster is measured against itself played
    faster. Measured the same way before and after a warp; 1 is as sharp as the clips it joins. positions: the clip's
    joint positions ``(F, B, 3)`` when known."""
    junctions, positions = _junction_references(clip, windows, positions)
    return [seam_measure.played_visibility(positions, clip.dt, measured, seam_measure.floored(np.maximum(*references)))
            if len(measured) else 0.0 for measured, references in junctions]


def junction_accelerations(clip: Clip, windows: list) -> list[sync_module.JunctionAccelerations]:
    """Per junction window ``(first, last)`` (0-based frames of ``clip``): its :class:`.sync.JunctionAccelerations` as
    composed, the same quantities :func:`junction_visibility` compares."""
    junctions, positions = _junction_references(clip, windows)
    return [sync_module.JunctionAccelerations(measured, kinematics.accelerations(positions, clip.dt, measured), *references)
            for measured, references in junctions]


def _shown_junctions(result, windows):
    """The junctions the performance plays (a head or tail it leaves out may hold some): their indices, the input frames
    ``(first, last)`` it shows (an end beat may cut into a window), and the frames of the input it shows ``(start, stop)``."""
    start, stop = int(np.ceil(result.input_frames[0] - 1e-6)), int(np.floor(result.input_frames[-1] + 1e-6)) + 1
    shown = [(k, (max(int(first), start), min(int(last), stop - 1))) for k, (first, last) in enumerate(windows)
             if first < stop and last >= start]
    return [k for k, _ in shown], [window for _, window in shown], (start, stop)


def measure_sync(clip: Clip, warped: Clip, result: sync_module.Sync, windows: list, found: keyposes_module.Keyposes | None = None,
                 found_after: keyposes_module.Keyposes | None = None) -> dict:
    """The sync's numbers: keyposes on the grid (within one frame) before (as composed, from 0) and after (found again in
    ``warped``), the chance level of the grid, the stretch's range, the visibility (:func:`junction_visibility`) of each
    junction the performance plays (``junctions``: their indices in ``windows``, ``(first, last)`` frames of ``clip``) on
    the input it shows before, after, and played uniformly at the sync's mean speed (``visibility_uniform``: resampling's
    own share of any change), toe skating on the input it shows before, after, and after per second of input time
    (each frame's toe speed over its stretch), how far the keyposes after lie from the grid (``drift_ms``: median, most) and
    the clips out of the stretch's reach (:func:`out_of_reach`). Plain floats and lists."""
    found = keyposes_module.find_keyposes(clip) if found is None else found
    pose_after = kinematics.clip_forward_kinematics(warped)  # posed once: the keyposes and the junctions read it
    found_after = keyposes_module.find_keyposes(warped, pose=pose_after) if found_after is None else found_after
    frame = 1.0 / clip.fps
    reach = found.seconds[found.seconds <= result.input_times[-1] + 1e-9]
    spacing = float(np.median(np.diff(result.grid))) if len(result.grid) > 1 else 1.0
    junctions, shown, (start, stop) = _shown_junctions(result, windows)
    after_windows = [tuple(int(f) for f in output_frames(result, window)) for window in shown]
    skating, per_input, shown_skating = edit_measure.warped_skating(clip, warped, result.input_frames, result.stretch)
    played = (len(result.input_times) - 1) / clip.fps
    mean_stretch = float((result.input_times[-1] - result.input_times[0]) / played) if played > 0.0 else 1.0
    # The same input played at the sync's mean speed throughout: what resampling alone does to the measure.
    uniform = sync_module.warp_clip(clip, np.linspace(result.input_times[0], result.input_times[-1], len(result.input_times)))
    uniform_windows = [tuple(int(round((f - result.input_frames[0]) / mean_stretch)) for f in window) for window in shown]
    drift = np.abs(grid_offsets(found_after.seconds, result.grid))
    return {
        "on_beat_before": sync_module.on_beat_fraction(reach, result.grid, frame),
        "on_beat_after": sync_module.on_beat_fraction(found_after.seconds, result.grid, frame),
        "on_beat_chance": min(1.0, 2.0 * frame / spacing),
        "keyposes_before": [round(float(t), 4) for t in reach], "keyposes_after": [round(float(t), 4) for t in found_after.seconds],
        "stretch_range": [float(result.stretch.min()), float(result.stretch.max())], "mean_stretch": mean_stretch,
        "junctions": junctions,
        "visibility_before": junction_visibility(clip.slice_frames(start, stop), [(f - start, l - start) for f, l in shown]),
        "visibility_after": junction_visibility(warped, after_windows, pose_after[..., :3, 3]),
        "windows_after": [list(window) for window in after_windows],
        "visibility_uniform": junction_visibility(uniform, uniform_windows),
        "skating_before": float(shown_skating), "skating_after": float(skating), "skating_after_per_input": float(per_input),
        "drift_ms": [1000.0 * float(np.median(drift)), 1000.0 * float(np.max(drift))] if len(drift) else [0.0, 0.0],
        "out_of_reach": out_of_reach(result),
    }


def out_of_reach(result: sync_module.Sync) -> list[dict]:
    """The clips of ``result`` whose tempo (or loop's bars) the stretch allowed could not meet: ``{"clip", "needed", "speed",
    "fit", "goal"}`` each (the speed it needed, the one it plays at, the ``--max-stretch`` that would hold it, what for)."""
    return [{"clip": part.name, "needed": float(part.needed), "speed": float(part.speed), "fit": [float(b) for b in part.fit],
             "goal": part.goal} for part in result.parts if part.needed is not None]
