"""Loopsmith's own exceptions: domain errors that operators turn into reports."""


class LoopsmithError(Exception):
    """Base class of every error Loopsmith reports to the user instead of a traceback."""


class ClipError(LoopsmithError):
    """The animation cannot be read or written as a clip (no action, bad range, NaN...)."""


class LoopError(LoopsmithError):
    """A loop cannot be made or found with the given range or parameters."""


class TransitionError(LoopsmithError):
    """A transition cannot be matched, warped or blended with the given clips, frames or parameters."""


class EditError(LoopsmithError):
    """A motion edit (resample, retime, freeze, splice, blend, mirror) cannot be made with the given clips or parameters."""


class CompositionError(LoopsmithError):
    """A sequence of clips cannot be composed with the given pieces, ranges or junctions."""


class GraphError(LoopsmithError):
    """A motion graph that cannot be built, read or walked as asked."""
