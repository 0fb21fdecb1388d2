"""A fast, deterministic stand-in for the embedding model, for pipeline unit tests that need vectors but
not their meaning (the integration tests keep the real MiniLM).

Each text becomes a feature-hashed bag of its lower-cased words (and word bigrams), L2-normalised, so texts
that share words score higher than texts that do not, with no model loaded. Token counts come from the real
model's tokenizer file, so chunk boundaries are the same as with MiniLM; the model identity differs, so the
embedding cache never mixes fake and real vectors.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from workbench.core.index.embedding import default_model_path
from workbench.core.jobs import CancelToken, ProgressSink, Reporter

WORD = re.compile(r"\w+")
DIM = 384


class HashEmbedder:
    """Bag-of-words feature hashing into ``DIM`` dimensions; satisfies ``core.index.embedding.Embedder``."""

    def __init__(self, dim: int = DIM) -> None:
        self.model_path: str | None = str(default_model_path())
        self.model_id = f"test-hash-embedder-{dim}"
        self._dim = dim
        self.calls = 0
        self.texts_encoded = 0

    @property
    def dim(self) -> int:
        """Vector length."""
        return self._dim

    def encode(self, texts: Sequence[str], progress: ProgressSink | None = None,
               cancel: CancelToken | None = None) -> np.ndarray:
        """One normalised float32 row per text (a zero text gets a fixed unit vector); progress is reported
        as the real model reports it (stage "embedding", one step per 64 texts)."""
        report = Reporter(progress, "embedding", len(texts))
        self.calls += 1
        self.texts_encoded += len(texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = WORD.findall(text.lower())
            for feature in (*words, *(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self._dim
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                out[row, 0], norm = 1.0, 1.0
            out[row] /= norm
            if (row + 1) % 64 == 0 or row + 1 == len(texts):
                report(row + 1)
        return out


class RecordingEmbedder(HashEmbedder):
    """The hashed embedder, remembering the texts of every encode call (``batches``)."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def encode(self, texts: Sequence[str], progress: ProgressSink | None = None,
               cancel: CancelToken | None = None) -> np.ndarray:
        self.batches.append(list(texts))
        return super().encode(texts, progress, cancel)
