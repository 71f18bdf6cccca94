"""Which files a run reads, and the output names that keep every output apart from every input.

Plain Python (no Blender).
"""

import os
import pathlib
import stat

INPUT_SUFFIXES = (".bvh", ".fbx", ".glb", ".gltf", ".blend", ".amc")
#: Songs: the sound files Blender's audio library plays (its file browser's list).
AUDIO_SUFFIXES = (".wav", ".ogg", ".oga", ".flac", ".mp3", ".mp2", ".m4a", ".aac", ".ac3", ".eac3", ".opus", ".wma", ".aif",
                  ".aiff", ".mka")
ACCLAIM_MOTION = ".amc"


def real(path):
    """The path a file really lives at (links and ``..`` resolved), for comparing files."""
    return pathlib.Path(os.path.realpath(path))


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def not_a_file(path, wanted="a file"):
    """Why ``path`` is no regular file to read (a link to one counts), naming what it is instead (``a named pipe (FIFO),
    not a song file`` with ``wanted`` "a song file"); None when it is one. Checked with ``os.stat`` before anything opens
    it: opening a FIFO waits for a writer, and a device such as /dev/zero never ends."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "no such file"
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    if stat.S_ISREG(mode):
        return None
    return f"{next((kind for test, kind in _KINDS if test(mode)), 'not a regular file')}, not {wanted}"


def is_acclaim(path):
    """Whether ``path`` is an Acclaim motion (AMC), read with its skeleton (ASF): ``--asf``, or found beside it."""
    return pathlib.Path(path).suffix.lower() == ACCLAIM_MOTION


def collect(paths, earlier_outputs=(), include_outputs=False, suffixes=INPUT_SUFFIXES):
    """Files to read, in order: the given files, and the files inside given folders whose suffix is one of ``suffixes``
    (motion files unless told otherwise).

    Files in a scanned folder that an earlier run wrote (``earlier_outputs``,
    real paths from the output folder's report) are skipped unless
    ``include_outputs``; files named one by one are always read. Returns
    ``(files, skipped)``; a file reached twice is read once.
    """
    files, skipped, seen = [], [], set()
    earlier = {real(path) for path in earlier_outputs}
    for path in paths:
        if path.is_dir():
            for found in sorted(p for p in path.rglob("*") if p.suffix.lower() in suffixes and p.is_file()):
                (skipped if real(found) in earlier and not include_outputs else files).append(found)
        else:
            files.append(path)
    unique = []
    for path in files:
        if real(path) not in seen:
            seen.add(real(path))
            unique.append(path)
    return unique, skipped


def output_suffixes(path, formats):
    """The output suffixes of input ``path`` for ``--format`` ``formats`` ('same': the input's; glTF is written as GLB)."""
    suffixes = (path.suffix.lower() if name == "same" else "." + name for name in formats)
    return tuple(dict.fromkeys(".glb" if suffix == ".gltf" else suffix for suffix in suffixes))


def _prefixed(path, depth):
    folders = real(path).parent.parts[1:]  # without the filesystem root
    return "-".join((*folders[len(folders) - depth:], path.stem))


def output_stems(files, formats_of):
    """A distinct output stem per input: its own stem, or with its folders in front where two inputs' outputs would clash.

    ``formats_of(path)``: the output suffixes a file gets. ``a/walk.bvh``
    and ``b/walk.bvh`` become ``a-walk`` and ``b-walk``; ``walk.bvh`` and
    ``walk.fbx`` in one folder keep ``walk`` when their outputs' formats
    differ, and become ``walk-bvh`` and ``walk-fbx`` when they do not.
    Returns ``{str(path): stem}``.
    """
    groups = {}
    for path in files:
        groups.setdefault(path.stem.lower(), []).append(path)
    stems = {}
    for group in groups.values():
        formats = [set(formats_of(path)) for path in group]
        if sum(map(len, formats)) == len(set().union(*formats)):
            stems.update((str(path), path.stem) for path in group)  # no two write the same file
            continue
        names, depth = [path.stem for path in group], 0
        deepest = max(len(real(path).parent.parts) - 1 for path in group)
        while len({name.lower() for name in names}) < len(names) and depth < deepest:
            depth += 1
            names = [_prefixed(path, depth) for path in group]
        if len({name.lower() for name in names}) < len(names):
            names = [f"{path.stem}-{path.suffix.lstrip('.').lower()}" for path in group]
        stems.update(zip(map(str, group), names))
    return stems
