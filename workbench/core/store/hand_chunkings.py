"""The store's hand-made chunkings (``hand_chunkings``): a base chunker and an ordered list of edits to its cuts,
by name (``workbench cuts``; the ``edited:NAME`` chunkers read them)."""

from __future__ import annotations

from collections.abc import Callable

from workbench.core.ingest.chunkers.hand_edits import HandChunking, edits_from_json
from workbench.core.store.connection import Tables, now, writes


class HandChunkingTables(Tables):
    """The ``hand_chunkings`` table of a workbench database (``store.cuts``)."""

    def get(self, name: str) -> HandChunking | None:
        """The chunking called ``name``, or None (also when its stored edits do not read: ``problem`` says)."""
        row = self.db.execute("SELECT name, base_strategy, base_chunker, edits_json FROM hand_chunkings "
                              "WHERE name = ?", [name]).fetchone()
        if row is None:
            return None
        try:
            edits = edits_from_json(row[3])
        except (ValueError, KeyError, TypeError):
            return None
        return HandChunking(row[0], row[1], row[2], edits)

    def names(self) -> list[str]:
        """Every chunking's name, sorted."""
        return [r[0] for r in self.db.execute("SELECT name FROM hand_chunkings ORDER BY name")]

    @writes
    def save(self, hand: HandChunking) -> None:
        """Keep ``hand`` under its name (replacing its earlier base and edits)."""
        stamp = now()
        self.db.execute(
            "INSERT INTO hand_chunkings (name, base_strategy, base_chunker, edits_json, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET base_strategy = excluded.base_strategy, "
            "base_chunker = excluded.base_chunker, edits_json = excluded.edits_json, updated = excluded.updated",
            [hand.name, hand.base_strategy, hand.base_chunker, hand.edits_json(), stamp, stamp])

    @writes
    def update(self, name: str, change: Callable[[HandChunking | None], HandChunking]) -> HandChunking | None:
        """Keep ``change(the chunking called name as stored now, or None)`` under its name, read and written in
        one write transaction (``BEGIN IMMEDIATE``: another writer's change between the read and the write is
        never lost); returns the chunking as it was before. ``change`` raising keeps nothing."""
        before = self.get(name)
        self.save(change(before))
        return before

    @writes
    def delete(self, name: str) -> bool:
        """Forget the chunking called ``name``; False when there was none."""
        return self.db.execute("DELETE FROM hand_chunkings WHERE name = ?", [name]).rowcount > 0
