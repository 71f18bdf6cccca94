"""The ``synth`` job (bpy side): import the graph's clips, walk the graph, render the path, verified outputs.

Run by :mod:`.runner`. The later clips are read first and kept as arrays;
the first clip's scene stays open, so the new motion is written onto its
armature and exported.
"""

import time

import numpy as np

from ....bridge import clip_io, importers
from ....core import graph as motion_graph
from ....core.formats import graph_json
from ....core.errors import GraphError, LoopsmithError
from ....core.music import keyposes, sync as sync_module
from ....core.music.sync import song_tempo
from ....files import interrupts
from ....files.read_motion import InputError
from ... import engine_output, file_outputs
from ...clips import other_clip
from ...entries import error_entry
from ..compose import job as compose_job
from . import report

SEEDS_TRIED = 8  # with --music, the random walks from --seed on drawn to find the one whose tempo fits the song's best


def _walk_speed(graph, walk, speeds):
    """The speed asked of the song by the clip of a walk whose speed is furthest from 1 (``speeds``: per graph clip, 0 for a
    clip without a tempo): each clip keeps its own keyposes per beat, so the walk fits as badly as its worst clip; 0 when
    none has a tempo."""
    asked = [speeds[clip] for clip in (graph.nodes[edge["from"]]["clip"] for edge in walk) if speeds[clip] > 0.0]
    return max(asked, key=lambda speed: abs(np.log(speed))) if asked else 0.0


def tempo_seed(graph, clips, options, song, seconds):
    """The seed (``--seed`` or one of the next :data:`SEEDS_TRIED` - 1) whose random walk of ``seconds`` has the clips whose
    tempos need the least stretch to meet the song's (ties: the earliest); ``(seed, {seed: speed its worst clip asks})``.

    When every walk tried plays a clip the song's tempo is out of the stretch's reach for, the best is still performed:
    that clip at the nearest stretch allowed, its verdict CHECK saying how near it came."""
    song_bpm = song_tempo(song.beats.times)
    clip_speeds = []
    for clip in clips:  # a few clips
        tempo = keyposes.motion_tempo(keyposes.find_keyposes(clip).frames, clip.fps)
        clip_speeds.append(float(min((r * song_bpm / tempo for r in sync_module.RATIOS), key=lambda s: abs(np.log(s)))) if tempo > 0.0 else 0.0)
    speeds = {}
    for seed in range(options.seed, options.seed + SEEDS_TRIED):  # a walk is a few graph steps: cheap beside rendering one
        try:
            speeds[seed] = _walk_speed(graph, motion_graph.random_walk(graph, seconds, seed), clip_speeds)
        except GraphError:
            continue
    speeds = {seed: speed for seed, speed in speeds.items() if speed > 0.0}
    if not speeds:
        return options.seed, speeds
    return min(speeds, key=lambda seed: (round(abs(np.log(speeds[seed])), 3), seed)), speeds


def motion_seconds(options, song):
    """Seconds of motion to synthesize: ``--seconds``, or with a song enough for the sync to play that long at the fastest
    ``--max-stretch`` allows, and a beat more (past a song shorter than that, the motion plays on its beat continued)."""
    if song is None:
        return options.seconds
    return options.seconds * float(options.max_stretch[1]) + 60.0 / max(song_tempo(song.beats.times), 1e-9)


def graph_clips(paths, options):
    """:func:`...clips.several_clips`, but a problem with the first file is named by its path too, as the others' are (the
    report entry is the graph's)."""
    others = [other_clip(path, options) for path in paths[1:]]
    try:
        return (*importers.armature_clip(paths[0], options), others)
    except LoopsmithError as error:
        raise InputError(f"{paths[0]}: {error}") from None


def process(task, options, name, inputs):
    """Synthesize ``options.seconds`` of motion from the graph over the task's clips; one report entry (or one error entry)."""
    paths = list(task)
    started = time.perf_counter()
    try:
        graph = graph_json.read_graph_file(options.graph)  # checked when the command started
        song = compose_job.read_song(options)  # no steady beat: fails here, before anything is read or written
        obj, clip, settings, header, others = graph_clips(paths, options)
        motion_graph.check_clips(graph, [clip, *others])  # what the graph recorded of each clip, before anything is rendered
        imported = time.perf_counter() - started
        song_inputs = [str(song.path.resolve())] if song else []
        targets = file_outputs.targets(options, name, paths[0], [*inputs, str(options.graph.resolve()), *song_inputs])
        seconds = motion_seconds(options, song)
        seed, speeds = tempo_seed(graph, [clip, *others], options, song, seconds) if song and not options.via else (options.seed, {})
        composed = motion_graph.synthesize(graph, [clip, *others], seconds, seed, options.via)
        music = None if song is None else compose_job.sync_to_song(composed, song, options, f"the synthesis from {options.graph.name} (seed {seed})",
                                                                   seconds=options.seconds)
        clip_io.write_clip(obj, composed.clip if music is None else music.clip, name, source_action=clip_io.require_action(obj),
                           frame_range=True)
        by_name = {clip_entry["name"]: clip_path for clip_entry, clip_path in zip(graph.clips, paths)}
        entry = report.synthesis_entry(paths, obj.name, targets, composed, options.graph, seed, options.via,
                                       lambda segment: by_name[segment.name], music)
        if speeds:
            entry["music"]["seeds"] = {"asked": options.seed, "chosen": seed, "speeds": {str(k): round(v, 3) for k, v in speeds.items()}}
        return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(options.music if compose_job.song_fault(error, options) else options.graph, compose_job.fault_line(error, options),
                            time.perf_counter() - started)
        entry["graph_file"] = str(options.graph)
        return [entry]
