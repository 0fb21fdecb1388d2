"""The store: one SQLite file per data folder (schema and migrations, every SQL statement, one facade).

``Store`` is the facade (a connection and its parts: ``documents``, ``sets``, ``caches``, ``runs``),
``ThreadStores`` one per thread; ``StoreError`` is the one error of the data folder worded for people
(``WriteRefused``: a write refused while reading goes on).
"""

from workbench.core.store.connection import now
from workbench.core.store.errors import StoreError, WriteRefused
from workbench.core.store.store import DB_NAME, Store, ThreadStores
from workbench.core.store.values import ChunkSetInfo, ChunkTable, DocumentGone, Scope

__all__ = ["DB_NAME", "ChunkSetInfo", "ChunkTable", "DocumentGone", "Scope", "Store", "StoreError", "ThreadStores",
           "WriteRefused", "now"]
