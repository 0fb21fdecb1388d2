"""Where ``eval`` and ``advise`` find a question set: a folder (Chroma's format), a set stored in the data folder
by name (``workbench questions``), or a bundled set by name, in that order. Shared option helpers, no command."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands.common import UserError, existing_path, say

if TYPE_CHECKING:
    from workbench.core.evaluate.question_set import QuestionSet
    from workbench.core.workspace import Workspace


def stored_set_exists(args: argparse.Namespace, name: str) -> bool:
    """True when the ``--data-dir`` store holds a question set called ``name`` (only reads; a data folder that
    holds no store yet is not created)."""
    from workbench.core.data_folder import resolve_data_dir
    from workbench.core.store import DB_NAME, Store

    db = resolve_data_dir(getattr(args, "data_dir", None)) / DB_NAME
    if not db.is_file():
        return False
    store = Store(db)
    try:
        return store.question_sets.find(name) is not None
    finally:
        store.close()


def check_dataset(args: argparse.Namespace, dataset: str) -> None:
    """Refuse, before the store is changed, a question set that is neither a folder, a stored set nor a bundled
    set's name."""
    from workbench.core.evaluate.bundled import bundled_path

    if Path(dataset).expanduser().exists():
        existing_path(dataset, "question set folder", "dir")
        return
    if stored_set_exists(args, dataset) or bundled_path(dataset) is not None:
        return
    raise UserError(f"no such question set folder: {dataset} (nor a set stored in the data folder: workbench "
                    "questions list; nor a bundled set: workbench datasets)")


def load_dataset(args: argparse.Namespace, ws: Workspace, dataset: str, reviewed_only: bool = False,
                 follow_links: bool = False, max_file_mb: float | None = None) -> QuestionSet:
    """The question set ``dataset`` names: a folder, a stored set (saying how many unreviewed drafts it holds
    and what was left out), or a bundled set."""
    from workbench.core.evaluate.datasets import DatasetError, load_question_set
    from workbench.core.ingest.documents import MAX_FILE_MB

    if not Path(dataset).expanduser().exists() and dataset in ws.questions.names():
        view = ws.questions.question_set(dataset, reviewed_only)
        if view.unreviewed and not reviewed_only:
            say(f"note: {dataset!r} holds {view.unreviewed} unreviewed draft(s), scored with the rest "
                "(--reviewed-only leaves them out; workbench questions review reviews them)", err=True)
        if not view.qset.questions:
            raise UserError(f"question set {dataset!r} has no question to score"
                            + (f" ({'; '.join(view.left_out)})" if view.left_out else ""))
        return view.qset
    if reviewed_only:
        raise UserError("--reviewed-only applies to a set stored in the data folder (workbench questions list); "
                        f"{dataset} is a folder of questions")
    try:
        return load_question_set(dataset, follow_links=follow_links,
                                 max_file_mb=MAX_FILE_MB if max_file_mb is None else max_file_mb)
    except DatasetError as exc:
        raise UserError(str(exc)) from None
