"""blend's options (no Blender)."""

from ...options import fraction, Renamed, UsageError

TIMINGS = ("CONTACTS", "FRACTION", "WARP")
#: --lasts: which clip the result lasts as long as, and the core's word for it (what a shorter clip does).
LASTS = {"SHORTER": "CLAMP", "LONGER": "LOOP"}


def add_arguments(parser):
    parser.add_argument("--weight", type=fraction, metavar="FRACTION", help="how much of B: 0 is A, 1 is B (default: 0.5)")
    parser.add_argument("--weight-curve", nargs="+", metavar="T:W",
                        help="B's weight changing over the result instead: W at fraction T (0-1) of it, linear between, e.g. 0:0 1:1")
    parser.add_argument("--timing", choices=TIMINGS, default="CONTACTS",
                        help="CONTACTS puts the same foot down at the same moment in both; FRACTION samples both at the same fraction "
                             "of their length; WARP follows the time warp of their lower bodies")
    parser.add_argument("--lasts", choices=tuple(LASTS), default="SHORTER",
                        help="SHORTER: the result ends when the clip with fewer steps does; LONGER: the shorter clip's steps play again "
                             "until the longer clip ends (CONTACTS and WARP; FRACTION always covers both whole)")
    # The old spelling, for one release: splice's --shorter says what the shorter upper body does, not how long the result is.
    parser.add_argument("--shorter", dest="lasts", action=Renamed, now="--lasts", values={"CLAMP": "SHORTER", "LOOP": "LONGER"})


def check(options):
    """B's weight (one, or a checked curve) and what --lasts asks of the core; UsageError naming the option as typed."""
    if options.lasts == "LONGER" and options.timing == "FRACTION":
        raise UsageError("--lasts LONGER applies to --timing CONTACTS or WARP, not FRACTION (which always covers both clips whole)")
    options.shorter = LASTS[options.lasts]
    if options.weight_curve is None:
        options.weight = 0.5 if options.weight is None else options.weight
        return
    if options.weight is not None:
        raise UsageError("--weight and --weight-curve both set B's weight: give one")
    rows = []
    for text in options.weight_curve:
        try:
            at, weight = (float(part) for part in text.split(":"))
        except ValueError:
            raise UsageError(f"--weight-curve takes T:W pairs such as 0:0 1:1, not '{text}'") from None
        if not (0.0 <= at <= 1.0 and 0.0 <= weight <= 1.0):
            raise UsageError(f"--weight-curve {text}: T (a fraction of the result) and W (B's weight) must each be between 0 and 1")
        rows.append((at, weight))
    if any(b[0] <= a[0] for a, b in zip(rows, rows[1:])):
        raise UsageError("--weight-curve: the fractions T must increase")
    options.weight = rows
