"""Motion graphs against hostile input, numpy only: graph files checked in full, odd clips named, still poses, --via paths."""

import dataclasses
import json
import warnings

import numpy as np
import pytest

from core.errors import GraphError
from helpers import walker_library
from core.formats.graph_json import graph_from_json, graph_to_json, read_graph_file
from core.graph import build, check_clips, odd_clips, path_via

NAMES = ["walk_a", "walk_b", "stroll_c"]


@pytest.fixture(scope="module")
def library():
    return walker_library(200, 3)


@pytest.fixture(scope="module")
def document(library):
    return json.loads(json.dumps(graph_to_json(build.build_graph(library, NAMES))))


def _edited(document, edit):
    edited = json.loads(json.dumps(document))
    edit(edited)
    return edited


def _first(document, kind):
    return next(k for k, edge in enumerate(document["edges"]) if edge["kind"] == kind)


def _set(*keys_and_value):
    *keys, value = keys_and_value

    def edit(data):
        for key in keys[:-1]:
            data = data[key]
        data[keys[-1]] = value(data) if callable(value) else value
    return edit


EDITS = {
    "a list, not an object": lambda data: data.clear(),
    "nodes not a list": _set("nodes", {"0": 1}),
    "stats not an object": _set("stats", "fast"),
    "a clip's name a number": _set("clips", 0, "name", 7),
    "a clip's fps infinite": _set("clips", 0, "fps", float("inf")),
    "a clip's frames a bool": _set("clips", 0, "frames", True),
    "a clip's frames absurd": _set("clips", 0, "frames", 10 ** 30),
    "a clip's bones not names": _set("clips", 0, "bones", [1, 2]),
    "the settings' fps alone edited": _set("settings", "fps", 1000.0),
    "blend_frames a fraction": _set("settings", "blend_frames", 2.5),
    "a node out of its clip": _set("nodes", 0, "frame", -5),
    "a node's clip out of range": _set("nodes", 0, "clip", 99),
    "nodes out of order": lambda data: data["nodes"].__setitem__(slice(0, 2), [dict(data["nodes"][1], id=0), dict(data["nodes"][0], id=1)]),
    "an edge to a node out of range": lambda data: data["edges"][0].__setitem__("to", len(data["nodes"])),
    "a cost NaN": lambda data: data["edges"][0].__setitem__("cost", float("nan")),
    "a clip edge skipping a node": lambda data: data["edges"][_first(data, "clip")].__setitem__("to", data["edges"][_first(data, "clip")]["to"] + 1),
    "a clip edge playing other frames": lambda data: data["edges"][_first(data, "clip")].__setitem__("frames", data["edges"][_first(data, "clip")]["frames"] + 1),
    "a transition landing before its clip": lambda data: data["edges"][_first(data, "transition")].__setitem__("frames", 10 ** 6),
    "a blend on a clip edge": lambda data: data["edges"][_first(data, "clip")].__setitem__("blend", 1),
}


@pytest.mark.parametrize("what", sorted(EDITS))
def test_every_part_of_a_graph_file_is_checked_before_it_is_walked(document, what):
    with pytest.raises(GraphError) as raised:
        graph_from_json(_edited(document, EDITS[what]))
    assert "\n" not in str(raised.value)


def test_graph_files_that_are_no_json_are_one_line_each(document, tmp_path):
    cases = {"not JSON": b"{'version': 1", "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000, "not UTF-8": b"\xff\xfe{",
             "NaN": json.dumps(dict(document, stats={"threshold": float("nan")})).encode(), "a folder": None}
    for name, data in cases.items():
        path = tmp_path / name
        path.mkdir() if data is None else path.write_bytes(data)
        with pytest.raises(GraphError, match="not JSON|nested too deep|not UTF-8|NaN|not a regular file"):
            read_graph_file(path)
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as stream:  # sparse: no disk, and the reader must refuse it before reading
        stream.truncate(build_limit() + 1)
    with pytest.raises(GraphError, match="larger than"):
        read_graph_file(huge)
    good = tmp_path / "graph.json"
    good.write_text(json.dumps(document))
    assert graph_to_json(read_graph_file(good)) == document


def build_limit():
    from core.formats import graph_json as json_io

    return json_io.MAX_FILE_BYTES


def test_the_graph_records_each_clips_bones_and_refuses_clips_that_differ(library, document):
    graph = graph_from_json(document)
    assert [clip["bones"] for clip in graph.clips] == [list(clip.bone_names) for clip in library]
    check_clips(graph, library)
    faster = dataclasses.replace(library[1], fps=1000.0)
    with pytest.raises(GraphError, match="clip 'walk_b' plays at 1000 fps, the graph says 30"):
        check_clips(graph, [library[0], faster, library[2]])
    renamed = graph_from_json(_edited(document, _set("clips", 2, "bones", lambda clip: ["Other", *clip["bones"][1:]])))
    with pytest.raises(GraphError, match="clip 'stroll_c' has other bones than the graph records"):
        check_clips(renamed, library)


def test_the_odd_clip_out_is_named_not_the_first(library):
    odd = dataclasses.replace(library[0], bone_names=("pelvis", *library[0].bone_names[1:]))
    assert list(odd_clips([odd, library[1], library[2]])) == [0]
    slower = dataclasses.replace(library[2], fps=24.0)
    reasons = odd_clips([library[0], slower, library[1]])
    assert list(reasons) == [1] and "plays at 24 fps, 2 of the 3 clips at 30" in reasons[1]
    with pytest.raises(GraphError, match="^walk_b: plays at 24 fps"):
        build.build_graph([library[0], slower, library[2]], NAMES)


@pytest.mark.parametrize("still", ["one pose", "a pose per clip"])
def test_still_poses_find_no_transitions_and_warn_nothing(library, still):
    clips = [clip.take_frames(np.full(clip.num_frames, 0 if still == "one pose" else 40 * k)) for k, clip in enumerate(library[:2])]
    clips = [dataclasses.replace(clip, frames=library[0].frames) for clip in clips]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(GraphError, match="^no transitions found"):
            build.build_graph(clips, NAMES[:2])


def test_a_via_path_too_long_for_the_time_names_a_length_that_works(document):
    graph = graph_from_json(document)
    fps = graph.settings["fps"]
    for targets in (["walk_a", "stroll_c", "walk_b"], ["walk", "stroll", "walk"]):
        with pytest.raises(GraphError, match="more than the 1 s asked") as raised:
            path_via(graph, targets, 1.0)
        enough = float(str(raised.value).split("takes at least ")[1].split(" s")[0])
        assert f"in '{NAMES[0]}'" in str(raised.value) or "in 'walk_b'" in str(raised.value) or "in 'stroll_c'" in str(raised.value)
        for seconds in (enough, enough + 0.1, 2 * enough):  # the advice holds, and longer asks hold too
            path = path_via(graph, targets, seconds)
            assert abs(sum(edge["frames"] for edge in path) - seconds * fps) <= graph.settings["blend_frames"] / 2


def test_via_refuses_what_names_no_clip_or_cannot_be_reached(document):
    with pytest.raises(GraphError, match="targets must be"):
        path_via(graph_from_json(document), [""], 5.0)
    run = next(k for k, clip in enumerate(document["clips"]) if clip["name"] == "stroll_c")
    into_run = {k for k, edge in enumerate(document["edges"])
                if edge["kind"] == "transition" and document["nodes"][edge["to"]]["clip"] == run}
    cut = _edited(document, lambda data: data.__setitem__("edges", [e for k, e in enumerate(data["edges"]) if k not in into_run]))
    with pytest.raises(GraphError, match="'stroll' cannot be reached from 'walk_a'"):
        path_via(graph_from_json(cut), ["walk_a", "stroll"], 20.0)
