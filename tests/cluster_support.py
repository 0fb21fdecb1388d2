"""Helpers for the Ray cluster tests (not a test module): two data folders compared chunk by chunk, and the
listening sockets of this process's descendants (Ray's processes), read from /proc."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import numpy as np

from workbench.core.store import Store


def chunk_sets(data_dir: Path) -> dict[str, tuple[list[tuple[int, int, int, int, str, str]], np.ndarray]]:
    """Every ready chunk set of a data folder: set id → (rows (chunk id, doc id, start, end, prefix, text hash),
    vectors in chunk order)."""
    store = Store(Path(data_dir) / "workbench.sqlite3")
    try:
        out = {}
        for info in store.sets.chunk_sets():
            assert info.state == "ready", f"{info.id} is {info.state}"
            ids = [int(i) for i in store.sets.chunk_ids(info.id)]
            rows = [(i, *span) for i, span in zip(ids, store.sets.chunk_spans(ids), strict=True)]
            cached = store.caches.cached_vectors(info.model_id, [r[5] for r in rows])
            vectors = np.stack([cached[r[5]] for r in rows]) if rows else np.zeros((0, 0), np.float32)
            out[info.id] = (rows, vectors)
        return out
    finally:
        store.close()


def descendants(pid: int) -> list[int]:
    """Process ids under ``pid`` (children, their children …), read from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _address(hex_address: str) -> str:
    host, _ = hex_address.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw[::-1]))
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    address = ipaddress.IPv6Address(words)
    return str(address.ipv4_mapped or address)


def listening_addresses(pids: list[int]) -> set[str]:
    """The addresses TCP sockets held by ``pids`` listen on (``/proc/net/tcp`` and ``tcp6``)."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    out: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                out.add(_address(cols[1]))
    return out
