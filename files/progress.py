"""What a run shows on the terminal: lines that survive a closed pipe, and the progress bar (tasks, and steps inside one).

Plain Python. A long read or write inside a task takes a
``progress(fraction)`` callback from :func:`reporter`; it costs nothing when
no bar listens (a worker process, ``--quiet``).
"""

import os
import sys

_listeners = []


def say(text, stream=None, end="\n"):
    """Print to stdout (or ``stream``); a reader that went away (``| head``) silences it instead of stopping the run."""
    stream = stream or sys.stdout
    try:
        print(text, end=end, file=stream, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def counted(number, noun, plural=None):
    """``'1 file'``, ``'3 files'``."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def reporter(what):
    """A ``progress(fraction)`` callback saying ``what`` is being done (e.g. ``'reading walk.bvh'``), or None when no bar listens."""
    if not _listeners:
        return None
    bar = _listeners[0]
    return lambda fraction: bar.inside(what, fraction)


def _is_terminal(stream):
    """Whether ``stream`` is a terminal (False for none, a file, or a stream that cannot say)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """A one-line progress bar on stderr over the whole run's tasks (``workers``' included: objects with ``files_done()``).

    While it is open it also shows the long steps this process reports
    inside a task (see :func:`reporter`). Where stderr is no terminal (a log file), each update is a line of its own and a
    long step shows every tenth of its way only, so the log stays readable.
    """

    STEPS = 10  # lines a long step shows in a log

    def __init__(self, total, quiet, workers=()):
        self.total, self.quiet, self.workers, self.done, self.last = total, quiet, workers, 0, ("", "")
        self.terminal, self.logged = not quiet and _is_terminal(sys.stderr), None
        if not quiet:
            _listeners[:] = [self]

    def step(self, found, name):
        """A task of this process finished with the entries ``found``; ``name``: its file's."""
        self.done += 1
        self.last = (name, "ok" if all(entry["status"] == "ok" for entry in found) else "FAIL")
        self.show()

    def inside(self, what, fraction):
        """The current task is ``fraction`` (0-1) through ``what``."""
        if not self.terminal:
            step = (what, int(fraction * self.STEPS))
            if step == self.logged:
                return
            self.logged, fraction = step, step[1] / self.STEPS
        self.last = (f"{what} {fraction:4.0%}", "")
        self.show()

    def show(self):
        if self.quiet:
            return
        done = self.done + sum(worker.files_done() for worker in self.workers)
        width, (name, status) = 24, self.last
        filled = int(width * done / max(self.total, 1))
        line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} {name[:40]:40s} {status:5s}"
        say(f"\r{line}", sys.stderr, end="") if self.terminal else say(line.rstrip(), sys.stderr)

    def close(self):
        _listeners.clear()
        if not self.quiet and self.terminal:
            say("", sys.stderr)
