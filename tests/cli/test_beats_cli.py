"""``loopsmith beats``: tempo and beat times of songs, the beat lists written, the report's entry and section, and one
line for a song without a beat or a file that is no audio.

One run of the real command line over a synthesized click track at 120 BPM (written here as a WAV), the shared house
loop (OGG), a silent WAV and a corrupt file; each test reads what that run made.
"""

import json
import pathlib

import numpy as np
import pytest

from sound import click_track, RATE, write_wav
from helpers import REPO, run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]


def _has_aud():
    """Whether this bpy has Blender's audio library (the bpy 4.2 wheel is built without it: only WAV can be read)."""
    try:
        import bpy  # noqa: F401
        import aud  # noqa: F401
    except ImportError:
        return False
    return True


HAS_AUD = _has_aud()
NO_AUD = "cannot read it as audio: this Blender has no audio library (aud), and without it only WAV files can be read"
HOUSE = REPO.parent / "shared" / "music" / "house_lo.ogg"
CLICK_BPM = 120.0
HOUSE_BPM = 68.0  # librosa's beat_track on house_lo.ogg


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One run over the four songs: (result, songs by name, report entries by file name, the page, the output folder)."""
    folder = tmp_path_factory.mktemp("beats")
    if not HOUSE.is_file():
        pytest.skip(f"the shared song is missing: {HOUSE}")
    samples, beats = click_track()
    songs = {"clicks.wav": write_wav(folder / "clicks.wav", samples), "house_lo.ogg": HOUSE,
             "silence.wav": write_wav(folder / "silence.wav", np.zeros(5 * RATE)), "broken.ogg": folder / "broken.ogg"}
    songs["broken.ogg"].write_bytes(np.random.default_rng(7).integers(0, 256, 30000, dtype=np.uint8).tobytes())
    out = folder / "out"
    result = run_loopsmith("beats", *songs.values(), "-o", out, "--beats-format", "txt", "json", "--quiet", timeout=300)
    report = json.loads((out / "loopsmith_report.json").read_text())
    entries = {pathlib.Path(entry["file"]).name: entry for entry in report["entries"]}
    return result, songs, entries, (out / "loopsmith_report.html").read_text(), out, beats


def test_a_click_track_gives_its_tempo_and_beats(run):
    result, _, entries, _, out, truth = run
    music = entries["clicks.wav"]["music"]
    assert abs(music["tempo_bpm"] / CLICK_BPM - 1) < 0.01, music["tempo_bpm"]
    found = np.array(music["beats"])
    errors = np.abs(found[:, None] - truth[None, :]).min(axis=1)
    assert errors.max() < 0.008, errors.max()  # between the envelope's frames, to the sample (on the 23 ms hop: up to 12 ms)
    assert len(found) >= len(truth) - 2  # every beat but perhaps one at either end
    listed = [float(line) for line in (out / "clicks_beats.txt").read_text().split()]
    assert listed == music["beats"]
    assert json.loads((out / "clicks_beats.json").read_text())["beats"] == music["beats"]


def test_the_house_loop_is_at_librosa_s_tempo_with_every_field(run):
    _, _, entries, _, out, _ = run
    entry = entries["house_lo.ogg"]
    if not HAS_AUD:
        assert entry["error"] == NO_AUD
        pytest.skip("an OGG needs Blender's audio library, which this bpy lacks")
    music = entry["music"]
    assert entry["status"] == "ok" and entry["command"] == "beats" and entry["kind"] == "beats"
    assert set(music) == {"tempo_bpm", "other_bpm", "beats", "confidence", "duration_s", "rate"}
    assert abs(music["tempo_bpm"] / HOUSE_BPM - 1) < 0.04, music["tempo_bpm"]
    assert music["rate"] == 11025 and abs(music["duration_s"] - 7.1) < 0.1 and 0.4 <= music["confidence"] <= 1
    assert all(round(beat, 6) == beat for beat in music["beats"]) and music["beats"] == sorted(music["beats"])
    assert entry["verdict"]["word"] == "GOOD"
    assert sorted(pathlib.Path(path).name for path in entry["outputs"]) == ["house_lo_beats.json", "house_lo_beats.txt"]


def test_silence_and_a_corrupt_file_fail_alone_with_one_line_each_and_no_output(run):
    result, songs, entries, _, out, _ = run
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("loopsmith: ")]
    assert f"loopsmith: {songs['silence.wav']}: no steady beat found in silence.wav (silence)" in lines
    broken = [line for line in lines if str(songs["broken.ogg"]) in line]
    assert len(broken) == 1 and ("cannot read it as audio: not audio Blender can decode" in broken[0] or NO_AUD in broken[0])
    assert len(lines) == 2 + (not HAS_AUD)  # without aud the house loop (OGG) is named too
    assert entries["silence.wav"]["verdict"]["word"] == "FAILED" and entries["broken.ogg"]["status"] == "error"
    assert not list(out.glob("silence_beats*")) and not list(out.glob("broken_beats*"))
    assert not list(out.glob(".*partial*"))


def test_the_page_plots_the_envelope_with_the_beats_and_plays_the_song(run):
    _, _, entries, page, _, _ = run
    song = "house_lo.ogg" if HAS_AUD else "clicks.wav"
    section = page.split(f"{song} <small>")[1].split("<section")[0]
    assert '<svg class="chart"' in section and 'aria-label="onset envelope with the beats"' in section
    assert "time (s)" in section and "onset strength (dB)" in section
    assert section.count("M", section.index('class="beat-marks"'), section.index('class="envelope"')) >= len(entries[song]["music"]["beats"])
    assert '<audio class="song" controls' in section and f'src="data:audio/{"ogg" if HAS_AUD else "wav"};base64,' in section
    assert 'class="beat-flash"' in section and ".beats-player" in section  # beats.js inlined with the section


def test_a_reference_is_compared_and_drawn_over_the_waveform(tmp_path):
    samples, truth = click_track(8.0)
    song = write_wav(tmp_path / "clicks.wav", samples)
    reference = tmp_path / "clicks.beats.txt"
    reference.write_text("# annotated\n" + "".join(f"{t:.3f} {k % 4 + 1}\n" for k, t in enumerate(truth)))
    done = run_loopsmith("beats", song, "--reference", reference, "-o", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "out" / "loopsmith_report.json").read_text())["entries"][-1]
    assert entry["reference"]["f_measure"] == 1.0 and entry["reference"]["beats"] == [round(t, 3) for t in truth]
    assert entry["music"]["other_bpm"] in (pytest.approx(60.0, rel=0.02), pytest.approx(240.0, rel=0.02)) and "the pulse may be heard at" in (tmp_path / "out" / "loopsmith_report.html").read_text()
    assert max(entry["waveform"]["values"]) == pytest.approx(np.abs(samples).max(), abs=0.01)  # the clicks' peaks
    page = (tmp_path / "out" / "loopsmith_report.html").read_text()
    assert 'aria-label="waveform with the beats"' in page and 'class="reference-marks"' in page and "F 1.00 at +-70 ms" in page
    other = write_wav(tmp_path / "other.wav", samples)
    done = run_loopsmith("beats", song, other, "--reference", reference, "-o", tmp_path / "two", "--quiet")
    assert done.returncode == 2 and "compares one song's beats, and 2 songs are given" in done.stderr
    reference.write_text("one\n")
    done = run_loopsmith("beats", song, "--reference", reference, "-o", tmp_path / "bad", "--quiet")
    assert done.returncode == 2 and f"--reference {reference}: line 1 is not a time in seconds" in done.stderr
