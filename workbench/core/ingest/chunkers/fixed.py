"""The existing chunkers of ``core.ingest.chunking`` behind the chunker protocol.

``fixed`` slides a window of ``size`` units (tokens of the embedding model, words or sentences) with
``overlap``; ``sentence`` is the same window counted in sentences; ``structure`` packs whole paragraphs of
one section up to ``size`` units and leaves heading lines out of the chunk text (the heading path carries
them), so its chunks cover everything but heading lines. Spans are exactly those ``chunk_document`` returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.core.ingest.chunkers.protocol import (
    Chip,
    ChunkerError,
    ChunkerKind,
    ChunkerResources,
    ChunkerSpec,
    Cut,
    ParamSpec,
)
from workbench.core.ingest.chunking import chunk_document
from workbench.core.ingest.headings import Heading
from workbench.core.ingest.tokens import TokenCounter
from workbench.core.ingest.values import UNITS, Windowing, counted


class ConfigChunker:
    """Windows of units (``Windowing``: unit, size, overlap, structure awareness) as a protocol chunker."""

    def __init__(self, spec: ChunkerSpec, windowing: Windowing, counter: TokenCounter | None) -> None:
        if windowing.unit == "tokens" and counter is None:
            raise ChunkerError(f"chunker {spec.name!r} counts tokens and needs a token counter")
        self.spec = spec
        self.windowing = windowing
        self._counter = counter

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[Cut]:
        """The spans ``chunk_document`` cuts for these windows."""
        return [(p.start, p.end) for p in chunk_document(text, headings, self.windowing, self._counter)]


def _config(spec: ChunkerSpec, unit: str, structure_aware: bool) -> Windowing:
    """The windows the spec's own parameters describe (no second form in between)."""
    params = spec.param_dict
    try:
        return Windowing(unit, int(params["size"]), int(params["overlap"]), structure_aware)
    except ValueError as exc:
        raise ChunkerError(f"chunker {spec.name!r}: {exc}") from None


def _build_fixed(spec: ChunkerSpec, resources: ChunkerResources) -> ConfigChunker:
    return ConfigChunker(spec, _config(spec, str(spec.param_dict["unit"]), False), resources.counter)


def _build_sentence(spec: ChunkerSpec, resources: ChunkerResources) -> ConfigChunker:
    return ConfigChunker(spec, _config(spec, "sentences", False), resources.counter)


def _build_structure(spec: ChunkerSpec, resources: ChunkerResources) -> ConfigChunker:
    return ConfigChunker(spec, _config(spec, str(spec.param_dict["unit"]), True), resources.counter)


def _size(default: int, unit: str = "units") -> ParamSpec:
    return ParamSpec("size", default, 1, 100_000, help=f"chunk size in {unit}")


def _overlap(default: int) -> ParamSpec:
    return ParamSpec("overlap", default, 0, 50_000, help="units shared with the previous chunk (below the size)")


_UNIT = ParamSpec("unit", "tokens", choices=UNITS, help="what size and overlap count")
UNIT_SHORT = {"tokens": "tok", "words": "words", "sentences": "sent"}


def _window(name: str, params: Mapping[str, object]) -> tuple[str, object, object]:
    """(unit, size, overlap) of a built-in cut's parameters as stored (the sentence window counts sentences)."""
    unit = "sentences" if name == "sentence" else str(params.get("unit", "tokens"))
    return unit, params.get("size"), params.get("overlap", 0)


def _label_parts(name: str, params: Mapping[str, object]) -> list[str]:
    """``200 tokens / 20 overlap``, ``1 sentence`` (and ``structure-aware``): the labels chunk sets had before
    chunkers."""
    unit, size, overlap = _window(name, params)
    parts = [counted(size, unit) + (f" / {overlap} overlap" if overlap else "")]
    return parts + (["structure-aware"] if name == "structure" else [])


def _chips(name: str, params: Mapping[str, object]) -> list[Chip]:
    """Size, overlap (when any) and structure awareness as chips of their own: ``200 tok · overlap 20``."""
    unit, size, overlap = _window(name, params)
    out: list[Chip] = [("size", counted(size, UNIT_SHORT.get(unit, unit)))]  # 1 word, 1 tok, 1 sent
    if overlap:
        out.append(("overlap", f"overlap {overlap}"))
    if name == "structure":
        out.append(("structure", "structure-aware"))
    return out


FIXED = ChunkerKind("fixed", "a sliding window of N tokens, words or sentences",
                    (_UNIT, _size(200), _overlap(0)), _build_fixed, label_parts=_label_parts, chips=_chips)
SENTENCE = ChunkerKind("sentence", "a sliding window of N whole sentences",
                       (_size(5, "sentences"), _overlap(0)), _build_sentence, label_parts=_label_parts, chips=_chips)
STRUCTURE = ChunkerKind("structure", "whole paragraphs of one section packed up to N units; headings as paths",
                        (_UNIT, _size(200), _overlap(0)), _build_structure, label_parts=_label_parts, chips=_chips)
