"""Outputs that never cost a user a file: unique temporary names, verified, then moved into place.

Plain Python (no Blender): the writers and verifiers are passed in.
"""

import contextlib
import os
import pathlib
import secrets
import tempfile

from ..core.errors import LoopsmithError


class OutputError(LoopsmithError):
    """An output could not be written or did not verify; whatever stood at its path is unchanged."""

    def __init__(self, path, reason):
        super().__init__(f"cannot write {path}: {reason}")
        self.path, self.reason = path, reason


def temporary_path(target):
    """A name beside ``target`` that no other process or run picks: hidden, with pid and random part."""
    target = pathlib.Path(target)
    return target.with_name(f".{target.stem}.{os.getpid()}-{secrets.token_hex(4)}.partial{target.suffix}")


def replace_verified(target, write, verify=None):
    """Write ``target`` through a temporary file: ``write(path)``, then ``verify(path)``, then an atomic move.

    A failure anywhere (an exception, an interrupt, a verification error)
    removes the temporary file and leaves the previous ``target`` as it was.
    """
    target = pathlib.Path(target)
    temporary = temporary_path(target)
    try:
        write(temporary)
        if not temporary.is_file():
            raise OutputError(target, "the writer made no file")
        if verify is not None:
            verify(temporary)
        os.replace(temporary, target)
    except OSError as error:
        raise OutputError(target, error.strerror or str(error)) from None
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()


def write_text(target, text):
    """Replace ``target`` by ``text`` atomically, flushed to disk first (a full disk raises, never leaves a stub)."""

    def write(path):
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())

    replace_verified(target, write)


def require_writable(folder):
    """Create ``folder`` if needed and prove a file can be created in it; OutputError names the folder otherwise."""
    folder = pathlib.Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".loopsmith-write-test-"):
            pass
    except OSError as error:
        raise OutputError(folder, f"the output folder cannot be written ({error.strerror or error})") from None
