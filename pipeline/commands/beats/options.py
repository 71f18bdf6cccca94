"""beats's options (no Blender): what the beat list is written as, and a reference beat list to compare with."""

import pathlib

import numpy as np

from ...options import UsageError

FORMATS = ("txt", "json")


def add_arguments(parser):
    parser.add_argument("--beats-format", choices=FORMATS, nargs="+", default=["txt"], metavar="FORMAT",
                        help="what each song's beat list is written as, one or more: txt (a beat time per line, in seconds), json "
                             "(the tempo, the beats and the confidence) (default: txt)")
    parser.add_argument("--reference", type=pathlib.Path, metavar="BEATS.txt",
                        help="beat times to compare with (human annotations, or another tracker's), one per line in seconds (the "
                             "first number of a line; lines starting with # skipped): the report plots them beside the beats found "
                             "and gives the F-measure at +-70 ms; with one song only")


def reference_beats(path: pathlib.Path) -> np.ndarray:
    """The beat times (seconds, ascending) of a reference list: the first number of each line that is not blank or a
    # comment. UsageError naming the file when it cannot be read or holds no beat."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--reference {path}: cannot read it ({getattr(error, 'strerror', None) or error})") from None
    times = []
    for number, line in enumerate(lines, 1):
        fields = line.replace(",", " ").split()
        if not fields or fields[0].startswith("#"):
            continue
        try:
            times.append(float(fields[0]))
        except ValueError:
            raise UsageError(f"--reference {path}: line {number} is not a time in seconds: {line.strip()[:40]!r}") from None
    beats = np.sort(np.array(times, dtype=float))
    if len(beats) == 0 or not np.all(np.isfinite(beats)):
        raise UsageError(f"--reference {path}: no beat times (a time in seconds per line)")
    return beats


def check(options):
    """Read ``--reference`` into ``options.reference_beats``, a list of seconds (None without it)."""
    options.reference_beats = None if options.reference is None else reference_beats(options.reference).tolist()
