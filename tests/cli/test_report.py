"""The HTML report an animator reads: charts with numbered axes that carry data, the loop's stick figure, failures in full.

Core tier: the loops come from the demo walker through Find Loop and Make
Loop, the page is parsed with html.parser.
"""

import json
import pathlib
from html.parser import HTMLParser

import numpy as np
import pytest

from helpers import checkout_module

REPO = pathlib.Path(__file__).resolve().parents[2]


report, reports, preview = checkout_module("pipeline.commands.make_loop.report"), checkout_module("pipeline.reports"), checkout_module("core.loop.preview")
page_module, entries_module = checkout_module("pipeline.html.page"), checkout_module("pipeline.entries")
demo, detect, loop = checkout_module("core.demo"), checkout_module("core.loop.detect"), checkout_module("core.loop.make")

REASON = "cannot be read: line 3 is not a BVH HIERARCHY keyword"


class _Page(HTMLParser):
    """What the tests look at: every svg's numbers and curves, the legends, the summary table, inline data."""

    def __init__(self, text):
        super().__init__()
        self.svgs, self.legends, self.cells, self.data, self.scripts = [], [], [], [], []
        self._svg = self._legend = self._cell = self._script = None
        self._text_class = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg":
            self._svg = {"class": attrs.get("class", ""), "title": attrs.get("aria-label", ""), "ticks": {"x-tick": [], "y-tick": []},
                         "polylines": [], "labels": [], "after_bars": []}
            self.svgs.append(self._svg)
        elif self._svg is not None and tag == "polyline":
            self._svg["polylines"].append([tuple(map(float, point.split(","))) for point in attrs["points"].split()])
        elif self._svg is not None and tag == "rect" and attrs.get("class") == "after":
            self._svg["after_bars"].append(float(attrs["width"]))
        elif self._svg is not None and tag == "text":
            self._text_class = attrs.get("class", "")
        elif tag == "ul" and attrs.get("class") == "legend":
            self._legend = []
            self.legends.append(self._legend)
        elif tag == "td":
            self._cell = {"class": attrs.get("class", ""), "text": ""}
            self.cells.append(self._cell)
        elif tag == "script":
            self._script = {"class": attrs.get("class", ""), "text": ""}
            (self.data if attrs.get("type") == "application/json" else self.scripts).append(self._script)

    def handle_endtag(self, tag):
        if tag == "svg":
            self._svg = None
        elif tag == "text":
            self._text_class = None
        elif tag == "ul":
            self._legend = None
        elif tag == "td":
            self._cell = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._text_class is not None:
            (self._svg["ticks"].get(self._text_class, self._svg["labels"])).append(data)
        if self._legend is not None:
            self._legend.append(data)
        if self._cell is not None:
            self._cell["text"] += data
        if self._script is not None:
            self._script["text"] += data


def _loop(clip, start, end, detection=None, name="walk.bvh"):
    result = loop.make_loop(clip, start, end)
    return dict(report.loop_entry(name, "Walker", [f"out/{name}_loop.bvh"], result, detection, start, end, 0.25), command="make-loop"), result


@pytest.fixture(scope="module")
def walker():
    return demo.walk_cycle().clip


@pytest.fixture(scope="module")
def page(walker):
    """A report of three loops (two cycles found, one cycle found, a range by hand) and one failure, parsed."""
    entries = []
    for cycles in (0, 1):
        detection = detect.find_loops(walker, cycles=cycles)
        entries.append(_loop(walker, detection.best.frame_start, detection.best.frame_end, detection)[0])
    entries.append(_loop(walker, 10, 50, name="by_hand.bvh")[0])
    entries.append(entries_module.error_entry("notes.bvh", REASON, 0.01))
    text = page_module.html_report(entries, reports.summary_table(entries))
    return text, _Page(text), entries


def test_every_chart_has_numbered_axes_and_curves_that_carry_data(page):
    _, parsed, _ = page
    charts = [svg for svg in parsed.svgs if svg["class"] == "chart"]
    # Find Loop for two loops, then the worst joint's speed and its close-up for all three.
    assert len(charts) == 2 + 3 * 2
    for chart in charts:
        for axis in ("x-tick", "y-tick"):
            values = [float(label) for label in chart["ticks"][axis]]
            assert len(values) >= 3 and values == sorted(values) and len(set(values)) == len(values)
        assert chart["polylines"]
        for points in chart["polylines"]:
            assert len(set(points)) >= 15
    bars = [svg for svg in parsed.svgs if svg["class"] == "bars"]
    assert len(bars) == 3
    for svg in bars:
        assert len(svg["ticks"]["x-tick"]) >= 4 and all(float(label) >= 0 for label in svg["ticks"]["x-tick"])
        # What differs before and after, not the position step that Make Loop closes exactly (a column of empty bars).
        assert {"velocity jump (m/s)", "seam visibility (x typical)"} <= set(svg["labels"])
        assert not any("position step" in label for label in svg["labels"])
        visibility_after = np.array(svg["after_bars"]).reshape(2, 22)[1]
        assert visibility_after.max() > 10.0  # pixels


def test_find_loop_chart_has_a_legend_and_marks_the_chosen_candidate(page):
    _, parsed, entries = page
    detections = [svg for svg in parsed.svgs if svg["title"] == "autocorrelation over loop length"]
    assert len(detections) == 2
    for svg, entry in zip(detections, entries):
        best = entry["detection"]["candidates"][entry["detection"]["chosen"]]
        assert best["range"] == entry["range"]
        assert [label for label in svg["labels"] if label.startswith("chosen")] == [f"chosen {best['length']}"]
    legends = [" ".join(legend) for legend in parsed.legends]
    assert sum(all(word in legend for word in ("GOOD", "FAIR", "POOR", "chosen")) for legend in legends) == 2


def test_worst_joint_speed_shows_the_raw_seam_and_the_loop_closing_it(page):
    _, _, entries = page
    entry = entries[2]  # 40 frames of a 32-frame gait: a bad raw cut
    worst, joints = entry["worst_joint"], entry["joints"]
    assert worst["name"] == joints["names"][int(np.argmax(joints["visibility_before"]))]
    times, raw, looped = (np.array(worst[key]) for key in ("times_s", "raw_m_per_s", "loop_m_per_s"))
    assert worst["seams_s"] == pytest.approx([40 / 30], abs=1e-3)
    assert len(times) == 80 and np.all(np.diff(times) > 0)
    after = np.searchsorted(times, worst["seams_s"][0])
    raw_change, loop_change = abs(raw[after] - raw[after - 1]), abs(looped[after] - looped[after - 1])
    typical = np.percentile(np.abs(np.diff(looped)), 95)
    assert raw_change > 5.0 * loop_change and loop_change <= 1.5 * typical
    # The close-up's acceleration at the seam, over the joint's typical one, is the visibility the report states.
    close = worst["close_up"]
    seam = close["times_s"].index(worst["seams_s"][0])
    joint = joints["names"].index(worst["name"])
    for played, stated in (("raw_m_per_s2", "visibility_before"), ("loop_m_per_s2", "visibility_after")):
        assert close[played][seam] / close["typical_m_per_s2"] == pytest.approx(joints[stated][joint], rel=1e-2)
    assert joints["visibility_before"][joint] > 5.0 > 1.0 > joints["visibility_after"][joint]


def test_stick_figure_plays_the_loop_twice_chained_by_the_travelling_root(page):
    _, parsed, entries = page
    figures = [json.loads(script["text"]) for script in parsed.data if script["class"] == "figure-data"]
    assert len(figures) == 3
    for figure, entry in zip(figures, entries):
        length = entry["length"]
        assert figure["fps"] == 30 and [(mark["first"], mark["label"]) for mark in figure["marks"]] == [(length, "seam")]
        assert figure["frames"] == list(range(2 * length + 1)) and figure["last"] == 2 * length
        assert [(s["first"], s["last"], s["label"]) for s in figure["segments"]] == [(0, length, "cycle 1"), (length, 2 * length, "cycle 2")]
        (view,) = figure["views"]
        positions = np.array(view["positions_mm"], dtype=float).reshape(2 * length + 1, 22, 3)
        assert len(view["parents"]) == 22 and view["parents"][view["root"]] == -1
        # The walker travels: each cycle carries the root on by the same stride (turned by the cycle's turn), along the view.
        root = positions[:, view["root"]]
        first, second = root[length] - root[0], root[-1] - root[length]
        assert first[0] > 500 and abs(np.linalg.norm(second) - np.linalg.norm(first)) <= 2 and abs(first[1]) <= 0.01 * first[0]
        assert 1500 < positions[..., 2].max() < 2000  # millimetres: the walker's head
    assert any("requestAnimationFrame" in script["text"] for script in parsed.scripts)
    text = page[0]
    assert "src=" not in text and "http:" not in text.replace("http://www.w3.org/2000/svg", "")


def test_long_loops_are_thinned_but_keep_their_seams():
    result = loop.make_loop(demo.walk_cycle(num_frames=400).clip, 1, 301)
    figure, speed = preview.stick_figure(result), preview.seam_motion(result)
    assert len(figure.frames) <= preview.FIGURE_FRAMES and list(figure.seams) == [300]
    assert set(range(298, 303)) <= set(figure.frames)
    assert len(speed.times) <= preview.SPEED_SAMPLES + 10
    assert np.isin(np.round((speed.seams[0] + np.array([-0.5, 0.5]) / 30.0) * 30.0, 6), np.round(speed.times * 30.0, 6)).all()


def test_wrap_loops_are_previewed_as_played_or_said_to_have_no_preview(walker):
    clamp, wrap = (loop.make_loop(walker, 10, 42, root_mode="LOOP", loop_mode=mode) for mode in ("CLAMP", "WRAP"))
    assert np.allclose(preview.stick_figure(wrap).positions, preview.stick_figure(clamp).positions, rtol=0, atol=1e-9)
    assert np.allclose(preview.seam_motion(wrap).loop_speed, preview.seam_motion(clamp).loop_speed, rtol=0, atol=1e-9)
    travelling = loop.make_loop(walker, 10, 42, loop_mode="WRAP")
    entry = dict(report.loop_entry("walk.bvh", "Walker", [], travelling, None, 10, 42, 0.1), command="make-loop")
    assert entry["worst_joint"] is None and entry["figure"] is None
    assert "No seam previews" in page_module.html_report([entry], "")


def test_summary_is_a_table_with_the_failure_reason_in_full_and_cycles_counted_right(page):
    text, parsed, entries = page
    assert [cell["text"] for cell in parsed.cells if cell["class"] == "error"] == [f"Failed: {REASON}"]
    assert len(parsed.cells) == 3 * 8 + 5  # a failure: its name, armature, command, verdict, then the reason
    assert [entry.get("cycles") for entry in entries[:2]] == [2, 1]
    assert "2 cycles, GOOD" in text and "1 cycle," in text and "1 cycles" not in text


def test_a_transition_off_its_clips_floor_is_never_good():
    verdict = checkout_module("core.measure.verdict")
    metrics = {"visibility": 0.8, "root_speed_jump": 0.1, "clips_root_speed_jump": 0.5, "heading_rate": 0.1, "clips_heading_rate": 0.2,
               "skating": 0.01, "clips_skating": 0.02, "floor_offset": 3.7, "pelvis_offset": 3.6}
    off = verdict.of_transition(metrics)
    assert off.word == "VISIBLE" and "3.70 m" in off.reasons[0]
    assert verdict.of_transition(metrics | {"floor_offset": 0.01, "pelvis_offset": 0.0}).word == "GOOD"
    assert verdict.of_transition(metrics | {"floor_offset": 0.01, "pelvis_offset": 0.0, "visibility": 1.2}).word == "CHECK"
    assert verdict.of_transition(metrics | {"floor_offset": 0.01, "pelvis_offset": 0.0, "visibility": 1.6}).word == "VISIBLE"


def _loop_entry(grade, correlation, after=0.6, before=3.0):
    """A make-loop entry of a found cut (its grade and correlation) whose loop's seam plays at ``after`` (the raw cut's:
    ``before``); on the floor, moving as its take."""
    seam = {"visibility": after, "velocity_jump_ratio": 0.4, "max_velocity_jump_m_per_s": 0.1, "max_step_m": 0.0}
    return {"grade": grade, "correlation": correlation, "loop_fine": after <= 1.0, "seam_after": seam,
            "seam_before": seam | {"visibility": before}, "grounding": {}, "motion_share": 1.0}


def test_a_cut_whose_motion_does_not_repeat_says_so_however_fine_its_loop():
    """Forward jumps and a turn (CMU 01_01: correlation 0.48 one loop later), a wave over an idle's sway (Bandai: 0.08)."""
    differs = _loop_entry("POOR", 0.08)
    judged = report.verdict(differs)
    assert judged.word == "CHECK" and judged.reasons[0].startswith("the motion does not repeat here: one loop later it correlates 0.08")
    assert report.cut_grade(differs) == "POOR"  # never "POOR cut, loop fine"
    # A repeating motion whose raw cut was poor and whose loop is fine: the loop closes it, and says both.
    repeats = _loop_entry("POOR", 0.95)
    assert report.verdict(repeats).word == "GOOD" and report.cut_grade(repeats) == "POOR cut, loop fine"


def test_a_loop_that_shows_more_than_its_raw_cut_is_visible():
    worse = report.verdict(_loop_entry("GOOD", 0.95, after=1.3, before=0.5))
    assert worse.word == "VISIBLE" and "the loop shows more than the raw cut: seam visibility 1.30 against the cut's 0.50" in worse.reasons
    assert report.verdict(_loop_entry("GOOD", 0.95, after=0.9, before=0.5)).word == "GOOD"  # more, but no more than an ordinary frame
