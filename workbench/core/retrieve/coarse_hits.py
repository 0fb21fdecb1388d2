"""Multi-granularity search: hits from coarser chunk sets of the same documents join the fine hits.

Small chunks rank sharply; larger ones catch answers that a small chunk splits. A strategy with
``"coarse": "100:2+200:2"`` searches its own (fine) chunk set as usual, then the same documents cut at
100 and 200 units (same chunker, same embedding model) and takes the best 2 hits of each. A coarse hit
becomes a window over the fine set: the fine chunks that overlap it (``Hit.cover``), its hit row the middle
one not hit yet. The lists are fused by reciprocal rank, each list weighted equally: ``1 / (rrf_k + rank)``, ties
keeping the fine hit first, so the fine top-1 and each coarse top-1 lead. Everything downstream (neighbour
windows, merging, budget-aware trimming) works on fine rows, so passages stay exact spans of the fine set.

Fitted on the chatlogs and finance corpora of the bundled benchmark (see docs/evaluation.md, "Presets are
starting points"): the best hit of a 100- and of a 200-token set beat one level, and more hits per level crowd out
the fine ones (16 configurations; their results file, rse-tune8.json, is not in the repository).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from workbench.core.ingest.chunkers.choice import with_chunk_size
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.values import ChunkConfig
from workbench.core.retrieve.loaded_set import LoadedSet
from workbench.core.retrieve.search import Hit
from workbench.core.retrieve.strategy.search_config import CoarseLevel

COARSE_EXPANSIONS = ("none", "neighbours")  # coarse hits are windows already; other expansions grow a chunk


def check_coarse(levels: Sequence[CoarseLevel], expansion: str, own_size: int) -> None:
    """Refuse coarse levels a strategy cannot use: another expansion, or a level at the strategy's own chunk
    size (``own_size``, read from its chunker: it would search the fine chunks twice)."""
    if levels and expansion not in COARSE_EXPANSIONS:
        raise ValueError(f"coarse hits are windows of chunks: they work with {' or '.join(COARSE_EXPANSIONS)} "
                         f"expansion, not {expansion}")
    if any(level.size == own_size for level in levels):
        raise ValueError(f"a coarse chunk size must differ from the strategy's own ({own_size})")


def coarse_configs(chunk: ChunkConfig, levels: Sequence[CoarseLevel]) -> list[ChunkConfig]:
    """The coarse chunk sets: ``chunk``'s chunking at each level's size."""
    try:
        return [with_chunk_size(chunk, level.size) for level in levels]
    except ChunkerError as exc:
        raise ValueError(f"coarse chunk sets: {exc}") from None


def as_fine_hit(rt: LoadedSet, coarse: Hit, taken: Collection[int] = ()) -> Hit | None:
    """A coarse hit as a window over the fine set ``rt``: the fine chunks that overlap it, its hit row the
    middle one not in ``taken`` (rows already hit; None when every covered row is, or none overlaps)."""
    rows = rt.chunks_in(coarse.span)
    free = sorted((r for r in rows if r not in taken), key=lambda r: (abs(2 * r - rows[0] - rows[-1]), r))
    if not free:
        return None
    first, last, row = rows[0], rows[-1], free[0]
    return Hit(rt.chunk_id(row), row, rt.range_span(first, last), coarse.rank, coarse.score,
               dense_score=coarse.dense_score, bm25_score=coarse.bm25_score, cover=(first, last))


def fuse_granularities(fine: Sequence[Hit], coarse_lists: Sequence[Sequence[Hit]], rt: LoadedSet,
                       rrf_k: int = 60) -> list[Hit]:
    """Fine hits and coarse hits (each list in rank order, coarse ones from their own sets) in one ranking
    by reciprocal rank fusion, ties keeping the earlier list first; coarse hits become windows over ``rt``
    (``as_fine_hit``; one whose chunks are all hit already is left out). Ranks are renumbered from 1;
    scores stay each hit's own."""
    scored: list[tuple[float, int, Hit]] = [(1.0 / (rrf_k + rank), i, h) for i, (rank, h) in
                                            enumerate(enumerate(fine, start=1))]
    taken = {h.row for h in fine}
    for hits in coarse_lists:
        for rank, hit in enumerate(hits, start=1):
            window = as_fine_hit(rt, hit, taken)
            if window is not None:
                taken.add(window.row)
                scored.append((1.0 / (rrf_k + rank), len(scored), window))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [replace(h, rank=rank) for rank, (_, _, h) in enumerate(scored, start=1)]
