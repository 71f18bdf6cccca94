"""The Blender side's doors hardened: no exception escapes an operator, a song is decoded only where the disk has room for
it, and --music holds the song's beats, not the song."""

import argparse
import collections
import tracemalloc

import pytest

from helpers import extension_module
from sound import blender_audio_missing, click_track, write_wav

bpy = pytest.importorskip("bpy")


def _operator_classes():
    """Every operator class Loopsmith registers."""
    return [cls for cls in bpy.types.Operator.__subclasses__() if getattr(cls, "bl_idname", "").startswith("loopsmith.")]


def test_every_operator_turns_every_failure_into_a_report(loopsmith):
    classes = _operator_classes()
    assert len(classes) >= 20
    unwrapped = [cls.bl_idname for cls in classes if "execute" in vars(cls) and not hasattr(cls.execute, "__wrapped__")]
    assert not unwrapped, f"execute not wrapped by reports_errors: {unwrapped}"


def test_a_bug_in_an_operator_is_one_line_not_a_traceback(loopsmith, blank, monkeypatch):
    demo = loopsmith.core.demo.walk_cycle(num_frames=60).clip
    walker = loopsmith.bridge.armature.create_armature(blank, demo, "Walker")
    loopsmith.bridge.clip_io.write_clip(walker, demo, "walk", frame_range=True)
    common = extension_module(loopsmith, "operators.common")

    def broken(*args, **kwargs):
        raise ValueError("tuple.index(x): x not in tuple")

    monkeypatch.setattr(common, "detect_loops", broken)
    with pytest.raises(RuntimeError) as caught:
        bpy.ops.loopsmith.find_loop()
    message = str(caught.value).strip()
    assert "\n" not in message and "Traceback" not in message, message
    assert "internal error, please report it" in message and "ValueError: tuple.index(x): x not in tuple" in message


@pytest.fixture
def audio(loopsmith):
    if blender_audio_missing():  # without aud, WAV files are read in blocks by the standard library: nothing is decoded
        pytest.skip(blender_audio_missing())
    return extension_module(loopsmith, "bridge.audio")


def test_a_song_too_large_for_the_temporary_folder_is_one_line(audio, tmp_path, monkeypatch):
    """Blender's audio library aborts the process when the disk fills while it decodes: the room is checked first."""
    song = write_wav(tmp_path / "song.wav", click_track(20.0)[0])
    monkeypatch.setattr(audio, "WHOLE_BYTES", 0)  # decoded through a temporary file, as a long song is
    monkeypatch.setattr(audio.shutil, "disk_usage", lambda folder: collections.namedtuple("Usage", "total used free")(1, 1, 2 ** 19))
    with pytest.raises(audio.AudioError) as refused:
        audio.read_audio(song)
    message = str(refused.value)
    assert message.startswith(f"cannot read audio {song}: decoding it needs 3 MB in the temporary folder") and "TMPDIR" in message


def test_music_holds_the_beats_not_the_song(loopsmith, audio, tmp_path, monkeypatch):
    """An 8-minute song (40 MB of samples) is tracked a block at a time: the peak is that of the beat tracker's blocks, not
    the song's (the whole song read first peaked at 83 MB)."""
    song = write_wav(tmp_path / "song.wav", click_track(480.0, 120.0, 0.25)[0])
    monkeypatch.setattr(audio, "WHOLE_BYTES", 2 ** 20)  # as for an hour of music: decoded to a file and read in blocks
    compose_job = extension_module(loopsmith, "pipeline.commands.compose.job")
    tracemalloc.start()
    try:
        found = compose_job.read_song(argparse.Namespace(music=song, format=["bvh"], music_start=0.0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    samples = found.seconds * 22050 * 4
    print(f"peak {peak / 2 ** 20:.1f} MB for {samples / 2 ** 20:.1f} MB of samples")
    assert abs(found.seconds - 480.0) < 0.01 and abs(found.beats.tempo_bpm - 120.0) < 1.0
    assert peak < 0.6 * samples
