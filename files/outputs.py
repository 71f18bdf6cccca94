"""Outputs that never cost a user a file: unique temporary names, verified, then moved into place.

Plain Python (no Blender): the writers and verifiers are passed in.
"""

import contextlib
import os
import pathlib
import secrets
import tempfile

from ..core.errors import LoopsmithError
from . import interrupts


class OutputError(LoopsmithError):
    """An output could not be written or did not verify; whatever stood at its path is unchanged."""

    def __init__(self, path, reason):
        super().__init__(f"cannot write {path}: {reason}")
        self.path, self.reason = path, reason


def refuse_inputs(targets, inputs):
    """OutputError if any of ``targets`` is one of the run's ``inputs`` (real paths, as strings)."""
    for target in targets:
        if os.path.realpath(target) in inputs:
            raise OutputError(target, "it is an input of this run; choose another output folder (-o)")


def temporary_path(target):
    """A name beside ``target`` that no other process or run picks: hidden, with pid and random part."""
    target = pathlib.Path(target)
    return target.with_name(f".{target.stem}.{os.getpid()}-{secrets.token_hex(4)}.partial{target.suffix}")


def replace_all(items):
    """Write a group of files all or none: each ``(target, write, verify)`` through a temporary name, then every move.

    ``write(path)`` makes the file, ``verify(path)`` (or None) checks it. The
    targets are moved into place only when every file of the group is
    written and verified, with stop signals held back meanwhile, so a
    failure anywhere (an exception, an interrupt, a verification error)
    removes the temporary files and leaves every previous target as it was.
    """
    staged, target = [], None
    try:
        for target, write, verify in items:
            target = pathlib.Path(target)
            staged.append((temporary_path(target), target))
            write(staged[-1][0])
            if not staged[-1][0].is_file():
                raise OutputError(target, "the writer made no file")
            if verify is not None:
                verify(staged[-1][0])
        with interrupts.deferred():
            for temporary, target in staged:
                os.replace(temporary, target)
    except OSError as error:
        raise OutputError(target, error.strerror or str(error)) from None
    finally:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                temporary.unlink()


def text_writer(text):
    """A ``write(path)`` for :func:`replace_all` that writes ``text`` flushed to disk (a full disk raises, never leaves a stub)."""

    def write(path):
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())

    return write


def require_writable(folder, what="the output folder"):
    """Create ``folder`` if needed and prove a file can be created in it; OutputError names the folder otherwise."""
    folder = pathlib.Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(folder, f"{what} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".loopsmith-write-test-"):
            pass
    except OSError as error:
        raise OutputError(folder, f"{what} cannot be written ({error.strerror or error})") from None
