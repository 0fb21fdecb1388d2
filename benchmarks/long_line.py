"""Bounded cost per document: every registered chunker on one long single-line document.

    .venv/bin/python benchmarks/long_line.py [--mb 5] [--variants sentences,words] [--embedder hash]
                                             [--only fixed,late] [--timeout 300] [--max-rss-mb 6000]
                                             [--out benchmarks/results/long_line.json]

The document is one line of ``--mb`` megabytes of English-like words (a Zipf-weighted vocabulary of
made-up words): variant ``sentences`` has capitals, commas and sentence ends; variant ``words`` has no
punctuation and no capitals at all (one "sentence" of 5 MB). Each chunker runs with its default parameters
(``late`` over its default base, ``fixed``) in a subprocess of its own, so its peak memory is its own: the
parent reads the child's resource usage (``wait4``) and kills a child that passes ``--timeout`` seconds or
``--max-rss-mb`` of resident memory.

Printed per chunker: seconds inside ``chunk_verified`` (for ``late`` with a real model, plus the late
vectors), the process's peak resident memory and its growth while chunking (``+MB``), the number of
chunks, and the largest chunk against the limit, in the unit the chunker measures: tokens of the embedding
model's tokenizer starting inside the span (the document tokenized once: the workbench chunkers and the
token-window libraries), tokens of the chunk's own text (``tokens*``: semchunk and LangChain's recursive
splitter count that), sentences for ``sentence``.

``--embedder hash`` (default) embeds with the test suite's feature-hashing stand-in
(``tests/fake_embedder.py``): it shows the chunkers' own cost. ``--embedder minilm`` uses the real model
for ``semantic``, ``cluster_semantic`` and ``late`` (which then also pools its late vectors); on a CPU its
cost is the model's (see the printed throughput), not the chunker's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EMBEDDING_KINDS = ("semantic", "cluster_semantic", "late")
OWN_TEXT = ("semchunk", "langchain_recursive")  # they count a chunk's own text (``tokens*`` in the table)
CONSONANTS = "bcdfghjklmnprstvwz"
VOWELS = "aeiou"


def vocabulary(rng: random.Random, size: int = 6_000) -> list[str]:
    """Made-up words of one to four syllables (a few common short words first)."""
    words = ["the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with", "on"]
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) + (rng.choice(CONSONANTS) if rng.random() < 0.4
                                                                      else "")
                       for _ in range(rng.choice((1, 2, 2, 3, 3, 4))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def make_document(chars: int, punctuation: bool = True, seed: int = 7) -> str:
    """One line of about ``chars`` characters of Zipf-distributed words; with ``punctuation`` the words
    form sentences (capital first word, commas, sentence ends, some numbers), else lower-case words only."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    stream = rng.choices(words, weights, k=chars // 5 + 1000)
    parts: list[str] = []
    length = 0
    i = 0
    while length < chars:
        n = rng.randint(6, 28) if punctuation else 50
        sentence = stream[i:i + n]
        i = (i + n) % (len(stream) - 30)
        if punctuation:
            sentence = list(sentence)
            sentence[0] = sentence[0].capitalize()
            for k in range(2, len(sentence) - 1):
                if rng.random() < 0.06:
                    sentence[k] += ","
                elif rng.random() < 0.01:
                    sentence[k] = str(rng.randint(2, 2024))
            piece = " ".join(sentence) + rng.choice(".....?!")
        else:
            piece = " ".join(sentence)
        parts.append(piece)
        length += len(piece) + 1
    return " ".join(parts)[:chars].rstrip()


# ----- one chunker, in a child process ---------------------------------------------------------------
def _rss_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _limit(kind_name: str, params: dict[str, Any]) -> tuple[str, int | None]:
    """(unit, limit) of a chunker's size parameter."""
    if kind_name == "late":
        return _limit(str(params["base"]), json.loads(str(params["base_params"])) or {"unit": "tokens", "size": 200})
    if kind_name == "sentence":
        return "sentences", int(params.get("size", 5))
    if kind_name in ("fixed", "structure"):
        return str(params.get("unit", "tokens")), int(params.get("size", 200))
    if "max_tokens" in params:
        return "tokens", int(params["max_tokens"])
    return "tokens", None


def run_child(name: str, variant: str, chars: int, embedder_name: str) -> dict[str, Any]:
    """Chunk the document with ``name`` (default parameters) and measure it."""
    sys.path.insert(0, str(ROOT / "tests"))
    from workbench.core.index.embedding import default_model_path
    from workbench.core.ingest.chunkers import ChunkerResources, chunk_verified, get_kind
    from workbench.core.ingest.chunkers.recursive import TokenRuler
    from workbench.core.ingest.chunking import unit_spans
    from workbench.core.ingest.headings import parse_headings
    from workbench.core.ingest.tokens import counter_for_model

    text = make_document(chars, punctuation=variant == "sentences")
    counter = counter_for_model(default_model_path())
    embedder: Any
    if embedder_name == "minilm":
        from workbench.core.index.embedding import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
        embedder.encode(["warm up"])
    else:
        from fake_embedder import HashEmbedder

        embedder = HashEmbedder()
    kind = get_kind(name)
    resources = ChunkerResources(counter, embedder.encode, embedder.model_id, {})
    chunker = kind.make(resources)
    params = chunker.spec.param_dict
    headings = parse_headings(text)
    before = _rss_mb()
    started = time.perf_counter()
    spans = chunk_verified(chunker, text, headings, f"long-{variant}.txt")
    chunked = time.perf_counter() - started
    note = ""
    if name == "late" and embedder_name == "minilm":
        from workbench.core.ingest.chunkers.late import late_chunk_vectors

        vectors = late_chunk_vectors(embedder, text, spans)
        note = f"{len(vectors)} late vectors; spans {chunked:.1f} s"
    elif name == "late":
        note = "spans only: late vectors need the real model"
    elif name in EMBEDDING_KINDS:
        note = f"{len(resources.vector_cache or {})} texts embedded"
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    unit, limit = _limit(name, params)
    if unit == "tokens" and name in OWN_TEXT:
        sizes = [counter.count(text[a:b]) for a, b in spans]
        unit = "tokens*"
    elif unit == "tokens":
        ruler = TokenRuler(text, counter)
        sizes = [ruler.size(a, b) for a, b in spans]
    else:
        import numpy as np

        starts = unit_spans(text, unit, counter)[:, 0]
        sizes = [int(np.searchsorted(starts, b) - np.searchsorted(starts, a)) for a, b in spans]
    covered = sum(b - a for a, b in spans)
    return {"chunker": name, "variant": variant, "embedder": embedder_name if name in EMBEDDING_KINDS else "-",
            "chars": len(text), "seconds": round(seconds, 2), "chunk_seconds": round(chunked, 2),
            "rss_before_mb": round(before), "peak_mb": round(peak), "grew_mb": round(peak - before),
            "chunks": len(spans), "max": max(sizes, default=0), "limit": limit, "unit": unit,
            "covered_chars": covered, "note": note, "status": "ok"}


# ----- the parent: one child per chunker -------------------------------------------------------------
def _child_rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except OSError:
        return 0.0


def measure(name: str, variant: str, chars: int, embedder: str, timeout: float, max_rss_mb: float) -> dict[str, Any]:
    """Run one chunker in a child process; its result, or why it was stopped, with its peak memory."""
    with tempfile.NamedTemporaryFile("w+", suffix=".json") as out:
        command = [sys.executable, __file__, "--child", name, "--variant", variant, "--chars", str(chars),
                   "--embedder", embedder, "--child-out", out.name]
        started = time.perf_counter()
        proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        status, seen_rss = "", 0.0
        while True:
            pid, code, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            seen_rss = max(seen_rss, _child_rss_mb(proc.pid))
            if time.perf_counter() - started > timeout:
                status = f"killed after {timeout:g} s"
            elif seen_rss > max_rss_mb:
                status = f"killed at {seen_rss:,.0f} MB"
            if status:
                proc.kill()
                pid, code, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        proc.returncode = code  # reaped by wait4: tell Popen so it does not wait again
        wall = time.perf_counter() - started
        errors = proc.stderr.read() if proc.stderr else ""
        peak = usage.ru_maxrss / 1e3
        if status or code:
            return {"chunker": name, "variant": variant, "embedder": embedder if name in EMBEDDING_KINDS else "-",
                    "seconds": round(wall, 1), "peak_mb": round(peak), "status": status or
                    f"failed: {errors.strip().splitlines()[-1] if errors.strip() else code}"}
        result: dict[str, Any] = json.loads(Path(out.name).read_text())
        result["peak_mb"] = round(peak)
        return result


def table(rows: list[dict[str, Any]]) -> str:
    """The results as a text table."""
    head = f"{'chunker':20} {'variant':9} {'embedder':8} {'seconds':>8} {'peak MB':>8} {'+MB':>6} {'chunks':>7} " \
           f"{'max':>7} {'limit':>6} {'unit':9} status"
    lines = [head, "-" * len(head)]
    for r in rows:
        limit = "none" if r.get("limit") is None else str(r["limit"])
        lines.append(f"{r['chunker']:20} {r['variant']:9} {r['embedder']:8} {r['seconds']:8.1f} {r['peak_mb']:8,} "
                     f"{r.get('grew_mb', '-')!s:>6} {r.get('chunks', '-')!s:>7} {r.get('max', '-')!s:>7} "
                     f"{limit if 'max' in r else '-':>6} {r.get('unit', '-'):9} {r['status']}"
                     + (f" ({r['note']})" if r.get("note") else ""))
    return "\n".join(lines)


def main() -> int:
    """Run every chunker (or ``--only`` some) on each variant and print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=float, default=5.0, help="document size in megabytes (characters / 1e6)")
    p.add_argument("--variants", default="sentences,words")
    p.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    p.add_argument("--only", help="comma-separated chunker names (default: every registered one)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds before a chunker is killed")
    p.add_argument("--max-rss-mb", type=float, default=6_000.0, help="resident MB at which a chunker is killed")
    p.add_argument("--out", type=Path, help="also write the rows as JSON here")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--variant", help=argparse.SUPPRESS)
    p.add_argument("--chars", type=int, help=argparse.SUPPRESS)
    p.add_argument("--child-out", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        result = run_child(args.child, args.variant, args.chars, args.embedder)
        Path(args.child_out).write_text(json.dumps(result))
        return 0
    from workbench.core.ingest.chunkers import chunker_kinds

    names = [k.name for k in chunker_kinds() if not k.available()]
    if args.only:
        names = [n for n in args.only.split(",") if n]
    chars = int(args.mb * 1e6)
    print(f"one line of {chars:,} characters; embedder for {', '.join(EMBEDDING_KINDS)}: {args.embedder}; "
          f"limits {args.timeout:g} s, {args.max_rss_mb:,.0f} MB; {os.cpu_count()} CPUs", flush=True)
    rows = []
    for variant in args.variants.split(","):
        for name in names:
            rows.append(measure(name, variant, chars, args.embedder, args.timeout, args.max_rss_mb))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
