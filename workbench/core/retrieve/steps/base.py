"""What every later step shares: the ``Step`` base, the ``Run`` it acts on, and the registry.

A later step is what a strategy does around its first-stage search and its expansion: LLM rerank, section
summaries (summary-to-detail), a per-document cap, whole documents for short ones. Each kind is one frozen
value class in its own module (its fields are its settings, its ``knobs`` the ones people change), registered
with ``@register_step``; a strategy holds the values of the kinds whose settings differ from their defaults
(``Strategy.steps``; the others are implied at their defaults, inactive). The pipeline runs the steps in
registration order at four points of a search, each step overriding only the hooks it needs:

* ``wrap_search``: the first-stage search, e.g. restricted to the best sections, or widened past a cap;
* ``reorder_hits``: the hits in a new order (its time kept as ``<kind>_ms``);
* ``wrap_expansion``: the expansion, e.g. whole documents for the hits in short ones;
* ``expand_instead``: passages made another way (rerank the expanded parents).

The strategy's JSON (the fields at the top level, as before steps were values), its description, its chips,
the window's controls and the command line's options are all derived from the registry, so a new step is one
new module plus its import in ``steps/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar

from workbench.core.retrieve.knobs import Knob, ParamValue

if TYPE_CHECKING:
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.retrieve.expansions.base import Expansion
    from workbench.core.retrieve.inputs import LLMSource, SearchInputs
    from workbench.core.retrieve.passages import Passage
    from workbench.core.retrieve.search import Hit
    from workbench.core.retrieve.summaries import SectionCache

Search = Callable[[int], "list[Hit]"]
"""The first-stage search: the first ``n`` hits."""
Expand = Callable[["list[Hit]"], "list[Passage]"]
"""Hits → passages."""


class Described(Protocol):
    """What a step reads of its strategy to describe itself (``Strategy`` satisfies it)."""

    @property
    def candidates(self) -> int: ...

    @property
    def expander(self) -> Expansion: ...


@dataclass
class Run:
    """One run of a strategy as its steps see it: the inputs, the LLM, the strategy's top-k and expansion, the
    retriever's section cache, the searches and expansion the pipeline offers, and the timings and warnings
    collected step by step."""

    ctx: SearchInputs
    llm: LLMSource
    top_k: int
    expander: Expansion
    section_cache: SectionCache
    search_cached: Search  # the strategy's first-stage search through the hit cache
    search_uncached: Search  # the same search, not cached
    expand: Callable[[list[Hit], Expansion], list[Passage]]  # hits expanded by an expansion (steps' wrappers applied)
    progress: ProgressSink | None = None
    cancel: CancelToken | None = None
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def note(self, warning: str) -> None:
        """Keep a step's warning (``""``: none)."""
        if warning:
            self.warnings.append(warning)


@dataclass(frozen=True)
class Step:
    """A later step of a strategy. Subclasses are frozen dataclasses whose fields are its settings; their
    names are unique across steps, expansions and the strategy's own fields (they sit at the top level of
    its JSON)."""

    kind: ClassVar[str] = ""
    label: ClassVar[str] = ""
    knobs: ClassVar[tuple[Knob, ...]] = ()  # the fields people change, in the window and on the command line
    order: ClassVar[int] = 100  # where it runs among the steps (lower first), and its chips' place
    phrase_order: ClassVar[int] = 100  # where its words sit in the strategy's description
    llm_use: ClassVar[str] = ""  # what it asks a generative LLM for, when active ("LLM rerank")

    @property
    def active(self) -> bool:
        """True when the step changes what a search returns (its defaults leave it inactive)."""
        raise NotImplementedError

    def needs_llm(self) -> bool:
        """True when it calls a generative LLM while a strategy searches."""
        return self.active and bool(self.llm_use)

    def describe(self, strategy: Described) -> str:
        """A few words for the strategy's description ('' when there is nothing to say)."""
        return ""

    def chip(self) -> tuple[str, str] | None:
        """The ``(aspect, text)`` chip of the knob summary line, or None (inactive)."""
        return None

    def candidates(self, top_k: int) -> int:
        """How many first-stage hits it wants for ``top_k`` (default ``top_k``)."""
        return top_k

    def applies(self, name: str, expander: Expansion) -> bool:
        """True when field ``name`` changes anything with ``expander`` (the window enables its control)."""
        return True

    # ----- the hooks the pipeline calls, in the order of the search ----------------------------------------
    def wrap_search(self, run: Run, search: Search) -> Search:
        """The first-stage search with this step around it (default: ``search`` itself)."""
        return search

    def reorder_hits(self, run: Run, hits: list[Hit]) -> list[Hit] | None:
        """The hits in this step's order, or None when it does not reorder them. The list's order is the order:
        the pipeline ranks the hits 1, 2, 3 … as returned (``in_step_order``), so a step need not renumber them."""
        return None

    @property
    def changes_expansion(self) -> bool:
        """True when ``wrap_expansion`` changes the expansion (an expansion that spends the budget itself then
        is trimmed like any other)."""
        return False

    def wrap_expansion(self, ctx: SearchInputs, expand: Expand) -> Expand:
        """The expansion with this step around it (default: ``expand`` itself)."""
        return expand

    def expand_instead(self, run: Run, hits: list[Hit]) -> tuple[list[Passage], list[Passage]] | None:
        """``(passages, left out)`` made by this step instead of the expansion within the budget, or None."""
        return None

    def to_dict(self) -> dict[str, ParamValue]:
        """``{field: value}`` (the strategy's JSON holds them at its top level)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


STEP_TYPES: dict[str, type[Step]] = {}
"""Registered step kinds, in ``order``."""
STEP_FIELDS: dict[str, str] = {}
"""Field name → the step kind that owns it."""


def in_step_order(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` ranked 1, 2, 3 … in the order given (a step's order is its list's), each keeping the rank it had
    before its first reordering as ``first_rank``."""
    return [h if h.rank == i else replace(h, rank=i, first_rank=h.first_rank or h.rank)
            for i, h in enumerate(hits, start=1)]


def register_step(cls: type[Step]) -> type[Step]:
    """Class decorator: make ``cls`` a later step (its fields are settings of every strategy, at their defaults
    unless given)."""
    if not cls.kind or cls.kind in STEP_TYPES:
        raise ValueError(f"step kind {cls.kind!r} is empty or registered twice")
    for f in fields(cls):
        if f.name in STEP_FIELDS:
            raise ValueError(f"step field {f.name!r} of {cls.kind!r} is already a field of {STEP_FIELDS[f.name]!r}")
    for f in fields(cls):
        STEP_FIELDS[f.name] = cls.kind
    ordered = sorted([*STEP_TYPES.values(), cls], key=lambda c: c.order)
    STEP_TYPES.clear()
    STEP_TYPES.update((c.kind, c) for c in ordered)
    return cls


def unregister_step(kind: str) -> None:
    """Forget step ``kind`` (a test that registered one takes it away again)."""
    cls = STEP_TYPES.pop(kind)
    for f in fields(cls):
        STEP_FIELDS.pop(f.name, None)


def step_field_types() -> dict[str, str]:
    """Field name → its type name ("int", "float", "bool", "str") over every registered step."""
    return {f.name: f.type if isinstance(f.type, str) else f.type.__name__
            for cls in STEP_TYPES.values() for f in fields(cls)}


def step_knobs() -> list[tuple[type[Step], Knob]]:
    """Every registered step's knobs, in step order (the window's controls and the command line's options)."""
    return [(cls, knob) for cls in STEP_TYPES.values() for knob in cls.knobs]


def normal_steps(steps: Sequence[Step]) -> tuple[Step, ...]:
    """``steps`` as a strategy keeps them: those that differ from their kind's defaults, in step order (a kind
    at its defaults is implied), so strategies compare equal whenever a step was registered (``ValueError``
    when a kind is given twice or is not registered)."""
    given: dict[str, Step] = {}
    for step in steps:
        if step.kind in given or STEP_TYPES.get(step.kind) is not type(step):
            raise ValueError(f"step {step.kind!r} is given twice or not registered")
        given[step.kind] = step
    return tuple(given[kind] for kind, cls in STEP_TYPES.items() if kind in given and given[kind] != cls())


def all_steps(steps: Sequence[Step]) -> list[Step]:
    """One value of every registered kind in step order: ``steps``' own, the rest at their defaults."""
    return [step_of(steps, cls) for cls in STEP_TYPES.values()]


S = TypeVar("S", bound=Step)


def step_of(steps: Sequence[Step], cls: type[S]) -> S:
    """The value of kind ``cls`` among ``steps`` (its defaults when absent)."""
    return next((s for s in steps if isinstance(s, cls)), None) or cls()


def with_step_changes(steps: Sequence[Step], changes: Mapping[str, ParamValue]) -> tuple[Step, ...]:
    """``steps`` with fields changed by name (``KeyError`` naming a field no step has; a value a step refuses
    raises its ``ValueError``)."""
    by_kind: dict[str, dict[str, ParamValue]] = {}
    for name, value in changes.items():
        by_kind.setdefault(STEP_FIELDS[name], {})[name] = value
    out = []
    for step in all_steps(steps):
        given = by_kind.get(step.kind)
        out.append(replace(step, **given) if given else step)  # fields checked by name
    return normal_steps(out)


def setting(steps: Sequence[Step], name: str) -> ParamValue:
    """The value of step field ``name`` (``KeyError`` when no registered step has it)."""
    return getattr(step_of(steps, STEP_TYPES[STEP_FIELDS[name]]), name)  # type: ignore[no-any-return]


def check_not_negative(step: Step, *names: str) -> None:
    """``ValueError`` naming the first of ``names`` whose value is below 0."""
    for name in names:
        if getattr(step, name) < 0:
            raise ValueError(f"{name} must not be negative")
