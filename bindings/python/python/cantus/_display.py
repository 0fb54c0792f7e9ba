"""HTML for notebooks: small escaped tables, and engravings when LilyPond is there.

Jupyter calls ``_repr_html_`` on the last value of a cell; every result class of
Cantus has one built from these helpers. An engraving is shown only when LilyPond
runs and the score is short enough to engrave in a moment; otherwise a plain table
says what is there.
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Optional, Sequence

from . import _cantus

# Largest score a notebook display engraves (LilyPond takes seconds even for a few
# bars); larger ones show a table, and `Score.engrave()` engraves any size on request.
ENGRAVE_MAX_BARS = 48
ENGRAVE_MAX_EVENTS = 800

_lilypond: Optional[bool] = None


def lilypond_available() -> bool:
    """Whether LilyPond runs here (asked once per process)."""
    global _lilypond
    if _lilypond is None:
        _lilypond = _cantus.lilypond_available()
    return _lilypond


def escape(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], caption: Optional[str] = None) -> str:
    """An HTML table of `rows` under `header`, every cell escaped."""
    out = ["<table>"]
    if caption:
        out.append(f"<caption style='text-align:left'>{escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def facts(pairs: Iterable[tuple[str, Any]]) -> str:
    """A two-column table of named values."""
    return table(["", ""], pairs)


def svg_block(svg: bytes) -> str:
    """An engraving inline, scaled to the cell's width."""
    text = svg.decode("utf-8", errors="replace")
    start = text.find("<svg")
    return f"<div style='max-width:100%;overflow-x:auto'>{text[start:] if start >= 0 else text}</div>"
