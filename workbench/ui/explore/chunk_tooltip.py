"""The hover card of one chunk: what the model embedded (prefix + text) next to what the results show (the
chunk's own text: no source or heading added, as the passages show it).

Document text is untrusted: everything is passed through ``html.escape`` before it reaches the rich
text of the tooltip.
"""

from __future__ import annotations

import html
from pathlib import Path

from workbench.core.ingest.chunkers.identity import chunking_label
from workbench.core.ingest.documents import Document
from workbench.core.retrieve.loaded_set import LoadedSet

MAX_CHARS = 700


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def chunk_texts(rt: LoadedSet, row: int, doc: Document) -> tuple[str, str, tuple[str, ...]]:
    """``(embedded text, text the results show, heading path)`` of the chunk at ``row``."""
    span = rt.span(row)
    body = doc.text[span.start : span.end]
    path = rt.heading_path(row)
    embedded = rt.table.prefixes[row] + body
    return embedded, body, path


def chunk_tooltip(rt: LoadedSet, row: int, doc: Document) -> str:
    """Rich-text tooltip (escaped) for the chunk at ``row`` of ``doc``."""
    embedded, shown, path = chunk_texts(rt, row, doc)
    span = rt.span(row)
    first, end = rt.doc_rows(span.doc_id)
    tokens = int(rt.table.tokens[row])
    title = html.escape(f"Chunk {row - first + 1} of {end - first} · {Path(doc.path).name}")
    meta = html.escape(f"{tokens} tokens · characters {span.start}–{span.end} · "
                       f"chunking: {chunking_label(rt.info.config)}")
    heading = html.escape(" › ".join(path) or "(no heading)")
    prefix_note = "heading path embedded as a prefix" if rt.table.prefixes[row] else \
        "embedded without a heading prefix"
    cell = "style='white-space: pre-wrap; padding: 4px; vertical-align: top;'"
    return (
        f"<p style='margin:0'><b>{title}</b><br><span style='color:#5f6b7a'>{meta}</span><br>"
        f"Heading path: <b>{heading}</b> <span style='color:#5f6b7a'>({prefix_note})</span></p>"
        "<table width='720' cellspacing='0' style='margin-top:4px'>"
        "<tr><th align='left'>Embedded text (what the model saw)</th><th align='left'>Shown in the results</th></tr>"
        f"<tr><td width='50%' {cell}>{html.escape(_clip(embedded))}</td>"
        f"<td width='50%' {cell}>{html.escape(_clip(shown))}</td></tr></table>"
    )
