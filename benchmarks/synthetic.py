"""Synthetic scale data for the benchmarks: documents built from real sentences, and a fast embedder with
clustered vectors (the index and query *timings* are real; the vectors are not semantically meaningful)."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "workbench" / "datasets" / "chroma-general" / "corpora"


def sentences() -> list[str]:
    """Real sentences from the Chroma corpora (the raw material for synthetic documents)."""
    out: list[str] = []
    for f in sorted(CORPORA.glob("*.md")):
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", f.read_text(encoding="utf-8"))
                if 20 < len(s.strip()) < 400]
    return out


def write_corpus(folder: Path, target_tokens: int, doc_tokens: int = 20_000, seed: int = 0) -> list[Path]:
    """Write markdown documents of about ``doc_tokens`` tokens until ``target_tokens`` (≈ words × 1.3)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    pool = sentences()
    paths, total, n = [], 0, 0
    while total < target_tokens:
        parts, size, section = [f"# Synthetic document {n}\n"], 0, 0
        while size < doc_tokens:
            if size // 2000 >= section:
                section += 1
                parts.append(f"\n## Section {section}\n\n")
            s = rng.choice(pool)
            parts.append(s + (" " if rng.random() < 0.8 else "\n\n"))
            size += int(len(s.split()) * 1.3)
        path = folder / f"doc{n:05d}.md"
        path.write_text("".join(parts), encoding="utf-8")
        paths.append(path)
        total += size
        n += 1
    return paths


class SyntheticEmbedder:
    """Deterministic clustered unit vectors from a text hash: instant, for index-scale benchmarks."""

    def __init__(self, dim: int = 384, clusters: int = 2000, model_path: str | None = None) -> None:
        self.dim = dim
        self.model_id = f"synthetic-{dim}"
        self.model_path = model_path
        self.texts_encoded = 0
        self.calls = 0
        self._centres = np.random.default_rng(42).normal(size=(clusters, dim)).astype(np.float32)

    def encode(self, texts, progress=None, cancel=None) -> np.ndarray:
        seeds = [int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little") for t in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, s in enumerate(seeds):
            rng = np.random.default_rng(s)
            out[i] = self._centres[s % len(self._centres)] + 0.6 * rng.normal(size=self.dim)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        self.texts_encoded += len(texts)
        self.calls += 1
        return out


class QueryTimedEmbedder(SyntheticEmbedder):
    """Synthetic vectors for chunks, but questions go through the real MiniLM model (its cost is real)."""

    def __init__(self, real) -> None:
        super().__init__(dim=384, model_path=real.model_path)
        self.real = real

    def encode(self, texts, progress=None, cancel=None) -> np.ndarray:
        self.real.encode(texts)  # pay the real cost of embedding the question
        return super().encode(texts, progress, cancel)
