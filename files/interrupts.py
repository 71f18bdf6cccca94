"""Ctrl-C and SIGTERM: stop the whole run within seconds, cleanly.

Blender's operators turn any Python exception raised inside them (an
importer or exporter is Python) into a ``RuntimeError`` carrying its
traceback, so an interrupt cannot simply be an exception: the first signal
is recorded *and* raised as :class:`Interrupted`, and every place that turns
errors into per-file failures calls :func:`check` first, so an interrupt is
never reported as a broken file. A second signal ends the process at once.
"""

import contextlib
import os
import signal

EXIT_CODE = 130  # the shell's code for a run stopped by Ctrl-C
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received = []


class Interrupted(BaseException):
    """The run was stopped by Ctrl-C or SIGTERM (a BaseException: no ``except Exception`` swallows it)."""


def _handle(number, frame):
    if _received:
        os._exit(EXIT_CODE)
    _received.append(number)
    raise Interrupted(signal.Signals(number).name)


def install():
    """Handle Ctrl-C and SIGTERM in this process from now on (a signal the caller set to be ignored stays ignored)."""
    for number in _SIGNALS:
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, _handle)


def interrupted():
    """True once a stop signal has arrived."""
    return bool(_received)


def check():
    """Raise :class:`Interrupted` if a stop signal has arrived (call before reporting an error as the file's)."""
    if _received:
        raise Interrupted(signal.Signals(_received[0]).name)


@contextlib.contextmanager
def deferred():
    """Hold stop signals back while C code initialises (numpy, ``import bpy``): a signal there breaks or crashes it.

    A signal that arrives meanwhile is delivered when the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):  # Windows: nothing to hold back with
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
