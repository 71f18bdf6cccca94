"""Sync to Music: the active action retimed so its keyposes land on a song's beats, written as a new action.

The song is a sound strip already in the scene's sequencer, which stays where it is (the new action starts where the
strip plays the song at the action's first frame), or a file, put in the sequencer from the action's first frame
(``music_start`` seconds into it). Timeline markers "beat 1", "beat 2"... sit on the beats the new action plays over;
Loopsmith's earlier markers of that naming are replaced, every other marker is kept. The original action stays in the
file (fake user); any failure leaves the scene as it was.
"""

import os
from dataclasses import dataclass

import bpy
import numpy as np

from .. import properties
from ..bridge import action_api, audio, clip_io, music
from ..core.errors import ClipError, LoopsmithError, SyncError
from ..core.measure import verdict
from ..core.music import beats as beat_tracking, keyposes, perform, sync
from ..ui.panels import draw_music_result, draw_music_settings
from . import common



@dataclass
class Song:
    """A song to sync to: its absolute ``path``, its ``name`` in messages, the song time (s) at the action's first frame
    (``start``), the song times (s) it is heard between (``heard``) and its strip in the scene (None for a file)."""

    path: str
    name: str
    start: float
    heard: tuple
    strip: object = None


def strip_song(scene, name, first_frame, fps):
    """The :class:`Song` of the sound strip called ``name`` (empty: the first), as the scene plays it from ``first_frame``."""
    strips = music.sound_strips(scene)
    if not strips:
        raise LoopsmithError("the scene has no sound strip: add the song in the Video Sequencer, or sync to a File")
    strip = next((s for s in strips if s.name == name), None) if name else strips[0]
    if strip is None:
        raise LoopsmithError(f"there is no sound strip named '{name}' in the sequencer")
    sound = strip.sound
    if sound is None or not sound.filepath:
        raise LoopsmithError(f"sound strip '{strip.name}' has no sound file")
    if sound.packed_file is not None:
        raise LoopsmithError(f"sound strip '{strip.name}' plays a packed sound: unpack it (File > External Data) to sync to it")
    path = _absolute(sound.filepath, f"sound strip '{strip.name}'", sound.library)

    def song_time(frame):  # the song's time (s) the strip plays on a scene frame
        return (frame - strip.frame_start) / fps + strip.sound_offset

    return Song(path, f"sound strip '{strip.name}'", song_time(first_frame),
                (song_time(strip.frame_final_start), song_time(strip.frame_final_end)), strip)


def file_song(path, start):
    """The :class:`Song` of the file at ``path`` (relative to the .blend with //), ``start`` seconds into it on the first frame."""
    if not path:
        raise LoopsmithError("choose the song's file (File), or sync to a sound strip")
    path = _absolute(path, f"the song '{path}'")
    return Song(path, os.path.basename(path), float(start), (0.0, np.inf))


def _absolute(path, what, library=None):
    """``path`` made absolute (``//`` is the .blend's folder); LoopsmithError saying why where it is relative to a .blend
    not saved yet."""
    if path.startswith("//") and library is None and not bpy.data.filepath:
        raise LoopsmithError(f"{what} is relative to the .blend file ({path}), which is not saved yet: save it, or give the song's full path")
    return os.path.normpath(bpy.path.abspath(path, library=library))


def song_beats(song):
    """The song's beats (:class:`~..core.music.beats.Beats`, song seconds) and its length (s), read in blocks.

    AudioError (one line naming it) when it cannot be read; NoSteadyBeat when it has no beat."""
    opened = audio.open_audio(song.path)
    found = beat_tracking.track_beats(opened.blocks(), opened.rate, song.path if song.strip is None else f"{song.name} ({song.path})")
    return found, opened.seconds


@dataclass
class Synced:
    """The action synced: the warped clip (frames numbered from the scene frame it starts on), the core's
    :class:`~..core.music.sync.Sync`, the song time (s) on its first frame and the sync's numbers (``after_song_s``: how
    long it plays on after the song, when it does)."""

    clip: object
    sync: object
    start: float
    numbers: dict


def sync_clip(clip, song, beats, length, bounds, per_bar, name):
    """``clip`` (the action's, from its first frame) retimed to ``beats`` (song seconds) as the song plays from ``song.start``
    on its first frame: a :class:`Synced`. per_bar: beats per bar of a loop (0: no loop)."""
    times = beats[(beats >= song.heard[0] - 1e-9) & (beats <= song.heard[1] + 1e-9)] - song.start
    times = times[times >= -1e-9]
    if len(times) < 2:
        raise SyncError(f"{song.name} has fewer than two beats to hear from the action's first frame on", clip=name)
    start, limit = song.start, min(length, song.heard[1]) - song.start
    song_end = limit  # s on the new action's clock where the song stops being heard
    if per_bar:  # whole bars from a beat: the first beat heard leads, moved by the loop's phase below
        start, limit, times = start + times[0], limit - times[0], times - times[0]
    else:  # a song shorter than the action: the motion plays on after it, on its beat continued
        limit = max(limit, clip.duration / bounds[0])
        times = music.continued_beats(times, limit)
    found = keyposes.find_keyposes(clip)
    warped, result = perform.sync_performance(clip, times, bounds, limit, per_bar or None, name=name, found=found)
    if per_bar:
        lead, beat = float(result.grid[result.grid >= -1e-9][0]), 60.0 / sync.song_tempo(times)
        start = start - lead if start - lead >= 0.0 or song.strip is not None else start + beat - lead  # a file's strip cannot start before it
    shift = 0
    if song.strip is not None:  # the strip stays where it is: a loop's action moves to the frame its start plays on
        shift = int(round((start - song.start) * clip.fps))
        start = song.start + shift / clip.fps
    warped = warped.with_channels(frames=warped.frames + shift)
    numbers = perform.measure_sync(clip, warped, result, [], found)
    if not per_bar and result.end - song_end > 0.5 / clip.fps:
        numbers["after_song_s"] = round(float(result.end - song_end), 3)  # the verdict says so
    return Synced(warped, result, start, numbers)


def write_back(scene, obj, source, source_first, playback, song, beats, synced, loop):
    """The synced clip as a new action ``<source>_music`` on ``obj`` (the source, whose clip starts on ``source_first``, kept),
    the song and its beat markers in the scene and the scene's range the performance. On any failure the new action goes
    and the source plays again."""
    clip, fps = synced.clip, synced.clip.fps
    source_frames = source_first + synced.sync.input_times * fps  # the source frame each new frame shows
    slot = action_api.assigned_slot(obj)
    written = clip_io.write_clip(obj, clip, f"{source.name}_music", source_action=source, frame_range=True, cyclic=loop,
                                 cycles_travel=playback.travel if loop else None, source_frames=source_frames)
    first, last = int(clip.frames[0]), int(clip.frames[-1])
    try:
        if song.strip is None:
            music.add_song(scene, song.path, beats, synced.start, (first, last))
        else:
            music.place_beat_markers(scene, beats, synced.start, (first, last), fps)
    except (LoopsmithError, RuntimeError) as error:
        action_api.assign_action(obj, source, slot)
        bpy.data.actions.remove(written)
        raise LoopsmithError(str(error).strip().splitlines()[-1]) from None
    source.use_fake_user = True  # the original stays in the file
    scene.frame_start, scene.frame_end = first, last - 1 if loop else last  # a loop's last frame repeats its first
    return written


def store_result(result, written, song, beats, synced, word):
    """The last sync's numbers in the scene settings (the Sequence panel's Music box)."""
    numbers, sync = synced.numbers, synced.sync
    result.valid, result.action, result.song, result.verdict = True, written.name, song.name, word
    result.tempo_bpm, result.ratio, result.speed, result.song_start = float(beats.tempo_bpm), sync.ratio, sync.speed, synced.start
    result.stretch_low, result.stretch_high = numbers["stretch_range"]
    result.on_beat_before, result.on_beat_after, result.on_beat_chance = (numbers[key] for key in ("on_beat_before", "on_beat_after",
                                                                                                   "on_beat_chance"))


class LOOPSMITH_OT_sync_to_music(bpy.types.Operator):
    """Retime the action to a song, as a new action: its keyposes land on the beats of a sound strip in the sequencer or a file"""

    bl_idname = "loopsmith.sync_to_music"
    bl_label = "Sync to Music"
    bl_options = {"REGISTER", "UNDO"}
    __annotations__ = properties.music_properties()

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def draw(self, context):
        layout = common.split_layout(self.layout)
        draw_music_settings(layout, self)
        draw_music_result(layout, context.scene.loopsmith.music_sync)

    def song(self, scene, first_frame, fps):
        if self.music_source == "FILE":
            return file_song(self.music_file, self.music_start)
        return strip_song(scene, self.music_strip, first_frame, fps)

    @common.reports_errors
    def execute(self, context):
        scene, obj = context.scene, context.active_object
        properties.copy_scene_settings(self, scene.loopsmith, properties.MUSIC_NAMES)
        source = obj.animation_data.action
        with common.progress(context, 3) as step:
            clip, playback = clip_io.read_edit_source(obj)  # a WRAP loop with its closing key: the cycle whole
            if self.loop_bars and not playback.cyclic:
                raise ClipError(f"Loop Bar Beats needs a looping action: '{source.name}' is not one (Make Loop first), or set it to 0")
            song = self.song(scene, int(clip.frames[0]), clip.fps)
            beats, length = song_beats(song)
            step()
            synced = sync_clip(clip, song, beats.times, length, (self.max_stretch_low, self.max_stretch_high), self.loop_bars,
                               f"action '{source.name}'")
            step()
            written = write_back(scene, obj, source, float(clip.frames[0]), playback, song, beats.times, synced, bool(self.loop_bars))
        word = verdict.of_sync({**synced.numbers, "confidence": beats.confidence})
        store_result(scene.loopsmith.music_sync, written, song, beats, synced, word.word)
        numbers = synced.numbers
        self.report({"INFO"} if word.word == verdict.GOOD else {"WARNING"},
                    f"Synced '{source.name}' to {song.name} ({beats.tempo_bpm:.1f} BPM) into '{written.name}': "
                    f"{numbers['on_beat_after']:.0%} of the keyposes on the beat (before {numbers['on_beat_before']:.0%}), "
                    f"{sync.ratio_text(synced.sync.ratio)} per beat, speed {numbers['stretch_range'][0]:.2f}-{numbers['stretch_range'][1]:.2f}x: {word.word}"
                    + "".join(f"; {reason}" for reason in word.reasons))
        return {"FINISHED"}


classes = (LOOPSMITH_OT_sync_to_music,)
register, unregister = bpy.utils.register_classes_factory(classes)
