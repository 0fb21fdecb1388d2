"""A small thread-safe least-recently-used cache (reading an entry makes it the most recent)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class LRU(OrderedDict[K, V], Generic[K, V]):
    """At most ``size`` entries; ``get`` and ``put`` mark an entry as most recently used, and the least
    recently used entry is dropped when a ``put`` goes over the size."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        self._guard = threading.Lock()

    @overload
    def get(self, key: K, default: None = None) -> V | None: ...

    @overload
    def get(self, key: K, default: V | T) -> V | T: ...

    def get(self, key: K, default: V | T | None = None) -> V | T | None:
        """The value for ``key`` (now the most recently used), else ``default``."""
        with self._guard:
            if key not in self:
                return default
            self.move_to_end(key)
            return self[key]

    def put(self, key: K, value: V) -> V:
        """Store ``value`` under ``key`` and return it."""
        with self._guard:
            self[key] = value
            self.move_to_end(key)
            while len(self) > self.size:
                self.popitem(last=False)
        return value

    def clear(self) -> None:
        """Drop every entry."""
        with self._guard:
            super().clear()
