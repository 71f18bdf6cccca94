"""The doors a song or a skeleton comes in by on the command line (beats, compose and synth --music, --asf): each is an input
no report or output may replace; a song shorter than the performance never cuts it silently; a song that cannot be decoded,
holds no samples or holds NaN is one line naming the song; a FIFO, a device or a folder is called what it is; an AMC that
Loopsmith wrote is read on the skeleton it names."""

import json
import os
import struct

import numpy as np
import pytest

from acclaim_clips import amc_text, asf_text
from helpers import built_graph, run_loopsmith
from sound import blender_audio_missing, click_track, write_wav

WALKS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh")


def _one_line(stderr):
    lines = [line for line in stderr.strip().splitlines() if line.startswith("loopsmith")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def _wav(path, code, width, data, rate=22050):
    """A WAV whose header gives format ``code`` (1 PCM, 3 float), mono, ``width`` bytes a sample, around ``data``."""
    fmt = struct.pack("<HHIIHH", code, 1, rate, rate * width, width, 8 * width)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def _flac_header_only(path, rate=22050):
    """A FLAC of its STREAMINFO block only: a rate, one channel, 16 bits, no sample."""
    info = bytearray(34)
    info[0:4] = struct.pack(">HH", 4096, 4096)
    info[10:18] = ((rate << 44) | (15 << 36)).to_bytes(8, "big")
    path.write_bytes(b"fLaC" + bytes([0x80, 0, 0, 34]) + bytes(info))
    return path


def _bad_songs(folder):
    """Songs no door may take, with the reason each must be named by: {path: words in its one line}. Without Blender's
    audio library (the bpy 4.2 wheel) the standard library reads WAV only, and no float WAV."""
    tone = np.sin(np.arange(22050 * 6) * 2 * np.pi * 440 / 22050).astype("<f4")
    with_nan, with_inf = tone.copy(), tone.copy()
    with_nan[22050:22100], with_inf[0] = np.nan, np.inf
    os.mkfifo(folder / "pipe.wav")
    wav_only = blender_audio_missing() is not None
    return {_wav(folder / "codec.wav", 0x1234, 2, bytes(4000)): "unknown format: 4660" if wav_only else "not audio Blender can decode",
            _wav(folder / "empty_data.wav", 1, 2, b""): "no audio samples",
            _flac_header_only(folder / "header.flac"): "only WAV files can be read" if wav_only else "no audio samples",
            _wav(folder / "nan.wav", 3, 4, with_nan.tobytes()): "unknown format: 3" if wav_only else
            "its samples hold NaN values (the first at 1.000 s)",
            _wav(folder / "inf.wav", 3, 4, with_inf.tobytes()): "unknown format: 3" if wav_only else
            "its samples hold infinite values (the first at 0.000 s)",
            _truncated(folder / "cut.wav"): "its samples end after 4.00 s of the 8.00 s its header gives: the file looks truncated",
            folder / "pipe.wav": "a named pipe (FIFO), not a song file"}


def _truncated(path):
    """An 8 s click track cut after its first 4 s of samples, its header left as it was."""
    write_wav(path, click_track(8.0, 120.0, 0.25)[0])
    data = path.read_bytes()
    path.write_bytes(data[: 44 + 4 * 22050 * 2])
    return path


@pytest.mark.blender
def test_bad_songs_are_one_line_naming_the_song_in_beats(tmp_path):
    for song, reason in _bad_songs(tmp_path).items():
        done = run_loopsmith("beats", song, "-o", tmp_path / "out", "--quiet")
        line = _one_line(done.stderr)
        assert done.returncode == 1 and line.startswith(f"loopsmith: {song}: cannot read it as audio: ") and reason in line, line


@pytest.mark.blender
@pytest.mark.realdata
def test_bad_songs_are_one_line_naming_the_song_in_compose(mocap_dir, tmp_path):
    """compose names the song, not the first clip, whatever the song's fault (a FIFO is refused before any work)."""
    walks = [mocap_dir / name for name in WALKS]
    for song, reason in _bad_songs(tmp_path).items():
        done = run_loopsmith("compose", *walks, "--music", song, "-o", tmp_path / "out", "--quiet")
        line = _one_line(done.stderr)
        if song.name == "pipe.wav":
            assert done.returncode == 2 and line.endswith(f"--music {song}: {reason}"), line
            continue
        assert done.returncode == 1 and line.startswith(f"loopsmith: {song}: cannot read it as audio: ") and reason in line, line
    assert not list((tmp_path / "out").glob("composition.*"))


def test_a_device_or_a_folder_is_named_as_what_it_is(tmp_path):
    clips = [tmp_path / "a.bvh", tmp_path / "b.bvh"]
    for clip in clips:
        clip.write_text("never read: the options are refused first\n")
    for given, words in (("/dev/zero", "a character device, not a song file"), (tmp_path, "a folder, not a song file"),
                         (tmp_path / "none.wav", "no such file")):
        done = run_loopsmith("compose", *clips, "--music", given, "-o", tmp_path / "out", "--quiet")
        assert done.returncode == 2 and done.stderr.strip().endswith(f"--music {given}: {words}"), done.stderr
    done = run_loopsmith("convert", clips[0], "--format", "amc", "--asf", tmp_path, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 2 and done.stderr.strip().endswith(f"--asf {tmp_path}: a folder, not an ASF file"), done.stderr


@pytest.mark.parametrize("role", ["--report", "-o"])
def test_a_song_is_never_the_report_whatever_its_suffix(tmp_path, role):
    """compose A B --music take.json --report take.json would write the report over the song: refused before any work."""
    clips = [tmp_path / "a.bvh", tmp_path / "b.bvh"]
    for clip in clips:
        clip.write_text("never read\n")
    song = tmp_path / "take.json"
    song.write_bytes(b"RIFF and the song's own bytes")
    report = ["--report", song] if role == "--report" else ["-o", tmp_path, "--report", tmp_path / "take.json"]
    done = run_loopsmith("compose", *clips, "--music", song, *report, "--quiet")
    assert done.returncode == 2 and "the song" in done.stderr and "the report" in done.stderr, done.stderr
    assert song.read_bytes() == b"RIFF and the song's own bytes"


def test_an_asf_is_never_the_report(tmp_path):
    clip, skeleton = tmp_path / "a.bvh", tmp_path / "05.json"
    clip.write_text("never read\n")
    skeleton.write_text(asf_text())
    done = run_loopsmith("convert", clip, "--format", "amc", "--asf", skeleton, "--report", skeleton, "--quiet")
    assert done.returncode == 2 and "the skeleton" in done.stderr, done.stderr
    assert skeleton.read_text() == asf_text()


@pytest.fixture(scope="module")
def graph(mocap_dir, tmp_path_factory):
    return built_graph([mocap_dir / name for name in WALKS], tmp_path_factory.mktemp("graph"))


@pytest.mark.blender
@pytest.mark.realdata
def test_synth_song_and_report_the_same_file_is_refused(graph, tmp_path):
    song = write_wav(tmp_path / "take.json", click_track(8.0, 120.0, 0.25)[0])
    before = song.read_bytes()
    done = run_loopsmith("synth", graph, "--seconds", "5", "--music", song, "--report", song, "--quiet")
    assert done.returncode == 2 and "the song" in done.stderr and song.read_bytes() == before, done.stderr


def _segments_fill_their_frames(entry):
    """Every segment maps its clip's frames onto as many output frames as the stretch allows (0.8-1.25x), none onto one."""
    for segment in entry["segments"]:
        (first, last), (out_first, out_last) = segment["range"], segment["output_frames"]
        assert 0.75 * (last - first) - 2 <= out_last - out_first <= 1.3 * (last - first) + 2, segment


@pytest.mark.blender
@pytest.mark.realdata
def test_a_song_shorter_than_the_composition_never_cuts_it(mocap_dir, tmp_path):
    """Two walks (12.4 s composed) to a 4 s song: the motion plays on after the song on its beat, the verdict says so."""
    song = write_wav(tmp_path / "four_seconds.wav", click_track(4.0, 120.0, 0.25)[0])
    done = run_loopsmith("compose", *[mocap_dir / name for name in WALKS], "--music", song, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]
    music, composed = entry["music"], entry["frames_before_sync"]
    print(f"{composed} frames composed, {entry['frames']} performed, {music['after_song_s']} s after the song; {entry['verdict']}")
    assert entry["frames"] >= composed / 1.25 - 15 and music["end_s"] > 8.0
    assert entry["verdict"]["word"] != "GOOD" and any("the song ends" in reason for reason in entry["verdict"]["reasons"])
    _segments_fill_their_frames(entry)


@pytest.mark.blender
@pytest.mark.realdata
def test_synth_lasts_its_seconds_past_a_shorter_song(graph, tmp_path):
    song = write_wav(tmp_path / "four_seconds.wav", click_track(4.0, 120.0, 0.25)[0])
    done = run_loopsmith("synth", graph, "--seconds", "10", "--music", song, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]
    print(entry["music"]["end_s"], entry["verdict"]["reasons"])
    assert entry["music"]["end_s"] >= 10.0 - 0.5 - 1e-6  # ends on the last beat within 10 s
    assert any("the song ends" in reason for reason in entry["verdict"]["reasons"])
    _segments_fill_their_frames(entry)


@pytest.mark.blender
def test_an_amc_is_read_on_the_skeleton_it_names(tmp_path):
    """In a folder holding another 05.asf, the AMC written from 05_99.bvh names 05_99.asf, and reading it takes that one."""
    source, out = tmp_path / "source", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    (source / "05.asf").write_text(asf_text())
    (source / "05_99.amc").write_text(amc_text(30, "05.asf"))
    other = asf_text("OTHER").replace("length 8", "length 9")  # another subject's skeleton under the same name
    (out / "05.asf").write_text(other)
    done = run_loopsmith("convert", source / "05_99.amc", "--amc-fps", "30", "--format", "bvh", "-o", tmp_path / "bvh", "--quiet")
    assert done.returncode == 0, done.stderr
    done = run_loopsmith("convert", tmp_path / "bvh" / "05_99.bvh", "--asf", source / "05.asf", "--format", "amc", "-o", out, "--quiet")
    assert done.returncode == 0, done.stderr
    assert (out / "05_99.amc").read_text().splitlines()[0] == "#!OML:ASF 05_99.asf" and (out / "05.asf").read_text() == other
    done = run_loopsmith("convert", out / "05_99.amc", "--amc-fps", "30", "--format", "bvh", "-o", tmp_path / "back", "--quiet")
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "back" / "loopsmith_report.json").read_text())["entries"][-1]
    assert entry["import"]["asf"] == str(out / "05_99.asf") and entry["verdict"]["word"] == "GOOD", entry["import"]
    (out / "05_99.asf").rename(out / "elsewhere.asf")  # the skeleton it names is gone: 05.asf is not taken for it
    done = run_loopsmith("convert", out / "05_99.amc", "--format", "bvh", "-o", tmp_path / "again", "--quiet")
    assert done.returncode == 1 and "no skeleton found: looked for 05_99.asf, which its first line names, in" in done.stderr, done.stderr
