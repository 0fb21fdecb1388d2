"""The values ingest hands to the store, apart from the algorithms that make them: a ``Heading``, a loaded
``Document``, how a chunk set is cut (``ChunkConfig``) and a chunk before it is stored (``ChunkPiece``). The
store imports these and nothing else of ingest but the one identity function: a chunk set's identity and label
need the chunker registry for a registry chunker's full spec, so they are ``chunkers.identity.chunk_set_id`` and
``chunkers.identity.chunking_label``."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Protocol

UNITS = ("tokens", "words", "sentences")


@dataclass(frozen=True)
class Heading:
    """One heading: its level (1 = top), its title and the span of its heading line(s)."""

    level: int
    title: str
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """A loaded document: stored text plus its metadata and heading tree."""

    path: str
    title: str
    text: str
    sha256: str
    size: int
    mtime: float
    format: str
    headings: tuple[Heading, ...] = ()
    id: int | None = None
    note: str = ""


class WindowShape(Protocol):
    """What a window cutter reads (``chunking.chunk_document``): the unit, the size and overlap in it, and whether
    headings and paragraphs cut first. A ``ChunkConfig`` has them; the built-in chunkers pass a ``Windowing``
    read from their own parameters."""

    @property
    def unit(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def overlap(self) -> int: ...
    @property
    def structure_aware(self) -> bool: ...


def check_window(unit: str, size: int, overlap: int) -> None:
    """``ValueError`` when ``unit`` is unknown, ``size`` below 1, or ``overlap`` negative or not below ``size``."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {', '.join(UNITS)}, not {unit!r}")
    if size < 1:
        raise ValueError("chunk size must be at least 1")
    if not 0 <= overlap < size:
        raise ValueError("overlap must be at least 0 and smaller than the chunk size")


@dataclass(frozen=True)
class Windowing:
    """The windows a built-in chunker cuts (``fixed``, ``sentence``, ``structure``): from its parameters alone."""

    unit: str
    size: int
    overlap: int = 0
    structure_aware: bool = False

    def __post_init__(self) -> None:
        check_window(self.unit, self.size, self.overlap)


@dataclass(frozen=True)
class ChunkConfig:
    """How a chunk set is cut and what is embedded for each chunk."""

    unit: str = "tokens"
    size: int = 200
    overlap: int = 0
    structure_aware: bool = False
    heading_prefix: bool = False
    contextual: bool = False  # an LLM-written sentence situating the chunk is embedded before it
    chunker: str = ""  # a registry chunker (canonical JSON, see chunkers.choice); "" = cut by the fields above

    def __post_init__(self) -> None:
        check_window(self.unit, self.size, self.overlap)

    def to_json(self) -> str:
        """Canonical JSON of the fields (stable key order; optional flags only when set, so adding a
        flag never changes the identity of existing chunk sets)."""
        return json.dumps(self.as_dict(), sort_keys=True)

    def as_dict(self) -> dict[str, object]:
        """The fields as a dict, ``contextual`` and ``chunker`` only when set (so adding them changed no
        existing identity or stored JSON)."""
        data = asdict(self)
        for flag in ("contextual", "chunker"):
            if not data[flag]:
                del data[flag]
        return data


@dataclass(frozen=True)
class ChunkPiece:
    """A chunk before it is stored: its order in the document, its span and its heading path."""

    position: int
    start: int
    end: int
    heading_path: tuple[str, ...] = ()


def counted(count: object, unit: str) -> str:
    """``200 tokens``, ``1 sentence``: a count of a unit (``tokens``, ``words``, ``sentences``), singular for one."""
    return f"{count} {unit.removesuffix('s') if count == 1 else unit}"


def max_overlap(size: int) -> int:
    """The largest overlap the CLI and the GUI accept for ``size``-unit chunks: below half the size (a larger
    overlap makes chunking step by a few units at a time, for minutes, into near-duplicate chunks)."""
    return max(0, (size - 1) // 2)
