"""One verdict for every result a command makes: GOOD, CHECK, VISIBLE or FAILED, from one set of thresholds.

A result is judged by measures held against the clips it was made from
(a seam's or junction's visibility, a velocity or root speed jump, the
heading's turn rate, toe skating: each value over the clips' own, so 1 is
as sharp as the motion that went in) and by how far its body leaves the
clips' floor or height (metres). The worst measure decides:

- GOOD: every ratio within :data:`SAME` (the clips' own, give or take what they vary by), on the floor;
- CHECK: a ratio above that but within :data:`SEEN`, or a concern a command names (a cut that barely repeats);
- VISIBLE: a ratio beyond :data:`SEEN`, or the body more than :data:`~.grounding.TOLERANCE` off the floor;
- FAILED: nothing was made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import grounding

GOOD, CHECK, VISIBLE, FAILED = "GOOD", "CHECK", "VISIBLE", "FAILED"
WORDS = (GOOD, CHECK, VISIBLE, FAILED)  # from best to worst
SAME = 1.1  # a ratio up to this is the clips' own: their own measures vary this much from one stretch of motion to the next
SEEN = 1.5  # a ratio beyond this shows at full speed


@dataclass(frozen=True)
class Measure:
    """One number a result is judged by, against the clips' own.

    name: what it measures, in words ("junction visibility"); value: the
    result's; own: the clips' own value of the same measure (1 for a
    measure that is already a ratio to them); unit: the value's unit ("" for
    a ratio, "m/s"); negligible: a value at or below it counts as the clips'
    own whatever their own (toe skating of 1 mm/s against planted clips).
    """

    name: str
    value: float
    own: float = 1.0
    unit: str = ""
    negligible: float = 0.0

    @property
    def ratio(self) -> float:
        """value over the clips' own (0 when negligible)."""
        if self.value <= self.negligible:
            return 0.0
        return self.value / max(self.own, self.negligible, 1e-12)

    @property
    def word(self) -> str:
        return GOOD if self.ratio <= SAME else CHECK if self.ratio <= SEEN else VISIBLE


@dataclass(frozen=True)
class Verdict:
    """The word, the reasons behind a word other than GOOD (one line each) and the measures it was judged by."""

    word: str
    reasons: tuple = ()
    measures: tuple = field(default=())

    def to_json(self) -> dict:
        """The report's ``verdict``: ``{"word", "reasons", "measures": [{"name", "value", "own", "ratio", "unit"}]}``."""
        return {"word": self.word, "reasons": list(self.reasons),
                "measures": [{"name": m.name, "value": round(float(m.value), 4), "own": round(float(m.own), 4),
                              "ratio": round(float(m.ratio), 3), "unit": m.unit} for m in self.measures]}


def _worse(a: str, b: str) -> str:
    return max(a, b, key=WORDS.index)


def _reason(measure: Measure) -> str:
    unit = f" {measure.unit}" if measure.unit else ""
    if measure.unit:
        return f"{measure.name} {measure.value:.3g}{unit}, {measure.ratio:.2f}x the clips' own ({measure.own:.3g}{unit})"
    if measure.own == 1.0:  # already a ratio to the clips' own
        return f"{measure.name} {measure.value:.2f}x the clips' own"
    return f"{measure.name} {measure.value:.2f}, {measure.ratio:.2f}x the clips' own ({measure.own:.2f})"


def judge(measures: list[Measure], floor_offset: float = 0.0, pelvis_offset: float = 0.0, concerns: tuple = ()) -> Verdict:
    """The :class:`Verdict` of a made result: its measures, its body's offsets from the clips' floor and height (metres) and
    the ``concerns`` its command names (each at least CHECK)."""
    word, reasons = GOOD, []
    for measure in measures:
        if measure.word != GOOD:
            word = _worse(word, measure.word)
            reasons.append(_reason(measure))
    if grounding.stands_off(floor_offset, pelvis_offset):
        word = VISIBLE
        reasons.append(f"off the floor: the feet leave the clips' floor by {floor_offset:.2f} m, the pelvis their heights by "
                       f"{pelvis_offset:.2f} m")
    if concerns:
        word = _worse(word, CHECK)
        reasons.extend(concerns)
    return Verdict(word, tuple(reasons), tuple(measures))


def floor_concerns(take_floor: float) -> tuple[str, ...]:
    """What a verdict says of a take whose feet stand more than grounding.TOLERANCE off the floor (``take_floor``: metres,
    :func:`~.grounding.floor_height`); nothing for a take on the floor."""
    if abs(take_floor) <= grounding.TOLERANCE:
        return ()
    where = "above" if take_floor > 0.0 else "under"
    return (f"the take's feet stand {abs(take_floor):.2f} m {where} the floor",)


#: A loop whose joints move at less than this share of its take's speed barely moves (see seam.motion_share).
BARELY_MOVES = 0.25


def motion_concerns(share: float) -> tuple[str, ...]:
    """What a verdict says of a loop that barely moves against its take (``share``: seam.motion_share); nothing otherwise."""
    if share >= BARELY_MOVES:
        return ()
    return (f"the loop barely moves: its joints move at {100.0 * share:.0f}% of the take's speed",)


#: A cut whose motion correlates less than this with itself one loop later does not repeat (Find Loop's floor for FAIR); a
#: repeating motion reaches 0.8 or more.
REPEATS = 0.5


def repeat_concerns(correlation: float | None) -> tuple[str, ...]:
    """What a verdict says of a loop cut where the motion does not repeat (``correlation``: Find Loop's autocorrelation at
    the loop's length, None when the range was given): its ends are moves that differ, however smooth the seam is made."""
    if correlation is None or correlation >= REPEATS:
        return ()
    return (f"the motion does not repeat here: one loop later it correlates {correlation:.2f} with itself (a repeating "
            f"motion {0.8:g} or more), so the loop joins moves that differ",)


def failed(reason: str) -> Verdict:
    """The verdict of a task that made nothing."""
    return Verdict(FAILED, (reason,))


def worst(verdicts: list[Verdict]) -> str:
    """The worst word of several verdicts (GOOD for none)."""
    word = GOOD
    for verdict in verdicts:
        word = _worse(word, verdict.word)
    return word


# Below these a measure counts as the clips' own whatever their own: too small to see.
NEGLIGIBLE_ROOT_SPEED_JUMP = 0.05  # m/s between two frames
NEGLIGIBLE_HEADING_RATE = 0.3  # rad/s (17 degrees a second)
NEGLIGIBLE_SKATING = 0.02  # m/s of a planted toe


def shortened_concerns(seconds: float | None, wanted: float) -> tuple[str, ...]:
    """What a verdict says of a blend shortened to ``seconds`` because the clips leave no room for the ``wanted`` shortest
    length (None: not shortened)."""
    if seconds is None:
        return ()
    return (f"the blend is shortened to {seconds:.3g} s: the clips leave no room after the transition point for {wanted:g} s, "
            "the shortest otherwise tried",)


def of_transition(metrics: dict, concerns: tuple = ()) -> Verdict:
    """The verdict of a transition or a composition's junction, from its metrics by name (the fields of
    :class:`~.transition.TransitionMetrics`: visibility, root speed jump, heading rate and toe skating with the clips' own;
    the floor and pelvis offsets in metres) and the ``concerns`` its maker names."""
    return judge([Measure("junction visibility", metrics["visibility"]),
                  Measure("root speed jump", metrics["root_speed_jump"], metrics["clips_root_speed_jump"], "m/s", NEGLIGIBLE_ROOT_SPEED_JUMP),
                  Measure("heading turn rate", metrics["heading_rate"], metrics["clips_heading_rate"], "rad/s", NEGLIGIBLE_HEADING_RATE),
                  Measure("toe skating", metrics["skating"], metrics["clips_skating"], "m/s", NEGLIGIBLE_SKATING)],
                 metrics.get("floor_offset", 0.0), metrics.get("pelvis_offset", 0.0), concerns)


def of_seam(visibility: float, velocity_jump_ratio: float, floor_offset: float = 0.0, pelvis_offset: float = 0.0,
            concerns: tuple = (), step_ratio: float = 0.0, raw_visibility: float | None = None) -> Verdict:
    """The verdict of a loop's seam: its visibility and velocity jump over the clip's own, the body's offsets (metres), and
    a one-frame pop: ``step_ratio``, a joint's largest move between two frames over its largest in the cut
    (:func:`~.seam.largest_step_ratio`), judged only beyond SEEN, since a joint's largest step varies from one stretch of
    motion to the next more than the measures above do. raw_visibility: the raw cut's seam visibility, when known; a loop
    that shows more than it (and more than the clip's own) is VISIBLE: the loop made the cut worse."""
    pops = [Measure("largest joint step per frame", step_ratio)] if step_ratio > SEEN else []
    judged = judge([Measure("seam visibility", visibility), Measure("seam velocity jump", velocity_jump_ratio), *pops],
                   floor_offset, pelvis_offset, concerns)
    if raw_visibility is None or visibility <= max(raw_visibility, SAME):
        return judged
    worse = f"the loop shows more than the raw cut: seam visibility {visibility:.2f} against the cut's {raw_visibility:.2f}"
    return Verdict(VISIBLE, (*judged.reasons, worse), judged.measures)


def of_composition(junctions: list, seam_visibility: float | None = None, floor_offset: float = 0.0, pelvis_offset: float = 0.0) -> Verdict:
    """The verdict of a composition or synthesis: every junction's measures (``junctions``: their metrics by name, as
    :func:`of_transition` takes them, numbered from 1 in the reasons), a loop's seam visibility, the body's offsets (metres):
    the whole's, or a junction's own where it stands further off (a junction VISIBLE for it leaves the whole no better)."""
    measures = [Measure(f"junction {k}: {measure.name}", measure.value, measure.own, measure.unit, measure.negligible)
                for k, metrics in enumerate(junctions, 1) for measure in of_transition(metrics).measures]
    if seam_visibility is not None:
        measures.append(Measure("loop seam visibility", seam_visibility))
    floor_offset = max([floor_offset, *(metrics.get("floor_offset", 0.0) for metrics in junctions)])
    pelvis_offset = max([pelvis_offset, *(metrics.get("pelvis_offset", 0.0) for metrics in junctions)])
    return judge(measures, floor_offset, pelvis_offset)


DROPPED_TURN_SEEN = 5.0  # degrees: a turn a file format cannot hold, dropped beyond this, shows


def of_dropped_turn(degrees: float, bone: str) -> Verdict:
    """The verdict on what writing a file format dropped: a bone's turn about axes it cannot hold (an AMC bone without
    those dofs), CHECK up to :data:`DROPPED_TURN_SEEN` degrees, VISIBLE beyond."""
    reason = f"the file cannot hold {degrees:.1f} degrees of {bone}'s turn (axes its skeleton gives no dof): dropped"
    return Verdict(CHECK if degrees <= DROPPED_TURN_SEEN else VISIBLE, (reason,))


# a song's periodicity at its tempo, under which its beat is weak or changes: clicks whose beats are lost in noise read
# 0.12-0.15, clicks 20-30 ms off the grid (sd) still found read 0.41-0.64; a click track 0.89-1.00
BEAT_CONFIDENCE_GOOD = 0.3
ON_BEAT_GOOD = 0.8  # the share of a performance's keyposes within a frame of a beat from which its sync to a song is GOOD


def weak_beat(confidence: float | None) -> tuple[str, ...]:
    """The concern of a song whose beat ``confidence`` is under :data:`BEAT_CONFIDENCE_GOOD` (none without it)."""
    if confidence is None or confidence >= BEAT_CONFIDENCE_GOOD:
        return ()
    return (f"beat confidence {confidence:.2f} is below {BEAT_CONFIDENCE_GOOD:g}: a weak or changing beat (listen whether the "
            f"beats found are the ones heard)",)


TEMPO_GOAL = "meet the song's tempo"  # what a clip out of reach needed its speed for, unless it says


def _out_of_reach(parts, drift) -> tuple[str, ...]:
    """The concern of the clips played at the nearest stretch allowed (``parts``: ``{"clip", "needed", "speed", "fit"}`` and
    what the speed was needed for, ``goal``, the song's tempo unless given), with how far the keyposes land off the beats
    (``drift``: median and most, ms) and the ``--max-stretch`` that holds all."""
    if not parts:
        return ()
    low, high = min(part["fit"][0] for part in parts), max(part["fit"][1] for part in parts)
    clips = "; ".join(f"{part['clip']} would need {part['needed']:.2f}x to {part.get('goal', TEMPO_GOAL)}, plays at {part['speed']:.2f}x"
                      for part in parts)
    return (f"{clips} (the nearest the stretch allows): its keyposes land off the beats by {drift[0]:.0f} ms in the median, "
            f"{drift[1]:.0f} ms at most; --max-stretch {low:g} {high:g} would fit it",)


def of_sync(numbers: dict) -> Verdict:
    """The verdict of a performance retimed to a song, from its numbers by name: ``on_beat_after`` (the share of keyposes
    within a frame of a beat: CHECK under :data:`ON_BEAT_GOOD`), the clips out of the stretch's reach (``out_of_reach``,
    with the keyposes' ``drift_ms``: CHECK, naming the ``--max-stretch`` that would fit), the song's beat ``confidence`` when
    given (CHECK under :data:`BEAT_CONFIDENCE_GOOD`), the toe skating per input second after
    (``skating_after_per_input``) against ``skating_before`` (m/s), and when measured the junctions' sharpest frames after
    (``visibility_after``) against before (``visibility_before``); CHECK where the song ends before the performance
    (``after_song_s``, the seconds that play on after it)."""
    on_beat, after = numbers["on_beat_after"], numbers.get("after_song_s", 0.0)
    concerns = () if on_beat >= ON_BEAT_GOOD else (
        f"only {on_beat:.0%} of the keyposes land within a frame of a beat (GOOD from {ON_BEAT_GOOD:.0%})",)
    concerns += _out_of_reach(numbers.get("out_of_reach") or (), numbers.get("drift_ms") or [0.0, 0.0])
    concerns += weak_beat(numbers.get("confidence"))
    if after > 0.0:
        concerns += (f"the song ends {after:.1f} s before the performance: its last {after:.1f} s play on after it, on the song's "
                     "beat continued (a longer song, or less motion)",)
    measures = [Measure("toe skating after the sync", numbers["skating_after_per_input"], numbers["skating_before"], "m/s", NEGLIGIBLE_SKATING)]
    if numbers.get("visibility_after"):
        measures.insert(0, Measure("sharpest junction frame after the sync", max(numbers["visibility_after"]),
                                   max(max(numbers.get("visibility_before") or [0.0]), 1e-9)))
    return judge(measures, concerns=concerns)
