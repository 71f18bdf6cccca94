"""Acclaim motion files (AMC): the checked reader, numpy first.

An AMC holds a header (``:FULLY-SPECIFIED``, ``:DEGREES`` or ``:RADIANS``,
comments) then frames: a frame number on its own line, then one line per
bone, its name and its dof values in the ASF's order. A bone may be left out
of a frame or of the whole file (its values are then zero; a root translation
left out is the ASF's root position).

The frames are read a megabyte at a time, into one array sized from the
file's lines. Where every frame lists the same bones on the same lines as the
first, numpy reads the whole piece at once: the words are found on the bytes,
the names compared eight bytes at a time, and the numbers parsed in bulk
(``_text.parse_numbers``, exactly as float() reads them). Anything else
(comments, bones left out, a problem) is read line by line, which names the
line.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...errors import AcclaimError
from ._text import decoded, normalized, padded_codes, parse_numbers, plural, read_bytes
from .asf import ROTATIONS, AsfSkeleton

_CHUNK_BYTES = 1 << 20  # frames parsed per pass: the work arrays stay a few MB, mostly in the cache
_FAST_CHARS = b"0123456789+-.eE \t\n_abcdfghijklmnopqrstuvwxyzABCDFGHIJKLMNOPQRSTUVWXYZ"  # what the numpy path reads
_FRAME_NUMBER = re.compile(r"[0-9]+")
_FAR_BEYOND = 2.0 * np.pi  # radians past a limit that no capture reaches: the values are degrees


@dataclass
class AmcMotion:
    """An AMC's frames in its skeleton's channel layout.

    frames: ``(F,)`` the frame numbers, consecutive integers.
    values: ``(F, C)`` every bone's dof values, columns ``skeleton.columns[b]`` onwards in the order of
        ``skeleton.dofs[b]``: rotations in radians, translations in file units.
    given: ``(B,)`` which bones the file gives values for in some frame.
    degrees: whether the file's angles were degrees. fully_specified: whether it said ``:FULLY-SPECIFIED``.
    """

    frames: np.ndarray
    values: np.ndarray
    given: np.ndarray
    degrees: bool = True
    fully_specified: bool = True

    @property
    def frame_count(self) -> int:
        return len(self.frames)


def read_amc(path: str | os.PathLike, skeleton: AsfSkeleton, progress: Callable[[float], None] | None = None) -> AmcMotion:
    """The checked motion of the AMC file at ``path`` for ``skeleton``; AcclaimError names the file, line and reason.

    progress: called with the fraction of the file read (0 to 1), every 5% or so.
    """
    return _Reader(read_bytes(path, "AMC"), skeleton, path, progress).read()


def skeleton_named(path: str | os.PathLike) -> str | None:
    """The skeleton the AMC at ``path`` names in its first line, as written there (``#!OML:ASF 05.asf`` as Loopsmith writes
    it, CMU's ``F:\\VICON\\USERDATA\\INSTALL\\rory3\\rory3.ASF`` on the capture machine), or None when it names none or
    cannot be read."""
    try:
        with open(path, "rb") as stream:
            first = stream.read(4096).split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    except OSError:
        return None
    tag, _, named = first.partition(" ")
    return named.strip() if tag.upper() == "#!OML:ASF" and named.strip() else None


def parse_amc(text: str | bytes, skeleton: AsfSkeleton, path: object = None) -> AmcMotion:
    """The checked motion of AMC ``text`` for ``skeleton`` (see :func:`read_amc`)."""
    return _Reader(normalized(text.encode("utf-8") if isinstance(text, str) else text), skeleton, path, None).read()


class _NotFast(Exception):
    """The numpy path met something only the line-by-line reader can judge or name."""


@dataclass
class _Pattern:
    """The tokens of one frame as the first frame lays them out, for the numpy path."""

    is_name: np.ndarray  # (T,) which tokens are bone names
    breaks: np.ndarray  # (T,) which tokens start a line
    lengths: np.ndarray  # (N,) each name's length in bytes
    names: tuple  # (K, N) uint64 lanes of the names' bytes, eight at a time (little-endian), and (K, N) masks of theirs
    lines: tuple  # the same for each bone line's start as it most often is: a newline, the name, a space
    columns: np.ndarray | slice  # (W,) the channel column of each value; a slice where they are all, in order
    name_index: np.ndarray  # (N,) the positions of the names among a frame's tokens
    value_index: np.ndarray  # (1 + W,) those of the frame number and the values


class _Reader:
    """One AMC read: the header, then the frames a chunk at a time."""

    def __init__(self, data, skeleton, path, progress):
        self.data, self.skeleton, self.path, self.progress = data, skeleton, path, progress
        self.bones = {name: b for b, name in enumerate(skeleton.names)}
        self.columns = skeleton.columns
        self.defaults = np.zeros(self.columns[-1])
        root_dofs = skeleton.dofs[0]
        for axis, dof in enumerate(("tx", "ty", "tz")):
            if dof in root_dofs:  # a root translation the file leaves out is the rest position
                self.defaults[self.columns[0] + root_dofs.index(dof)] = skeleton.position[axis]
        self.next_frame, self.layout, self.given = None, None, np.zeros(len(skeleton.names), dtype=bool)

    def fail(self, reason, line=None):
        raise AcclaimError(reason, self.path, line)

    def read(self):
        start, line = self._header()
        self.pattern = self._first_frame(start, line)
        # One array for all frames, sized from the lines left (a frame takes one per bone and its number); grown if short.
        # Without the first frame's layout (a file only the line reader reads) it starts small and doubles.
        rows = _newlines(self.data, start) // (len(self.layout) + 1) + 1 if self.layout else 1024
        values = np.empty((rows, len(self.defaults)))
        rows, numbers, reported, counted = 0, [], 0.0, start  # counted: the offset whose line is ``line``
        while start < len(self.data):
            end = self._chunk_end(start)
            chunk = self.data[start:end]
            try:
                frames, chunk_values = self._fast(chunk)
            except _NotFast:
                line, counted = line + self.data.count(b"\n", counted, start), start
                frames, chunk_values = self._exact(chunk, line, end == len(self.data))
            if rows + len(frames) > len(values):
                values = _grown(values, rows, rows + len(frames))
            values[rows:rows + len(frames)] = chunk_values
            rows += len(frames)
            numbers.append(frames)
            start = end
            if self.progress is not None and (start / len(self.data) - reported >= 0.05 or start == len(self.data)):
                reported = start / len(self.data)
                self.progress(reported)
        if not rows:
            self.fail("the file has no frames")
        values, numbers = values[:rows], np.concatenate(numbers)
        angle_columns = np.concatenate([np.arange(self.columns[b], self.columns[b + 1])[[d in ROTATIONS for d in dofs]]
                                        for b, dofs in enumerate(self.skeleton.dofs)]).astype(int)
        if self.degrees:
            scale = np.ones(len(self.defaults))
            scale[angle_columns] = np.pi / 180.0
            values *= scale  # in place, row by row: times 1.0 leaves the other columns as they are
        else:
            self._check_radians(values, angle_columns, numbers)
        return AmcMotion(numbers, values, self.given, self.degrees, self.fully_specified)

    def _lines(self, start, first_line):
        """``(line number, byte offset, bytes)`` of each line from byte ``start`` (line ``first_line``) on, one at a time."""
        line = first_line
        while start < len(self.data):
            end = self.data.find(b"\n", start)
            end = len(self.data) if end < 0 else end
            yield line, start, self.data[start:end]
            start, line = end + 1, line + 1

    def _header(self):
        """Reads up to the first frame number: ``(its byte offset, its line)``; sets the angle unit."""
        self.fully_specified, self.declared = False, None
        for line, offset, raw in self._lines(0, 1):
            tokens = decoded(raw, self.path).split("#", 1)[0].split()
            if tokens and _FRAME_NUMBER.fullmatch(tokens[0]) and len(tokens) == 1:
                self.degrees = self.skeleton.angle == "deg" if self.declared is None else self.declared
                self.next_frame = int(tokens[0])
                return offset, line
            if tokens and tokens[0].upper() == ":FULLY-SPECIFIED":
                self.fully_specified = True
            elif tokens and tokens[0].upper() in (":DEGREES", ":RADIANS"):
                self.declared = tokens[0].upper() == ":DEGREES"
            elif tokens and not tokens[0].startswith(":"):
                self.fail(f"'{tokens[0]}' before the first frame number", line)
        self.fail("the file has no frames (no frame number after the header)")

    def _first_frame(self, start, first_line):
        """The numpy path's pattern from the first frame's lines, or None where that frame is not plain (the exact path names why)."""
        names, counts, breaks = [], [], [True]
        for _, _, raw in itertools.islice(self._lines(start, first_line), 1, None):
            tokens = raw.split()
            if len(tokens) == 1 and _FRAME_NUMBER.fullmatch(tokens[0].decode("ascii", "replace")):
                break
            if not tokens:
                continue
            name = tokens[0].decode("utf-8", "replace")
            bone = self.bones.get(name)
            if bone is None or b"#" in raw or name in names or len(tokens) - 1 != len(self.skeleton.dofs[bone]):
                return None
            names.append(name)
            counts.append(len(tokens) - 1)
            breaks += [True] + [False] * (len(tokens) - 1)
        self.layout = names
        if not names:
            return None
        encoded = [name.encode("utf-8") for name in names]
        is_name = np.concatenate([[False]] + [[True] + [False] * count for count in counts])
        columns = np.concatenate([np.arange(self.columns[self.bones[n]], self.columns[self.bones[n] + 1]) for n in names]).astype(int)
        if any(_is_float(e) for e in encoded):  # a name a number could equal: only the line reader tells them apart
            return None
        if np.array_equal(columns, np.arange(len(self.defaults))):
            columns = slice(None)
        return _Pattern(is_name, np.array(breaks), np.array([len(e) for e in encoded]), _lanes_of(encoded),
                        _lanes_of([b"\n" + e + b" " for e in encoded]), columns, np.flatnonzero(is_name),
                        np.flatnonzero(~is_name))

    def _chunk_end(self, start):
        """Where the chunk from ``start`` ends: at the start of a frame-number line some _CHUNK_BYTES on, or the file's end."""
        if len(self.data) - start <= _CHUNK_BYTES or not self.layout:
            return len(self.data)
        key = b"\n" + self.layout[0].encode("utf-8")
        position = self.data.rfind(key, start, start + _CHUNK_BYTES)
        while position > start:
            line_start = self.data.rfind(b"\n", start, position) + 1
            after = position + len(key)
            if line_start > start and self.data[line_start:position].strip().isdigit() and self.data[after:after + 1].isspace():
                return line_start
            position = self.data.rfind(key, start, position)
        return len(self.data)

    def _fast(self, chunk):
        """``(frame numbers (n,), values (n, C))`` of a chunk of whole frames laid out as the first; _NotFast otherwise."""
        pattern = self.pattern
        if pattern is None or chunk.translate(None, _FAST_CHARS):
            raise _NotFast
        codes = padded_codes(chunk)
        starts, ends = _words(codes, len(chunk.rstrip()))
        width = len(pattern.is_name)
        if not len(starts) or len(starts) % width:
            raise _NotFast
        count = len(starts) // width
        starts, ends = starts.reshape(count, width), ends.reshape(count, width)
        names = starts[:, pattern.name_index]
        # Most often every bone line starts with a newline, its name and a space, and the frame numbers are the other lines.
        if not (_same_bytes(codes, names - 1, pattern.lines)
                and _plain_lines(chunk, codes, starts[:, 0], ends[-1, -1], count, pattern)):
            if not np.array_equal(ends[:, pattern.name_index] - names, np.broadcast_to(pattern.lengths, names.shape)):
                raise _NotFast
            if not _same_bytes(codes, names, pattern.names):
                raise _NotFast
            self._check_lines(codes[_PAD:-_PAD], starts.ravel(), count, pattern)
        try:
            numbers = parse_numbers(codes, starts[:, pattern.value_index].ravel(), ends[:, pattern.value_index].ravel())
        except ValueError:  # a word that is no number: the line reader names it
            raise _NotFast from None
        if not np.isfinite(numbers).all():
            raise _NotFast
        numbers = numbers.reshape(count, -1)
        frames = numbers[:, 0].astype(np.int64)
        if not np.array_equal(frames, self.next_frame + np.arange(count)) or not _digits_only(codes, starts[:, 0], ends[:, 0]):
            raise _NotFast
        self.next_frame += count
        values = np.empty((count, len(self.defaults)))
        if not isinstance(pattern.columns, slice):
            values[:] = self.defaults
        values[:, pattern.columns] = numbers[:, 1:]
        self.given[[self.bones[name] for name in self.layout]] = True
        return frames, values

    def _check_lines(self, codes, starts, count, pattern):
        """_NotFast unless the chunk's line breaks fall exactly before the tokens the pattern starts lines with."""
        breaks = np.broadcast_to(pattern.breaks, (count, len(pattern.breaks))).ravel()
        following = np.searchsorted(starts, np.flatnonzero(codes == 10))  # the token after each newline
        following = following[following < len(starts)]
        if not breaks[following].all():
            raise _NotFast
        # Every line-starting token but the chunk's first has a newline before it: as many distinct followers as such tokens.
        distinct = int(np.count_nonzero(np.diff(following))) + 1 if len(following) else 0
        if distinct != count * int(pattern.breaks.sum()) - 1 or (len(following) and following[0] == 0):
            raise _NotFast

    def _exact(self, chunk, first_line, at_end):
        """:meth:`_fast`, line by line: AcclaimError names the first problem's line."""
        text = decoded(chunk, self.path)
        frames, rows, row, seen, last_line, frame_line = [], [], None, set(), first_line, first_line
        for line, raw in enumerate(text.split("\n"), first_line):
            tokens = raw.split("#", 1)[0].split()
            if not tokens:
                continue
            if len(tokens) == 1 and _FRAME_NUMBER.fullmatch(tokens[0]):
                if row is not None:
                    self._check_complete(frames[-1], seen, frame_line, last=False)
                frame_line = line
                number = int(tokens[0])
                if number != self.next_frame:
                    self.fail(f"frame number {number} where frame {self.next_frame} should follow frame {self.next_frame - 1}", line)
                self.next_frame = number + 1
                frames.append(number)
                row, seen = self.defaults.copy(), set()
                rows.append(row)
            else:
                self._bone_line(tokens, row, seen, frames[-1] if frames else None, line, at_end and not text.endswith("\n"))
            last_line = line
        if at_end and row is not None:
            self._check_complete(frames[-1], seen, last_line, last=True)
        return np.array(frames, dtype=np.int64), np.array(rows).reshape(-1, len(self.defaults))

    def _bone_line(self, tokens, row, seen, frame, line, unended):
        """Puts one bone line's values into ``row``; ``unended``: the file ends without a newline (a cut)."""
        name = tokens[0]
        if row is None:
            self.fail(f"'{name}' before the first frame number", line)
        if name.startswith(":"):
            self.fail(f"keyword {name} among the frames", line)
        bone = self.bones.get(name)
        if bone is None:
            where = f" ({os.path.basename(str(self.skeleton.path))})" if self.skeleton.path is not None else ""
            self.fail(f"bone '{name}' is not in the ASF{where}", line)
        dofs = len(self.skeleton.dofs[bone])
        if len(tokens) - 1 != dofs:
            cut = " (the file ends here: it looks truncated)" if unended and line == self._last_line() else ""
            self.fail(f"bone '{name}' has {plural(len(tokens) - 1, 'value')}, the ASF gives it {plural(dofs, 'dof')}{cut}", line)
        if name in seen:
            self.fail(f"bone '{name}' a second time in frame {frame}", line)
        seen.add(name)
        try:
            values = [float(token) for token in tokens[1:]]
        except ValueError:
            bad = next(token for token in tokens[1:] if not _is_float(token))
            self.fail(f"'{bad}' in bone '{name}''s values is not a number", line)
        if not np.all(np.isfinite(values)):
            self.fail(f"bone '{name}' has a value that is not a finite number", line)
        row[self.columns[bone]:self.columns[bone + 1]] = values
        self.given[bone] = True

    def _last_line(self):
        return self.data.rstrip().count(b"\n") + 1

    def _check_complete(self, frame, seen, line, last):
        """AcclaimError if a frame lacks a bone of the first frame: a cut at the file's end (``line``: the last), or a frame a
        :FULLY-SPECIFIED file leaves short (``line``: its frame number's)."""
        missing = [name for name in self.layout or () if name not in seen]
        if not missing:
            return
        if last and (self.fully_specified or not self.data.endswith(b"\n")):
            self.fail(f"frame {frame} ends after {plural(len(seen), 'bone')} of the first frame's {len(self.layout)} "
                      f"(no '{missing[0]}'): the file looks truncated", line)
        if self.fully_specified and not last:
            self.fail(f"frame {frame} has no '{missing[0]}', though the file says :FULLY-SPECIFIED", line)

    def _check_radians(self, values, angle_columns, frames):
        """AcclaimError where angles read as radians go far beyond the ASF's limits (or half a turn where it gives none)."""
        limits = np.concatenate([limit for limit in self.skeleton.limits if len(limit)] or [np.zeros((0, 2))])
        limits = np.where(np.isfinite(limits), limits, np.sign(limits) * np.pi)[angle_columns]
        beyond = np.maximum(limits[:, 0] - values[:, angle_columns], values[:, angle_columns] - limits[:, 1])
        if not beyond.size or beyond.max() <= _FAR_BEYOND:
            return
        frame, index = np.unravel_index(np.argmax(beyond), beyond.shape)
        column = angle_columns[index]
        bone = int(np.searchsorted(self.columns, column, side="right") - 1)
        name, value = self.skeleton.names[bone], values[frame, column]
        low, high = np.degrees(limits[index])
        said = "the file says :RADIANS" if self.declared is False else "the ASF's :units say rad"
        self.fail(f"bone '{name}' turns {value:.4g} rad ({np.degrees(value):.0f} degrees) in frame {frames[frame]}, far beyond its limits "
                  f"({low:g} to {high:g} degrees): {said}, but the angles look like degrees", self._line_of(frames[frame], name))

    def _line_of(self, frame, name):
        """The line of bone ``name`` in frame number ``frame`` (a scan of the text, for a message only)."""
        in_frame = False
        for line, raw in enumerate(self.data.split(b"\n"), 1):
            tokens = raw.split(b"#", 1)[0].split()
            if len(tokens) == 1 and tokens[0].isdigit():
                in_frame = int(tokens[0]) == frame
            elif in_frame and tokens and tokens[0] == name.encode("utf-8"):
                return line
        return None


_PAD = 16  # spaces before and after a chunk's bytes in padded_codes


def _words(codes, length):
    """The words of padded codes ``(16 + n + 16,)`` whose first ``length`` bytes hold them all: their starts and ends
    ``(m,)``, offsets into the chunk's n bytes."""
    space = codes[_PAD - 1:_PAD + length + 1] <= 32  # a space each side: the padding's before, the chunk's or padding's after
    # Most often single spaces and newlines part the words: then the spaces alone tell where they start and end.
    spaces = np.flatnonzero(space)
    starts, ends = spaces[:-1], spaces[1:] - 1
    if (ends > starts).all():
        return starts, ends
    edges = np.flatnonzero(space[1:] != space[:-1])
    return edges[0::2], edges[1::2]


def _lanes_of(words):
    """``(K, N)`` uint64 lanes of the bytes of N words, eight at a time (little-endian, zero after a word), and their masks."""
    longest = -(-max(len(word) for word in words) // 8) * 8
    lanes = np.frombuffer(b"".join(word.ljust(longest, b"\0") for word in words), "<u8").reshape(len(words), -1)
    masks = np.frombuffer(b"".join(b"\xff" * len(word) + b"\0" * (longest - len(word)) for word in words), "<u8")
    return np.ascontiguousarray(lanes.T), np.ascontiguousarray(masks.reshape(len(words), -1).T)


def _same_bytes(codes, starts, expected):
    """Whether the bytes from ``starts`` ``(n, N)`` (offsets into padded ``codes``' chunk) are the N words of ``expected``."""
    lanes = np.ndarray((len(codes) - 7,), dtype="<u8", buffer=codes, strides=(1,))  # the 8 bytes from each offset on
    for k, (words, masks) in enumerate(zip(*expected)):
        if not np.array_equal(lanes[starts + (_PAD + 8 * k)] & masks, np.broadcast_to(words, starts.shape)):
            return False
    return True


def _plain_lines(chunk, codes, frame_starts, last_end, count, pattern):
    """With each bone line a newline, its name and a space: whether each frame number but the first comes right after a
    newline and no other newline sits between words. Then the lines are the pattern's; False leaves it to the general check."""
    if not (codes[frame_starts[1:] + (_PAD - 1)] == 10).all():
        return False
    around = chunk.count(b"\n", 0, int(frame_starts[0])) + chunk.count(b"\n", int(last_end))
    return int(np.count_nonzero(codes == 10)) == count * int(pattern.breaks.sum()) - 1 + around


def _newlines(data, start):
    """The newlines in ``data[start:]``, a megabyte at a time (numpy counts them faster than bytes.count)."""
    codes = np.frombuffer(data, dtype=np.uint8)
    return sum(int(np.count_nonzero(codes[at:at + (1 << 20)] == 10)) for at in range(start, len(codes), 1 << 20))


def _digits_only(codes, starts, ends):
    """Whether the words ``(n,)`` are plain digits, as a frame number must be (not '+5', '5.0' or '5e0')."""
    longest = int((ends - starts).max())
    if longest > 16:  # beyond what the padding after the chunk covers
        return False
    window = codes[starts[:, None] + (_PAD + np.arange(longest))]
    return bool((((window - np.uint8(48)) < 10) | (np.arange(longest) >= (ends - starts)[:, None])).all())


def _grown(values, rows, needed):
    """``values`` ``(R, C)`` with room for ``needed`` rows, its first ``rows`` kept."""
    grown = np.empty((max(needed, 2 * len(values)), values.shape[1]))
    grown[:rows] = values[:rows]
    return grown


def _is_float(token):
    try:
        float(token)
        return True
    except ValueError:
        return False
