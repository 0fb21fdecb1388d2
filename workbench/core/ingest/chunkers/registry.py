"""The registry of chunker kinds: every built-in chunker by name, plus ``custom:module:function``.

Adapters for ecosystem libraries register the same way: one module defining a ``ChunkerKind``, added to
``BUILT_IN`` (or passed to ``register``).
"""

from __future__ import annotations

from workbench.core.ingest.chunkers.cluster_semantic import CLUSTER_SEMANTIC
from workbench.core.ingest.chunkers.custom import custom_kind
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.fixed import FIXED, SENTENCE, STRUCTURE
from workbench.core.ingest.chunkers.protocol import Chunker, ChunkerKind, ChunkerResources, ChunkerSpec
from workbench.core.ingest.chunkers.recursive import RECURSIVE
from workbench.core.ingest.chunkers.semantic import SEMANTIC

BUILT_IN: tuple[ChunkerKind, ...] = (FIXED, SENTENCE, STRUCTURE, RECURSIVE, SEMANTIC, CLUSTER_SEMANTIC)
_REGISTRY: dict[str, ChunkerKind] = {kind.name: kind for kind in BUILT_IN}
CUSTOM_PREFIX = "custom:"


def register(kind: ChunkerKind) -> None:
    """Add (or replace) a chunker kind under its name."""
    _REGISTRY[kind.name] = kind


def chunker_kinds() -> list[ChunkerKind]:
    """Every registered kind, in registration order."""
    return list(_REGISTRY.values())


def get_kind(name: str) -> ChunkerKind:
    """The kind called ``name``; ``custom:module:function`` loads the user's function."""
    if name.startswith(CUSTOM_PREFIX):
        return custom_kind(name[len(CUSTOM_PREFIX):])
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ChunkerError(f"no chunker called {name!r} (known: {', '.join(_REGISTRY)}, "
                           f"or {CUSTOM_PREFIX}module:function)") from None


def make_chunker(spec: ChunkerSpec, resources: ChunkerResources) -> Chunker:
    """Rebuild the chunker a stored spec names. A spec whose library version differs from the installed
    one is refused: its chunks would not be reproducible."""
    kind = get_kind(spec.name)
    chunker = kind.make(resources, **spec.param_dict)
    if chunker.spec.version != spec.version:
        raise ChunkerError(f"chunker {spec.name!r} was {spec.library} {spec.version}; "
                           f"installed is {chunker.spec.version}")
    return chunker
