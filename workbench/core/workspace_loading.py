"""Loading a chunk set for search while other threads and processes may be writing the data folder (a mixin
of ``core.workspace.Workspace``, which provides the store, the writer lock, the models and the caches a loaded
set replaces).
"""

from __future__ import annotations

import time
from pathlib import Path

from workbench.core.index.build import index_path, sync_index
from workbench.core.index.embedder_pool import EmbedderPool
from workbench.core.index.locking import FileLock, LockBusy
from workbench.core.index.snapshot import read_only_snapshot, try_snapshot
from workbench.core.index.vectors import VectorIndex
from workbench.core.jobs import ProgressEvent, ProgressSink
from workbench.core.retrieve.corpus_lookups import WorkspaceParts
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.pipeline import Retriever
from workbench.core.store import ChunkSetInfo, ChunkTable, StoreError, WriteRefused

SNAPSHOT_WAIT_S = 600.0  # how long a reader waits for a writer to finish saving a chunk set's vector index


class SetLoading(WorkspaceParts):
    """Chunk sets loaded in memory; the workspace provides ``WorkspaceParts``, the attributes below and
    ``_forget_documents``."""

    data_dir: Path
    writer: FileLock
    models: EmbedderPool
    retriever: Retriever
    _runtimes: dict[str, LoadedSet]
    _generation_seen: int

    def _forget_documents(self) -> None:  # pragma: no cover - provided by the workspace
        raise NotImplementedError

    def _has_snapshot(self, info: ChunkSetInfo) -> bool:
        return info.id in self._runtimes or index_path(self.data_dir, info.id).exists()

    def runtime(self, set_id: str, progress: ProgressSink | None = None) -> LoadedSet:
        """The chunk set loaded in memory (FAISS verified against the database, rebuilt if needed).

        The FAISS file must match the sha256 recorded when it was written; a damaged or stale file is
        rebuilt from the cached vectors under the writer lock. A loaded set is kept while its chunks and the
        documents they were cut from stay the same (checked when the store's generation moves, in this
        process or another: the cached document texts are then dropped too), else it is loaded again. While
        another thread or process writes, the
        verified file on disk is read (nothing is written), and while the writer is between replacing that
        file and recording its digest this waits for it (``progress`` hears "waiting for another writer…"
        once), for at most ``SNAPSHOT_WAIT_S``.
        On a read-only store a file that does not match its digest is reported as such.
        """
        generation = self.store.generation()
        info = self.store.chunk_set(set_id)
        with self._lock:
            if generation != self._generation_seen:  # another process may have changed documents' texts
                self._generation_seen = generation
                self._forget_documents()
            rt = self._runtimes.get(set_id)
            if rt is not None and rt.generation == generation:
                return rt
            chunked = self.store.chunked_docs(set_id)  # read before the chunks: a change after it reloads
            if rt is not None and (rt.info.chunk_count, rt.info.state, rt.chunked) == (info.chunk_count, info.state,
                                                                                        chunked):
                rt.generation = generation  # the change was elsewhere (another set, other documents)
                return rt
            if not self.store.writable:
                table, index = read_only_snapshot(self.store, self.data_dir, set_id)
            else:
                table, index = self._load_while_writers_work(set_id, info, progress)
            rt = LoadedSet(info, table, index, generation, chunked)
            self._runtimes[set_id] = rt
            self.retriever.forget_hits()  # cached hits hold rows of the previous snapshot
            self.retriever.forget_sections()
            return rt

    def _load_while_writers_work(self, set_id: str, info: ChunkSetInfo,
                                 progress: ProgressSink | None) -> tuple[ChunkTable, VectorIndex]:
        """The chunks and FAISS index of ``set_id``: synced under the writer lock when it is free, else the
        verified snapshot on disk, waiting while a writer is mid-save (see ``runtime``)."""
        deadline = time.monotonic() + SNAPSHOT_WAIT_S
        noticed = False
        while True:
            try:
                with self.writer.held(timeout=0):
                    table = self.store.chunk_table(set_id)
                    embedder = self.models.by_model_id(info.model_id) or self.embedder
                    try:
                        return table, sync_index(self.store, self.data_dir, set_id, embedder)
                    except WriteRefused:  # a full disk: the verified file on disk is the last complete state
                        snapshot = try_snapshot(self.store, self.data_dir, set_id)
                        if snapshot is None:
                            raise
                        return snapshot
            except LockBusy:
                pass
            snapshot = try_snapshot(self.store, self.data_dir, set_id)
            if snapshot is not None:
                return snapshot
            if time.monotonic() > deadline:
                raise StoreError(f"another process has been writing chunk set {set_id} for over "
                                 f"{SNAPSHOT_WAIT_S:.0f} s and its vector index is not complete yet; nothing "
                                 "was lost. Try again when it has finished.")
            if not noticed and progress is not None:
                who = self.writer.holder_pid()
                progress(ProgressEvent("waiting", 0, 0, "waiting for another writer"
                                       + (f" (pid {who})" if who else "") + "…"))
                noticed = True
            time.sleep(0.1)
