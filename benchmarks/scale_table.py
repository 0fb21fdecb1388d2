"""The field's benchmarks in the workbench, at their scale: import a whole real benchmark in its published
layout, then evaluate ``plain``, ``hybrid`` and ``multi-granularity`` at one budget, each step one CLI command
in a process of its own under ``/usr/bin/time -v`` (wall time and peak memory of that process).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/scale_table.py [--work /tmp/wb-scale-table] [--budget 1000]
        [--sample gutenqa:tests/data/benchmarks/gutenqa/Emma_-_Jane_Austen ...] [--skip-chroma]
        [--plan-chars 79e6 --plan-questions 6858 --workers 1,4,8,16,32,64 --driver-ceiling 886]

Chroma's general evaluation is rebuilt in its published layout (``general_evaluation_data/questions_df.csv`` +
``corpora/*.md``: all 472 rows, all 5 corpora) from the copy the workbench ships, whose ``questions.csv`` is the
published ``questions_df.csv`` byte for byte. ``--sample FORMAT:PATH`` adds a real file in its published layout,
e.g. a GutenQA book folder as LumberChunker publishes it (not in the repository: tests/data/benchmarks/README.md
says where each sample is published).

Prints, per benchmark: the import report's counts; each command's wall time and peak RSS; each chunk-set build
the eval made (chunks, chunks/s, from the command's own progress lines); questions/s evaluated; recall and
context tokens per strategy. Then the plan for a larger benchmark (default: LegalBench-RAG as published) on a
Ray cluster, scaled from Chroma's measured rates: an estimate, not a measurement. The model is the default
(all-MiniLM-L6-v2); set HF_HUB_OFFLINE=1. Run it on a quiet machine: every figure is one run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "workbench" / "datasets" / "chroma-general"
STRATEGIES = ("plain", "hybrid", "multi-granularity")


@dataclass
class Timed:
    """One command under ``/usr/bin/time -v``: its stdout, its progress lines (each with the second it arrived,
    from the command's start), wall seconds and peak RSS."""

    argv: list[str]
    out: str
    progress: list[tuple[float, str]]
    wall_s: float
    peak_mib: float


@dataclass
class Build:
    """One chunk-set build as the command's progress reported it: from its ``[estimate]`` line to its last
    ``[embedding]`` line (seconds from the command's start)."""

    label: str
    start: float
    end: float = 0.0
    chunks: int = 0

    @property
    def seconds(self) -> float:
        return max(self.end - self.start, 0.0)

    @property
    def rate(self) -> float:
        return self.chunks / self.seconds if self.seconds else 0.0


@dataclass
class Result:
    name: str
    source: str
    report: dict[str, Any]
    imp: Timed
    ev: Timed
    rows: list[dict[str, Any]] = field(default_factory=list)
    chars: int = 0


def _wall(text: str) -> float:
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
    if m is None:
        raise SystemExit(f"no wall time in /usr/bin/time's output: {text[-500:]}")
    secs = 0.0
    for p in m.group(1).split(":"):
        secs = secs * 60 + float(p)
    return secs


def timed(args: list[str], data: Path, log: Path) -> Timed:
    """Run ``python -m workbench.cli ARGS --data-dir DATA --json`` under ``/usr/bin/time -v``; its progress
    lines are kept in ``log`` with the second each arrived."""
    argv = [sys.executable, "-m", "workbench.cli", *args, "--data-dir", str(data), "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    progress: list[tuple[float, str]] = []
    errors: list[str] = []
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.monotonic()
        proc = subprocess.Popen(["/usr/bin/time", "-v", "-o", tf.name, *argv], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        assert proc.stderr is not None and proc.stdout is not None

        def read_err() -> None:
            assert proc.stderr is not None
            for raw in proc.stderr:
                for line in raw.split("\r"):
                    if line.startswith("["):
                        progress.append((time.monotonic() - t0, line.rstrip()))
                    elif line.strip():
                        errors.append(line)

        reader = threading.Thread(target=read_err)
        reader.start()
        out = proc.stdout.read()
        proc.wait()
        reader.join()
        stats = Path(tf.name).read_text()
    log.write_text("".join(f"{t:8.1f} {line}\n" for t, line in progress) + "".join(errors), encoding="utf-8")
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {''.join(errors)[-2000:]}")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stats)
    if m is None:
        raise SystemExit(f"no peak memory in /usr/bin/time's output: {stats[-500:]}")
    return Timed(argv[1:], out, progress, _wall(stats), int(m.group(1)) / 1024)


def builds(progress: list[tuple[float, str]]) -> list[Build]:
    """The chunk-set builds a command reported: an ``[estimate]`` line names the size and starts the build; its
    ``[embedding] … N chunks`` lines count the chunks (cumulative over the build's groups of documents); the last
    one ends it."""
    out: list[Build] = []
    for t, line in progress:
        if line.startswith("[estimate]"):
            out.append(Build(line.split(":", 1)[0].removeprefix("[estimate] "), t))
            continue
        m = re.match(r"\[embedding\] \d+/\d+, [\d.]+/s (\d+) chunks", line)
        if m and out:
            out[-1].chunks = max(out[-1].chunks, int(m.group(1)))
            out[-1].end = t
    return out


def evaluated(progress: list[tuple[float, str]]) -> tuple[int, float, float] | None:
    """(questions × configurations, seconds, per second) of the evaluation: from the progress line before the
    first ``[evaluating]`` line (the questions embedded) to the last ``[evaluating]`` line."""
    hits = [(i, t, re.match(r"\[evaluating\] (\d+)/(\d+)", line)) for i, (t, line) in enumerate(progress)]
    found = [(i, t, m) for i, t, m in hits if m]
    if not found:
        return None
    i0 = found[0][0]
    start = progress[i0 - 1][0] if i0 else found[0][1]
    _, end, m = found[-1]
    n = int(m.group(2))
    return n, end - start, n / (end - start) if end > start else 0.0


def chroma_published(folder: Path) -> Path:
    """``folder/general_evaluation_data`` in Chroma's published layout, every row and every corpus."""
    root = folder / "general_evaluation_data"
    if root.exists():
        shutil.rmtree(root)
    (root / "corpora").mkdir(parents=True)
    shutil.copyfile(SHIPPED / "questions.csv", root / "questions_df.csv")
    for corpus in sorted((SHIPPED / "corpora").glob("*.md")):
        shutil.copyfile(corpus, root / "corpora" / corpus.name)
    return root


def run(name: str, fmt: str, source: Path, described: str, work: Path, budget: int) -> Result:
    """Import ``source`` into a fresh data folder, then evaluate the three strategies at ``budget``."""
    data = work / f"data-{name}"
    if data.exists():
        shutil.rmtree(data)
    imp = timed(["import-questions", fmt, str(source), "--set", name], data, work / f"{name}-import.progress")
    args = ["eval", name, "--budgets", str(budget)]
    for s in STRATEGIES:
        args += ["--strategy", s]
    ev = timed(args, data, work / f"{name}-eval.progress")
    res = Result(name, described, json.loads(imp.out), imp, ev, json.loads(ev.out)["rows"])
    res.chars = corpus_chars(data)
    return res


def corpus_chars(data: Path) -> int:
    """Characters of the documents the data folder stores (the set's corpus: the import added only it)."""
    con = sqlite3.connect(f"file:{data / 'workbench.sqlite3'}?mode=ro", uri=True)
    try:
        return int(con.execute("SELECT SUM(LENGTH(text)) FROM documents").fetchone()[0] or 0)
    finally:
        con.close()


def show(res: Result) -> None:
    """Print one benchmark's figures."""
    rep = res.report
    left = rep["left_out"]
    print(f"\n## {res.name}: {res.source}")
    print(f"import report: {rep['questions']} questions imported, {rep['merged']} rows merged, "
          f"{len(left)} left out, skipped {rep['skipped']}; references located {rep['located']}, "
          f"not found {rep['not_found']}; {rep['documents']} documents, {res.chars:,} characters")
    for step, t in (("import", res.imp), ("eval", res.ev)):
        print(f"{step}: {t.wall_s:.1f} s wall, peak RSS {t.peak_mib:.0f} MiB   "
              f"[{' '.join(a if ' ' not in a else repr(a) for a in t.argv)}]")
    for b in builds(res.imp.progress) + builds(res.ev.progress):
        per_m = b.chunks / res.chars * 1e6 if res.chars else 0.0
        print(f"  chunk-set build, {b.label}: {b.chunks} chunks ({per_m:.0f} per million characters) in "
              f"{b.seconds:.1f} s = {b.rate:.1f} chunks/s (cutting, embedding, writing)")
    ev = evaluated(res.ev.progress)
    if ev:
        n, secs, rate = ev
        print(f"  evaluated {n} question × configuration pairs in {secs:.1f} s = {rate:.1f}/s")
    print("| strategy | recall % | context tokens | questions |")
    print("|---|---:|---:|---:|")
    for r in res.rows:
        print(f"| {r['strategy']} | {100 * float(r['recall']):.1f} | {float(r['context_tokens']):.0f} | "
              f"{r['questions']} |")


def plan(res: Result, chars: float, questions: int, workers: list[int], ceiling: float) -> None:
    """A benchmark of ``chars`` characters and ``questions`` questions on ``W`` workers, each embedding at the rate
    this run measured on this machine (one worker = this machine's throughput), the driver never past
    ``ceiling`` chunks/s (it cuts, counts and writes every chunk itself): an estimate from the measured rates."""
    sets = builds(res.ev.progress)
    ev = evaluated(res.ev.progress)
    print(f"\n## plan: {chars / 1e6:.0f} M characters, {questions:,} questions, scaled from {res.name}'s rates")
    total = 0.0
    for b in sets:
        n = b.chunks / res.chars * chars
        total += n
        print(f"  {b.label}: ~{n:,.0f} chunks at {b.rate:.1f} chunks/s per worker")
    print(f"  vectors: ~{total:,.0f} × 384 float32 = {total * 384 * 4 / 2**30:.2f} GiB")
    print("| workers | embedding (all sets) | chunks/s |")
    print("|---:|---:|---:|")
    for w in workers:
        secs = sum(b.chunks / res.chars * chars / min(b.rate * w, ceiling) for b in sets)
        print(f"| {w} | {secs / 60:.1f} min | {total / secs:.0f} |")
    if ev:
        n, _, rate = ev
        pairs = questions * n / max(int(res.rows[0]["questions"]), 1)
        print(f"  evaluation on the driver: {pairs:,.0f} question × configuration pairs at the measured "
              f"{rate:.0f}/s = {pairs / rate / 60:.1f} min (the search itself grows with the chunks: see "
              "docs/performance.md for the time per question at 100k chunks)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "wb-scale-table"))
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--skip-chroma", action="store_true")
    ap.add_argument("--sample", action="append", default=[], metavar="FORMAT:PATH",
                    help="also a real file or folder in FORMAT's published layout (repeatable)")
    ap.add_argument("--plan-chars", type=float, default=79e6, help="the plan's corpus (LegalBench-RAG: ~79 M)")
    ap.add_argument("--plan-questions", type=int, default=6858, help="the plan's questions (LegalBench-RAG: 6,858)")
    ap.add_argument("--workers", default="1,4,8,16,32,64")
    ap.add_argument("--driver-ceiling", type=float, default=886.0,
                    help="chunks/s the driver alone cuts, counts and writes (benchmarks/cluster_build.py)")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    if not args.skip_chroma:
        chroma = run("chroma", "chroma", chroma_published(work / "chroma"),
                     "Chroma general evaluation, published layout, 472 rows, 5 corpora", work, args.budget)
        show(chroma)
    for spec in args.sample:
        fmt, _, path = spec.partition(":")
        source = Path(path).resolve()
        show(run(fmt, fmt, source, f"{fmt}: {source.name}", work, args.budget))
    if not args.skip_chroma:
        plan(chroma, args.plan_chars, args.plan_questions, [int(w) for w in args.workers.split(",")],
             args.driver_ceiling)


if __name__ == "__main__":
    main()
