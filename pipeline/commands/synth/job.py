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
from ....files import interrupts
from ... import engine_output
from ...entries import error_entry
from ..compose import job as compose_job
from . import report

SEEDS_TRIED = 8  # with --music, the random walks from --seed on drawn to find the one whose tempo fits the song's best


def _walk_tempo(graph, walk, tempos):
    """Keyposes per minute of a walk: its clips' own tempos (``tempos``: per graph clip), weighted by the frames each plays."""
    clips = [graph.nodes[edge["from"]]["clip"] for edge in walk]
    frames = np.array([edge["frames"] for edge in walk], dtype=float)
    values = np.array([tempos[clip] for clip in clips])
    used = values > 0.0
    return float(np.sum(values[used] * frames[used]) / max(np.sum(frames[used]), 1e-9)) if used.any() else 0.0


def tempo_seed(graph, clips, options, song):
    """The seed (``--seed`` or one of the next :data:`SEEDS_TRIED` - 1) whose random walk's motion tempo needs the least
    stretch to meet the song's (ties: the earliest); ``(seed, {seed: speed the tempos ask})``."""
    tempos = [keyposes.motion_tempo(keyposes.find_keyposes(clip).frames, clip.fps) for clip in clips]
    song_bpm = float(song.beats.tempo_bpm)
    speeds = {}
    for seed in range(options.seed, options.seed + SEEDS_TRIED):  # a walk is a few graph steps: cheap beside rendering one
        try:
            tempo = _walk_tempo(graph, motion_graph.random_walk(graph, options.seconds, seed), tempos)
        except GraphError:
            continue
        if tempo > 0.0:
            speeds[seed] = float(min((ratio * song_bpm / tempo for ratio in sync_module.RATIOS), key=lambda s: abs(np.log(s))))
    if not speeds:
        return options.seed, speeds
    return min(speeds, key=lambda seed: (round(abs(np.log(speeds[seed])), 3), seed)), speeds


def _clips(paths, options):
    """:func:`..bridge.importers.several_clips`, but a problem with the first file is named by its path too, as the others' are (the
    report entry is the graph's)."""
    others = [importers.other_clip(path, options) for path in paths[1:]]
    try:
        return (*importers.armature_clip(paths[0], options), others)
    except LoopsmithError as error:
        raise importers.InputError(f"{paths[0]}: {error}") from None


def process(task, options, name, inputs):
    """Synthesize ``options.seconds`` of motion from the graph over the task's clips; one report entry (or one error entry)."""
    paths = list(task)
    started = time.perf_counter()
    try:
        graph = graph_json.read_graph_file(options.graph)  # checked when the command started
        song = compose_job.read_song(options)  # no steady beat: fails here, before anything is read or written
        obj, clip, settings, header, others = _clips(paths, options)
        motion_graph.check_clips(graph, [clip, *others])  # what the graph recorded of each clip, before anything is rendered
        imported = time.perf_counter() - started
        song_inputs = [str(song.path.resolve())] if song else []
        targets = engine_output.targets(options, name, paths[0], [*inputs, str(options.graph.resolve()), *song_inputs])
        seed, speeds = tempo_seed(graph, [clip, *others], options, song) if song and not options.via else (options.seed, {})
        composed = motion_graph.synthesize(graph, [clip, *others], options.seconds, seed, options.via)
        music = None if song is None else compose_job.sync_to_song(composed.clip, song, options, [t.window for t in composed.transitions],
                                                                   f"the synthesis from {options.graph.name} (seed {seed})",
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
        entry = error_entry(options.graph, str(error), time.perf_counter() - started)
        entry["graph_file"] = str(options.graph)
        return [entry]
