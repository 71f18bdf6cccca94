"""Loopsmith's own exceptions: domain errors that operators turn into reports."""


class LoopsmithError(Exception):
    """Base class of every error Loopsmith reports to the user instead of a traceback."""


class ClipError(LoopsmithError):
    """The animation cannot be read or written as a clip (no action, bad range, NaN...)."""


class LoopError(LoopsmithError):
    """A loop cannot be made or found with the given range or parameters."""


class NoLoopFound(LoopError):
    """Find Loop found no loop to make: no motion repeats, or none of ``cycles`` periods fits between ``min_length`` and
    ``max_length`` seconds (``cycles`` 0: any number of periods)."""

    def __init__(self, cycles: int, min_length: float, max_length: float):
        fits = f"of {cycles} cycles between {min_length:g} s and {max_length:g} s" if cycles else "that repeats"
        super().__init__(f"no loop {fits} found in the clip")
        self.cycles, self.min_length, self.max_length = cycles, min_length, max_length


class TransitionError(LoopsmithError):
    """A transition cannot be matched, warped or blended with the given clips, frames or parameters."""


class FeatureError(TransitionError):
    """The pose features asked for cannot be taken from a clip (an unknown joint set, weights that do not fit its joints):
    every match between clips (transitions, blends, splices, graphs) fails with it."""


class EditError(LoopsmithError):
    """A motion edit (resample, retime, freeze, splice, blend, mirror) cannot be made with the given clips or parameters."""


class CompositionError(LoopsmithError):
    """A sequence of clips cannot be composed with the given pieces, ranges or junctions."""


class GraphError(LoopsmithError):
    """A motion graph that cannot be built, read or walked as asked."""
