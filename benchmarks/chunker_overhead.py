"""Chunking cost alone (no embedding) of every chunker over the Chroma benchmark corpus, and the adapter
overhead: our chunker (library call + span mapping + ``chunk_verified``) against the same library object
called directly with the same settings and token counter (its chunk texts, no spans, no checks).

    .venv/bin/python benchmarks/chunker_overhead.py [--repeat 5] [--size 256]

Prints one line per chunker: seconds through the workbench, seconds direct, and their ratio. Chunkers that
embed (semantic, cluster_semantic, late) are left out: their cost is the embedding model's.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.evaluate.bundled import bundled_path
from workbench.core.evaluate.datasets import load_question_set
from workbench.core.index.embedding import default_model_path
from workbench.core.ingest.chunkers import ChunkerError, ChunkerResources, chunk_verified, chunker_kinds
from workbench.core.ingest.chunkers.choice import size_param
from workbench.core.ingest.chunking import chunk_document
from workbench.core.ingest.documents import Document, load_file
from workbench.core.ingest.tokens import counter_for_model


def direct_call(name: str, chunker: Any) -> Callable[[Document], object] | None:
    """The library (or core function) the chunker wraps, called as a user of it would, or None."""
    if name in ("fixed", "sentence", "structure"):
        config, counter = chunker.config, chunker._counter  # the same settings, no protocol
        return lambda doc: chunk_document(doc.text, doc.headings, config, counter)
    if name == "langchain_recursive":
        return lambda doc: chunker._splitter.create_documents([doc.text])
    if name == "langchain_markdown":
        return lambda doc: chunker._splitter.split_text(doc.text)
    if name.startswith("chonkie_"):
        return lambda doc: chunker._chunker.chunk(doc.text)
    if name == "semchunk":
        return lambda doc: chunker._chunk(doc.text, offsets=True, overlap=chunker._overlap or None)
    return None


def _through_workbench(chunker: Any, docs: list[Document]) -> object:
    return [chunk_verified(chunker, d.text, d.headings, d.path) for d in docs]


def _direct(call: Callable[[Document], object], docs: list[Document]) -> object:
    return [call(d) for d in docs]


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The fastest of ``repeat`` timed calls."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def interleaved(repeat: int, ours: Callable[[], object], theirs: Callable[[], object]) -> tuple[float, float]:
    """Best time of each, the two run alternately (this machine's speed drifts by ±20% between runs, so
    timing one side after the other measures the drift as much as the overhead)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, out in ((ours, times[0]), (theirs, times[1])):
            started = time.perf_counter()
            fn()
            out.append(time.perf_counter() - started)
    return min(times[0]), min(times[1])


def main() -> int:
    """Time every chunker through the workbench and direct; print the ratios."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--size", type=int, default=256, help="each chunker's size parameter (tokens)")
    p.add_argument("--only", help="comma-separated chunker names (default: every one that does not embed)")
    args = p.parse_args()
    root = bundled_path("chroma-general")
    assert root is not None
    qset = load_question_set(root)
    docs = [d for d in (load_file(Path(path)).document for path in qset.corpora.values()) if d is not None]
    counter = counter_for_model(default_model_path())
    resources = ChunkerResources(counter=counter)
    print(f"{len(docs)} documents, {sum(len(d.text) for d in docs):,} characters; best of {args.repeat}")
    print(f"{'chunker':22} {'chunks':>7} {'workbench s':>12} {'direct s':>9} {'ratio':>6}")
    for kind in chunker_kinds():
        if kind.available() or "embed" in kind.needs or kind.name == "late":
            continue
        if args.only and kind.name not in args.only.split(","):
            continue
        target = size_param(kind)
        chunker = kind.make(resources, **({target: args.size} if target else {}))
        direct = direct_call(kind.name, chunker)
        try:
            for doc in docs:  # warm the token counter's caches for both sides alike
                chunk_verified(chunker, doc.text, doc.headings, doc.path)
        except ChunkerError as exc:
            print(f"{kind.name:22} fails: {exc}")
            continue
        count = sum(len(chunk_verified(chunker, d.text, d.headings, d.path)) for d in docs)
        if direct is None:
            ours = best_of(args.repeat, partial(_through_workbench, chunker, docs))
            print(f"{kind.name:22} {count:7d} {ours:12.2f} {'-':>9} {'-':>6}")
            continue
        ours, theirs = interleaved(args.repeat, partial(_through_workbench, chunker, docs),
                                   partial(_direct, direct, docs))
        print(f"{kind.name:22} {count:7d} {ours:12.2f} {theirs:9.2f} {ours / theirs:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
