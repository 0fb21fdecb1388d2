"""What a sweep checks before it runs and what it says after: configurations whose embedding model folder is
missing or whose LLM steps (rerank, summaries) have no LLM are refused before any work; the warnings of each
configuration's searches, counted per question, become lines for the run's record and the eval table.

It reads a configuration and its result through the two protocols below (``Configured``, ``Noted``), which
``sweep.SweepConfig`` and ``sweep.ConfigResult`` satisfy, so it imports nothing of ``sweep`` (which imports it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Protocol

from workbench.core.index.embedder_pool import missing_model_folder

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace
    from workbench.core.retrieve.strategy.value import Strategy


class Configured(Protocol):
    """One configuration of a sweep, as these checks read it (``sweep.SweepConfig``)."""

    @property
    def key(self) -> str: ...

    @property
    def strategy(self) -> Strategy: ...


class Noted(Protocol):
    """One configuration's result, as ``note_lines`` reads it (``sweep.ConfigResult``)."""

    @property
    def config(self) -> Configured: ...

    @property
    def rows(self) -> Sized: ...

    @property
    def notes(self) -> Mapping[str, int]: ...


def llm_steps(strategy: Strategy) -> list[str]:
    """The steps of ``strategy`` that need a generative LLM while it searches (LLM rerank, summaries)."""
    return strategy.llm_steps()


SWEEP_UNASKED = 200  # configurations a sweep runs without asking (the command line's --yes, the lab's dialog)


def sweep_size_problem(configs: Sequence[Configured], questions: int) -> str | None:
    """What a sweep of more than ``SWEEP_UNASKED`` configurations will run, as one line for a question
    (a typo in a grid multiplies into hours); None for a smaller sweep."""
    if len(configs) <= SWEEP_UNASKED:
        return None
    chunkings = {(c, s.strategy.model) for s in configs for c in s.strategy.chunk_configs()}
    return (f"this sweep runs {len(configs):,} configurations over {questions:,} questions "
            f"({len(configs) * questions:,} searches, {len(chunkings):,} chunk sets to build or reuse)")


class MissingLLM(ValueError):
    """A configuration has a step that needs a generative LLM and none is available."""


def llm_step_problem(configs: Sequence[Configured], why: str, fix: str = "") -> str:
    """The one line refusing ``configs`` whose LLM steps cannot run (``why``: why there is no LLM; ``fix``: how
    to get one); '' when none of them has such a step."""
    needing = {c.key: llm_steps(c.strategy) for c in configs if llm_steps(c.strategy)}
    if not needing:
        return ""
    names = ", ".join(f"{key!r} ({' and '.join(steps)})" for key, steps in list(needing.items())[:3])
    more = f" and {len(needing) - 3} more" if len(needing) > 3 else ""
    verb = "needs" if len(needing) == 1 else "need"
    return f"{names}{more} {verb} a generative LLM and none is available ({why}){'; ' + fix if fix else ''}; " \
        "nothing was run"


def check_llm_steps(ws: EvalWorkspace, configs: Sequence[Configured]) -> None:
    """Raise ``MissingLLM`` when a configuration has a step that needs a generative LLM (``llm_steps``) and the
    workspace has none: its rows would be labelled with a step that never ran."""
    if not any(llm_steps(c.strategy) for c in configs):
        return
    llm, why = ws.pipeline_llm()
    if llm is None:
        raise MissingLLM(llm_step_problem(configs, why))


def model_problem(configs: Sequence[Configured]) -> str:
    """The one line naming the first configuration whose embedding model folder does not exist ('' if none)."""
    for c in configs:
        folder = missing_model_folder(c.strategy.model)
        if folder:
            return f"configuration {c.key!r}: no such embedding model folder: {folder}"
    return ""


def note_lines(results: Sequence[Noted], shown: int = 3) -> list[str]:
    """``key: warning (N of M questions)`` for each configuration's notes (the ``shown`` most frequent, then
    how many other warnings)."""
    lines = []
    for cr in results:
        ranked = sorted(cr.notes.items(), key=lambda kv: -kv[1])
        total = len(cr.rows)
        lines += [f"{cr.config.key}: {msg} ({n} of {total} questions)" for msg, n in ranked[:shown]]
        if len(ranked) > shown:
            rest = ranked[shown:]
            lines.append(f"{cr.config.key}: {len(rest)} other warning(s) on {sum(n for _, n in rest)} search(es)")
    return lines
