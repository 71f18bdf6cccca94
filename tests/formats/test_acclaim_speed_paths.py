"""The AMC reader's fast paths: numbers parsed by numpy are float()'s bit for bit, and the numpy path reads what the line
reader reads (or leaves the chunk to it) on every layout it may meet."""

import random

import numpy as np
import pytest

from core.formats import acclaim
from core.formats.acclaim import _text, amc

ASF = """:version 1.10
:name SPEED
:units
  length 1.0
  angle deg
:root
   order TX TY TZ RX RY RZ
   axis XYZ
   position 0 0 0
   orientation 0 0 0
:bonedata
  begin
     id 1
     name thigh
     direction 0 -1 0
     length 5
     axis 0 0 0 XYZ
    dof rx ry rz
  end
  begin
     id 2
     name shin
     direction 0 -1 0
     length 4
     axis 0 0 0 XYZ
    dof rx
  end
  begin
     id 3
     name spine
     direction 0 1 0
     length 3
     axis 0 0 0 XYZ
    dof rz rx
  end
:hierarchy
  begin
    root thigh spine
    thigh shin
  end
"""
OUT_OF_ORDER = ":DEGREES\n1\nspine 5 -7\nroot 1 2 3 10 20 30\nshin 30\n2\nspine 6 -8\nroot 1.5 2 3 11 21 31\nshin 31\n"


def _skeleton():
    return acclaim.parse_asf(ASF)


def _parsed(words):
    """parse_numbers of ``words`` (bytes) written one after another, parted by spaces, tabs and newlines."""
    rng = random.Random(len(words))
    parts, starts, ends, at = [], [], [], 0
    for word in words:
        space = rng.choice([b" ", b"\t", b"\n", b"  "])
        parts += [space, word]
        starts.append(at + len(space))
        at += len(space) + len(word)
        ends.append(at)
    return _text.parse_numbers(_text.padded_codes(b"".join(parts)), np.array(starts), np.array(ends))


def _assert_bitwise(words):
    got = _parsed(words)
    expected = np.array([float(word) for word in words])
    wrong = np.flatnonzero(got.view(np.uint64) != expected.view(np.uint64))
    assert not len(wrong), [(words[i], got[i], expected[i]) for i in wrong[:5]]


def _random_word(rng):
    sign = rng.choice([b"", b"-", b"+", b"", b"-"])
    whole = bytes(rng.choice(b"0123456789") for _ in range(rng.randint(0, 9)))
    fraction = bytes(rng.choice(b"0123456789") for _ in range(rng.randint(0, 10)))
    word = sign + whole + (b"." + fraction if rng.random() < 0.8 else b"")
    if not (whole or fraction):
        word += b"7"
    if rng.random() < 0.4:
        exponent = str(rng.randint(0, 40)).zfill(rng.randint(1, 3)).encode()
        word += rng.choice([b"e", b"E"]) + rng.choice([b"", b"-", b"+"]) + exponent
    return word


def test_random_decimals_are_floats_bit_for_bit():
    rng = random.Random(7)
    words = [word for word in (_random_word(rng) for _ in range(40_000)) if _is_float(word)]
    _assert_bitwise(words)


@pytest.mark.parametrize("style", ["%g", "%.6f", "%.15g", "%r"])
def test_printed_doubles_are_read_back_exactly(style):
    rng = np.random.default_rng(3)
    numbers = rng.normal(size=20_000) * 10.0 ** rng.integers(-30, 30, 20_000)
    words = [(repr(float(x)) if style == "%r" else style % x).encode() for x in numbers]
    _assert_bitwise([word for word in words if len(word) < 40])


def test_edge_words_are_floats_bit_for_bit():
    _assert_bitwise([b"-0", b"0", b"-0.0", b"0.000000", b"-0.000000", b".5", b"5.", b"-.5", b"+5", b"1e5", b"1E-5", b"1_0",
                     b"inf", b"-inf", b"nan", b"1e-300", b"1e308", b"1e400", b"123456789012345678", b"9007199254740993",
                     b"999999999999999", b"9999999999999999", b"0.1", b"-2.4699e-014", b"1.03368e-014", b"4.9e-324",
                     b"000000000000000000001.5", b"1.5e-0000000000003", b"12345.678901234"])


@pytest.mark.parametrize("word", [b"-", b".", b"e5", b"1e", b"1.2.3", b"1-2", b"--1", b"1e5.0", b"1ee5", b"abc", b"+-1",
                                  b"1e+-5", b"5-", b"1e5e5", b".e1", b"-e1", b"1.5\xc3\xa9", b"\xc3\xa91"])
def test_a_word_that_is_no_number_raises(word):
    with pytest.raises(ValueError):
        _parsed([b"1.5", word, b"-2"])


def test_words_at_both_ends_of_the_bytes():
    codes = _text.padded_codes(b"-1.25 7 3.5e-2")
    assert _text.parse_numbers(codes, np.array([0, 6, 8]), np.array([5, 7, 14])).tolist() == [-1.25, 7.0, 0.035]


def _read(text, monkeypatch=None, chunk=None):
    if chunk is not None:
        monkeypatch.setattr(amc, "_CHUNK_BYTES", chunk)
    return acclaim.parse_amc(text, _skeleton())


def _many_frames(count=150):
    return ":DEGREES\n" + "".join(f"{n}\nroot {n}.25 -2e-3 3 10 20 30\nthigh -20 5 {n % 7}.5\nshin 30\nspine 5 -7\n"
                                  for n in range(1, count + 1))


@pytest.mark.parametrize("change", [
    lambda text: text,
    lambda text: text.replace("thigh ", "thigh\t"),  # a tab after a name
    lambda text: text.replace("shin 30", "shin  30"),  # two spaces
    lambda text: text.replace("\nspine", "\n  spine"),  # lines that start with spaces
    lambda text: text.replace("\n7\n", "\n\n7\n\n"),  # blank lines
    lambda text: text.replace("shin 30\n", "shin 30   \n"),  # spaces at the ends of lines
    lambda text: text.rstrip("\n"),  # no newline at the end
    lambda text: text.replace("-2e-3", "-2E-003").replace("10 20", "1_0 20"),  # exponents and an underscore, as float() reads
])
@pytest.mark.parametrize("chunk", [120, 1000, 1 << 20])
def test_the_numpy_path_reads_what_the_line_reader_reads(change, chunk, monkeypatch):
    text = change(_many_frames())
    fast = _read(text, monkeypatch, chunk)
    monkeypatch.setattr(amc._Reader, "_fast", lambda self, chunk: (_ for _ in ()).throw(amc._NotFast()))
    slow = _read(text)
    assert np.array_equal(fast.values.view(np.uint64), slow.values.view(np.uint64)) and np.array_equal(fast.frames, slow.frames)
    assert np.array_equal(fast.given, slow.given)


def test_plain_files_never_need_the_line_reader(monkeypatch):
    monkeypatch.setattr(amc, "_CHUNK_BYTES", 500)
    monkeypatch.setattr(amc._Reader, "_exact", lambda *args: pytest.fail("the line reader was used"))
    motion = _read(_many_frames())
    assert motion.frame_count == 150 and motion.values[0, 1] == -2e-3 and motion.values[149, 0] == 150.25
    motion = _read(OUT_OF_ORDER)  # bones out of the ASF's order, one left out
    assert motion.frame_count == 2 and list(motion.given) == [True, False, True, True] and motion.values[1, 0] == 1.5


def test_a_file_only_the_line_reader_reads_grows_its_array():
    text = _many_frames(2500)
    commented = text.replace("shin 30\n", "shin 30 # the first frame's layout is no pattern\n", 1)
    plain, read = _read(text), _read(commented)
    assert read.frame_count == 2500 and np.array_equal(read.values.view(np.uint64), plain.values.view(np.uint64))


@pytest.mark.parametrize("bad, reason", [
    ("shin 30\n", "shin 3O\n"),
    ("shin 30\n", "shin 1e999\n"),
    ("\n5\n", "\n+5\n"),
    ("\n5\n", "\n5.0\n"),
    ("\n5\n", "\n5e0\n"),
    ("thigh -20 5 5.5\n", "thigh -20 5\n5.5\n"),
    ("shin 30\n", "shin 30 # a comment\n"),
])
def test_what_the_numpy_path_doubts_is_named_by_the_line_reader(bad, reason, monkeypatch):
    text = _many_frames().replace(bad, reason, 1)
    monkeypatch.setattr(amc, "_CHUNK_BYTES", 300)
    try:
        fast = _read(text)
    except acclaim.AcclaimError as error:
        fast = (error.reason, error.line)
    monkeypatch.setattr(amc._Reader, "_fast", lambda self, chunk: (_ for _ in ()).throw(amc._NotFast()))
    try:
        slow = _read(text)
    except acclaim.AcclaimError as error:
        slow = (error.reason, error.line)
    if isinstance(slow, tuple):
        assert fast == slow
    else:
        assert np.array_equal(fast.values.view(np.uint64), slow.values.view(np.uint64))


def test_every_value_of_the_cmu_takes_is_parsed_as_float_does(mocap_dir):
    folder = mocap_dir.parent / "cmu-dance"
    if not folder.is_dir():
        pytest.skip(f"the CMU dance takes are not at {folder}")
    for take in ("05_01", "05_02", "05_03"):
        words = [word for line in (folder / f"{take}.amc").read_bytes().splitlines()[3:] for word in line.split()[1:]]
        _assert_bitwise(words)


def _is_float(word):
    try:
        float(word)
        return True
    except ValueError:
        return False
