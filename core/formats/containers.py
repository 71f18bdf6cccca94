"""Structure checks of FBX, glTF/GLB and .blend files: truncated or corrupt files are named in milliseconds.

Plain Python (no Blender). Inputs are checked before an importer spends
minutes on a corrupt file; outputs before they replace anything. Each check
returns the problem as a short sentence, or None.
"""

import json
import struct
from typing import Any

_FBX_BINARY_MAGIC = b"Kaydara FBX Binary  \x00"
_FBX_FOOTER_MAGIC = b"\xf8\x5a\x8c\x6a\xde\xf5\xd9\x7e\xec\xe9\x0c\xe3\x75\x8f\x29\x0b"
_FBX_TAKE = b"\x00\x01AnimStack"  # how a binary FBX ends the name of a take (AnimStack)
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_SEEKABLE_MAGIC = 0x8F92EAB1  # closes the seek table Blender appends to a compressed .blend
_ZSTD_SKIPPABLE_MAGIC = 0x184D2A5E


def _fbx_records_problem(data):
    """Why a binary FBX's top-level records run past its end or loop, or None."""
    version = struct.unpack_from("<I", data, 23)[0]
    wide = version >= 7500
    offset, record = 27, 25 if wide else 13
    while offset + record <= len(data):
        end = struct.unpack_from("<Q" if wide else "<I", data, offset)[0]
        if end == 0:
            return None  # the null record that closes the top level
        if end <= offset or end > len(data):
            return "the file is truncated or corrupt (a record runs past its end)"
        offset = end
    return "the file is truncated (no end of records)"


def fbx_problem(data: bytes, written: bool = False) -> str | None:
    """An FBX file's problem: no header, records that run past the end; ``written``: also the footer and one take."""
    if data.lstrip().startswith(b"; FBX"):
        return None if data.count(b"{") == data.count(b"}") else "the file is truncated (its braces do not balance)"
    if not data.startswith(_FBX_BINARY_MAGIC):
        return "not an FBX file (no binary or ASCII FBX header)"
    problem = _fbx_records_problem(data)
    if problem is None and written and not data.endswith(_FBX_FOOTER_MAGIC):
        problem = "the file is truncated (its binary FBX footer is missing)"
    if problem is None and written and data.count(_FBX_TAKE) != 1:
        problem = f"it holds {data.count(_FBX_TAKE)} takes, not one"
    return problem


_FBX_KTIME_PER_SECOND = 46186158000  # FBX 7.x time units


def _fbx_time_property(data, name):
    """Seconds of the last binary FBX property ``name`` of type KTime (``P: name, "KTime", "Time", "", value``), or None."""
    key = b"S" + struct.pack("<I", len(name)) + name
    at = data.rfind(key)  # the take's own value comes after the templates' defaults
    if at < 0:
        return None
    at += len(key)
    for _ in range(3):  # the type, label and flags strings
        if data[at:at + 1] != b"S":
            return None
        at += 5 + struct.unpack_from("<I", data, at + 1)[0]
    if data[at:at + 1] != b"L":
        return None
    return struct.unpack_from("<q", data, at + 1)[0] / _FBX_KTIME_PER_SECOND


def fbx_take_span(data: bytes) -> tuple[float, float] | None:
    """A binary FBX take's start and stop, seconds (``LocalStart``, ``LocalStop``), or None if it cannot be read."""
    start, stop = _fbx_time_property(data, b"LocalStart"), _fbx_time_property(data, b"LocalStop")
    return None if start is None or stop is None else (start, stop)


def glb_document(data: bytes) -> tuple[str | None, Any]:
    """``(problem, document)``: a GLB's header, length, JSON and binary chunk checked; the parsed JSON when they hold."""
    if len(data) < 20 or data[:4] != b"glTF":
        return "not a GLB file (no glTF header)", None
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2:
        return f"glTF version {version} is not supported (2 is)", None
    if length != len(data):
        return f"the file is truncated or padded ({len(data)} bytes, its header says {length})", None
    json_length, chunk_type = struct.unpack_from("<II", data, 12)
    binary = 20 + json_length
    if chunk_type != 0x4E4F534A or binary > len(data):
        return "the glTF JSON chunk is missing or cut", None
    try:
        document = json.loads(data[20:binary])
    except ValueError as error:
        return f"the glTF JSON does not parse: {error}", None
    if binary < len(data):
        chunk_length, kind = struct.unpack_from("<I4s", data, binary) if binary + 8 <= len(data) else (None, None)
        if kind != b"BIN\x00" or binary + 8 + chunk_length != len(data):
            return "the file is corrupt (its binary chunk does not fill it)", None
    return None, document


def key_rate(document: Any) -> float | None:
    """Frames per second of a glTF document's first animation (its longest sampler, evenly keyed), or None.

    glTF stores times, not frames, and Blender's importer turns them into
    frames at the scene's rate: without this a 30 fps loop reads at 24.
    """
    try:
        accessors = document["accessors"]
        times = max((accessors[sampler["input"]] for sampler in document["animations"][0]["samplers"]), key=lambda a: a["count"])
        span = times["max"][0] - times["min"][0]
        if times["count"] < 2 or span <= 0:
            return None
        rate = (times["count"] - 1) / span
        # Single-precision times put the rate within about 1e-7 of itself: a whole rate within 1e-6 is that rate, and 120.005 stays.
        return float(round(rate)) if abs(rate - round(rate)) < 1e-6 * rate else rate

    except (KeyError, IndexError, TypeError, ValueError):
        return None


def gltf_document(data: bytes, suffix: str) -> Any:
    """The JSON of a .glb or .gltf file (after :func:`input_problem` found none)."""
    return glb_document(data)[1] if suffix == ".glb" else json.loads(data)


def gltf_problem(data: bytes) -> str | None:
    try:
        json.loads(data)
    except ValueError as error:
        return f"the glTF JSON does not parse: {error}"
    return None


def blend_problem(data: bytes) -> str | None:
    """Truncation of a .blend: plain files end with an ENDB block, compressed ones with zstd's seek table."""
    if data.startswith(b"BLENDER"):
        # The ENDB block header is a code and zeros: 24 bytes (8-byte pointers, '-'), 20 ('_'), 32 in the 5.0 format.
        size = {b"-": 24, b"_": 20}.get(data[7:8], 32)
        return None if data[-size:] == b"ENDB" + bytes(size - 4) else "the file is truncated (it does not end with an ENDB block)"
    if data.startswith(_GZIP_MAGIC):
        return None  # older Blenders' gzip compression: Blender's own read tells
    if not data.startswith(_ZSTD_MAGIC):
        return "not a .blend file (no BLENDER or zstd header)"
    if len(data) < 17 or struct.unpack_from("<I", data, len(data) - 4)[0] != _ZSTD_SEEKABLE_MAGIC:
        return "the file is truncated (the seek table of its compressed frames is missing)"
    count, descriptor = struct.unpack_from("<IB", data, len(data) - 9)
    entry = 12 if descriptor & 0x80 else 8  # compressed size, decompressed size and maybe a checksum
    table = 8 + count * entry + 9
    if table > len(data) or struct.unpack_from("<II", data, len(data) - table) != (_ZSTD_SKIPPABLE_MAGIC, table - 8):
        return "the file is truncated or corrupt (its seek table does not match)"
    sizes = struct.unpack_from(f"<{count * entry // 4}I", data, len(data) - table + 8)
    if sum(sizes[::entry // 4]) != len(data) - table:
        return "the file is truncated or corrupt (its compressed frames do not add up to its size)"
    return None


def input_problem(data: bytes, suffix: str) -> str | None:
    """Why an FBX, GLB, glTF or .blend input cannot be read, or None (BVH files have their own reader)."""
    if not data:
        return "the file is empty"
    if suffix == ".glb":
        return glb_document(data)[0]
    return {".fbx": fbx_problem, ".gltf": gltf_problem, ".blend": blend_problem}[suffix](data)
