"""The BVH reader token by token: the hierarchy and header (for both readers), and motion rows read so that any
problem is named by its line and column. Slow on long motion; :mod:`.read` reads that with numpy where it can."""

import itertools
import re
from collections.abc import Iterable

import numpy as np

from .layout import CHANNEL_NAMES, MAX_NAME_BYTES, BvhError, BvhInfo

_CANONICAL = {name.lower(): name for name in CHANNEL_NAMES}
_FRAMES = re.compile(r"frames:? ?([^\s:]+)", re.IGNORECASE)


def parse_header(lines: Iterable[str]) -> tuple["Skeleton", int, int, float, "Words"]:
    """The skeleton, the ``Frames:`` line and count, the Frame Time, and the :class:`Words` left after them."""
    words = Words(lines)
    skeleton = Skeleton()
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


def checked_info(skeleton: "Skeleton", frames_line: int, count: int, frame_time: float, motion: np.ndarray, rows: int) -> BvhInfo:
    """The BvhInfo, once the motion's ``rows`` (how many the file has) agree with ``Frames:``."""
    if rows != count:
        raise BvhError(f"'Frames: {count}' but the motion has {rows} rows" + (" (is the file cut short?)" if count > rows else ""), frames_line)
    if not count:
        raise BvhError("'Frames: 0': the file has no motion", frames_line)
    return BvhInfo(tuple(skeleton.names), np.array(skeleton.parents, dtype=int), np.array(skeleton.offsets, dtype=float).reshape(-1, 3),
                   tuple(skeleton.channels), skeleton.end_sites, frame_time, motion)


def parse_exact(text: str) -> BvhInfo:
    """:func:`.read.parse_bvh` token by token in Python: slow, but it names the line and column of any problem."""
    # Universal newlines, as Blender's importer reads the file.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    skeleton, frames_line, count, frame_time, words = parse_header(lines)
    motion = motion_rows(lines[words.count:], words.count, skeleton)
    return checked_info(skeleton, frames_line, count, frame_time, motion, len(motion))


class Words:
    """The non-blank lines of a file, split into words, with their line numbers; ``count``: lines taken so far."""

    def __init__(self, lines):
        self.lines, self.count, self.last = iter(lines), 0, 1

    def next(self, at_end: str) -> tuple[int, list[str]]:
        """(line number, words) of the next non-blank line; BvhError ``at_end`` if there is none."""
        for line in self.lines:
            self.count += 1
            tokens = line.split()
            if tokens:
                self.last = self.count
                return self.count, tokens
        raise BvhError(at_end, self.last)

    def expect(self, keyword: str, what: str) -> tuple[int, list[str]]:
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


class Skeleton:
    """The joints read so far, and the joints whose blocks are open."""

    def __init__(self):
        self.names, self.parents, self.offsets, self.channels, self.end_sites = [], [], [], [], {}
        self.lines, self.open = {}, []

    def cut_short(self) -> str:
        if self.open:
            return f"the file ends inside joint '{self.names[self.open[-1]]}': the hierarchy is cut short"
        return "the file ends after its hierarchy: the MOTION section is missing"

    def joint(self, line: int, tokens: list[str], words: Words) -> None:
        keyword = tokens[0].upper()
        if (keyword == "ROOT") != (not self.open):
            raise BvhError("ROOT inside another joint" if self.open else "JOINT outside any ROOT", line)
        if len(tokens) < 2:
            raise BvhError(f"{keyword} without a name", line)
        name = " ".join(tokens[1:])  # a name may hold spaces (3ds Max's "Bip01 L Thigh"); Blender's bones keep them
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

    def end_site(self, line: int, words: Words) -> None:
        if not self.open:
            raise BvhError("End Site outside any joint", line)
        joint = self.open[-1]
        if joint in self.end_sites:
            raise BvhError(f"joint '{self.names[joint]}' has a second End Site: Blender's importer would keep only the last", line)
        what = f"the End Site of '{self.names[joint]}'"
        words.expect("{", f"'{{' opening {what}")
        self.end_sites[joint] = np.array(_offset(words, what))
        words.expect("}", f"'}}' closing {what}")

    def close(self, line: int) -> None:
        if not self.open:
            raise BvhError("'}' closes no joint", line)
        self.open.pop()

    def finish(self, line: int) -> None:
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


def motion_rows(lines: list, start: int, skeleton: "Skeleton", at_end: bool = True) -> np.ndarray:
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
