"""Output groups are written all or none, and reports of runs sharing a folder keep each other's entries honestly.

Core tier: the pipeline's file handling is plain Python.
"""

import json

import pytest

from helpers import checkout_module

outputs, reports, report = checkout_module("files.outputs"), checkout_module("pipeline.reports"), checkout_module("pipeline.html.page")


@pytest.fixture(autouse=True)
def plain_page(monkeypatch):
    """The HTML page is tested on its own (test_report.py); here it is the summary text."""
    monkeypatch.setattr(report, "html_report", lambda entries, summary, kept=(): f"<pre>{summary}</pre>")


def _failing(path):
    raise outputs.OutputError(path, "a writer that fails")


def test_a_group_with_one_failing_file_replaces_none_and_leaves_no_temporary(tmp_path):
    first, second = tmp_path / "walk_loop.bvh", tmp_path / "walk_loop.fbx"
    first.write_text("the good earlier output")
    with pytest.raises(outputs.OutputError, match="a writer that fails"):
        outputs.replace_all([(first, outputs.text_writer("new"), None), (second, _failing, None)])
    assert first.read_text() == "the good earlier output" and not second.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walk_loop.bvh"]


def test_a_group_that_fails_verification_replaces_none(tmp_path):
    target = tmp_path / "walk_loop.bvh"
    target.write_text("old")

    def verify(path):
        raise outputs.OutputError(path, "does not verify")

    with pytest.raises(outputs.OutputError, match="does not verify"):
        outputs.replace_all([(target, outputs.text_writer("new"), verify)])
    assert target.read_text() == "old" and len(list(tmp_path.iterdir())) == 1


def test_temporary_names_are_unique_per_call(tmp_path):
    names = {outputs.temporary_path(tmp_path / "walk_loop.bvh") for _ in range(100)}
    assert len(names) == 100 and all(name.name.startswith(".walk_loop.") for name in names)


def _entry(file, outputs_):
    return {"file": str(file), "armature": "a", "status": "ok", "outputs": [str(o) for o in outputs_]}


def test_a_report_keeps_other_runs_entries_and_says_when_their_output_was_written_over(tmp_path):
    path = tmp_path / "loopsmith_report.json"
    out = tmp_path / "walk_loop.bvh"
    reports.write_reports([_entry(tmp_path / "a" / "walk.bvh", [out]), _entry(tmp_path / "run.bvh", [tmp_path / "run_loop.bvh"])],
                          path, "first run", {})
    kept, notes, _ = reports.write_reports([_entry(tmp_path / "b" / "walk.bvh", [out])], path, "second run", {})
    entries = {entry["file"]: entry for entry in json.loads(path.read_text())["entries"]}
    assert kept == 2 and len(entries) == 3
    earlier = entries[str(tmp_path / "a" / "walk.bvh")]
    assert earlier["outputs"] == [] and earlier["outputs_replaced"] == [str(out)]
    assert len(notes) == 1 and str(out) in notes[0] and "b/walk.bvh" in notes[0]
    assert "second run" in path.with_suffix(".html").read_text()


def test_a_report_whose_page_cannot_be_written_leaves_both_previous_files(tmp_path, monkeypatch):
    path = tmp_path / "loopsmith_report.json"
    reports.write_reports([_entry(tmp_path / "walk.bvh", [])], path, "first", {})
    before = path.read_bytes(), path.with_suffix(".html").read_bytes()
    text_writer = outputs.text_writer

    def disk_full_for_pages(text):
        write = text_writer(text)

        def write_or_fail(target):
            if target.suffix == ".html":
                raise OSError(28, "No space left on device")
            write(target)

        return write_or_fail

    monkeypatch.setattr(outputs, "text_writer", disk_full_for_pages)
    with pytest.raises(reports.ReportError, match=f"cannot write the report {path.with_suffix('.html')}: No space left on device"):
        reports.write_reports([_entry(tmp_path / "run.bvh", [])], path, "second", {})
    assert (path.read_bytes(), path.with_suffix(".html").read_bytes()) == before  # the JSON too: the pair is one group
    assert not [p for p in tmp_path.iterdir() if "partial" in p.name or p.name.endswith(".lock")]
