"""The store's records of experiments: evaluation and advice runs with their question rows, and strategies saved
by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workbench.core.store.connection import Tables, now, writes


class RunTables(Tables):
    """The ``runs``, ``run_questions`` and ``saved_strategies`` tables of a workbench database (``store.runs``)."""

    # ----- evaluation runs ----------------------------------------------------------------------
    @writes
    def insert_run(self, run: dict[str, Any], questions: Iterable[dict[str, Any]] = ()) -> None:
        """Store one run row and its question rows, in one transaction."""
        with self.connection.transaction():
            self.db.table("runs").insert(run)
            self.db.table("run_questions").insert_all(questions)

    @writes
    def update_run(self, run_id: str, fields: dict[str, Any]) -> None:
        """Change some columns of one run row (an advice run records its trials as it goes)."""
        allowed = {"label", "config_json", "summary_json", "finished", "dataset_hash"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"runs has no updatable column {sorted(unknown)[0]!r}")
        if fields:
            self.db.table("runs").update(run_id, fields)

    @writes
    def replace_run(self, run: dict[str, Any], questions: Iterable[dict[str, Any]] = ()) -> None:
        """Store a run row and its question rows in place of any earlier ones with its id, in one transaction."""
        with self.connection.transaction():
            self.db.execute("DELETE FROM run_questions WHERE run_id = ?", [run["id"]])
            self.db.execute("DELETE FROM runs WHERE id = ?", [run["id"]])
            self.db.table("runs").insert(run)
            self.db.table("run_questions").insert_all(questions)

    def run_rows(self) -> list[dict[str, Any]]:
        """Every run row, newest first."""
        return list(self.db.query("SELECT * FROM runs ORDER BY started DESC, rowid DESC"))

    def run_question_rows(self, run_id: str) -> list[dict[str, Any]]:
        """The question rows of one run, in question order."""
        return list(self.db.query("SELECT * FROM run_questions WHERE run_id = ? ORDER BY q_index", [run_id]))

    @writes
    def delete_run(self, run_id: str) -> None:
        """Remove a run and its question rows, in one transaction."""
        with self.connection.transaction():
            self.db.execute("DELETE FROM run_questions WHERE run_id = ?", [run_id])
            self.db.execute("DELETE FROM runs WHERE id = ?", [run_id])

    # ----- strategies saved by name (the advisor's picks) ----------------------------------------------
    @writes
    def save_strategy(self, name: str, strategy_json: str, source: str = "", note: str = "") -> None:
        """Keep a strategy under ``name`` (replacing one saved under it before)."""
        self.db.execute(
            "INSERT OR REPLACE INTO saved_strategies (name, strategy_json, source, note, created) "
            "VALUES (?, ?, ?, ?, ?)", [name, strategy_json, source, note, now()])

    def saved_strategies(self) -> list[dict[str, Any]]:
        """Every saved strategy row (name, strategy_json, source, note, created), by name."""
        return list(self.db.query(
            "SELECT name, strategy_json, source, note, created FROM saved_strategies ORDER BY name"))

    @writes
    def delete_saved_strategy(self, name: str) -> bool:
        """Forget the strategy saved under ``name``; False when there was none."""
        return self.db.execute("DELETE FROM saved_strategies WHERE name = ?", [name]).rowcount > 0
