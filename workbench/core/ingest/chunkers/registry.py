"""The registry of chunker kinds: every built-in chunker by name, plus ``custom:module:function``.

Adapters for ecosystem libraries (LangChain, chonkie, semchunk) register the same way: one module defining
``ChunkerKind`` values, listed in ``ADAPTERS``; their libraries are imported only when a chunker is built,
and a missing library makes the kind unavailable (with an install hint), never the registry.
"""

from __future__ import annotations

from workbench.core.ingest.chunkers.chonkie_chunkers import CHONKIE_RECURSIVE, CHONKIE_SENTENCE, CHONKIE_TOKEN
from workbench.core.ingest.chunkers.cluster_semantic import CLUSTER_SEMANTIC
from workbench.core.ingest.chunkers.custom import custom_kind
from workbench.core.ingest.chunkers.edited import HandSource, edited_kind
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.fixed import FIXED, SENTENCE, STRUCTURE
from workbench.core.ingest.chunkers.hand_edits import HAND_PREFIX
from workbench.core.ingest.chunkers.langchain_splitters import (
    LANGCHAIN_MARKDOWN,
    LANGCHAIN_RECURSIVE,
    LANGCHAIN_TOKEN,
)
from workbench.core.ingest.chunkers.late import late_kind
from workbench.core.ingest.chunkers.protocol import Chunker, ChunkerKind, ChunkerResources, ChunkerSpec
from workbench.core.ingest.chunkers.recursive import RECURSIVE
from workbench.core.ingest.chunkers.semantic import SEMANTIC
from workbench.core.ingest.chunkers.semchunk_chunker import SEMCHUNK

LATE = late_kind(lambda name: get_kind(name))  # its base chunker is looked up here, when it is built
BUILT_IN: tuple[ChunkerKind, ...] = (FIXED, SENTENCE, STRUCTURE, RECURSIVE, SEMANTIC, CLUSTER_SEMANTIC, LATE)
ADAPTERS: tuple[ChunkerKind, ...] = (LANGCHAIN_RECURSIVE, LANGCHAIN_MARKDOWN, LANGCHAIN_TOKEN, CHONKIE_TOKEN,
                                     CHONKIE_SENTENCE, CHONKIE_RECURSIVE, SEMCHUNK)
_REGISTRY: dict[str, ChunkerKind] = {kind.name: kind for kind in BUILT_IN + ADAPTERS}
CUSTOM_PREFIX = "custom:"


def register(kind: ChunkerKind) -> None:
    """Add (or replace) a chunker kind under its name."""
    _REGISTRY[kind.name] = kind


def chunker_kinds() -> list[ChunkerKind]:
    """Every registered kind, in registration order."""
    return list(_REGISTRY.values())


def get_kind(name: str, hands: HandSource | None = None) -> ChunkerKind:
    """The kind called ``name``; ``custom:module:function`` loads the user's function; ``edited:NAME`` is the
    hand-made chunking of that name in ``hands`` (the data folder's ``ws.cuts.get``; read when its spec or
    chunker is asked for, unknown without a source)."""
    if name.startswith(CUSTOM_PREFIX):
        return custom_kind(name[len(CUSTOM_PREFIX):])
    if name.startswith(HAND_PREFIX) and len(name) > len(HAND_PREFIX):
        return edited_kind(name[len(HAND_PREFIX):], get_kind, hands)
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ChunkerError(f"no chunker called {name!r} (known: {', '.join(_REGISTRY)}, "
                           f"or {CUSTOM_PREFIX}module:function)") from None


def listed_kind(name: str) -> ChunkerKind | None:
    """The registered kind called ``name``, or None; never loads code (a ``custom:`` name is None)."""
    return _REGISTRY.get(name)


def make_chunker(spec: ChunkerSpec, resources: ChunkerResources, hands: HandSource | None = None) -> Chunker:
    """Rebuild the chunker a stored spec names (``hands``: the hand-made chunkings an ``edited:NAME`` spec is
    read from). A spec whose library version differs from the installed one is refused: its chunks would not be
    reproducible."""
    kind = get_kind(spec.name, hands)
    chunker = kind.make(resources, **spec.param_dict)
    if chunker.spec.version != spec.version:
        raise ChunkerError(f"chunker {spec.name!r} was {spec.library} {spec.version}; "
                           f"installed is {chunker.spec.version}")
    return chunker
