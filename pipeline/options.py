"""Option types that check values where they are parsed, so every message names its option.

argparse reports a type's ``ArgumentTypeError`` as ``argument --ratio: ...``
and exits with 2. Plain Python (no Blender).
"""

import argparse
import math
import pathlib


class UsageError(Exception):
    """Options that do not fit together (exit code 2); the message names them."""


def number(low=None, high=None, low_open=False, integer=False):
    """An argparse type for a finite number within ``[low, high]`` (``low`` excluded when ``low_open``)."""

    def parse(text):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {'a whole number' if integer else 'a number'}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
        if low is not None and (value < low or (low_open and value == low)):
            raise argparse.ArgumentTypeError(f"{text} must be {'above' if low_open else 'at least'} {low:g}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text} must be at most {high:g}")
        return value

    parse.__name__ = "whole number" if integer else "number"
    return parse


seconds = number(0.0, low_open=True)  # a duration in seconds, above zero
fraction = number(0.0, 1.0)
count = number(1, integer=True)


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


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's default in ``--help`` (unless its text gives it), and epilogs kept as written."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.nargs == 0 or action.default in (None, argparse.SUPPRESS):
            return text
        default = " ".join(action.default) if isinstance(action.default, list) else "%(default)s"
        return f"{text} (default: {default})"
