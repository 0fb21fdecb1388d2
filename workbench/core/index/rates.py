"""This machine's measured embedding rate per model, kept in the data folder (the store's meta table).

Every chunk-set build adds up the characters it embedded and the seconds the model took (``EmbedMeter``);
``keep_rate`` folds that into the kept rate, each side weighed by the seconds of embedding behind it (the kept
side counts at most ``EVIDENCE_CAP_S``): a build of a minute moves an established rate halfway, so the rate
follows the machine without jumping on one busy run, and the first real build outweighs the second-long
measurement taken before it. The cost estimate of the next build (``estimate``) divides the characters it
expects to embed by this rate.
"""

from __future__ import annotations

from workbench.core.index.embedding import EmbedMeter
from workbench.core.store import Store

EVIDENCE_CAP_S = 60.0  # seconds of embedding a kept rate stands for, at most


def evidence_name(model_id: str) -> str:
    """The meta key of the seconds of embedding behind a model's kept rate."""
    return f"embed_seconds:{model_id}"


def rate_name(model_id: str) -> str:
    """The meta key of a model's embedding rate."""
    return f"embed_chars_per_s:{model_id}"


def embedding_rate(store: Store, model_id: str) -> float | None:
    """Characters per second this machine embedded with ``model_id`` (None before any measurement)."""
    return store.caches.rate(rate_name(model_id))


def keep_rate(store: Store, model_id: str, meter: EmbedMeter, least_seconds: float = 1.0) -> float | None:
    """Fold ``meter``'s rate into the kept one (skipped below ``least_seconds`` of embedding, and where the
    store cannot be written); returns the rate kept, or None."""
    measured = meter.rate(least_seconds)
    if measured is None:
        return None
    old = embedding_rate(store, model_id)
    behind = 0.0 if old is None else min(EVIDENCE_CAP_S, store.caches.rate(evidence_name(model_id)) or EVIDENCE_CAP_S)
    weight = meter.seconds / (meter.seconds + behind) if behind > 0 else 1.0
    new = measured if old is None else (1 - weight) * old + weight * measured
    store.caches.keep_rate(rate_name(model_id), new)
    store.caches.keep_rate(evidence_name(model_id), min(EVIDENCE_CAP_S, behind + meter.seconds))
    return new
