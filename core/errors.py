"""Loopsmith's own exceptions: domain errors that operators turn into reports."""


class LoopsmithError(Exception):
    """Base class of every error Loopsmith reports to the user instead of a traceback."""


class ClipError(LoopsmithError):
    """The animation cannot be read or written as a clip (no action, bad range, NaN...)."""


class LoopError(LoopsmithError):
    """A loop cannot be made or found with the given range or parameters."""


class NoLoopFound(LoopError):
    """Find Loop found no loop to make: no motion repeats, or none of ``cycles`` periods fits between ``min_length`` and
    ``max_length`` seconds (``cycles`` 0: any number of periods). ``needed``: the seconds of the loop found when the search
    may run up to the whole clip, when that is longer than ``max_length`` (else None)."""

    def __init__(self, cycles: int, min_length: float, max_length: float, needed: float | None = None):
        fits = f"of {cycles} cycles between {min_length:g} s and {max_length:g} s" if cycles else "that repeats"
        longer = f" (it repeats every {needed:.2f} s, beyond the longest loop of {max_length:g} s)" if needed else ""
        super().__init__(f"no loop {fits} found in the clip{longer}")
        self.cycles, self.min_length, self.max_length, self.needed = cycles, min_length, max_length, needed


class TransitionError(LoopsmithError):
    """A transition cannot be matched, warped or blended with the given clips, frames or parameters."""


class FeatureError(TransitionError):
    """The pose features asked for cannot be taken from a clip (an unknown joint set, weights that do not fit its joints):
    every match between clips (transitions, blends, splices, graphs) fails with it."""


class EditError(LoopsmithError):
    """A motion edit (resample, retime, freeze, splice, blend, mirror) cannot be made with the given clips or parameters."""


class CompositionError(LoopsmithError):
    """A sequence of clips cannot be composed with the given pieces, ranges or junctions; ``junction``: the 0-based index of
    the junction at fault, when one is."""

    def __init__(self, message: str, junction: int | None = None):
        super().__init__(message)
        self.junction = junction


class GraphError(LoopsmithError):
    """A motion graph that cannot be built, read or walked as asked."""


class AcclaimError(LoopsmithError):
    """An Acclaim skeleton (ASF) or motion (AMC) that cannot be read or written as asked.

    ``path`` (the file, or None for text given directly), ``line`` (1-based, or None where no single line is to blame) and
    ``reason`` are kept as attributes; the message reads ``05_01.amc line 1234: reason``.
    """

    def __init__(self, reason: str, path: object = None, line: int | None = None):
        name = str(path).replace("\\", "/").rsplit("/", 1)[-1] if path is not None else None  # the file's name, as a user sees it
        place = " ".join(part for part in (name, f"line {line}" if line is not None else None) if part)
        super().__init__(f"{place}: {reason}" if place else reason)
        self.path, self.line, self.reason = path, line, reason


class SkeletonNotFound(AcclaimError):
    """No Acclaim skeleton beside a motion: ``wanted`` (the ASF named after its subject), the ``folder`` looked in and
    ``found``, the other .asf files there (none, or several and none the only one). Each door says how to give one."""

    def __init__(self, motion: object, wanted: str, folder: object, found: list):
        others = f"{len(found)} other .asf files, none of them the only one" if found else "no other .asf file"
        super().__init__(f"no skeleton found: looked for {wanted} in {folder} and found {others}", motion)
        self.wanted, self.folder, self.found = wanted, folder, list(found)


class AudioError(LoopsmithError):
    """An audio file that cannot be used: missing, corrupt or in a format the reader does not support.

    ``path`` (the file as given, or a description of samples given directly) and ``reason`` are kept as attributes; the
    message reads ``cannot read audio song.wav: reason``.
    """

    def __init__(self, path: object, reason: str, message: str | None = None):
        super().__init__(message or f"cannot read audio {path}: {reason}")
        self.path, self.reason = path, reason


class NoSteadyBeat(AudioError):
    """Audio without a steady beat to track: silence, speech, noise, or a song shorter than one bar (4 beats).

    The message reads ``no steady beat found in song.wav (reason)``.
    """

    def __init__(self, path: object, reason: str):
        super().__init__(path, reason, f"no steady beat found in {path} ({reason})")


class SyncError(LoopsmithError):
    """A motion that cannot be retimed to a song's beats: a tempo its keyposes cannot reach within the stretch allowed,
    too few keyposes or beats.

    ``clip`` (the clip's name as the user knows it) and ``stretch`` (the speed it would need, 1 = as captured, or None
    where no speed is to blame) are kept as attributes; the message reads
    ``walk.bvh would need 1.43x to meet 150 BPM, outside the stretch allowed (0.8-1.25x)``.
    """

    def __init__(self, message: str, clip: str | None = None, stretch: float | None = None):
        super().__init__(message)
        self.clip, self.stretch = clip, stretch
