"""Progress of a long read or write, passed on in steps of a few percent."""

_PROGRESS_STEP = 0.05


class Progress:
    """Passes a growing fraction on to ``callback`` (if any) every _PROGRESS_STEP, and once at 1."""

    def __init__(self, callback):
        self.callback, self.reported = callback, 0.0

    def __call__(self, fraction):
        if self.callback is not None and (fraction - self.reported >= _PROGRESS_STEP or fraction == 1.0 > self.reported):
            self.reported = fraction
            self.callback(fraction)
