"""What every expansion value shares: the ``Expansion`` base, knob metadata and the registry.

An expansion turns a strategy's hits into the passages sent as context. Each kind is one frozen value
class in its own module (its fields are its knobs), registered with ``@register``: the strategy, its
JSON and the GUI's controls are all derived from the registry, so a new expansion is one new module plus
its import in ``expansions/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, ClassVar

from workbench.core.retrieve.knobs import Knob as Knob
from workbench.core.retrieve.knobs import ParamValue as ParamValue

if TYPE_CHECKING:
    from workbench.core.retrieve.inputs import SearchInputs
    from workbench.core.retrieve.loaded_set import LoadedSet
    from workbench.core.retrieve.passages import Passage
    from workbench.core.retrieve.search import Hit


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

    def expand(self, ctx: SearchInputs, hits: Sequence[Hit]) -> list[Passage]:
        """The passages for ``hits`` (merged where they meet), in rank order."""
        raise NotImplementedError

    def expand_detailed(self, ctx: SearchInputs, hits: Sequence[Hit]) -> tuple[list[Passage], list[Passage]]:
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

    def note(self, runtime: LoadedSet, hits: Sequence[Hit]) -> str:
        """A warning about these settings on these hits, or ''."""
        return ""

    def passages_wanted(self, top_k: int) -> int:
        """How many passages this expansion returns for ``top_k`` hits (kept after reranking expanded
        passages); default ``top_k``."""
        return top_k

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

    def to_dict(self) -> dict[str, ParamValue]:
        """``{"kind": ..., field: value, ...}``."""
        return {"kind": self.kind, **{f.name: getattr(self, f.name) for f in fields(self)}}


EXPANSION_TYPES: dict[str, type[Expansion]] = {}
"""Registered expansion kinds, by ``order``."""
FIELD_OWNER: dict[str, str] = {}
"""Field name → the expansion kind that owns it (names are unique across kinds: a knob or a flat JSON field
names its kind)."""


def register(cls: type[Expansion]) -> type[Expansion]:
    """Class decorator: make ``cls`` an expansion kind (its fields are its knobs and JSON fields)."""
    if not cls.kind or cls.kind in EXPANSION_TYPES:
        raise ValueError(f"expansion kind {cls.kind!r} is empty or registered twice")
    for f in fields(cls):
        if f.name in FIELD_OWNER:
            raise ValueError(f"expansion field {f.name!r} of {cls.kind!r} is already a field of "
                             f"{FIELD_OWNER[f.name]!r}")
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
    """Field name → its type name ("int", "float", "bool", "str") over every registered kind."""
    return {f.name: f.type if isinstance(f.type, str) else f.type.__name__
            for cls in EXPANSION_TYPES.values() for f in fields(cls)}


def expansion_type(kind: str) -> type[Expansion]:
    """The registered class of ``kind`` (``ValueError`` naming the kinds when there is none)."""
    if kind not in EXPANSION_TYPES:
        raise ValueError(f"expansion must be one of {', '.join(EXPANSION_TYPES)}")
    return EXPANSION_TYPES[kind]


def kind_after(kind: str, changes: Mapping[str, ParamValue]) -> str:
    """The expansion kind once ``changes`` apply: a window over 0 on no expansion means neighbour windows
    (the one place this rule lives; the window's knob and the command line's ``--window`` both follow it)."""
    window = changes.get("window")
    if kind == "none" and isinstance(window, int) and not isinstance(window, bool) and window > 0:
        return FIELD_OWNER["window"]
    return kind


def build_expansion(kind: str, values: Mapping[str, ParamValue], base: Expansion | None = None) -> Expansion:
    """The ``kind`` expansion, its fields taken from ``values``, the rest from ``base`` when it is of that
    kind (else the defaults); values of other kinds' fields are not looked at."""
    cls = expansion_type(kind)
    own = {f.name for f in fields(cls)}
    kept = {k: v for k, v in base.to_dict().items() if k in own} if base is not None and base.kind == kind else {}
    return cls(**{**kept, **{k: v for k, v in values.items() if k in own}})


def with_changes(expander: Expansion, changes: Mapping[str, ParamValue]) -> Expansion:
    """``expander`` with some fields changed (``kind_after`` decides the kind). A field of another kind is
    refused unless it holds that kind's default (then it changes nothing): a setting that would silently not
    apply is an error, not a result labelled with it."""
    kind = kind_after(expander.kind, changes)
    cls = expansion_type(kind)
    own = {f.name for f in fields(cls)}
    for name, value in changes.items():
        if name in own:
            continue
        if name not in FIELD_OWNER:
            raise ValueError(f"no expansion has a field {name!r}")
        owner = EXPANSION_TYPES[FIELD_OWNER[name]]
        if getattr(owner(), name) != value:
            raise ValueError(f"{name} belongs to the {owner.kind} expansion; this strategy expands by "
                             f"{kind}, so it would not apply")
    return build_expansion(kind, changes, expander)


def knob_value(expander: Expansion, name: str) -> ParamValue:
    """What the knob of field ``name`` shows for ``expander``: its value when ``expander``'s kind owns the
    field, else the owning kind's default (the knob is then disabled or switches the kind)."""
    if FIELD_OWNER.get(name) == expander.kind:
        value: ParamValue = getattr(expander, name)
        return value
    default: ParamValue = getattr(expansion_type(FIELD_OWNER[name])(), name)
    return default


def check_not_negative(value: Expansion, *names: str) -> None:
    """Raise ``ValueError`` naming the first of ``names`` that is negative."""
    for name in names:
        if getattr(value, name) < 0:
            raise ValueError(f"{name} must not be negative")
