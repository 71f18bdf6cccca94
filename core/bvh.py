"""BVH files: checked reading, units and up axis, and writing back in the input's layout.

Blender's BVH importer silently "repairs" many broken files (extra values in a
row are ignored, a NaN becomes a NaN key, a missing ``Frame Time`` becomes the
scene's, a duplicate joint is renamed) and stops with a traceback on others.
:func:`read_bvh` checks a file first and names the line of the first problem.

Conventions are those of Blender's importer: a BVH rotation lists its
outermost axis first (``Zrotation Xrotation Yrotation`` is Rz @ Rx @ Ry,
Blender Euler order ``'YXZ'``), and a joint's position channels replace its
OFFSET (they hold the joint's whole local position).

Blender's exporter writes Blender's axes (Z up) with its own layout (6
channels, or 3 on connected bones, in the bone's rotation mode);
:func:`match_layout` turns its file back into the input's axes and layout.
"""

import functools
import itertools
import os
import re
import warnings
from dataclasses import dataclass, replace

import numpy as np

from . import quat, rotation_modes
from .errors import LoopsmithError

#: Blender's axes (Z up, -Y forward) to BVH's (Y up, Z forward): (x, y, z) -> (x, z, -y).
BLENDER_TO_Y_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
#: ``bpy.ops.import_anim.bvh`` axis arguments for a file of each up axis (see :func:`up_axis`).
IMPORT_AXES = {"Y": {"axis_forward": "-Z", "axis_up": "Y"}, "Z": {"axis_forward": "Y", "axis_up": "Z"}}
#: Blender's axes to a file's, for each up axis: the inverse of what the import with IMPORT_AXES does.
BLENDER_TO_FILE = {"Y": BLENDER_TO_Y_UP, "Z": np.eye(3)}

#: ``global_scale`` limits of Blender's BVH importer and exporter (their FloatProperty min and
#: max); Blender clamps a value outside them without a word.
BLENDER_SCALE_LIMITS = (0.0001, 1000000.0)
#: Import scales (metres per file unit) a round trip can use: the import takes the scale and
#: the export its inverse, and both must lie within BLENDER_SCALE_LIMITS.
SCALE_RANGE = (0.0001, 10000.0)

#: Units BVH files come in, metres per unit. CMU's BVH conversions keep the ASF's units,
#: inches / 0.45 (mocap.cs.cmu.edu FAQ), so a 1.7 m person is about 30 units tall.
UNITS = (("metres", 1.0), ("centimetres", 0.01), ("millimetres", 0.001), ("inches", 0.0254), ("CMU units", 0.0254 / 0.45))
HUMAN_HEIGHT = (0.8, 2.3)  # metres: plausible skeleton heights, feet to the highest joint or End Site
TYPICAL_HEIGHT = 1.7  # metres: what a skeleton in no known unit is scaled to

CHANNEL_NAMES = ("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")
_CANONICAL = {name.lower(): name for name in CHANNEL_NAMES}
MAX_NAME_BYTES = 63  # Blender's bone names hold 63 bytes; the importer cuts longer ones
_HEAD_WORDS, _FOOT_WORDS = ("head",), ("foot", "toe", "ankle")
_FRAMES = re.compile(r"frames:? ?([^\s:]+)", re.IGNORECASE)
_SAMPLES = 64  # posed frames that unit and up-axis detection look at
_SNIFF_BYTES = 8192  # a file's first bytes, read to tell binary data from text
_NOT_CONTROL = bytes(set(range(256)) - set(range(32)) | set(b"\t\n\v\f\r"))  # what text holds besides control characters


class BvhError(LoopsmithError):
    """A BVH file Blender would read wrongly or not at all; the message names the line.

    ``line`` and ``column`` (1-based; the column is the value's index in its
    motion row) are None where no single place is to blame.
    """

    def __init__(self, reason, line=None, column=None):
        place = f"line {line}, column {column}: " if column is not None else f"line {line}: " if line is not None else ""
        super().__init__(place + reason)
        self.line, self.column = line, column


class NotBvhError(BvhError):
    """A file that is no text at all (binary data): nothing in it is a line to name, nor anything to show."""

    def __init__(self):
        super().__init__("not a BVH file (binary data)")


@dataclass
class BvhInfo:
    """A BVH file's skeleton and motion, in the file's units and axes.

    names: ``J`` joint names, parents before children (file order).
    parents: ``(J,)`` parent index of each joint, -1 for a root.
    offsets: ``(J, 3)`` OFFSET of each joint from its parent.
    channels: ``J`` tuples of channel names as listed, e.g. ``('Xposition', 'Yposition',
        'Zposition', 'Zrotation', 'Xrotation', 'Yrotation')``, capitalised as here.
    end_sites: joint index -> ``(3,)`` End Site offset, for joints that have one.
    frame_time: seconds per frame.
    motion: ``(F, C)`` the rows, C the total channel count (positions in file units, degrees).
    """

    names: tuple
    parents: np.ndarray
    offsets: np.ndarray
    channels: tuple
    end_sites: dict
    frame_time: float
    motion: np.ndarray

    @property
    def frame_count(self):
        return len(self.motion)

    @functools.cached_property
    def sampled_pose(self):
        """World positions ``(S, J + E, 3)`` (file units) of up to 64 evenly spaced frames: the rest pose may be degenerate."""
        return forward_kinematics(self, np.unique(np.linspace(0, self.frame_count - 1, _SAMPLES).astype(int)))


@dataclass(frozen=True)
class Layout:
    """Where one joint's channels are in a motion row."""

    positions: tuple  # columns of X, Y, Z position, or () without position channels
    rotations: tuple  # columns of X, Y, Z rotation, or ()
    order: str  # Blender Euler order of the rotation ('YXZ' for Zrotation Xrotation Yrotation)


def layouts(channels):
    """Where each joint's channels are in a motion row: one :class:`Layout` per joint of ``channels`` (BvhInfo.channels)."""
    found, column = [], 0
    for names in channels:
        columns = {name: column + i for i, name in enumerate(names)}
        positions = tuple(columns[axis + "position"] for axis in "XYZ") if "Xposition" in columns else ()
        rotations = tuple(columns[axis + "rotation"] for axis in "XYZ") if "Xrotation" in columns else ()
        # BVH lists rotations outermost first (R = R1 R2 R3); Blender names the innermost first.
        order = "".join(name[0] for name in reversed(names) if name.endswith("rotation"))
        found.append(Layout(positions, rotations, order))
        column += len(names)
    return found


# ---------------------------------------------------------------- reading


def read_bvh(path, progress=None):
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
            data = head + file.read()
    except OSError as error:
        raise BvhError(f"cannot be read: {error.strerror or error}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        raise BvhError("the file starts with a UTF-8 byte-order mark, which Blender's BVH importer cannot read "
                       "('This is not a BVH file'): save it without one", 1)
    try:
        return _parse_fast(data, progress)
    except _NotFast:
        return _parse_exact(_text(data))
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


def parse_bvh(text, progress=None):
    """The checked contents of BVH ``text`` (see :func:`read_bvh`)."""
    try:
        return _parse_fast(text.encode("utf-8"), progress)
    except _NotFast:
        return _parse_exact(text)


class _NotFast(Exception):
    """The fast reader met something only the exact reader can judge or name."""


def _parse_header(lines):
    """The skeleton, the ``Frames:`` line and count, the Frame Time, and the :class:`_Words` left after them."""
    words = _Words(lines)
    skeleton = _Skeleton()
    first = words.next("the file is empty")
    if first[1][0].lower() != "hierarchy":
        raise BvhError(f"the file does not start with HIERARCHY (found {first[1][0]!r})", first[0])
    while True:
        line, tokens = words.next(skeleton.cut_short())
        keyword = tokens[0].lower()
        if keyword in ("root", "joint"):
            skeleton.joint(line, tokens, words)
        elif keyword == "end" and [t.lower() for t in tokens] == ["end", "site"]:
            skeleton.end_site(line, words)
        elif tokens == ["}"]:
            skeleton.close(line)
        elif keyword == "motion" and len(tokens) == 1:
            skeleton.finish(line)
            break
        else:
            raise BvhError(f"unexpected {' '.join(tokens)[:40]!r} in the hierarchy", line)
    frames_line, count = _frame_count(words)
    return skeleton, frames_line, count, _frame_time(words), words


def _checked_info(skeleton, frames_line, count, frame_time, motion, rows):
    """The BvhInfo, once the motion's ``rows`` (how many the file has) agree with ``Frames:``."""
    if rows != count:
        raise BvhError(f"'Frames: {count}' but the motion has {rows} rows" + (" (is the file cut short?)" if count > rows else ""), frames_line)
    if not count:
        raise BvhError("'Frames: 0': the file has no motion", frames_line)
    return BvhInfo(tuple(skeleton.names), np.array(skeleton.parents, dtype=int), np.array(skeleton.offsets, dtype=float).reshape(-1, 3),
                   tuple(skeleton.channels), skeleton.end_sites, frame_time, motion)


def _parse_exact(text):
    """:func:`parse_bvh` token by token in Python: slow, but it names the line and column of any problem."""
    # Universal newlines, as Blender's importer reads the file.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    skeleton, frames_line, count, frame_time, words = _parse_header(lines)
    motion = _motion(lines[words.count:], words.count, skeleton)
    return _checked_info(skeleton, frames_line, count, frame_time, motion, len(motion))


_LINE_END = re.compile(rb"\r\n|\r|\n")
_CHUNK_BYTES = 1 << 23  # motion text parsed per pass: the per-chunk work arrays stay a few times 8 MB
_PROGRESS_STEP = 0.05
#: Bytes the fast motion reader takes: digits, signs, '.', exponents, space, tab, newline. Anything
#: else (a letter, a comma, a NUL, a byte that is not ASCII) is for the exact reader to judge.
_FAST_BYTES = np.zeros(256, dtype=bool)
_FAST_BYTES[np.frombuffer(b"0123456789+-.eE \t\n", dtype=np.uint8)] = True


class _Progress:
    """Passes a growing fraction on to ``callback`` (if any) every _PROGRESS_STEP, and once at 1."""

    def __init__(self, callback):
        self.callback, self.reported = callback, 0.0

    def __call__(self, fraction):
        if self.callback is not None and (fraction - self.reported >= _PROGRESS_STEP or fraction == 1.0 > self.reported):
            self.reported = fraction
            self.callback(fraction)


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
    skeleton, frames_line, count, frame_time, words = _parse_header(lines)
    start = lines.end
    if data.find(b"\r", start) >= 0:
        data = data[start:].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        start = 0
    width = sum(map(len, skeleton.channels))
    # A row takes at least 2 * width - 1 bytes: a larger count cannot be filled, so no more is allocated.
    motion = np.empty((min(count, (len(data) - start) // (2 * width - 1) + 1), width))
    rows, first, report = 0, start, _Progress(progress)
    while start < len(data):
        end = len(data) if len(data) - start <= _CHUNK_BYTES else data.rfind(b"\n", start, start + _CHUNK_BYTES) + 1
        if end <= start:  # a line longer than a chunk
            end = len(data)
        try:
            values = _chunk_rows(data[start:end], width)
        except _NotFast:  # only this chunk is read token by token: it names the problem, or accepts what float() reads
            values = _motion(_decoded(data[start:end]).split("\n"), words.count + data.count(b"\n", first, start), skeleton,
                             end == len(data))
        kept = values[:max(0, len(motion) - rows)]
        motion[rows:rows + len(kept)] = kept
        rows += len(values)
        start = end
        report((start - first) / (len(data) - first))
    return _checked_info(skeleton, frames_line, count, frame_time, motion[:rows], rows)


def _chunk_rows(chunk, width):
    """The rows ``(n, width)`` of a chunk of whole motion lines; _NotFast on anything the exact reader must name."""
    codes = np.frombuffer(chunk, dtype=np.uint8)
    if not _FAST_BYTES[codes].all():
        raise _NotFast
    space = codes <= 32  # only space, tab and newline are left
    begins = ~space
    begins[1:] &= space[:-1]
    begins = np.flatnonzero(begins)
    # Values per line: word beginnings between one line's start and the next's (a blank line has none).
    starts = np.concatenate([[0], np.flatnonzero(codes == 10) + 1, [len(codes)]])
    counts = np.diff(np.searchsorted(begins, starts))
    if np.any((counts != 0) & (counts != width)):
        raise _NotFast
    words = len(begins)
    if not words:
        return np.empty((0, width))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # numpy's way of saying a word was no number
            values = np.fromstring(chunk, sep=" ")
    except (DeprecationWarning, ValueError):
        raise _NotFast from None
    if len(values) != words or not np.isfinite(values).all():
        raise _NotFast
    return values.reshape(-1, width)


class _Words:
    """The non-blank lines of a file, split into words, with their line numbers; ``count``: lines taken so far."""

    def __init__(self, lines):
        self.lines, self.count, self.last = iter(lines), 0, 1

    def next(self, at_end):
        """(line number, words) of the next non-blank line; BvhError ``at_end`` if there is none."""
        for line in self.lines:
            self.count += 1
            tokens = line.split()
            if tokens:
                self.last = self.count
                return self.count, tokens
        raise BvhError(at_end, self.last)

    def expect(self, keyword, what):
        line, tokens = self.next(f"the file ends where {what} should be")
        if tokens[0].lower() != keyword.lower():
            raise BvhError(f"expected {what}, found {' '.join(tokens)[:40]!r}", line)
        return line, tokens


def _finite(token, line, what):
    try:
        value = float(token)
    except ValueError:
        raise BvhError(f"{token!r} is not a number ({what})", line) from None
    if not np.isfinite(value):
        raise BvhError(f"{token!r} is not a finite number ({what})", line)
    return value


def _offset(words, what):
    line, tokens = words.expect("OFFSET", f"the OFFSET of {what}")
    if len(tokens) != 4:
        raise BvhError(f"OFFSET of {what} needs 3 numbers, got {len(tokens) - 1}", line)
    return [_finite(token, line, f"OFFSET of {what}") for token in tokens[1:]]


class _Skeleton:
    """The joints read so far, and the joints whose blocks are open."""

    def __init__(self):
        self.names, self.parents, self.offsets, self.channels, self.end_sites = [], [], [], [], {}
        self.lines, self.open = {}, []

    def cut_short(self):
        if self.open:
            return f"the file ends inside joint '{self.names[self.open[-1]]}': the hierarchy is cut short"
        return "the file ends after its hierarchy: the MOTION section is missing"

    def joint(self, line, tokens, words):
        keyword = tokens[0].upper()
        if (keyword == "ROOT") != (not self.open):
            raise BvhError("ROOT inside another joint" if self.open else "JOINT outside any ROOT", line)
        if len(tokens) < 2:
            raise BvhError(f"{keyword} without a name", line)
        name = " ".join(tokens[1:])
        if len(tokens) > 2:
            raise BvhError(f"joint name {name!r} has spaces, which Blender's importer turns into '{'_'.join(tokens[1:])}'", line)
        if name in self.lines:
            raise BvhError(f"joint name '{name}' is used twice (first on line {self.lines[name]}): Blender's importer would rename it '{name}.001'", line)
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise BvhError(f"joint name '{name[:20]}...' is {len(name.encode('utf-8'))} bytes long: Blender's bones keep {MAX_NAME_BYTES}", line)
        brace_line, brace = words.next(f"the file ends after {keyword} {name}")
        if brace != ["{"]:
            raise BvhError(f"expected '{{' after {keyword} {name}, found {' '.join(brace)[:40]!r}", brace_line)
        offset = _offset(words, f"joint '{name}'")
        self.lines[name] = line
        self.names.append(name)
        self.parents.append(self.open[-1] if self.open else -1)
        self.offsets.append(offset)
        self.channels.append(_channels(words, name))
        self.open.append(len(self.names) - 1)

    def end_site(self, line, words):
        if not self.open:
            raise BvhError("End Site outside any joint", line)
        joint = self.open[-1]
        if joint in self.end_sites:
            raise BvhError(f"joint '{self.names[joint]}' has a second End Site: Blender's importer would keep only the last", line)
        what = f"the End Site of '{self.names[joint]}'"
        words.expect("{", f"'{{' opening {what}")
        self.end_sites[joint] = np.array(_offset(words, what))
        words.expect("}", f"'}}' closing {what}")

    def close(self, line):
        if not self.open:
            raise BvhError("'}' closes no joint", line)
        self.open.pop()

    def finish(self, line):
        if self.open:
            raise BvhError(f"MOTION inside joint '{self.names[self.open[-1]]}': the hierarchy is cut short (a '}}' is missing)", line)
        if not self.names:
            raise BvhError("the hierarchy has no joints", line)
        if not any(self.channels):
            raise BvhError("the hierarchy has no channels", line)


def _channels(words, name):
    line, tokens = words.expect("CHANNELS", f"the CHANNELS of joint '{name}'")
    if len(tokens) < 2 or not tokens[1].isdigit() or int(tokens[1]) != len(tokens) - 2:
        raise BvhError(f"CHANNELS of joint '{name}' says {tokens[1] if len(tokens) > 1 else 'nothing'} but names {len(tokens) - 2} channels", line)
    channels = []
    for token in tokens[2:]:
        channel = _CANONICAL.get(token.lower())
        if channel is None:
            raise BvhError(f"unknown channel {token!r} of joint '{name}' (BVH channels are {', '.join(CHANNEL_NAMES)})", line)
        if channel in channels:
            raise BvhError(f"joint '{name}' lists {channel} twice", line)
        channels.append(channel)
    for kind in ("position", "rotation"):
        axes = [channel[0] for channel in channels if channel.endswith(kind)]
        if len(axes) not in (0, 3):
            # Blender's importer would set the missing position axes to 0 (not the OFFSET), and
            # with one or two rotations it reads unrelated values or stops.
            raise BvhError(f"joint '{name}' has {kind} channels for {''.join(axes)} only: Blender's importer needs all three or none", line)
    return tuple(channels)


def _frame_count(words):
    line, tokens = words.next("the file ends after MOTION: 'Frames: <count>' is missing")
    # Blender's importer finds the rows without the count, so 'Frames:24' is harmless too.
    found = _FRAMES.fullmatch(" ".join(tokens))
    if not found:
        raise BvhError(f"expected 'Frames: <count>' after MOTION, found {' '.join(tokens)[:40]!r}", line)
    if not found.group(1).isdigit():
        raise BvhError(f"the frame count {found.group(1)!r} is not a whole number", line)
    return line, int(found.group(1))


def _frame_time(words):
    line, tokens = words.next("the file ends after 'Frames:': 'Frame Time: <seconds>' is missing")
    if len(tokens) != 3 or [t.lower() for t in tokens[:2]] != ["frame", "time:"]:
        raise BvhError(f"expected 'Frame Time: <seconds>', found {' '.join(tokens)[:40]!r}", line)
    frame_time = _finite(tokens[2], line, "Frame Time")
    if frame_time <= 0.0:
        raise BvhError(f"Frame Time {tokens[2]} is not a positive number of seconds", line)
    return frame_time


def _motion(lines, start, skeleton, at_end=True):
    """The rows ``(F, C)`` of motion ``lines``, each checked for C finite numbers; ``start``: how many lines of the file come
    before them (for the line numbers of errors); ``at_end``: they run to the end of the file."""
    rows = [line.split() for line in lines]
    counts = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
    filled = np.flatnonzero(counts)
    width = sum(map(len, skeleton.channels))
    wrong = filled[counts[filled] != width]
    if len(wrong):
        got = counts[wrong[0]]
        raise BvhError(f"expected {width} values (the hierarchy's channels), got {got}" + (" (is the file cut short?)" if at_end and wrong[0] == filled[-1] and got < width else ""),
                       start + wrong[0] + 1)
    tokens = list(itertools.chain.from_iterable(rows))
    try:
        motion = np.array(tokens, dtype=float).reshape(len(filled), width)
        bad = np.flatnonzero(~np.isfinite(motion.ravel()))
    except ValueError:  # a word that is no number: find it (only on this error path)
        bad = [next(i for i, token in enumerate(tokens) if not _is_number(token))]
    if len(bad):
        row, column = divmod(int(bad[0]), width)
        token = tokens[bad[0]]
        ends = np.cumsum([len(names) for names in skeleton.channels])
        joint = int(np.searchsorted(ends, column, side="right"))
        channel = skeleton.channels[joint][column - ends[joint] + len(skeleton.channels[joint])]
        kind = "finite number" if _is_number(token) else "number"
        raise BvhError(f"{token!r} is not a {kind} (joint '{skeleton.names[joint]}', {channel})", start + filled[row] + 1, column + 1)
    return motion


def _is_number(token):
    try:
        float(token)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- writing


def to_text(info):
    """BVH text of ``info``: tab-indented hierarchy, offsets and Frame Time exact, motion to 6 decimals."""
    return "".join(write_chunks(info))


def write_bvh(path, info, progress=None):
    """Write :func:`to_text` of ``info`` to ``path`` a piece at a time (see :func:`write_chunks`), flushed to disk: a full
    disk raises OSError here rather than leaving a file that looks whole."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        for piece in write_chunks(info, progress):
            file.write(piece)
        file.flush()
        os.fsync(file.fileno())


_ROWS_PER_CHUNK = 2048


def write_chunks(info, progress=None):
    """:func:`to_text` of ``info`` as consecutive strings: the hierarchy, then the motion a couple of thousand rows at a time.

    progress: called with the fraction of the rows written (0 to 1), every 5% or so, on long clips.
    """
    yield _hierarchy_text(info)
    total, report = info.frame_count, _Progress(progress)
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


def _local_motion(info, matrix):
    """Per joint name: local position ``(F, 3)`` (file units) and rotation ``(F, 4)`` re-expressed
    through ``matrix``, and how far (file units) the position strays from the OFFSET.

    A joint without position channels sits at its OFFSET; without rotation channels, unrotated.
    """
    turn = quat.from_matrix(matrix)
    frames = info.frame_count
    moved = {}
    for joint, (name, layout) in enumerate(zip(info.names, layouts(info.channels))):
        position = info.motion[:, layout.positions] if layout.positions else np.broadcast_to(info.offsets[joint], (frames, 3))
        rotation = quat.identity((frames,))
        if layout.rotations:
            rotation = rotation_modes.euler_to_quat(np.radians(info.motion[:, layout.rotations]), layout.order)
            rotation = quat.multiply(quat.multiply(turn, rotation), quat.inverse(turn))
        moved[name] = (position @ matrix.T, rotation, np.abs(position - info.offsets[joint]).max())
    return moved


def rows_in_layout(moved, target, reach):
    """Motion rows ``(F, C_target)`` in ``target``'s joints and channels.

    moved: joint name -> (local position ``(F, 3)`` in file units, rotation
    ``(F, 4)`` in file axes, how far the position strays from the OFFSET);
    reach: the source skeleton's largest offset (file units), which sets how
    much stray is rounding. BvhError if a joint without position channels
    moves off its OFFSET or one without rotation channels turns.
    """
    frames = len(next(iter(moved.values()))[0])
    values = np.zeros((frames, sum(map(len, target.channels))))
    # Blender evaluates in single precision: far from the origin its rounding grows with the distance.
    far = max(np.abs(position).max() for position, _, _ in moved.values())
    tolerance = 1e-6 * (reach + 1e-12) + 4e-6 * far
    for name, layout in zip(target.names, layouts(target.channels)):
        if name not in moved:
            raise BvhError(f"the exported file has no joint '{name}'")
        position, rotation, stray = moved[name]
        if layout.positions:
            values[:, layout.positions] = position
        elif stray > tolerance:
            raise BvhError(f"joint '{name}' moves off its OFFSET, but the input has no position channels to keep that")
        if layout.rotations:
            values[:, layout.rotations] = np.degrees(rotation_modes.quat_to_euler(quat.unroll(rotation), layout.order))
        elif np.abs(rotation[:, 0]).min() < 1.0 - 1e-9:
            raise BvhError(f"joint '{name}' turns, but the input has no rotation channels to keep it")
    return values


def change_axes(text, matrix=BLENDER_TO_Y_UP, frame_time=None):
    """The BVH ``text`` with every offset, position and rotation re-expressed through ``matrix`` (3x3, a rotation).

    Each joint keeps its channels; its rotation is conjugated by ``matrix`` and
    written in its own channel order, degrees continuous from frame to frame.
    frame_time: the exact seconds per frame to write (Blender's exporter rounds to 6 decimals).
    """
    info = parse_bvh(text)
    turned = replace(info, offsets=info.offsets @ matrix.T, end_sites={joint: matrix @ offset for joint, offset in info.end_sites.items()},
                     motion=rows_in_layout(_local_motion(info, matrix), info, np.abs(info.offsets).max()), frame_time=info.frame_time if frame_time is None else frame_time)
    return to_text(turned)


def kept_frame_time(info, frame_time):
    """The Frame Time (seconds) an output of input ``info`` written at ``frame_time`` gets: the input's, unless they differ
    beyond the 6 decimals Blender's exporter writes (the output then plays at another rate)."""
    return info.frame_time if abs(frame_time - info.frame_time) <= 5.1e-7 else frame_time


def match_layout(text, info, up="Y", frame_time=None):
    """Blender's exported BVH ``text`` in the axes and layout of the input file ``info``.

    The input's hierarchy (names, offsets, End Sites, channels per joint in
    their order) with the exported motion, taken from Blender's axes back to
    the file's (``up``: its up axis, as given to the import with IMPORT_AXES);
    each joint's positions are its local position (file units), its rotation
    is written in the input's rotation order. Frame Time is the input's
    unless the export's (or ``frame_time``, the exact one, when given)
    differs beyond the 6 decimals Blender's exporter writes.
    """
    exported = parse_bvh(text)
    frame_time = kept_frame_time(info, exported.frame_time if frame_time is None else frame_time)
    return to_text(replace(info, frame_time=frame_time, motion=rows_in_layout(_local_motion(exported, matrix=BLENDER_TO_FILE[up]), info, np.abs(exported.offsets).max())))


# ---------------------------------------------------------------- pose, units and up axis


def forward_kinematics(info, frames=None):
    """World positions ``(S, J + E, 3)`` (file units and axes) of every joint, then every End Site.

    ``frames``: frame indices (default all, S = F); End Sites in ``info.end_sites`` order.
    """
    values = info.motion if frames is None else info.motion[frames]
    count = len(values)
    positions = np.empty((count, len(info.names), 3))
    rotations = np.empty((count, len(info.names), 4))
    for joint, layout in enumerate(layouts(info.channels)):
        local = values[:, layout.positions] if layout.positions else np.broadcast_to(info.offsets[joint], (count, 3))
        turn = rotation_modes.euler_to_quat(np.radians(values[:, layout.rotations]), layout.order) if layout.rotations else quat.identity((count,))
        parent = info.parents[joint]
        if parent < 0:
            positions[:, joint], rotations[:, joint] = local, turn
        else:
            positions[:, joint] = positions[:, parent] + quat.rotate(rotations[:, parent], local)
            rotations[:, joint] = quat.multiply(rotations[:, parent], turn)
    ends = [positions[:, joint] + quat.rotate(rotations[:, joint], offset) for joint, offset in info.end_sites.items()]
    return np.concatenate([positions, np.stack(ends, axis=1)], axis=1) if ends else positions


def _named(info, words):
    return [joint for joint, name in enumerate(info.names) if any(word in name.lower() for word in words)]


def up_axis(info):
    """``'Y'`` or ``'Z'``: the file axis the posed skeleton stands along (head above feet).

    Joints named like a head and feet decide; without them, the axis of the
    skeleton's largest extent, pointing to the side most joints are on (arms,
    spine and head outnumber legs). BvhError when the answer is unclear, or
    the skeleton stands along X or upside down.
    """
    points = info.sampled_pose
    heads, feet = _named(info, _HEAD_WORDS), _named(info, _FOOT_WORDS)
    if heads and feet:
        rise = np.median(points[:, heads].mean(axis=1) - points[:, feet].mean(axis=1), axis=0)
        what = "the head above the feet"
    else:
        low, high = points.min(axis=1), points.max(axis=1)
        side = np.sign(np.median(points.mean(axis=1) - 0.5 * (low + high), axis=0))
        rise = side * np.median(high - low, axis=0)
        what = "the skeleton's extent"
    axis = int(np.argmax(np.abs(rise)))
    others = np.delete(np.abs(rise), axis)
    shown = ", ".join(f"{v:.3g}" for v in rise)
    if abs(rise[axis]) < 2.0 * others.max():
        raise BvhError(f"no clear up axis: {what} spans ({shown}) along X, Y, Z")
    if axis == 0 or rise[axis] < 0.0:
        sign = "-" if rise[axis] < 0.0 else ""
        raise BvhError(f"the skeleton stands along {sign}{'XYZ'[axis]} ({what}: {shown}); only Y-up and Z-up files are read")
    return "XYZ"[axis]


def standing_height(info, up=None):
    """The skeleton's height in file units: the 90th percentile over posed frames of its extent along ``up``.

    Joints and End Sites count, so it runs from the feet to the highest of
    them (the head's End Site when standing); ``up`` defaults to :func:`up_axis`.
    """
    along = info.sampled_pose[..., "XYZ".index(up or up_axis(info))]
    return float(np.percentile(along.max(axis=1) - along.min(axis=1), 90))


def suggest_scale(info, up=None):
    """``(scale, reason)``: metres per file unit for Blender's ``global_scale``, and why.

    The unit of UNITS that makes the skeleton's :func:`standing_height` a
    human height (HUMAN_HEIGHT; the one nearest TYPICAL_HEIGHT if several);
    otherwise the scale that makes it TYPICAL_HEIGHT. BvhError if that is
    outside SCALE_RANGE. ``up`` defaults to :func:`up_axis`.
    """
    height = standing_height(info, up)
    fits = [(abs(np.log(height * scale / TYPICAL_HEIGHT)), name, scale) for name, scale in UNITS
            if HUMAN_HEIGHT[0] <= height * scale <= HUMAN_HEIGHT[1]]
    if fits:
        _, name, scale = min(fits)
        return scale, f"the skeleton stands {height:.4g} units tall: {name} ({height * scale:.2f} m)"
    scale = TYPICAL_HEIGHT / height if height > 0.0 else np.inf
    if not SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]:
        raise BvhError(f"the skeleton stands {height:.4g} units tall, too far from a human height to scale within Blender's range")
    return float(scale), (f"the skeleton stands {height:.4g} units tall, which no usual unit (metres, centimetres, "
                          f"millimetres, inches, CMU units) makes a human height: scaled to {TYPICAL_HEIGHT} m")
