"""The ``compose`` job (bpy side): import every clip, compose them, verified outputs.

Run by :mod:`.runner`. The later files are read first and kept as arrays;
the first file's scene stays open, so the composition is written onto its
armature and exported.
"""

import os
import time
from dataclasses import dataclass

from ....bridge import audio, clip_io, music as music_scene
from ....core.compose import sequence
from ....core.errors import AudioError, LoopsmithError, NoSteadyBeat, SyncError
from ....core.music import beats as beat_tracking, keyposes, perform
from ....files import interrupts
from ... import clips, engine_output, file_outputs
from ...entries import error_entry
from . import options as compose_options, report


def pieces_and_junctions(paths, first_clip, others, options):
    """The core's pieces (with ``--clip-range`` and ``--face``) and junctions (``--junction``, ``--method``, ``--length``) for the
    files in order."""
    ranges = {index: (first, last) for index, first, last in options.clip_range}
    turns = compose_options.faces(options)
    pieces = [sequence.Piece(clip, *ranges.get(number, (None, None)), name=path.name, heading=turns.get(number, 0.0))
              for number, (path, clip) in enumerate(zip(paths, [first_clip, *others]), start=1)]
    points = {junction: (frame_a, frame_b) for junction, frame_a, frame_b in options.junction}
    junctions = [sequence.Junction(points.get(number, "auto"), options.method, options.length)
                 for number in range(1, sequence.junction_count(len(pieces), options.loop) + 1)]
    return pieces, junctions


@dataclass
class Song:
    """A song read for ``--music``: its path, its beats (song seconds), its length (s) and where the output starts in it (s)."""

    path: object
    beats: object
    seconds: float
    start: float


@dataclass
class Music:
    """A performance synced to a song: the warped clip, the :class:`~....core.music.sync.Sync`, the song, the output's
    start in the song (s), the beats on the output's clock (s) and the sync's numbers (:func:`....core.music.perform.measure_sync`)."""

    clip: object
    sync: object
    song: Song
    audio_start: float
    beats: object
    numbers: dict
    bounds: tuple = perform.sync_module.MAX_STRETCH  # --max-stretch
    audio: str = ""  # the song as the report's page finds it: its path from the report's folder
    song_end: float = float("inf")  # s on the output's clock where the song ends: motion after it plays on its beat continued


def read_song(options):
    """The song of ``--music`` with its beats (None without): AudioError or NoSteadyBeat (one line) when it has none."""
    if options.music is None:
        return None
    if "blend" in options.format and audio.aud is None:  # refused before anything is made
        reason = "a .blend output carries the song as a sound strip, which needs Blender's audio library, missing here"
        raise AudioError(options.music, reason, f"{reason}: choose another --format")
    opened, read = audio.open_audio(options.music), [0]

    def counted(blocks):  # the song goes to the beat tracker a block at a time: memory is its envelope's, not the song's
        for block in blocks:
            read[0] += len(block)
            yield block

    found = beat_tracking.track_beats(counted(opened.blocks()), opened.rate, options.music.name)
    seconds = read[0] / float(opened.rate)
    if options.music_start >= seconds:
        raise SyncError(f"--music-start {options.music_start:g} s is past the end of the song ({seconds:.1f} s long)")
    return Song(options.music, found, seconds, float(options.music_start))


def song_fault(error, options):
    """Whether ``error`` is the ``--music`` song's: it cannot be read, has no beat or is too short for ``--music-start``."""
    return options.music is not None and (isinstance(error, (AudioError, NoSteadyBeat))
                                          or (isinstance(error, SyncError) and error.clip is None))


def fault_line(error, options):
    """The entry's line for ``error``: a song that cannot be read is named by the entry's file, as ``beats`` names it."""
    if song_fault(error, options) and type(error) is AudioError:
        return f"cannot read it as audio: {error.reason}"
    return str(error)


def culprit(error, paths, options):
    """The file a failed run's entry names: the song for :func:`song_fault`; the clip a sync names when it is one of
    ``paths``; else the first clip."""
    if song_fault(error, options):
        return options.music
    if isinstance(error, SyncError):
        return next((path for path in paths if path.name == error.clip), paths[0])
    return paths[0]


def sync_to_song(composed, song, options, name, loop=False, seconds=None):
    """``composed`` (a composition or synthesis) retimed to ``song``: a :class:`Music`. Each of its clips keeps its own
    keyposes per beat; its junctions are measured before and after; seconds: the longest the performance may last
    (besides the song's end)."""
    clip, windows = composed.clip, [t.window for t in composed.transitions]
    times = song.beats.times - song.start
    times = times[times >= -1e-9]
    if len(times) < 2:
        raise SyncError(f"{song.path} has fewer than two beats after --music-start {song.start:g}")
    bounds = tuple(options.max_stretch)
    start = song.start
    if loop:  # the loop is whole bars from a beat: the song's first beat after the start leads, moved by the loop's phase
        limit = song.seconds - song.start if seconds is None else min(seconds, song.seconds - song.start)
        start, times = start + times[0], times - times[0]
        limit -= times[0]
    else:  # a song shorter than the performance: the motion plays on after it, on its beat continued
        limit = max(song.seconds - song.start, clip.duration / bounds[0]) if seconds is None else seconds
        times = music_scene.continued_beats(times, limit)
    found = keyposes.find_keyposes(clip)
    warped, result = perform.sync_performance(clip, times, bounds, limit, perform.BEATS_PER_BAR if loop else None, name, found,
                                              windows=windows, parts=[(segment.name, segment.out_first) for segment in composed.segments])
    if loop:
        lead = float(result.grid[result.grid >= -1e-9][0])
        beat = 60.0 / perform.sync_module.song_tempo(times)
        start = start - lead if start - lead >= 0.0 else start + beat - lead
    beats_out = song.beats.times - start
    beats_out = beats_out[(beats_out >= -1e-9) & (beats_out <= result.end + 1e-6)]
    numbers = perform.measure_sync(clip, warped, result, windows, found)
    page = (options.report.parent if getattr(options, "report", None) else options.out).resolve()
    return Music(warped, result, song, float(start), beats_out, numbers, bounds, os.path.relpath(song.path.resolve(), page),
                 song.seconds - float(start))



def process(task, options, name, inputs):
    """Compose the task's files in order; one report entry (or one error entry naming the file at fault).

    ``name``: the output stem (``--name``); ``inputs``: real paths of every
    input of the run (as strings), which no output may replace.
    """
    paths = list(task)
    started = time.perf_counter()
    try:
        song = read_song(options)  # no steady beat: fails here, before anything is read or written
        obj, clip, settings, header, others, other_settings = clips.several_clips(paths, options)
        imported = time.perf_counter() - started
        targets = file_outputs.targets(options, name, paths[0], [*inputs, *([str(song.path.resolve())] if song else [])])
        pieces, junctions = pieces_and_junctions(paths, clip, others, options)
        composed = sequence.compose(pieces, junctions, loop=options.loop, trim=options.trim, align=options.align)
        music = None if song is None else sync_to_song(composed, song, options, f"the composition of {' + '.join(path.name for path in paths)}",
                                                       options.loop)
        clip_io.write_clip(obj, composed.clip if music is None else music.clip, name, source_action=clip_io.require_action(obj),
                           frame_range=True, cyclic=options.loop, cycles_travel=composed.travel_bone)
        entry = report.composition_entry(paths, obj.name, targets, composed, music=music)
        entry["other_imports"] = clips.other_imports(paths[1:], other_settings)
        return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(culprit(error, paths, options), fault_line(error, options), time.perf_counter() - started)
        entry["clips"] = [str(path) for path in paths]
        return [entry]
