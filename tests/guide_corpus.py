"""A generated guide corpus for UI tests: markdown documents of ``## Topic`` sections whose sentences name
their topic, indexed into a workspace (the fake embedder: fast, no model), and a reference span on a section."""

from __future__ import annotations

from pathlib import Path

from workbench.core.spans import Span


def write_guide(folder: Path, name: str, topics: list[str] | tuple[str, ...], notes: int) -> Path:
    """``folder/name.md``: a title, then one section per topic of ``notes`` sentences."""
    path = folder / f"{name}.md"
    path.write_text(f"# {name.title()}\n\n" + "\n\n".join(
        f"## {t.title()}\n\n" + " ".join(f"The {t} note {n} says the {t} is checked daily." for n in range(notes))
        for t in topics))
    return path


def index_guides(ws, folder: Path, names: tuple[str, ...], topics, notes: int):
    """``ws`` with one guide per name indexed (every file accepted)."""
    paths = [str(write_guide(folder, name, topics, notes)) for name in names]
    assert not ws.add_paths(paths).failed
    return ws


def section_reference(ws, doc_id: int, heading: str, length: int) -> list[Span]:
    """A reference span of ``length`` characters starting at ``heading`` in the document."""
    start = ws.corpus.doc_text(doc_id).index(heading)
    return [Span(doc_id, start, start + length)]
