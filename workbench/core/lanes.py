"""Lanes: how a bulk embedding job uses the cores.

torch's own threads split every matrix product across the cores and meet after each operation, so a forward
pass moves at the pace of its slowest core. A lane is one Python thread running whole forward passes on one
torch thread; a job's batches wait in one queue and each lane takes the next when it is free (torch releases
the interpreter lock while it computes). Measured on this machine (``benchmarks/embedding_routes.py``,
docs/performance.md): a lane per core embeds at 1.24× the rate of torch's threads in fp32, and bf16 autocast
on the lanes at 2.1–2.3× the exact model on torch's threads; with another program holding a core, the lanes
embedded 17.0 texts/s against 10.1 on torch's threads (``benchmarks/busy_core.py``): a busy core only makes
its lane take fewer batches, where torch's threads all wait for it. A question (one small batch) runs on the caller's
thread, also on one torch thread.

torch's thread count is one per process: from the first call here it is one, and the lanes are shared by every
job in the process (two jobs at once take turns batch by batch).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

from workbench.core.jobs import CancelToken

MAX_LANES = 8  # more lanes than this hold more activations than they gain on a laptop
T = TypeVar("T")
R = TypeVar("R")

_POOLS: dict[int, ThreadPoolExecutor] = {}  # lane count → its threads (one count per process in practice)
_CORES: list[int] = []
_GUARD = threading.Lock()


def cores() -> int:
    """The cores torch would use on its own (its thread count, read before anything here changed it)."""
    with _GUARD:
        if not _CORES:
            import torch

            _CORES.append(max(1, int(torch.get_num_threads())))
        return _CORES[0]


def lane_count() -> int:
    """How many lanes a bulk job runs on: one per core, at most ``MAX_LANES``."""
    return min(cores(), MAX_LANES)


def one_torch_thread() -> None:
    """Run torch's operations on the calling thread alone (what a lane and a question both want)."""
    cores()  # read torch's own count before it is changed
    import torch

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def _pool(lanes: int) -> ThreadPoolExecutor:
    with _GUARD:
        if lanes not in _POOLS:
            _POOLS[lanes] = ThreadPoolExecutor(max_workers=lanes, thread_name_prefix=_LANE_PREFIX)
        return _POOLS[lanes]


_LANE_PREFIX = "workbench-lane"


def _on_a_lane() -> bool:
    return threading.current_thread().name.startswith(_LANE_PREFIX)


def in_lanes(work: Callable[[T], R], items: Sequence[T], cancel: CancelToken | None = None) -> Iterator[R]:
    """``work(item)`` for every item, run on the lanes, the results yielded in the items' order as they are
    ready. A cancel stops the batches not yet started and raises once the running ones are done; so does the
    first error, which is raised as it was. Called from a lane, the items run on that lane, one after another."""
    one_torch_thread()
    lanes = lane_count()
    if lanes == 1 or len(items) <= 1 or _on_a_lane():  # a lane waiting for lanes could wait for itself
        for item in items:
            if cancel is not None:
                cancel.check()
            yield work(item)
        return

    def guarded(item: T) -> R:
        if cancel is not None:
            cancel.check()
        return work(item)

    futures: list[Future[R]] = [_pool(lanes).submit(guarded, item) for item in items]
    try:
        for future in futures:
            yield future.result()
    finally:  # an error, a cancel or a caller that stopped early: nothing of this job keeps running
        for future in futures:
            future.cancel()
        wait(futures)
