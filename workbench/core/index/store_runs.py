"""The store's experiment records: ``runs`` and their per-question rows ``run_questions``.

The rows are plain dicts of column values; ``workbench.core.evaluate.records`` encodes and decodes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workbench.core.index.store_connection import StoreConnection, writes


class RunTables(StoreConnection):
    """Evaluation runs and their question rows."""

    @writes
    def insert_run(self, run: dict[str, Any], questions: Iterable[dict[str, Any]] = ()) -> None:
        """Store one run row and its question rows, in one transaction."""
        with self.transaction():
            self.db.table("runs").insert(run)
            self.db.table("run_questions").insert_all(questions)

    def run_rows(self) -> list[dict[str, Any]]:
        """Every run row, newest first."""
        return list(self.db.query("SELECT * FROM runs ORDER BY started DESC, id DESC"))

    def run_question_rows(self, run_id: str) -> list[dict[str, Any]]:
        """The question rows of one run, in question order."""
        return list(self.db.query("SELECT * FROM run_questions WHERE run_id = ? ORDER BY q_index", [run_id]))

    @writes
    def delete_run(self, run_id: str) -> None:
        """Remove a run and its question rows, in one transaction."""
        with self.transaction():
            self.db.execute("DELETE FROM run_questions WHERE run_id = ?", [run_id])
            self.db.execute("DELETE FROM runs WHERE id = ?", [run_id])
