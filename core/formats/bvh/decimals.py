"""Plain decimal numbers (``-12.345678``) read from text bytes by numpy, a word at a time but with no Python loop.

Most mocap text is words of an optional sign, digits and one point. Such a
word whose digits make an integer ``m`` below 10**15 with ``k`` of them after
the point is ``m / 10**k``: both exact in double precision, so the one
division is correctly rounded, which is what ``float()`` and numpy's
``fromstring`` give. Each word's last 16 bytes are read as two 64-bit
integers; the point is found and the digits' values summed in all eight
bytes of one at once (the SWAR digit trick: three multiplies per eight
digits). Anything else (an exponent, a second point, a sign inside, a word
too long) is left to the caller: :func:`plain_decimals` returns None.
"""

import numpy as np

_U = np.uint64
_WIDTH = 16  # bytes read per word: two 64-bit integers
_MOST_DIGITS = 15  # m < 10**15 < 2**53: exact in a double
_PLUS_SIX = _U(0x0606060606060606)  # a low nibble of 10 or more then sets bit 4 of its byte
_BIT_FOUR = _U(0x1010101010101010)
_BYTE_SUM = _U(0x0101010101010101)  # a multiply that adds a 64-bit integer's bytes into its top byte
_POINT = 14  # the low nibble of '.'; '+' and '-' have 11 and 13
_DIVISORS = np.concatenate([10.0 ** np.arange(_WIDTH + 1), -(10.0 ** np.arange(_WIDTH + 1))])  # 10**k, then -10**k: the sign
_INT_POWERS = 10 ** np.arange(_WIDTH + 1, dtype=np.uint64)
#: Per length 0..16: the low nibbles of a 16-byte window's last ``length`` bytes, as two uint64 ``(17, 2)``.
_KEEP = np.zeros((_WIDTH + 1, _WIDTH), dtype=np.uint8)
for _length in range(_WIDTH + 1):
    _KEEP[_length, _WIDTH - _length:] = 0x0F
_KEEP = _KEEP.view(np.uint64)


def _lane_values(lanes):
    """The integers the 8 digit values of each uint64 of ``lanes`` spell (first byte most significant)."""
    lanes = (lanes * _U(2561)) >> _U(8)
    lanes = ((lanes & _U(0x00FF00FF00FF00FF)) * _U(6553601)) >> _U(16)
    return ((lanes & _U(0x0000FFFF0000FFFF)) * _U(42949672960001)) >> _U(32)


def _places(marks, points):
    """Digits after the point ``(W,)`` from its mark (bit 0 of its byte) in a word's two uint64 ``(W, 2)``; 0 without one.

    The two as one 128-bit number (first byte lowest) is 2**(8 c) for a point at byte c of 16: as a double, exactly, with
    8 c in its exponent's bits."""
    both = marks[:, 0].astype(float)
    both += marks[:, 1].astype(float) * 2.0 ** 64
    return (_WIDTH - 1 - ((both.view(np.int64) >> 52) - 1023) // 8) * points.astype(np.int64)


def plain_decimals(codes: np.ndarray, begins: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The numbers of the words ``codes[begins[i]:ends[i]]`` ``(W,)``, or None unless every word is a plain decimal.

    codes: text bytes ``(n,)`` uint8 holding no ``e`` or ``E`` (an exponent is
    not read here: its word would pass for digits); begins, ends: each word's
    first byte and the byte after it, in order, words separated by whitespace.
    A plain decimal: an optional ``+`` or ``-``, then digits with at most one
    ``.`` among them (``5.``, ``.5`` count), at least one digit and at most 15.
    """
    if not len(ends):
        return None
    first = codes[begins]
    negative = first == 45
    lengths = ends - begins - (negative | (first == 43))  # the sign left out
    if lengths.max() > _WIDTH:
        return None
    padded = np.empty(len(codes) + _WIDTH, dtype=np.uint8)
    padded[:_WIDTH] = 32
    padded[_WIDTH:] = codes
    windows = np.ndarray((len(codes) + 1,), dtype=f"V{_WIDTH}", buffer=padded, strides=(1,))  # the 16 bytes before each byte
    lanes = windows[ends].view(np.uint64).reshape(len(ends), 2) & np.take(_KEEP, lengths, axis=0)
    marks = ((lanes + _PLUS_SIX) & _BIT_FOUR) >> _U(4)  # 1 in each byte that is no digit: only a point may be
    if np.any((lanes ^ marks * _U(_POINT)) & marks * _U(15)):
        return None  # a sign inside a word
    points = (marks[:, 0] + marks[:, 1]) * _BYTE_SUM >> _U(56)
    digits = lengths - points.astype(np.int64)
    if points.max() > 1 or digits.min() < 1 or digits.max() > _MOST_DIGITS:
        return None
    places = _places(marks, points)
    values = _lane_values(lanes ^ marks * _U(_POINT))  # the point read as a 0 digit
    spelled = values[:, 0] * _U(10 ** 8) + values[:, 1]
    # The point counted as a digit: the digits before it stand one place too high.
    low = spelled % np.take(_INT_POWERS, places + _WIDTH * (points == 0))  # a word without a point: all of it
    mantissa = (spelled - low) // _U(10) + low
    return mantissa.astype(float) / _DIVISORS[places + (_WIDTH + 1) * negative]  # -0.0 for '-0.0', as float() gives
