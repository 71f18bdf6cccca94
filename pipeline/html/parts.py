"""Pieces every command's section of the report page shares: the verdict, the outputs, a captioned figure."""

import html

from .. import entries
from .charts import VERDICT_COLOURS


def verdict_html(entry):
    """The entry's verdict as a coloured word, with the reasons behind it."""
    word = entries.verdict_word(entry)
    reasons = "".join(f"<li>{html.escape(reason)}</li>" for reason in entries.verdict_reasons(entry))
    return (f'<p class="verdict">Verdict: <b class="word" style="color:{VERDICT_COLOURS.get(word, "#777")}">{word}</b></p>'
            + (f'<ul class="reasons">{reasons}</ul>' if reasons else ""))


def outputs_html(entry):
    """``Output: <code>a.bvh</code>, <code>a.glb</code>.`` (none when nothing was written)."""
    return "Output: " + (", ".join(f"<code>{html.escape(output)}</code>" for output in entry.get("outputs", [])) or "none") + "."


def figure(caption, body):
    """A figure with its caption (HTML)."""
    return f"<figure><figcaption>{caption}</figcaption>{body}</figure>"
