"""Heading-path contextual text: what is embedded (title > headings: text) vs what is displayed."""

from __future__ import annotations

from collections.abc import Sequence

GENERIC_HEADINGS = {
    "overview", "notes", "note", "faq", "faqs", "introduction", "intro", "summary", "details", "misc",
    "miscellaneous", "general", "background", "contents", "table of contents", "about", "other",
}


def is_generic(title: str) -> bool:
    """True for headings that carry no topic (Overview, Notes, FAQ, Introduction, Summary …)."""
    return title.strip().strip(":").lower() in GENERIC_HEADINGS


def heading_prefix(title: str, heading_path: Sequence[str]) -> str:
    """The prefix embedded before a chunk: ``"{title} > {heading path}: "`` without generic headings."""
    parts = [title.strip()] if title.strip() else []
    for heading in heading_path:
        h = heading.strip()
        if h and not is_generic(h) and (not parts or h.lower() != parts[-1].lower()):
            parts.append(h)
    return " > ".join(parts) + ": " if parts else ""


def display_text(source: str, heading_path: Sequence[str], chunk_text: str) -> str:
    """How a chunk is shown with its context: ``"[{source}] {last heading} - {chunk text}"``."""
    last = heading_path[-1] if heading_path else ""
    return f"[{source}] {last} - {chunk_text}" if last else f"[{source}] {chunk_text}"
