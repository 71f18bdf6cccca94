"""Writing a :class:`.BvhInfo` as BVH text: the hierarchy exact, the motion to 6 decimals, a piece at a time."""

import os
from collections.abc import Callable, Iterator

import numpy as np

from .layout import BvhInfo
from .progress import Progress


def to_text(info: BvhInfo) -> str:
    """BVH text of ``info``: tab-indented hierarchy, offsets and Frame Time exact, motion to 6 decimals."""
    return "".join(write_chunks(info))


def write_bvh(path: str | os.PathLike, info: BvhInfo, progress: Callable[[float], None] | None = None) -> None:
    """Write :func:`to_text` of ``info`` to ``path`` a piece at a time (see :func:`write_chunks`), flushed to disk: a full
    disk raises OSError here rather than leaving a file that looks whole."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        for piece in write_chunks(info, progress):
            file.write(piece)
        file.flush()
        os.fsync(file.fileno())


_ROWS_PER_CHUNK = 2048


def write_chunks(info: BvhInfo, progress: Callable[[float], None] | None = None) -> Iterator[str]:
    """:func:`to_text` of ``info`` as consecutive strings: the hierarchy, then the motion a couple of thousand rows at a time.

    progress: called with the fraction of the rows written (0 to 1), every 5% or so, on long clips.
    """
    yield _hierarchy_text(info)
    total, report = info.frame_count, Progress(progress)
    for start in range(0, total, _ROWS_PER_CHUNK):
        yield _rows_text(info.motion[start:start + _ROWS_PER_CHUNK])
        report(min(start + _ROWS_PER_CHUNK, total) / total)


def _hierarchy_text(info):
    """The text up to and including the Frame Time line; joints depth first (a stack, so a deep chain needs no recursion)."""
    children = [[] for _ in info.names]
    for joint, parent in enumerate(info.parents):
        if parent >= 0:
            children[parent].append(joint)
    out = ["HIERARCHY"]
    stack = [(int(root), 0, False) for root in reversed(np.flatnonzero(info.parents < 0))]
    while stack:
        joint, depth, closing = stack.pop()
        tab = "\t" * depth
        if closing:
            out.append(tab + "}")
            continue
        out.append(f"{tab}{'JOINT' if depth else 'ROOT'} {info.names[joint]}")
        out.append(tab + "{")
        out.append(f"{tab}\tOFFSET {_numbers(info.offsets[joint])}")
        out.append(f"{tab}\tCHANNELS {len(info.channels[joint])} {' '.join(info.channels[joint])}".rstrip())
        if joint in info.end_sites:
            out.extend([f"{tab}\tEnd Site", f"{tab}\t{{", f"{tab}\t\tOFFSET {_numbers(info.end_sites[joint])}", f"{tab}\t}}"])
        stack.append((joint, depth, True))
        stack.extend((child, depth + 1, False) for child in reversed(children[joint]))
    out += ["MOTION", f"Frames: {info.frame_count}", f"Frame Time: {info.frame_time!r}", ""]
    return "\n".join(out)


def _numbers(values):
    return " ".join(repr(float(v)) for v in values)  # shortest text that reads back exactly


_TENS = 10.0 ** np.arange(1, 10)  # a whole part below _EXACT_LIMIT has at most 9 digits
_TRIPLES = np.array([list(b"%03d" % number) for number in range(1000)], dtype=np.uint8)  # "000" to "999"
_EXACT_LIMIT = 1e9  # beyond this the millionths pass 2**53, where floats stop being exact: Python formats the rows


def _rows_text(motion):
    """Motion rows ``(F, C)`` as text, 6 decimals (byte for byte ``'%.6f'``), values joined by spaces, one line per frame.

    The digits are made by numpy from each value's whole count of millionths;
    ``'%.6f'`` rounds the exact binary value, so the few values whose
    millionths lie within rounding of a half are counted by Python.
    """
    if motion.size == 0:
        return ""
    values = np.ascontiguousarray(motion, dtype=float).ravel()
    if np.abs(values).max() >= _EXACT_LIMIT:
        row = " ".join(["%.6f"] * motion.shape[1]) + "\n"
        return (row * len(motion)) % tuple(values)
    scaled = np.abs(values) * 1e6
    # Whole numbers below 2**53 held as floats: their division and floor are exact, and much faster than int64's.
    micro = np.rint(scaled)
    doubtful = np.flatnonzero(np.abs(np.abs(scaled - np.floor(scaled)) - 0.5) <= 1e-15 * scaled + 1e-9)
    micro[doubtful] = [int(("%.6f" % abs(value)).replace(".", "")) for value in values[doubtful]]
    negative = np.signbit(values)
    whole = np.floor(micro / 1e6)
    fraction = micro - 1e6 * whole
    digits = np.searchsorted(_TENS, whole, side="right") + 1  # of the whole part, at least one
    groups = -(-int(digits.max()) // 3)
    width = 3 * groups
    # One fixed-width field per value: sign, whole part, '.', two three-digit pieces of decimals, separator.
    # Zero bytes are padding, dropped at the end.
    fields = np.empty((len(values), width + 9), dtype=np.uint8)
    fields[:, 0] = 0
    for group in range(groups):
        piece = np.floor(whole / 1000.0 ** (groups - 1 - group)) % 1000.0
        fields[:, 1 + 3 * group:4 + 3 * group] = _TRIPLES[piece.astype(np.intp)]
    fields[:, 1:width + 1][np.arange(width, 0, -1) > digits[:, None]] = 0
    fields[np.flatnonzero(negative), width - digits[negative]] = ord("-")
    fields[:, width + 1] = ord(".")
    high = np.floor(fraction / 1000.0)
    fields[:, width + 2:width + 5] = _TRIPLES[high.astype(np.intp)]
    fields[:, width + 5:width + 8] = _TRIPLES[(fraction - 1000.0 * high).astype(np.intp)]
    fields[:, -1] = ord(" ")
    fields[motion.shape[1] - 1::motion.shape[1], -1] = ord("\n")
    return fields[fields != 0].tobytes().decode("ascii")
