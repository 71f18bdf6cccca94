"""Dance to music: every target measured in one run and printed beside it.

Beats: F-measure (+-70 ms) on synthesized tracks with known beats (target >= 0.95), and on house_lo.ogg and a synthesized
song the tempo against librosa's ``beat_track`` (within 4%) and the F-measure against its beats (>= 0.8). Sync: shared
walks and runs composed (core compose, as ``compose --music`` does) and synced to house_lo.ogg and to beat grids at 90, 120
and 150 BPM: keyposes within a frame of a beat before (chance) and after (>= 80%), the stretch (0.8-1.25x), the junctions'
visibility and the toe skating against the same composition without music (<= 1.1x). Speed: beats of a 4-minute song
(<= 2 s, beside librosa, in fresh processes by bench_beats.py) and what the sync adds to a composition (<= 20%).

Real music: every recording of the corpus folder (``LOOPSMITH_MUSIC_CORPUS``, else ``music/corpus`` of the shared folder;
its MANIFEST.md says what each is): its tempo, the F-measure of its beats against its human annotations (``NAME.beats.txt``
beside it, a time per line; target: at least librosa's own F against them) or else against librosa's beats (target >= 0.8),
the time taken, librosa's F against the annotations and its time; and the three compositions synced to it: keyposes within a frame and within 70 ms of a beat, the sharpest
junction against its clips as composed, the verdict.

Run: ``python bench/bench_music.py`` with the core venv (numpy; librosa and soundfile, test-only, for the comparisons:
without them those rows say so). The shared folders beside the checkout, or LOOPSMITH_SHARED.
"""

import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import common  # noqa: E402
import sound  # noqa: E402
from core.compose import sequence  # noqa: E402
from core.errors import NoSteadyBeat, SyncError  # noqa: E402
from core.measure import verdict  # noqa: E402
from core.formats import bvh, bvh_clip  # noqa: E402
from core.music import f_measure, keyposes, perform, sync, track_beats  # noqa: E402

SHARED = pathlib.Path(os.environ.get("LOOPSMITH_SHARED", ROOT.parent / "shared"))
SONG = SHARED / "music" / "house_lo.ogg"
CORPUS = pathlib.Path(os.environ.get("LOOPSMITH_MUSIC_CORPUS", SHARED / "music" / "corpus"))
COMPOSITIONS = {"walk+walk": ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh"),
                "run+run": ("dataset-1_run_happy_001.bvh", "dataset-2_run_normal_040.bvh"),
                "walk+run+walk": ("dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_walk_normal_020.bvh")}
TEMPI = (90, 120, 150)
PHASE = 0.25  # s: the grids' first beat
WORSE = 1.1  # junction visibility and skating: at most this much of the composition's without music


def _librosa():
    try:
        import librosa
        import soundfile  # noqa: F401  (librosa reads the OGG through it)
    except ImportError:
        return None
    return librosa


def beats_rows():
    """F-measure of each synthesized track against its known beats."""
    print("Beats on synthesized tracks (F-measure at +-70 ms against the known beats; target >= 0.95)")
    for name, make in sound.TRACKS.items():
        samples, truth = make()
        found = track_beats(samples, sound.RATE)
        print(f"  {name:<28} F {f_measure(found.times, truth):.3f}   {found.tempo_bpm:6.1f} BPM found")


def librosa_rows(librosa):
    """Tempo and beats against librosa's on the real loop and a synthesized song."""
    print("Against librosa's beat_track (tempo within 4%; F-measure against its beats >= 0.8)")
    if librosa is None:
        print("  librosa or soundfile is not installed (test-only, in the core venv): no comparison")
        return
    songs = {"house_lo.ogg": None, "synthesized song at 128 BPM": sound.song(128.0)}
    for name, made in songs.items():
        if made is None:
            if not SONG.is_file():
                print(f"  {name}: {SONG} not found")
                continue
            samples, rate = librosa.load(str(SONG), sr=None, mono=True)
            reference, reference_rate = librosa.load(str(SONG), sr=22050)
        else:
            samples, rate = made[0].astype(np.float32), sound.RATE
            reference, reference_rate = samples, rate
        mine = track_beats(samples, rate)
        tempo, theirs = librosa.beat.beat_track(y=reference, sr=reference_rate, units="time")
        tempo = float(np.atleast_1d(tempo)[0])
        print(f"  {name:<28} loopsmith {mine.tempo_bpm:6.1f} BPM, librosa {tempo:6.1f} BPM ({abs(mine.tempo_bpm / tempo - 1):.1%} apart), "
              f"F {f_measure(mine.times, theirs):.3f} against librosa's beats")


def _clip(name):
    info = bvh.read_bvh(SHARED / "mocap" / "bandai" / name)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


WIDER = (0.75, 1.4)  # --max-stretch for a tempo out of the default's reach


def _synced(composed, beats, seconds, bounds):
    """(numbers, Sync, seconds the sync took) of ``composed`` synced to ``beats``, as ``compose --music`` does."""
    started = time.perf_counter()
    clip, windows = composed.clip, [t.window for t in composed.transitions]
    found = keyposes.find_keyposes(clip)
    warped, result = perform.sync_performance(clip, beats, bounds, seconds, name="the composition", found=found, windows=windows,
                                              parts=[(segment.name, segment.out_first) for segment in composed.segments])
    numbers = perform.measure_sync(clip, warped, result, windows, found)
    return numbers, result, time.perf_counter() - started


def _sync_row(label, composed, beats, seconds, compose_seconds, bounds=sync.MAX_STRETCH):
    try:
        numbers, result, took = _synced(composed, beats, seconds, bounds)
    except SyncError as error:
        print(f"  {label:<34} not made: {error}")
        return
    before, after = max(numbers["visibility_before"], default=0.0), max(numbers["visibility_after"], default=0.0)
    uniform = max(numbers["visibility_uniform"], default=0.0)
    skating = numbers["skating_after_per_input"] / max(numbers["skating_before"], 1e-9)
    low, high = numbers["stretch_range"]
    print(f"  {label:<34} {numbers['on_beat_before']:>4.0%} ({numbers['on_beat_chance']:.0%}) -> {numbers['on_beat_after']:>4.0%}"
          f"   {low:.2f}-{high:.2f}x   {before:.2f} -> {after:.2f} ({after / max(before, 1e-9):.2f}x; uniform {uniform:.2f})   {skating:.2f}x"
          f"   +{took / compose_seconds:.0%}")
    if numbers["out_of_reach"] and bounds != WIDER:  # danced at the nearest stretch allowed: and within the wider bounds
        print(f"  {'':<34} {verdict.of_sync(numbers).reasons[-1]}")
        _sync_row(f"  with --max-stretch {WIDER[0]:g} {WIDER[1]:g}", composed, beats, seconds, compose_seconds, WIDER)


def sync_rows():
    """Each composition synced to the beat grids and to house_lo.ogg's beats, as it plays."""
    print("Sync (keyposes within a frame of a beat: before (chance) -> after, >= 80%; stretch in 0.80-1.25x; sharpest junction\n"
          "before -> after and skating per input second against without music, <= 1.1x, the junction also played uniformly at the\n"
          "sync's mean speed (resampling's own share); what the sync adds to the compose's time)")
    print(f"  {'composition and song':<34} {'on the beat':<19}{'stretch':<13}{'junction visibility':<40}{'skating':<10}time")
    song = None
    if SONG.is_file() and _librosa() is not None:
        samples, rate = _librosa().load(str(SONG), sr=None, mono=True)
        song = (track_beats(samples, rate).times, len(samples) / rate)
    for name, files in COMPOSITIONS.items():
        pieces = [sequence.Piece(_clip(file), name=file) for file in files]
        started = time.perf_counter()
        composed = sequence.compose(pieces)
        compose_seconds = time.perf_counter() - started
        for bpm in TEMPI:
            _sync_row(f"{name} at {bpm} BPM", composed, PHASE + np.arange(int(bpm)) * 60.0 / bpm, 60.0, compose_seconds)
        if song is not None:
            _sync_row(f"{name} to house_lo.ogg", composed, song[0], song[1], compose_seconds)


def _recording(librosa, path):
    """(samples, rate, annotations or None, librosa's beats, the seconds librosa took) of one recording of the corpus."""
    samples, rate = librosa.load(str(path), sr=None, mono=True)
    annotated = path.with_suffix(".beats.txt")
    annotations = np.loadtxt(annotated, ndmin=2)[:, 0] if annotated.is_file() else None
    resampled = librosa.resample(samples, orig_sr=rate, target_sr=22050)
    started = time.perf_counter()
    _, theirs = librosa.beat.beat_track(y=resampled, sr=22050, units="time")
    return samples, rate, annotations, theirs, time.perf_counter() - started


def _song_sync_row(name, composed, found, seconds):
    """One composition synced to a recording's beats (``found``: its Beats): on the beat within a frame and 70 ms, the sharpest
    junction, the verdict."""
    try:
        numbers, result, _ = _synced(composed, found.times, seconds, sync.MAX_STRETCH)
    except SyncError as error:
        print(f"      {name:<16} not made: {error}")
        return
    near = sync.on_beat_fraction(np.array(numbers["keyposes_after"]), result.grid, 0.07)
    sharpest = max(numbers["visibility_after"], default=0.0)
    judged = verdict.of_sync({**numbers, "confidence": found.confidence})
    print(f"      {name:<16} {numbers['on_beat_after']:>4.0%} within a frame, {near:>4.0%} within 70 ms, "
          f"sharpest junction {sharpest:.2f}x its clips', {judged.word}" + (f" ({'; '.join(judged.reasons)})" if judged.reasons else ""))


def corpus_rows(librosa):
    """Every recording of the corpus: its beats against the annotations or librosa, and the compositions synced to it."""
    recordings = sorted(CORPUS.glob("*.wav")) if CORPUS.is_dir() else []
    print(f"Real music ({CORPUS}): tempo, F at +-70 ms against the annotations (at least librosa's; else against librosa's "
          f"beats, >= 0.8), time; librosa's F against the annotations and its time (warm, on the audio at 22.05 kHz)")
    if librosa is None or not recordings:
        print("  " + ("librosa or soundfile is not installed" if librosa is None else "no recordings found") + ": no rows")
        return
    composed = {name: sequence.compose([sequence.Piece(_clip(file), name=file) for file in files])
                for name, files in COMPOSITIONS.items()}
    librosa.beat.beat_track(y=sound.song(120.0, 4.0)[0].astype(np.float32), sr=sound.RATE)  # compiled before it is timed
    for path in recordings:
        samples, rate, annotations, theirs, their_seconds = _recording(librosa, path)
        started = time.perf_counter()
        try:
            beats = track_beats(samples, rate)
        except NoSteadyBeat as error:
            print(f"  {path.name:<24} refused: {error}")
            continue
        took = time.perf_counter() - started
        against = "annotations" if annotations is not None else "librosa"
        reference = annotations if annotations is not None else theirs
        theirs_f = f"{f_measure(theirs, annotations):.2f}" if annotations is not None else "-"
        print(f"  {path.name:<24} {beats.tempo_bpm:6.1f} BPM (confidence {beats.confidence:.2f}), F {f_measure(beats.times, reference):.2f} "
              f"against {against}, {took * 1000:.0f} ms; librosa's F {theirs_f}, {their_seconds * 1000:.0f} ms")
        for name, composition in composed.items():
            _song_sync_row(name, composition, beats, len(samples) / rate)


def speed_rows():
    """The 4-minute song beside librosa and an hour in bounded memory, each in a fresh process (bench_beats.py)."""
    script = str(ROOT / "bench" / "bench_beats.py")
    mine, theirs = common.run_variant(script, "mine"), common.run_variant(script, "librosa")
    print("Speed (beats of a synthesized 4-minute song at 44.1 kHz, best of 3; target <= 2 s)")
    print(f"  loopsmith {mine['seconds']:.2f} s (+{mine['extra_mb']:.0f} MB, F {mine['f']:.3f})", end="")
    if "missing" in theirs:
        print(f"; librosa: {theirs['missing']}")
    else:
        print(f"; librosa {theirs['seconds']:.2f} s (+{theirs['extra_mb']:.0f} MB, F {theirs['f']:.3f}); "
              f"loopsmith / librosa = {mine['seconds'] / theirs['seconds']:.2f}")
    hour = common.run_variant(script, "hour")
    print(f"  one hour of audio in 10 s blocks: {hour['seconds']:.1f} s, peak +{hour['extra_mb']:.0f} MB "
          f"(the audio itself: {hour['audio_mb']:.0f} MB as float32)")


def main():
    beats_rows()
    librosa_rows(_librosa())
    corpus_rows(_librosa())
    sync_rows()
    speed_rows()


if __name__ == "__main__":
    main()
