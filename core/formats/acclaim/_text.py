"""Reading an Acclaim file's bytes: binary data and text that is no UTF-8 are named with their line before any parsing."""

import os

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
            data = head + file.read()
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
