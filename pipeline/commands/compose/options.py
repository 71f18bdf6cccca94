"""compose's options (no Blender) and the plan of its one task.

``python -m loopsmith compose A B C -o OUT`` writes ``OUT/composition.<format>``:
A, then B aligned to continue it, then C, each junction a transition.
"""

import math
import pathlib

from ....core.transition import make
from ....files import inputs as input_files
from ...options import blend_seconds, frame, number, Renamed, UsageError

MAX_FACE_DEGREES = 180.0  # --face turns either way at most half a turn: the sign says which way
MAX_STRETCH = (0.8, 1.25)  # --max-stretch's default: the motion plays at 0.8x to 1.25x its captured speed
STRETCH_BOUNDS = (0.5, 2.0)  # --max-stretch LOW and HIGH lie in these: beyond, a dance no longer looks like its capture
MAX_MUSIC_START = 3600.0  # s: --music-start within the first hour of a song


def add_music_arguments(parser):
    """``--music SONG``, ``--max-stretch LOW HIGH`` and ``--music-start SECONDS`` (compose's and synth's)."""
    parser.add_argument("--music", type=pathlib.Path, metavar="SONG",
                        help="retime the performance so its keyposes land on the beats of this song (WAV, FLAC, OGG, MP3 or whatever "
                             "Blender plays), ending on a beat; the song plays with it in the report and the .blend (default: none)")
    parser.add_argument("--max-stretch", nargs=2, type=number(*STRETCH_BOUNDS), metavar=("LOW", "HIGH"),
                        help=f"with --music: the slowest and fastest the motion may play, 1 as captured "
                             f"(default: {MAX_STRETCH[0]:g} {MAX_STRETCH[1]:g})")
    parser.add_argument("--music-start", type=number(0.0, MAX_MUSIC_START), metavar="SECONDS",
                        help="with --music: the time in the song where the output's first frame plays (default: 0)")


def check_music(options):
    """UsageError for ``--max-stretch``/``--music-start`` without ``--music``, a song that is no file, or LOW not below
    HIGH; fills the defaults."""
    if options.music is None:
        for flag, value in (("--max-stretch", options.max_stretch), ("--music-start", options.music_start)):
            if value is not None:
                raise UsageError(f"{flag} applies to --music (the song the performance is retimed to), and none is given")
        return
    problem = input_files.not_a_file(options.music, "a song file")
    if problem:
        raise UsageError(f"--music {options.music}: {problem}")
    if options.max_stretch is None:
        options.max_stretch = list(MAX_STRETCH)
    low, high = options.max_stretch
    if not low <= 1.0 <= high or low >= high:
        raise UsageError(f"--max-stretch {low:g} {high:g}: LOW must be at most 1 and HIGH at least 1, LOW below HIGH")
    options.music_start = options.music_start or 0.0


def add_arguments(parser):
    parser.add_argument("--name", default="composition", help="the output's name: FOLDER/NAME.<format>")
    parser.add_argument("--loop", action="store_true", help="the last clip hands over to the first and the whole plays as a seamless cycle")
    parser.add_argument("--clip-range", nargs=3, action="append", type=frame, metavar=("K", "FIRST", "LAST"), default=[],
                        help="use only frames FIRST-LAST (inclusive) of the K-th clip (1 for the first), as the file numbers them when "
                             "imported (a BVH from 1); once per clip (default: every clip whole)")
    parser.add_argument("--junction", nargs=3, action="append", type=frame, metavar=("J", "I", "K"), default=[],
                        help="blend at junction J (1: first clip into second) from frame I of the clip before into frame K of the "
                             "clip after; once per junction (default: the best point near each junction)")
    # The old spellings, for one release: --range and --at mean other things in make-loop, freeze and transition.
    parser.add_argument("--range", nargs=3, type=frame, metavar=("K", "FIRST", "LAST"), dest="clip_range", append=True,
                        action=Renamed, now="--clip-range K FIRST LAST")
    parser.add_argument("--at", nargs=3, type=frame, metavar=("J", "I", "K"), dest="junction", append=True,
                        action=Renamed, now="--junction J I K")
    parser.add_argument("--face", nargs=2, action="append", type=number(), metavar=("K", "DEGREES"), default=[],
                        help="the K-th clip (2 for the second) starts turned DEGREES (-180 to 180, positive to the left, "
                             "counterclockwise seen from above) from where the clip before leaves the character; 0 continues "
                             "its heading; the junction's blend makes the turn (over at least 1 s per radian unless --length is "
                             "given); once per clip (default: every clip continues the heading; the first keeps its own)")
    parser.add_argument("--method", choices=make.METHODS, default="AUTO", help="how each junction blends (see transition)")
    parser.add_argument("--length", type=blend_seconds, metavar="SECONDS",
                        help="blend length of every junction in seconds (default: chosen per junction)")
    parser.add_argument("--trim", action="store_true", help="cut idle frames (little motion) at each clip's start and end first")
    parser.add_argument("--no-align", dest="align", action="store_false", help="keep every clip where it stands instead of continuing the last")
    add_music_arguments(parser)


def check(options):
    """Enough clips, no folders, ranges and points that name clips and junctions that exist. UsageError names the option."""
    count = len(options.inputs)
    if any(path.is_dir() for path in options.inputs):
        raise UsageError("compose takes files in the order they play, not folders")
    if count < (1 if options.loop else 2):
        raise UsageError("compose takes at least two files (one is enough with --loop)")
    if "/" in options.name or "\\" in options.name or options.name in ("", ".", ".."):
        raise UsageError(f"--name must be a plain file name, not '{options.name}'")
    for index, first, last in options.clip_range:
        if not 1 <= index <= count:
            raise UsageError(f"--clip-range {index} {first} {last}: there is no clip {index} (1-{count})")
        if last <= first:
            raise UsageError(f"--clip-range {index} {first} {last}: LAST must be after FIRST")
    junctions = count if options.loop else count - 1
    for junction, before, after in options.junction:
        if not 1 <= junction <= junctions:
            raise UsageError(f"--junction {junction} {before} {after}: there is no junction {junction} "
                             f"(1-{junctions}{', the last closing the loop' if options.loop else ''})")
    _check_faces(options.face, count)
    check_music(options)
    twice = [index for index in {index for index, _, _ in options.clip_range} if [k for k, _, _ in options.clip_range].count(index) > 1]
    if twice:
        raise UsageError(f"--clip-range is given twice for clip {twice[0]}")
    twice = [index for index in {index for index, _, _ in options.junction} if [k for k, _, _ in options.junction].count(index) > 1]
    if twice:
        raise UsageError(f"--junction is given twice for junction {twice[0]}")


def _check_faces(faces, count):
    """UsageError naming ``--face K DEGREES`` unless K is a clip after the first (once each) and DEGREES within +-180."""
    seen = set()
    for index, degrees in faces:
        given = f"--face {index:g} {degrees:g}"
        if not float(index).is_integer() or not 1 <= index <= count:
            raise UsageError(f"{given}: there is no clip {index:g} (K is a whole number, 2-{count})")
        if index == 1:
            raise UsageError(f"{given}: the first clip keeps its own heading: give K from 2 to {count}")
        if abs(degrees) > MAX_FACE_DEGREES:
            raise UsageError(f"{given}: DEGREES must be from -180 to 180 (the sign says which way to turn)")
        if index in seen:
            raise UsageError(f"--face is given twice for clip {index:g}")
        seen.add(index)


def faces(options):
    """``{clip number (1-based): radians}`` of ``--face``."""
    return {int(index): math.radians(degrees) for index, degrees in options.face}


def plan(files, options):
    """One task: the clips in the order given (the same file may come more than once), named ``--name``."""
    return [tuple(options.inputs)], [options.name]
