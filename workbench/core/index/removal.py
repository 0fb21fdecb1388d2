"""Taking documents out of the index by path: a file or a folder as typed, on disk or gone from it."""

from __future__ import annotations

import os
from collections.abc import Sequence

from workbench.core.ingest.filenames import is_inside, path_key, shown
from workbench.core.store import Store


def remove_under(store: Store, paths: Sequence[str]) -> list[str]:
    """Take out of ``store`` every document at or under each path (a file or a folder, as typed, on disk or
    gone from it: nothing on disk is read or touched) and forget the problems recorded there; returns the
    removed documents' paths. The caller holds the writer lock and refreshes the chunk sets' FAISS files."""
    keys: set[str] = set()
    for p in paths:
        full = os.path.abspath(os.path.expanduser(p)).rstrip(os.sep) or os.sep
        keys |= {shown(full), path_key(full), path_key(full, follow=False)}
    docs = [d for d in store.documents.rows() if any(is_inside(d["path"], k) for k in keys)]
    for d in docs:
        store.documents.remove_document(d["id"])
    store.documents.forget_problems([p["path"] for p in store.documents.problems()
                                     if any(is_inside(p["path"], k) for k in keys)])
    return [d["path"] for d in docs]
