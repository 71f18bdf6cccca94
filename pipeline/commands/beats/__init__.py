"""``beats SONG...``: the tempo and beat times of songs, as a list of beat times per song and in the report (the onset
envelope plotted with the beats, the song playing with the beats flashing)."""

from ....files import inputs as input_files
from ...contract import Command
from ...options import UsageError
from . import options, report


class Beats(Command):
    name = "beats"
    help = "find the tempo and the beat times of songs (WAV, OGG, FLAC, MP3...): a list of beat times per song"
    done, kind = "tracked", "beats"
    inputs_metavar = "SONG"
    inputs_help = "WAV, OGG, FLAC, MP3 or other audio files Blender plays, or folders of them"
    examples = ("loopsmith beats song.ogg -o out                                  # out/song_beats.txt: a beat time per line, in seconds",
                "loopsmith beats music/ --beats-format txt json -o out            # every song of a folder, also as JSON (tempo, confidence)",
                "loopsmith beats song.wav --reference song.beats.txt -o out       # the report compares the beats with annotated ones (F)")
    exit_codes = "exit codes: 0 every song has a steady beat, 1 some failed or have none (each named on stderr), 2 usage error, 130 interrupted"
    writes_motion = False  # beat lists: no --format, no engine or root options
    out_help = "output folder of the beat lists (<song>_beats.txt)"
    input_suffixes = input_files.AUDIO_SUFFIXES

    options_module, report_module = options, report

    def plan(self, files, given):
        """One task per song, ``OUT/<stem>_beats.<txt|json>`` (folders in front where two songs' names would clash)."""
        if given.reference is not None and len(files) > 1:
            raise UsageError(f"--reference {given.reference} compares one song's beats, and {len(files)} songs are given")
        stems = input_files.output_stems(files, lambda path: tuple(given.beats_format))
        return [(path,) for path in files], [f"{stems[str(path)]}_beats" for path in files]

    def paths(self, given):
        return [("--reference", given.reference)] if given.reference is not None else []

    def job(self):
        from . import job  # bpy

        return job


COMMAND = Beats()
