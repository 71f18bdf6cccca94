"""beats's job for one song (bpy side): read it with Blender's audio library in blocks, track its beats, write the beat
list(s) through temporary names, read back before they take their place."""

import json
import pathlib
import time

from ....bridge import audio
from ....core.errors import AudioError, LoopsmithError, NoSteadyBeat
from ....core.music import track_beats
from ....files import interrupts, outputs, progress
from ...entries import error_entry
from . import report


def process(task, options, name, inputs):
    """Track the beats of the task's song and write ``OUT/<name>.<txt|json>``; one report entry, or one error entry.

    ``inputs``: real paths of every input of the run (as strings), which no output may replace.
    """
    (path,) = task
    started = time.perf_counter()
    try:
        song = audio.open_audio(path)
        blocks = song.blocks(progress=progress.reporter(f"reading {path.name}"))
        beats = track_beats(blocks, song.rate, source=path.name)
        targets = [options.out / f"{name}.{suffix}" for suffix in options.beats_format]
        outputs.refuse_inputs(targets, inputs)
        entry = report.beats_entry(path, song, beats, targets, _page_folder(options), options.reference_beats)
        outputs.replace_all([(target, outputs.text_writer(_text(target, entry)), _verifier(entry)) for target in targets])
        entry["seconds"] = round(time.perf_counter() - started, 3)
        return [entry]
    except NoSteadyBeat as error:
        interrupts.check()
        return [error_entry(path, str(error), time.perf_counter() - started)]
    except AudioError as error:
        interrupts.check()
        return [error_entry(path, f"cannot read it as audio: {error.reason}", time.perf_counter() - started)]
    except LoopsmithError as error:
        interrupts.check()
        return [error_entry(path, str(error), time.perf_counter() - started)]


def _page_folder(options):
    """The folder of the report's page, which links a song too large to embed by a path relative to it."""
    return (options.report.parent if options.report is not None else options.out).resolve()


def _text(target, entry):
    """A beat list: a beat time per line in seconds (txt), or the song's tempo, beats and confidence (json)."""
    music = entry["music"]
    if pathlib.Path(target).suffix == ".txt":
        return "".join(f"{time:.6f}\n" for time in music["beats"])
    return json.dumps({"song": entry["file"], **music}, indent=1) + "\n"


def _verifier(entry):
    """A check of a written beat list: it reads back as the entry's beats."""
    expected = entry["music"]["beats"]

    def verify(path):
        text = pathlib.Path(path).read_text(encoding="utf-8")
        found = [float(line) for line in text.split()] if pathlib.Path(path).suffix == ".txt" else json.loads(text)["beats"]
        if len(found) != len(expected) or any(abs(a - b) > 5e-4 for a, b in zip(found, expected)):
            raise outputs.OutputError(path, "the beat list does not read back as written")

    return verify


