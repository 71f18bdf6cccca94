"""The report page: every entry of the report in one self-contained HTML file.

No Blender: the standard library, and numpy through the commands' reports.
The page leads with this run's entries (a table, then each entry's section,
drawn by the command that made it: :mod:`..commands`); entries of earlier
runs into the same folder follow, grouped by run. Inline SVG charts and one
inline script (``player.js``) that plays every output; no external resource.
"""

import html
import itertools

from .. import commands, entries as entry_kit
from ...core.engine import profiles
from .charts import VERDICT_COLOURS
from .player import SCRIPT


def _title(entry):
    command = commands.of_entry(entry)
    title = (command and entry["status"] == "ok" and command.title(entry)) or entry["file"].replace("\\", "/").rsplit("/", 1)[-1]
    return html.escape(title), html.escape(entry.get("armature") or "")


def _summary_table(entries, first_index=0):
    """Every entry in one table row: what it is of, the command, the verdict, what was made and its numbers (a failure's
    reason in full)."""
    head = ("file", "armature", "command", "verdict", "made", "how", "numbers", "seconds")
    rows = []
    for index, entry in enumerate(entries, first_index):
        name, armature = _title(entry)
        word = entry_kit.verdict_word(entry)
        cells = [f'<a class="name" href="#entry-{index}">{name}</a>', f'<span class="name">{armature or "-"}</span>',
                 html.escape(entry.get("command") or "-"), f'<b style="color:{VERDICT_COLOURS.get(word, "#777")}">{word}</b>']
        if entry["status"] != "ok":
            rows.append(f'<tr class="failed">{"".join(f"<td>{cell}</td>" for cell in cells)}'
                        f'<td colspan="{len(head) - 4}" class="error">Failed: {html.escape(entry["error"])}</td></tr>')
            continue
        row = commands.COMMANDS[entry.get("command")].row(entry)
        cells += [html.escape(cell) for cell in (row.made, row.how, row.numbers)] + [f"{entry.get('seconds', 0.0):.2f}"]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    header = "".join(f"<th>{html.escape(title)}</th>" for title in head)
    return f'<table class="summary"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _engine_facts(entry):
    """What root motion, the engine profile and a WRAP loop's closing frame did, as a paragraph ('' when none applied)."""
    facts = []
    if "engine" in entry:
        facts.append(f"Written for {html.escape(profiles.PROFILES[entry['engine']].label)}, its root named "
                     f"'{html.escape(entry['engine_root'])}' in the files.")
    root = entry.get("root_motion")
    if root and root["mode"] == "IN_PLACE":
        facts.append(f"The travel is removed: '{html.escape(root['root'])}' stays at the origin.")
    elif root:
        facts.append(f"Root motion ({root['mode'].lower()}): '{html.escape(root['root'])}'{' (added)' if root['added'] else ''} carries "
                     f"{root['root_share']:.0%} of the travel of '{html.escape(root['pelvis'])}', which stays within "
                     f"{root['pelvis_offset']:.3f} m of it.")
    if "engine_note" in entry:
        facts.append(html.escape(entry["engine_note"]).capitalize() + ".")
    if "loop_end" in entry:
        facts.append(html.escape(entry["loop_end"]) + ".")
    return f"<p>{' '.join(facts)}</p>" if facts else ""


def _entry_section(index, entry):
    name, armature = _title(entry)
    heading = f'<h2 id="entry-{index}">{name} <small>{armature} &middot; {html.escape(entry.get("command") or "")}</small></h2>'
    if entry["status"] != "ok":
        return f'<section class="entry" data-kind="{html.escape(entry.get("kind") or "")}">{heading}<p class="error">Failed: {html.escape(entry["error"])}</p></section>'
    body = commands.COMMANDS[entry.get("command")].section(entry)  # KeyError: an entry this version cannot draw
    return f'<section class="entry" data-kind="{html.escape(entry.get("kind") or "")}">{heading}{_engine_facts(entry)}{body}</section>'


_STYLE = (
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1160px;padding:0 1em;color:#222}"
    "section{border-top:1px solid #ddd;padding-top:.5em;margin-top:1.5em}h2 small{color:#777;font-weight:normal}"
    ".error{color:#c8372d}table.summary{border-collapse:collapse;width:100%;font-size:13px}"
    ".summary th,.summary td{border-bottom:1px solid #e4e4e4;padding:3px 6px;text-align:left;vertical-align:top}"
    ".summary .name{overflow-wrap:anywhere}"
    ".summary tr.failed td{background:#fdf1f0}table.numbers{width:auto;min-width:360px}.figures{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}"
    "figure{margin:0}figcaption{font-size:13px;margin:.6em 0 .3em;max-width:540px}"
    "ul.legend{list-style:none;padding:0;margin:2px 0 0 46px;font-size:12px}ul.legend li{display:inline-block;margin-right:14px}"
    ".key{display:inline-block;width:18px;margin-right:5px;vertical-align:middle}"
    ".controls{font-size:12px;margin-top:4px}.timeline{cursor:pointer;display:block}"
    "details pre{background:#f6f6f6;padding:1em;overflow:auto}.stage{display:flex;gap:6px}"
    ".verdict{font-size:15px;margin:.3em 0}ul.reasons{margin:.2em 0 .6em;font-size:13px}h2.earlier{color:#555}"
)


def _earlier(kept, first_index):
    """The entries of earlier runs, grouped by run (newest first), each group a table and its sections."""
    groups, index = [], first_index
    runs = itertools.groupby(sorted(kept, key=lambda entry: entry.get("run", ""), reverse=True), key=lambda entry: entry.get("run", ""))
    for run, group in runs:
        group = list(group)
        when = f"the run of {html.escape(run)}" if run else "runs that did not record their time"
        sections = "".join(_entry_section(k, entry) for k, entry in enumerate(group, index))
        groups.append(f'<h2 class="earlier">Earlier: {when} ({len(group)} entries)</h2>{_summary_table(group, index)}{sections}')
        index += len(group)
    return "".join(groups)


def html_report(entries, summary, kept=()):
    """The report page: this run's ``entries`` (a table, then each one's section), then the entries of earlier runs
    ``kept`` grouped by run; ``summary``: this run's text table."""
    failed = sum(entry["status"] != "ok" for entry in entries)
    sections = "".join(_entry_section(index, entry) for index, entry in enumerate(entries))
    earlier = _earlier(list(kept), len(entries)) if kept else ""
    note = f" Below: {len(kept)} entries of earlier runs into this folder." if kept else ""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Loopsmith report</title><style>{_STYLE}</style></head><body>"
        f"<h1>Loopsmith report</h1><p>This run: {len(entries) - failed} done, {failed} failed.{note}</p>{_summary_table(entries)}"
        f"<details><summary>Text summary</summary><pre>{html.escape(summary)}</pre></details>"
        f"{sections}{earlier}<script>{SCRIPT}</script></body></html>"
    )
