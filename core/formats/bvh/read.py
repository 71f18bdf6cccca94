"""Checked reading of BVH files.

Blender's BVH importer silently "repairs" many broken files (extra values in a
row are ignored, a NaN becomes a NaN key, a missing ``Frame Time`` becomes the
scene's, a duplicate joint is renamed) and stops with a traceback on others.
:func:`read_bvh` checks a file first and names the line of the first problem.
The motion is read by numpy; whatever that fast path doubts goes to the exact
reader of :mod:`.exact`.
"""

import collections
import os
import re
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import decimals
from .exact import checked_info, motion_rows, parse_exact, parse_header
from .layout import BvhError, BvhInfo, NotBvhError
from .progress import Progress

_SNIFF_BYTES = 8192  # a file's first bytes, read to tell binary data from text
_NOT_CONTROL = bytes(set(range(256)) - set(range(32)) | set(b"\t\n\v\f\r"))  # what text holds besides control characters


def read_bvh(path: str | os.PathLike, progress: Callable[[float], None] | None = None) -> BvhInfo:
    """The checked contents of the BVH file at ``path``; BvhError names the first problem.

    progress: called with the fraction of the motion read (0 to 1), every
    5% or so, on long files. The motion is parsed by numpy over chunks of
    whole lines; a file the fast path has any doubt about (a stray
    character, a row of the wrong length, a value that is no finite number)
    is read again token by token, which names the line and column.
    """
    try:
        with open(path, "rb") as file:
            head = file.read(_SNIFF_BYTES)  # a binary file is refused before the rest of it is read
            _check_text(head)
            if file.seekable():  # read again whole: one copy of a long file's text, not its head joined to the rest
                file.seek(0)
                data = file.read()
            else:
                data = head + file.read()
    except OSError as error:
        raise BvhError(f"cannot be read: {error.strerror or error}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        raise BvhError("the file starts with a UTF-8 byte-order mark, which Blender's BVH importer cannot read "
                       "('This is not a BVH file'): save it without one", 1)
    try:
        return _parse_fast(data, progress)
    except _NotFast:
        return parse_exact(_text(data))
    except BvhError:
        _text(data)  # a byte that is not UTF-8 anywhere in the file is named first, as the exact reader does
        raise


def _check_text(head):
    """BvhError unless ``head`` (a file's first bytes) can be text: UTF-16 is named; NUL bytes or many control characters are binary data."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise BvhError("the file is UTF-16 text, which Blender's BVH importer cannot read: save it as UTF-8", 1)
    controls = len(head.translate(None, _NOT_CONTROL))
    if b"\0" in head or controls > len(head) // 100:
        raise NotBvhError()


def _text(data):
    """The file's bytes decoded; BvhError naming the line of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        start, end = data.rfind(b"\n", 0, error.start) + 1, data.find(b"\n", error.start)
        shown = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace").strip()
        raise BvhError(f"byte 0x{data[error.start]:02x} is not UTF-8, which Blender's BVH importer needs ({shown[:60]!r})", line) from None


def parse_bvh(text: str, progress: Callable[[float], None] | None = None) -> BvhInfo:
    """The checked contents of BVH ``text`` (see :func:`read_bvh`)."""
    try:
        return _parse_fast(text.encode("utf-8"), progress)
    except _NotFast:
        return parse_exact(text)


class _NotFast(Exception):
    """The fast reader met something only the exact reader can judge or name."""


_LINE_END = re.compile(rb"\r\n|\r|\n")
_CHUNK_BYTES = 1 << 20  # motion text parsed per pass: the per-chunk work arrays stay a few MB, mostly in the cache
#: Threads parsing chunks (numpy's passes release the GIL: two parse a long file in about 0.6 of one's time) and the
#: chunks parsed ahead of the one being stored, so a long file's parsed rows are never held twice.
_THREADS = min(2, os.cpu_count() or 1)
_AHEAD = 4
#: Bytes the fast motion reader takes: digits, signs, '.', exponents, space, tab, newline. Anything
#: else (a letter, a comma, a NUL, a byte that is not ASCII) is for the exact reader to judge.
_FAST_BYTES = b"0123456789+-.eE \t\n"
_PLAIN_BYTES = _FAST_BYTES.translate(None, b"eE")  # without exponents: what decimals.plain_decimals reads


class _ByteLines:
    """The lines of a file's bytes, decoded one at a time (universal newlines); ``end``: the byte after the last line given."""

    def __init__(self, data):
        self.data, self.end = data, 0

    def __iter__(self):
        for found in _LINE_END.finditer(self.data):
            line, self.end = self.data[self.end:found.start()], found.end()
            yield _decoded(line)
        if self.end < len(self.data):
            line, self.end = self.data[self.end:], len(self.data)
            yield _decoded(line)


def _decoded(line):
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise _NotFast from None  # the exact reader names the byte and its line


def _parse_fast(data, progress):
    """:func:`parse_bvh` of ``data`` (bytes), the motion parsed by numpy; _NotFast when only the exact reader can tell."""
    lines = _ByteLines(data)
    skeleton, frames_line, count, frame_time, words = parse_header(lines)
    start = lines.end
    if data.find(b"\r", start) >= 0:
        data = data[start:].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        start = 0
    width = sum(map(len, skeleton.channels))
    # A row takes at least 2 * width - 1 bytes: a larger count cannot be filled, so no more is allocated.
    motion = np.empty((min(count, (len(data) - start) // (2 * width - 1) + 1), width))
    rows, first, report = 0, start, Progress(progress)
    counted, lines_before = start, words.count  # the file's lines before byte ``counted``, counted only when a chunk needs them
    for start, end, values in _parsed_chunks(data, start, width):
        if values is None:  # only this chunk is read token by token: it names the problem, or accepts what float() reads
            counted, lines_before = start, lines_before + data.count(b"\n", counted, start)
            values = motion_rows(_decoded(data[start:end]).split("\n"), lines_before, skeleton, end == len(data))
        kept = values[:max(0, len(motion) - rows)]
        motion[rows:rows + len(kept)] = kept
        rows += len(values)
        report((end - first) / (len(data) - first))
    return checked_info(skeleton, frames_line, count, frame_time, motion[:rows], rows)


def _chunk_bounds(data, start):
    """``(start, end)`` of each chunk of whole lines from byte ``start`` on, about _CHUNK_BYTES each (a longer line whole)."""
    while start < len(data):
        end = len(data) if len(data) - start <= _CHUNK_BYTES else data.rfind(b"\n", start, start + _CHUNK_BYTES) + 1
        if end <= start:  # a line longer than a chunk
            end = len(data)
        yield start, end
        start = end


def _parsed_chunks(data, start, width):
    """``(start, end, rows)`` of each chunk of motion lines from byte ``start`` on, in order: rows ``(n, width)``, or None where
    only the exact reader can tell. Parsed on _THREADS threads, at most _AHEAD chunks ahead of the one given."""
    pending = collections.deque()
    with ThreadPoolExecutor(_THREADS) as pool:
        for begin, end in _chunk_bounds(data, start):
            pending.append((begin, end, pool.submit(_fast_rows, data, begin, end, width)))
            if len(pending) > _AHEAD:
                begin, end, parsed = pending.popleft()
                yield begin, end, parsed.result()
        while pending:
            begin, end, parsed = pending.popleft()
            yield begin, end, parsed.result()


def _fast_rows(data, start, end, width):
    """:func:`_chunk_rows` of ``data[start:end]``, or None where the fast path has doubts."""
    try:
        return _chunk_rows(data[start:end], width)
    except _NotFast:
        return None


def _chunk_rows(chunk, width):
    """The rows ``(n, width)`` of a chunk of whole motion lines; _NotFast on anything the exact reader must name."""
    others = chunk.translate(None, _PLAIN_BYTES)
    if others.translate(None, b"eE"):
        raise _NotFast
    codes = np.frombuffer(chunk, dtype=np.uint8)
    # Word edges: where a byte's being whitespace (space, tab or newline: all that is left) changes.
    filled = np.zeros(len(codes) + 2, dtype=np.int8)
    filled[1:-1] = codes > 32
    edges = np.flatnonzero(filled[1:] != filled[:-1])
    begins, ends = edges[0::2], edges[1::2]
    # Values per line: word beginnings between one line's start and the next's (a blank line has none).
    starts = np.concatenate([[0], np.flatnonzero(codes == 10) + 1, [len(codes)]])
    counts = np.diff(np.searchsorted(begins, starts))
    if np.any((counts != 0) & (counts != width)):
        raise _NotFast
    if not len(begins):
        return np.empty((0, width))
    values = None if others else decimals.plain_decimals(codes, begins, ends)
    if values is None:  # exponents, long or odd words: numpy's own parser
        values = _parsed(chunk)
    if len(values) != len(begins) or not np.isfinite(values).all():
        raise _NotFast
    return values.reshape(-1, width)


def _parsed(chunk):
    """The numbers of a chunk of motion text by numpy's own parser; _NotFast where a word is no number."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # numpy's way of saying a word was no number
            return np.fromstring(chunk, sep=" ")
    except (DeprecationWarning, ValueError):
        raise _NotFast from None
