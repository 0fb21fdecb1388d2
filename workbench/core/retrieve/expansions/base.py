"""What every expansion value shares: the ``Expansion`` base, knob metadata and the registry.

An expansion turns a strategy's hits into the passages sent as context. Each kind is one frozen value
class in its own module (its fields are its knobs), registered with ``@register``: the strategy, its
JSON and the GUI's controls are all derived from the registry, so a new expansion is one new module plus
its import in ``expansions/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from workbench.core.retrieve.chunk_set import SetRuntime
    from workbench.core.retrieve.context import RetrievalContext
    from workbench.core.retrieve.expand import Passage
    from workbench.core.retrieve.search import Hit


@dataclass(frozen=True)
class Knob:
    """How a control edits one field of an expansion: range, step and the words shown around it."""

    field: str
    label: str
    minimum: float
    maximum: float
    step: float
    tooltip: str
    special: str = ""  # text shown instead of the minimum value ("section" for a parent size of 0)
    decimals: int = 0  # 0: a whole number


@dataclass(frozen=True)
class Expansion:
    """How hits grow into passages. Subclasses are frozen dataclasses whose fields are their knobs."""

    kind: ClassVar[str] = ""
    label: ClassVar[str] = ""  # the menu text
    knobs: ClassVar[tuple[Knob, ...]] = ()
    extent: ClassVar[str] = ""  # the field shown as the expansion's own size control ("" = none)
    groups_hits: ClassVar[bool] = False  # True: hits are grouped into fewer passages (all candidates kept)
    order: ClassVar[int] = 100  # place in menus and messages (lower first)
    selects_within_budget: ClassVar[bool] = False  # True: spends ``ctx.budget`` itself (no trimming after)

    def expand(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> list[Passage]:
        """The passages for ``hits`` (merged where they meet), in rank order."""
        raise NotImplementedError

    def expand_detailed(self, ctx: RetrievalContext, hits: Sequence[Hit]) -> tuple[list[Passage], list[Passage]]:
        """``(passages, dropped)``: the passages, and the hits left out as one-chunk passages with the reason
        (default: ``expand`` and none left out)."""
        return self.expand(ctx, hits), []

    def describe(self, unit: str) -> str:
        """A few words for people ('' when there is nothing to say); ``unit`` is the chunk unit."""
        return ""

    def chip(self) -> str:
        """A chip of a few characters for the knob summary line (default: the kind)."""
        return self.kind

    def candidates(self, top_k: int) -> int:
        """How many first-stage hits this expansion wants for ``top_k`` (when not set explicitly)."""
        return top_k

    def note(self, runtime: SetRuntime, hits: Sequence[Hit]) -> str:
        """A warning about these settings on these hits, or ''."""
        return ""

    def widened(self, top: int) -> Expansion:
        """A copy returning at least ``top`` passages (to rerank expanded passages); default: itself."""
        return self

    @classmethod
    def knob(cls, name: str) -> Knob | None:
        """The metadata of field ``name``, if it has a control."""
        return next((k for k in cls.knobs if k.field == name), None)

    @classmethod
    def extent_knob(cls) -> Knob | None:
        """The knob of the expansion's own size control, if it has one."""
        return cls.knob(cls.extent) if cls.extent else None

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": ..., field: value, ...}``."""
        return {"kind": self.kind, **{f.name: getattr(self, f.name) for f in fields(self)}}


EXPANSION_TYPES: dict[str, type[Expansion]] = {}
"""Registered expansion kinds, by ``order``."""
FIELD_OWNER: dict[str, str] = {}
"""Flat field name → the expansion kind that owns it (flat JSON names are unique across kinds)."""


def register(cls: type[Expansion]) -> type[Expansion]:
    """Class decorator: make ``cls`` an expansion kind (its fields become flat strategy fields)."""
    if not cls.kind or cls.kind in EXPANSION_TYPES:
        raise ValueError(f"expansion kind {cls.kind!r} is empty or registered twice")
    for f in fields(cls):
        if f.name in FIELD_OWNER:
            raise ValueError(f"expansion field {f.name!r} of {cls.kind!r} is already a field of {FIELD_OWNER[f.name]!r}")
        FIELD_OWNER[f.name] = cls.kind
    EXPANSION_TYPES[cls.kind] = cls
    ordered = sorted(EXPANSION_TYPES.values(), key=lambda c: c.order)
    EXPANSION_TYPES.clear()
    EXPANSION_TYPES.update((c.kind, c) for c in ordered)
    return cls


def knob_for(name: str) -> Knob:
    """The knob of flat expansion field ``name`` (``KeyError`` when no registered kind has one)."""
    knob = EXPANSION_TYPES[FIELD_OWNER[name]].knob(name)
    if knob is None:
        raise KeyError(name)
    return knob


def field_types() -> dict[str, str]:
    """Flat field name → its type name ("int", "float", "bool", "str") over every registered kind."""
    return {f.name: f.type if isinstance(f.type, str) else f.type.__name__
            for cls in EXPANSION_TYPES.values() for f in fields(cls)}


def expansion_from_flat(kind: str, values: dict[str, Any]) -> Expansion:
    """The ``kind`` expansion from flat fields. Fields of other kinds are checked by building their kind
    (a negative ``window`` is refused even for a token window) and then left out."""
    if kind not in EXPANSION_TYPES:
        raise ValueError(f"expansion must be one of {', '.join(EXPANSION_TYPES)}")
    chosen = None
    for name, cls in EXPANSION_TYPES.items():
        own = {f.name: values[f.name] for f in fields(cls) if f.name in values}
        if name == kind:
            chosen = cls(**own)
        elif own:
            cls(**own)
    assert chosen is not None
    return chosen


def expansion_from_dict(data: dict[str, Any]) -> Expansion:
    """An expansion from its composed form ``{"kind": ..., field: value, ...}``."""
    kind = data.get("kind", "none")
    if kind not in EXPANSION_TYPES:
        raise ValueError(f"expansion must be one of {', '.join(EXPANSION_TYPES)}")
    cls = EXPANSION_TYPES[kind]
    own = {f.name for f in fields(cls)}
    unknown = sorted(str(k) for k in data if k != "kind" and k not in own)
    if unknown:
        raise ValueError(f"unknown field(s) of expansion '{kind}': {', '.join(unknown)[:200]}")
    return cls(**{k: v for k, v in data.items() if k != "kind"})


def flat_value(expander: Expansion, name: str) -> Any:
    """Flat field ``name`` of a strategy with ``expander``: its value, or the owning kind's default."""
    if hasattr(expander, name) and FIELD_OWNER.get(name) == expander.kind:
        return getattr(expander, name)
    owner = EXPANSION_TYPES[FIELD_OWNER[name]]
    return getattr(owner(), name)


def check_not_negative(value: Expansion, *names: str) -> None:
    """Raise ``ValueError`` naming the first of ``names`` that is negative."""
    for name in names:
        if getattr(value, name) < 0:
            raise ValueError(f"{name} must not be negative")
