"""How many torch threads an embedding runs on, measured on this machine while it works.

A question (a small job) runs on one thread: on a busy 2-core machine two threads made it ~10x slower, each
waiting for the other at every layer while another program held a core. A bulk job (a chunk set) runs on
whichever of one thread and every core embedded faster per character in this process so far: on an idle
machine every core is ~1.7x faster, with another program busy one thread is ~2-3x faster
(``benchmarks/embedding_routes.py``). Each setting is measured on the job's own batches (an average that
follows the machine), and the one not in use is tried again every ``RETRY_EVERY`` batches, so a machine that
becomes idle or busy is noticed within a minute. torch's thread count is one per process: every call sets
what its own batch wants.
"""

from __future__ import annotations

import threading

RETRY_EVERY = 8  # batches between two tries of the setting not in use
WEIGHT = 0.5  # share of a new measurement in a setting's average


class ThreadChooser:
    """The thread count for each bulk batch: every setting tried once, then the faster, the other retried
    every ``retry_every`` batches."""

    def __init__(self, cores: int, retry_every: int = RETRY_EVERY) -> None:
        self.options = (cores, 1) if cores > 1 else (1,)
        self.retry_every = retry_every
        self.cost: dict[int, float] = {}  # threads → seconds per character (moving average)
        self.batches = 0
        self._lock = threading.Lock()

    def choose(self) -> int:
        """The thread count for the next bulk batch."""
        with self._lock:
            self.batches += 1
            untried = [n for n in self.options if n not in self.cost]
            if untried:
                return untried[0]
            ranked = sorted(self.options, key=lambda n: self.cost[n])
            return ranked[-1] if self.batches % self.retry_every == 0 else ranked[0]

    def record(self, threads: int, chars: int, seconds: float) -> None:
        """A batch of ``chars`` characters took ``seconds`` on ``threads`` threads."""
        if chars <= 0 or seconds <= 0 or threads not in self.options:
            return
        with self._lock:
            cost = seconds / chars
            old = self.cost.get(threads)
            self.cost[threads] = cost if old is None else (1 - WEIGHT) * old + WEIGHT * cost


_CHOOSER: list[ThreadChooser] = []
_GUARD = threading.Lock()


def chooser() -> ThreadChooser:
    """The process's chooser (torch's own thread count, read before anything here changed it, is 'every
    core')."""
    with _GUARD:
        if not _CHOOSER:
            import torch

            _CHOOSER.append(ThreadChooser(torch.get_num_threads()))
        return _CHOOSER[0]


def set_threads(n: int) -> None:
    """Run torch on ``n`` threads from now on (in this process)."""
    import torch

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
