"""Reading an Acclaim file's bytes: binary data and text that is no UTF-8 are named with their line before any parsing;
numbers parsed in bulk by numpy, bit for bit as float() reads them (:func:`parse_numbers`)."""

import os

import numpy as np

from ...errors import AcclaimError

_SNIFF_BYTES = 8192  # a file's first bytes, read to tell binary data from text
_NOT_CONTROL = bytes(set(range(256)) - set(range(32)) | set(b"\t\n\v\f\r"))  # what text holds besides control characters


def read_bytes(path: str | os.PathLike, kind: str) -> bytes:
    """The bytes of the file at ``path``, newlines made ``\\n`` and a UTF-8 byte-order mark dropped.

    kind: ``'ASF'`` or ``'AMC'``, for the messages. AcclaimError if the file
    cannot be read or its first bytes are binary data (NUL bytes, or more
    than one control character in a hundred).
    """
    try:
        with open(path, "rb") as file:
            head = file.read(_SNIFF_BYTES)  # a binary file is refused before the rest of it is read
            _check_text(head, path, kind)
            file.seek(0)
            data = file.read()  # whole, not head + rest: that would hold the file twice for a moment
    except OSError as error:
        raise AcclaimError(f"cannot be read: {error.strerror or error}", path) from None
    return normalized(data)


def normalized(data: bytes) -> bytes:
    """``data`` without a UTF-8 byte-order mark, its ``\\r\\n`` and ``\\r`` newlines made ``\\n``."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _check_text(head, path, kind):
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise AcclaimError(f"the file is UTF-16 text: save the {kind} as UTF-8 or ASCII", path, 1)
    controls = head.translate(None, _NOT_CONTROL)
    if b"\0" in head or len(controls) > len(head) // 100:
        first = min(head.find(byte) for byte in set(controls)) if controls else head.find(b"\0")
        raise AcclaimError(f"binary data (byte 0x{head[first]:02x}), not an {kind} file", path, head.count(b"\n", 0, first) + 1)


def decoded(data: bytes, path: object) -> str:
    """``data`` as text; AcclaimError naming the line of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise AcclaimError(f"byte 0x{data[error.start]:02x} is not UTF-8 text", path, line) from None


def plural(count: int, word: str) -> str:
    """``'1 value'``, ``'3 values'``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


# Numbers parsed by numpy, exactly as float() reads them. A word ``[sign]digits[.digits][e[sign]digits]`` of at most 15
# bytes has digits that make an integer S below 10**15 < 2**53 and a value S * 10**p; for |p| <= 22 both S and 10**|p|
# are exact doubles, so the one product or quotient is correctly rounded: the very double float() gives (Clinger's fast
# path). Anything else (longer words, far exponents, '_', 'inf', a name) goes to float() itself.
#
# Each word is read as its last 15 bytes and the byte after it: a window of 16 columns in two little-endian uint64 lanes
# (columns 0-7 and 8-15, the word ending at column 14), tested eight bytes at a time, flags in each byte's high bit.
# The digits after an 'e' are zeroed, and the first of the point, the 'e' and column 15 (the space after the word) is
# taken out: the bytes before it move one column right. The 16 columns then read as S, the mantissa's digits followed
# by zeros; the distance of the column taken out from column 15 is the power of ten that S is divided by.
_WIDTH = 16  # columns in a window: a word of more than 15 bytes goes to float()
_PADDING = np.full(_WIDTH, 32, dtype=np.uint8)
_POWERS = 10.0 ** np.arange(23)  # exact doubles
_BATCH = 1 << 13  # words per pass: the work arrays (64 KB) stay in the cache, and below malloc's mmap threshold


def _repeated(byte):
    return np.uint64(int.from_bytes(bytes([byte]) * 8, "little"))


def _lane_tables():
    """``(2, 17)`` uint64 per lane and word length (16: longer): the high bits of the word's bytes, and of its first byte.

    A longer word's mask takes in all 16 columns, column 15 too (the space after the word, which no number holds).
    """
    inside, first = np.zeros((_WIDTH + 1, _WIDTH), np.uint8), np.zeros((_WIDTH + 1, _WIDTH), np.uint8)
    for length in range(1, _WIDTH):
        inside[length, _WIDTH - 1 - length:_WIDTH - 1] = 0x80
        first[length, _WIDTH - 1 - length] = 0x80
    inside[_WIDTH] = 0x80
    return np.ascontiguousarray(inside.view("<u8").T), np.ascontiguousarray(first.view("<u8").T)


_INSIDE, _FIRST = _lane_tables()
_HIGH, _LOW7, _LOWER = _repeated(0x80), _repeated(0x7F), _repeated(0x20)
_ZEROS, _AT_TEN = _repeated(0x30), _repeated(0x80 - 10)  # a digit's byte xor '0' is its value; + _AT_TEN, below 128
_LAST = np.uint64(0x80 << 56)  # column 15's flag, in the high lane
# Multiplied by a lane holding one byte 1, these put that byte's distance from column 15 in the top byte.
_DISTANCE = [np.uint64(sum((_WIDTH - 1 - 8 * lane - k) << (8 * (7 - k)) for k in range(8))) for lane in (0, 1)]
_ONE, _SEVEN, _EIGHT, _TOP = np.uint64(1), np.uint64(7), np.uint64(8), np.uint64(56)


def padded_codes(data: bytes) -> np.ndarray:
    """``data`` as ``(16 + len + 16,)`` uint8 codes between 16 spaces each side: what :func:`parse_numbers` reads."""
    return np.concatenate([_PADDING, np.frombuffer(data, dtype=np.uint8), _PADDING])


def parse_numbers(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``float()`` of each word ``data[starts[i]:ends[i]]``: ``(m,)`` float64, bit for bit; ValueError if one is no number.

    codes: :func:`padded_codes` of ``data``; starts, ends: ``(m,)`` int64 byte offsets into ``data`` of words (no spaces).
    """
    lanes = np.ndarray((len(codes) - 7,), dtype="<u8", buffer=codes, strides=(1,))  # the 8 bytes from each offset on
    values = np.empty(len(starts))
    for batch in range(0, len(starts), _BATCH):
        part = slice(batch, batch + _BATCH)
        values[part] = _parse_batch(lanes, codes, starts[part], ends[part])
    return values


def _parse_batch(lanes, codes, starts, ends):
    """:func:`parse_numbers` of up to _BATCH words (each of at least one byte)."""
    clipped = np.minimum(ends - starts, _WIDTH)
    first = codes[starts + _WIDTH]
    negative = first == 45
    signed = negative | (first == 43)
    words = [_Lane(x, inside[clipped], lead[clipped] * signed)
             for x, inside, lead in zip((lanes[ends + 1], lanes[ends + 9]), _INSIDE, _FIRST)]
    before_e = _below_lowest(words[0].e, words[1].e | _LAST)  # the mantissa's columns
    digits = [word.digits & before for word, before in zip(words, before_e)]
    before = _below_lowest(words[0].point | words[0].e, words[1].point | words[1].e | _LAST)
    mantissa = _integer(digits, before).astype(np.float64)
    lowest = (before[0] + _ONE, before[1] + _ONE)  # the first of the point, the 'e' and column 15
    power = _distance(*lowest)
    # One point at most, before any 'e'; a digit before the 'e'.
    done = ((words[0].point & ~lowest[0]) | (words[1].point & ~lowest[1])) == 0
    done &= ((words[0].digit & before_e[0]) | (words[1].digit & before_e[1])) != 0
    plain = done & (words[0].others == words[0].point | words[0].lead) & (words[1].others == words[1].point | words[1].lead)
    values = mantissa / _POWERS[np.minimum(power, 22)]
    exponents = np.flatnonzero(done & ((words[0].e | words[1].e) != 0))
    if len(exponents):
        _exponents(values, plain, exponents, words, before_e, mantissa, power)
    values.view(np.uint64)[:] |= negative.astype(np.uint64) << np.uint64(63)  # the sign bit: -0.0 as float() gives it
    for index in np.flatnonzero(~plain):  # rare: float() itself, which raises ValueError on a word that is no number
        values[index] = float(codes[starts[index] + _WIDTH:ends[index] + _WIDTH].tobytes())
    return values


class _Lane:
    """One lane of a batch of windows ``(m,)`` uint64: its flags (high bits) and its digits' values (0 elsewhere)."""

    def __init__(self, x, inside, lead):
        value = x ^ _ZEROS
        self.x, self.inside, self.lead = x, inside, lead  # lead: the word's first byte, where it is a sign
        # A byte of 128 or more is no digit; its carry may spoil the flags of the byte after it, all in a word that is no
        # number anyway (that byte is in others, and flagged as nothing else).
        self.digit = ~((value + _AT_TEN) | x) & inside
        self.point = _equal(x, ord(".")) & inside
        self.e = _equal(x | _LOWER, ord("e")) & inside
        self.others = inside ^ self.digit  # what is no digit
        self.digits = value & ((self.digit >> _SEVEN) * np.uint64(0xFF))

    def taken(self, rows):
        """This lane of the words ``rows`` only."""
        lane = _Lane.__new__(_Lane)
        lane.__dict__.update({name: value[rows] for name, value in self.__dict__.items() if name != "inside"})
        return lane


def _exponents(values, plain, rows, words, before_e, mantissa, power):
    """Sets ``values[rows]`` (words with an 'e', ``(k,)``) to mantissa * 10**(exponent - power) where the word is plain."""
    lanes = [word.taken(rows) for word in words]
    before = [b[rows] for b in before_e]
    after = [lane.e << _EIGHT for lane in lanes]  # the column after the 'e': a sign may stand there
    after[1] |= lanes[0].e >> _TOP
    ok = ((lanes[0].e & ~(before[0] + _ONE)) | (lanes[1].e & ~(before[1] + _ONE))) == 0  # one 'e'
    minus = np.zeros(len(rows), dtype=bool)
    for lane, next_to in zip(lanes, after):
        minus_sign = _equal(lane.x, ord("-")) & next_to
        ok &= lane.others == lane.point | lane.lead | lane.e | minus_sign | (_equal(lane.x, ord("+")) & next_to)
        minus |= minus_sign != 0
    ok &= ((lanes[0].digit & ~before[0]) | (lanes[1].digit & ~before[1])) != 0  # a digit after the 'e'
    exponent = (_integer([lane.digits & ~below for lane, below in zip(lanes, before)], None) // np.uint64(10)).astype(np.int64)
    # The mantissa's digits end where the 'e' was (or the column before it, with a point): the zeros after are divided
    # out (exactly: the quotient is an integer below 2**53), so that a small number's power of ten stays in range.
    zeros = _distance(lanes[0].e, lanes[1].e) + (((lanes[0].point | lanes[1].point) != 0))
    power = power[rows] - zeros - np.where(minus, -exponent, exponent)
    ok &= np.abs(power) <= 22
    rows, power, scaled = rows[ok], power[ok], mantissa[rows[ok]] / _POWERS[zeros[ok]]
    values[rows] = np.where(power >= 0, scaled / _POWERS[np.clip(power, 0, 22)], scaled * _POWERS[np.clip(-power, 0, 22)])
    plain[rows] = True


def _equal(x, byte):
    """The high bit of each byte of ``x`` that equals ``byte`` (below 128); bytes of 128 or more never do."""
    y = x ^ _repeated(byte)
    return ~((y + _LOW7) | y) & _HIGH


def _below_lowest(low, high):
    """The bits below the lowest set bit of the 128-bit (high, low), high never 0: (flags - 1) & ~flags, with a borrow."""
    return (low - _ONE) & ~low, (high - (low == 0)) & ~high


def _distance(low, high):
    """The distance from column 15 of the one flagged byte (0 if none): ``(m,)`` int64."""
    return ((((low >> _SEVEN) * _DISTANCE[0]) >> _TOP) + (((high >> _SEVEN) * _DISTANCE[1]) >> _TOP)).astype(np.int64)


def _integer(digits, before):
    """The integer of the digit lanes (one digit a byte), the bytes ``before`` a column (a lane pair, or None) moved one
    column right into it: ``(m,)`` uint64."""
    low, high = digits
    if before is not None:
        low, high = (((low & before[0]) << _EIGHT) | (low & ~before[0]),
                     ((high & before[1]) << _EIGHT) | ((low & before[0]) >> _TOP) | (high & ~before[1]))
    return _eight_digits(low) * np.uint64(100_000_000) + _eight_digits(high)


def _eight_digits(x):
    """The 8-digit integers of lanes holding one digit a byte, the first in the lowest byte (SWAR: pairs, fours, eight)."""
    x = (x * np.uint64(1 + (10 << 8))) >> _EIGHT
    x = ((x & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(1 + (100 << 16))) >> np.uint64(16)
    return ((x & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(1 + (10000 << 32))) >> np.uint64(32)
