"""The one chunker protocol: a document's text and headings → ordered character spans.

A chunker is any object with a ``spec`` (its frozen identity: name, parameters, library, version) and a
``chunk(text, headings)`` method returning ``(start, end)`` spans. The spec's ``identity()`` is meant to be
part of a chunk set's identity, so two chunk sets cut by different chunkers (or different versions of a
library) never share vectors. Every span a chunker returns goes through ``verify_spans``: it must lie inside
the text, hold at least one non-space character and come in document order; when a chunker also returns the
chunk text, ``text[start:end]`` must equal it. A chunker that only returns chunk texts (ecosystem libraries
often do) is mapped back with ``spans_from_texts`` by the documented rule there. Anything that cannot be
verified or mapped raises ``ChunkerError`` naming the chunker and the document, never shifted spans.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from workbench.core.ingest.chunkers.errors import ChunkerError as ChunkerError
from workbench.core.ingest.chunkers.errors import snippet
from workbench.core.ingest.chunkers.text_mapping import Cut as Cut
from workbench.core.ingest.chunkers.text_mapping import spans_from_texts
from workbench.core.ingest.headings import Heading, heading_path_at
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import ChunkPiece

ParamValue = int | float | str | bool


@dataclass(frozen=True)
class ChunkerSpec:
    """The identity of a chunker: its name, parameters (sorted), library and library version."""

    name: str
    params: tuple[tuple[str, ParamValue], ...] = ()
    library: str = "workbench"
    version: str = ""

    @classmethod
    def of(cls, name: str, params: dict[str, ParamValue] | None = None, library: str = "workbench",
           version: str = "") -> ChunkerSpec:
        """A spec from a parameter dict (keys sorted, so the order they were given in does not matter)."""
        return cls(name, tuple(sorted((params or {}).items())), library, version)

    @property
    def param_dict(self) -> dict[str, ParamValue]:
        """The parameters as a dict."""
        return dict(self.params)

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, no spaces): the stable stored form of this identity."""
        data = {"name": self.name, "params": self.param_dict, "library": self.library, "version": self.version}
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, payload: str) -> ChunkerSpec:
        """The spec ``to_json`` wrote."""
        data = json.loads(payload)
        return cls.of(data["name"], data.get("params", {}), data.get("library", "workbench"),
                      data.get("version", ""))

    def identity(self) -> str:
        """A short stable hash of ``to_json()`` (16 hex digits)."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def label(self) -> str:
        """Human label, e.g. ``recursive (max_tokens=200, overlap=20)``."""
        inner = ", ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.name} ({inner})" if inner else self.name


@runtime_checkable
class Chunker(Protocol):
    """Anything that cuts a document into ordered character spans."""

    spec: ChunkerSpec

    def chunk(self, text: str, headings: Sequence[Heading]) -> Sequence[object]:
        """The chunks of ``text`` in document order: ``(start, end)`` spans (the built-ins), or whatever a
        library or user function returns (checked and converted by ``chunk_verified``)."""
        ...


@runtime_checkable
class EmbeddingChunker(Chunker, Protocol):
    """A chunker that embeds pieces of the text to decide its cuts (semantic, cluster-semantic): it says
    which texts ``chunk`` will embed, so a caller can embed those of many documents in one batched job
    first (their vectors then come from the shared vector cache)."""

    def texts_to_embed(self, text: str, headings: Sequence[Heading]) -> list[str]:
        """The texts ``chunk(text, headings)`` embeds, without embedding anything."""
        ...


MAX_INT_PARAM = 1_000_000_000  # an integer parameter with no maximum of its own still fits every consumer


@dataclass(frozen=True)
class ParamSpec:
    """One chunker parameter: its default, its allowed range or choices and a one-line help text."""

    name: str
    default: ParamValue
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""

    def check(self, value: object, chunker_name: str) -> ParamValue:
        """``value`` coerced to the default's type and checked against the range (``ChunkerError`` if not)."""
        kind = type(self.default)
        try:
            if kind is bool and not isinstance(value, bool):
                raise TypeError
            if kind is str and isinstance(value, dict | list):  # an object given for a JSON text (late's base_params)
                value = json.dumps(value)
            if kind in (int, float) and isinstance(value, float) and not math.isfinite(value):
                raise ValueError  # 1e400 reads as infinity: no whole number, no range
            coerced = kind(value)  # type: ignore[call-overload,arg-type,call-arg,unused-ignore]
        except (TypeError, ValueError, OverflowError):
            raise ChunkerError(f"chunker {chunker_name!r}: {self.name} must be a finite "
                               f"{'whole number' if kind is int else kind.__name__}, not {str(value)[:40]}") from None
        if kind is int and isinstance(value, float) and value != coerced:
            raise ChunkerError(f"chunker {chunker_name!r}: {self.name} must be a whole number, not {value!r}")
        if self.choices and coerced not in self.choices:
            raise ChunkerError(f"chunker {chunker_name!r}: {self.name} must be one of "
                               f"{', '.join(self.choices)}, not {value!r}")
        if self.minimum is not None and coerced < self.minimum:  # type: ignore[operator]
            raise ChunkerError(f"chunker {chunker_name!r}: {self.name} must be at least {self.minimum}")
        if kind is int and self.maximum is None and coerced > MAX_INT_PARAM:  # type: ignore[operator]
            raise ChunkerError(f"chunker {chunker_name!r}: {self.name} must be at most {MAX_INT_PARAM:,}")
        if self.maximum is not None and coerced > self.maximum:  # type: ignore[operator]
            raise ChunkerError(f"chunker {chunker_name!r}: {self.name} must be at most {self.maximum}")
        return coerced


Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class ChunkerResources:
    """What the caller lends a chunker: the token counter sizes are measured with, an embedding function
    (semantic chunkers; never a model a chunker loads itself), the embedding's identity (part of cache
    keys) and a vector cache shared between runs (text key → vector), so re-chunking does not re-embed."""

    counter: TokenCounter | None = None
    embed: Embed | None = None
    embed_id: str = ""
    vector_cache: MutableMapping[str, np.ndarray] | None = None


BUILT_IN_REVISION = "2"  # bumped for a built-in chunker when the cuts it makes change (2: tokens tiled over
# the characters a tokenizer drops, sentences over the limit cut, banded cluster-semantic grouping)


def _always_available() -> str | None:
    return None


def _built_in_revision() -> str:
    return BUILT_IN_REVISION


Chip = tuple[str, str]  # (aspect, text): one setting shown short


def params_label(name: str, params: Mapping[str, object]) -> str:
    """A chunker as a short label, e.g. ``recursive (max_tokens=256, overlap=0)`` (parameters sorted)."""
    inner = ", ".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{name} ({inner})" if inner else name


def name_label_parts(name: str, params: Mapping[str, object]) -> list[str]:
    return [params_label(name, params)]


def name_chip(name: str, params: Mapping[str, object]) -> list[Chip]:
    return [("chunker", params_label(name, params))]


@dataclass(frozen=True)
class ChunkerKind:
    """A registry entry: everything needed to list, describe, check and build one kind of chunker.

    An ecosystem adapter is one small module defining such a value: its ``name``, ``params`` with defaults
    and ranges, ``library`` and ``version()``, ``available()`` (None when usable, else an install hint) and
    ``build(spec, resources)`` returning a ``Chunker``. Built-in chunkers are versioned by their own
    revision (``BUILT_IN_REVISION``), not the workbench release, so upgrading does not orphan chunk sets.
    """

    name: str
    summary: str
    params: tuple[ParamSpec, ...]
    build: Callable[[ChunkerSpec, ChunkerResources], Chunker]
    library: str = "workbench"
    version: Callable[[], str] = _built_in_revision
    available: Callable[[], str | None] = _always_available
    needs: tuple[str, ...] = ()  # "counter" and/or "embed"
    # how a chunking by this kind reads to people (name and stored parameters, as given): the parts of a chunk
    # set's label and the strategy's chips; by default the name with its parameters, in one part and one chip
    label_parts: Callable[[str, Mapping[str, object]], list[str]] = name_label_parts
    chips: Callable[[str, Mapping[str, object]], list[Chip]] = name_chip

    def checked_params(self, **params: object) -> dict[str, ParamValue]:
        """``params`` with defaults filled in, each value checked, unknown names refused (no library or user
        code is loaded: the version is not asked for)."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ChunkerError(f"chunker {self.name!r} has no parameter {', '.join(unknown)} "
                               f"(it takes {', '.join(known) or 'none'})")
        return {name: p.check(params.get(name, p.default), self.name) for name, p in known.items()}

    def spec(self, **params: object) -> ChunkerSpec:
        """The identity for ``params`` (see ``checked_params``), with the library's version."""
        return ChunkerSpec.of(self.name, self.checked_params(**params), self.library, self.version())

    def make(self, resources: ChunkerResources, **params: object) -> Chunker:
        """Build the chunker for ``params`` (``ChunkerError`` when unavailable or a resource is missing)."""
        hint = self.available()
        if hint:
            raise ChunkerError(f"chunker {self.name!r} is not available: {hint}")
        if "counter" in self.needs and resources.counter is None:
            raise ChunkerError(f"chunker {self.name!r} measures sizes in tokens and needs a token counter")
        if "embed" in self.needs and resources.embed is None:
            raise ChunkerError(f"chunker {self.name!r} needs an embedding function")
        return self.build(self.spec(**params), resources)


def verify_spans(text: str, spans: Iterable[object], chunker_name: str, doc_name: str) -> list[Cut]:
    """Check a chunker's output and return it as plain ``(start, end)`` pairs.

    Each item may be a ``(start, end)`` pair, a ``(start, end, chunk_text)`` triple (then
    ``text[start:end] == chunk_text`` must hold exactly) or an object with ``start``/``end`` attributes; or
    every item is a plain chunk text, mapped back to a span by the rule of ``spans_from_texts``.
    Spans must lie in ``[0, len(text)]``, contain a non-space character and be in document order (starts
    not decreasing; overlap between neighbours is allowed). Raises ``ChunkerError`` naming both.
    """
    where = f"chunker {chunker_name!r} on document {doc_name!r}"
    items = list(spans)
    if items and all(isinstance(item, str) for item in items):
        items = list(spans_from_texts(text, items, chunker_name, doc_name))  # type: ignore[arg-type]
    out: list[Cut] = []
    for number, item in enumerate(items):
        start, end, claimed = _unpack(item, where, number)
        if not (0 <= start < end <= len(text)):
            raise ChunkerError(f"{where}: chunk {number} span {start}..{end} lies outside the text "
                               f"(length {len(text)}) or is empty")
        piece = text[start:end]
        if claimed is not None and piece != claimed:
            raise ChunkerError(f"{where}: chunk {number} span {start}..{end} holds {snippet(piece)} but the "
                               f"chunker says the chunk is {snippet(claimed)} (spans are shifted)")
        if not piece.strip():
            raise ChunkerError(f"{where}: chunk {number} span {start}..{end} is only white space")
        if out and start < out[-1][0]:
            raise ChunkerError(f"{where}: chunk {number} starts at {start}, before chunk {number - 1} "
                               f"({out[-1][0]}): chunks must come in document order")
        out.append((start, end))
    return out


def _unpack(item: object, where: str, number: int) -> tuple[int, int, str | None]:
    if hasattr(item, "start") and hasattr(item, "end") and not isinstance(item, tuple | list):
        return int(getattr(item, "start")), int(getattr(item, "end")), None  # noqa: B009 - any object with start/end
    if isinstance(item, tuple | list) and len(item) in (2, 3):
        claimed = item[2] if len(item) == 3 else None
        if claimed is not None and not isinstance(claimed, str):
            raise ChunkerError(f"{where}: chunk {number} has a non-text third element {claimed!r}")
        try:
            return int(item[0]), int(item[1]), claimed
        except (TypeError, ValueError):
            pass
    raise ChunkerError(f"{where}: chunk {number} is {item!r}, not a (start, end) or (start, end, text) span")


def chunk_verified(chunker: Chunker, text: str, headings: Sequence[Heading], doc_name: str) -> list[Cut]:
    """Run ``chunker`` on one document and verify its spans (``ChunkerError`` names chunker and document)."""
    try:
        raw = chunker.chunk(text, headings)
    except ChunkerError as exc:  # adapters map texts without knowing the document's name: add it
        message = str(exc)
        if "'this document'" in message:
            raise ChunkerError(message.replace("'this document'", repr(doc_name))) from exc
        raise
    except Exception as exc:  # a library or user chunker failing is reported as the chunker's failure
        raise ChunkerError(f"chunker {chunker.spec.name!r} failed on document {doc_name!r}: "
                           f"{type(exc).__name__}: {exc}") from exc
    return verify_spans(text, raw, chunker.spec.name, doc_name)


def pieces_from_spans(spans: Sequence[Cut], headings: Sequence[Heading]) -> list[ChunkPiece]:
    """Spans as the ``ChunkPiece`` values the index stores (position and heading path added)."""
    return [ChunkPiece(i, a, b, heading_path_at(headings, a)) for i, (a, b) in enumerate(spans)]
