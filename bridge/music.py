"""A song in a scene (bpy): a sound strip in the sequencer that plays with the animation, and markers on its beats.

The strip references the song by its absolute path (it is not packed: the .blend stays small and the song is the
user's own file). Blender 4.2 and 4.5 keep a sequencer's strips in ``sequence_editor.sequences``, 5.0 in
``sequence_editor.strips``: both are handled.
"""

import os
import re

import numpy as np

from ..core.errors import LoopsmithError
from ..core.music.sync import song_tempo

CHANNEL = 1  # the sequencer channel of the song's strip
SONG_TAG = "loopsmith_song"  # a custom property on the strips Loopsmith adds: syncing again replaces them
MARKER_PREFIX = "beat"  # the beats' timeline markers are named beat 1, beat 2, ...
BEAT_MARKER = re.compile(rf"{re.escape(MARKER_PREFIX)} \d+")  # the markers Loopsmith puts on beats: "beat 1", "beat 2"...


def _strips(editor):
    """The sequencer's top-level strip collection: ``strips`` (Blender 5.0), else ``sequences`` (4.2, 4.5)."""
    return editor.strips if hasattr(editor, "strips") else editor.sequences


def add_song(scene, path, beats_s, start_s=0.0, frame_range=None):
    """Put the song at ``path`` in ``scene``'s sequencer so that song time ``start_s`` (seconds) plays on the performance's
    first frame, and a timeline marker on each beat of ``beats_s`` (song seconds) inside its range. Returns the strip.

    frame_range: the performance's (first, last) frames (default: the scene's range, which is left as it is). The strip
    starts (its head trimmed by ``start_s``) on the first frame. Earlier beat markers, strips of the same name and the
    strips Loopsmith added before (another song) are replaced; the scene plays in sync with the audio. LoopsmithError (one
    line) when Blender cannot read the song.
    """
    fps = scene.render.fps / scene.render.fps_base
    first, last = frame_range if frame_range is not None else (scene.frame_start, scene.frame_end)
    editor = scene.sequence_editor or scene.sequence_editor_create()
    strips = _strips(editor)
    name = os.path.basename(str(path))
    for old in [strip for strip in strips if strip.name == name or strip.get(SONG_TAG)]:
        strips.remove(old)
    offset = int(round(start_s * fps))
    try:
        strip = strips.new_sound(name, os.path.abspath(str(path)), CHANNEL, first - offset)
    except (RuntimeError, TypeError) as error:
        raise LoopsmithError(f"Blender cannot put {path} in the sequencer: {str(error).strip().splitlines()[-1]}") from None
    strip[SONG_TAG] = True
    if offset:
        strip.frame_offset_start = offset  # the song's first start_s seconds are trimmed: it plays from the scene's start
    scene.sync_mode = "AUDIO_SYNC"  # frames drop rather than the dance drifting from the song
    place_beat_markers(scene, beats_s, start_s, (first, last), fps)
    return strip


def place_beat_markers(scene, beats, start, frame_range, fps):
    """Markers "beat 1", "beat 2"... on ``beats`` (song seconds; song time ``start`` on the range's first frame) inside
    ``frame_range``; Loopsmith's earlier beat markers go, the user's own markers stay."""
    first, last = frame_range
    for marker in [marker for marker in scene.timeline_markers if BEAT_MARKER.fullmatch(marker.name)]:
        scene.timeline_markers.remove(marker)
    for number, beat in enumerate(beats, start=1):
        frame = first + int(round((float(beat) - start) * fps))
        if first <= frame <= last:
            scene.timeline_markers.new(f"{MARKER_PREFIX} {number}", frame=frame)


def sound_strips(scene):
    """The sound strips of ``scene``'s sequencer (top level: ``strips`` in 5.0, ``sequences`` in 4.2 and 4.5)."""
    editor = scene.sequence_editor
    if editor is None:
        return []
    return [strip for strip in _strips(editor) if strip.type == "SOUND"]


def continued_beats(times, seconds):
    """Beat times ``times (N,)`` (seconds) and, past the last, more at the song's tempo up to ``seconds`` and a beat beyond:
    the beat a performance longer than its song plays on to."""
    beat = 60.0 / song_tempo(times)
    more = int(np.ceil((seconds - times[-1]) / beat)) + 1
    return np.concatenate([times, times[-1] + beat * np.arange(1, more + 1)]) if more > 0 else times
