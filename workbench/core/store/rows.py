"""Typed rows of the records the workspace hands out (``ws.records``): problems, document references, recorded
runs and their questions, strategies saved by name. Frozen: a row is what was read, not a handle to change it.

JSON columns stay the stored text (``object``: a damaged value may be anything); the readers that decode them
(``evaluate.records``, ``workspace.records``) name a value that does not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """A file that was skipped or failed, and why."""

    path: str
    status: str  # "skipped" or "failed"
    reason: str
    checked: str  # when (ISO time)


@dataclass(frozen=True)
class DocumentRef:
    """The id and content hash of a stored document."""

    id: int
    sha256: str


@dataclass(frozen=True)
class RunRow:
    """A recorded run as stored; its JSON columns undecoded (``evaluate.records`` decodes them and names a value
    that does not read)."""

    id: str
    kind: str
    label: str
    config_json: object
    dataset_hash: str
    code_version: str
    started: str
    finished: str | None
    summary_json: object

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> RunRow:
        """From a ``runs`` row (a missing text as empty)."""
        return cls(str(row["id"]), str(row["kind"]), str(row["label"] or ""), row["config_json"],
                   str(row["dataset_hash"] or ""), str(row["code_version"] or ""), str(row["started"] or ""),
                   None if row["finished"] is None else str(row["finished"]), row["summary_json"] or "{}")


@dataclass(frozen=True)
class RunQuestionRow:
    """One question of one configuration of a recorded run; spans and metrics as stored JSON text."""

    run_id: str
    config_key: str
    q_index: int
    question: str
    spans_json: object
    metrics_json: object
    answer: str | None
    label: str | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> RunQuestionRow:
        """From a ``run_questions`` row (``ValueError`` / ``TypeError`` when its index is not a number)."""
        return cls(str(row["run_id"]), str(row["config_key"]), int(row["q_index"]), str(row["question"] or ""),
                   row["spans_json"], row["metrics_json"], None if row["answer"] is None else str(row["answer"]),
                   None if row["label"] is None else str(row["label"]))


@dataclass(frozen=True)
class SavedStrategyRow:
    """A strategy saved by name as stored (``saved_strategies`` reads the strategy itself)."""

    name: str
    strategy_json: object
    source: str  # the run it came from ("" when saved by hand)
    note: str
    created: str
