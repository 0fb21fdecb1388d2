"""What a data folder stores, read and written through the workspace (``ws.records``): documents, problems, cached
LLM outputs, experiment runs and strategies saved by name, so callers never reach into the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, replace
from typing import Any

from workbench.core.retrieve.strategy.presets import PRESETS, Strategy, check_saved_name, from_dict, resolve
from workbench.core.store import Store, ThreadStores
from workbench.core.store.readback import json_object, shown
from workbench.core.store.rows import DocumentRef, Problem, RunQuestionRow, RunRow, SavedStrategyRow


class Records:
    """The store's records callers read and write, over this thread's store."""

    def __init__(self, stores: ThreadStores) -> None:
        self._stores = stores

    @property
    def _store(self) -> Store:
        return self._stores.get()

    def documents(self) -> list[dict[str, Any]]:
        """Metadata rows of the stored documents (id, path, title, sha256 …; no text), by path."""
        return self._store.documents.rows()

    def data_version(self) -> int:
        """A number that grows whenever documents or chunk sets change, by this process or another one on the
        same data folder (the store's generation: one cheap read, for a window that polls it)."""
        return self._store.generation()

    def problems(self) -> list[Problem]:
        """Files that were skipped or failed, with the reason."""
        return [Problem(str(r["path"]), str(r["status"]), str(r["reason"]), str(r["checked"]))
                for r in self._store.documents.problems()]

    def document_by_path(self, path: str) -> DocumentRef | None:
        """The id and sha256 of the document stored for ``path``, or None."""
        row = self._store.documents.document_by_path(path)
        return None if row is None else DocumentRef(int(row["id"]), str(row["sha256"]))

    def cached_llm_output(self, kind: str, key: str, model: str) -> str | None:
        """An LLM output cached under ``(kind, key, model)``, or None."""
        return self._store.caches.llm_cached(kind, key, model)

    def cache_llm_output(self, kind: str, key: str, model: str, value: str) -> None:
        """Keep an LLM output (skipped where the store cannot be written)."""
        self._store.caches.put_llm_cached(kind, key, model, value)

    def record_run(self, run: RunRow, questions: Iterable[RunQuestionRow] = ()) -> None:
        """Store an experiment run and its question rows, in one transaction."""
        self._store.runs.insert_run(asdict(run), (asdict(q) for q in questions))

    def run_rows(self) -> list[RunRow]:
        """Every recorded run, newest first."""
        return [RunRow.of(r) for r in self._store.runs.run_rows()]

    def run_question_rows(self, run_id: str) -> list[RunQuestionRow]:
        """The question rows of one run, in question order (a row whose question index is not a number is named
        among the stored values that do not read, and left out)."""
        out = []
        for r in self._store.runs.run_question_rows(run_id):
            try:
                out.append(RunQuestionRow.of(r))
            except (TypeError, ValueError):
                self._store.bad_values.note(f"run {shown(run_id)} question {shown(r['q_index'])}",
                                            "q_index is not a number; it is left out")
        return out

    def delete_run(self, run_id: str) -> None:
        """Remove a run and its question rows."""
        self._store.runs.delete_run(run_id)

    def update_run(self, run_id: str, fields: dict[str, Any]) -> None:
        """Change some columns of a recorded run (``summary_json``, ``finished`` …)."""
        self._store.runs.update_run(run_id, fields)

    def replace_run(self, run: RunRow, questions: Iterable[RunQuestionRow] = ()) -> None:
        """Store a run and its question rows in place of the earlier record with its id, in one transaction."""
        self._store.runs.replace_run(asdict(run), (asdict(q) for q in questions))

    # ----- strategies saved by name ------------------------------------------------------------------
    def saved_strategies(self) -> dict[str, Strategy]:
        """The strategies saved in this data folder, by name (read as data: naming a custom chunker or a model
        folder loads nothing until the user allows it; ``Workspace.check_code_allowed``). One that no longer
        reads, or whose name a strategy could not be saved under (``saved_strategy_problems`` says which and
        why), is left out."""
        return {name: strategy for name, strategy, _ in self._read_saved() if strategy is not None}

    def saved_strategy_problems(self) -> list[tuple[str, str]]:
        """``(name, why)`` for each saved row that is not used: a name holding ``:`` or a path separator, or
        a preset's name (written into the database by something other than ``save_strategy``), or a strategy
        that no longer reads."""
        return [(name, problem) for name, _, problem in self._read_saved() if problem]

    def _read_saved(self) -> list[tuple[str, Strategy | None, str]]:
        out: list[tuple[str, Strategy | None, str]] = []
        for row in self._store.runs.saved_strategies():
            name = str(row["name"])
            try:
                check_saved_name(name)
            except ValueError as exc:
                shadowed = name in PRESETS or name == "custom"
                out.append((name, None, "shadowed by the preset of that name: the preset is used" if shadowed
                            else f"not used: {exc}"))
                continue
            data, problem = json_object(row["strategy_json"])
            try:
                if data is not None:
                    out.append((name, replace(from_dict(data), name=name), ""))
                    continue
            except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
                problem = f"is not a strategy ({str(exc)[:160]})"
            self._store.bad_values.note(f"saved strategy {shown(name)}", f"strategy_json {problem}; it is left out")
        return out

    def stored_value_warnings(self) -> list[str]:
        """The unreadable stored values this thread's store connection met so far (``store.readback``): each
        named, read as a safe default or left out."""
        return self._store.bad_values.messages()

    def saved_strategy_rows(self) -> list[SavedStrategyRow]:
        """The saved strategies' rows (name, strategy_json, source run, note, created)."""
        return [SavedStrategyRow(str(r["name"]), r["strategy_json"], str(r["source"] or ""), str(r["note"] or ""),
                                 str(r["created"] or "")) for r in self._store.runs.saved_strategies()]

    def save_strategy(self, name: str, strategy: Strategy, source: str = "", note: str = "") -> Strategy:
        """Keep ``strategy`` under ``name`` in the data folder (``--strategy NAME``, both sides' lists, the lab);
        ``source`` names the run it came from. A preset's name is refused."""
        check_saved_name(name)
        saved = replace(strategy, name=name)
        self._store.runs.save_strategy(name, saved.to_json(), source, note)
        return saved

    def delete_saved_strategy(self, name: str) -> bool:
        """Forget a saved strategy; False when there was none."""
        return self._store.runs.delete_saved_strategy(name)

    def resolve_strategy(self, spec: Strategy | str | dict[str, Any] | None) -> Strategy:
        """A strategy from a preset's or a saved strategy's name, JSON (``{"preset": NAME, ...}`` works with
        both) or a Strategy (``strategies.resolve`` with this folder's saved strategies)."""
        if spec is None or isinstance(spec, Strategy):
            return resolve(spec)
        saved = self.saved_strategies()
        if isinstance(spec, str) and spec not in saved:
            damaged = self._store.bad_values.find(f"saved strategy {shown(spec)}")
            if damaged:  # say why the name is unknown, not just that it is
                raise ValueError(damaged)
        return resolve(spec, saved)

