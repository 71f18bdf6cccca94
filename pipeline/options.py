"""Option types that check values where they are parsed, so every message names its option.

argparse reports a type's ``ArgumentTypeError`` as ``argument --ratio: ...``
and exits with 2. Plain Python (no Blender).
"""

import argparse
import math
import pathlib
import sys

from ..files.progress import say


class UsageError(Exception):
    """Options that do not fit together (exit code 2); the message names them."""


def _shown(value):
    """A bound as a person writes it: whole numbers in full (1048574, not 1.04857e+06)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def allowed_range(low=None, high=None, low_open=False):
    """The values a :func:`number` type takes, in words: 'above 0, at most 60', '1 to 1000', 'at least 0'."""
    parts = [] if low is None else [f"{'above' if low_open else 'at least'} {_shown(low)}"]
    if high is not None:
        parts.append(f"at most {_shown(high)}")
    if low is not None and high is not None and not low_open:
        return f"{_shown(low)} to {_shown(high)}"
    return ", ".join(parts)


def number(low=None, high=None, low_open=False, integer=False):
    """An argparse type for a finite number within ``[low, high]`` (``low`` excluded when ``low_open``).

    A value outside is refused, never clamped; the message and ``--help``
    (through :class:`HelpFormatter`, which reads ``allowed``) state the range.
    """
    allowed = allowed_range(low, high, low_open)

    def parse(text):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {'a whole number' if integer else 'a number'}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
        whole = f" (range: {allowed})" if low is not None and high is not None else ""
        if low is not None and (value < low or (low_open and value == low)):
            raise argparse.ArgumentTypeError(f"{text} must be {'above' if low_open else 'at least'} {_shown(low)}{whole}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text} must be at most {_shown(high)}{whole}")
        return value

    parse.__name__ = "whole number" if integer else "number"
    parse.allowed = allowed
    return parse


#: Blender's frame numbers (its MINAFRAME and MAXFRAME): no imported clip has a frame outside them.
FRAME_RANGE = (-1048574, 1048574)
#: The longest blend, fade, half-life or smoothing time an option takes, seconds: longer ones are typing slips, not motion.
MAX_BLEND_SECONDS = 60.0

seconds = number(0.0, low_open=True)  # a duration in seconds, above zero
blend_seconds = number(0.0, MAX_BLEND_SECONDS, low_open=True)
fraction = number(0.0, 1.0)
frame = number(*FRAME_RANGE, integer=True)


def frame_numbers(option, texts):
    """Frame numbers given as words (an option parsed by hand, such as ``--at I J``) checked as :data:`frame` checks them.

    Raises UsageError naming ``option``.
    """
    try:
        return tuple(frame(text) for text in texts)
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"{option}: {error}") from None


def shard(text):
    """An argparse type for ``K/N``: the K-th (1-based) of N shares; returns ``(K, N)``."""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit()) or not 1 <= int(k) <= int(n):
        raise argparse.ArgumentTypeError(f"'{text}' is not K/N with 1 <= K <= N (e.g. 2/8)")
    return int(k), int(n)


def json_values(options):
    """Parsed ``options`` (a namespace) as a dict of JSON values (paths as strings)."""
    def plain(value):
        return str(value) if isinstance(value, pathlib.PurePath) else [plain(v) for v in value] if isinstance(value, list) else value

    return {key: plain(value) for key, value in vars(options).items()}


def warn_renamed(parser, old, new):
    """One warning line on stderr for an option spelled the old way: ``loopsmith compose: warning: --range K FIRST LAST is
    now --clip-range K FIRST LAST``."""
    say(f"{parser.prog}: warning: {old} is now {new}", sys.stderr)


class Renamed(argparse.Action):
    """An option's old spelling, kept for one release: hidden from ``--help``, it stores what the new spelling would (into
    the new one's ``dest``) and warns once per use.

    now: the new spelling as the warning shows it (``--clip-range K FIRST LAST``);
    values: for an option of choices, ``{old value: new value}``, and the
    warning names both values (``--shorter LOOP is now --lasts LONGER``);
    append: the new spelling is an ``append`` option (given once per item).
    """

    def __init__(self, option_strings, dest, now, values=None, append=False, **kwargs):
        kwargs.setdefault("help", argparse.SUPPRESS)
        if values:
            kwargs.setdefault("choices", tuple(values))
        super().__init__(option_strings, dest, **kwargs)
        self.now, self.values, self.append = now, values, append

    def __call__(self, parser, namespace, values, option_string=None):
        if self.values:
            warn_renamed(parser, f"{option_string} {values}", f"{self.now} {self.values[values]}")
            values = self.values[values]
        else:
            metavar = self.metavar if isinstance(self.metavar, tuple) else (self.metavar,) if self.metavar else ()
            warn_renamed(parser, " ".join((option_string, *metavar)), self.now)
        if self.append:
            values = [*(getattr(namespace, self.dest, None) or []), values]
        setattr(namespace, self.dest, values)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's range (of a :func:`number` type) and default in ``--help`` (unless its text gives it, or there is
    nothing to show: an empty list or name), and epilogs kept as written."""

    def _get_help_string(self, action):
        text = action.help or ""
        allowed = getattr(action.type, "allowed", "")
        if allowed and text != argparse.SUPPRESS:
            text = f"{text} (range: {allowed})"
        if "default" in text or action.nargs == 0 or action.default in (None, argparse.SUPPRESS, "", []):
            return text
        default = " ".join(action.default) if isinstance(action.default, list) else "%(default)s"
        return f"{text} (default: {default})"
